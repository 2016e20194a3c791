"""ref_precision / ref_recall / ref_count on hand-computed cases and invariants."""
from __future__ import annotations

import random

import pytest

from scholarbench.benchmarks.reportbench.metrics import distinct_references, reference_scores

GT = ["Attention Is All You Need", "BERT: Pre-training of Deep Bidirectional Transformers",
      "Deep Residual Learning for Image Recognition", "Adam: A Method for Stochastic "
      "Optimization"]


def test_hand_case():
    # 3 distinct predicted titles, 2 in GT -> P = 2/3; 2 of 4 GT titles found -> R = 1/2
    s = reference_scores(["attention is all you need", "Deep residual learning for image "
                          "recognition.", "A paper not in the GT"], GT)
    assert (s.ref_precision, s.ref_recall, s.ref_count, s.n_gt) == (2 / 3, 0.5, 3, 4)


def test_duplicates_count_once_on_both_sides():
    pred = ["Attention Is All You Need", "attention is all you need.", "ATTENTION IS ALL YOU "
            "NEED", "Unrelated work"]
    gt = GT + ["Attention is all you need"]        # the same GT title twice
    s = reference_scores(pred, gt)
    assert (s.ref_count, s.n_gt, s.n_matched, s.n_gt_matched) == (2, 4, 1, 1)
    assert (s.ref_precision, s.ref_recall) == (0.5, 0.25)


def test_curly_quotes_and_dashes():
    gt = ["\u201cWhy Should I Trust You?\u201d Explaining the Predictions of Any Classifier",
          "Graph\u2010based semi\u2013supervised learning \u2014 a survey",
          "It\u2019s time"]
    pred = ['"Why should I trust you?" Explaining the predictions of any classifier',
            "Graph-based semi-supervised learning - a survey", "It's time"]
    s = reference_scores(pred, gt)
    assert (s.ref_precision, s.ref_recall) == (1.0, 1.0)


def test_no_references_scores_zero():
    s = reference_scores([], GT)
    assert (s.ref_precision, s.ref_recall, s.ref_count, s.n_gt) == (0.0, 0.0, 0, 4)
    s = reference_scores(["", "  ", "!!"], GT)       # titles that normalise to nothing
    assert (s.ref_precision, s.ref_count) == (0.0, 0)


def test_empty_gt():
    s = reference_scores(["x y z"], [])
    assert (s.ref_precision, s.ref_recall, s.n_gt) == (0.0, 0.0, 0)


def test_identity_is_perfect_and_bounds_hold():
    s = reference_scores(GT, GT)
    assert (s.ref_precision, s.ref_recall, s.ref_count) == (1.0, 1.0, 4)
    rng = random.Random(0)
    pool = GT + [f"Other paper number {i}" for i in range(20)]
    for _ in range(50):
        pred = rng.sample(pool, rng.randint(0, len(pool)))
        s = reference_scores(pred, GT)
        assert 0 <= s.ref_precision <= 1 and 0 <= s.ref_recall <= 1
        rng.shuffle(pred)
        assert reference_scores(pred, GT) == s                         # order does not matter


def test_alternative_titles():
    # a reference matches when any of its titles (corpus, stated, extracted) is in the GT
    s = reference_scores([["Attention is all you need (NeurIPS 2017)",
                           "Attention Is All You Need"], ["Something else"]], GT)
    assert (s.n_matched, s.ref_count) == (1, 2)
    # two references sharing one title are one reference
    assert distinct_references([["A b c", "X y z"], ["x y z."], ["q r s"]]) == [
        ["a b c", "x y z"], ["q r s"]]


def test_substring_titles_do_not_match_exactly():
    s = reference_scores(["Attention", "Learning"], GT)
    assert s.n_matched == 0


def test_aligned_variant_forgives_a_glued_venue():
    pred = ["Attention Is All You Need. NeurIPS 2017", "Deep"]
    exact = reference_scores(pred, GT)
    aligned = reference_scores(pred, GT, match="aligned")
    assert exact.n_matched == 0
    assert aligned.n_matched == 1 and aligned.ref_precision == 0.5     # "Deep" is too short


def test_unresolved_policy():
    base = reference_scores(["Attention Is All You Need"], GT, unresolved_with_id=3)
    assert (base.ref_precision, base.ref_count) == (1.0, 1)           # excluded (default)
    miss = reference_scores(["Attention Is All You Need"], GT, unresolved_with_id=3,
                            unresolved="miss")
    assert (miss.ref_precision, miss.ref_count, miss.ref_recall) == (0.25, 4, 0.25)


def test_bad_options():
    with pytest.raises(ValueError):
        reference_scores([], GT, match="substring")
    with pytest.raises(ValueError):
        reference_scores([], GT, unresolved="drop")
