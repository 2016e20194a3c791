"""SciNet-style tasks with ground truth, built by rule from a citation graph (seeded).

Ego-centric (per category with >= `min_papers` papers with a defined value of the measure):
  "What are the top 5 most novel|disruptive papers in the field of <field>?"; gold `ranked` =
  the category's top `k_gold` (50) papers by the measure (novelty: lowest p10 z first; disruption:
  highest CD first; ties by `BuildSettings.ties`, `gold.py`), with their values; `info.ties`
  counts the ties at the cut, `info.seed_stability` (novelty, when `stability_seeds` are given)
  the overlap of the top list under other randomisation seeds.
Pair-wise (query papers sampled, seeded, among listed papers with >= `min_citers` citers):
  pncites: gold `citers` = every graph paper citing it; `positive` = citers one of whose citation
  contexts the sentiment rule labels Positive (None when no graph citer has a context).
  cooccur: gold `cocited` = every paper cited together with it by >= 1 graph paper (with the
  co-citation count); `comentioned` = papers cited in one paragraph with it (context store; None
  when it is in no paragraph). Query papers that appear in a paragraph are taken first.
Path-wise (per category with >= `min_papers` papers): classic = the category's `n_classic` (50)
  most-cited papers, recent = its `n_recent` (10) most-cited papers of the graph's last
  `recent_years` (2) years; pairs shuffled (seeded); kept when a citation path of 3..`max_papers`
  papers leads from classic to recent; gold = `max_citation_path(max_papers=...)`.
"""
from __future__ import annotations

from typing import Any

from dataclasses import asdict, dataclass

import numpy as np

from scholarbench.graph import PathError
from scholarbench.benchmarks.scinet.env import CATEGORY_NAMES, SciNetEnv, field_name
from scholarbench.benchmarks.scinet.queries import ego_query, pair_query, path_query
from scholarbench.benchmarks.scinet.records import SciNetTask
from scholarbench.benchmarks.scinet.sentiment import RULES_VERSION, classify_sentiment
from scholarbench.benchmarks.scinet import gold as G

BUILD_VERSION = "scinet-tasks-v1"


@dataclass(frozen=True)
class BuildSettings:
    seed: int = 0
    k_gold: int = 50             # ego: size of the ground-truth top list
    min_papers: int = 100        # ego/path: categories with at least this many defined values (ego) or papers (path)
    n_pair: int = 100            # pair: query papers per kind
    min_citers: int = 5          # pair: a query paper has at least this many citers
    n_classic: int = 50
    n_recent: int = 10
    recent_years: int = 2
    max_papers: int = 6          # path: longest ground-truth path (papers, endpoints included)
    per_category: int = 5        # path: tasks per category
    max_tries: int = 200         # path: candidate pairs tried per category
    # pair: what the sentiment rule reads — "sentence" (the marker's) or "paragraph" (SciNet's
    # Evaluation/task2-sentiment-context-acc.py @ ed5c76f gives the model the whole paragraph)
    sentiment_window: str = "sentence"
    # pair: who labels a context — "rule" (`sentiment.py`'s cues) or "judge" (the judge role
    # with SciNet's appendix-C prompt, `sentiment_judge.JudgeLabels`, given to `build_tasks`)
    sentiment: str = "rule"
    ties: str = "citations"      # ego: tie rule of the gold ranking (gold.TIE_RULES)
    stability_seeds: tuple[int, ...] = ()    # ego novelty: other seeds to compare the top list

    def as_dict(self) -> dict:
        """Recorded in every task's info (the window and the seeds only when not the default)."""
        out = asdict(self)
        if out["sentiment_window"] == "sentence":
            del out["sentiment_window"]
        if out["sentiment"] == "rule":
            del out["sentiment"]
        if not out["stability_seeds"]:
            del out["stability_seeds"]
        else:
            out["stability_seeds"] = list(out["stability_seeds"])
        return out


def build_ego(env: SciNetEnv, s: BuildSettings) -> list[SciNetTask]:
    others = G.seed_values(env, s.stability_seeds) if s.stability_seeds else {}
    tasks = []
    for category in sorted(env.graph.venues):
        ids = env.category_ids(category)
        for kind, measure, desc in (("novel", "novelty", False), ("disruptive", "disruption", True)):
            arr = env.measure(measure)
            vals = np.array([arr[env.graph.pid(i)] for i in ids], dtype=np.float64)
            ok = np.isfinite(vals)
            if ok.sum() < s.min_papers:
                continue
            dids = [i for i, k in zip(ids, ok) if k]
            dvals = vals[ok]
            cites = [env.n_citations(i) for i in dids]
            full = G.rank(dids, dvals, desc, ties=s.ties, citations=cites, seed=s.seed)
            order = full[: s.k_gold]
            field = field_name(category)
            info = {"papers_with_value": int(ok.sum()), "papers": len(ids), "tie_rule": s.ties,
                    "ties": G.tie_stats(dvals, full, s.k_gold)}
            if measure == "novelty" and others:
                top = [dids[i] for i in order]
                laps = {}
                for seed, arr2 in others.items():
                    v2 = np.array([arr2[env.graph.pid(i)] for i in ids], dtype=np.float64)
                    ok2 = np.isfinite(v2)
                    d2 = [i for i, k in zip(ids, ok2) if k]
                    c2 = [env.n_citations(i) for i in d2]
                    o2 = G.rank(d2, v2[ok2], desc, ties=s.ties, citations=c2, seed=s.seed)
                    laps[str(seed)] = G.overlap(top, [d2[i] for i in o2[: s.k_gold]])
                info["seed_stability"] = {"seeds": list(laps), "overlap": laps,
                                          "mean_overlap": sum(laps.values()) / len(laps)}
            tasks.append(SciNetTask(
                f"ego/{kind}/{category}", "ego", kind, ego_query(kind, field), field=field,
                category=category,
                gold={"ranked": [dids[i] for i in order], "values": [float(dvals[i]) for i in order],
                      "measure": measure, "population": env.population_name(measure)},
                info=info))
    return tasks


WINDOWS = ("sentence", "paragraph")


def positive_citers(env: SciNetEnv, paper: str, window: str = "sentence",
                    labeler: Any = None) -> tuple[list[str] | None, list[str]]:
    """(positive citers or None when no graph citer has a context, citers with a context).
    `window` "paragraph": the rule reads the context's whole paragraph (its sentence when the
    paragraph is not known). `labeler(context, cited title)`: labels a context instead of the
    cue rule (the sentiment judge); a context it leaves unlabelled (None) is left out."""
    if window not in WINDOWS:
        raise ValueError(f"sentiment window must be one of {WINDOWS}, got {window!r}")
    labels: dict[str, list[str]] = {}
    for c in env.contexts.contexts_of(paper):
        if env.has(c.citing) and env.cites(c.citing, paper):
            text = (c.paragraph or c.text) if window == "paragraph" else c.text
            label = (labeler(text, env.title(paper)) if labeler is not None
                     else classify_sentiment(text))
            if label is not None:
                labels.setdefault(c.citing, []).append(label)
    if not labels:
        return None, []
    return sorted(c for c, ls in labels.items() if "Positive" in ls), sorted(labels)


def build_pair(env: SciNetEnv, s: BuildSettings, labeler: Any = None) -> list[SciNetTask]:
    rng = np.random.default_rng([s.seed, 2])
    counts = env.citation_counts
    listed = env.graph.listed
    cand = [env.ids[i] for i in np.flatnonzero(listed & (counts >= s.min_citers))]
    tasks = []
    # pncites: papers with contexts first, then a seeded sample
    with_ctx = sorted({c.cited for c in env.contexts.contexts if env.has(c.citing)
                       and env.cites(c.citing, c.cited)})
    picked = with_ctx[: s.n_pair]
    rest = [c for c in cand if c not in set(picked)]
    picked += [rest[i] for i in sorted(rng.permutation(len(rest))[: s.n_pair - len(picked)])]
    tasks += [pncites_task(env, paper, s, labeler) for paper in picked]
    # cooccur
    para = sorted(p for p in {q for par in env.contexts.paragraphs for q in par.cited}
                  if env.contexts.comentioned(p))
    picked = para[: s.n_pair]
    rest = [c for c in cand if c not in set(picked)]
    picked += [rest[i] for i in sorted(rng.permutation(len(rest))[: s.n_pair - len(picked)])]
    tasks += [cooccur_task(env, paper) for paper in picked]
    return tasks


def pncites_task(env: SciNetEnv, paper: str, s: BuildSettings, labeler: Any = None
                 ) -> SciNetTask:
    """The pncites task about `paper` (a graph id): gold = its citers, the positive ones.
    With the sentiment judge (`labeler`), `info.sentiment_unscored` counts the task's contexts
    left without a label."""
    before = len(getattr(labeler, "unscored", ()))
    positive, known = positive_citers(env, paper, s.sentiment_window, labeler)
    judged = ({"sentiment_rule": labeler.rule,
               "sentiment_unscored": len(labeler.unscored) - before}
              if labeler is not None else {"sentiment_rule": RULES_VERSION})
    return SciNetTask(
        f"pair/pncites/{paper}", "pair", "pncites", pair_query("pncites", env.title(paper)),
        source=paper,
        gold={"citers": sorted(env.citers(paper)), "positive": positive,
              "context_citers": known, "cocited": [], "comentioned": None},
        info={**judged,
              **({"sentiment_window": s.sentiment_window}
                 if s.sentiment_window != "sentence" else {})})


def cooccur_task(env: SciNetEnv, paper: str) -> SciNetTask:
    """The cooccur task about `paper`: gold = its co-cited papers, its paragraph co-mentions."""
    co = env.cocited(paper)
    cm = env.contexts.comentioned(paper) if env.contexts.has_paragraphs(paper) else None
    return SciNetTask(
        f"pair/cooccur/{paper}", "pair", "cooccur", pair_query("cooccur", env.title(paper)),
        source=paper,
        gold={"citers": [], "cocited": sorted(co, key=lambda k: (-co[k], k)),
              "cocited_counts": {k: co[k] for k in sorted(co)},
              "comentioned": sorted(cm) if cm is not None else None},
        info={})


def build_path(env: SciNetEnv, s: BuildSettings) -> list[SciNetTask]:
    g = env.graph
    last = int(g.year[g.has_year].max()) if g.has_year.any() else None
    tasks = []
    for category in sorted(g.venues):
        ids = env.category_ids(category)
        if len(ids) < s.min_papers or last is None:
            continue
        by_cites = sorted(ids, key=lambda i: (-env.n_citations(i), i))
        classic = by_cites[: s.n_classic]
        recent = [i for i in by_cites if (env.year(i) or -1) > last - s.recent_years
                  and i not in classic][: s.n_recent]
        rng = np.random.default_rng([s.seed, 3, g.venues.index(category)])
        tasks += path_tasks(env, classic, recent, s, rng, f"path/{category}",
                            field_name(category), category)
    return tasks


def path_tasks(env: SciNetEnv, classic: list[str], recent: list[str], s: BuildSettings,
               rng: np.random.Generator, prefix: str, field: str, category: str | None
               ) -> list[SciNetTask]:
    """Path tasks from `classic` to `recent` papers (graph ids): the pairs in `rng`'s order,
    kept when a path of 3..`max_papers` papers leads from classic to recent (gold: the graph's
    maximum-citation path); at most `per_category` (`max_tries` pairs tried), ids
    `<prefix>/<nnn>`."""
    pairs = [(a, b) for a in classic for b in recent]
    tasks: list[SciNetTask] = []
    for j in rng.permutation(len(pairs))[: s.max_tries]:
        a, b = pairs[int(j)]
        try:
            found = env.path_finder.find(a, b, max_papers=s.max_papers)
        except PathError:
            continue
        if len(found.path) < 3:
            continue
        tasks.append(SciNetTask(
            f"{prefix}/{len(tasks):03d}", "path", "path",
            path_query(env.title(a), env.title(b), field), field=field, category=category,
            classic=a, recent=b, gold={"path": list(found.path), "score": found.score},
            info={"max_papers": s.max_papers}))
        if len(tasks) >= s.per_category:
            break
    return tasks


SENTIMENT_SOURCES = ("rule", "judge")


def build_tasks(env: SciNetEnv, family: str | None = None,
                settings: BuildSettings | None = None, labeler: Any = None
                ) -> list[SciNetTask]:
    """All tasks (or one family's), deterministic for a graph, contexts and settings (and,
    with `settings.sentiment == "judge"`, the judge's labels: `labeler`, a
    `sentiment_judge.JudgeLabels`)."""
    s = settings or BuildSettings()
    if s.sentiment not in SENTIMENT_SOURCES:
        raise ValueError(f"sentiment must be one of {SENTIMENT_SOURCES}, got {s.sentiment!r}")
    if (s.sentiment == "judge") != (labeler is not None):
        raise ValueError('sentiment "judge" needs the judge\'s labeler, and only it takes one')
    out = []
    for fam, fn in (("ego", build_ego), ("pair", build_pair), ("path", build_path)):
        if family in (None, fam):
            built = fn(env, s, labeler) if fam == "pair" else fn(env, s)
            for t in built:
                t.info.update({"build": BUILD_VERSION, "settings": s.as_dict(),
                               "env": env.describe()})
                out.append(t)
    return out


ID_FORMS = {"ego": "ego/novel|disruptive/<arXiv category>, e.g. ego/novel/cs.AI",
            "pair": "pair/pncites|cooccur/<paper id>, e.g. pair/pncites/arxiv:2301.00001",
            "path": "path/<arXiv category>/<nnn>, e.g. path/cs.AI/000"}


def has_built_id_form(family: str, task_id: str) -> bool:
    """Whether `task_id` has the form of an id `build_tasks` makes for `family` (ID_FORMS).
    Whether the graph yields that task is known only by building the tasks' gold."""
    parts = task_id.split("/", 2)
    if len(parts) != 3 or parts[0] != family:
        return False
    _, a, b = parts
    if family == "ego":
        return a in ("novel", "disruptive") and b in CATEGORY_NAMES
    if family == "pair":
        return a in ("pncites", "cooccur") and bool(b.strip())
    return a in CATEGORY_NAMES and len(b) >= 3 and b.isdigit()
