"""SciNet: relation-aware tasks built from a citation graph, their metrics and agents.
See docs/scinet.md."""
from scholarbench.scinet.env import EnvSettings, SciNetEnv
from scholarbench.scinet.metrics import aggregate, connected_chain, score_task
from scholarbench.scinet.queries import load_queries, load_query_file
from scholarbench.scinet.records import SciNetTask, read_tasks, write_tasks
from scholarbench.scinet.tasks import BuildSettings, build_tasks

__all__ = ["BuildSettings", "EnvSettings", "SciNetEnv", "SciNetTask", "aggregate",
           "build_tasks", "connected_chain", "load_queries", "load_query_file", "read_tasks",
           "score_task", "write_tasks"]
