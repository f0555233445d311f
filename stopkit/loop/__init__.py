"""The loop driver as a namespace: `stopkit.loop.handlers` and `stopkit.loop.events`.

- `stopkit.loop.handlers` — the actions a handler returns (`Continue`, `Retry`, `Finish`,
  `Escalate`), `LoopContext`, `DEFAULT_HANDLERS` and the ready-made policies.
- `stopkit.loop.events` — `Outcome`, `Termination`, `Escalation`, `ToolRun` and the events
  `on_event` receives.

The entry points, `stopkit.run_loop`, `stopkit.arun_loop`, `stopkit.Loop`,
`stopkit.LoopSettings`, `stopkit.resume_loop` and `stopkit.aresume_loop`, and the controls'
types (`stopkit.Budget`, `stopkit.Defer`, `stopkit.ModelCallContext`), are exported from
`stopkit` itself; every other module here is private.
Nothing is imported here, so `import stopkit.loop.events` loads only what it needs.
"""
