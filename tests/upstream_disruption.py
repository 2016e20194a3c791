"""A plain-Python reference of SciNet's task-1 disruption as upstream's evaluation code computes it.

Upstream: https://github.com/tsinghua-fib-lab/SciNet, file `Evaluation/task1-disruptive-sos.py`
(`DisruptionCalculator.compute_disruption_index`), at commit
ed5c76fb250a4face6224ea834a62e63b47ddabd (the file was last changed in
a8d7e5c9597149c6899fb5e906ea557dba47358f; blob 76fece952fc9cde6971a3f0c13502c6348de5776).

What upstream does, read line by line (it computes the index itself from two SQLite tables,
`citing_to_cited(work_id, referenced_work_ids JSON list)` and
`cited_to_citing(referenced_work_id, citing_work_ids JSON list)`; no precomputed score is read):

1. refs(f) = set(JSON references of f). Empty / no row -> None (undefined).
2. citers(f) = the JSON list of papers citing f, iterated as a list. Empty / no row -> None.
3. For each citer c in that list: refs(c) is read from `citing_to_cited` (no row -> empty set);
   c counts as "cite both" (n_j) when refs(f) & refs(c) is non-empty, else "only cite f" (n_i).
4. D = (n_i - n_j) / (n_i + n_j), a float division, no rounding (the per-paper value is written
   to JSON as is; only the printed overall average is formatted to 4 decimals).
   n_i + n_j = |citers(f)| > 0 after step 2, so the `denominator == 0 -> None` branch is
   unreachable: n_i + n_j = 0 is exactly "no citers" -> None.

So there is NO n_k term, NO year rule (a citer published before f counts; years are never read),
NO window, and papers without a year are treated like any other (as focal papers and as citers).

Self-citations and repeated edges: upstream uses whatever its tables hold. References are a
`set`, so a repeated f -> r is harmless; citers are a `list`, so a repeated c -> f would count c
twice. A self-citation f -> f puts f in refs(f) and in citers(f): f then counts as its own
"cite both" citer, and every other citer c of f (f is in refs(c)) also shares f with refs(f), so
D(f) = -1 whenever f cites itself. Whether SciNet's OpenAlex tables contain such rows is unknown.
The default here is a clean edge list (both dropped, as `scholarbench.graph.build_graph` does);
`keep_self_citations` / `keep_duplicate_edges` reproduce upstream on an uncleaned list.
"""
from __future__ import annotations


def upstream_task1_disruption(citing: list[int], cited: list[int], focal: list[int], *,
                              keep_self_citations: bool = False,
                              keep_duplicate_edges: bool = False) -> dict[int, float | None]:
    """{f: D(f) or None} for each focal paper id f; edge k is citing[k] -> cited[k]."""
    if len(citing) != len(cited):
        raise ValueError("citing and cited differ in length")
    refs: dict[int, set[int]] = {}          # citing_to_cited: a set, as upstream json -> set()
    citers: dict[int, list[int]] = {}       # cited_to_citing: a list, iterated with repeats
    seen: set[tuple[int, int]] = set()
    for c, r in zip(citing, cited):
        c, r = int(c), int(r)
        if c == r and not keep_self_citations:
            continue
        if (c, r) in seen and not keep_duplicate_edges:
            continue
        seen.add((c, r))
        refs.setdefault(c, set()).add(r)
        citers.setdefault(r, []).append(c)

    out: dict[int, float | None] = {}
    for f in focal:
        f = int(f)
        focal_refs = refs.get(f, set())
        if not focal_refs:
            out[f] = None
            continue
        its_citers = citers.get(f, [])
        if not its_citers:
            out[f] = None
            continue
        only_cite_focal = 0
        cite_both = 0
        for c in its_citers:
            if focal_refs & refs.get(c, set()):
                cite_both += 1
            else:
                only_cite_focal += 1
        denominator = only_cite_focal + cite_both
        out[f] = None if denominator == 0 else (only_cite_focal - cite_both) / denominator
    return out
