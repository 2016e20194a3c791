"""The maximum-cumulative-citation path: hand DAGs, ties, cycles, no path, unknown ids, a length
limit, and an exhaustive enumeration on random graphs."""
from __future__ import annotations

import numpy as np
import pytest

from scholarbench.graph import PathError, PathFinder, build_graph, max_citation_path
from scholarbench.graph.path import dag_mask


def graph(years: dict, edges: list[tuple[str, str]]):
    ids = list(years)
    return build_graph(ids, [years[i] for i in ids], None, [e[0] for e in edges],
                       [e[1] for e in edges])


# A (2000) is cited by B and C (2001); D (2002) cites B and C; E (2003) cites D and A.
# Citations: A 3 (B, C, E), B 1, C 1, D 1, E 0.
DIAMOND = graph({"A": 2000, "B": 2001, "C": 2001, "D": 2002, "E": 2003},
                [("B", "A"), ("C", "A"), ("D", "B"), ("D", "C"), ("E", "D"), ("E", "A")])


def test_maximum_and_lexicographic_tie():
    # [A,E] scores 3; [A,B,D,E] and [A,C,D,E] both 5 with 4 papers: B < C wins
    r = max_citation_path(DIAMOND, "A", "E")
    assert r.as_json() == {"path": ["A", "B", "D", "E"], "score": 5}


def test_higher_score_wins_then_fewer_papers():
    years = {"A": 2000, "X": 2001, "Y": 2001, "Z": 2002, "B": 2003, "W1": 2004, "W2": 2004,
             "W3": 2004}
    edges = [("X", "A"), ("Y", "A"), ("Z", "Y"), ("B", "X"), ("B", "Z"), ("W1", "X"), ("W2", "Z")]
    # A 2, X 2 (B, W1), Y 1, Z 2 (B, W2), B 0: [A,X,B] = 4 < [A,Y,Z,B] = 5
    r = max_citation_path(graph(years, edges), "A", "B")
    assert (r.path, r.score) == (("A", "Y", "Z", "B"), 5)
    # one more citer of X: [A,X,B] = 5 = [A,Y,Z,B]; the path with fewer papers wins
    r = max_citation_path(graph(years, edges + [("W3", "X")]), "A", "B")
    assert (r.path, r.score) == (("A", "X", "B"), 5)


def test_cycles_are_broken_by_year_then_id():
    # P and Q (both 2010) cite each other; Q -> P is kept (Q > P), P -> Q dropped
    g = graph({"O": 2009, "P": 2010, "Q": 2010, "R": 2011},
              [("P", "O"), ("Q", "P"), ("P", "Q"), ("R", "Q")])
    keep = dag_mask(g)
    dropped = {(str(g.ids[c]), str(g.ids[d])) for c, d, k in zip(g.citing, g.cited, keep) if not k}
    assert dropped == {("P", "Q")}
    # citation counts come from the whole graph: O 1, P 1, Q 2 (P and R), R 0
    assert max_citation_path(g, "O", "R").as_json() == {"path": ["O", "P", "Q", "R"], "score": 4}


def test_time_reversed_edge_outside_a_cycle_is_kept():
    g = graph({"old": 2000, "new": 2010}, [("old", "new")])
    assert dag_mask(g).all()
    assert max_citation_path(g, "new", "old").path == ("new", "old")


def test_no_path_and_unknown_ids():
    with pytest.raises(PathError, match="swap --from and --to"):
        max_citation_path(DIAMOND, "E", "A")
    with pytest.raises(PathError, match="no citation path") as info:
        max_citation_path(DIAMOND, "B", "C")
    assert "swap" not in str(info.value)
    with pytest.raises(PathError, match="--from 'nope' is not a paper"):
        max_citation_path(DIAMOND, "nope", "E")
    with pytest.raises(PathError, match="--to 'Z' is not a paper"):
        max_citation_path(DIAMOND, "A", "Z")


def test_same_paper():
    assert max_citation_path(DIAMOND, "A", "A").as_json() == {"path": ["A"], "score": 3}


def test_length_limit():
    finder = PathFinder(DIAMOND)
    assert finder.find("A", "E", max_papers=2).path == ("A", "E")
    assert finder.find("A", "E", max_papers=4).path == ("A", "B", "D", "E")
    with pytest.raises(PathError, match="at most 1 papers"):
        finder.find("A", "E", max_papers=1)
    with pytest.raises(PathError, match="max_papers"):
        finder.find("A", "E", max_papers=0)


def all_paths(g, keep, a, b):
    succ: dict[int, list[int]] = {}
    for c, d, k in zip(g.citing.tolist(), g.cited.tolist(), keep):
        if k:
            succ.setdefault(d, []).append(c)        # knowledge flows cited -> citing
    out, stack = [], [[a]]
    while stack:
        p = stack.pop()
        if p[-1] == b:
            out.append(p)
            continue
        stack.extend(p + [u] for u in succ.get(p[-1], []) if u not in p)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_matches_exhaustive_enumeration(seed):
    rng = np.random.default_rng(seed)
    n = 14
    ids = [f"n{i:02d}" for i in range(n)]
    years = [int(y) for y in rng.integers(2000, 2005, n)]
    a_, b_ = rng.integers(0, n, 40), rng.integers(0, n, 40)
    g = build_graph(ids, years, None, [ids[i] for i in a_], [ids[j] for j in b_])
    keep = dag_mask(g)
    w = g.citation_counts()
    finder = PathFinder(g)
    checked = 0
    for a in range(n):
        for b in range(n):
            if a == b:
                continue
            paths = all_paths(g, keep, a, b)
            if not paths:
                with pytest.raises(PathError):
                    finder.find(str(g.ids[a]), str(g.ids[b]))
                continue
            top = max(sum(w[p]) for p in paths)
            fewest = min(len(p) for p in paths if sum(w[p]) == top)
            best = min((p for p in paths if sum(w[p]) == top and len(p) == fewest),
                       key=lambda p: [str(g.ids[x]) for x in p])
            got = finder.find(str(g.ids[a]), str(g.ids[b]))
            assert got.path == tuple(str(g.ids[x]) for x in best)
            assert got.score == sum(w[best])
            for limit in (2, 3):
                short = [p for p in paths if len(p) <= limit]
                if short:
                    top = max(sum(w[p]) for p in short)
                    assert finder.find(str(g.ids[a]), str(g.ids[b]), max_papers=limit).score == top
            checked += 1
    assert checked > 5
