"""The engine every benchmark runs on: registry, agent contract, run directories, the loop.

    registry   one registry (benchmarks, agents, measures, report sections; entry points)
    families   task families and the answer schemas every agent returns
    agent      the agent contract, its context, and the ways a user's agent comes in
    endpoint   an OpenAI-compatible endpoint as the whole agent
    replay     answers from a file
    benchmark  what a benchmark defines
    judge_stage  what a benchmark asks a judge (`JudgedItem`), asked by the engine
    records    typed, versioned records of a run directory
    measure    a measure as an object: namespaced name, aggregator, 95% interval
    pooled     a pooled (micro) measure as a function of column sums: value and interval
    summarise  the one aggregation: a summary from score rows alone (`aggregate` command)
    rundir     lock, atomic rewrites, append-only stage files
    engine     generate → score → aggregate, resume, re-score, usage per stage, exit status
    suite      `eval`: one agent on every benchmark it fits
"""
from scholarbench.core.agent import (Agent, AgentContext, AgentError, FunctionAgent, Needs,
                                     Task)
from scholarbench.core.benchmark import Benchmark, Loaded, Sample, ScoreContext
from scholarbench.core.summary_metrics import mean_metrics
from scholarbench.core.judge_stage import JudgedItem, JudgeRequest, data_block
from scholarbench.core.measure import Measure
from scholarbench.core.records import ScoreRecord
from scholarbench.core.families import (FAMILIES, Malformed, PathAnswer, RankingAnswer,
                                        ReportAnswer, TaxonomyAnswer, TreeNode, parse_answer)
from scholarbench.core.registry import (REGISTRY, add_measures, register_agent,
                                        register_benchmark, register_measure)

__all__ = ["Agent", "AgentContext", "AgentError", "FunctionAgent", "Needs", "Task", "Benchmark",
           "JudgedItem", "JudgeRequest", "data_block", "Loaded", "Measure", "Sample", "ScoreContext", "ScoreRecord", "add_measures",
           "mean_metrics", "FAMILIES", "Malformed", "PathAnswer",
           "RankingAnswer", "ReportAnswer", "TaxonomyAnswer", "TreeNode", "parse_answer",
           "REGISTRY", "register_agent", "register_benchmark", "register_measure"]
