"""DeepSynth-Eval on the engine, from the command line: a user's plain function (`module:attr`)
and a family-schema replay file, `--replay` as an alias, an agent raising on one task (exit 3,
`status: error`, only it redone), `--agent endpoint` answering in plain text, a run killed
mid-generate and resumed to the same scores, the imported task file as the default (and `eval`),
`score deepsynth --judged`, `score RUN_DIR` and `score RUN_DIR --with-judge`."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import shared_path
from fake_openai import FakeOpenAI, Step
from scholarbench import cli
from scholarbench.benchmarks.deepsynth import load_tasks, unified_prompt
from test_deepsynth_oracle import build_corpus, checklist, kind_of, router, write_tasks

HERE = Path(__file__).parent
SRC = HERE.parent / "src"

USER_AGENT = '''
"""A user's agent: a plain function, no scholarbench import."""
import json, os, time

REPORTS = {"7": "Widget transformers are the main family.",
           "8": "Gadget pooling, and the limitations of gadget methods."}


def solve(task):
    if os.environ.get("DS_SEEN"):
        with open(os.environ["DS_SEEN"], "a") as f:
            f.write(json.dumps(task) + "\\n")
    if os.environ.get("DS_DELAY"):
        time.sleep(float(os.environ["DS_DELAY"]))
    if os.environ.get("DS_FAIL") == task["id"]:
        raise ConnectionError("the agent's endpoint is unreachable")
    cited = [r["title"] for r in task["references"] or []][:2]
    return {"report": REPORTS.get(task["id"], "Widget transformers; widget graphs."),
            "cited": cited or ["Gadget pooling for widgets"]}
'''


def rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    return build_corpus(tmp_path_factory.mktemp("ds-engine-corpus"))


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    server.default = router()
    yield server
    server.stop()


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "data"))
    user = tmp_path / "user"
    user.mkdir()
    (user / "ds_user_agent.py").write_text(USER_AGENT)
    monkeypatch.syspath_prepend(str(user))
    monkeypatch.chdir(tmp_path)
    return write_tasks(tmp_path / "tasks.jsonl")


def judge_flags(fake: FakeOpenAI, model: str = "fake-judge") -> list[str]:
    return ["--judge", model, "--judge-base-url", fake.base_url]


def kinds(fake: FakeOpenAI, start: int = 0) -> list[str]:
    return [kind_of(b) for b in fake.requests[start:]]


def test_a_plain_user_function_gets_the_prompt_and_the_oracle(env, fake, corpus_dir, tmp_path,
                                                              monkeypatch, capsys):
    seen = tmp_path / "seen.jsonl"
    monkeypatch.setenv("DS_SEEN", str(seen))
    code = cli.main(["run", "deepsynth", "--agent", "ds_user_agent:solve", "--tasks", str(env),
                     "--corpus", str(corpus_dir), "--oracle", "abstract", "--out", "runs/u",
                     "--quiet", *judge_flags(fake)])
    assert code == 0, capsys.readouterr().err
    tasks = {str(t.task_id): t for t in load_tasks(env)}
    got = {t["id"]: t for t in rows(seen)}
    assert got["7"]["prompt"] == unified_prompt(tasks["7"])      # the paper's unified prompt
    assert got["7"]["constraints"] == ["Organise the widget methods by input type."]
    assert "survey_id" not in got["7"] and got["7"]["family"] == "report"
    assert [r["n"] for r in got["7"]["references"]] == [1, 2, 3, 4]
    assert got["8"]["references"] is None                        # its survey is not in the corpus
    assert got["7"]["cutoff"] == "2023-01-15"
    run = tmp_path / "runs/u"
    gen = {g["task_id"]: g for g in rows(run / "generate.jsonl")}
    # the cited refs are resolved offline and shown to the judge as a references section
    assert gen[7]["cited"] == ["arxiv:2001.00001", "arxiv:2002.00003"]   # oracle [1], [2]
    assert gen[7]["report"].endswith("## References\n\n[1] Widget transformers\n"
                                     "[2] Widget graphs without abstract\n")
    assert gen[7]["info"] == {"n_cited_refs": 2, "n_cited_unresolved": 0, "references_added": 1}
    judge_prompts = [b["messages"][0]["content"] for b in fake.requests if kind_of(b) == "judge"]
    assert any("[2] Widget graphs without abstract" in p for p in judge_prompts)
    scores = {r["task_id"]: r for r in rows(run / "scores.jsonl")}
    assert scores[7]["n_correct"] == 2 and scores[7]["status"] == "scored"  # transformers, graphs
    summary = json.loads((run / "summary.json").read_text())
    assert summary["setting"] == "oracle-abstract" and summary["status"] == {"scored": 2}
    assert summary["metrics"]["dse_overall"]["n"] == 2
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["mode"] == "report" and manifest["options"]["oracle_config"]["mode"] == \
        "abstract"
    assert (run / "oracle.jsonl").exists() and (run / "tasks.jsonl").exists()
    # score RUN_DIR: the same numbers from the files, no model call
    n = len(fake.requests)
    before = (run / "scores.jsonl").read_text()
    assert cli.main(["score", str(run)]) == 0
    assert (run / "scores.jsonl").read_text() == before and len(fake.requests) == n


def test_a_family_schema_replay_file_and_the_replay_alias(env, fake, corpus_dir, tmp_path,
                                                          capsys):
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join(json.dumps(x) for x in [
        {"id": 7, "report": "Widget transformers and gadget pooling.",
         "cited": ["arXiv:2001.00001", "A paper nobody has"]},
        {"id": 8, "reprot": "a misspelt key"}]) + "\n")
    code = cli.main(["run", "deepsynth", "--agent", "replay", "--agent-arg", f"path={answers}",
                     "--tasks", str(env), "--corpus", str(corpus_dir), "--out", "runs/r",
                     "--quiet", *judge_flags(fake)])
    assert code == 0, capsys.readouterr().err
    assert set(kinds(fake)) == {"judge"} and len(fake.requests) == 3    # task 7 only
    run = tmp_path / "runs/r"
    gen = {str(g["task_id"]): g for g in rows(run / "generate.jsonl")}
    assert gen["7"]["cited"] == ["arxiv:2001.00001", "A paper nobody has"]
    assert gen["7"]["info"]["n_cited_unresolved"] == 1
    assert gen["8"]["status"] == "malformed" and "field report" in gen["8"]["error"]
    scores = {str(r["task_id"]): r for r in rows(run / "scores.jsonl")}
    assert scores["7"]["n_correct"] == 2 and scores["7"]["status"] == "scored"
    assert scores["8"]["status"] == "malformed" and scores["8"]["dse_overall"] == 0.0
    assert scores["8"]["report_status"] == "malformed"
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == {"scored": 1, "malformed": 1} and summary["complete"] is True
    assert summary["setting"] == "replay" and not (run / "oracle.jsonl").exists()
    # --replay FILE is the same agent
    code = cli.main(["run", "deepsynth", "--agent", "replay", "--replay", str(answers),
                     "--tasks", str(env), "--corpus", str(corpus_dir), "--out", "runs/r2",
                     "--quiet", *judge_flags(fake)])
    assert code == 0, capsys.readouterr().err
    assert rows(tmp_path / "runs/r2/scores.jsonl") == rows(run / "scores.jsonl")
    code = cli.main(["run", "deepsynth", "--agent", "ds_user_agent:solve", "--replay",
                     str(answers), "--tasks", str(env), "--out", "runs/r3", *judge_flags(fake)])
    assert code == 2 and "--replay FILE goes with --agent replay" in capsys.readouterr().err
    assert not (tmp_path / "runs/r3").exists()


def test_an_agent_error_exits_3_and_the_rerun_retries_only_it(env, fake, tmp_path, monkeypatch,
                                                              capsys):
    monkeypatch.setenv("DS_FAIL", "8")
    argv = ["run", "deepsynth", "--agent", "ds_user_agent:solve", "--tasks", str(env),
            "--corpus", "none", "--out", "runs/e", "--quiet", *judge_flags(fake)]
    assert cli.main(argv) == 3
    err = capsys.readouterr().err
    assert "1 sample(s) errored" in err and "ConnectionError" in err
    run = tmp_path / "runs/e"
    gen = rows(run / "generate.jsonl")
    assert [(str(g["task_id"]), g.get("status", "ok")) for g in gen] == [("7", "ok"), ("8", "error")]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == {"scored": 1, "error": 1} and summary["complete"] is False
    assert summary["reports"]["write_error"] == 1 and summary["n_tasks"] == 1
    assert summary["metrics"]["dse_overall"]["n"] == 1
    error_row = rows(run / "scores.jsonl")[1]
    assert error_row["status"] == "error" and error_row["dse_overall"] is None
    assert kinds(fake).count("judge") == 3                       # task 7's sub-groups only
    monkeypatch.delenv("DS_FAIL")
    n = len(fake.requests)
    assert cli.main(argv) == 0, capsys.readouterr().err
    gen = rows(run / "generate.jsonl")
    assert [str(g["task_id"]) for g in gen] == ["7", "8", "8"]   # only task 8 was redone
    assert kinds(fake, n) == ["judge"] * 3                       # and only it judged
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == {"scored": 2} and summary["complete"] is True


def endpoint_router(body: dict) -> Step:
    if body["messages"][0]["role"] == "system":      # the endpoint agent: a plain-text report
        return Step(text="Widget Learning\n\nWidget transformers and gadget pooling dominate; "
                    "see Vaswani et al.\n\nReferences\n1. Widget transformers (2020)")
    return router()(body)


def test_the_endpoint_agent_answers_in_plain_text(env, fake, tmp_path, capsys):
    fake.default = endpoint_router
    code = cli.main(["run", "deepsynth", "--agent", "endpoint", "--model", "fake-agent",
                     "--base-url", fake.base_url, "--tasks", str(env), "--out", "runs/ep",
                     "--quiet", *judge_flags(fake)])
    assert code == 0, capsys.readouterr().err
    agent_calls = [b for b in fake.requests if b["messages"][0]["role"] == "system"]
    prompts = {b["messages"][1]["content"] for b in agent_calls}
    assert prompts == {unified_prompt(t) for t in load_tasks(env)}   # the prompt, nothing else
    assert "summary" not in kinds(fake)                              # no oracle for it
    run = tmp_path / "runs/ep"
    scores = rows(run / "scores.jsonl")
    assert [(r["n_correct"], r["status"]) for r in scores] == [(2, "scored"), (2, "scored")]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["setting"] == "prompt-only" and summary["complete"] is True
    assert summary["metrics"]["dse_overall"]["mean"] == pytest.approx(
        summary["means"]["dse_overall"])
    manifest = json.loads((run / "manifest.json").read_text())
    usage = manifest["usage"]                  # the two tasks ask the same: one is cached
    assert usage["generate"]["agent"]["calls"] + usage["generate"]["agent"]["cache_hits"] == 2
    # and their judge requests are the same (report and checklist): the engine asks each once
    assert usage["checklist"]["judge"]["calls"] + usage["checklist"]["judge"]["cache_hits"] == 3


def test_imported_tasks_are_the_default_and_eval_runs_deepsynth(env, fake, tmp_path, capsys):
    source = shared_path("data", "deepsynth")
    data = tmp_path / "data"
    code = cli.main(["run", "deepsynth", "--agent", "replay", "--out", "runs/none",
                     *judge_flags(fake)])
    assert code == 2 and "no DeepSynth-Eval tasks" in capsys.readouterr().err
    assert not (tmp_path / "runs/none").exists()
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "tasks.jsonl").write_text(json.dumps({"task_id": 1, "general_prompt": "Survey X.",
                                                 "checklist": "none"}) + "\n")
    assert cli.main(["data", "import", "deepsynth", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "tasks.jsonl" in err and "checklist" in err               # file, line and field
    assert not (data / "deepsynth" / "tasks.jsonl").exists()
    assert cli.main(["data", "import", "deepsynth", str(source)]) == 0
    assert (data / "deepsynth" / "example_gen_result.jsonl").exists()
    assert (data / "deepsynth" / "LICENSE-upstream-MIT.txt").exists()
    fake.default = lambda body: Step(text=json.dumps(["not_mentioned"] * int(
        body["messages"][0]["content"].split("contains exactly ")[1].split()[0])))
    capsys.readouterr()
    code = cli.main(["eval", "--benchmarks", "deepsynth", "--agent", "replay", "--limit", "1",
                     "--out", "runs/suite", "--quiet", *judge_flags(fake)])
    out = capsys.readouterr().out
    assert code == 0 and "deepsynth" in out
    suite = json.loads((tmp_path / "runs/suite/eval.json").read_text())
    entry = suite["runs"][0]
    assert (entry["benchmark"], entry["subtask"], entry["status"]) == ("deepsynth", "report",
                                                                        "complete")
    assert entry["headline"]["dse_overall"] == 0.0 and len(fake.requests) == 98
    summary = json.loads((tmp_path / "runs/suite/deepsynth-report/summary.json").read_text())
    assert summary["n_not_mentioned"] == 276


def test_score_files_and_rejudging_a_run_dir(env, fake, tmp_path, capsys):
    golden = shared_path("golden-inputs", "deepsynth", "judged_tasks.jsonl")
    assert cli.main(["score", "deepsynth", "--judged", str(golden), "--out", "s.jsonl"]) == 0
    assert "32.76%" in capsys.readouterr().out                  # Overall 0.327642
    assert cli.main(["score", "deepsynth", "--judged", str(golden), "--out", "u.jsonl",
                     "--variant", "upstream"]) == 0
    assert "dse_overall(upstream=1)" in rows(tmp_path / "u.jsonl")[0]
    replay = tmp_path / "reports.jsonl"
    replay.write_text(json.dumps({"task_id": 7, "report": "Widget transformers."}) + "\n"
                      + json.dumps({"task_id": 8, "report": "Gadget pooling."}) + "\n")
    assert cli.main(["run", "deepsynth", "--agent", "replay", "--replay", str(replay),
                     "--tasks", str(env), "--out", "runs/j", "--quiet",
                     *judge_flags(fake)]) == 0
    run = tmp_path / "runs/j"
    n = len(fake.requests)
    assert cli.main(["score", str(run), "--with-judge", *judge_flags(fake, "judge-two")]) == 0
    assert kinds(fake, n) == ["judge"] * 6                       # every task, the new judge
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["judged"]["checklist"]["judges"][0]["model"].endswith("judge-two")
    assert manifest["llm_usage"]["judge"]["calls"] == 12
    judged = rows(run / "judge.checklist.jsonl")
    assert len(judged) == 12 and judged[-1]["judge"].endswith("judge-two")
    # a plain re-score reads the latest judgements; nothing is asked of any model
    n = len(fake.requests)
    assert cli.main(["score", str(run)]) == 0 and len(fake.requests) == n


# ---- kill and resume (a subprocess, killed mid-generate) --------------------------------------

def many_tasks(path: Path, n: int = 8) -> Path:
    lines = [{"task_id": i, "survey_id": f"2302.{i:05d}",
              "general_prompt": "Please write a comprehensive survey paper on widget learning "
                                "based on the provided papers.", "checklist": checklist()}
             for i in range(1, n + 1)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def _start(args: list[str], user: Path, delay: str) -> subprocess.Popen:
    env = dict(os.environ, DS_DELAY=delay)
    env["PYTHONPATH"] = os.pathsep.join([str(user), str(SRC), env.get("PYTHONPATH", "")])
    return subprocess.Popen([sys.executable, "-m", "scholarbench", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_run_killed_mid_generate_resumes_to_the_same_scores(env, fake, tmp_path):
    tasks = many_tasks(tmp_path / "many.jsonl")
    user = tmp_path / "user"

    def args(out: Path) -> list[str]:
        return ["run", "deepsynth", "--agent", "ds_user_agent:solve", "--tasks", str(tasks),
                "--corpus", "none", "--out", str(out), "--quiet", *judge_flags(fake)]
    killed = tmp_path / "killed"
    proc = _start(args(killed), user, "0.4")
    gen = killed / "generate.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline:
        if gen.exists() and len(gen.read_text().splitlines()) >= 3:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    done_before = len(gen.read_text().splitlines())
    assert 3 <= done_before < 8, "the kill must land mid-generate"
    assert not (killed / "scores.jsonl").exists()
    resumed = _start(args(killed), user, "0")
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    ids = [json.loads(x)["task_id"] for x in gen.read_text().splitlines() if x.strip()]
    assert sorted(set(ids)) == list(range(1, 9)) and len(ids) in (8, 9)  # a torn line redone
    clean = _start(args(tmp_path / "clean"), user, "0")
    out, err = clean.communicate(timeout=300)
    assert clean.returncode == 0, err
    assert rows(killed / "scores.jsonl") == rows(tmp_path / "clean" / "scores.jsonl")
    a = json.loads((killed / "summary.json").read_text())
    b = json.loads((tmp_path / "clean" / "summary.json").read_text())
    assert a["means"] == b["means"] and a["status"] == b["status"] == {"scored": 8}


def test_unscored_judge_items_are_asked_again_not_served_from_the_cache(env, fake, tmp_path):
    """A judge reply that did not parse is not a verdict: re-scoring with the same judge sends
    those requests again (the reply cache kept only parsed replies) and scores them."""
    replay = tmp_path / "reports.jsonl"
    replay.write_text(json.dumps({"task_id": 7, "report": "Widget transformers."}) + "\n"
                      + json.dumps({"task_id": 8, "report": "Gadget pooling."}) + "\n")
    good = router()
    fake.default = lambda body: (Step(text="I cannot say.") if kind_of(body) == "judge"
                                 else good(body))
    assert cli.main(["run", "deepsynth", "--agent", "replay", "--replay", str(replay),
                     "--tasks", str(env), "--out", "runs/bad", "--quiet",
                     *judge_flags(fake)]) == 0
    run = tmp_path / "runs/bad"
    assert {r["status"] for r in rows(run / "scores.jsonl")} == {"unscored"}
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == {"unscored": 2}
    fake.default = good                                  # the same judge now answers
    n = len(fake.requests)
    assert cli.main(["score", str(run), "--with-judge", *judge_flags(fake)]) == 0
    assert kinds(fake, n) and set(kinds(fake, n)) == {"judge"}
    assert {r["status"] for r in rows(run / "scores.jsonl")} == {"scored"}
    # judged and scored now: a plain re-score asks nothing
    n = len(fake.requests)
    assert cli.main(["score", str(run), "--with-judge", *judge_flags(fake)]) == 0
    assert len(fake.requests) == n


def test_quiet_prints_no_progress_bar_of_any_stage(env, fake, corpus_dir, capsys):
    """--quiet silences the oracle and judge stages too, on `run` and on `score RUN_DIR`."""
    code = cli.main(["run", "deepsynth", "--agent", "ds_user_agent:solve", "--tasks", str(env),
                     "--corpus", str(corpus_dir), "--oracle", "abstract", "--out", "runs/q",
                     "--quiet", *judge_flags(fake)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "judge" in kinds(fake)
    assert "%|" not in err and "sample/s" not in err, err
    assert cli.main(["score", "runs/q", "--with-judge", "--quiet",
                     *judge_flags(fake, "judge-two")]) == 0
    err = capsys.readouterr().err
    assert "%|" not in err and "sample/s" not in err, err
