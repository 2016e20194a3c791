"""TaxoBench's summary is one function of scores.jsonl and the manifest (issue 25): a fresh
benchmark with an empty data directory rebuilds it exactly — the agents' counts and the judge's
description included — every measure is a declared `Measure` whose mean the engine's own
aggregation reproduces, and every summary measure carries its interval."""
from __future__ import annotations

import json

import pytest

from conftest import FakeEmbedder
from fake_openai import FakeOpenAI, Step
from scholarbench.benchmarks.taxobench import TaxoBench
from scholarbench.benchmarks.taxobench.measures import (JUDGE_MEASURES, MEASURES, METRIC_KEYS,
                                                        METRICS, score_instance, sem_path_key,
                                                        sem_path_measure)
from scholarbench.benchmarks.taxobench.runner import RunConfig, run
from scholarbench.core.aggregate import differences, rebuild
from scholarbench.core.measure import Measure
from scholarbench.core.registry import REGISTRY
from scholarbench.data.demo import demo_records
from scholarbench.records import TaxoNode

AGENT = f"{__name__}:solve"
DIMS = ("semantic_coverage", "sibling_organization", "hierarchical_logic", "structural_topology")


def _gold_titles() -> dict[str, list[str]]:
    return {str(r["id"]): [p["title"] for p in r["pdfs"]] for r in demo_records()}


def solve(task: dict) -> dict:
    """A plain-function agent, different on each sample: Bottom-Up places the listed papers by
    number, Deep Research names gold titles; each answer has one reference that resolves to
    nothing (counted in the sample's info, summed in the summary's agent_info)."""
    k = int(task["id"]) if str(task["id"]).isdigit() else len(task["id"])
    if task["subtask"] == "bottom-up":
        refs = [str(i + 1) for i in range(len(task["papers"]))] + ["Paper 99"]
    else:
        refs = _gold_titles()[task["id"]][: k + 2] + ["arXiv:2101.00001"]
    cut = 1 + k % max(1, len(refs) - 1)
    return {"taxonomy": {"name": task["topic"], "subtopics": [
        {"name": f"Group A{k}", "papers": refs[:cut]},
        {"name": "Group B", "papers": refs[cut:]}]}}


@pytest.fixture
def gold(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in demo_records()))
    return path


@pytest.fixture
def empty_data(tmp_path, monkeypatch):
    """`aggregate` needs no data: SCHOLARBENCH_DATA points at an empty directory."""
    empty = tmp_path / "empty-data"
    empty.mkdir()
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(empty))
    return empty


def _rows(out):
    return [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]


def _assert_rebuilt(out) -> dict:
    """`aggregate --check` on a fresh instance: summary.json is reproduced key for key."""
    from scholarbench import cli
    own = json.loads((out / "summary.json").read_text())
    rebuilt, bench = rebuild(out)
    assert isinstance(bench, TaxoBench) and bench._embedder is None    # no embedder was built
    assert differences(json.loads(json.dumps(rebuilt)), own) == []
    assert cli.main(["aggregate", str(out), "--check"]) == 0
    assert all("ci95" in m for m in own["metrics"].values())
    return own


@pytest.mark.parametrize("mode", ["bottom-up", "deep-research"])
def test_a_fresh_instance_rebuilds_the_summary_from_scores_alone(tmp_path, gold, mode,
                                                                  empty_data):
    out = tmp_path / "run"
    summary = run(RunConfig(gold, mode, AGENT, out, progress=False), FakeEmbedder())
    own = _assert_rebuilt(out)
    assert own == json.loads(json.dumps(summary))
    # the agents' counts come from the rows (a fresh instance kept none from score())
    assert own["agent_info"]["unresolved"] == 3 == own["n_unresolved"]
    assert own["agent_info"]["refs"] == sum(r["agent_info"]["refs"] for r in _rows(out))
    # the three samples differ: the bootstrap gives a real interval, around the mean
    key = "ari" if mode == "bottom-up" else "recall"
    low, high = own["metrics"][key]["ci95"]
    assert low < high and low <= own["metrics"][key]["mean"] <= high


def test_every_summary_measure_is_declared_and_its_mean_is_the_measures_own(tmp_path, gold,
                                                                            empty_data):
    out = tmp_path / "run"
    summary = run(RunConfig(gold, "bottom-up", AGENT, out, progress=False), FakeEmbedder())
    declared = {m.key: m for m in TaxoBench().measures("bottom-up")}
    rows = _rows(out)
    assert list(summary["metrics"]) == list(METRIC_KEYS)
    for key, entry in summary["metrics"].items():
        assert key in declared, key
        assert declared[key].value(rows) == entry["mean"], key


def test_measures_are_namespaced_objects_with_the_papers_equations():
    keys = [m.key for m in MEASURES + JUDGE_MEASURES]
    assert len(set(keys)) == len(keys)
    for m in MEASURES + JUDGE_MEASURES:
        assert REGISTRY.get("measure", f"taxobench/{m.key}") is m
        assert m.provenance.startswith("paper ") and m.label and m.description
        assert m.judge == m.key.startswith("judge_")
    assert {m.key: m.provenance for m in MEASURES}["us_nted"] == "paper eq. 11"
    # the tables' view is derived, not a second list
    assert [(i.key, i.label, i.higher_is_better) for i in METRICS] == \
        [(m.key, m.label, m.direction == "higher") for m in MEASURES]
    assert {i.key for i in METRICS if not i.percent} == {"us_ted", "nsr", "nsp", "soft_f1"}


def test_the_declared_sem_path_is_the_key_the_scorer_reports():
    gold = TaxoNode("T", [TaxoNode("A", papers=["Paper one title"])])
    from scholarbench.records import TaxoPrediction
    pred = TaxoPrediction("x", gold)
    default = score_instance(gold, pred, FakeEmbedder())
    declared = [m.key for m in MEASURES if m.key.startswith("sem_path")]
    assert declared == ["sem_path"] and "sem_path" in default
    half = score_instance(gold, pred, FakeEmbedder(), lam=0.5)
    assert sem_path_measure(0.5).key == sem_path_key(0.5) == "sem_path(lambda=0.5)"
    assert "sem_path(lambda=0.5)" in half and "sem_path" not in half
    assert Measure.split(sem_path_measure(0.5).qualified) == ("taxobench", "sem_path(lambda=0.5)")


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    yield server
    server.stop()


def _varied(body):
    """Judge scores that differ by sample (by the model tree's first group label)."""
    user = body["messages"][1]["content"]
    k = next((int(c) for c in user.split("Group A", 1)[1][:1] if c.isdigit()), 0) \
        if "Group A" in user else 0
    return Step(text=json.dumps({d: {"score": 1 + (k + i) % 5, "reasoning": "r"}
                                 for i, d in enumerate(DIMS)}))


def test_a_judged_run_rebuilds_with_the_judge_from_the_manifest(tmp_path, gold, fake,
                                                                empty_data):
    from scholarbench.llm.client import ChatClient
    from scholarbench.llm.config import ModelConfig
    fake.default = _varied
    client = ChatClient(ModelConfig(role="judge", model="fake-judge", base_url=fake.base_url,
                                    max_retries=1), retry_wait=(0.01, 0.02))
    out = tmp_path / "run"
    summary = run(RunConfig(gold, "bottom-up", AGENT, out, progress=False, judge=client),
                  FakeEmbedder())
    own = _assert_rebuilt(out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert own["judge"] == json.loads(json.dumps(summary["judge"]))
    assert own["judge"]["prompt"] == manifest["judged"]["judge"]["prompt"]     # the engine's
    declared = {m.key: m for m in JUDGE_MEASURES}
    rows = _rows(out)
    for key in declared:
        entry = own["metrics"][key]
        assert entry["n"] == 3 and entry["n_unscored"] == 0
        assert declared[key].value(rows) == entry["mean"]
        assert entry["ci95"] is not None


def test_score_files_summary_is_a_runs_summary_of_the_rows_it_wrote(tmp_path, gold):
    """`score taxobench --gold --pred --out` goes through `core.summarise`: status counts,
    every measure's interval, and a summary rebuilt from the written rows alone."""
    from scholarbench.benchmarks.taxobench.scoring import files_manifest, score_files
    from scholarbench.core.summarise import summarise
    records = demo_records()
    pred = tmp_path / "mine.jsonl"
    pred.write_text(
        "".join(json.dumps({"id": r["id"], "hierarchy_tree": {"name": r["survey"], "subtopics": [
            {"name": "All", "papers": [p["title"] for p in r["pdfs"]][: 2 + k]}]}}) + "\n"
            for k, r in enumerate(records[:2]))
        + json.dumps({"id": records[2]["id"], "hierarchy_tree": "not a tree"}) + "\n")
    out = tmp_path / "scores.jsonl"
    summary = score_files(gold, pred, out, FakeEmbedder(), on_problem=lambda msg: None)
    rows = _rows(tmp_path)
    assert summary["status"]["scored"] == 2 and summary["status"]["malformed"] == 1
    assert summary["n_malformed"] == 1 and summary["n_oversized"] == 0
    assert [r.get("reason") is not None for r in rows] == [False, False, True]
    assert all("ci95" in m for m in summary["metrics"].values())
    assert summary["metrics"]["recall"]["ci95"] is not None
    again = summarise(TaxoBench(), rows, files_manifest(pred), warn=False)
    extra = {"n_oversized", "n_unreadable_prediction_lines"}
    assert differences(again, {k: v for k, v in summary.items() if k not in extra}) == []
