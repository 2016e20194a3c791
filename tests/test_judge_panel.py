"""Judge panels, repeats and agreement (issue 27's first slice) on SciNet's judged measure
`path_rationality_llm`: two scripted judges on loopback that disagree in a known way, the
numbers computed by hand here (Krippendorff's α from its definition, means, spreads, Kendall τ
from concordant pairs), a judge failing on one item, `aggregate --check`, the flags."""
from __future__ import annotations

import json
import re
import statistics
from itertools import combinations

import pytest

from fake_openai import FakeOpenAI, Step
from test_scinet_core import A, C, D, tiny_env
from scholarbench.benchmarks.scinet import SciNetRunConfig, format_summary, run_scinet
from scholarbench.benchmarks.scinet.records import SciNetTask, write_tasks
from scholarbench.metrics.agreement import krippendorff_alpha, per_judge_of, rank_agreement
from scholarbench.llm.client import ChatClient
from scholarbench.llm.config import ModelConfig
from scholarbench.llm.roles import LLMRoles

M = "path_rationality_llm"
# the judges' scores of tasks 0, 1, 2 (judge "a" per seed: repeat 0 asks with seed 0, 1 with 1)
A_SCORES = {0: [2, 4, 6], 1: [4, 4, 6]}
B_SCORES = [3, 4, 8]


def alpha_by_hand(coders: list[list[float]]) -> float:
    """Interval α with no missing value: 1 - D_o / D_e (Krippendorff 2011, §C)."""
    units = list(zip(*coders))
    values = [v for u in units for v in u]
    n, m = len(values), len(coders)
    d_o = sum((x - y) ** 2 for u in units for x, y in combinations(u, 2)) * 2 / (m - 1) / n
    d_e = sum((x - y) ** 2 for x, y in combinations(values, 2)) * 2 / (n * (n - 1))
    return 1 - d_o / d_e


def tau_by_hand(x: list[float], y: list[float]) -> float:
    pairs = list(combinations(range(len(x)), 2))
    sign = [(x[i] - x[j]) * (y[i] - y[j]) for i, j in pairs]
    return (sum(s > 0 for s in sign) - sum(s < 0 for s in sign)) / len(pairs)


def task(i: int) -> SciNetTask:
    return SciNetTask(f"path/cs.LG/00{i}", "path", "path", f"Path question number {i}: from "
                      '"Deep learning foundations" to "Attention models"?',
                      field="Machine Learning (cs.LG)", category="cs.LG", classic=A, recent=D,
                      gold={"path": [A, C, D], "score": 1})


def index_of(body) -> int:
    return int(re.search(r"Path question number (\d)", body["messages"][0]["content"])[1])


def reply(score: int) -> Step:
    return Step(text=json.dumps({"score": score, "reasoning": "r"}))


@pytest.fixture
def judges():
    a = FakeOpenAI(default=lambda b: reply(A_SCORES[b.get("seed", 0)][index_of(b)])).start()
    b = FakeOpenAI(default=lambda b: reply(B_SCORES[index_of(b)])).start()
    yield a, b
    a.stop()
    b.stop()


def client(fake, name: str) -> ChatClient:
    config = ModelConfig(role="judge", model=name, base_url=fake.base_url,
                         api_key_env="FAKE_KEY_FOR_TESTS", timeout=5.0, max_retries=0)
    return ChatClient(config, retry_wait=(0.01, 0.05))


@pytest.fixture
def fixed_agent():
    from scholarbench.core.registry import REGISTRY

    class Fixed:
        name, uses_llm, needs_embedder = "fixed", False, False

        def config(self):
            return {}

        def answer(self, task, ctx):
            return [A, C, D]

    REGISTRY.load()
    REGISTRY._entries["agent"]["scinet/fixed"] = Fixed
    yield
    del REGISTRY._entries["agent"]["scinet/fixed"]


def run(tmp_path, judges, samples=None, out="run", name=None):
    a, b = judges
    write_tasks([task(i) for i in range(3)], tmp_path / "tasks.jsonl")
    ca, cb = client(a, "judge-a"), client(b, "judge-b")

    def factory(need_agent, need_judge):
        return LLMRoles(judge=ca, judges=[ca, cb])
    config = SciNetRunConfig("path", "fixed", tmp_path / out, tasks=tmp_path / "tasks.jsonl",
                             env=tiny_env(), with_judge=True, judge_samples=samples,
                             run_name=name)
    return run_scinet(config, factory), tmp_path / out


def rows_of(out):
    return [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]


def test_two_judges_per_judge_values_panel_mean_and_alpha(tmp_path, judges, fixed_agent):
    summary, out = run(tmp_path, judges)
    rows = rows_of(out)
    assert [r["judges"] for r in rows] == [
        {"judge-a": {M: a, f"{M}_unscored": 0}, "judge-b": {M: b, f"{M}_unscored": 0}}
        for a, b in zip(A_SCORES[0], B_SCORES)]
    assert [r[M] for r in rows] == [(a + b) / 2 for a, b in zip(A_SCORES[0], B_SCORES)]
    assert summary["metrics"][M]["mean"] == pytest.approx((2.5 + 4 + 7) / 3)
    panel = summary["judge_panel"][M]
    assert panel["judge-a"]["mean"] == pytest.approx(4) and panel["judge-a"]["n"] == 3
    assert panel["judge-b"]["mean"] == pytest.approx(5)
    assert summary["families"]["path"][M]["judges"] == {"judge-a": pytest.approx(4),
                                                        "judge-b": pytest.approx(5)}
    alpha = summary["judge_agreement"][M]
    assert alpha["level"] == "interval" and alpha["n_judges"] == 2
    assert alpha["alpha"] == pytest.approx(alpha_by_hand([A_SCORES[0], B_SCORES]))
    assert alpha["alpha"] == pytest.approx(1 - (10 / 6) / (282 / 30))
    assert "judges path_rationality_llm: α 0.823 between 2 judges" in format_summary(summary)
    # every judge asked once per task, each at its own endpoint; usage and identity per judge
    a, b = judges
    assert len(a.requests) == len(b.requests) == 3
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["llm_usage"]["judge"]["calls"] == 3
    assert manifest["llm_usage"]["judge_2"]["calls"] == 3
    assert manifest["usage"]["path"]["judge_2"]["calls"] == 3
    judged = manifest["judged"]["path"]["judges"]
    assert [(j["label"], j["role"], j["model"]) for j in judged] \
        == [("judge-a", "judge", "judge-a"), ("judge-b", "judge_2", "judge-b")]
    assert judged[0]["model"] == "judge-a"
    assert [p["label"] for p in judged] == ["judge-a", "judge-b"]
    # the summary is rebuilt from the rows alone
    from scholarbench.cli import main
    assert main(["aggregate", str(out), "--check"]) == 0
    # scored again in place: every judge's verdicts reused from judge.path.jsonl
    again, _ = run(tmp_path, judges)
    assert again == summary and len(a.requests) == len(b.requests) == 3


def test_repeats_spread_and_within_judge_alpha(tmp_path, judges, fixed_agent):
    summary, out = run(tmp_path, judges, samples=2)
    a, b = judges
    assert sorted((r["seed"], index_of(r)) for r in a.requests) == \
        [(s, i) for s in (0, 1) for i in range(3)]       # one request per repeat and task
    rows = rows_of(out)
    assert [r["judges"]["judge-a"][f"{M}_samples"] for r in rows] == \
        [list(p) for p in zip(*A_SCORES.values())]
    a_means = [statistics.mean(p) for p in zip(*A_SCORES.values())]       # 3, 4, 6
    assert [r["judges"]["judge-a"][M] for r in rows] == a_means
    assert [r[M] for r in rows] == [(x + y) / 2 for x, y in zip(a_means, B_SCORES)]
    panel = summary["judge_panel"][M]
    spread = statistics.mean(statistics.stdev(p) for p in zip(*A_SCORES.values()))
    assert panel["judge-a"]["spread"] == pytest.approx(spread) == pytest.approx(2 ** .5 / 3)
    assert panel["judge-a"]["repeats"] == 2 and panel["judge-a"]["spread_n"] == 3
    assert panel["judge-b"]["spread"] == 0
    assert panel["judge-a"]["alpha_repeats"] == pytest.approx(
        alpha_by_hand([A_SCORES[0], A_SCORES[1]]))
    assert panel["judge-a"]["alpha_repeats"] == pytest.approx(1 - 240 / 816)
    assert summary["judge_agreement"][M]["alpha"] == pytest.approx(
        alpha_by_hand([a_means, B_SCORES]))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["judged"]["path"]["repeats"] == 2
    assert manifest["judged"]["path"]["judges"][0]["seeds"] == [0, 1]
    assert manifest["judged"]["path"]["judges"][0]["temperature"] == 0.0
    from scholarbench.cli import main
    assert main(["aggregate", str(out), "--check"]) == 0


def test_a_failing_judge_is_unscored_for_that_judge_only(tmp_path, judges, fixed_agent):
    a, b = judges
    b.default = lambda body: (Step(text="no idea") if index_of(body) == 1
                              else reply(B_SCORES[index_of(body)]))
    summary, out = run(tmp_path, judges)
    rows = rows_of(out)
    assert rows[1]["judges"]["judge-b"] == {M: None, f"{M}_unscored": 1}
    assert rows[1]["judges"]["judge-a"] == {M: 4, f"{M}_unscored": 0}
    assert rows[1][M] == 4                              # the judge that answered
    assert rows[1][f"{M}_unscored"] == 1 and rows[1][f"{M}_judged"] == 1
    panel = summary["judge_panel"][M]
    assert panel["judge-b"] == {**panel["judge-b"], "mean": pytest.approx(5.5), "n": 2,
                                "n_null": 1}
    assert panel["judge-a"]["n"] == 3
    assert summary["families"]["path"]["judge"][M]["unscored"] == 1
    # α over the two tasks both judges rated (the missing rating is not a zero)
    assert summary["judge_agreement"][M]["alpha"] == pytest.approx(
        alpha_by_hand([[2, 6], [3, 8]]))
    from scholarbench.cli import main
    assert main(["aggregate", str(out), "--check"]) == 0


def test_one_judge_rows_and_summary_have_no_panel(tmp_path, judges, fixed_agent):
    a, _ = judges
    write_tasks([task(i) for i in range(3)], tmp_path / "tasks.jsonl")
    summary = run_scinet(SciNetRunConfig("path", "fixed", tmp_path / "r",
                                         tasks=tmp_path / "tasks.jsonl", env=tiny_env()),
                         judge=client(a, "judge-a"))
    rows = rows_of(tmp_path / "r")
    assert [r[M] for r in rows] == A_SCORES[0] and not any("judges" in r for r in rows)
    assert "judge_panel" not in summary and "judge_agreement" not in summary
    assert all("seed" not in r or r["seed"] == 0 for r in a.requests)


def test_kendall_tau_and_top_run_by_hand():
    runs = {"r1": {"a": 1.0, "b": 2.0, "c": 1.0}, "r2": {"a": 2.0, "b": 1.0, "c": 3.0},
            "r3": {"a": 3.0, "b": 3.0, "c": 2.0}}
    out = rank_agreement(runs)
    for x, y in (("a", "b"), ("a", "c"), ("b", "c")):
        expected = tau_by_hand([runs[r][x] for r in runs], [runs[r][y] for r in runs])
        assert out["kendall_tau"][f"{x} ~ {y}"] == {"tau": pytest.approx(expected),
                                                    "n_runs": 3}
    assert out["kendall_tau"]["a ~ b"]["tau"] == pytest.approx(1 / 3)
    assert out["top_by_judge"] == {"a": "r3", "b": "r3", "c": "r2"}
    assert out["top_stays"] is False and out["top_run"] is None
    same = rank_agreement({k: {"a": v["a"], "b": v["b"]} for k, v in runs.items()})
    assert same["top_stays"] is True and same["top_run"] == "r3"
    summary = {"judge_panel": {M: {"a": {"mean": 1.5}, "b": {"mean": None}}}}
    assert per_judge_of(summary, M) == {"a": 1.5, "b": None}


def test_alpha_undefined_and_nominal():
    assert krippendorff_alpha([[3, 3], [3, 3]]) is None        # no variation
    assert krippendorff_alpha([[1], [2]]) is None             # one unit
    labels = [["Positive", "Neutral", "Negative", "Neutral"],
              ["Positive", "Neutral", "Neutral", "Neutral"]]
    # nominal by hand: pairable values P,P,N,N,Neg,N,N,N (n = 8); D_o = 2/8, D_e =
    # (2·(2·5 + 2·1 + 5·1)) / (8·7) = 34/56
    assert krippendorff_alpha(labels, "nominal") == pytest.approx(1 - (2 / 8) / (34 / 56))


def test_panel_flags_pair_up_or_fail_in_one_line(tmp_path, capsys, judges):
    from scholarbench.cli import build_parser, main
    from scholarbench.llm.commands import model_recipe
    from scholarbench.llm.roles import bind_roles
    a, b = judges
    code = main(["llm", "config", "--judge", "x", "--judge", "y",
                 "--judge-base-url", a.base_url])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == ["error: --judge-base-url given 1 times for 2 judge(s) "
                                 "(--judge): give it once per --judge, or not at all"]
    args = build_parser().parse_args(["llm", "config", "--judge", "x", "--judge-base-url",
                                      a.base_url, "--judge", "y", "--judge-base-url",
                                      b.base_url])
    roles = bind_roles(**{**model_recipe(args), "no_cache": True}, need_judge=True)
    assert [(c.config.model, c.config.base_url) for c in roles.judges] == \
        [("x", a.base_url), ("y", b.base_url)]
    assert roles.judge is roles.judges[0]
    assert main(["llm", "config", "--judge", "x", "--judge-base-url", a.base_url, "--judge",
                 "y", "--judge-base-url", b.base_url]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [j["model"] for j in shown["judges"]] == ["x", "y"]
    same = build_parser().parse_args(["llm", "config", "--judge", "x", "--judge-base-url",
                                      a.base_url, "--judge", "x", "--judge-base-url",
                                      a.base_url])
    with pytest.raises(Exception, match="names .* twice"):
        bind_roles(**{**model_recipe(same), "no_cache": True}, need_judge=True)
    # one judge: as before (a lone flag pairs with it)
    one = build_parser().parse_args(["llm", "config", "--judge", "x", "--judge-base-url",
                                     a.base_url])
    recipe = model_recipe(one)
    assert recipe["judge_flags"]["model"] == "x" and "panel_flags" not in recipe


def test_models_judges_binds_the_panel_once():
    from scholarbench.core.models import Models
    calls = []

    def bind(need_agent, need_judge):
        calls.append(need_judge)
        return LLMRoles(judge="first", judges=["first", "second"])
    models = Models(bind)
    assert models.judges() == ["first", "second"] and models.judge() == "first"
    assert calls == [True]
    lone = Models(lambda need_agent, need_judge: LLMRoles(judge="only"))
    assert lone.judges() == ["only"] and lone.judge() == "only"
    assert Models.given(judges=["p", "q"]).judge() == "p"


def test_each_repeat_is_its_own_cache_key_and_repeat_zero_is_a_lone_judges(tmp_path, judges,
                                                                            fixed_agent):
    from scholarbench.llm.cache import ReplyCache
    a, _ = judges
    cache = ReplyCache(tmp_path / "cache.sqlite")
    write_tasks([task(0)], tmp_path / "tasks.jsonl")

    def judged(out):
        """Repeats 0 and 1 of task 0 by one judge, through the engine's judge stage."""
        c = client(a, "judge-a")
        c.cache = cache
        config = SciNetRunConfig("path", "fixed", tmp_path / out, tasks=tmp_path / "tasks.jsonl",
                                 env=tiny_env(), judge_samples=2)
        run_scinet(config, judge=c)
        return rows_of(tmp_path / out)[0]["judges"]["judge-a"][f"{M}_samples"]
    assert judged("first") == [2, 4]
    assert len(a.requests) == 2 and sorted(r["seed"] for r in a.requests) == [0, 1]
    assert judged("again") == [2, 4]    # a fresh run and judge, the same cache: no request
    assert len(a.requests) == 2


def test_score_answers_file_with_a_panel_from_the_command_line(tmp_path, judges, capsys):
    """The whole command line: two `--judge` pairs and `--judge-samples 2` reach the scorer
    (`Models.judges()`), per-judge usage in the summary's `judge_manifest`."""
    from scinet_files import write_tiny_graph
    from scholarbench.cli import main
    a, b = judges
    graph, unarxive = write_tiny_graph(tmp_path)
    write_tasks([task(i) for i in range(3)], tmp_path / "tasks.jsonl")
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"task_id": task(i).task_id, "papers": [A, C, D]})
                               + "\n" for i in range(3)))
    out = tmp_path / "s.jsonl"
    assert main(["score", "scinet", "--tasks", str(tmp_path / "tasks.jsonl"), "--answers",
                 str(answers), "--out", str(out), "--graph", str(graph), "--unarxive",
                 str(unarxive), "--with-judge", "--no-llm-cache",
                 "--judge", "judge-a", "--judge-base-url", a.base_url,
                 "--judge", "judge-b", "--judge-base-url", b.base_url,
                 "--judge-samples", "2"]) == 0
    assert "judges path_rationality_llm: α" in capsys.readouterr().out
    assert len(a.requests) == len(b.requests) == 6
    summary = json.loads(out.with_suffix(".summary.json").read_text())
    a_means = [statistics.mean(p) for p in zip(*A_SCORES.values())]
    assert summary["judge_panel"][M]["judge-a"]["mean"] == pytest.approx(statistics.mean(a_means))
    assert summary["judge_agreement"][M]["alpha"] == pytest.approx(
        alpha_by_hand([a_means, B_SCORES]))
    usage = summary["judge_manifest"]["llm_usage"]
    assert usage["judge"]["calls"] == usage["judge_2"]["calls"] == 6
    judged = [json.loads(x) for x in
              (out.with_suffix(".judge") / "judge.path.jsonl").read_text().splitlines()]
    assert sorted((j["judge"], j["repeat"]) for j in judged) == \
        sorted((m, s) for m in ("judge-a", "judge-b") for s in (0, 1) for _ in range(3))


def test_a_named_panel_in_the_config_file(tmp_path, judges, capsys):
    from scholarbench.cli import build_parser, main
    from scholarbench.llm.commands import judge_samples, model_recipe
    from scholarbench.llm.roles import bind_roles
    a, b = judges
    toml = tmp_path / "scholarbench.toml"
    toml.write_text(f'[judge]\ntemperature = 0.7\n\n[panel.two]\nsamples = 3\njudges = [\n'
                    f'  {{model = "judge-a", base_url = "{a.base_url}"}},\n'
                    f'  {{model = "judge-b", base_url = "{b.base_url}", seed = 5}},\n]\n')
    args = build_parser().parse_args(["llm", "config", "--llm-config", str(toml),
                                      "--judge-panel", "two"])
    roles = bind_roles(**{**model_recipe(args), "no_cache": True}, need_judge=True)
    assert [(c.config.model, c.config.base_url, c.config.temperature, c.config.seed)
            for c in roles.judges] == [("judge-a", a.base_url, 0.7, 0),
                                       ("judge-b", b.base_url, 0.7, 5)]
    assert judge_samples(args) == 3
    assert judge_samples(build_parser().parse_args(
        ["llm", "config", "--llm-config", str(toml), "--judge-panel", "two",
         "--judge-samples", "2"])) == 2                              # the flag wins
    capsys.readouterr()
    assert main(["llm", "config", "--llm-config", str(toml), "--judge-panel", "nope"]) == 2
    assert capsys.readouterr().err.strip() == \
        f"error: {toml}: no judge panel [panel.nope] (panels: two)"
    assert main(["llm", "config", "--llm-config", str(toml), "--judge-panel", "two",
                 "--judge", "x"]) == 2
    assert "not both" in capsys.readouterr().err
    toml.write_text('[panel.bad]\njudges = [{model = "m", api_key = "sk-x"}]\n')
    assert main(["llm", "config", "--llm-config", str(toml), "--judge-panel", "bad"]) == 2
    assert "environment only" in capsys.readouterr().err


def test_report_shows_per_judge_means_alpha_and_the_judges_rankings(tmp_path, judges,
                                                                     fixed_agent):
    from scholarbench.report.exports import leaderboard_text
    from scholarbench.report.sections import load_report_run
    a, b = judges
    _, first = run(tmp_path, judges, out="r1", name="first")            # a 4, b 5
    a.default = lambda body: reply(5)
    b.default = lambda body: reply(1)
    _, second = run(tmp_path, judges, out="r2", name="second")          # a 5, b 1
    text = leaderboard_text([load_report_run(first), load_report_run(second)], "terminal")
    flat = " ".join(text.split())         # the generic judges panel (report/judges.py)
    assert "Judges — first (scinet path)" in flat
    assert f"{M} panel (2 judges) 4.50 3 0 " \
        f"{alpha_by_hand([A_SCORES[0], B_SCORES]):.3f}" in flat
    assert "judge-a 4.00 3 0 — —" in flat and "judge-b 5.00 3 0 — —" in flat
    # a ranks second higher, b first
    assert f"{M}, scinet path judge-a ~ judge-b 2 -1.00 no" in flat
    assert "the top run changes with the judge (top by judge: judge-a second, judge-b " \
        "first)" in flat


def test_a_benchmark_with_one_judge_refuses_a_panel_in_one_line(tmp_path, capsys, judges):
    """A benchmark without panels (ResearchArena: no LLM judge) refuses a panel or repeats in
    one line, never silently cutting it to the first judge; the line names the benchmarks
    that take one (TaxoBench and DeepSynth-Eval now among them)."""
    from scholarbench.cli import main
    a, b = judges
    panel = ["--judge", "x", "--judge-base-url", a.base_url, "--judge", "y",
             "--judge-base-url", b.base_url]
    code = main(["run", "researcharena", "--task", "discovery", "--agent", "bm25", "--out",
                 str(tmp_path / "r"), *panel])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "researcharena has no LLM judge" in err[0], err
    assert not (tmp_path / "r").exists()
    # a benchmark with one judge names the benchmarks that take a panel
    from argparse import Namespace
    from scholarbench.core.commands import check_panel
    from scholarbench.errors import ScholarbenchError

    class OneJudge:
        name, judge_panel, judge_scored = "onejudge", False, ("score",)
    with pytest.raises(ScholarbenchError) as refused:
        check_panel(Namespace(judge=["x", "y"], judge_base_url=[a.base_url, b.base_url],
                              judge_api_key_env=None, judge_samples=None,
                              judge_panel=None, llm_config=None), OneJudge)
    line = str(refused.value)
    assert "onejudge scores with one judge" in line and all(
        name in line for name in ("scinet", "taxobench", "deepsynth", "reportbench"))
    code = main(["run", "researcharena", "--task", "discovery", "--agent", "bm25", "--out",
                 str(tmp_path / "r"), "--judge", "x", "--judge-base-url", a.base_url,
                 "--judge-samples", "3"])
    assert code == 2 and "--judge-samples" in capsys.readouterr().err
