"""Judges that fail, built as the probe was (issue 34 "Panels and judges fail loudly", issue 35
items 3, 4, 5, 9, 10): a judge endpoint on 127.0.0.1 answering 500 (down) or unusable replies,
in a panel and alone; the engine's judge accounting (`core.judging`) makes the run incomplete
(exit 3) with one warning line naming the judge and its count, and the next run asks again."""
from __future__ import annotations

import json

import pytest

from fake_openai import FakeOpenAI, Step
from test_scinet_engine import run_args, tiny  # noqa: F401  (the module's fixture)
from scholarbench.benchmarks.scinet.records import read_tasks
from scholarbench.cli import main

AGENT = "scinet_user_agent:solve"      # path tasks: a non-empty path for every task
GOOD = Step(text=json.dumps({"score": 6, "reasoning": "r"}))
DOWN = Step(status=500)


@pytest.fixture
def servers():
    up, down = FakeOpenAI(default=GOOD).start(), FakeOpenAI(default=DOWN).start()
    yield up, down
    up.stop()
    down.stop()


@pytest.fixture
def no_retries(tmp_path):
    """A config file: a failed judge call is given up at once (no backoff in the test)."""
    path = tmp_path / "llm.toml"
    path.write_text("[judge]\nmax_retries = 0\n")
    return ["--llm-config", str(path), "--no-llm-cache"]


def panel(*pairs: tuple[str, str]) -> list[str]:
    flags = ["--with-judge"]
    for name, url in pairs:
        flags += ["--judge", name, "--judge-base-url", url]
    return flags


def manifest(out):
    return json.loads((out / "manifest.json").read_text())


def summary(out):
    return json.loads((out / "summary.json").read_text())


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning: judge ")]


def test_a_panel_with_one_judge_down_is_incomplete_and_resumes(tiny, tmp_path, servers,
                                                               no_retries, capsys):
    up, down = servers
    n_path = sum(t.family == "path" for t in read_tasks(tiny[2]))
    out = tmp_path / "path"
    args = run_args(tiny, "path", AGENT, out, *no_retries,
                    *panel(("judge-a", up.base_url), ("judge-b", down.base_url)))
    assert main(args) == 3
    err = capsys.readouterr().err
    lines = warnings(err)
    assert len(lines) == 1, err
    assert "judge-b (judge_2" in lines[0] and f"{n_path} call(s) failed" in lines[0]
    assert "judge-a" not in lines[0]
    assert summary(out)["complete"] is False
    failures = manifest(out)["judge_failures"]
    assert [(f["label"], f["failed"]) for f in failures] == [("judge-b", n_path)]
    rows = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    judged = [r for r in rows if "path_rationality_llm" in r]
    assert judged and all(r["path_rationality_llm_n_judges"] == 1 for r in judged)

    down.default = GOOD                      # the judge is back: the same command completes
    asked_a = len(up.requests)
    assert main(args) == 0
    err = capsys.readouterr().err
    assert not warnings(err), err
    assert len(down.requests) == 2 * n_path          # asked again, once per path task
    assert len(up.requests) == asked_a               # judge-a's judgements were kept
    assert summary(out)["complete"] is True and "judge_failures" not in manifest(out)
    rows = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    judged = [r for r in rows if "path_rationality_llm" in r]
    assert all(r["path_rationality_llm_n_judges"] == 2 for r in judged)


def test_a_single_judge_down_exits_3_not_0(tiny, tmp_path, servers, no_retries, capsys):
    _, down = servers
    out = tmp_path / "path"
    assert main(run_args(tiny, "path", AGENT, out, *no_retries,
                         *panel(("judge-x", down.base_url)))) == 3
    lines = warnings(capsys.readouterr().err)
    assert len(lines) == 1 and "judge-x (judge, judge-x)" in lines[0]
    assert summary(out)["complete"] is False


def test_unusable_replies_are_named_per_judge(tiny, tmp_path, servers, no_retries, capsys):
    up, down = servers
    down.default = Step(text="not json at all")
    n_path = sum(t.family == "path" for t in read_tasks(tiny[2]))
    out = tmp_path / "path"
    code = main(run_args(tiny, "path", AGENT, out, *no_retries,
                         *panel(("judge-a", up.base_url), ("judge-b", down.base_url))))
    lines = warnings(capsys.readouterr().err)
    assert code == 0                       # every call answered: not incomplete, but said
    assert len(lines) == 1 and f"judge-b (judge_2, judge-b): {n_path} reply(ies) unusable" \
        in lines[0]


# -- the dry run counts what the run sends (issue 35 item 4) --------------------------------

def ego_same_papers(task):
    """Every ego task, novel and disruptive alike, answers the same six papers: each is
    judged for novelty AND for disruption (two calls per paper, not one)."""
    from test_scinet_core import PAPERS
    if task["subtask"] == "ego":
        return {"papers": [p["id"] for p in PAPERS]}
    return {"papers": []}


def dry_counts(printed: str) -> dict[str, int]:
    import re
    out: dict[str, int] = {}
    for line in printed.splitlines():
        m = re.match(r"\s+(judge(?:_\d+)?) \(\S+\)\s+\S+\s+(?:≤ )?(\d+) calls", line)
        if m:
            out[m[1]] = out.get(m[1], 0) + int(m[2])
    return out


def test_scinet_ego_dry_run_counts_a_paper_once_per_judged_measure(tiny, tmp_path, servers,
                                                                    capsys):
    up, _ = servers
    lines = [json.loads(x) for x in tiny[2].read_text().splitlines()]
    novel = [{**t, "task_id": t["task_id"].replace("disruptive", "novel"), "kind": "novel"}
             for t in lines if t["family"] == "ego" and t["kind"] == "disruptive"]
    assert novel                        # the same answers judged for novelty too
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(t) + "\n" for t in lines + novel))
    tiny = (tiny[0], tiny[1], tasks)
    kinds = {t.kind for t in read_tasks(tasks) if t.family == "ego"}
    assert kinds == {"novel", "disruptive"}
    out = tmp_path / "ego"
    assert main(run_args(tiny, "ego", "test_hostile_judges:ego_same_papers", out)) == 0
    rescore = ["score", str(out), "--with-judge", "--no-llm-cache", "--judge", "judge-a",
               "--judge-base-url", up.base_url, "--judge", "judge-b", "--judge-base-url",
               up.base_url, "--judge-samples", "2"]
    assert main([*rescore, "--dry-run"]) == 0
    planned = dry_counts(capsys.readouterr().out)
    assert not up.requests
    assert main(rescore) == 0
    sent = len(up.requests)
    assert sent == sum(planned.values()) and planned["judge"] == planned["judge_2"]
    # by hand: the graph's papers every ego answer reaches, once per measure, × 2 repeats
    from scholarbench.benchmarks.scinet.benchmark import SciNet
    bench = SciNet({"graph": str(tiny[0]), "unarxive": str(tiny[1]), "tasks": str(tiny[2])})
    env = bench.env()
    in_graph = {g for g in (env.resolve(p) for p in ego_same_papers({"subtask": "ego"})
                            ["papers"]) if g is not None}
    k = min(bench.judge_k, len(in_graph))
    assert planned["judge"] == 2 * k * len(kinds)


# -- one key variable for a panel on one provider (issue 35 item 10) -----------------------

def test_one_judge_api_key_env_serves_every_judge_of_the_panel(servers, monkeypatch, capsys):
    from scholarbench.cli import build_parser
    from scholarbench.llm.commands import model_recipe
    from scholarbench.llm.roles import bind_roles
    up, down = servers
    monkeypatch.setenv("PANEL_KEY_VAR", "sk-panel-test-0001")
    argv = ["llm", "config", "--judge", "x", "--judge-base-url", up.base_url, "--judge", "y",
            "--judge-base-url", down.base_url, "--judge-api-key-env", "PANEL_KEY_VAR"]
    assert main(argv) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [j["api_key_env"] for j in shown["judges"]] == ["PANEL_KEY_VAR"] * 2
    roles = bind_roles(**{**model_recipe(build_parser().parse_args(argv)), "no_cache": True},
                       need_judge=True)
    assert [c.config.api_key() for c in roles.judges] == ["sk-panel-test-0001"] * 2
    three = ["llm", "config", "--judge", "x", "--judge", "y", "--judge", "z",
             "--judge-api-key-env", "A", "--judge-api-key-env", "B"]
    assert main(three) == 2                # two of three is still ambiguous: refused
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --judge-api-key-env given 2 times for 3 judge(s) (--judge): give "
                   "it once per --judge (or once for every judge), or not at all"]


# -- a judge that cannot run is said before any stage (issue 35 item 5) ---------------------

def test_deepsynth_with_no_judge_and_no_local_extra_stops_before_any_stage(
        tmp_path, monkeypatch, capsys):
    from test_deepsynth_oracle import write_tasks
    from scholarbench.benchmarks.deepsynth import load_tasks
    for var in ("SCHOLARBENCH_JUDGE", "SCHOLARBENCH_JUDGE_BASE_URL", "SCHOLARBENCH_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setitem(__import__("sys").modules, "llama_cpp", None)   # the default install
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    tasks = write_tasks(tmp_path / "tasks.jsonl")
    replay = tmp_path / "reports.jsonl"
    replay.write_text("".join(json.dumps({"task_id": t.task_id, "report": "Widget methods."})
                              + "\n" for t in load_tasks(tasks)))
    out = tmp_path / "runs" / "d"
    code = main(["run", "deepsynth", "--agent", "replay", "--replay", str(replay), "--tasks",
                 str(tasks), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "--judge NAME --judge-base-url URL" in err[0]
    assert "pip install 'scholarbench[local]'" in err[0]
    assert not out.exists() and not (tmp_path / "cache").exists()


# -- DeepSynth HTML with a panel counts requirements, not judgements (issue 35 item 9) -------

def test_deepsynth_html_with_a_panel_counts_requirements_and_names_every_judge(
        tmp_path, monkeypatch):
    import re
    from html import unescape
    from test_judge_panel_taxo_deepsynth import a_judge, harsh, labels_reply, ds_run
    from scholarbench.report.html import render_html_report
    from scholarbench.report.sections import load_report_runs
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    a = FakeOpenAI(default=a_judge).start()
    b = FakeOpenAI(default=lambda body: labels_reply(harsh(body["messages"][0]["content"])))
    b.start()
    try:
        summary_, out = ds_run(tmp_path, a, b, "--judge-samples", "2", "--no-llm-cache")
    finally:
        a.stop()
        b.stop()
    # the checklist of test_deepsynth_oracle: 5 requirements per task, 2 tasks
    requirements = 10
    judgements = sum(summary_[k] for k in ("n_correct", "n_not_mentioned", "n_incorrect",
                                           "n_unscored"))
    assert judgements == requirements * 2 * 2             # 2 judges × 2 samples
    html = render_html_report(load_report_runs([out]))
    table = re.search(r'<table class="lb" data-title="Checklist requirement statuses \(ours\)"'
                      r'.*?</table>', html, re.S).group(0)
    cells = [unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", table)]
    assert str(requirements) in cells and str(judgements) not in cells
    judge_cell = next(c for c in cells if "prompt" in c)
    assert "judge-a" in judge_cell and "judge-b" in judge_cell and "× 2 samples" in judge_cell
    footnote = next(unescape(f) for f in re.findall(r'<p class="footnote">([^<]*)</p>', html)
                    if "Published rows" in unescape(f))
    assert "judge-a" in footnote and "judge-b" in footnote
    chart = re.search(r'<svg[^>]*data-chart="status-breakdown".*?</svg>', html, re.S).group(0)
    bars: dict[str, int] = {}
    for row, count in re.findall(r'data-row="([^"]*)" data-segment="[^"]*" '
                                 r'data-count="(\d+)"', chart):
        bars[unescape(row)] = bars.get(unescape(row), 0) + int(count)
    overall = next(n for r, n in bars.items() if "·" not in r)
    parts = [n for r, n in bars.items() if "·" in r]
    assert overall == requirements and (not parts or sum(parts) == overall)


def test_a_rescore_without_a_judge_keeps_the_run_incomplete(tiny, tmp_path, servers,
                                                           no_retries, capsys):
    """`score RUN_DIR` with no judge asks none: the judge calls that failed are still
    missing, so the run stays incomplete until a judged scoring asks them."""
    up, down = servers
    out = tmp_path / "path"
    args = run_args(tiny, "path", AGENT, out, *no_retries,
                    *panel(("judge-a", up.base_url), ("judge-b", down.base_url)))
    assert main(args) == 3
    assert main(["score", str(out)]) == 3
    assert summary(out)["complete"] is False and manifest(out)["judge_failures"]
    capsys.readouterr()


def test_deepsynth_panel_with_one_judge_down_exits_3_and_resumes(tmp_path, monkeypatch,
                                                                 no_retries, capsys):
    """DeepSynth's judge stage stops at a judge that is down (its other tasks are not sent
    to a dead endpoint): exit 3 (not 2: nothing the user gave is wrong), the judge named with
    its count, and the same command completes once the judge is back."""
    from test_deepsynth_oracle import write_tasks
    from test_judge_panel_taxo_deepsynth import a_judge
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    a, b = FakeOpenAI(default=a_judge).start(), FakeOpenAI(default=DOWN).start()
    tasks = write_tasks(tmp_path / "tasks.jsonl")
    args = ["run", "deepsynth", "--agent", "test_judge_panel_taxo_deepsynth:write_report",
            "--tasks", str(tasks), "--corpus", "none", "--oracle", "none", "--out", "runs/ds",
            "--quiet", *no_retries, "--judge", "judge-a", "--judge-base-url", a.base_url,
            "--judge", "judge-b", "--judge-base-url", b.base_url]
    try:
        assert main(args) == 3
        err = capsys.readouterr().err
        lines = warnings(err)
        failed = len(b.requests)              # no retries: each failed call is one request
        assert failed > 0 and len(lines) == 1
        assert f"judge-b (judge_2, judge-b): {failed} call(s) failed" in lines[0]
        b.default = a_judge
        assert main(args) == 0
        assert not warnings(capsys.readouterr().err)
    finally:
        a.stop()
        b.stop()
    assert summary(tmp_path / "runs/ds")["complete"] is True


def test_eval_with_a_judge_plans_scinets_judged_measures_without_any_option(
        tiny, tmp_path, servers, capsys):
    """`eval --judge A` turns SciNet's judged measures on (no `--option scinet.with_judge`):
    the dry run plans its judge calls; `--option scinet.with_judge=false` turns them off and
    `=maybe` is refused in one line (issue 35 item 3; the whole suite: test_endpoint_suite)."""
    up, _ = servers
    graph, unarxive, tasks = tiny
    base = ["eval", "--benchmarks", "scinet", "--agent", AGENT, "--out", str(tmp_path / "s"),
            "--option", f"scinet.graph={graph}", "--option", f"scinet.unarxive={unarxive}",
            "--option", f"scinet.tasks={tasks}", "--dry-run"]
    judge = ["--judge", "judge-a", "--judge-base-url", up.base_url]
    assert main([*base, *judge]) == 0
    on = capsys.readouterr().out
    assert "pair tasks are not judged" in on and dry_counts(on)["judge"] > 0
    assert main(base) == 0                              # no judge named: off, as before
    assert dry_counts(capsys.readouterr().out) == {}
    assert main([*base, *judge, "--option", "scinet.with_judge=false"]) == 0
    assert dry_counts(capsys.readouterr().out) == {}
    assert main([*base, *judge, "--option", "scinet.with_judge=maybe"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --option scinet.with_judge=maybe: with_judge is a boolean option; "
                   "give true or false"]
    assert not up.requests and not (tmp_path / "s").exists()


def test_deepsynth_unusable_replies_are_named_per_judge(tmp_path, monkeypatch, capsys):
    """DeepSynth's own reply parser counts a sub-group left unscored after its repairs as one
    unusable reply of that judge: the run completes (exit 0) and the judge is named."""
    from test_deepsynth_oracle import write_tasks
    from test_judge_panel_taxo_deepsynth import a_judge
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    a, b = FakeOpenAI(default=a_judge).start(), FakeOpenAI(default=Step(text="no idea")).start()
    tasks = write_tasks(tmp_path / "tasks.jsonl")
    try:
        code = main(["run", "deepsynth", "--agent",
                     "test_judge_panel_taxo_deepsynth:write_report", "--tasks", str(tasks),
                     "--corpus", "none", "--oracle", "none", "--out", "runs/ds", "--quiet",
                     "--no-llm-cache", "--judge", "judge-a", "--judge-base-url", a.base_url,
                     "--judge", "judge-b", "--judge-base-url", b.base_url])
    finally:
        a.stop()
        b.stop()
    lines = warnings(capsys.readouterr().err)
    assert code == 0 and len(lines) == 1
    assert "judge-b (judge_2, judge-b): 6 reply(ies) unusable" in lines[0]   # 2 tasks × 3
