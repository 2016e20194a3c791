"""SciNet's released scoring rules as a named variant (`--variant upstream`): what the scripts of
tsinghua-fib-lab/SciNet `Evaluation/` @ ed5c76f compute, on our graph and gold.

Per metric (file @ ed5c76f → rule; "items" = the answer list as given, null items dropped,
duplicates and items not in the graph kept):

- `task1-novelty-sos.py`, `task1-disruptive-sos.py`: only `papers[:5]`; the mean raw value
  (p10 z / disruption) of those with a defined value, a repeated paper counted each time; then
  `task1-novelty-rank.py` / `task1-disruption-rank.py`: `percentileofscore(kind="rank")` of that
  mean in the population, / 10 (novelty on negated values: lower z ranks higher). No scorable
  paper (or an empty answer) → null (upstream: "N/A", left out of the average).
- `task1-novelty-recall.py`, `task1-disruptive-recall.py`: every item (no cut), hits counted
  per item (a repeated gold paper counts twice), divided by k = 50; empty → 0.
- `task2-sentiment-cite-acc.py` (`cite_acc`): hits / number of items; empty → 0.
- `task2-sentiment-context-acc.py` (`cite_sentiment`), `task2-comention-acc.py`
  (`comention_acc`), `task2-comention-context-acc.py` (`comention_paragraph`): hits / number of
  items; an empty answer is left out (null). `comention_acc`'s co-cited set holds the query
  paper itself when it has a citer (it shares its own citers; `SciNetEnv.cocited` leaves it out).
- `task3-path-connectivity.py`: items without an id (`{"id": null, "title": …}`) dropped first;
  `path_consistency` = hits / items, empty left out;
  `path_connectivity` over the first 5 items only, endpoints not added, fewer than 2 → 0, else
  1 when some order of them has each paper citing the previous one (upstream tries 7 orders:
  as given, reversed, 5 random shuffles; we check every order, so ours is 1 whenever
  upstream's is, and can be 1 where upstream's random shuffles missed the chain).
- `task1-novelty-sos.py`, `task1-disruptive-sos.py`: the cut to 5 first, then id-less items
  dropped.
- `task1-*-llm.py`, `task3-path-llm.py`: the first 5 items (`judged.rules_of`).
- A task with no answer (missing or malformed): every metric null (upstream skips queries the
  results file does not have).

Upstream's answer items are `{"id": ..., "title": ...}` objects (or null); `items_of` reads them
and `idless_positions` says which of them had no id (recorded in the answer's `info`).
"""
from __future__ import annotations

from itertools import permutations
from typing import Any, Iterable, Sequence

import numpy as np

from scholarbench.benchmarks.scinet.env import SciNetEnv
from scholarbench.benchmarks.scinet.measures import UPSTREAM_COMMIT as COMMIT  # noqa: F401
from scholarbench.benchmarks.scinet.measures import VARIANTS
from scholarbench.benchmarks.scinet.records import SciNetTask
from scholarbench.errors import ScholarbenchError
from scholarbench.graph.sos import sos

TOP = 5                  # upstream's `papers[:5]` (SoS, LLM, connectivity)
RECALL_K = 50            # upstream's `--k` default (Recall@K divides by K)
ITEM_KEYS = {"id", "title"}


def check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise ScholarbenchError(f"unknown SciNet scoring variant {variant!r}; use one of "
                                f"{', '.join(VARIANTS)}")
    return variant


def is_upstream_items(papers: Any) -> bool:
    """True for a list holding upstream's item objects or nulls (else the family schema)."""
    return isinstance(papers, list) and any(
        p is None or (isinstance(p, dict) and "title" in p and set(p) <= ITEM_KEYS)
        for p in papers)


def items_of(papers: list[Any], env: Any) -> tuple[list[Any], int]:
    """Upstream's answer items as references: an `{"id", "title"}` object is its id when that
    is a paper of the graph, else its title (upstream's ids are OpenAlex ids, which our graph
    does not have; the title is the bridge), else the id as written; a null item is dropped
    (as `task3-path-connectivity.py` drops them). Other items are kept as they are.
    Returns (references, nulls dropped)."""
    out: list[Any] = []
    nulls = 0
    for p in papers:
        if p is None:
            nulls += 1
            continue
        if isinstance(p, dict) and "title" in p and set(p) <= ITEM_KEYS:
            pid, title = p.get("id"), p.get("title")
            if isinstance(pid, str) and pid and env.resolve(pid) is not None:
                out.append(pid)
            elif isinstance(title, str) and title.strip():
                out.append(title)
            else:
                out.append(pid if isinstance(pid, str) else "")
            continue
        out.append(p)
    return out, nulls


def idless_positions(papers: list[Any]) -> list[int]:
    """Positions, in `items_of`'s output (nulls dropped), of the item objects with no id
    (`{"id": null, "title": …}`): upstream's `paper.get("id")` is None there, and
    `task3-path-connectivity.py` (and the SoS scripts, after their cut to 5) drop them."""
    out, k = [], 0
    for p in papers:
        if p is None:
            continue
        if isinstance(p, dict) and "title" in p and set(p) <= ITEM_KEYS and not (
                isinstance(p.get("id"), str) and p.get("id")):
            out.append(k)
        k += 1
    return out


def rank_sos(value: float, population: Any) -> float:
    """`scipy.stats.percentileofscore(R, v, kind="rank") / 10` (novelty: of -v in -R)."""
    return float(sos(value, population, kind="rank")[0])


def any_order_connected(env: SciNetEnv, ids: Sequence[str | None]) -> bool:
    """Upstream's `check_path_connectivity` without the chance: some order of the papers in
    which each cites the one before it (fewer than 2 papers: False)."""
    if len(ids) < 2 or any(i is None for i in ids):
        return False
    for order in permutations(ids):
        if all(env.cites(order[k + 1], order[k]) for k in range(len(order) - 1)):
            return True
    return False


def _prec(row: dict[str, Any], metric: str, items: Sequence[str | None], gold: set[str],
          empty_value: float | None) -> None:
    hits = sum(1 for i in items if i is not None and i in gold)
    if not items:
        row[metric] = empty_value
        return
    row[metric] = hits / len(items)
    row[f"{metric}_hits"], row[f"{metric}_den"] = hits, len(items)


def _prec_if_gold(row: dict[str, Any], metric: str, items: Sequence[str | None],
                  gold: Iterable[str] | None) -> None:
    """`_prec` against `gold` (an empty answer scores None); None when the task has no such
    gold."""
    if gold is None:
        row[metric] = None
    else:
        _prec(row, metric, items, set(gold), None)


def score_task_upstream(task: SciNetTask, papers: Sequence[Any] | None, env: SciNetEnv,
                        idless: Iterable[int] = ()) -> dict[str, Any]:
    """One row under upstream's rules (same keys as `metrics.score_task`). `idless`: positions
    in `papers` of upstream item objects that had no id (`idless_positions`), dropped where
    upstream's scripts drop them (path: before scoring; SoS: after the cut to 5)."""
    row: dict[str, Any] = {"task_id": task.task_id, "family": task.family, "kind": task.kind,
                           "variant": "upstream"}
    missing = papers is None
    drop = set(idless)
    if papers is not None and drop and task.family == "path":
        papers = [p for k, p in enumerate(papers) if k not in drop]
        drop = set()
    items = [] if papers is None else [p for p in papers if p is not None]
    ids = [env.resolve(p) for p in items]
    row.update({"returned": len(items), "considered": len(items),
                "distinct": len(set(i if i is not None else f"?{p!r}"
                                    for i, p in zip(ids, items))),
                "in_graph": sum(1 for i in ids if i is not None),
                "not_in_graph": sum(1 for i in ids if i is None), "empty": not items,
                "missing_answer": missing})
    gold = task.gold
    if gold is None:
        row["no_gold"] = True
        return row
    metrics = _family_metrics(task)
    if missing:
        row.update(dict.fromkeys(metrics))
        return row
    if task.family == "ego":
        measure = gold.get("measure", "novelty" if task.kind == "novel" else "disruption")
        gset = set(gold["ranked"])
        row[f"{measure}_recall@50"] = sum(1 for i in ids if i in gset) / RECALL_K
        arr = env.measure(measure)
        vals = [float(arr[env.graph.pid(i)]) for k, i in enumerate(ids[:TOP])
                if i is not None and k not in drop]
        finite = [v for v in vals if np.isfinite(v)]
        pop = env.populations[measure]
        row["sos_scorable"] = len(finite)
        row[f"{measure}_sos_raw"] = float(np.mean(finite)) if finite else None
        row[f"{measure}_sos"] = (rank_sos(float(np.mean(finite)), pop)
                                 if finite and pop is not None else None)
    elif task.family == "pair":
        if task.kind == "pncites":
            _prec(row, "cite_acc", ids, set(gold["citers"]), 0.0)
            _prec_if_gold(row, "cite_sentiment", ids, gold.get("positive"))
        else:
            _prec(row, "comention_acc", ids, cocited_upstream(task, env), None)
            _prec_if_gold(row, "comention_paragraph", ids, gold.get("comentioned"))
    else:
        _prec(row, "path_consistency", ids, set(gold["path"]), None)
        row["path_connectivity"] = float(any_order_connected(env, ids[:TOP]))
    return row


def cocited_upstream(task: SciNetTask, env: SciNetEnv) -> set[str]:
    """`task2-comention-acc.py`'s co-cited set: the gold's plus the query paper itself when
    some graph paper cites it (a paper shares every one of its own citers). Our default
    leaves it out: a paper is not "co-mentioned with" itself, and answering the query paper
    would be a free hit."""
    gold = set(task.gold["cocited"]) if task.gold else set()
    src = env.resolve(task.source) if task.source else None
    if src is not None and env.citers(src):
        gold.add(src)
    return gold


def _family_metrics(task: SciNetTask) -> tuple[str, ...]:
    if task.family == "ego":
        m = (task.gold or {}).get("measure", "novelty" if task.kind == "novel" else "disruption")
        return (f"{m}_recall@50", f"{m}_sos")
    if task.family == "pair":
        return (("cite_acc", "cite_sentiment") if task.kind == "pncites"
                else ("comention_acc", "comention_paragraph"))
    return ("path_consistency", "path_connectivity")
