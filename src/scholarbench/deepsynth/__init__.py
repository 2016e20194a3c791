"""DeepSynth-Eval (Zhang et al. 2026): task loading, the unified prompt, checklist scores, the
checklist judge's prompt/parse/validate logic and the oracle context. The run is
``scholarbench.runner.deepsynth``. Definitions and choices: ``docs/deepsynth.md``."""
from scholarbench.deepsynth.judge import (DEFAULT_PROMPT, STATUS_RESPONSE_FORMAT, ChatFn,
                                          Verdicts, build_prompt, judge_subgroup, judge_task,
                                          load_prompt, parse_reply)
from scholarbench.deepsynth.judged import format_summary, score_deepsynth_judged
from scholarbench.deepsynth.loader import (CONSTRAINT_SEPARATOR, constraint_questions,
                                           load_tasks, parse_task, unified_prompt)
from scholarbench.deepsynth.oracle import (OracleBuilder, OracleContext, OracleEntry,
                                           ReferenceSpec, read_reference_lists)
from scholarbench.deepsynth.records import (STATUSES, Group, Requirement, Status, SubGroup,
                                            Task, task_to_json)
from scholarbench.deepsynth.scores import (METRICS, VARIANTS, GroupScore, TaskScore, aggregate,
                                           metric_key, read_label, score_group, score_task)

__all__ = ["CONSTRAINT_SEPARATOR", "DEFAULT_PROMPT", "METRICS", "STATUSES",
           "STATUS_RESPONSE_FORMAT", "VARIANTS", "ChatFn", "Group", "GroupScore", "Requirement",
           "Status", "SubGroup", "Task", "TaskScore", "Verdicts", "aggregate", "build_prompt",
           "constraint_questions", "format_summary", "judge_subgroup", "judge_task",
           "load_prompt", "load_tasks", "metric_key", "parse_reply", "parse_task",
           "OracleBuilder", "OracleContext", "OracleEntry", "ReferenceSpec",
           "read_reference_lists",
           "read_label", "score_deepsynth_judged", "score_group", "score_task", "task_to_json",
           "unified_prompt"]
