"""LLM-as-judge metrics, each bound at run time to the judge role's chat client.

TaxoBench: `scholarbench.judges.taxobench` (four 1-5 scores per instance). DeepSynth-Eval's
checklist judge lives with its benchmark in `scholarbench.benchmarks.deepsynth.judge`.
"""
from scholarbench.judges.taxobench import (JUDGE_KEYS, JudgeResult, TaxoBenchJudge,
                                           aggregate_judge)

__all__ = ["JUDGE_KEYS", "JudgeResult", "TaxoBenchJudge", "aggregate_judge"]
