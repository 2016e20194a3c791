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
- `review.md`: what a person must check before the tasks are used, per benchmark and survey,
  and the files a source named that were refused (outside its folder, or not regular files:
  `scholarbench.confine`; each is also one warning line on stderr);
- `manifest.json`: the sources and their sha256, the corpus, models, prompt versions and
  usage per stage, each unit's status (`builder.manifest`);
- `units.jsonl`: one record per (survey, benchmark) unit as it completes (`builder.units`).
Each benchmark folder is what `scholarbench data import <benchmark> DIR` accepts.

Resumable and concurrent as a run (`core.engine`): the directory's lock is held throughout
(a second build into it is refused in one line); units whose kept record is done or
unbuildable, with the same source checksums and options, are not built again; errored ones
(an endpoint failure) and changed ones are; `concurrency` units are built at once
(`core.concurrency.in_flight`); the task files, review and manifest are then written from the
records in SOURCE order (`builder.assemble`), the same bytes whatever the concurrency.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from scholarbench.builder.assemble import assemble
from scholarbench.builder.manifest import BuildManifest
from scholarbench.builder.reportbench import check_ids
from scholarbench.builder.source import SurveyDoc, read_source
from scholarbench.builder.taxobench import slug
from scholarbench.builder.units import (ERROR, ID_KEY, Inputs, UNITS, Unit, fingerprint, options,
                                        run_unit)
from scholarbench.core.concurrency import in_flight
from scholarbench.core.rundir import RunDir, RunLocked, atomic_write_text
from scholarbench.core.writing import write_record
from scholarbench.errors import ScholarbenchError

BENCHMARKS = ("taxobench", "deepsynth", "reportbench", "researcharena", "scinet")
SCRATCH = ".build-scratch"
FOLDERS = {"taxobench": "taxobench/taxobench.jsonl", "deepsynth": "deepsynth",
           "reportbench": "reportbench", "researcharena": "researcharena/survey.jsonl",
           "scinet": "scinet/tasks.jsonl"}


@dataclass
class BuildResult:
    out: Path
    files: dict[str, Path] = field(default_factory=dict)     # benchmark -> task file/folder
    written: dict[str, int] = field(default_factory=dict)    # benchmark -> tasks written
    manifest: dict[str, Any] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)      # unit -> status
    reasons: dict[str, str] = field(default_factory=dict)    # unit -> why error/unbuildable
    built: int = 0                # units built by this call (the others kept)
    changed: int = 0              # of those, kept ones whose source or options changed

    @property
    def errors(self) -> list[str]:
        return [key for key, status in self.units.items() if status == ERROR]


def check_benchmarks(names: Sequence[str]) -> list[str]:
    wanted = [n.strip() for n in names if n.strip()]
    unknown = [n for n in wanted if n not in BENCHMARKS]
    if unknown or not wanted:
        raise ScholarbenchError(f"--benchmarks: unknown {', '.join(unknown) or '(none given)'}; "
                                f"build supports {', '.join(BENCHMARKS)}")
    return list(dict.fromkeys(wanted))


def _unique_ids(docs: Sequence[SurveyDoc]) -> list[str]:
    ids: list[str] = []
    for doc in docs:
        base = slug(doc.title)
        name, n = base, 2
        while name in ids:
            name, n = f"{base}-{n}", n + 1
        ids.append(name)
    return ids


def _inputs(names: Sequence[str], n: int, corpus: Any, client: Any, graph: Any,
            arxiv_ids: Sequence[str], survey_dates: Sequence[str], granularity: str) -> Inputs:
    """What the units share; every missing need is refused here, before anything is built."""
    inputs = Inputs(corpus=corpus, client=client, graph=graph, granularity=granularity)
    for name in ("deepsynth", "reportbench"):
        if name in names and client is None:
            raise ScholarbenchError(f"{name}: building needs a model (the judge role)")
    if "reportbench" in names:
        inputs.rb_keys = check_ids(arxiv_ids, survey_dates, n)
    if "researcharena" in names:
        # deferred: loaded only by the path that needs it (a light CLI start)
        from scholarbench.builder.researcharena import check_dates
        inputs.ra_dates, inputs.ra_arxiv = check_dates(survey_dates, arxiv_ids, n)
        if corpus is None:
            raise ScholarbenchError("researcharena: a task's references are corpus papers; "
                                    "give --corpus DIR (or import data so the default corpus "
                                    "exists)")
    if "scinet" in names and graph is None:
        raise ScholarbenchError("scinet: the tasks are about papers of a citation graph; give "
                                "--graph DIR (or import arxiv2023)")
    return inputs


def _taken(docs: Sequence[SurveyDoc], ids: Sequence[str], inputs: Inputs) -> list[list[str]]:
    """Per survey, the ids it may not take (ResearchArena): every survey's slug and the corpus
    papers of the surveys before it, as a one-pass build had them (`build_researcharena`)."""
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.builder.researcharena import _survey_paper
    pids = [_survey_paper(inputs.corpus, doc, arxiv)
            for doc, arxiv in zip(docs, inputs.ra_arxiv)]
    return [sorted(set(ids) | {p for p in pids[:k] if p}) for k in range(len(docs))]


def build(sources: Sequence[str | Path], benchmarks: Sequence[str], out: str | Path,
          corpus: Any = None, client: Any = None, bibliographies: Sequence[str | Path] = (),
          arxiv_ids: Sequence[str] = (), survey_dates: Sequence[str] = (),
          granularity: str = "sentence", graph: Any = None, concurrency: int = 1,
          progress: bool = False) -> BuildResult:
    """Read every source, build each (survey, benchmark) unit not already built into `out`,
    then write each asked benchmark's tasks, the review file and the manifest. `corpus`: an
    open `Corpus` (papers resolved for abstracts and the oracle context) or None; `client`: the
    LLM client for DeepSynth's and ReportBench's generation steps; `graph`: a `SciNetEnv`
    (SciNet's citation graph) or a callable returning one (opened only if a SciNet unit is
    built); `concurrency`: units built at once."""
    names = [b for b in BENCHMARKS if b in check_benchmarks(benchmarks)]
    if not sources:
        raise ScholarbenchError("build: give at least one survey SOURCE")
    if concurrency < 1:
        raise ScholarbenchError(f"--concurrency must be at least 1, got {concurrency}")
    out = Path(out)
    inputs = _inputs(names, len(sources), corpus, client, graph, arxiv_ids, survey_dates,
                     granularity)
    docs = [read_source(s, bibliographies) for s in sources]
    for line in (line for doc in docs for line in doc.refused):
        print(f"warning: {line}", file=sys.stderr)
    ids = _unique_ids(docs)
    if "researcharena" in names:
        inputs.ra_taken = _taken(docs, ids, inputs)
    units = [Unit(name, i, str(src), doc, iid, fingerprint(doc, options(name, i, inputs)))
             for name in names for i, (src, doc, iid) in enumerate(zip(sources, docs, ids))]
    run = RunDir(out)
    try:
        with run.lock():
            return _build_locked(run, units, names, sources, docs, inputs, concurrency,
                                 progress)
    except RunLocked:
        raise RunLocked(f"{out} is in use by another scholarbench build; wait for it to "
                        "finish or use another --out") from None


def _build_locked(run: Any, units: list[Unit], names: list[str], sources: Sequence[Any],
                  docs: Sequence[SurveyDoc], inputs: Inputs, concurrency: int, progress: bool
                  ) -> BuildResult:
    # deferred: tqdm, loaded only by the path that needs it
    import shutil
    from tqdm import tqdm
    stage = run.stage(UNITS, ID_KEY)
    for lineno, problem in stage.problems:
        print(f"warning: {run.file(UNITS)}, line {lineno}: {problem}; its unit is built again",
              file=sys.stderr)
    records: dict[str, dict[str, Any]] = {}
    todo: list[Unit] = []
    result = BuildResult(run.path)
    for unit in units:
        old = stage.records.get(unit.key)
        if old is not None and old.get("status") != ERROR \
                and old.get("fingerprint") == unit.fingerprint:
            records[unit.key] = old
            continue
        todo.append(unit)
        if old is not None and old.get("status") != ERROR:
            result.changed += 1
    scratch = run.path / SCRATCH
    results = in_flight(todo, lambda u: run_unit(u, inputs, scratch), concurrency)
    try:
        with tqdm(total=len(todo), desc="build", unit="unit",
                  disable=not progress or not todo) as bar:
            for unit, record in results:      # this thread is the only writer
                write_record(run, UNITS, record, ID_KEY)
                records[unit.key] = record
                bar.update()
    finally:
        results.close()
        shutil.rmtree(scratch, ignore_errors=True)
    result.built = len(todo)
    result.units = {u.key: records[u.key]["status"] for u in units}
    result.reasons = {u.key: str(records[u.key].get("error") or records[u.key].get("reason"))
                      for u in units if records[u.key]["status"] != "done"}
    manifest = BuildManifest.start(sources, docs, inputs.corpus)
    review = [f"# Build review\n\nEdit the task files before you use them; tick each item when "
              f"checked. Built from {len(docs)} survey source(s); see manifest.json.\n"]
    review.append("## Units\n\n" + "".join(
        f"- `{u.key}`: {records[u.key]['status']}"
        + (f" ({records[u.key]['tasks']} task(s))" if records[u.key]["status"] == "done"
           else f": {result.reasons[u.key]}") + "\n" for u in units))
    if refused := [line for doc in docs for line in doc.refused]:
        review.append("## Refused source files\n\nNamed by a source but not read (a build reads "
                      "only regular files inside the source folder):\n\n"
                      + "".join(f"- {line}\n" for line in refused))
    for name in names:
        written, sections = assemble(run.path, name, units, records, manifest)
        review += sections
        result.files[name] = run.path / FOLDERS[name]
        result.written[name] = written
    atomic_write_text(run.path / "review.md", "\n".join(review))
    manifest.data["build"] = {"units": len(units), "built": result.built,
                              "kept": len(units) - result.built, "changed": result.changed,
                              "errors": len(result.errors), "concurrency": concurrency}
    result.manifest = manifest.write(run.path / "manifest.json")
    return result
