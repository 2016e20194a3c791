import math

import pytest

from scholarbench.data.taxobench import parse_prediction
from scholarbench.metrics.leaf import partition_scores
from scholarbench.benchmarks.taxobench.measures import METRIC_KEYS, score_instance
from scholarbench.records import TaxoNode, TaxoPrediction


def gold_tree():
    return TaxoNode("Root", [TaxoNode("X", papers=["Paper One About Graphs", "Paper Two About Graphs"]),
                             TaxoNode("Y", papers=["Paper Three On Vision", "Paper Four On Vision"])])


def test_leaf_level_with_unretrieved_label_by_hand(fake_embedder):
    # model: p1,p2 in M; p3 in N; p4 missing → truth [X,X,Y,Y] vs [M,M,N,⊥]
    pred = TaxoPrediction("1", TaxoNode("Root", [
        TaxoNode("M", papers=["Paper One About Graphs", "Paper Two About Graphs"]),
        TaxoNode("N", papers=["Paper Three On Vision"])]))
    s = score_instance(gold_tree(), pred, fake_embedder)
    assert s["ari"] == pytest.approx(4 / 7)           # (1 - 1/3) / (3/2 - 1/3)
    assert s["homogeneity"] == pytest.approx(1.0)
    assert s["completeness"] == pytest.approx(2 / 3)  # 1 - (½ ln2)/(3/2 ln2)
    assert s["v_measure"] == pytest.approx(0.8)
    assert s["ari_cap"] == pytest.approx(1.0) and s["v_measure_cap"] == pytest.approx(1.0)
    assert (s["recall"], s["precision"]) == (0.75, 1.0)
    assert s["f1"] == pytest.approx(2 * 0.75 / 1.75)
    # labels M,N are orthogonal to X,Y (fake embedder): rename X→M, Y→N cost 1 each
    assert s["us_ted"] == pytest.approx(2.0)
    assert s["us_nted"] == pytest.approx(2 / 6)
    assert s["sem_path"] == pytest.approx(0.5)        # each chain: (Root,X) vs (Root,M): J = 1


def test_partition_scores_match_sklearn_definitions_on_identity_and_permuted_labels():
    truth = ["a", "a", "b", "c", "c"]
    assert partition_scores(truth, [3, 3, 1, 2, 2])["ari"] == pytest.approx(1.0)
    assert partition_scores([], [])["ari"] is None


def test_identity_is_perfect_and_paper_under_two_categories_uses_best_chain(fake_embedder):
    gold = gold_tree()
    gold.children[1].papers.append("Paper One About Graphs")     # also under Y
    s = score_instance(gold, TaxoPrediction("1", gold), fake_embedder)
    for key in ("recall", "precision", "f1", "ari", "v_measure", "ari_cap", "sem_path",
                "nsr", "nsp", "soft_f1"):
        assert s[key] == pytest.approx(1.0), key
    assert s["us_ted"] == 0 and s["us_nted"] == 0


def test_missing_prediction_is_scored_as_an_empty_taxonomy(fake_embedder):
    s = score_instance(gold_tree(), None, fake_embedder)
    assert s["missing"] is True and s["malformed"] is False
    assert (s["recall"], s["precision"], s["f1"]) == (0.0, 0.0, 0.0)
    assert s["ari"] == 0.0 and s["homogeneity"] == 0.0 and s["completeness"] == 1.0
    assert s["ari_cap"] is None and s["sem_path"] is None and s["nsp"] is None
    assert s["us_ted"] == 3 and s["us_nted"] == 1.0
    assert s["nsr"] == 0.0 and s["soft_f1"] == 0.0
    assert set(METRIC_KEYS) <= set(s)


@pytest.mark.parametrize("raw, reason", [
    ({"id": 1, "hierarchy_tree": {"name": 3}}, "hierarchy_tree.name"),
    ({"id": 1, "hierarchy_tree": {"name": "R", "subtopics": "x"}}, "subtopics"),
    ({"id": 1, "hierarchy_tree": {"name": "R", "papers": [{"t": 1}]}}, "papers[0]"),
    ({"id": 1, "hierarchy_tree": None}, "missing"),
    ({"id": 1, "hierarchy_tree": {"name": "R"}, "extra": 1}, "unknown field"),
])
def test_malformed_agent_output_is_scored_malformed_not_raised(raw, reason, fake_embedder):
    pred = parse_prediction(raw)
    assert pred.error and reason in pred.error
    s = score_instance(gold_tree(), pred, fake_embedder)
    assert s["malformed"] is True and s["missing"] is False and s["recall"] == 0.0


def test_retrieved_list_drives_retrieval_scores_and_tree_drives_organisation(fake_embedder):
    pred = TaxoPrediction("1", TaxoNode("Root", [TaxoNode("X", papers=["Paper One About Graphs"])]),
                          retrieved=["Paper One About Graphs", "Paper Three On Vision", "Unrelated"])
    s = score_instance(gold_tree(), pred, fake_embedder)
    assert s["recall"] == 0.5 and s["precision"] == pytest.approx(2 / 3) and s["n_pred"] == 3
    assert s["ari_cap"] == pytest.approx(1.0)          # one aligned paper in the tree


def test_non_ascii_labels_duplicates_and_empty_categories(fake_embedder):
    gold = TaxoNode("Überblick", [TaxoNode("Méthodes", [TaxoNode("Black-box", papers=["Détection A"])]),
                                  TaxoNode("Modèles", [TaxoNode("Black-box", papers=["Détection B"]),
                                                       TaxoNode("Empty")])])
    s = score_instance(gold, TaxoPrediction("x", gold), fake_embedder)
    assert s["ari"] == 1.0 and s["us_ted"] == 0 and s["sem_path"] == 1.0
    # same-label categories are different categories: merging them is not identity
    merged = TaxoNode("Überblick", [TaxoNode("Black-box", papers=["Détection A", "Détection B"])])
    assert score_instance(gold, TaxoPrediction("x", merged), fake_embedder)["ari"] < 1.0


def test_ten_thousand_node_prediction_is_scored(fake_embedder):
    root = TaxoNode("Root")
    frontier = [root]
    n = 1
    while n < 10_000:
        parent = frontier.pop(0)
        for _ in range(10):
            child = TaxoNode(f"c{n % 50}", papers=[f"Synthetic Paper Number {n}"])
            parent.children.append(child)
            frontier.append(child)
            n += 1
    s = score_instance(gold_tree(), TaxoPrediction("big", root), fake_embedder)
    assert s["n_pred"] >= 9_999 and s["recall"] == 0.0
    assert 0 < s["us_nted"] <= 1 and not math.isnan(s["us_ted"])
