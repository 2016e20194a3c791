"""A user's agent on every benchmark through `scholarbench eval`, without reading our source:
a 15-line plain function (`module:attr`), an OpenAI-compatible endpoint that is the whole agent
(the scripted server on 127.0.0.1), and an agent that raises (exit 3, then only the errored
samples are retried). Runs on the shared data, imported the way a user imports it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import shared_path
from fake_openai import FakeOpenAI, Step
from one_story import assert_one_status_per_sample, assert_summary_rebuilt_from_scores

pytestmark = pytest.mark.slow

USER_AGENT = textwrap.dedent('''
    """My agent: one plain function, no scholarbench import."""
    import os


    def solve(task):
        if os.environ.get("MY_AGENT_FAILS") and task["id"] in os.environ["MY_AGENT_FAILS"]:
            raise TimeoutError("my endpoint timed out")
        topic = task.get("topic") or task["prompt"][:60]
        if task["family"] == "taxonomy":
            titles = [p["title"] for p in task.get("papers", [])] or [topic]
            half = len(titles) // 2
            return {"taxonomy": {"name": topic, "subtopics": [
                {"name": "first", "papers": titles[:half]},
                {"name": "second", "papers": titles[half:]}]}}
        if task["family"] == "report":
            return {"report": "# " + topic + "\\n\\nNo findings yet.", "cited": []}
        return {"papers": [topic]}
''')


def _imports(data: Path) -> list[list[str]]:
    """The user's `data import` commands for the datasets the suite reads."""
    sources = {"taxobench": ("taxobench", "taxobench_5_instances.jsonl"),
               "reportbench": ("reportbench",), "arxiv2023": ("arxiv2023_citation_graph",),
               "unarxive": ("unarxive_sample",),
               "deepsynth": ("deepsynth", "example_gen_result.jsonl")}
    out = []
    for name, parts in sources.items():
        path = shared_path("data", *parts)
        out.append(["data", "--data", str(data), "import", name, str(path)])
    return out


def _judge(body: dict) -> Step:
    """A scripted judge for DeepSynth-Eval's checklist: every requirement "not mentioned" (the
    user's agent writes no findings); a request with a JSON schema (the other benchmarks'
    judges) a reply that fits it; any other a plain reply."""
    from test_deepsynth_oracle import kind_of
    from fake_openai import schema_reply
    if kind_of(body) != "judge":            # eval with a judge turns every judged measure on
        return schema_reply(body) or Step(text="A short summary.")
    text = body["messages"][0]["content"]
    criteria = text.split("=== Input Data: Criteria ===")[1].split("=== Evaluation")[0]
    n = len([line for line in criteria.strip().splitlines() if line.strip()])
    return Step(text="```json\n" + json.dumps(["not_mentioned"] * n) + "\n```")


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    root = tmp_path_factory.mktemp("byo")
    data = root / "data"
    (root / "user").mkdir()
    (root / "user" / "mypkg_agent.py").write_text(USER_AGENT)
    judge = FakeOpenAI(default=_judge).start()
    env = dict(os.environ, SCHOLARBENCH_DATA=str(data), OPENAI_API_KEY="sk-test-not-a-real-key-0",
               PYTHONPATH=os.pathsep.join([str(root / "user"), os.environ.get("PYTHONPATH", "")]))
    env.pop("MY_AGENT_FAILS", None)
    for args in _imports(data):
        done = _cli(args, root, env)
        assert done.returncode == 0, done.stderr
    yield root, env, ["--judge", "judge-x", "--judge-base-url", judge.base_url,
                      "--option", "deepsynth.oracle=abstract"]
    judge.stop()


def _cli(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scholarbench", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=1800)


def _engine_benchmarks() -> list[str]:
    from scholarbench.core.engine import engine_benchmarks
    return engine_benchmarks()


def _eval_json(root: Path, out: str) -> dict:
    return json.loads((root / out / "eval.json").read_text())


@pytest.fixture(scope="module")
def plain_function_run(suite) -> subprocess.CompletedProcess:
    """The plain-function agent's suite run (`runs/mine`), made once: the Ray test compares
    its own run with this one."""
    root, env, judge = suite
    return _cli(["eval", "--agent", "mypkg_agent:solve", "--benchmarks", "all", "--limit", "2",
                 "--out", "runs/mine", "--quiet", *judge], root, env)


def test_a_plain_function_runs_on_every_benchmark(suite, plain_function_run):
    root, env, judge = suite
    done = plain_function_run
    assert done.returncode == 0, done.stderr[-3000:]
    report = _eval_json(root, "runs/mine")
    runs = report["runs"]
    assert {r["benchmark"] for r in runs} == set(_engine_benchmarks())
    for r in runs:
        assert r["status"] == "complete", r
        assert r["samples"] >= 1 and r["errors"] == 0
        rows = (root / r["run_dir"] / "scores.jsonl").read_text().splitlines()
        assert len(rows) == r["samples"]
    bottom_up = next(r for r in runs if (r["benchmark"], r["subtask"]) == ("taxobench",
                                                                         "bottom-up"))
    assert bottom_up["malformed"] == 0
    summary = json.loads((root / bottom_up["run_dir"] / "summary.json").read_text())
    assert summary["metrics"]["ari"]["n"] == 2          # two real taxonomies were scored
    # organisation is scored against TaxoBench's mind-maps (rebuilt surveys have none)
    org = next(r for r in runs if (r["benchmark"], r["subtask"]) == ("researcharena",
                                                                   "organisation"))
    assert org["counts"]["scored"] == org["samples"] and org["counts"]["unscorable"] == 0
    manifest = json.loads((root / org["run_dir"] / "manifest.json").read_text())
    assert manifest["data"]["tasks_from"] == "taxobench"
    assert "benchmark" in done.stdout and "headline" in done.stdout
    for r in runs:
        assert_one_status_per_sample(r, root)
        assert_summary_rebuilt_from_scores(root / r["run_dir"], root, env)


def test_an_empty_answer_has_one_status_in_every_file_on_every_subtask(suite):
    """The `{}` agent: generate file, scores.jsonl, summary.json, eval.json and the eval table
    say the same of every sample, and the summary is rebuilt from the scores alone."""
    root, env, judge = suite
    (root / "user" / "empty_agent.py").write_text("def solve(task):\n    return {}\n")
    done = _cli(["eval", "--agent", "empty_agent:solve", "--benchmarks", "all", "--limit", "2",
                 "--out", "runs/empty", "--quiet", *judge], root, env)
    assert done.returncode == 0, done.stderr[-3000:]
    runs = _eval_json(root, "runs/empty")["runs"]
    assert {r["benchmark"] for r in runs} == set(_engine_benchmarks())
    for r in runs:
        if r["status"] == "skipped":
            continue
        assert r["counts"]["scored"] == 0, r          # `{}` is nobody's answer
        assert r["counts"]["malformed"] + r["counts"]["missing"] + \
            r["counts"]["unscorable"] == r["samples"], r
        assert_one_status_per_sample(r, root)
        assert_summary_rebuilt_from_scores(root / r["run_dir"], root, env)


def test_an_agent_that_raises_fails_the_suite_and_only_its_samples_are_retried(suite):
    root, env, _ = suite
    from scholarbench.data.taxobench import load_instances
    first = load_instances(shared_path("data", "taxobench", "taxobench_5_instances.jsonl"))[0].id
    failing = dict(env, MY_AGENT_FAILS=first)
    done = _cli(["eval", "--agent", "mypkg_agent:solve", "--benchmarks", "taxobench",
                 "--limit", "2", "--out", "runs/flaky", "--quiet"], root, failing)
    assert done.returncode == 3, done.stderr[-2000:]
    assert "errored" in done.stderr and "TimeoutError" in done.stderr
    report = _eval_json(root, "runs/flaky")
    assert [(r["subtask"], r["status"], r["errors"]) for r in report["runs"]] == [
        ("bottom-up", "incomplete", 1), ("deep-research", "incomplete", 1)]
    again = _cli(["eval", "--agent", "mypkg_agent:solve", "--benchmarks", "taxobench",
                  "--limit", "2", "--out", "runs/flaky", "--quiet"], root, env)
    assert again.returncode == 0, again.stderr[-2000:]
    for r in _eval_json(root, "runs/flaky")["runs"]:
        assert r["status"] == "complete"
        lines = [json.loads(x) for x in
                 (root / r["run_dir"] / "generate.jsonl").read_text().splitlines()]
        assert [x["id"] for x in lines].count(first) == 2      # the errored one, redone
        assert len(lines) == 3                                  # the other was kept


def _replies(body: dict) -> Step:
    """A deep-research product's plain-text answers, by what the benchmark asked for."""
    system = " ".join(m["content"] for m in body["messages"] if m["role"] == "system")
    if "taxonomy" in system:
        return Step(text="# Survey\n\n## Methods\n- Attention Is All You Need\n- BERT\n"
                         "## Data\n- ImageNet\n")
    if "report" in system.lower() and "Markdown" in system:
        return Step(text="# Report\n\nTransformers [1].\n\n## References\n"
                         "[1] Attention Is All You Need. arXiv:1706.03762\n")
    return Step(text="1. \"Attention Is All You Need\" (arXiv:1706.03762)\n2. BERT\n")


def test_the_endpoint_is_the_whole_agent(suite):
    root, env, judge = suite
    fake = FakeOpenAI(default=_replies).start()
    try:
        done = _cli(["eval", "--agent", "endpoint", "--model", "product-x", "--base-url",
                     fake.base_url, "--benchmarks", "all", "--limit", "2", "--out",
                     "runs/endpoint", "--quiet", "--no-llm-cache", *judge],
                    root, dict(env, OPENAI_API_KEY="sk-test-not-a-real-key-000000"))
    finally:
        fake.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    runs = _eval_json(root, "runs/endpoint")["runs"]
    assert {r["benchmark"] for r in runs} == set(_engine_benchmarks())
    assert all(r["status"] == "complete" and r["malformed"] == 0 for r in runs), runs
    assert all(r["run_name"].startswith("endpoint@") and "product-x" in r["run_name"]
               for r in runs)                       # runs are named by agent and model
    prompts = [m["content"] for b in fake.requests for m in b["messages"] if m["role"] == "user"]
    assert any("Perform a bottom-up hierarchical clustering" in p for p in prompts)
    bottom_up = next(r for r in runs if r["subtask"] == "bottom-up")
    gen = [json.loads(x) for x in (root / bottom_up["run_dir"] / "generate.jsonl")
           .read_text().splitlines()]
    tree = gen[0]["prediction"]["hierarchy_tree"]
    assert [c["name"] for c in tree["subtopics"]] == ["Methods", "Data"]
    assert tree["subtopics"][0]["papers"] == ["Attention Is All You Need", "BERT"]
    for path in (root / "runs/endpoint").rglob("*"):
        if path.is_file():
            assert "sk-test-not-a-real-key" not in path.read_text(errors="ignore")


def test_the_whole_suite_on_ray_scores_as_the_local_run(suite, plain_function_run):
    """Every benchmark through `eval --ray` (a private cluster on 127.0.0.1): the shards'
    samples travel as the driver prepared them (DeepSynth's oracle references and cut-off),
    so every run's scores equal the local run's (the same command without `--ray`)."""
    if os.environ.get("CI") != "true":
        pytest.importorskip("ray", reason="Ray is the optional extra scholarbench[ray]")
    root, env, judge = suite
    assert plain_function_run.returncode == 0, plain_function_run.stderr[-3000:]
    done = _cli(["eval", "--agent", "mypkg_agent:solve", "--benchmarks", "all", "--limit",
                 "2", "--out", "runs/suite-ray", "--quiet", *judge, "--ray"], root, env)
    assert done.returncode == 0, done.stderr[-3000:]
    local, ray = _eval_json(root, "runs/mine")["runs"], _eval_json(root, "runs/suite-ray")["runs"]
    assert [(r["benchmark"], r["subtask"]) for r in local] == \
        [(r["benchmark"], r["subtask"]) for r in ray]
    for a, b in zip(local, ray):
        assert b["status"] == "complete", b
        assert (root / a["run_dir"] / "scores.jsonl").read_text() == \
            (root / b["run_dir"] / "scores.jsonl").read_text(), a["run_dir"]
    manifest = json.loads((root / ray[0]["run_dir"] / "manifest.json").read_text())
    assert manifest["ray"]["address"] == "local"
