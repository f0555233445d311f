"""The loop driver as a namespace: `stopkit.loop.handlers` and `stopkit.loop.events`.

- `stopkit.loop.handlers` — the actions a handler returns (`Continue`, `Retry`, `Finish`,
  `Escalate`), `LoopContext`, `DEFAULT_HANDLERS` and the ready-made policies.
- `stopkit.loop.events` — `Outcome`, `Termination`, `Escalation`, `ToolRun` and the events
  `on_event` receives.

The entry points, `stopkit.run_loop`, `stopkit.arun_loop`, `stopkit.Loop` and
`stopkit.LoopSettings`, are exported from `stopkit` itself; every other module here is private.
Nothing is imported here, so `import stopkit.loop.events` loads only what it needs.
"""
