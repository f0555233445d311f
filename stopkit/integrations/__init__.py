"""stopkit in the agent loops people already run: one module per framework, each its own extra.

- `stopkit.integrations.langgraph` — `stop_condition`, a drop-in for `tools_condition` that
  routes on the `StopReason`; `stop_routes`, its path map; `final_response`, a finished graph's
  answer (`pip install 'stopkit[langgraph]'`).
- `stopkit.integrations.pydantic_ai` — `StopkitModel`, a pydantic-ai model that reads every
  `ModelResponse` it passes on (`pip install 'stopkit[pydantic-ai]'`).
- `stopkit.integrations.openai_agents` — `StopHooks`, `RunHooks` that read every model response
  of a `Runner` run (`pip install 'stopkit[openai-agents]'`).
- `stopkit.integrations.langchain` — `StopCallback`, a callback handler that reads every
  generation of any chat model (`pip install 'stopkit[langchain]'`).

Each reads the framework's objects with stopkit's adapter for that framework, so it gives the
same `Stop` as `stopkit.normalize` does for the same object. Nothing is imported here:
`import stopkit` (and `import stopkit.integrations`) loads no framework; each module loads its
own framework when it is imported.
"""

__all__: list[str] = []  # each framework's module exports its own names
