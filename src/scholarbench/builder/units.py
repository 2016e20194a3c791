"""A build's units of work: one (survey, benchmark) each, run as the engine runs samples.

A unit calls its benchmark's builder on its one survey (`builder.taxobench`, `.deepsynth`, …)
into a scratch folder, and becomes one record of `DIR/units.jsonl` (the build's stage file,
keyed by `unit` = `<benchmark>/<survey id>`): its status, the files it wrote (relative path →
text), its review text, its counts, its LLM stages (model, prompt, usage) and its
`fingerprint` (the sha256 of every file of its source, and the options it was built with).

Statuses (as a sample's, `core.records`): `done` (tasks written); `unbuildable` (no task, with
the reason: the survey cannot give one, e.g. no cited work resolves; kept, not retried);
`error` (a model call failed after the client's retries, or the builder raised: never a
result, retried by the next build into the same DIR).

The engine's machinery does the rest: `RunDir` (the directory's lock, atomic rewrites,
append-and-fsync of each record as its unit completes, torn lines redone), `read_stage` (the
last good record per unit) and `core.concurrency.in_flight` (units at once, one writer).
"""
from __future__ import annotations

import json
import shutil
import tempfile
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from scholarbench.benchmarks.reportbench.construct import prompt_identity
from scholarbench.builder.manifest import BuildManifest, corpus_identity
from scholarbench.builder.source import SurveyDoc
from scholarbench.builder.taxobench import draft_taxonomy, review_section
from scholarbench.core.usage import model_identity
from scholarbench.files import sha256_file
from scholarbench.llm.secrets import redact
from scholarbench.llm.usage import sample_scope

UNITS, ID_KEY = "units.jsonl", "unit"
DONE, UNBUILDABLE, ERROR = "done", "unbuildable", "error"
# the task files of a benchmark, always written: the units' parts joined in SOURCE order
JOINED = {"taxobench": ("taxobench/taxobench.jsonl",),
          "deepsynth": ("deepsynth/tasks.jsonl", "deepsynth/oracle/references.jsonl",
                        "deepsynth/anchors/trace.jsonl"),
          "reportbench": ("reportbench/ReportBench_v1.1.jsonl",),
          "researcharena": ("researcharena/survey.jsonl",),
          "scinet": ("scinet/tasks.jsonl",)}
NO_TASK = {"taxobench": "no cited work could be placed",
           "deepsynth": "a needed stage was unscored (see the review)",
           "reportbench": "the prompt was unscored (see the review)",
           "researcharena": "no cited work resolves in the corpus",
           "scinet": "no task about the survey's papers in the graph"}


@dataclass
class Inputs:
    """What the units of one build share."""
    corpus: Any = None
    client: Any = None
    graph: Any = None                     # a SciNetEnv, or a callable returning one
    granularity: str = "sentence"
    rb_keys: list[Any] = field(default_factory=list)      # ReportBench (arxiv id, date) / SOURCE
    ra_dates: list[Any] = field(default_factory=list)
    ra_arxiv: list[Any] = field(default_factory=list)
    ra_taken: list[list[str]] = field(default_factory=list)   # ids earlier surveys may hold
    _env: Any = None
    _space: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def env(self) -> Any:
        """SciNet's graph, opened once, by the first unit that needs it."""
        with self._lock:
            if self._env is None:
                self._env = self.graph() if callable(self.graph) else self.graph
            return self._env

    def search_space(self) -> Any:
        """ResearchArena's leakage rule over the corpus (every paper's dates and survey flag),
        read once for the whole build, by the first unit that needs it."""
        from scholarbench.benchmarks.researcharena.tasks import SearchSpace  # deferred: duckdb
        with self._lock:
            if self._space is None:
                self._space = SearchSpace.of(self.corpus)
            return self._space


@dataclass
class Unit:
    benchmark: str
    index: int                            # the SOURCE's position
    source: str
    doc: SurveyDoc
    survey_id: str
    fingerprint: dict[str, Any]

    @property
    def key(self) -> str:
        return f"{self.benchmark}/{self.survey_id}"


def graph_identity(graph: Any) -> Any:
    if graph is None:
        return None
    if (ident := getattr(graph, "identity", None)) is not None:
        return ident
    return graph.describe() if callable(getattr(graph, "describe", None)) else str(graph)


def options(benchmark: str, index: int, inputs: Inputs) -> dict[str, Any]:
    """What a unit's result depends on besides its source (a change rebuilds the unit)."""
    if benchmark == "taxobench":
        return {"corpus": corpus_identity(inputs.corpus)}
    if benchmark == "deepsynth":
        # deferred: loaded only by the path that needs it (a light CLI start)
        from scholarbench.builder.deepsynth import PROMPTS, Settings, prompt
        return {"corpus": corpus_identity(inputs.corpus),
                "model": model_identity(inputs.client),
                "prompts": {s: prompt(s).identity() for s in PROMPTS},
                "settings": asdict(Settings())}
    if benchmark == "reportbench":
        arxiv, day = inputs.rb_keys[index]
        return {"arxiv_id": arxiv, "survey_date": day.isoformat(),
                "granularity": inputs.granularity, "model": model_identity(inputs.client),
                "prompt": prompt_identity(inputs.granularity)}
    if benchmark == "researcharena":
        day = inputs.ra_dates[index]
        return {"corpus": corpus_identity(inputs.corpus),
                "survey_date": day.isoformat() if day else None,
                "arxiv_id": inputs.ra_arxiv[index], "taken": inputs.ra_taken[index]}
    return {"graph": graph_identity(inputs.graph)}


def fingerprint(doc: SurveyDoc, opts: dict[str, Any]) -> dict[str, Any]:
    return {"files": [[str(p), sha256_file(p)] for p in doc.files], "options": opts}


# -- one unit ------------------------------------------------------------------------------

def _taxobench(u: Unit, inp: Inputs, folder: Path, m: BuildManifest) -> tuple[list[str], int]:
    draft = draft_taxonomy(u.doc, inp.corpus, u.survey_id)
    review = [review_section(draft, u.source)]
    lines = [json.dumps(draft.instance, ensure_ascii=False)] if draft.placed else []
    if not lines:                         # an instance without papers is not a task
        review.append("**No instance written: no cited work could be placed.**\n")
    path = folder / JOINED["taxobench"][0]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    m.add_benchmark("taxobench", path, folder, len(lines), {u.survey_id: draft.counts()})
    return review, len(lines)


def _deepsynth(u: Unit, inp: Inputs, folder: Path, m: BuildManifest) -> tuple[list[str], int]:
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.builder.deepsynth import build_deepsynth
    w = build_deepsynth([u.doc], [u.survey_id], [u.source], folder / "deepsynth", inp.corpus,
                        inp.client, m)
    return w.review, w.tasks


def _reportbench(u: Unit, inp: Inputs, folder: Path, m: BuildManifest
                 ) -> tuple[list[str], int]:
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.builder.reportbench import build_reportbench, survey_key
    arxiv, day = inp.rb_keys[u.index]
    w = build_reportbench([u.doc], [(survey_key(arxiv, u.survey_id), day)], [u.source],
                          folder / "reportbench", inp.corpus, inp.client, m, inp.granularity)
    return w.review, w.tasks


def _researcharena(u: Unit, inp: Inputs, folder: Path, m: BuildManifest
                   ) -> tuple[list[str], int]:
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.builder.researcharena import build_researcharena
    w = build_researcharena([u.doc], [u.survey_id], [u.source], folder / "researcharena",
                            inp.corpus, m, [inp.ra_dates[u.index]], [inp.ra_arxiv[u.index]],
                            taken=inp.ra_taken[u.index],
                            space=inp.search_space() if inp.corpus is not None else None)
    return w.review, w.tasks


def _scinet(u: Unit, inp: Inputs, folder: Path, m: BuildManifest) -> tuple[list[str], int]:
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.builder.scinet import build_scinet
    w = build_scinet([u.doc], [u.survey_id], [u.source], folder / "scinet", inp.env(), m)
    return w.review, w.tasks


BUILDERS: dict[str, Callable[[Unit, Inputs, Path, BuildManifest], tuple[list[str], int]]] = {
    "taxobench": _taxobench, "deepsynth": _deepsynth, "reportbench": _reportbench,
    "researcharena": _researcharena, "scinet": _scinet}


def run_unit(unit: Unit, inputs: Inputs, scratch: Path) -> dict[str, Any]:
    """Build one unit into a scratch folder and return its record (module docstring). Model
    calls are counted in the unit's own scope, so units built at once each know theirs."""
    record: dict[str, Any] = {ID_KEY: unit.key, "benchmark": unit.benchmark,
                              "survey": unit.survey_id, "source": unit.source,
                              "fingerprint": unit.fingerprint}
    scratch.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=".unit-", dir=scratch))
    collected = BuildManifest({"benchmarks": {}, "models": {}, "prompts": {}, "usage": {}})
    try:
        with sample_scope() as used:
            try:
                review, tasks = BUILDERS[unit.benchmark](unit, inputs, folder, collected)
            except Exception as exc:      # the builder failed: never a result, retried
                review, tasks = [], 0
                record["error"] = redact(f"{unit.benchmark} raised {type(exc).__name__}: "
                                         f"{exc}")[:2000]
        record["files"] = {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
                           for p in sorted(folder.rglob("*")) if p.is_file()}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    failed = used.unrecovered_failures()
    if failed and "error" not in record:
        record["error"] = (f"{failed} model call(s) failed after the client's retries (an "
                           "endpoint failure: built again by the next build)")
    record["status"] = ERROR if "error" in record else DONE if tasks else UNBUILDABLE
    if record["status"] == UNBUILDABLE:
        record["reason"] = NO_TASK[unit.benchmark]
    bench = collected.data["benchmarks"].get(unit.benchmark) or {}
    record.update(tasks=tasks, review=review, counts=bench.get("counts") or {},
                  stages={s: {"model": collected.data["models"][s],
                              "prompt": collected.data["prompts"][s], "usage": u}
                          for s, u in collected.data["usage"].items()},
                  usage={k: v for k, v in used.as_dict().items()
                         if k in ("calls", "cache_hits", "failures", "prompt_tokens",
                                  "completion_tokens")})
    return record
