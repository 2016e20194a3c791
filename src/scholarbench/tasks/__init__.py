"""Benchmark task sets built from the offline corpus and from upstream task files.

    scholarbench.tasks.researcharena   ResearchArena's discovery / selection / organisation tasks
                                       (records and the upstream reader: data.researcharena)
"""
from scholarbench.data.researcharena import ArenaTask, ReferenceCounts, read_tasks, write_tasks
from scholarbench.tasks.researcharena import (TASK_SETS, SearchSpace, attach_taxobench_mindmaps,
                                              build_tasks, load_survey_jsonl,
                                              tasks_from_taxobench, tasks_from_upstream)

__all__ = ["ArenaTask", "ReferenceCounts", "SearchSpace", "TASK_SETS",
           "attach_taxobench_mindmaps", "build_tasks", "load_survey_jsonl", "read_tasks",
           "tasks_from_taxobench", "tasks_from_upstream", "write_tasks"]
