"""The offline literature environment as tools any agent can call (search, lookups, the citation
graph), bound per sample to its benchmark's leakage rules, and served over MCP (docs/tools.md).

Modules: `rules` (what a task may see), `schemas` (arguments, one source for MCP and OpenAI
schemas), `session` (the tools; every call recorded), `mcp_server` (stdio and streamable HTTP),
`provider` (sessions per sample for the engine; trajectories in the run directory),
`function_calling` (the OpenAI tool loop of `--agent endpoint --tools`).
"""
