import random

import numpy as np
import pytest

from scholarbench.data.trees import parse_tree
from scholarbench.metrics.sem_path import chain_cost, sem_path_score
from scholarbench.metrics.soft_cardinality import soft_scores
from scholarbench.metrics.tree_edit import FlatTree, us_nted, us_ted
from scholarbench.records import TaxoNode


def t(spec):
    """R(A(B,C),D) style: nested tuples (name, [children])."""
    name, kids = spec if isinstance(spec, tuple) else (spec, [])
    return TaxoNode(name, [t(k) for k in kids])


def ted(gold, pred, sim_of=None):
    g, p = FlatTree.from_node(gold), FlatTree.from_node(pred)
    sim_of = sim_of or (lambda x, y: 1.0 if x == y else 0.0)
    sim = np.array([[sim_of(x, y) for y in p.labels] for x in g.labels])
    return us_ted(g, p, sim)


def test_identity_is_zero_and_sibling_order_does_not_matter():
    gold = t(("R", [("A", ["B", "C"]), ("D", ["E"])]))
    assert ted(gold, gold) == 0
    assert ted(gold, t(("R", [("D", ["E"]), ("A", ["C", "B"])]))) == 0


def test_hand_computed_edits():
    assert ted(t(("R", ["A", "B"])), t(("R", ["A"]))) == 1              # delete leaf B
    assert ted(t(("R", ["A"])), t(("R", [("A", ["C"])]))) == 1          # insert C
    assert ted(t(("R", [("A", ["B", "C"])])), t(("R", ["A"]))) == 2     # leaf vs subtree of 3
    half = lambda x, y: 1.0 if x == y else 0.5
    assert ted(t(("R", ["X"])), t(("R", ["Y"])), half) == pytest.approx(0.5)   # rename 1 - 0.5
    # paper's counterexample 1: C and E swap parents; renaming C->E and E->C costs 1 each
    gold = t(("R", [("A", ["B", "C"]), ("D", ["E", "F"])]))
    pred = t(("R", [("A", ["B", "E"]), ("D", ["C", "F"])]))
    assert ted(gold, pred) == 2
    assert us_nted(2, 7, 7) == pytest.approx(2 / 14)


def test_absent_prediction_costs_every_gold_node():
    gold = FlatTree.from_node(t(("R", [("A", ["B"]), "C"])))
    assert us_ted(gold, None, None) == 4
    assert us_nted(4, 4, 0) == 1.0


def _random_tree(rng, n, labels):
    nodes = [TaxoNode(rng.choice(labels))]
    for _ in range(n - 1):
        parent = rng.choice(nodes)
        child = TaxoNode(rng.choice(labels))
        parent.children.append(child)
        nodes.append(child)
    return nodes[0]


def _shuffle(node, rng):
    copy = TaxoNode(node.name, [_shuffle(c, rng) for c in node.children])
    rng.shuffle(copy.children)
    return copy


def test_bounds_and_permutation_invariance_on_random_trees():
    rng = random.Random(7)
    labels = list("ABCDEFGH")
    vecs = {x: np.random.default_rng(ord(x)).normal(size=8) for x in labels}
    cos = lambda x, y: max(0.0, float(vecs[x] @ vecs[y] / np.linalg.norm(vecs[x]) / np.linalg.norm(vecs[y])))
    for _ in range(40):
        a = _random_tree(rng, rng.randint(1, 12), labels)
        b = _random_tree(rng, rng.randint(1, 12), labels)
        d = ted(a, b, cos)
        assert 0 <= d <= a.size() + b.size()
        assert ted(_shuffle(a, rng), _shuffle(b, rng), cos) == pytest.approx(d)
        assert ted(a, a, cos) == pytest.approx(0, abs=1e-12)


def test_deep_chain_does_not_hit_recursion_limits():
    deep = {"name": "root", "subtopics": []}
    node = deep
    for i in range(5000):
        child = {"name": f"n{i}", "subtopics": []}
        node["subtopics"].append(child)
        node = child
    tree = parse_tree(deep, "gt")
    assert tree.size() == 5001
    assert ted(tree, tree) == 0


def test_sem_path_chain_costs_by_hand():
    d = lambda x, y: 0.0 if x == y else 1.0
    assert chain_cost(("R", "A"), ("R", "A"), d) == 0
    assert chain_cost(("R", "A"), ("R", "X", "A"), d) == 1          # skip X, λ=1
    assert chain_cost(("R", "X", "A"), ("R", "A"), d) == 1          # symmetric
    assert chain_cost(("R", "A"), ("R", "B"), d) == 1               # one mismatch
    assert chain_cost(("R", "A"), ("R", "X", "A"), d, lam=0.5) == 0.5
    # order matters: (A, B) cannot align to (B, A) at zero cost
    assert chain_cost(("A", "B"), ("B", "A"), d) == 2
    half = lambda x, y: 0.0 if x == y else 0.25
    assert chain_cost(("R", "A"), ("R", "B", "C"), half) == pytest.approx(1.25)


def test_sem_path_mean_and_best_candidate_pair():
    d = lambda x, y: 0.0 if x == y else 1.0
    pairs = [([("R", "A")], [("R", "A")]),                       # 1/(1+0) = 1
             ([("R", "A")], [("R", "B"), ("R", "A")]),           # best candidate: 1
             ([("R", "A")], [("R", "X", "Y")])]                  # 1 mismatch + λ → 1/3
    assert sem_path_score(pairs, d) == pytest.approx((1 + 1 + 1 / 3) / 3)
    assert sem_path_score([], d) is None


def test_soft_cardinality_counterexample_2_from_the_paper():
    # A = (a); B = (b1, b2); Sim(a,b1)=Sim(a,b2)=1, Sim(b1,b2)=0
    sim = np.array([[1, 1, 1], [1, 1, 0], [1, 0, 1]], dtype=float)
    s = soft_scores(sim, n_gold=1)
    assert s["nsr"] == pytest.approx(5 / 3)
    assert s["nsp"] == pytest.approx(5 / 6)
    assert s["soft_f1"] == pytest.approx(2 * (5 / 3) * (5 / 6) / (5 / 3 + 5 / 6))


def test_soft_scores_identical_lists_are_one_and_empty_model_is_zero():
    sim = np.eye(4)
    sim[:2, 2:] = sim[2:, :2] = np.eye(2)
    s = soft_scores(sim, n_gold=2)
    assert s["nsr"] == pytest.approx(1) and s["nsp"] == pytest.approx(1)
    empty = soft_scores(np.eye(2), n_gold=2)
    assert empty == {"nsr": 0.0, "nsp": None, "soft_f1": 0.0}
