"""SciNet's deterministic metrics, per task and aggregated (macro and micro).

Answer handling (every metric): an answer is a list of paper identifiers (graph ids in any
spelling the resolver knows, or exact titles); only the first `K` = 50 items count; each item is
resolved to a graph id; an item that resolves to nothing is *not in the graph* (counted) and is a
miss; a paper returned twice counts once (its first position).

Empty answers (no item at all): recall, precision-type metrics, SoS and connectivity are 0 for
that task (macro), and add nothing to micro numerators or denominators; they are counted.
A task whose metric is undefined (no ground truth of that kind) scores null, counted, excluded.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from scholarbench.benchmarks.scinet.env import SciNetEnv
from scholarbench.benchmarks.scinet.measures import (EGO_METRICS, K, LLM_METRICS,  # noqa: F401
                                                    METRICS, MICRO, PAIR_METRICS,
                                                    PATH_METRICS, micro_value)
from scholarbench.benchmarks.scinet.records import SciNetTask


def resolve_answer(papers: Sequence[Any], env: SciNetEnv, k: int = K) -> tuple[list[str], int, int]:
    """(distinct graph ids in answer order, items not in the graph, items considered)."""
    items = list(papers)[:k]
    out, seen, missing = [], set(), 0
    for item in items:
        gid = env.resolve(item)
        if gid is None:
            missing += 1
            continue
        if gid not in seen:
            seen.add(gid)
            out.append(gid)
    return out, missing, len(items)


def _distinct_count(papers: Sequence[Any], env: SciNetEnv, k: int = K) -> int:
    """Distinct items (graph ids, or the raw string for unresolvable items)."""
    keys = []
    for item in list(papers)[:k]:
        gid = env.resolve(item)
        keys.append(gid if gid is not None else f"?{item!r}")
    return len(set(keys))


def connected_chain(env: SciNetEnv, start: str, end: str, papers: Sequence[str]) -> bool:
    """True when {start, end} ∪ papers can be ordered start = p0, p1, ..., pn = end with each
    p(i+1) citing p(i) (edges after the path search's cycle breaking, so the graph is a DAG and
    such an order, if any, is the unique topological order). Exact, no sampling."""
    nodes = list(dict.fromkeys([start, *papers, end]))
    pids = [env.graph.pid(n) for n in nodes]
    if any(p is None for p in pids):
        return False
    dag = env.dag_edges
    succ: dict[int, list[int]] = {p: [] for p in pids}
    indeg = dict.fromkeys(pids, 0)
    for a in pids:          # a cited -> b citing
        for b in pids:
            if a != b and (b, a) in dag:
                succ[a].append(b)
                indeg[b] += 1
    order: list[int] = []
    ready = [p for p in pids if indeg[p] == 0]
    while ready:
        if len(ready) != 1:
            return False
        v = ready.pop()
        if order and v not in succ[order[-1]]:
            return False
        order.append(v)
        for u in succ[v]:
            indeg[u] -= 1
            if indeg[u] == 0:
                ready.append(u)
    return (len(order) == len(pids) and order[0] == env.graph.pid(start)
            and order[-1] == env.graph.pid(end))


def score_task(task: SciNetTask, papers: Sequence[Any] | None, env: SciNetEnv
               ) -> dict[str, Any]:
    """One row: the task's metrics (null where undefined) plus counts. `papers` None = the
    agent produced no answer (missing/malformed); scored like an empty answer and flagged."""
    row: dict[str, Any] = {"task_id": task.task_id, "family": task.family, "kind": task.kind}
    missing_answer = papers is None
    papers = [] if papers is None else list(papers)
    ids, not_in_graph, considered = resolve_answer(papers, env)
    distinct = _distinct_count(papers, env)
    empty = considered == 0
    row.update({"returned": len(papers), "considered": considered, "distinct": distinct,
                "in_graph": len(ids), "not_in_graph": not_in_graph, "empty": empty,
                "missing_answer": missing_answer})
    gold = task.gold
    if gold is None:
        row["no_gold"] = True
        return row
    if task.family == "ego":
        measure = gold.get("measure", "novelty" if task.kind == "novel" else "disruption")
        gset = set(gold["ranked"])
        recall = (len(gset.intersection(ids)) / len(gset)) if gset else None
        vals = env.sos(measure, ids) if ids else np.zeros(0)
        finite = vals[np.isfinite(vals)]
        row["undefined_value"] = int(len(ids) - len(finite))
        row[f"{measure}_recall@50"] = 0.0 if empty else recall
        row[f"{measure}_sos"] = float(finite.mean()) if len(finite) else 0.0
        row["sos_scorable"] = int(len(finite))
    elif task.family == "pair":
        if task.kind == "pncites":
            citers = set(gold["citers"])
            hits = sum(1 for i in ids if i in citers)
            row["cite_acc"], row["cite_acc_hits"] = _prec(hits, distinct, empty), hits
            if gold.get("positive") is None:
                row["cite_sentiment"] = None
            else:
                pos = set(gold["positive"])
                hp = sum(1 for i in ids if i in pos)
                row["cite_sentiment"], row["cite_sentiment_hits"] = _prec(hp, distinct, empty), hp
        else:
            co = set(gold["cocited"])
            hits = sum(1 for i in ids if i in co)
            row["comention_acc"], row["comention_acc_hits"] = _prec(hits, distinct, empty), hits
            if gold.get("comentioned") is None:
                row["comention_paragraph"] = None
            else:
                cm = set(gold["comentioned"])
                hp = sum(1 for i in ids if i in cm)
                row["comention_paragraph"] = _prec(hp, distinct, empty)
                row["comention_paragraph_hits"] = hp
    else:
        path = set(gold["path"])
        hits = sum(1 for i in ids if i in path)
        row["path_consistency"], row["path_consistency_hits"] = _prec(hits, distinct, empty), hits
        row["path_connectivity"] = (0.0 if empty or not_in_graph or not task.classic
                                    or not task.recent else
                                    float(connected_chain(env, task.classic, task.recent, ids)))
    return row


def _prec(hits: int, denom: int, empty: bool) -> float:
    return 0.0 if empty or denom == 0 else hits / denom


def aggregate(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Macro means (nulls excluded, counted) for every metric present; micro = Σ hits / Σ
    distinct returned for the precision-type metrics (empty answers add nothing); a row with
    `<metric>_den` (upstream's rules: every item) divides by that instead."""
    out: dict[str, Any] = {"n_tasks": len(rows),
                           "empty_answers": sum(1 for r in rows if r.get("empty")),
                           "missing_answers": sum(1 for r in rows if r.get("missing_answer")),
                           "not_in_graph": sum(r.get("not_in_graph", 0) for r in rows),
                           "no_gold": sum(1 for r in rows if r.get("no_gold"))}
    for m in METRICS + LLM_METRICS:     # LLM metrics only in rows a judge scored
        present = [r for r in rows if m in r]
        if not present:
            continue
        vals = [r[m] for r in present if r[m] is not None and not
                (isinstance(r[m], float) and math.isnan(r[m]))]
        entry = {"macro": (sum(vals) / len(vals)) if vals else None, "n": len(vals),
                 "n_null": len(present) - len(vals)}
        if m in MICRO:                  # the same function as the measure's aggregator
            entry["micro"] = micro_value(present, m)
        out[m] = entry
    return out
