"""`--epochs K` (core.epochs): each sample solved K times with its epoch's seed, rows that say
their epoch, per-sample means over epochs, a cluster bootstrap by sample, the spread across
epochs beside each headline, resume keeping finished epochs, `aggregate --check`, and K = 1
leaving a run exactly as before.

What the interval does with K (docs/scores.md, "Epochs"): with per-sample means over K epochs
its variance is σ_b²/n + σ_w²/(K·n) (σ_b: between samples, σ_w: the agent's own, within a
sample), against (σ_b² + σ_w²)/n for one epoch — so it is NOT wider than a one-epoch run's; it
is wider than a bootstrap that took the K·n rows as independent samples, (σ_b² + σ_w²)/(K·n).
The tests check both, and the equality cases (an agent that ignores its seed: the same interval
as one epoch)."""
from __future__ import annotations

import json
import math
import statistics
import sys
from pathlib import Path

import numpy as np
import pytest

from test_engine import _cli, _site

PLUGINS = Path(__file__).parent / "plugins"

SEEDED_AGENT = '''
"""A scripted agent whose answer depends on the sample and the seed only (no model)."""
import hashlib
import os


def solve(task):
    seed = task.get("seed", 0)
    if os.environ.get("EPOCH_FAIL") == f"{task['id']}|{seed}":
        raise ConnectionError("endpoint unreachable")
    h = int(hashlib.sha256(f"{task['id']}|{seed}".encode()).hexdigest()[:8], 16)
    i = int(task["topic"].split()[-1])
    picked = [f"paper {i}-{j}" for j in range(3) if (h >> j) & 1]
    return {"papers": picked or ["nothing"]}


def fixed(task):
    """Ignores its seed: every epoch gives the same answer."""
    return solve({**task, "seed": 0})


SEEN = []


def recording(task):
    SEEN.append((task["id"], task.get("epoch"), task.get("seed")))
    return fixed(task)
'''


@pytest.fixture()
def toybench(monkeypatch, tmp_path):
    """The toy plug-in and the scripted agents, imported here; registrations undone after."""
    from scholarbench.core.registry import REGISTRY
    REGISTRY.load()
    monkeypatch.setattr(REGISTRY, "_entries", {k: dict(v) for k, v in REGISTRY._entries.items()})
    monkeypatch.setattr(REGISTRY, "_meta", dict(REGISTRY._meta))
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "seeded_agent.py").write_text(SEEDED_AGENT)
    monkeypatch.syspath_prepend(str(agents))
    monkeypatch.syspath_prepend(str(PLUGINS))
    for name in ("toybench", "seeded_agent"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    import toybench as module
    yield module
    sys.modules.pop("toybench", None)
    sys.modules.pop("seeded_agent", None)


def _items(path: Path, n: int = 20) -> Path:
    items = [{"id": f"t{i:02d}", "topic": f"topic {i}",
              "gold": [f"paper {i}-{j}" for j in range(3)]} for i in range(n)]
    path.write_text(json.dumps(items))
    return path


def _run(toybench, items: Path, out: Path, k: int, agent: str = "seeded_agent:solve"):
    from scholarbench.core.engine import run_benchmark
    bench = toybench.ToyBench({"items": str(items)})
    return bench, run_benchmark(bench, "rank", agent, out, progress=False, epochs=k)


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())


def _width(ci) -> float:
    return ci[1] - ci[0]


# -- the engine --------------------------------------------------------------------------------

def test_three_epochs_rows_seeds_means_spread_and_aggregate_check(toybench, tmp_path):
    from scholarbench.core.aggregate import aggregate_run
    from scholarbench.core.engine import format_outcome
    items = _items(tmp_path / "items.json")
    bench, outcome = _run(toybench, items, tmp_path / "k3", 3)
    assert outcome.exit_code == 0
    run = tmp_path / "k3"
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["epochs"] == {"k": 3, "seeds": [0, 1, 2]} and manifest["n_samples"] == 20
    gen = _jsonl(run / "generate.jsonl")
    assert len(gen) == 60
    assert {(g["id"], g["epoch"], g["seed"], g["sample"]) for g in gen if g["sample"] == "t03"} \
        == {("t03", 1, 0, "t03"), ("t03#2", 2, 1, "t03"), ("t03#3", 3, 2, "t03")}
    rows = _jsonl(run / "scores.jsonl")
    assert len(rows) == 60 and len({r["id"] for r in rows}) == 60
    assert sorted(r["epoch"] for r in rows if r["sample"] == "t07") == [1, 2, 3]

    # per-sample values are the means over epochs; the headline is their mean
    by_sample: dict[str, list[float]] = {}
    for r in rows:
        by_sample.setdefault(r["sample"], []).append(r["hit@3"])
    assert len(by_sample) == 20 and all(len(v) == 3 for v in by_sample.values())
    assert len({tuple(v) for v in by_sample.values()}) > 5          # answers vary by seed
    summary = _summary(run)
    hit = summary["metrics"]["hit@3"]
    assert hit["mean"] == pytest.approx(statistics.fmean(
        statistics.fmean(v) for v in by_sample.values()))
    assert hit["n"] == 20 and hit["n_null"] == 0                      # n counts samples
    assert summary["n_samples"] == 60 and summary["status"] == {"scored": 60}   # rows
    assert summary["ci_method"].startswith("percentile bootstrap over samples, each with all")

    # the spread: each epoch's own mean, their SD, the mean within-sample SD
    spread = summary["epochs"]["spread"]["hit@3"]
    epoch_means = [statistics.fmean(r["hit@3"] for r in rows if r["epoch"] == e)
                   for e in (1, 2, 3)]
    assert spread["by_epoch"] == pytest.approx(epoch_means)
    assert spread["sd_epochs"] == pytest.approx(statistics.stdev(epoch_means))
    assert spread["sd_within"] == pytest.approx(statistics.fmean(
        statistics.stdev(v) for v in by_sample.values()))
    assert summary["epochs"]["k"] == 3 and summary["epochs"]["n_samples"] == 20
    assert set(summary["epochs"]["spread"]) == set(summary["metrics"])   # every measure
    text = format_outcome(bench, outcome)
    assert "epochs: 3 (seeds 0, 1, 2) over 20 samples" in text
    assert f"hit@3 {spread['sd_epochs']:.4f}" in text

    assert aggregate_run(run, check=True) == 0
    before = (run / "summary.json").read_text()
    assert aggregate_run(run, check=False) == 0
    assert (run / "summary.json").read_text() == before               # byte for byte


def test_more_epochs_narrow_the_interval_of_an_agent_that_varies_by_seed(toybench, tmp_path):
    """The done-when's comparison, as it is true: the cluster interval of 3 epochs is narrower
    than 1 epoch's (the agent's noise is averaged within each sample), while the spread is now
    shown; an agent that ignores its seed gets exactly the one-epoch interval and no spread."""
    items = _items(tmp_path / "items.json")
    _run(toybench, items, tmp_path / "k1", 1)
    _run(toybench, items, tmp_path / "k3", 3)
    one, three = _summary(tmp_path / "k1"), _summary(tmp_path / "k3")
    assert "epochs" not in one
    for key in ("hit@3", "judged"):
        assert _width(three["metrics"][key]["ci95"]) < _width(one["metrics"][key]["ci95"])
        assert three["epochs"]["spread"][key]["sd_epochs"] > 0
    _run(toybench, items, tmp_path / "f1", 1, "seeded_agent:fixed")
    _run(toybench, items, tmp_path / "f3", 3, "seeded_agent:fixed")
    f1, f3 = _summary(tmp_path / "f1"), _summary(tmp_path / "f3")
    assert f3["metrics"] == f1["metrics"]                 # same means, counts, intervals
    assert all(s["sd_epochs"] == 0 and s["sd_within"] == 0
               for s in f3["epochs"]["spread"].values())


def test_the_seed_reaches_a_plain_callable_only_with_epochs(toybench, tmp_path):
    items = _items(tmp_path / "items.json", 2)
    import seeded_agent
    _run(toybench, items, tmp_path / "k1", 1, "seeded_agent:recording")
    assert sorted(seeded_agent.SEEN) == [("t00", None, None), ("t01", None, None)]
    seeded_agent.SEEN.clear()
    _run(toybench, items, tmp_path / "k2", 2, "seeded_agent:recording")
    assert sorted(seeded_agent.SEEN) == [("t00", 1, 0), ("t00", 2, 1), ("t01", 1, 0),
                                         ("t01", 2, 1)]     # the agent sees the sample's id


def test_an_errored_epoch_is_left_out_and_resume_redoes_only_it(toybench, tmp_path,
                                                                monkeypatch):
    from scholarbench.core.aggregate import aggregate_run
    from scholarbench.core.suite import run_entry
    items = _items(tmp_path / "items.json", 6)
    run = tmp_path / "k3"
    monkeypatch.setenv("EPOCH_FAIL", "t02|1")                 # epoch 2 of t02
    bench, outcome = _run(toybench, items, run, 3)
    assert outcome.exit_code == 3 and outcome.n_errors == 1
    summary = _summary(run)
    assert summary["status"] == {"scored": 17, "error": 1} and summary["complete"] is False
    rows = _jsonl(run / "scores.jsonl")
    t02 = {r["epoch"]: r for r in rows if r["sample"] == "t02"}
    assert t02[2]["status"] == "error" and t02[2]["hit@3"] is not None   # scored as empty
    # the errored epoch is no result: t02's value is the mean of its other two epochs
    from scholarbench.core.epochs import per_sample
    collapsed = {r["id"]: r for r in per_sample(rows, "id")}
    assert collapsed["t02"]["hit@3"] == pytest.approx((t02[1]["hit@3"] + t02[3]["hit@3"]) / 2)
    assert summary["metrics"]["hit@3"]["n"] == 6
    # every count agrees: summary, scores.jsonl, the eval table's entry
    entry = run_entry(bench, "rank", run)
    assert entry["counts"]["error"] == 1 and entry["counts"]["scored"] == 17
    assert entry["samples"] == 18 == summary["n_samples"] == len(rows)
    assert aggregate_run(run, check=True) == 0

    monkeypatch.delenv("EPOCH_FAIL")
    _, again = _run(toybench, items, run, 3)
    assert again.exit_code == 0
    gen = _jsonl(run / "generate.jsonl")
    assert len(gen) == 19 and gen[-1]["id"] == "t02#2"          # only that epoch redone
    assert _summary(run)["status"] == {"scored": 18}
    assert aggregate_run(run, check=True) == 0


def test_one_epoch_then_three_keeps_epoch_one(toybench, tmp_path):
    items = _items(tmp_path / "items.json", 5)
    run = tmp_path / "run"
    _run(toybench, items, run, 1)
    first = (run / "generate.jsonl").read_text().splitlines()
    _run(toybench, items, run, 3)
    gen = (run / "generate.jsonl").read_text().splitlines()
    assert gen[:5] == first and len(gen) == 15                 # epochs 2 and 3 added
    assert {json.loads(x)["epoch"] for x in gen[5:]} == {2, 3}
    # back to one epoch: the summary is the one-epoch run's again (basis differs: scored anew)
    _run(toybench, items, run, 1)
    assert _summary(run)["n_samples"] == 5 and "epochs" not in _summary(run)


def test_rescore_of_an_epochs_run_gives_the_same_scores(toybench, tmp_path):
    from scholarbench.core.engine import score_run
    items = _items(tmp_path / "items.json", 6)
    run = tmp_path / "k2"
    _run(toybench, items, run, 2)
    before = (run / "scores.jsonl").read_text(), (run / "summary.json").read_text()
    score_run(run, progress=False)
    assert ((run / "scores.jsonl").read_text(), (run / "summary.json").read_text()) == before


def test_one_epoch_leaves_the_run_as_before(toybench, tmp_path):
    """The default writes no epoch anywhere: not in the manifest, rows or summary."""
    items = _items(tmp_path / "items.json", 4)
    run = tmp_path / "k1"
    _run(toybench, items, run, 1)
    manifest = json.loads((run / "manifest.json").read_text())
    assert "epochs" not in manifest
    for name in ("generate.jsonl", "scores.jsonl"):
        assert not any({"epoch", "seed", "sample"} & set(r) for r in _jsonl(run / name))
    assert _summary(run)["ci_method"].startswith("percentile bootstrap over samples, 2000")


# -- the statistics, on rows alone ----------------------------------------------------------

def _rows(values: dict[str, list[float | None]], status: dict | None = None) -> list[dict]:
    out = []
    for sample, xs in values.items():
        for e, x in enumerate(xs, 1):
            out.append({"id": sample if e == 1 else f"{sample}#{e}", "sample": sample,
                        "epoch": e, "status": (status or {}).get((sample, e), "scored"),
                        "x": x})
    return out


def test_per_sample_means_by_hand():
    from scholarbench.core.epochs import per_sample
    rows = _rows({"a": [1.0, 0.0, 0.5], "b": [0.2, None, 0.4], "c": [0.9, 0.1, 0.3],
                  "d": [0.5, 0.5, 0.5]},
                 {("c", 1): "error", ("c", 2): "malformed", ("d", 1): "error",
                  ("d", 2): "error", ("d", 3): "error"})
    got = {r["id"]: r for r in per_sample(rows, "id")}
    assert got["a"]["x"] == pytest.approx(0.5)
    assert got["b"]["x"] == pytest.approx(0.3)          # an undefined epoch is left out
    assert got["c"]["x"] == pytest.approx(0.2)          # the errored epoch is; malformed counts
    assert got["c"]["status"] == "scored"               # mixed statuses: the sample counts
    assert got["d"] == {"id": "d", "status": "error"}   # no counted epoch: no result
    assert "epoch" not in got["a"] and "sample" not in got["a"]


def test_spread_by_hand():
    from scholarbench.core.epochs import spread
    rows = _rows({"a": [1.0, 0.0, 0.5], "b": [0.0, 0.0, 1.0]})
    got = spread(rows, "id", ["x"], lambda part: {"x": statistics.fmean(r["x"] for r in part)})
    assert got["x"]["by_epoch"] == [0.5, 0.0, 0.75]
    assert got["x"]["sd_epochs"] == pytest.approx(statistics.stdev([0.5, 0.0, 0.75]))
    assert got["x"]["sd_within"] == pytest.approx((0.5 + statistics.stdev([0, 0, 1])) / 2)


def test_the_interval_is_a_bootstrap_of_samples_with_all_their_epochs():
    """Drawn the explicit way — each resample a list of samples, each bringing every epoch
    row, the statistic the mean of the per-sample means — the percentile interval equals the
    summary's (the same draws: `scipy.stats.bootstrap`'s stream from the seed)."""
    from scholarbench.core.epochs import per_sample
    from scholarbench.core.measure import CI_RESAMPLES, CI_SEED, Measure, interval
    rng = np.random.default_rng(7)
    values = {f"s{i}": [float(v) for v in rng.random(3) + i % 4] for i in range(15)}
    rows = _rows(values)
    got = interval(Measure("toy", "x"), per_sample(rows, "id"))
    names = list(values)
    draws = np.random.default_rng(CI_SEED).integers(0, len(names), (CI_RESAMPLES, len(names)))
    theta = []
    for draw in draws:
        chosen = [[r["x"] for r in rows if r["sample"] == names[i]] for i in draw]
        theta.append(np.mean([np.mean(epochs) for epochs in chosen]))
    low, high = np.quantile(theta, [0.025, 0.975])
    assert got == pytest.approx([low, high], abs=1e-9)


def test_cluster_interval_is_wider_than_rows_taken_as_independent():
    """With samples that differ (σ_b > 0), treating the K·n rows as n·K independent samples
    understates the uncertainty; the cluster bootstrap does not (the variance formulas in the
    module docstring: σ_b²/n + σ_w²/(Kn) > (σ_b² + σ_w²)/(Kn) for K > 1)."""
    from scholarbench.core.epochs import per_sample
    from scholarbench.core.measure import Measure, interval
    rng = np.random.default_rng(11)
    base = rng.normal(0, 1, 40)                               # σ_b = 1
    rows = _rows({f"s{i}": [float(b + rng.normal(0, 0.5)) for _ in range(3)]
                  for i, b in enumerate(base)})               # σ_w = 0.5
    cluster = interval(Measure("toy", "x"), per_sample(rows, "id"))
    naive = interval(Measure("toy", "x"), rows)
    assert _width(cluster) > 1.3 * _width(naive)             # expected ratio ≈ 1.6
    # and the same number, computed the long way: K=3 halves σ_w²'s share, not σ_b²'s
    expected = math.sqrt((1 + 0.25 / 3) / ((1 + 0.25) / 3))
    assert _width(cluster) / _width(naive) == pytest.approx(expected, rel=0.3)


# -- the command line --------------------------------------------------------------------------

def test_bad_epochs_is_one_line_and_exit_2(tmp_path):
    site = _site(tmp_path)
    got = _cli(["run", "toybench", "--task", "rank", "--agent", "toy-echo", "--epochs", "0",
                "--out", "runs/x", "--quiet"], site, tmp_path)
    assert got.returncode == 2
    assert got.stderr.strip().splitlines() == [
        "error: --epochs must be a whole number >= 1 (got 0)"]
    assert not (tmp_path / "runs/x").exists()


def test_the_endpoint_agent_asks_a_new_seed_per_epoch():
    from types import SimpleNamespace
    from scholarbench.core.agent import AgentContext
    from scholarbench.core.endpoint import request_seed
    llm = SimpleNamespace(config=SimpleNamespace(seed=7))
    assert request_seed(AgentContext("toybench", llm=llm)) is None           # no epochs
    assert request_seed(AgentContext("toybench", llm=llm, seed=0, epoch=1)) is None
    assert request_seed(AgentContext("toybench", llm=llm, seed=2, epoch=3)) == 9
    unseeded = SimpleNamespace(config=SimpleNamespace(seed=None))
    assert request_seed(AgentContext("toybench", llm=unseeded, seed=1, epoch=2)) == 1


def test_the_eval_table_shows_the_spread_beside_each_headline():
    from scholarbench.core.suite import format_table
    entry = {"benchmark": "toybench", "subtask": "rank", "status": "complete", "samples": 6,
             "counts": {"scored": 6}, "reasons": {}, "headline": {"hit@3": 0.5, "f1": 0.6},
             "headline_ci95": {"hit@3": [0.4, 0.6], "f1": [0.5, 0.7]},
             "epochs": {"k": 3, "spread": {"hit@3": {"sd_epochs": 0.0123},
                                           "f1": {"sd_epochs": None}}}}
    table = format_table([entry])
    assert "hit@3 0.5000 ±0.1000 (epoch sd 0.0123)" in table
    assert "f1 0.6000 ±0.1000\n" in table                # no spread: nothing shown
    assert "epoch sd = the SD of the epoch means (--epochs K)" in table


def test_dry_run_counts_each_epoch(toybench, tmp_path):
    from scholarbench.core.dry_run import plan_of_run
    bench = toybench.ToyBench({"items": str(_items(tmp_path / "items.json", 4))})
    one = plan_of_run(bench, "rank", "endpoint", {}, None, [], 1)
    three = plan_of_run(bench, "rank", "endpoint", {}, None, [], 1, 3)
    assert one[0] == "toybench rank: 4 samples" and three[0] == "toybench rank: 12 samples"
    assert "≤ 4 calls" in one[1] and "≤ 12 calls" in three[1]     # the endpoint agent's


def test_a_real_benchmark_with_two_epochs(tmp_path, capsys, monkeypatch):
    """TaxoBench (real data) with its deterministic `cluster` agent, which ignores the seed:
    two epochs give rows per epoch, the one-epoch run's metrics and intervals, a zero spread,
    and `score` and `aggregate --check` reproduce the run."""
    from conftest import shared_path
    from scholarbench.cli import main
    from scholarbench.core.aggregate import aggregate_run
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "data"))     # its own data dir
    src = shared_path("data", "taxobench", "taxobench_5_instances.jsonl")
    assert main(["data", "import", "taxobench", str(src)]) == 0
    runs = {}
    for k in (1, 2):
        runs[k] = out = tmp_path / f"k{k}"
        assert main(["run", "taxobench", "--mode", "bottom-up", "--agent", "cluster",
                     "--limit", "2", "--epochs", str(k), "--out", str(out)]) == 0
    rows = _jsonl(runs[2] / "scores.jsonl")
    assert [(r["sample"], r["epoch"]) for r in rows] == [
        (rows[0]["sample"], 1), (rows[1]["sample"], 1), (rows[0]["sample"], 2),
        (rows[1]["sample"], 2)]
    one, two = _summary(runs[1]), _summary(runs[2])
    assert two["metrics"] == one["metrics"]
    assert all(s["sd_epochs"] in (0, None) for s in two["epochs"]["spread"].values())
    assert "epochs: 2 (seeds 0, 1) over 2 samples" in capsys.readouterr().out
    before = (runs[2] / "scores.jsonl").read_text()
    assert main(["score", str(runs[2])]) == 0
    assert (runs[2] / "scores.jsonl").read_text() == before
    assert aggregate_run(runs[2], check=True) == 0


def test_the_report_shows_each_epoch_and_the_spread_of_an_epochs_run(toybench, tmp_path):
    """`report`: a run of 3 epochs gets an Epochs table — each measure's mean and interval,
    its value per epoch, the SD of those and the within-sample SD, as summary.json holds them;
    a run of one epoch gets none."""
    from scholarbench.report.exports import leaderboard_text
    from scholarbench.report.html import render_html_report
    from scholarbench.report.sections.base import load_report_runs
    items = _items(tmp_path / "items.json")
    _run(toybench, items, tmp_path / "k3", 3)
    _run(toybench, items, tmp_path / "k1", 1)
    spread = _summary(tmp_path / "k3")["epochs"]["spread"]["hit@3"]
    hit = _summary(tmp_path / "k3")["metrics"]["hit@3"]
    runs = load_report_runs([tmp_path / "k3", tmp_path / "k1"])
    text = leaderboard_text(runs, "markdown")
    assert ("### Epochs — seeded\\_agent:solve in k3 (toybench rank): 3 epochs of 20 samples, "
            "seeds 0, 1, 2") in text
    row = next(line for line in text.splitlines() if line.startswith("| hit@3 |"))
    cells = [c.strip().replace("\\", "") for c in row.strip("|").split("|")]   # md escapes
    assert cells[1:3] == [f"{hit['mean']:.4f}", f"[{hit['ci95'][0]:.4f}, {hit['ci95'][1]:.4f}]"]
    assert cells[3:6] == [f"{v:.4f}" for v in spread["by_epoch"]]
    assert cells[6:8] == [f"{spread['sd_epochs']:.4f}", f"{spread['sd_within']:.4f}"]
    assert " in k1 (" not in text
    html = render_html_report(runs)
    assert '<section class="epochs">' in html and "in k3 (toybench rank)" in html
    only_one = render_html_report(load_report_runs([tmp_path / "k1"]))
    assert '<section class="epochs">' not in only_one
