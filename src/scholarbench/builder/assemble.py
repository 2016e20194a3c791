"""A benchmark's final task files, review sections and manifest entry, from its units' records.

Written after the units, from their records in SOURCE order (never in the order they
finished), so a build with units at once writes the same bytes as one after another. A unit
that errored contributes no task (never a result); its review section says so. The joined task
files (`units.JOINED`) are the units' parts one after another; SciNet's are merged by task id
(a paper two surveys cite is one task, `info.surveys` lists both, as a one-pass build did);
other files a unit wrote (ReportBench's GT file per survey) are written as they are.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from scholarbench.builder.manifest import BuildManifest
from scholarbench.builder.units import ERROR, JOINED, Unit
from scholarbench.core.rundir import atomic_write_text

TITLES = {"taxobench": "TaxoBench", "deepsynth": "DeepSynth-Eval",
          "reportbench": "ReportBench", "researcharena": "ResearchArena", "scinet": "SciNet"}


def _merge_scinet(parts: Sequence[str]) -> str:
    tasks: dict[str, dict[str, Any]] = {}
    for text in parts:
        for line in text.splitlines():
            if not line.strip():
                continue
            task = json.loads(line)
            if task["task_id"] in tasks:
                tasks[task["task_id"]]["info"]["surveys"] += task["info"]["surveys"]
            else:
                tasks[task["task_id"]] = task
    return "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tasks.values())


def _add(total: dict[str, Any], usage: dict[str, Any]) -> None:
    for key, value in usage.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            total[key] = total.get(key, 0) + value
        else:
            total.setdefault(key, value)


def assemble(out: Path, name: str, units: Sequence[Unit], records: dict[str, dict[str, Any]],
             manifest: BuildManifest) -> tuple[int, list[str]]:
    """Write benchmark `name`'s files into `out` from its units' records; add its manifest
    entry and stages. Returns (tasks written, review sections)."""
    mine = [(u, records[u.key]) for u in units if u.benchmark == name]
    joined: dict[str, list[str]] = {rel: [] for rel in JOINED[name]}
    whole: dict[str, str] = {}
    for _, rec in mine:
        if rec["status"] == ERROR:
            continue
        for rel, text in rec["files"].items():
            if rel in joined:
                joined[rel].append(text)
            else:
                whole[rel] = text
    for rel, parts in joined.items():
        atomic_write_text(out / rel, _merge_scinet(parts) if name == "scinet"
                          else "".join(parts))
    for rel, text in sorted(whole.items()):
        atomic_write_text(out / rel, text)
    main = out / JOINED[name][0]
    with main.open(encoding="utf-8") as handle:
        written = sum(1 for line in handle if line.strip())
    counts: dict[str, Any] = {}
    stages: dict[str, dict[str, Any]] = {}
    review: list[str] = []
    for unit, rec in mine:
        for stage, got in rec.get("stages", {}).items():
            entry = stages.setdefault(stage, {"model": got["model"], "prompt": got["prompt"],
                                              "usage": {}})
            _add(entry["usage"], got["usage"])
        if rec["status"] == ERROR:
            review.append(f"## {TITLES[name]} `{unit.survey_id}`: NOT BUILT (error)\n\n"
                          f"Source: `{unit.source}`. {rec.get('error')}. Run the same build "
                          "again: done units are kept, this one is built again.\n")
        else:
            counts.update(rec["counts"])
        review += rec.get("review", [])
    for stage, entry in stages.items():
        manifest.add_stage(stage, entry["model"], entry["prompt"], entry["usage"])
    manifest.add_benchmark(name, main, out, written, counts)
    manifest.data["benchmarks"][name]["units"] = {
        unit.key: {k: rec[k] for k in ("status", "reason", "error", "usage") if rec.get(k)}
        for unit, rec in mine}
    return written, review
