"""SciNet on the engine, from the command line, on the hand-made graph written to disk
(tests/scinet_files.py): `score scinet` on files (both answer forms; ids, titles and DOIs
resolved offline, unresolved ones counted), a user's plain function and a family-schema replay
on every sub-task, an agent failing on one task (exit 3, only it retried), the endpoint agent
against the scripted server, the judge added at scoring (`score RUN_DIR --with-judge`), and a
run killed mid-generate resuming to the scores of an uninterrupted one."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import kill_after_lines

import scinet_user_agent
from fake_openai import FakeOpenAI, Step
from scinet_files import write_tiny_graph
from test_scinet_core import A, B, C, D
from scholarbench.benchmarks.scinet.env import EnvSettings, SciNetEnv
from scholarbench.benchmarks.scinet.records import read_tasks, write_tasks
from scholarbench.benchmarks.scinet.tasks import BuildSettings, build_tasks
from scholarbench.cli import main

HERE = Path(__file__).parent
SETTINGS = BuildSettings(min_papers=2, n_pair=5, min_citers=1, n_classic=3, n_recent=3,
                         recent_years=3, per_category=2)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """(graph folder, unArXive folder, task file built from them)."""
    root = tmp_path_factory.mktemp("scinet-files")
    graph, unarxive = write_tiny_graph(root)
    env = SciNetEnv.from_arxiv2023(graph, unarxive, EnvSettings(randomisations=3))
    tasks = root / "tasks.jsonl"
    write_tasks(build_tasks(env, settings=SETTINGS), tasks)
    return graph, unarxive, tasks


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())


def run_args(tiny, task: str, agent: str, out: Path, *extra: str) -> list[str]:
    graph, unarxive, tasks = tiny
    return ["run", "scinet", "--task", task, "--agent", agent, "--graph", str(graph),
            "--unarxive", str(unarxive), "--tasks", str(tasks), "--out", str(out), "--quiet",
            *extra]


def pncites_of(tasks: Path, paper: str):
    return next(t for t in read_tasks(tasks) if t.kind == "pncites" and t.source == paper)


# ---- score scinet on files ---------------------------------------------------------------------
def test_score_scinet_files_from_the_command_line(tiny, tmp_path, capsys):
    graph, unarxive, tasks = tiny
    run = tmp_path / "run"
    assert main(run_args(tiny, "pair", "relation-aware", run)) == 0
    capsys.readouterr()
    # SciNet's answer lines: the run's own generate.jsonl scores to the run's rows
    out = tmp_path / "s.jsonl"
    assert main(["score", "scinet", "--tasks", str(run / "tasks.jsonl"), "--answers",
                 str(run / "generate.jsonl"), "--out", str(out), "--graph", str(graph),
                 "--unarxive", str(unarxive)]) == 0
    printed = capsys.readouterr().out
    assert f"scores: {out}" in printed and "cite_acc" in printed
    assert lines(out) == lines(run / "scores.jsonl")
    scored = json.loads(out.with_suffix(".summary.json").read_text())
    assert scored["families"] == summary(run)["families"]

    # the family schema and SciNet's lines mixed; titles, DOIs, URLs resolved offline
    pn = pncites_of(tasks, A)
    others = [t.task_id for t in read_tasks(tasks) if t.family == "pair" and t.task_id != pn.task_id]
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join(json.dumps(x) for x in (
        {"id": pn.task_id, "papers": ["Convolutional networks for images",     # B, a title
                                      "10.48550/arXiv.1201.00001",             # C, arXiv DOI
                                      {"id": "https://arxiv.org/abs/1501.00001v2",  # F
                                       "score": 0.5},
                                      "10.1145/0000000.0000000"]},             # not in graph
        {"task_id": others[0], "papers": "oops"},                              # malformed
        {"id": others[1], "papers": [B], "paperz": []},                        # unknown key
        {"id": "nope", "papers": []})) + "\n")
    assert main(["score", "scinet", "--tasks", str(tasks), "--answers", str(answers),
                 "--out", str(out), "--graph", str(graph), "--unarxive", str(unarxive)]) == 0
    rows = {r["task_id"]: r for r in lines(out)}
    row = rows[pn.task_id]
    assert row["cite_acc"] == 0.75 and row["cite_acc_hits"] == 3
    assert row["unresolved_refs"] == 1 and row["not_in_graph"] == 1
    assert row["status"] == "scored"
    assert rows[others[0]]["status"] == rows[others[1]]["status"] == "malformed"
    assert rows[others[0]]["missing_answer"] and rows[others[1]]["missing_answer"]
    s = json.loads(out.with_suffix(".summary.json").read_text())
    assert s["malformed_answers"] == 2 and s["unknown_task_ids"] == ["nope"]
    assert s["unanswered_tasks"] == len(read_tasks(tasks)) - 3
    assert s["families"]["pair"]["unresolved_refs"] == 1
    assert "answer items resolve to no paper of the graph" in capsys.readouterr().out

    assert main(["score", "scinet", "--tasks", str(tasks), "--out", str(out)]) == 2
    assert "score scinet needs --tasks" in capsys.readouterr().err


# ---- a user's function and a replay file --------------------------------------------------------
def test_user_function_and_family_schema_replay(tiny, tmp_path, capsys):
    graph, unarxive, tasks = tiny
    all_tasks = read_tasks(tasks)
    scinet_user_agent.SEEN.clear()
    for sub in ("ego", "pair", "path"):
        out = tmp_path / f"fn-{sub}"
        assert main(run_args(tiny, sub, "scinet_user_agent:solve", out)) == 0, \
            capsys.readouterr().err
        assert summary(out)["status"] == {"scored": sum(t.family == sub for t in all_tasks)}
    by_id = {t.task_id: t for t in all_tasks}
    assert {s["id"] for s in scinet_user_agent.SEEN} == set(by_id)
    for seen in scinet_user_agent.SEEN:
        task = by_id[seen["id"]]
        assert seen["prompt"] == task.query and seen["benchmark"] == "scinet"
        assert seen["subtask"] == task.family and seen["kind"] == task.kind
        assert seen["family"] == ("path" if task.family == "path" else "ranking")
        extra = {"ego": {"field", "category"}, "pair": {"paper"}, "path": {"field", "from", "to"}}
        assert set(seen) == {"id", "benchmark", "subtask", "family", "prompt", "kind",
                             "scored_items"} | extra[task.family]      # never the gold
        if task.family == "pair":
            assert seen["paper"]["id"] == task.source and seen["paper"]["title"] in task.query
        if task.family == "path":
            assert seen["from"]["id"] == task.classic and seen["to"]["id"] == task.recent
    pn = pncites_of(tasks, A)
    rows = {r["task_id"]: r for r in lines(tmp_path / "fn-pair" / "scores.jsonl")}
    # A's own title (not a citer), B by its arXiv DOI (a citer), two that resolve to nothing
    assert rows[pn.task_id]["cite_acc"] == 0.25 and rows[pn.task_id]["unresolved_refs"] == 2
    gen = {g["task_id"]: g for g in lines(tmp_path / "fn-pair" / "generate.jsonl")}
    assert gen[pn.task_id]["papers"][:2] == [A, B]                 # resolved to graph ids
    assert gen[pn.task_id]["papers"][2:] == ["10.1145/0000000.0000000", "not a paper at all"]
    assert gen[pn.task_id]["info"] == {"refs": 4, "unresolved": 2}
    for row in lines(tmp_path / "fn-path" / "scores.jsonl"):
        assert row["path_consistency"] == 1.0 and row["path_connectivity"] == 0.0

    # a replay file in the family schema: one good, one malformed, the others missing
    pair = [t for t in all_tasks if t.family == "pair"]
    replay = tmp_path / "replay.jsonl"
    replay.write_text(json.dumps({"id": pn.task_id, "papers": [B, "Residual networks"]}) + "\n"
                      + json.dumps({"id": pair[1].task_id, "papers": [{"title": "x"}]}) + "\n")
    out = tmp_path / "replay-run"
    assert main(run_args(tiny, "pair", "replay", out, "--agent-arg", f"path={replay}")) == 0
    rows = {r["task_id"]: r for r in lines(out / "scores.jsonl")}
    assert rows[pn.task_id]["cite_acc"] == 1.0 and rows[pn.task_id]["status"] == "scored"
    assert rows[pair[1].task_id]["status"] == "malformed"
    assert summary(out)["status"] == {"scored": 1, "malformed": 1, "missing": len(pair) - 2}
    assert summary(out)["families"]["pair"]["missing_answers"] == len(pair) - 1


# ---- errors: exit 3, retried alone -------------------------------------------------------------
def test_an_agent_error_is_not_a_result_and_only_it_is_retried(tiny, tmp_path, monkeypatch,
                                                               capsys):
    graph, unarxive, tasks = tiny
    pn = pncites_of(tasks, A)
    n = sum(t.family == "pair" for t in read_tasks(tasks))
    out = tmp_path / "run"
    monkeypatch.setenv("SCINET_FAIL_ON", pn.task_id)
    assert main(run_args(tiny, "pair", "scinet_user_agent:solve", out)) == 3
    assert "1 sample(s) errored" in capsys.readouterr().err
    s = summary(out)
    assert s["complete"] is False and s["status"] == {"scored": n - 1, "error": 1}
    assert s["families"]["pair"]["errors"] == 1
    assert s["families"]["pair"]["cite_acc"]["n"] == sum(
        t.kind == "pncites" for t in read_tasks(tasks)) - 1          # left out of the mean
    row = next(r for r in lines(out / "scores.jsonl") if r["task_id"] == pn.task_id)
    assert row["status"] == "error" and "ConnectionError" in row["error"]
    assert "cite_acc" not in row
    monkeypatch.delenv("SCINET_FAIL_ON")
    assert main(run_args(tiny, "pair", "scinet_user_agent:solve", out)) == 0
    ids = [g["task_id"] for g in lines(out / "generate.jsonl")]
    assert len(ids) == n + 1 and ids[-1] == pn.task_id and ids.count(pn.task_id) == 2
    s = summary(out)
    assert s["complete"] is True and s["status"] == {"scored": n}


# ---- the endpoint agent ------------------------------------------------------------------------
def test_endpoint_agent_plain_text_replies_are_scored(tiny, tmp_path, capsys):
    graph, unarxive, tasks = tiny
    fake = FakeOpenAI().start()

    def reply(body):
        # the path's endpoints as a numbered list: a title, an arXiv id, a quoted title
        return Step(text="Here is the path:\n1. **Deep learning foundations** (2010)\n"
                         "2. arXiv:1201.00001 — Residual networks\n"
                         '3. "Attention models", 2013\n4. Something I made up\n')
    fake.default = reply
    try:
        out = tmp_path / "endpoint"
        # one sample at a time: the checks below pair the first request with the first task
        assert main(run_args(tiny, "path", "endpoint", out, "--model", "fake-agent",
                             "--base-url", fake.base_url, "--no-llm-cache",
                             "--max-samples", "1")) == 0, \
            capsys.readouterr().err
    finally:
        fake.stop()
    path_tasks = [t for t in read_tasks(tasks) if t.family == "path"]
    assert len(fake.requests) == len(path_tasks)
    msgs = fake.requests[0]["messages"]
    assert msgs[0]["role"] == "system" and "citation path" in msgs[0]["content"]
    assert msgs[1] == {"role": "user", "content": path_tasks[0].query}
    gen = lines(out / "generate.jsonl")
    assert all(g.get("status", "ok") == "ok" for g in gen)
    assert gen[0]["papers"] == [A, C, D, "Something I made up"]     # resolved where possible
    assert gen[0]["info"]["unresolved"] == 1 and gen[0]["info"]["refs"] == 4
    rows = lines(out / "scores.jsonl")
    assert all(r["status"] == "scored" and r["path_consistency"] is not None for r in rows)
    assert any(r["path_consistency"] > 0 for r in rows)
    s = summary(out)
    assert s["families"]["path"]["unresolved_refs"] == len(path_tasks)
    assert json.loads((out / "manifest.json").read_text())["models"]["agent"]["model"] == \
        "fake-agent"


# ---- the judge at scoring ----------------------------------------------------------------------
def test_judge_added_at_scoring_and_not_part_of_the_identity(tiny, tmp_path, capsys):
    out = tmp_path / "ego"
    assert main(run_args(tiny, "ego", "relation-aware", out)) == 0
    assert "novelty_llm" not in json.dumps(summary(out))
    fake = FakeOpenAI().start()

    def judge(body):
        text = body["messages"][0]["content"]
        if "Deep learning foundations" in text:
            return Step(text="no json here")                # unscored after the repair
        return Step(text=json.dumps({"score": 6, "reasoning": "fine"}))
    fake.default = judge
    try:
        flags = ["--judge", "fake-judge", "--judge-base-url", fake.base_url, "--no-llm-cache"]
        assert main(["score", str(out), "--with-judge", *flags]) == 0
        printed = capsys.readouterr().out
        n = len(fake.requests)
        assert n > 0 and ("judge novelty_llm" in printed or "judge disruption_llm" in printed)
        s = summary(out)
        ego = s["families"]["ego"]
        llm = [k for k in ("novelty_llm", "disruption_llm") if k in ego]
        assert llm and all(s["metrics"][k]["mean"] == ego[k]["macro"] for k in llm)
        counts = ego["judge"]
        assert sum(c["judged"] for c in counts.values()) > 0
        unscored = sum(c["unscored"] for c in counts.values())
        assert unscored > 0
        assert unscored == sum(c["reasons"].get("invalid_json", 0) for c in counts.values())
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["judged"]["ego"]["judges"][0]["model"] == "fake-judge"
        assert manifest["usage"]["ego"]["judge"]["calls"] == n
        assert "with_judge" not in manifest["options"]
        # running again with --with-judge resumes the same run: nothing regenerated, the
        # scored judgements reused (only the unscored ones are asked again)
        before = (out / "generate.jsonl").read_text()
        assert main(run_args(tiny, "ego", "relation-aware", out, "--with-judge", *flags)) == 0
        assert (out / "generate.jsonl").read_text() == before
        assert len(fake.requests) - n == 2 * unscored                 # ask + one repair each
        assert summary(out)["families"]["ego"]["judge"] == counts
    finally:
        fake.stop()


def test_score_scinet_files_with_judge(tiny, tmp_path, capsys):
    graph, unarxive, tasks = tiny
    ego = [t for t in read_tasks(tasks) if t.family == "ego"]
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": t.task_id, "papers": [
        "Residual networks", "Attention models (2013)", "nowhere"]}) + "\n" for t in ego))
    fake = FakeOpenAI().start()
    fake.default = Step(text=json.dumps({"score": 4, "reasoning": "ok"}))
    out = tmp_path / "s.jsonl"
    try:
        assert main(["score", "scinet", "--tasks", str(tasks), "--answers", str(answers),
                     "--out", str(out), "--graph", str(graph), "--unarxive", str(unarxive),
                     "--with-judge", "--judge", "fake-judge", "--judge-base-url",
                     fake.base_url, "--no-llm-cache"]) == 0
    finally:
        fake.stop()
    assert len(fake.requests) == 2                # two distinct papers, each judged once
    s = json.loads(out.with_suffix(".summary.json").read_text())
    fam = s["families"]["ego"]
    llm = [k for k in ("novelty_llm", "disruption_llm") if k in fam]
    assert llm and all(fam[k]["macro"] == 4 for k in llm)
    assert s["judge_manifest"]["judged"]["ego"]["judges"][0]["model"] == "fake-judge"
    assert s["judge_manifest"]["llm_usage"]["judge"]["calls"] == 2
    assert len(lines(out.with_suffix(".judge") / "judge.ego.jsonl")) == 2
    assert fam["unresolved_refs"] == len(ego) and s["unanswered_tasks"] == \
        len(read_tasks(tasks)) - len(ego)
    assert "judge " in capsys.readouterr().out


# ---- kill and resume ---------------------------------------------------------------------------
def _cli(args: list[str], delay: str) -> subprocess.Popen:
    env = dict(os.environ, SCINET_SLOW=delay,
               PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen([sys.executable, "-m", "scholarbench", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_sigkill_mid_generate_resumes_to_the_same_scores(tiny, tmp_path):
    graph, unarxive, tasks = tiny
    n = sum(t.family == "pair" for t in read_tasks(tasks))
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    proc = _cli(run_args(tiny, "pair", "scinet_user_agent:solve", killed), "0.5")
    gen = killed / "generate.jsonl"
    done_before = kill_after_lines(proc, gen)
    assert 3 <= done_before < n, "the kill must land mid-generate"
    assert not (killed / "scores.jsonl").exists()
    for out in (killed, clean):
        proc = _cli(run_args(tiny, "pair", "scinet_user_agent:solve", out), "0")
        assert proc.wait(timeout=300) == 0, proc.stderr.read()
    ids = [g["task_id"] for g in lines(gen)]
    assert sorted(ids) == sorted(t.task_id for t in read_tasks(tasks) if t.family == "pair")
    assert lines(killed / "scores.jsonl") == lines(clean / "scores.jsonl")
    a, b = summary(killed), summary(clean)
    assert a["families"] == b["families"] and a["metrics"] == b["metrics"]
