"""The benchmarks as Inspect tasks (`scholarbench.inspect_tasks`, docs/inspect.md).

`inspect_ai.eval` of TaxoBench Bottom-Up and ReportBench (shipped prompts) with `mockllm/model`
answering each prompt with a scripted reply runs offline; then `scholarbench run --agent
endpoint` on a scripted OpenAI-compatible server giving the same replies to the same prompts
writes a run directory, and each sample's Inspect score equals its row in scores.jsonl:
every per-sample measure (NaN for a null), the status and the reason. The replies cover a
right answer, a partly right one and an unreadable one (`malformed` / `no_references`), so
the comparison sees different values and statuses. The server also checks that the engine's
endpoint agent sent exactly the messages the Inspect sample's input holds.

Also: `inspect eval scholarbench/taxobench_bottom_up` on the command line finds the task
through pyproject.toml's entry point and runs it against an OpenAI-compatible endpoint; every
sub-task of every registered benchmark is an Inspect task `scholarbench/<benchmark>_<sub-task>`
in inspect-ai's registry; a bad option is Inspect's one-line `PrerequisiteError`; the
literature tools reach the model as Inspect tools bound to the sample's leakage rules; and
importing the package does not import inspect-ai.

inspect-ai is the optional extra `scholarbench[inspect]`: without it these tests skip (and fail
when CI=true).
"""
from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import require_extra, shared_path
from fake_openai import FakeOpenAI, Step
from scholarbench.cli import main

pytestmark = pytest.mark.slow        # builds the default corpus for ReportBench (~15 s)

LIMIT = 2


@pytest.fixture(scope="module")
def inspect_ai():
    return require_extra("inspect_ai", "inspect")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory, inspect_ai):
    """TaxoBench and ReportBench imported as a user does, as SCHOLARBENCH_DATA."""
    data = tmp_path_factory.mktemp("inspect-data") / "data"
    for name, parts in {"taxobench": ("taxobench", "taxobench_5_instances.jsonl"),
                        "reportbench": ("reportbench",)}.items():
        assert main(["data", "--data", str(data), "import", name,
                     str(shared_path("data", *parts))]) == 0
    before = os.environ.get("SCHOLARBENCH_DATA")
    os.environ["SCHOLARBENCH_DATA"] = str(data)
    yield data
    if before is None:
        os.environ.pop("SCHOLARBENCH_DATA", None)
    else:
        os.environ["SCHOLARBENCH_DATA"] = before


def _user_prompt(messages) -> str:
    return next(m.text for m in messages if m.role == "user")


def _mock_model(replies: dict[str, str]):
    """`mockllm/model` answering each user prompt with its scripted reply (with usage given,
    so mockllm counts no tokens with tiktoken, which would download its tables)."""
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    def reply(messages, tools, tool_choice, config):
        out = ModelOutput.from_content("mockllm/model", replies[_user_prompt(messages)])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out
    return get_model("mockllm/model", custom_outputs=reply)


def _inspect_scores(task, replies: dict[str, str], log_dir: Path) -> dict[str, object]:
    from inspect_ai import eval as inspect_eval
    [log] = inspect_eval(task, model=_mock_model(replies), log_dir=str(log_dir),
                         display="none", max_samples=1)
    assert log.status == "success", log.error
    assert [s.id for s in log.samples] and all(len(s.scores) == 1 for s in log.samples)
    return {str(s.id): next(iter(s.scores.values())) for s in log.samples}


def _engine_rows(args: list[str], replies: dict[str, str], inputs: dict[str, list],
                 out: Path, monkeypatch) -> dict[str, dict]:
    """`scholarbench run … --agent endpoint` on a server replying as mockllm did; each request's
    messages must be the Inspect sample's input for that prompt."""
    sent: dict[str, list] = {}

    def answer(body: dict) -> Step:
        prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
        sent[prompt] = body["messages"]
        return Step(text=replies.get(prompt, "an unexpected prompt"))
    fake = FakeOpenAI(default=answer).start()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-0")
    try:
        code = main(["run", *args, "--agent", "endpoint", "--model", "scripted", "--base-url",
                     fake.base_url, "--limit", str(LIMIT), "--out", str(out), "--quiet"])
    finally:
        fake.stop()
    assert code == 0
    assert sent == inputs          # the engine's endpoint agent sent what Inspect's input holds
    rows = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines() if x]
    return {str(r["id"]): r for r in rows}


def _inputs(task) -> dict[str, list]:
    """User prompt → the sample's input as chat messages (role, content)."""
    return {_user_prompt(s.input): [{"role": m.role, "content": m.text} for m in s.input]
            for s in task.dataset}


def _assert_equal(scores: dict, rows: dict, keys: list[str]) -> None:
    assert set(scores) == set(rows)
    for sid, row in rows.items():
        score = scores[sid]
        assert list(score.value) == keys
        for key in keys:
            ours = row.get(key)
            theirs = score.value[key]
            if ours is None:
                assert math.isnan(theirs), (sid, key, theirs)
            else:
                assert theirs == pytest.approx(ours, rel=1e-12, abs=0), (sid, key)
        assert score.metadata["status"] == row["status"], sid
        assert score.metadata["reason"] == row.get("reason"), sid
        assert score.explanation == row.get("reason")


def _tree(node, paper) -> dict:
    return {"name": node.name, "subtopics": [_tree(c, paper) for c in node.children],
            "papers": [paper(t) for t in node.papers]}


def test_taxobench_task_scores_equal_scholarbench_score(data_dir, tmp_path, monkeypatch):
    from scholarbench.inspect_tasks.dataset import load_task_data
    from scholarbench.inspect_tasks.scorer import measure_keys
    from scholarbench.inspect_tasks.tasks import data_task
    data = load_task_data("taxobench", "bottom-up", limit=LIMIT)
    task = data_task(data)
    samples = list(data.samples.values())
    assert [s.id for s in task.dataset] == [s.id for s in samples] and len(samples) == LIMIT
    replies = {}
    # the first: the expert taxonomy with the prompt's paper numbers (as the prompt asks)
    first = samples[0]
    number = {t.strip(): int(n) for n, t in reversed(re.findall(
        r"^Paper (\d+):\n  Title: (.*)$", first.task.prompt, re.M))}
    replies[first.task.prompt] = "```json\n" + json.dumps(
        _tree(first.gold, lambda t: number[t.strip()])) + "\n```"
    replies[samples[1].task.prompt] = "I cannot build this taxonomy."       # malformed
    for s in task.dataset:
        assert s.metadata["scholarbench"]["id"] == s.id
        assert [m.role for m in s.input] == ["system", "user"]
        assert _user_prompt(s.input) in replies
    scores = _inspect_scores(task, replies, tmp_path / "logs")
    rows = _engine_rows(["taxobench", "--mode", "bottom-up"], replies, _inputs(task),
                        tmp_path / "run", monkeypatch)
    keys = measure_keys(data)
    assert "recall" in keys and "soft_f1" in keys
    _assert_equal(scores, rows, keys)
    assert scores[first.id].value["recall"] == 1.0 and scores[first.id].metadata["status"] \
        == "scored"
    assert scores[samples[1].id].metadata["status"] == "malformed"


def test_reportbench_task_scores_equal_scholarbench_score(data_dir, tmp_path, monkeypatch):
    from scholarbench.benchmarks.reportbench.ground_truth import load_ground_truth
    from scholarbench.inspect_tasks.dataset import load_task_data
    from scholarbench.inspect_tasks.scorer import measure_keys
    from scholarbench.inspect_tasks.tasks import data_task
    data = load_task_data("reportbench", "shipped", limit=LIMIT)
    task = data_task(data)
    samples = list(data.samples.values())
    gt = load_ground_truth(Path(data.manifest["data"]["gt_dir"]))
    titles = [r.title for r in gt[samples[0].id]][:6] + ["A paper nobody ever wrote on llamas"]
    refs = "\n".join(f"[{i}] {t}." for i, t in enumerate(titles, start=1))
    replies = {samples[0].task.prompt: f"# Report\n\nFindings [1] [2].\n\n## References\n{refs}\n",
               samples[1].task.prompt: "A report without any reference."}
    scores = _inspect_scores(task, replies, tmp_path / "logs")
    rows = _engine_rows(["reportbench", "--granularity", "shipped"], replies, _inputs(task),
                        tmp_path / "run", monkeypatch)
    keys = measure_keys(data)
    assert keys == ["ref_precision", "ref_recall", "ref_count"]
    _assert_equal(scores, rows, keys)
    first = scores[samples[0].id]
    assert 0 < first.value["ref_precision"] < 1 and first.value["ref_recall"] > 0
    assert first.metadata["status"] == "scored"
    assert scores[samples[1].id].value["ref_count"] == 0


def test_every_subtask_is_a_registered_inspect_task(inspect_ai, data_dir):
    from inspect_ai._util.registry import registry_lookup
    from scholarbench.core.lookup import benchmark_class, engine_benchmarks
    import scholarbench.inspect_tasks._registry as registered
    names = [f"{b}_{s}".replace("-", "_") for b in engine_benchmarks()
             for s in benchmark_class(b).subtasks]
    assert "taxobench_bottom_up" in names and "reportbench_shipped" in names
    assert len(names) == 14          # 1 + 4 + 3 + 4 + 2 sub-tasks
    for name in names:
        assert registry_lookup("task", f"scholarbench/{name}") is getattr(registered, name)
    import scholarbench.inspect_tasks as package
    assert all(getattr(package, name) is not None for name in package.__all__)
    task = getattr(registered, "taxobench_bottom_up")(limit=1, model="ignored")
    assert len(task.dataset) == 1
    assert task.metadata["scholarbench"]["subtask"] == "bottom-up"


def test_inspect_eval_finds_and_runs_a_task_through_the_entry_point(data_dir, tmp_path):
    """`inspect eval scholarbench/taxobench_bottom_up` as a user types it: pyproject.toml's
    `inspect_ai` entry point, installed as a distribution's metadata, is what inspect-ai loads
    to find the task; the model is an OpenAI-compatible endpoint (the scripted server, through
    Inspect's `openai-api` provider); the logged score equals our scoring of the same reply."""
    import tomllib
    from inspect_ai.log import read_eval_log
    from scholarbench.inspect_tasks.dataset import load_task_data
    from scholarbench.inspect_tasks.scorer import score_reply
    root = Path(__file__).resolve().parents[1]
    points = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["entry-points"]["inspect_ai"]
    assert points == {"scholarbench": "scholarbench.inspect_tasks._registry"}
    dist = tmp_path / "site" / "scholarbench_entry-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: scholarbench-entry\n"
                                   "Version: 0\n")
    (dist / "entry_points.txt").write_text(
        "[inspect_ai]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()))
    reply = '{"name": "root", "subtopics": [{"name": "A", "papers": [2]}], "papers": [1, 3]}'
    fake = FakeOpenAI(default=Step(text=reply)).start()
    env = {**os.environ, "SCHOLARBENCH_DATA": str(data_dir), "FAKE_BASE_URL": fake.base_url,
           "FAKE_API_KEY": "sk-test-not-a-real-key-0",
           "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(root / "src")])}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "inspect_ai", "eval", "scholarbench/taxobench_bottom_up",
             "--model", "openai-api/fake/scripted", "-T", "limit=1", "--log-dir",
             str(tmp_path / "logs"), "--log-format", "json", "--display", "none"],
            capture_output=True, text=True, env=env, timeout=900)
    finally:
        fake.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    [path] = (tmp_path / "logs").glob("*.json")
    log = read_eval_log(str(path))
    assert log.status == "success" and log.eval.task == "scholarbench/taxobench_bottom_up"
    [sample] = log.samples
    data = load_task_data("taxobench", "bottom-up", limit=1)
    assert [m["content"] for m in fake.requests[0]["messages"]] == \
        [m.text for m in sample.input]
    row, _ = score_reply(data, str(sample.id), reply)
    [score] = sample.scores.values()
    assert score.metadata["status"] == row["status"] == "scored"
    assert score.value["recall"] == row["recall"] > 0
    assert score.value["us_ted"] == row["us_ted"]


def test_a_bad_option_is_one_line(inspect_ai, data_dir):
    from inspect_ai._util.error import PrerequisiteError
    import scholarbench.inspect_tasks._registry as registered
    with pytest.raises(PrerequisiteError) as err:
        registered.taxobench_bottom_up(no_such_option=1)
    assert "scholarbench/taxobench_bottom_up" in err.value.message
    assert "no_such_option" in err.value.message and "\n" not in err.value.message
    with pytest.raises(PrerequisiteError) as err:
        registered.taxobench_bottom_up(with_judge=True)
    assert "judge" in err.value.message


def test_the_literature_tools_are_inspect_tools_under_the_samples_rules(data_dir, tmp_path):
    """A model that searches for its own survey's title, then answers: the search runs in the
    sample's session, so the survey (hidden by ReportBench's rule) is not returned — the same
    search without rules finds it first — and the tool result reaches the model's next turn."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from scholarbench.inspect_tasks.dataset import load_task_data
    from scholarbench.inspect_tasks.tasks import benchmark_task, data_task
    from scholarbench.tools.rules import AccessRules
    from scholarbench.tools.session import ToolSession
    loaded = load_task_data("reportbench", "shipped", limit=1)
    task = data_task(loaded, tools=True)
    assert "search" in task.dataset[0].input[0].text      # the tools' guide, as the endpoint's
    assert "search" not in data_task(loaded).dataset[0].input[0].text
    assert task.message_limit == 40 and benchmark_task(
        "reportbench", "shipped", limit=1, tools=True, message_limit=6).message_limit == 6
    rules = loaded.tools.source.rules(next(iter(loaded.samples.values())))
    title = rules.exclude_ids[-1]
    unrestricted = ToolSession(loaded.tools.corpus, AccessRules()).call(
        "search", {"query": title, "k": 5})
    assert unrestricted["results"][0]["title"] == title
    seen: list[list] = []

    def reply(messages, tools, tool_choice, config):
        seen.append(list(messages))
        if len(seen) == 1:
            assert {t.name for t in tools} >= {"search", "get_paper", "citations"}
            out = ModelOutput.for_tool_call("mockllm/model", "search", {"query": title, "k": 5})
        else:
            out = ModelOutput.from_content("mockllm/model", "A report without references.")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out
    [log] = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=reply),
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert len(seen) == 2
    tool_message = seen[1][-1]
    assert tool_message.role == "tool" and tool_message.function == "search"
    result = json.loads(tool_message.text)
    assert result["results"], result
    assert title not in [r["title"] for r in result["results"]]


def test_importing_the_package_does_not_import_inspect_ai():
    code = ("import sys, scholarbench.inspect_tasks as t; "
            "assert 'inspect_ai' not in sys.modules; print(sorted(t.__all__)[:1])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")})
    assert done.returncode == 0, done.stderr
