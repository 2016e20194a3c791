"""`scholarbench export inspect`: a run directory as an Inspect eval log (docs/inspect.md).

For a real run of each of the five benchmarks (built offline with the report tests' builders:
replayed answers, scripted judges) and for the 150-row synthetic runs of tests/data/
runs-intervals (pooled measures, judge panels, errored samples), the log `inspect_ai.log.
read_eval_log` reads back holds every sample of scores.jsonl, every measure of each row
as a score equal to the row's value (null: not scored, with the row's status), and results
equal to summary.json's means and interval bounds; an incomplete run is an `error` log with its
reason; a directory that is not a run, and a missing inspect-ai, are one error line each.

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
