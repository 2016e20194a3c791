"""`scholarbench build`: survey sources -> task files in each benchmark's upstream format.

`build(sources, benchmarks, out, corpus=None)` writes under `out`:
- `taxobench/taxobench.jsonl`: one TaxoBench instance per source (`builder.taxobench`);
- `deepsynth/…`: DeepSynth-Eval tasks (`builder.deepsynth`, needs an LLM client);
- `reportbench/…`: ReportBench GT and constructed prompts (`builder.reportbench`: the
  existing `reportbench.survey_gt` and `reportbench.construct`, needs an LLM client);
- `researcharena/survey.jsonl`: one upstream-format survey line per source, its references the
  corpus papers the survey cites (`builder.researcharena`, needs a corpus);
- `scinet/tasks.jsonl`: SciNet pair and path tasks about the survey's papers in a citation
  graph (`builder.scinet`: the existing `scinet.tasks` constructions, needs the graph);
- `review.md`: what a person must check before the tasks are used, per benchmark and survey;
- `manifest.json`: the sources and their sha256, the corpus, models, prompt versions and
  usage per stage (`builder.manifest`).
Each benchmark folder is what `scholarbench data import <benchmark> DIR` accepts.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from scholarbench.builder.manifest import BuildManifest
from scholarbench.builder.source import SurveyDoc, read_source
from scholarbench.errors import ScholarbenchError

BENCHMARKS = ("taxobench", "deepsynth", "reportbench", "researcharena", "scinet")


@dataclass
class BuildResult:
    out: Path
    files: dict[str, Path] = field(default_factory=dict)     # benchmark -> task file/folder
    written: dict[str, int] = field(default_factory=dict)    # benchmark -> tasks written
    manifest: dict[str, Any] = field(default_factory=dict)


def check_benchmarks(names: Sequence[str]) -> list[str]:
    wanted = [n.strip() for n in names if n.strip()]
    unknown = [n for n in wanted if n not in BENCHMARKS]
    if unknown or not wanted:
        raise ScholarbenchError(f"--benchmarks: unknown {', '.join(unknown) or '(none given)'}; "
                                f"build supports {', '.join(BENCHMARKS)}")
    return list(dict.fromkeys(wanted))


def _unique_ids(docs: Sequence[SurveyDoc]) -> list[str]:
    from scholarbench.builder.taxobench import slug
    ids: list[str] = []
    for doc in docs:
        base = slug(doc.title)
        name, n = base, 2
        while name in ids:
            name, n = f"{base}-{n}", n + 1
        ids.append(name)
    return ids


def build(sources: Sequence[str | Path], benchmarks: Sequence[str], out: str | Path,
          corpus: Any = None, client: Any = None, bibliographies: Sequence[str | Path] = (),
          arxiv_ids: Sequence[str] = (), survey_dates: Sequence[str] = (),
          granularity: str = "sentence", graph: Any = None) -> BuildResult:
    """Read every source, then write each asked benchmark's tasks, the review file and the
    manifest. `corpus`: an open `Corpus` (papers resolved for abstracts and the oracle
    context) or None; `client`: the LLM client for DeepSynth's generation steps; `graph`: a
    `SciNetEnv` (SciNet's citation graph) or a callable returning one."""
    names = check_benchmarks(benchmarks)
    if not sources:
        raise ScholarbenchError("build: give at least one survey SOURCE")
    out = Path(out)
    if "reportbench" in names:
        from scholarbench.builder.reportbench import check_ids
        rb_keys = check_ids(arxiv_ids, survey_dates, len(sources))
    if "researcharena" in names:
        from scholarbench.builder.researcharena import check_dates
        ra_dates, ra_arxiv = check_dates(survey_dates, arxiv_ids, len(sources))
    docs = [read_source(s, bibliographies) for s in sources]
    ids = _unique_ids(docs)
    manifest = BuildManifest.start(sources, docs, corpus)
    result = BuildResult(out)
    review = [f"# Build review\n\nEdit the task files before you use them; tick each item when "
              f"checked. Built from {len(docs)} survey source(s); see manifest.json.\n"]
    out.mkdir(parents=True, exist_ok=True)
    if "taxobench" in names:
        from scholarbench.builder.taxobench import draft_taxonomy, review_section
        folder = out / "taxobench"
        folder.mkdir(exist_ok=True)
        path = folder / "taxobench.jsonl"
        lines, counts = [], {}
        for src, doc, iid in zip(sources, docs, ids):
            draft = draft_taxonomy(doc, corpus, iid)
            counts[iid] = draft.counts()
            review.append(review_section(draft, str(src)))
            if draft.placed:              # an instance without papers is not a task
                lines.append(json.dumps(draft.instance, ensure_ascii=False))
            else:
                review.append("**No instance written: no cited work could be placed.**\n")
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        manifest.add_benchmark("taxobench", path, out, len(lines), counts)
        result.files["taxobench"] = path
        result.written["taxobench"] = len(lines)
    if "deepsynth" in names:
        from scholarbench.builder.deepsynth import build_deepsynth
        folder = out / "deepsynth"
        written = build_deepsynth(docs, ids, sources, folder, corpus, client, manifest)
        review += written.review
        result.files["deepsynth"] = folder
        result.written["deepsynth"] = written.tasks
    if "reportbench" in names:
        from scholarbench.builder.reportbench import build_reportbench
        folder = out / "reportbench"
        rb = build_reportbench(docs, rb_keys, sources, folder, corpus, client, manifest,
                               granularity)
        review += rb.review
        result.files["reportbench"] = folder
        result.written["reportbench"] = rb.tasks
    if "researcharena" in names:
        from scholarbench.builder.researcharena import build_researcharena
        folder = out / "researcharena"
        ra = build_researcharena(docs, ids, sources, folder, corpus, manifest, ra_dates,
                                 ra_arxiv)
        review += ra.review
        result.files["researcharena"] = folder / "survey.jsonl"
        result.written["researcharena"] = ra.tasks
    if "scinet" in names:
        from scholarbench.builder.scinet import build_scinet
        folder = out / "scinet"
        sn = build_scinet(docs, ids, sources, folder, graph() if callable(graph) else graph,
                          manifest)
        review += sn.review
        result.files["scinet"] = folder / "tasks.jsonl"
        result.written["scinet"] = sn.tasks
    (out / "review.md").write_text("\n".join(review), encoding="utf-8")
    result.manifest = manifest.write(out / "manifest.json")
    return result
