"""TaxoBench on the engine: Bottom-Up and Deep Research modes, scored with every TaxoBench
measure and, with `--with-judge`, the 4-dimension LLM judge.

Run-directory files (beside the engine's manifest.json and summary.json):

    generate.jsonl  one line per sample: {"id", "prediction" (upstream form) | absent, "error",
                    "seconds"}, "info" when the agent reports counts, "status" when not ok
                    ("malformed": the answer does not fit; "error": the agent failed — retried
                    on resume, never scored as a result)
    scores.jsonl    one line per gold instance: the measure keys (`measures.METRIC_KEYS`),
                    `missing` / `malformed` flags, `status`, the agent's whole-number counts
                    (`agent_info`), `suspected_leak` (Deep Research: the answer names the
                    survey; docs/leakage.md); with a judge also judge_coverage … judge_avg and
                    judge_unscored (with a judge panel or --judge-samples also `judges`:
                    each judge's values, `panel.py`). summary.json is built from these rows
                    and the manifest alone (`scholarbench aggregate`)
    judge.judge.jsonl  with a judge: the engine's judge stage's verdicts (`judged.py`), one
                    per instance whose answer is a taxonomy, judge and repeat: its scores and
                    reasoning, or why it is unscored (runs judged before it: judge.jsonl)

The task a user's agent sees (`Task`): `prompt` is the paper's Bottom-Up taxonomy prompt
(Figure 11, upstream's text, with the expert paper list) in Bottom-Up mode, and in Deep Research
mode our request for the survey topic (the paper gives agents "only a topic" and publishes no
wording); `fields` hold `topic`, `survey` and, in Bottom-Up mode, `papers` (title, abstract, id).
Answers are a taxonomy (`core.families`): TaxoBench scores titles (it aligns them), so every
reference is resolved to a title first, per task (`core.refs`). Bottom-Up: a paper number of the
prompt's Paper List (as the prompt asks: `"papers": [3, 7]`, or "3", "[3]", "Paper 3"), a listed
paper's id, or a title aligning with a listed one → that paper's title. Deep Research: a corpus
id, DOI or arXiv id → the corpus title when the corpus knows it (`info.refs_resolved`); titles
are scored as written. A reference that resolves to nothing (Bottom-Up: no listed paper; Deep
Research: an id or number no corpus paper has) stays as written and scores as a miss; the
sample's `info` counts `refs` and `unresolved`.

Only a command that names this benchmark imports this file (its package registers the class
lazily): its imports are at the top, but for those that pull in a heavy library (each says
which), so `run <name> --help` stays light (docs/layers.md, "Imports inside functions").
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from scholarbench.benchmarks.taxobench.judge import JUDGE_KEYS
from scholarbench.benchmarks.taxobench.judged import judged_item
from scholarbench.core.agent import AgentContext, Task
from scholarbench.core.benchmark import Benchmark, Loaded, Sample, ScoreContext
from scholarbench.core.eval_defaults import EvalDefaults
from scholarbench.core.families import answer_info, parse_answer
from scholarbench.core.refs import looks_like_id, task_refs
from scholarbench.core.registry import REGISTRY, register_benchmark
from scholarbench.data.sources.keys import canonical_key
from scholarbench.data.store import taxobench_gold_file
from scholarbench.data.taxobench import load_instances, parse_prediction
from scholarbench.errors import ScholarbenchError
from scholarbench.files import sha256_file
from scholarbench.leakage.unleaked import leak_lines
from scholarbench.paths import data_dir
from scholarbench.records import TaxoPrediction
from scholarbench.tools.source import ToolSource
from scholarbench.benchmarks.taxobench.agents import NativeAgent
from scholarbench.benchmarks.taxobench.agents.base import AgentContext as TaxoContext
from scholarbench.benchmarks.taxobench.judge_probe import judge_with_probe
from scholarbench.embed import default_embedder
from scholarbench.tools.rules import AccessRules
from scholarbench.core.limits import OutputLimits

MODES = ("bottom-up", "deep-research")
DEEP_RESEARCH_PROMPT = (
    "You are writing an expert survey on the topic: \"{topic}\".\n"
    "Research the literature on this topic and retrieve the papers an expert survey on it would "
    "cite. Then organise the retrieved papers into a hierarchical taxonomy: a tree of research "
    "categories (root = the topic; sub-categories below it), with every retrieved paper's title "
    "placed under the most specific category it belongs to.\n"
    "Return the taxonomy as JSON {{\"name\": ..., \"subtopics\": [...], \"papers\": [titles]}}, "
    "or as Markdown headings with the paper titles listed under each heading.")


@register_benchmark("taxobench")
class TaxoBench(Benchmark):
    name = "taxobench"
    title = "TaxoBench"
    order = 10
    subtasks = {"bottom-up": "taxonomy", "deep-research": "taxonomy"}
    subtask_flag = "--mode"
    headline = {"deep-research": ("recall", "precision", "f1", "ari", "us_nted", "sem_path"),
                "bottom-up": ("ari", "v_measure", "us_nted", "sem_path")}
    identity_extra = ("limit", "embedder")

    def __init__(self, options: dict[str, Any] | None = None, embedder: Any = None) -> None:
        super().__init__(options)
        self._embedder = embedder
        self._gold: Path | None = None
        self._corpus_path: Path | None = None

    @classmethod
    def add_options(cls, parser: Any, command: str) -> None:
        parser.add_argument("--gold", help="a TaxoBench instance file (default: the imported one)")
        if command == "score":
            parser.add_argument("--pred", help="predictions (upstream form: id, hierarchy_tree, "
                                "optional retrieved_papers)")
            parser.add_argument("--out", help="scores, one JSON line per gold instance")
            return
        parser.add_argument("--gold-name", help="which imported TaxoBench file, when several")
        parser.add_argument("--corpus", help="corpus directory for Deep Research mode (default: "
                            "built from the imported data)")
        parser.add_argument("--with-judge", action="store_true",
                            help="add the LLM-judge scores (the judge role: --judge, else the "
                            "local model; never the agent's model)")

    # -- shared handles ------------------------------------------------------------------------
    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            self._embedder = default_embedder()
        return self._embedder

    def _data_dir(self) -> Path:
        return data_dir(self.options.get("data"))

    def gold_path(self) -> Path:
        if self._gold is None:
            explicit = self.options.get("gold")
            self._gold = Path(explicit) if explicit else taxobench_gold_file(
                self._data_dir(), self.options.get("gold_name"))
        return self._gold

    def corpus_dir(self, required: bool) -> Path | None:
        """--corpus; else the data directory's default corpus — built when an agent needs one,
        used if it exists otherwise (to resolve ids in user answers), None if there is none."""
        if self.options.get("corpus"):
            return Path(self.options["corpus"])
        # deferred: pulls in pyarrow
        from scholarbench.corpus.build import default_corpus
        if required:
            return default_corpus(self._data_dir())
        target = self._data_dir() / "corpus" / "default"
        return target if (target / "manifest.json").exists() else None

    def corpus(self) -> Any:
        """The run's open corpus (Deep Research mode), opened once; None without one."""
        if getattr(self, "_corpus", None) is None and self._corpus_path is not None:
            # deferred: pulls in duckdb, pyarrow
            from scholarbench.corpus.store import Corpus
            self._corpus = Corpus.open(self._corpus_path)
        return getattr(self, "_corpus", None)

    def eval_defaults(self) -> EvalDefaults:
        """`eval` runs every mode when the gold instances are there, none otherwise."""
        try:
            self.gold_path()
        except ScholarbenchError:
            return EvalDefaults(())
        return EvalDefaults(tuple(self.subtasks))

    # -- samples ---------------------------------------------------------------------------------
    def check(self, subtask: str) -> None:
        self.gold_path()

    def load(self, subtask: str, limit: int | None) -> Loaded:
        gold = self.gold_path()
        tasks = load_instances(gold)
        selected = tasks[:limit] if limit is not None else tasks
        extra: dict[str, Any] = {"embedder": self.embedder.model_id}
        return Loaded([self._sample(t, subtask) for t in selected],
                      {"path": str(gold.resolve()), "sha256": sha256_file(gold)}, extra)

    def prepare_run(self, run: Any, loaded: Loaded, manifest: dict[str, Any], *,
                    progress: bool = True) -> None:
        """Record the corpus the agent's context was given (known once the agent is)."""
        # deferred: pulls in pyarrow
        from scholarbench.corpus.build import corpus_info
        manifest["corpus"] = corpus_info(self._corpus_path)
        run.write_manifest(manifest)

    def load_for_rescore(self, run: Any, manifest: dict[str, Any]) -> Loaded:
        gold = Path(manifest["data"]["path"])
        if not gold.exists():
            raise ScholarbenchError(f"{run.path}: the run's gold file {gold} is gone; re-import it")
        tasks = load_instances(gold)
        limit = manifest.get("limit")
        selected = tasks[:limit] if limit is not None else tasks
        return Loaded([self._sample(t, manifest["mode"]) for t in selected])

    def _sample(self, task: Any, subtask: str) -> Sample:
        fields: dict[str, Any] = {"topic": task.topic, "survey": task.survey}
        if subtask == "bottom-up":
            fields["papers"] = [{"title": p.title, "abstract": p.abstract, "id": p.paper_id}
                                for p in task.papers]
        return Sample(task.id, Task(id=task.id, benchmark=self.name, subtask=subtask,
                                    family="taxonomy", prompt=task_prompt(task, subtask),
                                    fields=fields, native=task), gold=task.gold)

    # -- agents ----------------------------------------------------------------------------------
    def agent(self, name: str, params: dict[str, Any], subtask: str) -> Any:
        if self.name not in (REGISTRY.meta("agent", name).get("benchmarks") or ()):
            return None
        factory = REGISTRY.get("agent", name)
        if name == "replay":        # reads this run's lines of the file (core.replay)
            params = {**params, "benchmark": self.name, "subtask": subtask}
        try:
            return NativeAgent(factory(**params), name)
        except (TypeError, ValueError) as exc:
            raise ScholarbenchError(f"agent {name!r}: {exc}") from None

    def context(self, agent: Any, subtask: str, roles: Any) -> AgentContext:
        llm = roles.agent() if agent.needs.llm else None
        corpus = self.corpus_dir(agent.needs.corpus) if subtask == "deep-research" else None
        self._corpus_path = corpus
        ctx = AgentContext(benchmark=self.name, subtask=subtask, llm=llm, corpus_dir=corpus,
                           embedder=self.embedder if agent.needs.embedder else None)
        ctx.extra["taxo"] = TaxoContext(mode=subtask, embedder=self.embedder, corpus_dir=corpus,
                                        llm=llm)
        return ctx

    def tool_source(self, subtask: str) -> ToolSource:
        return ToolSource(self._open_tool_corpus, self._tool_rules,
                          samples=lambda: self.load(subtask, None).samples)

    def _open_tool_corpus(self) -> tuple[Any, Any]:
        if self._corpus_path is None:
            self._corpus_path = self.corpus_dir(True)
        return self.corpus(), self._corpus_path

    def _tool_rules(self, sample: Sample) -> Any:
        """Deep Research mode's rule (the paper's, as bm25-title applies it): never the survey
        the taxonomy was taken from — every record with its title or the topic's."""
        task = sample.task.native
        return AccessRules(exclude_ids=tuple(t for t in (task.survey, task.topic) if t),
                           why="TaxoBench: the whole corpus except the survey the taxonomy "
                           "comes from")

    judge_reads = "the taxonomy's category labels (the probe joins the root's label)"
    judge_measure = "judge_avg"
    judge_options = ("with_judge",)        # on in `eval` when judges are named

    def judged_items(self, subtask: str | None) -> tuple[Any, ...]:
        """With `--with-judge`: the 4-dimension judge of each taxonomy (`judged.py`), asked
        by the engine's judge stage of every judge, K times each."""
        if not self.options.get("with_judge"):
            return ()
        return (judged_item(),)

    @property
    def judge_scored(self) -> tuple[str, ...]:  # type: ignore[override]
        return JUDGE_KEYS

    def judge_with_probe(self, sample: Sample, record: dict[str, Any],
                         probe: str | None, judge: Any) -> float | None:
        return judge_with_probe(self, sample, record, probe, judge)

    def record(self, sample: Sample, answer: Any) -> dict[str, Any]:
        pred = answer if isinstance(answer, TaxoPrediction) else self._from_answer(sample, answer)
        record: dict[str, Any] = {"prediction": pred.to_upstream(), "error": pred.error}
        if pred.info:
            record["info"] = pred.info
        if pred.error:
            record["status"] = "malformed"
        return record

    def _from_answer(self, sample: Sample, answer: Any) -> Any:
        """A user's taxonomy answer (`core.families`) as a TaxoPrediction."""
        parsed = parse_answer("taxonomy", answer)
        tree = parsed.taxonomy.model_dump()
        retrieved = parsed.retrieved
        info = dict(answer_info(answer))
        if sample.task.subtask == "deep-research":
            if self.corpus() is not None:
                resolved = _titles_of_ids(self.corpus(), tree, retrieved)
                if resolved:
                    info["refs_resolved"] = resolved
            info.update(_unresolved_ids(tree, retrieved))
        else:
            info.update(_titles_of_listed(sample.task.fields, tree, retrieved))
        upstream = {"id": sample.id, "hierarchy_tree": tree}
        if retrieved is not None:
            upstream["retrieved_papers"] = retrieved
        pred = parse_prediction(upstream)
        pred.info = info
        return pred

    # -- scoring ---------------------------------------------------------------------------------
    def prepare_scoring(self, samples: Sequence[Sample], generated: dict[str, dict[str, Any]],
                        ctx: ScoreContext) -> None:
        # deferred: pulls in scipy
        from scholarbench.benchmarks.taxobench.scoring import prepare
        ctx.shared.update(prepare(self, samples, generated, ctx))

    def score_sample(self, sample: Sample, record: dict[str, Any] | None,
                     ctx: ScoreContext) -> dict[str, Any]:
        # deferred: pulls in scipy
        from scholarbench.benchmarks.taxobench.scoring import score_row
        return score_row(sample, record, ctx.shared)

    def measures(self, subtask: str | None,
                 rows: Sequence[dict[str, Any]] | None = None) -> tuple[Any, ...]:
        """Every measure, the judge's included; for a run's rows, the judge's only when the
        run was judged (`scoring.summary_measures`)."""
        if rows is not None:
            # deferred: pulls in scipy
            from scholarbench.benchmarks.taxobench.scoring import summary_measures
            return summary_measures(rows)
        # deferred: pulls in scipy
        from scholarbench.benchmarks.taxobench.measures import JUDGE_MEASURES, MEASURES
        return MEASURES + JUDGE_MEASURES

    def summary_extras(self, rows: Sequence[dict[str, Any]], manifest: dict[str, Any]
                       ) -> dict[str, Any]:
        # deferred: pulls in scipy
        from scholarbench.benchmarks.taxobench.scoring import summary_extras
        return summary_extras(rows, manifest)

    def format_summary(self, summary: dict[str, Any]) -> str:
        # deferred: pulls in scipy
        from scholarbench.benchmarks.taxobench.scoring import format_summary
        return format_summary(summary)

    def score_files(self, models: Any) -> int:
        import sys
        # deferred: pulls in scipy
        from scholarbench.benchmarks.taxobench.scoring import format_summary, score_files
        gold, pred, out = (self.options.get(k) for k in ("gold", "pred", "out"))
        if not (gold and pred and out):
            raise ScholarbenchError("score taxobench needs --gold G.jsonl --pred P.jsonl --out S.jsonl")
        summary = score_files(Path(gold), Path(pred), Path(out), self.embedder,
                              on_problem=lambda msg: print(f"warning: {msg}", file=sys.stderr),
                              limits=OutputLimits.of(self.options))
        print(format_summary(summary))
        for line in leak_lines(summary, self.headline["deep-research"]):
            print(f"  {line}")                      # docs/leakage.md
        print(f"scores: {out}")
        return 0


def task_prompt(task: Any, subtask: str) -> str:
    """The instruction a user's agent gets (see the module docstring)."""
    if subtask == "deep-research":
        return DEEP_RESEARCH_PROMPT.format(topic=task.topic)
    # deferred: pulls in duckdb, pyarrow
    from scholarbench.benchmarks.taxobench.agents.llm_taxonomy import Extracted, LLMTaxonomyAgent
    messages = LLMTaxonomyAgent().taxonomy_messages(task.topic, list(task.papers),
                                                    [Extracted() for _ in task.papers])
    return "\n\n".join(m["content"] for m in messages)


def _nodes(tree: dict[str, Any]) -> list[dict[str, Any]]:
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(node.get("subtopics", []))
    return out


def _titles_of_listed(fields: dict[str, Any], tree: dict[str, Any],
                      retrieved: list[str] | None) -> dict[str, int]:
    """Bottom-Up: each reference that names a paper of the prompt's list (its number, id or
    title) becomes that paper's title, in place; the counts for `info`."""
    listed = task_refs(fields)
    lists = [node["papers"] for node in _nodes(tree)] + ([retrieved] if retrieved else [])
    refs = [r for papers in lists for r in papers]
    found = listed.resolve_all(refs) if listed is not None else [None] * len(refs)
    at = 0
    for papers in lists:
        for i in range(len(papers)):
            if (idx := found[at]) is not None:
                papers[i] = listed.papers[idx].title
            at += 1
    return {"refs": len(refs), "unresolved": sum(f is None for f in found)}


def _unresolved_ids(tree: dict[str, Any], retrieved: list[str] | None) -> dict[str, int]:
    """Deep Research: references still in an id form (or a bare number: the task lists no
    papers) after the corpus lookup resolve to nothing."""
    refs = [r for node in _nodes(tree) for r in node["papers"]] + list(retrieved or [])
    return {"refs": len(refs), "unresolved": sum(looks_like_id(r) for r in refs)}


def _titles_of_ids(corpus: Any, tree: dict[str, Any], retrieved: list[str] | None) -> int:
    """Replace references that are corpus ids, DOIs or arXiv ids by the corpus titles, in place;
    returns how many were replaced. Titles stay as they are (TaxoBench aligns titles)."""
    refs: list[str] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        refs.extend(node.get("papers", []))
        stack.extend(node.get("subtopics", []))
    refs.extend(retrieved or [])
    ids = [r for r in dict.fromkeys(refs)
           if r in corpus or not canonical_key(r).startswith("title:")]
    found = {ref: pid for ref in ids if (pid := corpus.resolve(ref)) is not None}
    by_id = {p.paper_id: p.title for p in corpus.get_by_ids(list(dict.fromkeys(found.values())))}
    titles = {ref: by_id[pid] for ref, pid in found.items()}
    if not titles:
        return 0
    stack = [tree]
    while stack:
        node = stack.pop()
        node["papers"] = [titles.get(p, p) for p in node.get("papers", [])]
        stack.extend(node.get("subtopics", []))
    if retrieved is not None:
        retrieved[:] = [titles.get(p, p) for p in retrieved]
    return len(titles)
