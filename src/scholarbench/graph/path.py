"""The most influential citation path between two papers (SciNet §5): of all citation paths
from A to B, the one with the largest S = sum of the in-corpus citation counts of its papers,
endpoints included.

A path [A, p1, ..., B] follows knowledge forward in time: p1 cites A, p2 cites p1, ..., B cites
the paper before it; so a path from A to B exists when B cites A directly or through others.

Exact on a DAG (a dynamic programme over a topological order of the papers lying on some path
from A to B), not a BFS enumeration. Citation cycles (arXiv versions, same-year mutual
citations) are broken first: an edge whose two ends lie in the same strongly connected component
is kept only when the citing paper is later than the cited one by (year, then id), papers without
a year counting as the oldest; an edge on no cycle is always kept. Citation counts are taken from
the whole cleaned graph, before cycle breaking. Ties: the larger S, then the fewer papers, then
the lexicographically smallest sequence of ids.

SciNet's BFS enumeration must have stopped somewhere; the paper gives no length limit, so by
default none is applied (long paths through highly cited papers win). `max_papers=L` finds the best
path with at most L papers instead (same score and tie rules).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from typing import TYPE_CHECKING

import numpy as np

from scholarbench.errors import ScholarbenchError
from scholarbench.graph.records import CitationGraph

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix


class PathError(ScholarbenchError):
    """No path between the two papers, or an id the graph does not have."""


@dataclass(frozen=True)
class CitationPath:
    path: tuple[str, ...]
    score: int

    def as_json(self) -> dict:
        return {"path": list(self.path), "score": self.score}


def dag_mask(graph: CitationGraph) -> np.ndarray:
    """Which edges survive cycle breaking (see the module docstring)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components
    n = graph.n_papers
    adj = csr_matrix((np.ones(graph.n_edges, dtype=np.int8), (graph.citing, graph.cited)),
                     shape=(n, n))
    _, comp = connected_components(adj, directed=True, connection="strong")
    year = np.where(graph.has_year, graph.year.astype(np.int64), np.iinfo(np.int64).min)
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((np.arange(n), year))] = np.arange(n)
    same = comp[graph.citing] == comp[graph.cited]
    return ~same | (rank[graph.citing] > rank[graph.cited])


class PathFinder:
    """Answers path queries on one graph; the DAG and the counts are built once."""

    def __init__(self, graph: CitationGraph) -> None:
        self.graph = graph

    @cached_property
    def _arrays(self) -> tuple[csr_matrix, csr_matrix, np.ndarray]:
        from scipy.sparse import csr_matrix
        g = self.graph
        keep = dag_mask(g)
        citing, cited = g.citing[keep], g.cited[keep]
        ones = np.ones(len(citing), dtype=np.int8)
        n = g.n_papers
        forward = csr_matrix((ones, (cited, citing)), shape=(n, n))   # cited -> citing
        backward = csr_matrix((ones, (citing, cited)), shape=(n, n))  # citing -> cited
        forward.sort_indices()
        return forward, backward, g.citation_counts()

    def _pid(self, paper_id: str, flag: str) -> int:
        pid = self.graph.pid(paper_id)
        if pid is None:
            raise PathError(f"{flag} {paper_id!r} is not a paper of the graph "
                            f"({self.graph.n_papers} papers)")
        return pid

    def find(self, source: str, target: str, *, max_papers: int | None = None) -> CitationPath:
        if max_papers is not None and (isinstance(max_papers, bool)
                                       or not isinstance(max_papers, int) or max_papers < 1):
            raise PathError(f"max_papers must be a whole number >= 1, got {max_papers!r}")
        from scipy.sparse.csgraph import breadth_first_order
        a, b = self._pid(source, "--from"), self._pid(target, "--to")
        forward, backward, weight = self._arrays
        if a == b:
            return self._result([a], int(weight[a]))
        n = self.graph.n_papers
        down = np.zeros(n, dtype=bool)   # papers citing A, directly or through others
        down[breadth_first_order(forward, a, directed=True, return_predecessors=False)] = True
        if not down[b]:
            reverse = breadth_first_order(forward, b, directed=True, return_predecessors=False)
            hint = (f"; but {source!r} cites {target!r} through a path, so swap --from and --to"
                    if a in set(reverse.tolist()) else "")
            raise PathError(f"no citation path from {source!r} to {target!r}: {target!r} does "
                            f"not cite {source!r}, directly or through other papers{hint}")
        up = np.zeros(n, dtype=bool)     # papers B cites, directly or through others
        up[breadth_first_order(backward, b, directed=True, return_predecessors=False)] = True
        on = down & up
        if max_papers is None:
            return self._unbounded(a, b, on, forward, weight)
        return self._bounded(a, b, on, forward, backward, weight, max_papers)

    def _result(self, path: list[int], score: int) -> CitationPath:
        return CitationPath(tuple(str(self.graph.ids[p]) for p in path), score)

    @staticmethod
    def _successors(on: np.ndarray, forward: csr_matrix) -> dict[int, list[int]]:
        """Successors inside `on`, in ascending pid (= id) order."""
        indptr, indices = forward.indptr, forward.indices
        return {int(v): [int(u) for u in indices[indptr[v]:indptr[v + 1]] if on[u]]
                for v in np.flatnonzero(on)}

    @staticmethod
    def _pick(options) -> tuple[int, int, int] | None:
        """Best of (score, length, pid) options: larger score, then shorter, then smaller pid
        (options come in ascending pid order, so only strict improvements replace)."""
        choice = None
        for s, length, u in options:
            if choice is None or s > choice[0] or (s == choice[0] and length < choice[1]):
                choice = (s, length, u)
        return choice

    def _unbounded(self, a: int, b: int, on: np.ndarray, forward: csr_matrix,
                   weight: np.ndarray) -> CitationPath:
        succ = self._successors(on, forward)
        indeg = dict.fromkeys(succ, 0)
        for us in succ.values():
            for u in us:
                indeg[u] += 1
        order, stack = [], [v for v, d in indeg.items() if d == 0]
        while stack:                      # Kahn's algorithm: a topological order
            v = stack.pop()
            order.append(v)
            for u in succ[v]:
                indeg[u] -= 1
                if indeg[u] == 0:
                    stack.append(u)
        best: dict[int, tuple[int, int, int]] = {b: (int(weight[b]), 1, -1)}  # score, length, next
        for v in reversed(order):
            if v != b:
                s, length, u = self._pick((best[u][0], best[u][1], u) for u in succ[v])
                best[v] = (int(weight[v]) + s, length + 1, u)
        path, v = [a], a
        while v != b:
            v = best[v][2]
            path.append(v)
        return self._result(path, best[a][0])

    def _bounded(self, a: int, b: int, on: np.ndarray, forward: csr_matrix,
                 backward: csr_matrix, weight: np.ndarray, limit: int) -> CitationPath:
        """best[l][v]: the best path from v to B with at most l papers (l = 1..limit)."""
        from scipy.sparse.csgraph import shortest_path
        from_a = shortest_path(forward, directed=True, unweighted=True, indices=a)
        to_b = shortest_path(backward, directed=True, unweighted=True, indices=b)
        if to_b[a] + 1 > limit:
            ids = self.graph.ids
            raise PathError(f"no citation path from {str(ids[a])!r} to {str(ids[b])!r} with at "
                            f"most {limit} papers (the shortest has {int(to_b[a]) + 1})")
        on = on & (from_a + to_b + 1 <= limit)
        succ = self._successors(on, forward)
        best: list[dict[int, tuple[int, int, int]]] = [{}, {b: (int(weight[b]), 1, -1)}]
        for level in range(2, limit + 1):
            prev, cur = best[-1], {b: (int(weight[b]), 1, -1)}
            for v, us in succ.items():
                if v != b and to_b[v] + 1 <= level and from_a[v] + level <= limit:
                    choice = self._pick((prev[u][0], prev[u][1], u) for u in us if u in prev)
                    if choice is not None:
                        cur[v] = (int(weight[v]) + choice[0], choice[1] + 1, choice[2])
            best.append(cur)
        path, v, level = [a], a, limit
        while v != b:
            v = best[level][v][2]
            level -= 1
            path.append(v)
        return self._result(path, best[limit][a][0])


def max_citation_path(graph: CitationGraph, source: str, target: str, *,
                      max_papers: int | None = None) -> CitationPath:
    return PathFinder(graph).find(source, target, max_papers=max_papers)
