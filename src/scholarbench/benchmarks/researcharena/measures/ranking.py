"""ResearchArena discovery and selection measures, scored exactly as ``trec_eval -c`` scores them.

ResearchArena (§5) scores *information discovery* with Recall@K and Precision@K (K = 10, 100)
and *information selection* with nDCG@10/30/100 and MRR, against each survey's references
(qrels grade 2 = influential citation, 1 = other reference, 0 or less = not relevant).

Measure keys are ir_measures' printed names, which parse back with ``ir_measures.parse_measure``:

    R@10  R@100  P@10  P@100  nDCG@10  nDCG@30  nDCG@100  RR  AP

Provider. Values come from ir_measures' **pytrec_eval** provider, pinned explicitly
(``ir_measures.pytrec_eval``; never the automatic provider choice, which may change with the
installed packages). pytrec_eval-terrier compiles trec_eval 9.0.8's own C code, so ranking,
tie-breaking and every formula are trec_eval's: tests/test_ranking.py checks every query x
measure of the golden runs against the trec_eval 9.0.8 binary's output. (ranx, trectools and
cwl_eval reimplement the measures and are not used.)

Definitions, as trec_eval computes them (rel = qrels grade, R = number of docs with rel >= 1):

* ranking: score descending, compared as float32, ties by docid descending (see data.trec);
  the run's rank column is ignored
* ``P@k`` = |relevant in top k| / k (k, not the number retrieved, is the denominator)
* ``R@k`` = |relevant in top k| / R
* ``RR`` = 1 / rank of the first relevant doc (0 if none retrieved); its mean is MRR
* ``AP`` = sum of precision at each relevant retrieved doc / R
* ``nDCG@k`` = DCG@k / ideal DCG@k with *linear* gains (gain = grade, so influential = 2,
  relevant = 1, grade <= 0 gains nothing) and discount 1/log2(rank + 1); the ideal ranking puts
  all judged docs in grade order. Binary measures count rel >= 1 as relevant.

Missing-value rules (explicit, tested):

* **The queries scored are exactly the qrels queries.** :func:`evaluate` returns one row per
  qrels query x measure, and :func:`aggregate` averages over them: trec_eval ``-c``.
* **A qrels query absent from the run** scores 0 on every measure (trec_eval ``-c``: "missing
  queries contribute a value of 0 to all evaluation measures"). We add these rows ourselves
  rather than rely on the provider filling them in: trec_eval without ``-c`` and bare
  pytrec_eval drop such queries, which would inflate a run's mean by skipping what it missed.
  A query whose run entry is empty counts as absent.
* **A qrels query with no relevant document** (every grade <= 0) is kept and scores 0 on every
  measure, as trec_eval does: its ``R = 0`` makes recall/AP/nDCG 0 (trec_eval guards the
  division) and P/RR are 0 because nothing retrieved is relevant. It stays in the mean's
  denominator (trec_eval counts it in ``num_q``). Such queries are reported by
  :func:`coverage` so that a benchmark loader can decide to drop them *before* scoring.
* **Run queries absent from the qrels** are ignored (trec_eval ignores them too) and counted
  by :func:`coverage`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

from scholarbench.data.trec import Qrels, Run

from scholarbench.benchmarks.researcharena.measures.declared import (
    DISCOVERY_KEYS as DISCOVERY_MEASURES, RANKING_KEYS as DEFAULT_MEASURES,
    SELECTION_KEYS as SELECTION_MEASURES)

PROVIDER = "pytrec_eval"
MAX_PARAM = 2**31 - 1         # the largest cutoff or relevance level a measure may name

QrelsLike = Qrels | Mapping[str, Mapping[str, int]]
RunLike = Run | Mapping[str, Mapping[str, float]]


@dataclass(frozen=True)
class ScoreRow:
    """One query's value of one measure (``measure`` is the ir_measures printed name)."""
    query_id: str
    measure: str
    value: float


@dataclass(frozen=True)
class Coverage:
    """How the run's queries line up with the qrels' (all id lists sorted)."""
    qrels_queries: tuple[str, ...]
    missing_from_run: tuple[str, ...]
    not_in_qrels: tuple[str, ...]
    without_relevant: tuple[str, ...]

    @property
    def queries_scored(self) -> int:
        return len(self.qrels_queries)


@lru_cache(maxsize=None)
def _parse(name: str):
    import ir_measures
    try:
        measure = ir_measures.parse_measure(name)
    except (ValueError, NameError, SyntaxError, TypeError) as exc:
        raise ValueError(f"not an ir_measures measure name: {name!r}") from exc
    if str(measure) != name:
        raise ValueError(f"measure {name!r} prints as {str(measure)!r}; use that name "
                         "(it is the key in every results file)")
    for param, value in measure.params.items():
        # trec_eval reads these as C longs and exits the process on a cutoff < 1 (a bound
        # past its range is clamped and then not found); 2^31 - 1 fits every platform's long
        if isinstance(value, int) and not isinstance(value, bool) and param in ("cutoff", "rel") \
                and not 1 <= value <= MAX_PARAM:
            what = "cutoff (after @)" if param == "cutoff" else f"{param}="
            raise ValueError(f"measure {name!r}: its {what} must be from 1 to {MAX_PARAM}, "
                             f"got {value}")
    provider = _provider()
    if not provider.supports(measure):
        raise ValueError(f"measure {name!r} is not computed by the {PROVIDER} provider")
    return measure


@lru_cache(maxsize=1)
def _provider():
    import ir_measures
    provider = ir_measures.pytrec_eval  # pinned: trec_eval's own C code (pytrec_eval-terrier)
    if not provider.is_available():
        raise RuntimeError("ir_measures' pytrec_eval provider is unavailable: "
                           "pip install pytrec-eval-terrier")
    return provider


def parse_measures(names: Iterable[str]) -> list[str]:
    """Validate measure names (each must be ir_measures' printed form); returns them as a list."""
    out = []
    for name in names:
        _parse(name)
        if name in out:
            raise ValueError(f"measure {name!r} requested twice")
        out.append(name)
    if not out:
        raise ValueError("no measures requested")
    return out


def _judgements(qrels: QrelsLike) -> dict[str, dict[str, int]]:
    return qrels.judgements if isinstance(qrels, Qrels) else Qrels.from_dict(qrels).judgements


def _scores(run: RunLike) -> dict[str, dict[str, float]]:
    return run.scores if isinstance(run, Run) else Run.from_dict(run).scores


def coverage(qrels: QrelsLike, run: RunLike) -> Coverage:
    judgements, scores = _judgements(qrels), _scores(run)
    retrieved = {q for q, docs in scores.items() if docs}
    return Coverage(
        qrels_queries=tuple(sorted(judgements)),
        missing_from_run=tuple(sorted(q for q in judgements if q not in retrieved)),
        not_in_qrels=tuple(sorted(q for q in retrieved if q not in judgements)),
        without_relevant=tuple(sorted(q for q, docs in judgements.items()
                                      if not any(r >= 1 for r in docs.values()))),
    )


def evaluate(qrels: QrelsLike, run: RunLike,
             measures: Sequence[str] = DEFAULT_MEASURES) -> list[ScoreRow]:
    """One row per qrels query x measure: qids ascending, measures in the order given.

    Qrels queries missing from the run get 0.0 (added here, not left to the provider); run
    queries missing from the qrels are not scored. See the module docstring for every rule.
    """
    names = parse_measures(measures)
    judgements, scores = _judgements(qrels), _scores(run)
    if not judgements:
        raise ValueError("qrels has no queries: nothing to score")
    # Only qrels queries with at least one retrieved document go to trec_eval's code.
    ranked = {q: dict(docs) for q, docs in scores.items() if docs and q in judgements}
    values: dict[tuple[str, str], float] = {}
    if ranked:
        parsed = {_parse(n): n for n in names}
        evaluator = _provider().evaluator(list(parsed), judgements)
        for metric in evaluator.iter_calc(ranked):
            name = parsed[metric.measure]
            if metric.query_id not in judgements:  # cannot happen: the run was filtered
                raise RuntimeError(f"provider scored query {metric.query_id!r} not in qrels")
            if metric.query_id in ranked:
                values[(metric.query_id, name)] = float(metric.value)
    rows = []
    for qid in sorted(judgements):
        for name in names:
            if qid not in ranked:
                value = 0.0  # absent from the run: trec_eval -c gives 0 on every measure
            elif (qid, name) in values:
                value = values[(qid, name)]
            else:
                raise RuntimeError(f"provider returned no {name} for query {qid!r}")
            rows.append(ScoreRow(qid, name, value))
    return rows


def aggregate(rows: Iterable[ScoreRow]) -> dict[str, float]:
    """Mean of each measure over its rows (over the qrels queries, as ``evaluate`` emits them).

    Sums in row order with plain float addition, as trec_eval accumulates, then divides.
    """
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for row in rows:
        sums[row.measure] = sums.get(row.measure, 0.0) + row.value
        counts[row.measure] = counts.get(row.measure, 0) + 1
    return {m: sums[m] / counts[m] for m in sums}


def provider_versions() -> dict[str, str]:
    """Versions of the scoring stack, for manifests and summaries."""
    from importlib.metadata import PackageNotFoundError, version
    out = {"provider": PROVIDER}
    for dist in ("ir_measures", "pytrec_eval-terrier"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = "not installed"
    return out


__all__ = ["DEFAULT_MEASURES", "DISCOVERY_MEASURES", "SELECTION_MEASURES", "PROVIDER",
           "ScoreRow", "Coverage", "evaluate", "aggregate", "coverage", "parse_measures",
           "provider_versions"]
