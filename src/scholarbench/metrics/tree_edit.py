"""US-TED and US-NTED (TaxoBench §3.3.2, Appendix A.3, Algorithm 2).

D(u, v) = cost_ren(u→v) + MatchCost(Ch(u), Ch(v)), with cost_ren = 1 − Sim, insert/delete 1 per
node, and children matched by minimum-cost assignment (scipy's linear_sum_assignment) over a
k×k matrix padded with dummies: real↔dummy costs the whole subtree's size, dummy↔dummy 0.
Only same-depth node pairs are ever compared (root with root, their children with each other,
...), so D is computed bottom-up one depth at a time over all same-depth pairs — no recursion,
so 10,000-level trees work. An absent tree (no prediction) is at distance |T*| (insert all).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from scholarbench.records import TaxoNode


@dataclass
class FlatTree:
    labels: list[str]
    parent: list[int]
    depth: list[int]
    children: list[list[int]]
    size: list[int]          # subtree size |T_u| in category nodes

    @classmethod
    def from_node(cls, root: TaxoNode) -> "FlatTree":
        labels, parent, depth, children = [], [], [], []
        stack: list[tuple[TaxoNode, int, int]] = [(root, -1, 0)]
        while stack:
            node, par, d = stack.pop()
            idx = len(labels)
            labels.append(node.name)
            parent.append(par)
            depth.append(d)
            children.append([])
            if par >= 0:
                children[par].append(idx)
            for child in reversed(node.children):
                stack.append((child, idx, d + 1))
        size = [1] * len(labels)
        for idx in range(len(labels) - 1, 0, -1):  # pre-order: children follow parents
            size[parent[idx]] += size[idx]
        return cls(labels, parent, depth, children, size)

    def __len__(self) -> int:
        return len(self.labels)


def us_ted(gold: FlatTree, pred: FlatTree | None, sim: np.ndarray | None) -> float:
    """US-TED(T*, T̂). `sim[i, j]` is Sim(gold label i, pred label j) in [0, 1]."""
    if pred is None or len(pred) == 0:
        return float(len(gold))
    assert sim is not None and sim.shape == (len(gold), len(pred))
    by_depth_g: dict[int, list[int]] = {}
    by_depth_p: dict[int, list[int]] = {}
    for i, d in enumerate(gold.depth):
        by_depth_g.setdefault(d, []).append(i)
    for j, d in enumerate(pred.depth):
        by_depth_p.setdefault(d, []).append(j)
    # D values for the pairs at depth d+1, keyed by node index; filled deepest first.
    below: dict[tuple[int, int], float] = {}
    for d in range(min(max(by_depth_g), max(by_depth_p)), -1, -1):
        current: dict[tuple[int, int], float] = {}
        for u in by_depth_g[d]:
            for v in by_depth_p[d]:
                current[(u, v)] = (1.0 - sim[u, v]) + _match_cost(gold, pred, u, v, below)
        below = current
    return float(below[(0, 0)])


def _match_cost(gold: FlatTree, pred: FlatTree, u: int, v: int,
                below: dict[tuple[int, int], float]) -> float:
    cu, cv = gold.children[u], pred.children[v]
    if not cu and not cv:
        return 0.0
    if not cu:
        return float(sum(pred.size[j] for j in cv))
    if not cv:
        return float(sum(gold.size[i] for i in cu))
    k = max(len(cu), len(cv))
    cost = np.zeros((k, k))
    for a, i in enumerate(cu):
        for b, j in enumerate(cv):
            cost[a, b] = below[(i, j)]
        cost[a, len(cv):] = gold.size[i]
    for b, j in enumerate(cv):
        cost[len(cu):, b] = pred.size[j]
    rows, cols = linear_sum_assignment(cost)
    return float(cost[rows, cols].sum())


def us_nted(distance: float, gold_size: int, pred_size: int) -> float:
    """US-TED / (|T*| + |T̂|), in [0, 1]."""
    total = gold_size + pred_size
    return distance / total if total else 0.0
