"""`scholarbench export inspect`: a run directory as an Inspect eval log (docs/inspect.md).

For a real run of each of the five benchmarks (built offline with the report tests' builders:
replayed answers, scripted judges) and for the 150-row synthetic runs of tests/data/
runs-intervals (pooled measures, judge panels, errored samples), the log `inspect_ai.log.
read_eval_log` reads back holds every sample of scores.jsonl, every measure of each row
as a score equal to the row's value (null: not scored, with the row's status), and results
equal to summary.json's means and interval bounds; an incomplete run is an `error` log with its
reason; a directory that is not a run, and a missing inspect-ai, are one error line each. An
endpoint agent's run (scripted fake server) exports its transcript as ModelEvents in order
(messages, replies, tool calls, tokens), an agent's own step as an InfoEvent and a failed call
with its error, its conversation as the messages; a judged run its judge requests as spans of
judge-role ModelEvents; per-sample usage and cost are the records', the log's cost summary.json's.

inspect-ai is the optional extra `scholarbench[inspect]`: without it these tests skip (and fail
when CI=true), except the one that checks the command's message when it is absent.
"""
from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path

import pytest

from conftest import require_extra
from scholarbench.cli import main
from scholarbench.core.lookup import benchmark_class
from test_cost import judged_run  # noqa: F401  (fixture)
from test_tools_endpoint import corpus_dir  # noqa: F401  (fixture)

DATA = Path(__file__).parent / "data"
SYNTHETIC = ("deepsynth", "reportbench", "researcharena", "scinet-pair", "taxobench")


@pytest.fixture(scope="module")
def read_eval_log():
    return require_extra("inspect_ai.log", "inspect").read_eval_log


def _rows(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "scores.jsonl").read_text(encoding="utf-8")
            .splitlines() if x.strip()]


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory, read_eval_log) -> dict[str, Path]:
    """One finished run per benchmark (the report tests' builders), and an incomplete SciNet
    run whose agent fails on the co-mention tasks."""
    from fake_openai import FakeOpenAI
    from test_report_deepsynth_reportbench import (build_tiny_corpus, hostile_judge,
                                                   make_deepsynth_run, make_reportbench_run,
                                                   route, router)
    from test_report_html import make_arena_run, make_taxobench_run
    from test_report_scinet import SETTINGS
    from test_scinet_core import tiny_env
    from scholarbench.benchmarks.scinet.records import write_tasks
    from scholarbench.benchmarks.scinet.run import SciNetRunConfig, run_scinet
    from scholarbench.benchmarks.scinet.tasks import build_tasks
    from scholarbench.core.registry import REGISTRY

    root = tmp_path_factory.mktemp("inspect-runs")
    out = {"taxobench": make_taxobench_run(root, "taxo-bu"),
           "researcharena": make_arena_run(root, "arena-a", {"q1": ["p1", "x", "p2", "p9"],
                                                             "q2": ["x", "p5"]})}
    fake = FakeOpenAI().start()
    fake.default = router(judge=hostile_judge)       # one sub-group unscored: a null measure
    try:
        out["deepsynth"] = make_deepsynth_run(root, fake, "dse", {
            7: "# Widget learning\n\nWidget transformers and gadget pooling; widget graphs.",
            8: "Only widget transformers here."})
    finally:
        fake.stop()
    corpus_dir = root / "corpus"
    build_tiny_corpus(corpus_dir).close()
    fake = FakeOpenAI().start()
    fake.default = route
    try:
        out["reportbench"] = make_reportbench_run(root, fake, corpus_dir, "rb", False)
    finally:
        fake.stop()
    env = tiny_env()
    tasks = root / "scinet-tasks.jsonl"
    write_tasks(build_tasks(env, settings=SETTINGS), tasks)
    out["scinet"] = root / "scinet-pair"
    run_scinet(SciNetRunConfig("pair", "bm25", out["scinet"], tasks=tasks, env=env))

    class Flaky:
        """Fails on the co-mention tasks, as an unreachable endpoint would."""
        name, uses_llm, needs_embedder = "flaky", False, False

        def config(self):
            return {}

        def answer(self, task, ctx):
            if task.kind == "cooccur":
                raise ConnectionError("endpoint refused the request")
            return sorted(ctx.env.citers(task.source or "") or [])

    REGISTRY.load()
    REGISTRY._entries["agent"]["scinet/flaky"] = Flaky
    try:
        out["incomplete"] = root / "scinet-flaky"
        run_scinet(SciNetRunConfig("pair", "flaky", out["incomplete"], tasks=tasks, env=env))
    finally:
        del REGISTRY._entries["agent"]["scinet/flaky"]
    return out


def export(run_dirs: list[Path], out: Path, capsys, *extra: str) -> list[Path]:
    """`export inspect` on the command line; the written files, from its output lines."""
    capsys.readouterr()
    code = main(["export", "inspect", *map(str, run_dirs), "--out", str(out), *extra])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    lines = captured.out.splitlines()
    assert len(lines) == len(run_dirs) and all(x.startswith("wrote ") for x in lines)
    return [Path(x.split()[1]) for x in lines]


def check_log(log, run: Path) -> None:
    """Every sample, score and result of the log equals the run's own files."""
    manifest, summary = _json(run / "manifest.json"), _json(run / "summary.json")
    bench = benchmark_class(manifest["benchmark"])(manifest.get("options") or {})
    measures = set(summary["metrics"]) | {m.key for m in bench.measures(manifest.get("mode"))}
    rows = _rows(run)
    assert log.eval.task == "scholarbench/" + manifest["benchmark"] + (
        f"_{manifest['mode']}" if manifest.get("mode") else "")
    assert log.eval.dataset.samples == summary["n_samples"]
    assert log.eval.dataset.sample_ids == [r[bench.id_key] for r in rows]   # the file's order
    by_id = {s.id: s for s in log.samples}     # a .eval log reads its samples back by id
    assert len(by_id) == len(log.samples) == len(rows)
    for row in rows:
        sample = by_id[row[bench.id_key]]
        status = row.get("status", "scored")
        assert sample.metadata["status"] == status
        assert sample.metadata["reason"] == row.get("reason")
        expected = {k: row[k] for k in measures if k in row}
        assert set(sample.scores) == set(expected), sample.id
        for key, value in expected.items():
            score = sample.scores[key]
            if value is None:
                assert math.isnan(score.value), (sample.id, key)
                assert score.metadata["status"] == status
                assert score.reason == ("undefined" if status == "scored" else status)
            else:
                assert score.value == value and type(score.value) is type(value), (sample.id,
                                                                                   key)
        assert (sample.error is not None) == (status == "error")
    results = {s.name: s for s in log.results.scores}
    assert set(results) == set(summary["metrics"])
    headline = [k for k in bench.headline.get(manifest.get("mode") or "", ())
                if k in summary["metrics"]]
    assert list(results)[:len(headline)] == headline          # the headline measures first
    for key, entry in summary["metrics"].items():
        got = results[key].metrics
        if entry["mean"] is None:
            assert "mean" not in got
        else:
            assert got["mean"].value == entry["mean"]
        if entry.get("ci95"):
            assert [got["ci95_low"].value, got["ci95_high"].value] == entry["ci95"]
        else:
            assert "ci95_low" not in got and "ci95_high" not in got
        assert results[key].scored_samples == entry["n"]
        assert results[key].unscored_samples == entry["n_null"]
    assert log.results.total_samples == summary["n_samples"]
    assert log.status == ("success" if summary["complete"] else "error")


@pytest.mark.parametrize("name", ["taxobench", "researcharena", "deepsynth", "reportbench",
                                  "scinet"])
def test_a_run_of_each_benchmark_reads_back_as_its_files(name, runs, read_eval_log, tmp_path,
                                                         capsys):
    run = runs[name]
    [path] = export([run], tmp_path / "logs", capsys)
    assert path == tmp_path / "logs" / f"{run.name}.eval"
    log = read_eval_log(str(path))
    check_log(log, run)
    generated = {str(json.loads(x).get("task_id", json.loads(x).get("id"))): json.loads(x)
                 for x in (run / "generate.jsonl").read_text().splitlines() if x.strip()}
    for sample in log.samples:
        assert sample.input and sample.messages[0].content == sample.input   # the prompt
        answer = generated.get(str(sample.id))
        if answer is None:                  # a task with no gold: the agent was not asked
            assert sample.metadata["status"] != "scored" and not sample.output.completion
            continue
        if isinstance(answer.get("report"), str):
            assert sample.output.completion.startswith(answer["report"])
        assert sample.output.completion
        assert sample.messages[-1].content == sample.output.completion
        first = " ".join(sample.output.completion.split())[:100]
        assert all(sc.answer[:100] == first for sc in sample.scores.values())   # the preview
    assert log.eval.viewer.trust_content is False     # answers are untrusted: plain text
    assert log.eval.model == "none/" + _json(run / "manifest.json")["agent"]
    if name == "researcharena":
        assert json.loads(log.samples[0].target) == {"p1": 1, "p2": 1, "p3": 1, "p4": 1}
        assert log.samples[0].output.completion.splitlines()[0] == "1. p1 (4)"
    if name == "deepsynth":       # the scripted judge's tokens, per model and per role
        usage = _json(run / "manifest.json")["usage"]["checklist"]["judge"]
        assert log.stats.role_usage["judge"].input_tokens == usage["prompt_tokens"]
        assert log.stats.model_usage["fake-judge"].output_tokens == usage["completion_tokens"]
        assert log.eval.model_roles["judge"].model == "fake-judge"
        assert any(math.isnan(s.value) for x in log.samples for s in x.scores.values())


@pytest.mark.parametrize("name", SYNTHETIC)
def test_150_row_runs_with_pooled_measures_and_errored_samples(name, read_eval_log, tmp_path,
                                                               capsys):
    run = DATA / "runs-intervals" / name
    capsys.readouterr()
    assert main(["export", "inspect", str(run), "--out", str(tmp_path), "--format",
                 "json"]) == 0
    captured = capsys.readouterr()
    assert "no prompts or gold" in captured.err    # no task file beside these runs
    log = read_eval_log(str(tmp_path / f"{name}.json"))
    check_log(log, run)
    assert log.status == "error" and "errored sample(s)" in log.error.message


def test_an_incomplete_run_is_an_error_log_with_its_reason(runs, read_eval_log, tmp_path,
                                                           capsys):
    run = runs["incomplete"]
    summary = _json(run / "summary.json")
    assert summary["complete"] is False and summary["status"]["error"] == 3
    [path] = export([run], tmp_path, capsys)
    log = read_eval_log(str(path))
    check_log(log, run)
    assert log.status == "error"
    assert "3 errored sample(s)" in log.error.message
    assert "ConnectionError: endpoint refused the request" in log.error.message
    errored = [s for s in log.samples if s.metadata["status"] == "error"]
    assert len(errored) == 3 and all("ConnectionError" in s.error.message for s in errored)
    assert log.results.completed_samples == 3


def test_not_a_run_is_one_error_line_and_nothing_is_written(runs, read_eval_log, tmp_path,
                                                            capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    for bad in (empty, tmp_path / "nowhere", runs["scinet"] / "manifest.json"):
        capsys.readouterr()
        code = main(["export", "inspect", str(runs["scinet"]), str(bad), "--out",
                     str(tmp_path / "logs")])
        captured = capsys.readouterr()
        assert code == 2 and captured.out == ""
        assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
        assert captured.err.startswith(f"error: {bad} is not a run directory")
        assert not (tmp_path / "logs").exists()      # every run is read before one is written


def test_without_inspect_ai_the_command_says_what_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "inspect_ai", None)     # import inspect_ai: ImportError
    code = main(["export", "inspect", str(DATA / "runs-intervals" / "taxobench"), "--out",
                 str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "pip install 'scholarbench[inspect]'" in err and "Traceback" not in err


def test_long_answers_are_cut_with_a_counted_note(runs, read_eval_log, tmp_path, capsys):
    run = runs["reportbench"]
    [path] = export([run], tmp_path, capsys, "--max-chars", "100", "--trust-content")
    log = read_eval_log(str(path))
    assert log.eval.viewer.trust_content is True
    reports = {json.loads(x)["id"]: json.loads(x)["report"]
               for x in (run / "generate.jsonl").read_text().splitlines() if x.strip()}
    for sample in log.samples:
        whole = reports[sample.id]
        rest = len(whole) - 100
        assert sample.metadata["output_chars_cut"] == rest
        assert sample.output.completion.startswith(whole[:100] + "\n\n[… ")
        assert f"{rest:,} more characters not shown" in sample.output.completion
    check_log(log, run)


def test_the_same_folder_name_twice_gets_two_files_and_older_formats_export(
        runs, read_eval_log, tmp_path, capsys):
    twin = tmp_path / "elsewhere" / runs["scinet"].name
    shutil.copytree(runs["scinet"], twin)
    paths = export([runs["scinet"], twin], tmp_path / "logs", capsys)
    assert [p.name for p in paths] == ["scinet-pair.eval", "scinet-pair-2.eval"]
    old = DATA / "runs-format-2" / "bottom-up-cluster"       # format 2: no intervals
    [path] = export([old], tmp_path / "old", capsys)
    log = read_eval_log(str(path))
    assert sorted(s.id for s in log.samples) == sorted(r["id"] for r in _rows(old))
    assert all("ci95_low" not in s.metrics for s in log.results.scores)
    assert log.results.scores[0].metrics["mean"].value == \
        _json(old / "summary.json")["metrics"][log.results.scores[0].name]["mean"]


def test_the_trec_and_bibtex_export_keeps_its_command_line(tmp_path, capsys):
    from scholarbench.cli import normalised as normalise_argv
    assert normalise_argv(["export", "runs/a", "--trec", "x"]) == \
        ["export", "RUN_DIR", "runs/a", "--trec", "x"]
    assert normalise_argv(["export", "--bibtex", "b", "runs/a"])[:2] == ["export", "RUN_DIR"]
    assert normalise_argv(["export", "inspect", "runs/a", "--out", "d"])[1] == "inspect"
    assert main(["export", str(DATA / "runs-intervals" / "taxobench")]) == 2
    assert "--trec OUT and/or --bibtex OUT" in capsys.readouterr().err


def test_the_agents_model_and_its_usage(runs, read_eval_log, tmp_path, capsys):
    """A run whose agent was a chat model (its identity and usage as the engine records them
    in the manifest): the log's model, its generate config and base URL, usage per model."""
    run = tmp_path / "llm-agent"
    shutil.copytree(runs["scinet"], run)
    manifest = _json(run / "manifest.json")
    manifest["agent_model"] = {"model_id": "qwen2.5-7b", "temperature": 0.2,
                               "max_tokens": 800, "seed": 7}
    manifest["models"] = {"agent": {"model_id": "qwen2.5-7b",
                                    "base_url": "http://127.0.0.1:8000/v1"}}
    manifest["usage"] = {"generate": {"agent": {"calls": 6, "prompt_tokens": 1200,
                                                "completion_tokens": 300, "cost_usd": 0.5}}}
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    [path] = export([run], tmp_path / "logs", capsys)
    log = read_eval_log(str(path))
    assert log.eval.model == "qwen2.5-7b"
    assert log.eval.model_base_url == "http://127.0.0.1:8000/v1"
    config = log.eval.model_generate_config
    assert (config.temperature, config.max_tokens, config.seed) == (0.2, 800, 7)
    usage = log.stats.model_usage["qwen2.5-7b"]
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens, usage.total_cost) == \
        (1200, 300, 1500, 0.5)
    assert log.stats.role_usage["agent"] == usage
    assert log.samples[0].output.model == "qwen2.5-7b"


# ---- what a run kept of its model calls: events, messages, usage and cost ----------------

def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _events(sample, kind: str) -> list:
    return [e for e in sample.events if e.event == kind]


def test_the_endpoint_agents_calls_are_model_events_and_its_conversation_the_messages(
        tmp_path, corpus_dir, read_eval_log, capsys):
    """A scripted endpoint agent (two searches, then the answer) with a priced model: each
    chat call is a ModelEvent in order (messages sent, reply, tool calls, tokens, seconds),
    the last call's conversation and reply are the sample's messages, its usage and cost are
    the generate record's, and the log's cost is summary.json's."""
    from test_tools_endpoint import ANSWER, QUERIES
    from test_transcripts import endpoint_tool_run
    from inspect_ai.event import InfoEvent, ModelEvent
    run = endpoint_tool_run(tmp_path, corpus_dir, capsys, "--price", "fake-model=1000/2000",
                            name="endpoint")
    kept = {r["id"]: r for r in _lines(run / "transcripts.jsonl")}
    generated = {r["id"]: r for r in _lines(run / "generate.jsonl")}
    summary = _json(run / "summary.json")
    assert summary["cost"]["agent_usd"] > 0         # a priced run: the cost is a number
    [path] = export([run], tmp_path / "logs", capsys)
    log = read_eval_log(str(path), resolve_attachments=True)
    check_log(log, run)
    assert log.results.metadata["cost"] == summary["cost"]
    assert log.stats.model_usage["fake-model"].total_cost == pytest.approx(
        summary["cost"]["agent_usd"])
    by_id = {s.id: s for s in log.samples}
    assert set(kept) < set(by_id) and len(kept) == 2      # a task without gold: not asked
    for sample_id in set(by_id) - set(kept):
        assert not by_id[sample_id].events and "transcript" not in by_id[sample_id].metadata
    for sample_id, line in kept.items():
        sample, steps = by_id[sample_id], line["steps"]
        calls = _events(sample, "model")
        assert all(isinstance(e, ModelEvent) for e in calls) and len(calls) == len(steps) == 3
        assert [e.event for e in sample.events] == ["span_begin", "model", "model", "model",
                                                    "span_end"]
        assert sample.events[0].name == "endpoint" and sample.events[0].type == "solver"
        for event, step in zip(calls, steps):
            assert event.model == step["model"] == "fake-model" and event.role is None
            assert [(m.role, m.text) for m in event.input] == \
                [(m["role"], m["content"]) for m in step["messages"]]
            assert event.output.usage.input_tokens == step["prompt_tokens"] == 11
            assert event.output.usage.output_tokens == step["completion_tokens"] == 7
            assert event.working_time == step["seconds"] and event.error is None
            assert event.cache is None                      # --no-llm-cache
        for n, event in enumerate(calls[:2]):               # the two searches, in order
            [call] = event.output.message.tool_calls
            assert call.function == "search" and call.arguments["query"] == QUERIES[n]
            assert call.id == steps[n]["tool_calls"][0]["id"]
            assert event.output.choices[0].stop_reason == "tool_calls"
        assert calls[2].output.completion == ANSWER and not calls[2].output.message.tool_calls
        tool_reply = calls[2].input[-1]             # what the model read last: the 2nd search
        assert tool_reply.role == "tool" and tool_reply.function == "search"
        assert tool_reply.tool_call_id == steps[1]["tool_calls"][0]["id"]
        assert [e.working_start for e in calls] == pytest.approx(
            [0, steps[0]["seconds"], steps[0]["seconds"] + steps[1]["seconds"]])
        # the sample's messages: the last call's conversation, then its reply
        assert [m.role for m in sample.messages] == \
            [m["role"] for m in steps[2]["messages"]] + ["assistant"]
        assert sample.messages[-1].text == ANSWER and sample.messages[-1].model == "fake-model"
        assert sample.metadata["transcript"] == {"chat_calls": 3, "steps": 3,
                                                 "truncated_steps": 0, "truncated_chars": 0}
        used = generated[sample_id]["usage"]
        usage = sample.model_usage["fake-model"]
        assert (usage.input_tokens, usage.output_tokens) == (used["prompt_tokens"],
                                                            used["completion_tokens"]) == (33, 21)
        assert usage.total_cost == pytest.approx(used["cost_usd"]) and used["cost_usd"] > 0
        assert sample.role_usage["agent"] == usage
        assert sample.metadata["cost"] == {"usd": used["cost_usd"],
                                           "agent_usd": used["cost_usd"],
                                           "judges_usd": None, "priced": True}
        assert "usage" not in sample.output.completion      # the engine's, not the answer
    assert sum(by_id[i].metadata["cost"]["usd"] for i in kept) == pytest.approx(
        summary["cost"]["agent_usd"])

    # a resumed sample's latest line wins; an agent's own step is an InfoEvent, a failed
    # call a ModelEvent with its error; truncation counts go to the metadata
    first = next(iter(kept))
    noted = {"id": first, "truncated_steps": 2, "truncated_chars": 40, "steps": [
        {"kind": "search", "query": "graph", "found": 3},
        {"kind": "chat", "model": "fake-model", "messages": [{"role": "user", "content": "q"}],
         "params": {"temperature": 0.2}, "seconds": 0.5, "error": "APIError: boom"},
        kept[first]["steps"][0]]}
    with (run / "transcripts.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps(noted) + "\n")
    [path] = export([run], tmp_path / "again", capsys)
    sample = {s.id: s for s in read_eval_log(str(path), resolve_attachments=True).samples}[first]
    assert [e.event for e in sample.events] == ["span_begin", "info", "model", "model",
                                                "span_end"]
    info = sample.events[1]
    assert isinstance(info, InfoEvent) and info.source == "search"
    assert info.data == {"query": "graph", "found": 3}
    failed = sample.events[2]
    assert failed.error == "APIError: boom" and failed.output.error == "APIError: boom"
    assert failed.config.temperature == 0.2 and not failed.output.choices
    assert sample.events[3].working_start == pytest.approx(0.5)
    assert sample.metadata["transcript"] == {"chat_calls": 2, "steps": 3,
                                             "truncated_steps": 2, "truncated_chars": 40}
    assert sample.messages[-1].tool_calls[0].arguments["query"] == QUERIES[0]


def test_each_judge_request_is_a_span_of_judge_model_events_with_its_cost(
        judged_run, tmp_path, read_eval_log, capsys):
    """A judged TaxoBench run with a priced judge: each judge request of a sample is a
    "scorer" span whose calls are ModelEvents of the judge's role and model, with the
    prompt, the reply and the tokens of its record; the sample's usage and cost are its
    requests'; the log's cost is summary.json's."""
    run = tmp_path / "judged"
    assert judged_run(run, "--price", "fake-judge=1000/2000") == 0
    summary = _json(run / "summary.json")
    records = [dict(r, item=p.name.split(".")[1]) for p in sorted(run.glob("judge.*.jsonl"))
               for r in _lines(p)]
    assert len(records) == 2 and not (run / "transcripts.jsonl").exists()
    [path] = export([run], tmp_path / "logs", capsys)
    log = read_eval_log(str(path), resolve_attachments=True)
    check_log(log, run)
    assert log.results.metadata["cost"] == summary["cost"]
    assert log.results.metadata["cost"]["judges_usd"] == pytest.approx(0.05)
    assert log.stats.model_usage["fake-judge"].total_cost == pytest.approx(0.05)
    by_id = {s.id: s for s in log.samples}
    judged = set()
    for record in records:
        sample = by_id[record["id"]]
        judged.add(sample.id)
        [step] = record["exchange"]["steps"]
        spans = [e for e in sample.events if e.event == "span_begin"]
        [begin] = [e for e in spans if e.metadata["repeat"] == record["repeat"]
                   and e.metadata["subject"] == record["subject"]]
        assert begin.type == "scorer" and begin.metadata["judge"] == record["judge"]
        assert begin.metadata["item"] == record["item"] and begin.metadata["status"] == "ok"
        assert begin.metadata["verdict"] == record["verdict"]
        [event] = [e for e in sample.events if e.event == "model" and e.span_id == begin.id]
        assert event.role == "judge" and log.eval.model_roles["judge"].model == "fake-judge"
        assert event.model == "fake-judge" and event.metadata["judge"] == record["judge"]
        assert [m.text for m in event.input] == [m["content"] for m in step["messages"]]
        assert event.output.completion == step["reply"] and "semantic_coverage" in step["reply"]
        assert (event.output.usage.input_tokens, event.output.usage.output_tokens) == (11, 7)
        assert sample.model_usage["fake-judge"].total_cost == pytest.approx(
            record["usage"]["cost_usd"])
        assert sample.role_usage["judge"].input_tokens == record["usage"]["prompt_tokens"]
        assert sample.metadata["cost"] == {"usd": pytest.approx(record["usage"]["cost_usd"]),
                                           "agent_usd": None, "priced": True,
                                           "judges_usd": pytest.approx(
                                               record["usage"]["cost_usd"])}
        assert sample.metadata["judge_requests"] == 1
        # no transcript: the messages are still the prompt and the answer
        assert sample.messages[0].text == sample.input and "transcript" not in sample.metadata
    assert len(judged) == 2
    for sample in log.samples:
        if sample.id not in judged:                 # not judged: no events, no usage
            assert not sample.events and not sample.model_usage and "cost" not in sample.metadata
