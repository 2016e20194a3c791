"""Cross-checks on ../shared/golden-inputs/taxobench/cases.json (3 expert trees × 8 perturbations)."""
import json

import pytest

from scholarbench.data.taxobench import parse_prediction
from scholarbench.data.trees import parse_tree
from scholarbench.benchmarks.taxobench.measures import score_instance

from conftest import shared_path

PERFECT = ("recall", "precision", "f1", "ari", "homogeneity", "completeness", "v_measure",
           "ari_cap", "v_measure_cap", "sem_path", "nsr", "nsp", "soft_f1")


@pytest.fixture(scope="module")
def scored(minilm):
    cases = json.loads(shared_path("golden-inputs", "taxobench", "cases.json").read_text())
    out = {}
    for case in cases:
        gold = parse_tree(case["reference"]["gt"], "gt")
        pred = parse_prediction({"id": case["id"], "hierarchy_tree": case["prediction_tree"]})
        out[(case["id"], case["perturbation"])] = score_instance(gold, pred, minilm)
    assert len(out) == 24
    return out


IDS = (1, 34, 64)
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("sid", IDS)
def test_identity_and_sibling_permutation_are_perfect(scored, sid):
    for pert in ("identity", "sibling_permutation"):
        s = scored[(sid, pert)]
        for key in PERFECT:
            assert s[key] == pytest.approx(1.0), (pert, key)
        assert s["us_ted"] == 0.0 and s["us_nted"] == 0.0


@pytest.mark.parametrize("sid", IDS)
def test_subtree_swap_keeps_partition_and_labels_but_costs_structure(scored, sid):
    s = scored[(sid, "subtree_swap")]
    assert s["ari"] == pytest.approx(1.0) and s["v_measure"] == pytest.approx(1.0)
    assert s["nsr"] == pytest.approx(1.0) and s["nsp"] == pytest.approx(1.0)  # A.6 proposition
    assert s["us_ted"] > 0 and s["sem_path"] < 1.0


@pytest.mark.parametrize("sid", IDS)
def test_flatten_keeps_leaves_and_loses_hierarchy(scored, sid):
    s = scored[(sid, "flatten")]
    assert s["ari"] == pytest.approx(1.0)
    assert s["us_nted"] > 0.5 and s["sem_path"] < 0.6


@pytest.mark.parametrize("sid", IDS)
def test_merging_two_leaves_is_one_deletion_and_under_segmentation(scored, sid):
    s = scored[(sid, "merge_first_two_leaves")]
    assert s["us_ted"] == pytest.approx(1.0)          # the merged leaf keeps the first label
    assert s["completeness"] == pytest.approx(1.0) and s["homogeneity"] < 1.0
    assert s["recall"] == 1.0


@pytest.mark.parametrize("sid", IDS)
def test_title_noise_changes_only_alignment(scored, sid):
    s = scored[(sid, "title_noise")]
    assert s["us_ted"] == 0.0 and s["ari_cap"] == pytest.approx(1.0)
    assert 0.8 < s["recall"] < 1.0 and s["recall"] == s["precision"]


@pytest.mark.parametrize("sid, kept", [(1, 29), (34, 38), (64, 43)])
def test_dropping_papers_costs_recall_only(scored, sid, kept):
    s = scored[(sid, "drop_every_4th_paper")]
    assert s["n_aligned"] == kept and s["precision"] == 1.0
    assert s["recall"] == pytest.approx(kept / s["n_gold"])
    assert s["us_ted"] == 0.0 and s["ari_cap"] == pytest.approx(1.0) and s["ari"] < 1.0


@pytest.mark.parametrize("sid", IDS)
def test_model_prediction_is_imperfect_and_in_bounds(scored, sid):
    s = scored[(sid, "model_prediction")]
    assert s["ari"] < 0.5 and 0 < s["us_nted"] < 1 and 0 < s["sem_path"] < 1
