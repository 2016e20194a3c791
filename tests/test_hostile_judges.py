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
