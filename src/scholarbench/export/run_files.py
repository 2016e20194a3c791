"""What an export reads of one finished run directory, checked as `aggregate` checks it.

`read_run(path)` gives the manifest, the benchmark (built with the run's options), the score
rows (each validated by `core.score_rows`; rows of an older run format lifted in memory by
`core.migrate.upgrade_rows`, as `aggregate` does), the summary exactly as summary.json holds it
(nothing is recomputed), the generate records by sample id, the declared measures, and what
the run kept of its model calls (docs/reports.md, "Transcripts"): transcripts.jsonl by sample
id (the latest line of an id wins, as on resume) and every judge.<item>.jsonl record by sample
id (the latest line of a request's key wins), each with its item.

A path that is not a run directory, a run with no scores.jsonl or no summary.json, or a bad
file is one `ScholarbenchError` naming the path: the command line prints it as one line.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scholarbench.core.aggregate import read_scores
from scholarbench.core.engine import SCORES, SUMMARY
from scholarbench.core.lookup import benchmark_class
from scholarbench.core.migrate import RUN_FORMAT, check_format, upgrade_rows
from scholarbench.core.rundir import RunDir, read_json_file
from scholarbench.core.score_rows import measure_units
from scholarbench.core.writing import TRANSCRIPTS
from scholarbench.data.jsonl import read_jsonl_tolerant
from scholarbench.errors import ScholarbenchError


@dataclass
class RunFiles:
    """One run directory as an export sees it."""
    path: Path
    run: RunDir
    manifest: dict[str, Any]
    bench: Any                                  # the `core.benchmark.Benchmark`
    subtask: str | None
    rows: list[dict[str, Any]]                  # scores.jsonl, in file order
    summary: dict[str, Any]                     # summary.json as written
    generated: dict[str, dict[str, Any]]        # generate records by sample id
    measures: dict[str, Any]                    # measure key -> `core.measure.Measure`
    transcripts: dict[str, dict[str, Any]] = field(default_factory=dict)   # sample id -> line
    judge_records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # id -> records

    @property
    def id_key(self) -> str:
        return self.bench.id_key

    def sample_id(self, row: dict[str, Any]) -> str:
        return str(row[self.id_key])


def read_run(path: Path) -> RunFiles:
    """The files of the finished run at `path` (module docstring)."""
    path = Path(path)
    if not path.is_dir():
        why = "not a directory" if path.exists() else "no such directory"
        raise ScholarbenchError(f"{path} is not a run directory ({why})")
    run = RunDir(path)
    manifest = run.read_manifest()          # "… is not a run directory (no manifest.json)"
    bench = benchmark_class(manifest["benchmark"])(manifest.get("options") or {})
    subtask = manifest.get("mode")
    rows = read_scores(run.file(SCORES), bench.id_key, measure_units(bench, subtask))
    generated = run.stage(bench.generate_file, bench.id_key).records
    if check_format(manifest, run.manifest_path) != RUN_FORMAT:
        rows = upgrade_rows(rows, manifest, generated, bench.id_key)
    summary_path = run.file(SUMMARY)
    if not summary_path.is_file():
        raise ScholarbenchError(f"{summary_path}: no summary (rebuild it from scores.jsonl: "
                                f"scholarbench aggregate {path})")
    summary = read_json_file(summary_path)
    if not isinstance(summary.get("metrics", {}), dict):
        raise ScholarbenchError(f"{summary_path}: expected an object \"metrics\"")
    measures = {m.key: m for m in bench.measures(subtask)}
    return RunFiles(path, run, manifest, bench, subtask, rows, summary, generated, measures,
                    read_transcripts(path, bench.id_key), read_judge_records(path, bench.id_key))


def read_transcripts(path: Path, id_key: str) -> dict[str, dict[str, Any]]:
    """transcripts.jsonl: sample id -> its latest line ({} for a run without)."""
    return {str(line[id_key]): line for line in read_jsonl_tolerant(path / TRANSCRIPTS)
            if isinstance(line, dict) and id_key in line}


def read_judge_records(path: Path, id_key: str) -> dict[str, list[dict[str, Any]]]:
    """Every judge.<item>.jsonl record: sample id -> its records (with `item`), in file order,
    the latest line of a request's `key` replacing an earlier one (a resumed or re-scored
    request)."""
    latest: dict[tuple[str, Any], dict[str, Any]] = {}
    for file in sorted(path.glob("judge.*.jsonl")):
        item = file.name[len("judge."):-len(".jsonl")]
        for n, line in enumerate(read_jsonl_tolerant(file)):
            if isinstance(line, dict) and id_key in line:
                key = line.get("key") if isinstance(line.get("key"), str) else n
                latest.pop((item, key), None)         # keeps the order of the latest lines
                latest[(item, key)] = {**line, "item": item}
    out: dict[str, list[dict[str, Any]]] = {}
    for record in latest.values():
        out.setdefault(str(record[id_key]), []).append(record)
    return out


__all__ = ["RunFiles", "read_judge_records", "read_run", "read_transcripts"]
