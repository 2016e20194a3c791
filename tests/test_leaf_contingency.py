"""The leaf metrics from one contingency table equal scikit-learn's (the tests' cross-check only)."""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score, homogeneity_completeness_v_measure

from scholarbench.metrics.leaf import cluster_scores, partition_scores

from conftest import FakeEmbedder, shared_path

TOL = 1e-12


def sklearn_scores(truth, pred):
    hom, comp, v = homogeneity_completeness_v_measure(truth, pred)
    return {"ari": float(adjusted_rand_score(truth, pred)), "homogeneity": hom,
            "completeness": comp, "v_measure": v}


def assert_same(truth, pred, exact=False):
    ours, ref = cluster_scores(truth, pred), sklearn_scores(truth, pred)
    for key, value in ref.items():
        assert isinstance(ours[key], float), key
        if exact:
            assert ours[key] == value, (key, ours[key], value)
        else:
            assert abs(ours[key] - value) <= TOL, (key, ours[key], value, truth, pred)


def random_pairs(seed=0):
    """Seeded labellings: sizes 1..2000, 1..n classes, skewed and uniform, independent and noisy."""
    rng = np.random.default_rng(seed)
    for n in (1, 2, 3, 4, 5, 7, 10, 20, 50, 100, 300, 1000, 2000):
        for k_true in sorted({1, 2, 3, max(1, n // 10), max(1, n // 2), n}):
            for k_pred in sorted({1, 2, 5, max(1, n // 3), n}):
                for skew in (False, True):
                    p_t = rng.dirichlet(np.full(k_true, 0.3 if skew else 5.0))
                    p_p = rng.dirichlet(np.full(k_pred, 0.3 if skew else 5.0))
                    truth = rng.choice(k_true, size=n, p=p_t)
                    independent = rng.choice(k_pred, size=n, p=p_p)
                    # a noisy copy: most items keep a relabelled truth, some move at random
                    noisy = np.where(rng.random(n) < 0.8, (truth * 7 + 3) % max(k_pred, 1), independent)
                    yield truth, independent
                    yield truth, noisy


def test_random_labellings_equal_sklearn_to_1e12():
    count = 0
    for truth, pred in random_pairs():
        assert_same(truth.tolist(), pred.tolist())
        count += 1
    assert count > 500


def test_label_types_and_order_do_not_matter():
    rng = np.random.default_rng(1)
    truth = rng.integers(0, 6, 80)
    pred = rng.integers(0, 4, 80)
    as_str = [f"c{x}" for x in truth]
    as_tuple = [(0, int(x)) for x in pred]
    ref = sklearn_scores(truth, pred)
    ours = cluster_scores(as_str, as_tuple)
    for key in ref:
        assert abs(ours[key] - ref[key]) <= TOL
    # relabelling either side (a different first-seen order) changes nothing beyond rounding
    perm = {x: 5 - x for x in range(6)}
    relabelled = cluster_scores([perm[x] for x in truth.tolist()], pred.tolist())
    for key in ref:
        assert abs(relabelled[key] - ref[key]) <= TOL


@pytest.mark.parametrize("truth, pred", [
    ([0], [0]),                                   # one item
    ([0, 0, 0, 0], [0, 0, 0, 0]),                 # one cluster each
    ([0, 1, 2, 3], [0, 1, 2, 3]),                 # all singletons each
    ([0, 0, 0, 0], [0, 1, 2, 3]),                 # one class, all singletons
    ([0, 1, 2, 3], [0, 0, 0, 0]),                 # all singletons, one cluster
    ([0, 0, 1, 1], [1, 1, 0, 0]),                 # identical up to names
    ([0, 0, 1, 1], [0, 1, 0, 1]),                 # ARI -0.5
    ([0, 0, 1, 2], [0, 0, 1, 1]),                 # complete, not homogeneous
    ([0, 0, 1, 1, 2, 2], [0, 0, 1, 2, 2, 2]),     # sklearn's doc example
    (list(range(50)), list(range(50))[::-1]),
    ([0] * 30 + [1], [0] * 31),
])
def test_degenerate_labellings_equal_sklearn_exactly(truth, pred):
    assert_same(truth, pred, exact=True)


def test_empty_input_is_sklearns_one_and_partition_scores_none():
    assert cluster_scores([], []) == {"ari": 1.0, "homogeneity": 1.0, "completeness": 1.0,
                                      "v_measure": 1.0} == sklearn_scores([], [])
    assert partition_scores([], []) == dict.fromkeys(("ari", "homogeneity", "completeness",
                                                      "v_measure"))
    with pytest.raises(ValueError):
        cluster_scores([1, 2], [1])


def test_golden_taxobench_partitions_equal_sklearn_bit_for_bit(monkeypatch):
    """The 48 labellings the 24 golden cases score (e2e and aligned-only): identical to what
    sklearn returned when it was called on the same first-seen codes (the previous path)."""
    from scholarbench.benchmarks.taxobench import measures
    from scholarbench.data.taxobench import parse_prediction
    from scholarbench.data.trees import parse_tree
    seen = []

    def recording(truth, pred):
        seen.append((list(truth), list(pred)))
        return partition_scores(truth, pred)

    monkeypatch.setattr(measures, "partition_scores", recording)
    cases = json.loads(shared_path("golden-inputs", "taxobench", "cases.json").read_text())
    embedder = FakeEmbedder()
    for case in cases:
        gold = parse_tree(case["reference"]["gt"], "gt")
        pred = parse_prediction({"id": case["id"], "hierarchy_tree": case["prediction_tree"]})
        measures.score_instance(gold, pred, embedder)
    assert len(seen) == 48
    for truth, pred in seen:
        table_t: dict = {}
        table_p: dict = {}
        codes_t = [table_t.setdefault(x, len(table_t)) for x in truth]
        codes_p = [table_p.setdefault(x, len(table_p)) for x in pred]
        assert_same(codes_t, codes_p, exact=True)
        assert_same(truth and [str(x) for x in truth], pred and [str(x) for x in pred])


def test_the_scoring_path_does_not_import_sklearn_or_scipy_stats():
    """A fresh interpreter imports the CLI, the engine, the TaxoBench scorer and its built-in
    agents (as `score RUN_DIR` does) and scores one golden case with a fake embedder (loading
    MiniLM, only when a label is not in the embedding cache, imports transformers, which imports
    parts of scipy): no sklearn, no scipy.stats."""
    cases = shared_path("golden-inputs", "taxobench", "cases.json")
    code = textwrap.dedent(f"""
        import json, sys
        import scholarbench.cli
        from scholarbench.benchmarks.taxobench.measures import score_instance
        from scholarbench.benchmarks.taxobench import scoring
        import scholarbench.benchmarks.taxobench.agents     # registered when a run is re-scored
        import scholarbench.core.engine
        from scholarbench.data.taxobench import parse_prediction
        from scholarbench.data.trees import parse_tree
        import numpy as np

        class FakeEmbedder:
            model_id = "fake"

            def embed(self, texts):
                return np.eye(len(texts), 8 + len(texts), dtype=np.float32)
        case = json.load(open({str(cases)!r}))[0]
        score_instance(parse_tree(case["reference"]["gt"], "gt"),
                       parse_prediction({{"id": case["id"], "hierarchy_tree": case["prediction_tree"]}}),
                       FakeEmbedder())
        print(json.dumps(sorted(m for m in sys.modules
                                if m.split(".")[0] == "sklearn" or m.startswith("scipy.stats"))))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
