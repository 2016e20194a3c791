"""SciNet on the one aggregation path (core.summarise): every summary key is a declared
`Measure`, the micro measures' aggregators reproduce the summary's pooled means (hand-computed
rows, both scoring variants), and each sub-task's summary — judged, upstream's rules, an LLM
agent's `agent_llm` — is rebuilt from scores.jsonl alone by a fresh benchmark that may not open
the graph (`scholarbench aggregate RUN --check`)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, Step
from test_scinet_engine import run_args, tiny  # noqa: F401  (fixture)
from test_scinet_llm import SETTINGS, client, env, fake  # noqa: F401  (fixtures)
from scholarbench.benchmarks.scinet.benchmark import SciNet
from scholarbench.benchmarks.scinet.measures import FAMILY_METRICS, MICRO, measures_of, metric_key
from scholarbench.benchmarks.scinet.scoring import summarise, variant_columns
from scholarbench.cli import main
from scholarbench.core.aggregate import rebuild
from scholarbench.core.measure import interval


def task_row(i, kind, distinct, empty=False, status="scored", **values):
    family = {"pncites": "pair", "cooccur": "pair", "path": "path"}[kind]
    return {"task_id": f"t{i}", "family": family, "kind": kind, "returned": distinct,
            "considered": distinct, "distinct": distinct, "in_graph": distinct,
            "not_in_graph": 0, "empty": empty, "missing_answer": False, "status": status,
            **values}


# the paper's rules: hits / distinct papers returned; an empty answer is 0 and adds nothing
PAPER_ROWS = [
    task_row(1, "pncites", 4, cite_acc=0.5, cite_acc_hits=2, cite_sentiment=0.25,
             cite_sentiment_hits=1),
    task_row(2, "pncites", 0, empty=True, cite_acc=0.0, cite_acc_hits=0, cite_sentiment=None),
    task_row(3, "pncites", 2, cite_acc=0.5, cite_acc_hits=1, cite_sentiment=0.0,
             cite_sentiment_hits=0),
    {"task_id": "t4", "family": "pair", "kind": "pncites", "missing_answer": True,
     "status": "error"},                                  # no result: in no mean
    task_row(5, "cooccur", 5, comention_acc=0.6, comention_acc_hits=3,
             comention_paragraph=None),
    task_row(6, "cooccur", 3, comention_acc=0.0, comention_acc_hits=0,
             comention_paragraph=2 / 3, comention_paragraph_hits=2),
]
PAPER_EXPECTED = {"cite_acc": 1 / 3, "cite_acc_micro": 3 / 6,          # (2+0+1) / (4+2)
                  "cite_sentiment": 0.125, "cite_sentiment_micro": 1 / 6,
                  "comention_acc": 0.3, "comention_acc_micro": 3 / 8,
                  "comention_paragraph": 2 / 3, "comention_paragraph_micro": 2 / 3}
# upstream's rules: every item counts (`<metric>_den`), repeats included; empty: 0 or null
UPSTREAM_ROWS = [
    task_row(1, "pncites", 3, cite_acc=0.4, cite_acc_hits=2, cite_acc_den=5,
             cite_sentiment=0.2, cite_sentiment_hits=1, cite_sentiment_den=5,
             variant="upstream"),
    task_row(2, "pncites", 0, empty=True, cite_acc=0.0, cite_sentiment=None,
             variant="upstream"),
    task_row(3, "pncites", 1, cite_acc=1.0, cite_acc_hits=1, cite_acc_den=1,
             cite_sentiment=0.0, cite_sentiment_hits=0, cite_sentiment_den=1,
             variant="upstream"),
]
UPSTREAM_EXPECTED = {"cite_acc(upstream=1)": 1.4 / 3,
                     "cite_acc_micro(upstream=1)": 3 / 6,      # not 3 / 4 (distinct)
                     "cite_sentiment(upstream=1)": 0.1,
                     "cite_sentiment_micro(upstream=1)": 1 / 6}
PATH_ROWS = [task_row(1, "path", 4, path_consistency=0.75, path_consistency_hits=3,
                      path_connectivity=1.0),
             task_row(2, "path", 6, path_consistency=0.5, path_consistency_hits=3,
                      path_connectivity=0.0),
             task_row(3, "path", 0, empty=True, path_consistency=0.0,
                      path_consistency_hits=0, path_connectivity=0.0)]
PATH_EXPECTED = {"path_consistency": 1.25 / 3, "path_consistency_micro": 6 / 10,
                 "path_connectivity": 1 / 3}


@pytest.mark.parametrize("rows, variant, expected", [
    (PAPER_ROWS, "paper", PAPER_EXPECTED), (UPSTREAM_ROWS, "upstream", UPSTREAM_EXPECTED),
    (PATH_ROWS, "paper", PATH_EXPECTED)])
def test_each_measure_reproduces_the_summary_by_hand(rows, variant, expected):
    family = rows[0]["family"]
    rows = [dict(r) for r in rows]
    variant_columns(rows, variant)              # as the scorer leaves them
    summary = summarise(rows, variant)
    declared = {m.key: m for m in measures_of(family, variant)}
    assert set(summary["metrics"]) == set(expected)
    for key, value in expected.items():
        assert summary["metrics"][key]["mean"] == pytest.approx(value, abs=1e-15), key
        # the declared measure, on the rows alone, gives the summary's number exactly
        assert declared[key].value(rows) == summary["metrics"][key]["mean"], key
        assert (declared[key].aggregator is not None) == key.split("(")[0].endswith("_micro")
    # resampled as itself: on tasks that all define it, the interval holds the pooled value
    micro = next(m for k, m in declared.items() if "_micro" in k)
    defined = [r for r in rows if not r.get("empty") and r["status"] == "scored"
               and r.get(micro.key.split("_micro")[0]) is not None] * 3
    low, high = interval(micro, defined)
    assert low <= micro.value(defined) <= high and micro.value(defined) == micro.value(rows)


def test_every_summary_key_is_a_declared_measure_of_its_variant():
    for variant in ("paper", "upstream"):
        bench = SciNet({"variant": variant})
        for family in ("ego", "pair", "path"):
            measures = bench.measures(family)
            keys = [m.key for m in measures]
            assert len(keys) == len(set(keys))
            micro = [k.split("_micro")[0] for k in keys if "_micro" in k]
            assert micro == [metric_key(m, variant).split("(")[0] for m in MICRO
                             if m in FAMILY_METRICS[family]]
            for m in measures:
                assert m.benchmark == "scinet" and m.label and m.description and m.unit
                assert m.judge == m.key.split("(")[0].endswith("_llm")
                source = m.provenance.removeprefix("scholarbench: the micro average of ")
                assert (source != m.provenance) == ("_micro" in m.key)
                if variant == "upstream":
                    assert m.key.endswith("(upstream=1)")
                    assert source.startswith("upstream variant: SciNet Evaluation/")
                else:
                    assert "(" not in m.key and source.startswith("paper §")
        assert {m.key for m in bench.measures(None)} == {
            m.key for f in ("ego", "pair", "path", "review") for m in bench.measures(f)}


# ---- runs rebuilt from their scores alone --------------------------------------------------------
@pytest.fixture
def no_data(tmp_path, monkeypatch):
    """An empty data directory, no key, and a graph that may not be opened."""
    empty = tmp_path / "empty-data"
    empty.mkdir()
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(empty))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    def refuse(self, settings=None):
        raise AssertionError("aggregate opened the citation graph")
    return lambda: monkeypatch.setattr(SciNet, "env", refuse)


def assert_rebuilt(run: Path, no_data, capsys) -> dict:
    own = json.loads((run / "summary.json").read_text())
    no_data()
    rebuilt, bench = rebuild(run)
    assert json.loads(json.dumps(rebuilt)) == own
    capsys.readouterr()
    assert main(["aggregate", str(run), "--check"]) == 0, capsys.readouterr().err
    declared = {m.key for m in bench.measures(own["mode"])}
    assert own["metrics"] and set(own["metrics"]) <= declared
    for key, entry in own["metrics"].items():
        assert "ci95" in entry, key
        if entry["n"] >= 2:      # a mean, or a micro average resampled over the tasks
            assert entry["ci95"] is not None, key     # defining it (Measure.defined_on)
        if entry["ci95"] is not None:
            low, high = entry["ci95"]
            assert low <= entry["mean"] <= high, key
    return own


@pytest.mark.parametrize("task, extra", [("ego", ()), ("pair", ()), ("path", ()),
                                         ("pair", ("--variant", "upstream"))])
def test_each_sub_task_is_rebuilt_from_its_scores(tiny, tmp_path, capsys, no_data,  # noqa: F811
                                                  task, extra):
    run = tmp_path / "run"
    assert main(run_args(tiny, task, "relation-aware", run, *extra)) == 0
    own = assert_rebuilt(run, no_data, capsys)
    micro = [k for k in own["metrics"] if "_micro" in k]
    assert bool(micro) == (task != "ego")
    assert all(k.endswith("(upstream=1)") for k in own["metrics"]) == bool(extra)


def test_a_judged_run_is_rebuilt_from_its_scores(tiny, tmp_path, capsys, no_data):  # noqa: F811
    server = FakeOpenAI().start()
    server.default = Step(text=json.dumps({"score": 6, "reasoning": "fine"}))
    run = tmp_path / "path"
    try:
        assert main(run_args(tiny, "path", "relation-aware", run, "--with-judge", "--judge",
                             "fake-judge", "--judge-base-url", server.base_url,
                             "--no-llm-cache")) == 0
    finally:
        server.stop()
    own = assert_rebuilt(run, no_data, capsys)
    assert own["metrics"]["path_rationality_llm"]["mean"] == 6
    assert own["families"]["path"]["judge"]["path_rationality_llm"]["judged"] > 0
    assert "path_rationality_llm" in own["without_flagged"]["metrics"]


def test_an_llm_agents_counts_come_from_the_rows(env, fake, tmp_path, capsys,  # noqa: F811
                                                 no_data):
    """`agent_llm` was kept on the benchmark between score() and aggregate(): a fresh instance
    lost it. Each row now carries its task's counts."""
    from scholarbench.benchmarks.scinet import SciNetRunConfig, run_scinet
    from scholarbench.benchmarks.scinet.records import write_tasks
    from scholarbench.benchmarks.scinet.tasks import build_tasks
    from scholarbench.llm.roles import LLMRoles
    fake.default = Step(text="not json")
    write_tasks(build_tasks(env, settings=SETTINGS), tmp_path / "tasks.jsonl")
    summary = run_scinet(SciNetRunConfig("pair", "deep-research", tmp_path / "r",
                                         tasks=tmp_path / "tasks.jsonl", env=env),
                         lambda need_agent, need_judge: LLMRoles(agent=client(fake, "agent")))
    n = summary["families"]["pair"]["n_tasks"]
    rows = [json.loads(x) for x in (tmp_path / "r" / "scores.jsonl").read_text().splitlines()]
    assert all(r["agent_llm"] == {"calls": 2, "failed": 0, "unscored": 1, "fallback": True,
                                  "stopped": "llm_failure"} for r in rows)
    own = assert_rebuilt(tmp_path / "r", no_data, capsys)
    assert own["agent_llm"] == {"calls": 2 * n, "failed": 0, "unscored": n,
                                "fallback_tasks": n, "stopped": {"llm_failure": n}}


# ---- `score scinet` on files: the same rows, the same summary -----------------------------------
def test_score_files_summary_is_the_runs(tiny, tmp_path, capsys):  # noqa: F811
    """An answers file scored on its own gets the run's summary function: its means and
    intervals equal those of the run whose answers it holds."""
    graph, unarxive, _ = tiny
    run = tmp_path / "run"
    assert main(run_args(tiny, "pair", "relation-aware", run)) == 0
    out = tmp_path / "s.jsonl"
    assert main(["score", "scinet", "--tasks", str(run / "tasks.jsonl"), "--answers",
                 str(run / "generate.jsonl"), "--out", str(out), "--graph", str(graph),
                 "--unarxive", str(unarxive)]) == 0
    own = json.loads((run / "summary.json").read_text())
    scored = json.loads(out.with_suffix(".summary.json").read_text())
    assert scored["metrics"] == own["metrics"]            # means, counts and ci95
    assert any(m["ci95"] for m in scored["metrics"].values())
    for key in ("status", "families", "variant", "n_unresolved", "n_refs", "ci_method",
                "summary_version", "n_suspected_injection", "complete"):
        assert scored[key] == own[key], key
    assert scored["agent"] is None and scored["run_name"] == "generate.jsonl"
    assert scored["unanswered_tasks"] == 0 and scored["malformed_answers"] == 0
