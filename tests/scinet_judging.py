"""SciNet's judge columns of one task through the engine's judge stage, for tests that judge a
single answer: `judged(env, judge, task, papers, out)` scores `papers` (None: no answer) with
`judge` as the answers-file scorer does (`files.judge_rows`), its verdicts kept in the
directory `<out>.judge`, so a second call with the same `out` asks only what is not on file."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from scholarbench.benchmarks.scinet.benchmark import SciNet
from scholarbench.benchmarks.scinet.files import judge_rows


def judged(env: Any, judge: Any, task: Any, papers: Sequence[Any] | None, out: Path,
           options: dict[str, Any] | None = None) -> dict[str, Any]:
    bench = SciNet(dict(options or {}), env=env, judge=judge)
    rows = [{"task_id": task.task_id, "status": "scored"}]
    records = {} if papers is None else {task.task_id: {"status": "ok", "papers": list(papers)}}
    judge_rows(bench, [task], records, rows, Path(out))
    return {k: v for k, v in rows[0].items() if k not in ("task_id", "status")}
