"""Judge panels and repeats (issue 27) on TaxoBench's 4-dimension judge and DeepSynth-Eval's
checklist judge: two scripted judges on loopback that disagree in a known way, every number
computed by hand here (per-judge means, the panel's value, Krippendorff's α, repeat spread), a
judge failing on one item (unscored for that judge only), `aggregate --check`, the command
line (`--judge` pairs, `--judge-samples`, a named panel)."""
from __future__ import annotations

import json
import re
import statistics

import pytest

from conftest import FakeEmbedder, use_fake_embedder
from fake_openai import FakeOpenAI, Step
from test_deepsynth_oracle import judge_labels, write_tasks
from test_judge_panel import alpha_by_hand
from scholarbench import cli
from scholarbench.data.demo import demo_records
from scholarbench.llm.client import ChatClient
from scholarbench.llm.config import ModelConfig

DIMS = ("semantic_coverage", "sibling_organization", "hierarchical_logic", "structural_topology")
KEYS = ("judge_coverage", "judge_organization", "judge_logic", "judge_topology", "judge_avg")
# TaxoBench: every dimension of sample i gets this score (so judge_avg is it too);
# judge "a" by seed (repeat 0 asks with seed 0, repeat 1 with seed 1), judge "b" whatever seed
A_SCORES = {0: [2, 4, 5], 1: [4, 4, 3]}
B_SCORES = [3, 5, 5]


def rows_of(out):
    return [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]


def manifest_of(out):
    return json.loads((out / "manifest.json").read_text())


def client(fake, name: str) -> ChatClient:
    config = ModelConfig(role="judge", model=name, base_url=fake.base_url,
                         api_key_env="FAKE_KEY_FOR_TESTS", timeout=5.0, max_retries=0)
    return ChatClient(config, retry_wait=(0.01, 0.05))


# ---------------------------------------------------------------------------------- TaxoBench
def solve(task: dict) -> dict:
    """A plain-function agent: one taxonomy per sample, named by the sample's index."""
    i = int(task["id"]) - 1
    return {"taxonomy": {"name": task["topic"], "subtopics": [
        {"name": f"Marker{i} methods", "papers": ["1"]}, {"name": "Other", "papers": ["2"]}]}}


def marker(body) -> int:
    return int(re.search(r"Marker(\d)", body["messages"][1]["content"])[1])


def taxo_reply(score: int) -> Step:
    return Step(text=json.dumps({d: {"score": score, "reasoning": "r"} for d in DIMS}))


@pytest.fixture
def taxo_judges():
    a = FakeOpenAI(default=lambda b: taxo_reply(A_SCORES[b.get("seed") or 0][marker(b)])).start()
    b = FakeOpenAI(default=lambda body: taxo_reply(B_SCORES[marker(body)])).start()
    yield a, b
    a.stop()
    b.stop()


@pytest.fixture
def gold(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in demo_records()))
    return path


def taxo_run(tmp_path, gold, judges, samples=1, out="run"):
    from scholarbench.benchmarks.taxobench.runner import RunConfig, run
    summary = run(RunConfig(gold, "bottom-up", f"{__name__}:solve", tmp_path / out,
                            progress=False, judge=judges, judge_samples=samples),
                  FakeEmbedder())
    return summary, tmp_path / out


def test_taxobench_two_judges_per_judge_values_panel_mean_and_alpha(tmp_path, gold,
                                                                    taxo_judges):
    a, b = taxo_judges
    summary, out = taxo_run(tmp_path, gold, [client(a, "judge-a"), client(b, "judge-b")])
    rows = rows_of(out)
    for row, x, y in zip(rows, A_SCORES[0], B_SCORES):
        assert row["judges"] == {"judge-a": {**{k: x for k in KEYS},
                                             **{f"{k}_unscored": 0 for k in KEYS}},
                                 "judge-b": {**{k: y for k in KEYS},
                                             **{f"{k}_unscored": 0 for k in KEYS}}}
        assert all(row[k] == (x + y) / 2 for k in KEYS)       # the panel: the judges' mean
        assert row["judge_unscored"] is None
    assert summary["metrics"]["judge_avg"]["mean"] == pytest.approx((2.5 + 4.5 + 5) / 3)
    panel = summary["judge_panel"]["judge_avg"]
    assert panel["judge-a"]["mean"] == pytest.approx(11 / 3) and panel["judge-a"]["n"] == 3
    assert panel["judge-b"]["mean"] == pytest.approx(13 / 3)
    # α by hand, interval, 2 judges × 3 samples, a = [2, 4, 5], b = [3, 5, 5] (n = 6 values):
    # D_o = 2/(n(m-1)) · Σ_units (a-b)² = 2/6 · (1 + 1 + 0) = 2/3
    # D_e = 2/(n(n-1)) · Σ_pairs of the 6 values (2,3,4,5,5,5) of (x-y)² = 2/30 · 48 = 16/5
    # α = 1 - D_o/D_e = 1 - (2/3)/(16/5) = 19/24
    agreement = summary["judge_agreement"]["judge_avg"]
    assert agreement["alpha"] == pytest.approx(19 / 24) == pytest.approx(
        alpha_by_hand([A_SCORES[0], B_SCORES]))
    assert agreement["n_judges"] == 2 and agreement["level"] == "interval"
    assert set(summary["judge_agreement"]) == set(KEYS)
    from scholarbench.benchmarks.taxobench.scoring import format_summary
    assert "judges judge_avg: α 0.792 between 2 judges; judge-a 3.6667 (n=3); " \
        "judge-b 4.3333 (n=3)" in format_summary(summary)
    # each judge asked once per sample at its own endpoint; models, usage, identity per judge
    assert len(a.requests) == len(b.requests) == 3
    manifest = manifest_of(out)
    assert manifest["llm_usage"]["judge"]["calls"] == manifest["llm_usage"]["judge_2"]["calls"] \
        == 3
    assert [(j["label"], j["role"]) for j in manifest["judged"]["judge"]["judges"]] == \
        [("judge-a", "judge"), ("judge-b", "judge_2")]
    assert [(p["label"], p["seeds"]) for p in summary["judge"]["panel"]] == \
        [("judge-a", [0]), ("judge-b", [0])]
    assert summary["judge"]["samples"] == 1 and summary["judge"]["prompt"]
    records = [json.loads(x) for x in (out / "judge.judge.jsonl").read_text().splitlines()]
    assert sorted((r["id"], r["judge"], r["repeat"]) for r in records) == \
        sorted((str(i), j, 0) for i in (1, 2, 3) for j in ("judge-a", "judge-b"))
    assert cli.main(["aggregate", str(out), "--check"]) == 0


def test_taxobench_repeats_from_the_command_line(tmp_path, gold, taxo_judges, monkeypatch,
                                                 capsys):
    """`run taxobench --judge A … --judge B … --judge-samples 2`: every judge twice per sample,
    repeat 1 with seed 1; each repeat's value kept; spread and α across repeats by hand."""
    use_fake_embedder(monkeypatch)
    a, b = taxo_judges
    out = tmp_path / "cli"
    assert cli.main(["run", "taxobench", "--mode", "bottom-up", "--agent", f"{__name__}:solve",
                     "--gold", str(gold), "--with-judge", "--out", str(out), "--quiet",
                     "--no-llm-cache", "--judge", "judge-a", "--judge-base-url", a.base_url,
                     "--judge", "judge-b", "--judge-base-url", b.base_url,
                     "--judge-samples", "2"]) == 0
    assert "judges judge_avg: α" in capsys.readouterr().out
    assert sorted((r.get("seed"), marker(r)) for r in a.requests) == \
        [(s, i) for s in (0, 1) for i in range(3)]
    assert len(b.requests) == 6
    rows = rows_of(out)
    assert [r["judges"]["judge-a"]["judge_avg_samples"] for r in rows] == \
        [list(p) for p in zip(*A_SCORES.values())]
    a_means = [statistics.mean(p) for p in zip(*A_SCORES.values())]          # 3, 4, 4
    assert [r["judges"]["judge-a"]["judge_logic"] for r in rows] == a_means
    assert [r["judge_avg"] for r in rows] == [(x + y) / 2 for x, y in zip(a_means, B_SCORES)]
    summary = json.loads((out / "summary.json").read_text())
    panel = summary["judge_panel"]["judge_avg"]
    # spread: the mean over samples of the repeats' sd: sd(2,4) = √2, sd(4,4) = 0, sd(5,3) = √2
    assert panel["judge-a"]["spread"] == pytest.approx(2 * 2 ** .5 / 3)
    assert panel["judge-a"]["repeats"] == 2 and panel["judge-a"]["spread_n"] == 3
    assert panel["judge-b"]["spread"] == 0
    # α across a's repeats, [2, 4, 5] vs [4, 4, 3]: values 2,4,5,4,4,3 (n = 6);
    # D_o = 2/6 · (4 + 0 + 4) = 8/3; D_e = 2/30 · Σ_pairs (x-y)² over 2,3,4,4,4,5
    #     = 2/30 · (1 + 3·4 + 9 + 3·1 + 4 + 0 + 3·1) = 2/30 · 32 = 32/15;
    # α = 1 - (8/3)/(32/15) = 1 - 5/4 = -1/4 (a disagrees with itself more than chance)
    assert panel["judge-a"]["alpha_repeats"] == pytest.approx(-1 / 4) == pytest.approx(
        alpha_by_hand([A_SCORES[0], A_SCORES[1]]))
    assert summary["judge_agreement"]["judge_avg"]["alpha"] == pytest.approx(
        alpha_by_hand([a_means, B_SCORES]))
    assert summary["judge"]["samples"] == 2
    assert [(p["label"], p["model_id"], p["seeds"], p["temperature"])
            for p in summary["judge"]["panel"]] == \
        [("judge-a", f"{a.base_url}|judge-a", [0, 1], 0.0),
         ("judge-b", f"{b.base_url}|judge-b", [0, 1], 0.0)]
    assert cli.main(["aggregate", str(out), "--check"]) == 0


def test_taxobench_a_failing_judge_is_unscored_for_that_judge_only(tmp_path, gold,
                                                                  taxo_judges):
    a, b = taxo_judges
    b.default = lambda body: (Step(text="no idea") if marker(body) == 1
                              else taxo_reply(B_SCORES[marker(body)]))
    summary, out = taxo_run(tmp_path, gold, [client(a, "judge-a"), client(b, "judge-b")])
    row = rows_of(out)[1]
    assert row["judges"]["judge-b"] == {**{k: None for k in KEYS},
                                        **{f"{k}_unscored": 1 for k in KEYS}}
    assert row["judges"]["judge-a"]["judge_avg"] == 4
    assert row["judge_avg"] == 4 and row["judge_unscored"] is None      # a's value stands
    panel = summary["judge_panel"]["judge_avg"]
    assert (panel["judge-b"]["mean"], panel["judge-b"]["n"], panel["judge-b"]["n_null"]) == \
        (pytest.approx(4), 2, 1)
    assert summary["metrics"]["judge_avg"]["n"] == 3
    assert summary["metrics"]["judge_avg"]["n_unscored"] == 0    # no sample left without value
    # α over the samples both judges rated (the missing rating is not a zero)
    assert summary["judge_agreement"]["judge_avg"]["alpha"] == pytest.approx(
        alpha_by_hand([[2, 5], [3, 5]]))
    assert len(b.requests) == 2 + 2                         # the failing sample: one repair
    assert cli.main(["aggregate", str(out), "--check"]) == 0


def test_taxobench_one_judge_once_is_as_before(tmp_path, gold, taxo_judges):
    a, _ = taxo_judges
    summary, out = taxo_run(tmp_path, gold, client(a, "judge-a"))
    rows = rows_of(out)
    assert [r["judge_avg"] for r in rows] == A_SCORES[0]
    assert not any("judges" in r for r in rows)
    assert "judge_panel" not in summary and "judge_agreement" not in summary
    manifest = manifest_of(out)
    assert "panel" not in summary["judge"] and "judges" not in manifest.get("models", {})
    assert all("seed" not in r or r["seed"] == 0 for r in a.requests)
    records = [json.loads(x) for x in (out / "judge.judge.jsonl").read_text().splitlines()]
    assert all(r["judge"] == "judge-a" and r["repeat"] == 0 for r in records)


# ----------------------------------------------------------------------------- DeepSynth-Eval
REPORTS = {"7": "Widget transformers and widget graphs.",
           "8": "Gadget pooling and the limitations of gadget methods, organised by input type."}


def write_report(task: dict) -> dict:
    """A plain-function agent: a fixed report per task."""
    return {"report": REPORTS[task["id"]], "cited": []}


def labels_reply(labels) -> Step:
    return Step(text="```json\n" + json.dumps(labels) + "\n```")


def harsh(prompt: str) -> list[str]:
    """Judge b: what a calls not mentioned, b calls incorrect."""
    return ["mentioned_incorrect" if x == "not_mentioned" else x for x in judge_labels(prompt)]


def a_judge(body) -> Step:
    """Judge a: repeat 0 labels by key word (`judge_labels`); repeat 1 (seed 1) calls every
    requirement correct."""
    prompt = body["messages"][0]["content"]
    labels = judge_labels(prompt)
    return labels_reply(["mentioned_correct"] * len(labels) if body.get("seed") else labels)


@pytest.fixture
def ds_judges(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    a = FakeOpenAI(default=a_judge).start()
    b = FakeOpenAI(default=lambda body: labels_reply(harsh(body["messages"][0]["content"])))
    b.start()
    yield a, b
    a.stop()
    b.stop()


def ds_run(tmp_path, a, b, *extra: str, out: str = "runs/ds") -> tuple[dict, object]:
    tasks = write_tasks(tmp_path / "tasks.jsonl")
    assert cli.main(["run", "deepsynth", "--agent", f"{__name__}:write_report", "--tasks",
                     str(tasks), "--corpus", "none", "--oracle", "none", "--out", out,
                     "--quiet", "--judge", "judge-a", "--judge-base-url", a.base_url,
                     "--judge", "judge-b", "--judge-base-url", b.base_url, *extra]) == 0
    return json.loads((tmp_path / out / "summary.json").read_text()), tmp_path / out


# Hand scores (the checklist of test_deepsynth_oracle: group Methods, general, clip 1.0, three
# requirements T1 transformers, T2 pooling, G1 graphs; group Structure, strict, clip 0.8, S1
# input type, S2 limitations; Score_k = min(1, S_k / (clip · N_k)), Overall = mean of the two):
# task 7 (transformers, graphs)   a: c nm c | nm nm → Methods 2/3, Structure 0    → Overall 1/3
#                                 b: c i  c | i  i  → Methods 1/3, Structure -2/1.6 = -5/4
#                                                     → Overall (1/3 - 5/4)/2 = -11/24
# task 8 (pooling, limitations, input type)
#                                 a: nm c nm | c c  → Methods 1/3, Structure min(1, 2/1.6) = 1
#                                                     → Overall 2/3
#                                 b: i  c i  | c c  → Methods -1/3, Structure 1 → Overall 1/3
A_OVERALL, B_OVERALL = [1 / 3, 2 / 3], [-11 / 24, 1 / 3]
OVERALL = "dse_overall"


def test_deepsynth_two_judges_scores_per_judge_panel_precision_and_alpha(tmp_path, ds_judges,
                                                                         capsys):
    a, b = ds_judges
    summary, out = ds_run(tmp_path, a, b)
    assert "judges dse_overall: α 0.193 between 2 judges" in capsys.readouterr().out
    rows = {r["task_id"]: r for r in rows_of(out)}
    for i, task in enumerate((7, 8)):
        judges = rows[task]["judges"]
        assert judges["judge-a"][OVERALL] == pytest.approx(A_OVERALL[i])
        assert judges["judge-b"][OVERALL] == pytest.approx(B_OVERALL[i])
        assert rows[task][OVERALL] == pytest.approx((A_OVERALL[i] + B_OVERALL[i]) / 2)
        assert judges["judge-a"][f"{OVERALL}_unscored"] == 0
        assert f"{OVERALL}_samples" not in judges["judge-a"]
    assert rows[7]["judges"]["judge-b"]["dse_constraint"] == pytest.approx(-5 / 4)
    assert rows[7]["dse_general"] == pytest.approx((2 / 3 + 1 / 3) / 2)
    # the row's label counts are over both judges' judgements (2 × 5 requirements)
    assert (rows[7]["n_correct"], rows[7]["n_incorrect"], rows[7]["n_not_mentioned"],
            rows[7]["n_unscored"]) == (4, 3, 3, 0)
    assert summary["metrics"][OVERALL]["mean"] == pytest.approx(
        statistics.mean((x + y) / 2 for x, y in zip(A_OVERALL, B_OVERALL)))
    panel = summary["judge_panel"]
    assert panel[OVERALL]["judge-a"]["mean"] == pytest.approx(1 / 2)
    assert panel[OVERALL]["judge-b"]["mean"] == pytest.approx(-1 / 16)
    # precision per judge, pooled over its labels: a 5 correct / 5 mentioned, b 5 / 10; the
    # panel's is their mean (0.75), not the pool of both judges' labels (10/15)
    assert panel["dse_precision"]["judge-a"]["mean"] == 1.0
    assert panel["dse_precision"]["judge-b"]["mean"] == 0.5
    assert summary["metrics"]["dse_precision"]["mean"] == pytest.approx(0.75)
    # α by hand on Overall, in 24ths: a = [8, 16], b = [-11, 8] (n = 4 values):
    # D_o = 2/(4·1) · ((8+11)² + (16-8)²) = (361 + 64)/2 = 212.5
    # D_e = 2/(4·3) · Σ_pairs (x-y)² over 8,16,-11,8 = (64 + 361 + 0 + 729 + 64 + 361)/6
    #     = 1579/6;  α = 1 - 212.5/(1579/6) = 1 - 1275/1579 = 304/1579
    agreement = summary["judge_agreement"][OVERALL]
    assert agreement["alpha"] == pytest.approx(304 / 1579) == pytest.approx(
        alpha_by_hand([A_OVERALL, B_OVERALL]))
    assert "dse_precision" not in summary["judge_agreement"]     # one value per judge
    manifest = manifest_of(out)
    assert [(p["label"], p["seeds"]) for p in manifest["judged"]["checklist"]["judges"]] == \
        [("judge-a", [0]), ("judge-b", [0])]
    assert [j["role"] for j in manifest["judged"]["checklist"]["judges"]] == ["judge", "judge_2"]
    # 2 tasks × 3 sub-groups with requirements, per judge
    assert manifest["llm_usage"]["judge"]["calls"] == manifest["llm_usage"]["judge_2"]["calls"] \
        == 6 == len(a.requests) == len(b.requests)
    assert summary["judge"]["calls"] == 12
    assert cli.main(["aggregate", str(out), "--check"]) == 0
    # the report's Judges part reads the same blocks (report/judges.py)
    from scholarbench.report.exports import leaderboard_text
    from scholarbench.report.sections import load_report_run
    flat = " ".join(leaderboard_text([load_report_run(out)], "terminal").split())
    assert "judge-b" in flat and f"{304 / 1579:.3f}" in flat
    # re-scored from the files (no judge given): the same summary, no request
    assert cli.main(["score", str(out)]) == 0
    assert json.loads((out / "summary.json").read_text()) == summary
    assert len(a.requests) == len(b.requests) == 6


def test_deepsynth_repeats_from_a_named_panel(tmp_path, ds_judges):
    """`score RUN --with-judge --judge-panel two` (samples = 2 in the config file): repeat 1
    sends seed 1 and is kept beside repeat 0; its spread by hand."""
    a, b = ds_judges
    _, out = ds_run(tmp_path, a, b)
    toml = tmp_path / "scholarbench.toml"
    toml.write_text(f'[panel.two]\nsamples = 2\njudges = [\n'
                    f'  {{model = "judge-a", base_url = "{a.base_url}"}},\n'
                    f'  {{model = "judge-b", base_url = "{b.base_url}"}},\n]\n')
    before = len(a.requests)
    assert cli.main(["score", str(out), "--with-judge", "--quiet", "--llm-config", str(toml),
                     "--judge-panel", "two"]) == 0
    seeds = sorted(r.get("seed") for r in a.requests[before:])
    assert seeds == [1] * 6            # repeat 0 answered from the reply cache of the run
    rows = {r["task_id"]: r for r in rows_of(out)}
    # a's repeat 1 calls everything correct: Methods 1, Structure min(1, 2/1.6) = 1 → 1
    assert rows[7]["judges"]["judge-a"][f"{OVERALL}_samples"] == [pytest.approx(1 / 3), 1.0]
    assert rows[8]["judges"]["judge-a"][f"{OVERALL}_samples"] == [pytest.approx(2 / 3), 1.0]
    assert rows[7]["judges"]["judge-a"][OVERALL] == pytest.approx(2 / 3)
    summary = json.loads((out / "summary.json").read_text())
    entry = summary["judge_panel"][OVERALL]["judge-a"]
    # sd of two values = |x - y|/√2: (2/3)/√2 and (1/3)/√2, mean (1/2)/√2 = √2/4
    assert entry["spread"] == pytest.approx(2 ** .5 / 4) and entry["repeats"] == 2
    assert summary["judge_panel"][OVERALL]["judge-b"]["spread"] == 0
    manifest = manifest_of(out)
    assert manifest["judged"]["checklist"]["repeats"] == 2
    assert manifest["judged"]["checklist"]["judges"][0]["seeds"] == [0, 1]
    assert cli.main(["aggregate", str(out), "--check"]) == 0


def test_deepsynth_a_failing_judge_is_unscored_for_that_judge_only(tmp_path, ds_judges):
    """b never gives a usable reply on task 8's Structure sub-group: those two requirements are
    unscored for b only; b's task 8 is its Methods score, a's stands whole."""
    a, b = ds_judges

    def flaky(body):
        prompt = body["messages"][0]["content"]
        if REPORTS["8"] in prompt and "Organises widget methods" in prompt:
            return Step(text="no idea")
        return labels_reply(harsh(prompt))
    b.default = flaky
    summary, out = ds_run(tmp_path, a, b)
    row = {r["task_id"]: r for r in rows_of(out)}[8]
    mine = row["judges"]["judge-b"]
    assert mine["dse_constraint"] is None and mine["dse_constraint_unscored"] == 2
    assert mine[OVERALL] == pytest.approx(-1 / 3) and mine[f"{OVERALL}_unscored"] == 2
    assert mine["dse_general_unscored"] == 0
    assert row["judges"]["judge-a"][f"{OVERALL}_unscored"] == 0
    assert row["dse_constraint"] == 1.0                      # a's alone
    assert row[OVERALL] == pytest.approx((2 / 3 - 1 / 3) / 2)
    assert row["n_unscored"] == 2 and row["status"] == "scored"
    assert row["unscored_reasons"] == {"unscored_by_judge": 2}
    assert summary["judge"]["unscored_reasons"] == {"invalid_json": 2}
    assert cli.main(["aggregate", str(out), "--check"]) == 0


def test_deepsynth_precision_of_a_panel_is_the_judges_mean():
    from scholarbench.benchmarks.deepsynth.measures import pooled_precision
    rows = [{"n_correct": 3, "n_incorrect": 1,
             "judges": {"x": {"n_correct": 2, "n_incorrect": 0},
                        "y": {"n_correct": 1, "n_incorrect": 1}}},
            {"n_correct": 1, "n_incorrect": 1,
             "judges": {"x": {"n_correct": 0, "n_incorrect": 0},
                        "y": {"n_correct": 1, "n_incorrect": 1}}}]
    assert pooled_precision("paper")(rows) == pytest.approx((1.0 + 0.5) / 2)
    assert pooled_precision("paper")([{k: v for k, v in r.items() if k != "judges"}
                                      for r in rows]) == pytest.approx(4 / 6)
