import pytest

from scholarbench.metrics.names import MetricName
from scholarbench.benchmarks.taxobench.measures import score_instance, sem_path_key
from scholarbench.records import TaxoNode, TaxoPrediction


@pytest.mark.parametrize("text", ["sem_path", "recall@100", "sem_path(lambda=0.5)", "nDCG@10", "RR", "R@100", "P@10", "AP",
                                  "x(a=1,b=2.5)"])
def test_printed_names_parse_back(text):
    assert str(MetricName.parse(text)) == text


def test_default_parameters_print_as_the_bare_name():
    assert sem_path_key(1.0) == "sem_path"
    assert sem_path_key(0.5) == "sem_path(lambda=0.5)"
    with pytest.raises(ValueError):
        MetricName.parse("sem path")


def test_non_default_lambda_is_its_own_results_key(fake_embedder):
    gold = TaxoNode("R", [TaxoNode("A", papers=["Some Paper Title Here"])])
    pred = TaxoNode("R", [TaxoNode("X", [TaxoNode("A", papers=["Some Paper Title Here"])])])
    s = score_instance(gold, TaxoPrediction("1", pred), fake_embedder, lam=0.5)
    assert "sem_path" not in s
    assert s["sem_path(lambda=0.5)"] == pytest.approx(1 / 1.5)   # skip X at λ = 0.5
