"""Agents and helpers shared by several benchmarks: `cluster` (TaxoBench and ResearchArena's
organisation), the deep-research loop (`deep_research`), the report writers (`writers/`,
ReportBench and DeepSynth-Eval). Agents of one benchmark live in its package
(`scholarbench.benchmarks.<name>.agents`); the agent contract is `scholarbench.core.agent`."""
