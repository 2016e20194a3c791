"""ReportBench on the engine, from the command line: a user's plain function and a family-schema
replay file, the endpoint agent against the scripted OpenAI-compatible server, an agent that
raises (exit 3, only that survey retried), kill-and-resume to the same scores, `score
reportbench --pred` reading our own run's generate.jsonl, the hidden survey never counted as a
match, `Task.prompt` = the evaluation prompt, `eval` running the shipped prompts only, and a
judged run re-scored without and with the judge."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import kill_after_lines

from fake_openai import FakeOpenAI, Step
from test_reportbench_llm import RUN_DATA, build_tiny_corpus

HERE = Path(__file__).parent
SRC = HERE.parent / "src"
GT = HERE / "data" / "reportbench" / "gt"
REPORT_REPLY = ("# Attention\n\nThe Transformer relies solely on attention [1]; Adam is the "
                "usual optimiser [2].\n\n## References\n\n[1] Vaswani, A. (2017). Attention is "
                "all you need. arXiv:1706.03762\n[2] Kingma, D. (2015). Adam: A method for "
                "stochastic optimization. arXiv:1412.6980\n")


def cli(args: list[str], tmp: Path, **env: str) -> subprocess.CompletedProcess:
    full = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), str(HERE)]),
                SCHOLARBENCH_DATA=str(tmp / "data"), **env)
    return subprocess.run([sys.executable, "-m", "scholarbench", *args], cwd=tmp, env=full,
                          capture_output=True, text=True, timeout=600)


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def rows(run: Path) -> dict[str, dict]:
    return {r["arxiv_id"]: r for r in lines(run / "scores.jsonl")}


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("rb-engine-corpus") / "corpus"
    build_tiny_corpus(path).close()
    return path


def opts(corpus: Path, tasks: Path = RUN_DATA, gt: Path = GT) -> list[str]:
    return ["--tasks", str(tasks), "--gt-dir", str(gt), "--corpus", str(corpus), "--quiet"]


@pytest.fixture
def many(tmp_path):
    """12 surveys (copies of the two test tasks under new ids), each with a GT file."""
    base = [json.loads(x) for x in (RUN_DATA / "ReportBench_v1.1.jsonl").read_text()
            .splitlines()]
    folder, gt = tmp_path / "many", tmp_path / "many" / "gt"
    gt.mkdir(parents=True)
    out = []
    for i in range(1, 13):
        rec = dict(base[(i - 1) % 2], arxiv_id=f"2102.{i:05d}")
        out.append(json.dumps(rec))
        shutil.copy(GT / f"2101.0000{(i - 1) % 2 + 1}.jsonl", gt / f"2102.{i:05d}.jsonl")
    (folder / "ReportBench_v1.1.jsonl").write_text("\n".join(out) + "\n")
    return folder, gt


# ---------------------------------------------------------------------- user agents come in

def test_a_plain_function_runs_and_its_cited_refs_are_scored(tmp_path, corpus_dir):
    prompts = tmp_path / "prompts.jsonl"
    run = cli(["run", "reportbench", "--agent", "rb_user_agent:solve", "--out", "runs/fn",
               *opts(corpus_dir)], tmp_path, RB_PROMPTS=str(prompts))
    assert run.returncode == 0, run.stderr
    out = tmp_path / "runs/fn"
    scores = rows(out)
    # 2101.00001 (GT: Attention, BERT, ResNet): the report's Attention + the cited ResNet title
    one = scores["2101.00001"]
    assert (one["status"], one["ref_count"], one["ref_precision"]) == ("scored", 2, 1.0)
    assert one["ref_recall"] == pytest.approx(2 / 3)
    two = scores["2101.00002"]                          # GT: Adam, LeCun — neither cited
    assert (two["ref_precision"], two["ref_recall"]) == (0.0, 0.0)
    gen = {g["id"]: g for g in lines(out / "generate.jsonl")}
    assert gen["2101.00001"]["cited_scored"] is True and gen["2101.00001"].get("status", "ok") == "ok"
    assert gen["2101.00001"]["info"] == {"searches": 1, "n_cited_refs": 1,
                                         "n_cited_resolved": 1, "n_cited_titled": 0,
                                         "n_cited_unresolved": 0, "n_cited_hidden_survey": 0}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mode"] == "shipped" and summary["status"] == {"scored": 2}
    assert summary["metrics"]["ref_precision"]["mean"] == pytest.approx(0.5)
    # Task.prompt is the evaluation prompt today's writers got: upstream's template filled in
    from scholarbench.benchmarks.reportbench.tasks import load_tasks
    seen = {p["id"]: p for p in lines(prompts)}
    for task in load_tasks(RUN_DATA):
        assert seen[task.arxiv_id]["prompt"] == task.eval_prompt
        assert f'Do not refer to the survey titled "{task.title}"' in task.eval_prompt
        fields = seen[task.arxiv_id]["fields"]
        assert fields["topic"] == task.prompt and fields["granularity"] == "shipped"
        assert fields["exclude_ids"][0] == f"arxiv:{task.arxiv_id}"
    assert seen["2101.00001"]["fields"]["cutoff"] == "2021-03-01"
    # our own run's generate.jsonl is a prediction file for `score reportbench`
    again = cli(["score", "reportbench", "--gt-dir", str(GT), "--pred",
                 str(out / "generate.jsonl"), "--corpus", str(corpus_dir), "--out", "s.jsonl"],
                tmp_path)
    assert again.returncode == 0, again.stderr
    filed = {r["arxiv_id"]: r for r in lines(tmp_path / "s.jsonl")}
    for sid, row in scores.items():
        for key in ("ref_precision", "ref_recall", "ref_count", "n_matched", "n_found"):
            assert filed[sid][key] == row[key], (sid, key)
        assert filed[sid]["input"] == "run"
    assert filed["2101.00003"]["status"] == "missing"        # a GT survey the run did not have


def test_family_schema_replay_and_upstream_lines(tmp_path, corpus_dir):
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join([
        json.dumps({"id": "2101.00001", "report": "Only prose, no references.",
                    "cited": ["arXiv:1706.03762", "10.1109/cvpr.2016.90"]}),
        json.dumps({"id": "2101.00002", "report": "x", "cites": []}),          # malformed
    ]) + "\n")
    run = cli(["run", "reportbench", "--agent", "replay", "--agent-arg", f"path={answers}",
               "--out", "runs/rp", *opts(corpus_dir)], tmp_path)
    assert run.returncode == 0, run.stderr
    scores = rows(tmp_path / "runs/rp")
    one = scores["2101.00001"]           # Attention (arXiv id) and ResNet (DOI), both in GT
    assert (one["ref_count"], one["ref_precision"], one["n_resolved"]) == (2, 1.0, 2)
    two = scores["2101.00002"]           # the malformed line: no answer, scored 0, counted
    assert two["status"] == "missing" and two["ref_precision"] == 0.0
    manifest = json.loads((tmp_path / "runs/rp/manifest.json").read_text())
    assert manifest["agent_config"]["malformed_lines"] == 1
    # the same answers as a prediction file: the family lines score alike
    scored = cli(["score", "reportbench", "--gt-dir", str(GT), "--pred", str(answers),
                  "--corpus", str(corpus_dir), "--out", "s.jsonl"], tmp_path)
    assert scored.returncode == 0, scored.stderr
    filed = {r["arxiv_id"]: r for r in lines(tmp_path / "s.jsonl")}
    assert filed["2101.00001"]["ref_precision"] == 1.0 and filed["2101.00001"]["input"] == "answer"
    assert filed["2101.00002"]["status"] == "malformed" and "cites" in scored.stdout


def test_endpoint_agent_from_plain_text_replies(tmp_path, corpus_dir):
    fake = FakeOpenAI(default=Step(text=REPORT_REPLY)).start()
    try:
        run = cli(["run", "reportbench", "--agent", "endpoint", "--model", "fake-writer",
                   "--base-url", fake.base_url, "--no-llm-cache", "--out", "runs/ep",
                   *opts(corpus_dir)], tmp_path, OPENAI_API_KEY="x")
        assert run.returncode == 0, run.stderr
        sent = [b["messages"][-1]["content"] for b in fake.requests]
    finally:
        fake.stop()
    from scholarbench.benchmarks.reportbench.tasks import load_tasks
    assert sorted(sent) == sorted(t.eval_prompt for t in load_tasks(RUN_DATA))
    scores = rows(tmp_path / "runs/ep")
    assert scores["2101.00001"]["ref_precision"] == 0.5          # Attention of {Attention, Adam}
    assert scores["2101.00002"]["ref_precision"] == 0.5          # Adam of the same two
    assert scores["2101.00002"]["ref_recall"] == 0.5
    manifest = json.loads((tmp_path / "runs/ep/manifest.json").read_text())
    assert manifest["models"]["agent"]["model_id"] and manifest["llm_usage"]["agent"]["calls"] == 2


# ------------------------------------------------------------------- errors, kill, resume

def test_an_agent_that_raises_exits_3_and_only_it_is_retried(tmp_path, corpus_dir):
    log = tmp_path / "calls.log"
    run = cli(["run", "reportbench", "--agent", "rb_user_agent:solve", "--out", "runs/e",
               *opts(corpus_dir)], tmp_path, RB_FAIL="2101.00002", RB_LOG=str(log))
    assert run.returncode == 3, run.stderr
    assert "1 sample(s) errored" in run.stderr and "ConnectionError" in run.stderr
    out = tmp_path / "runs/e"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False and summary["status"] == {"scored": 1, "error": 1}
    assert summary["n_counted"] == 1 and summary["means"]["ref_precision"] == 1.0
    assert rows(out)["2101.00002"]["ref_precision"] is None
    log.unlink()
    again = cli(["run", "reportbench", "--agent", "rb_user_agent:solve", "--out", "runs/e",
                 *opts(corpus_dir)], tmp_path, RB_LOG=str(log))
    assert again.returncode == 0, again.stderr
    assert log.read_text().split() == ["2101.00002"]            # only the errored one
    assert [(g["id"], g.get("status", "ok")) for g in lines(out / "generate.jsonl")] == [
        ("2101.00001", "ok"), ("2101.00002", "error"), ("2101.00002", "ok")]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is True and summary["status"] == {"scored": 2}


def test_sigkill_mid_generate_resumes_to_the_same_scores(tmp_path, corpus_dir, many):
    tasks, gt = many
    args = ["run", "reportbench", "--agent", "rb_user_agent:solve",
            *opts(corpus_dir, tasks, gt)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), str(HERE)]),
               SCHOLARBENCH_DATA=str(tmp_path / "data"), RB_DELAY="0.4")
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "scholarbench", *args, "--out", str(killed)],
                            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    gen = killed / "generate.jsonl"
    done_before = kill_after_lines(proc, gen)
    assert 3 <= done_before < 12, "the kill must land mid-generate"
    assert not (killed / "scores.jsonl").exists()
    resumed = cli([*args, "--out", str(killed)], tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    ids = [g["id"] for g in lines(gen)]
    assert sorted(ids) == [f"2102.{i:05d}" for i in range(1, 13)]   # each survey exactly once
    clean = cli([*args, "--out", str(tmp_path / "clean")], tmp_path)
    assert clean.returncode == 0, clean.stderr
    assert lines(killed / "scores.jsonl") == lines(tmp_path / "clean" / "scores.jsonl")
    assert json.loads((killed / "summary.json").read_text())["means"] == json.loads(
        (tmp_path / "clean" / "summary.json").read_text())["means"]


# -------------------------------------------------------------------- scoring rules, eval

def test_the_hidden_survey_is_never_a_valid_citation(tmp_path, corpus_dir):
    gt = tmp_path / "gt"
    shutil.copytree(GT, gt)
    with (gt / "2101.00001.jsonl").open("a") as handle:   # a GT that lists its own survey
        handle.write(json.dumps({"bib_id": "self", "title": "Deep Architectures for "
                                 "Sequences and Images: A Survey"}) + "\n")
    run = cli(["run", "reportbench", "--agent", "rb_user_agent:solve", "--out", "runs/h",
               *opts(corpus_dir, gt=gt), "--limit", "1"], tmp_path, RB_CITE_SURVEY="1")
    assert run.returncode == 0, run.stderr
    one = rows(tmp_path / "runs/h")["2101.00001"]
    # Attention + ResNet match; the survey (cited by its arXiv id) counts, never matches
    assert (one["ref_count"], one["n_matched"], one["n_hidden_survey"]) == (3, 2, 1)
    assert one["ref_recall"] == pytest.approx(2 / 4)
    gen = lines(tmp_path / "runs/h/generate.jsonl")[0]
    assert gen["info"]["n_cited_hidden_survey"] == 1


def test_eval_runs_the_shipped_prompts_only(tmp_path, corpus_dir):
    run = cli(["eval", "--benchmarks", "reportbench", "--agent", "rb_user_agent:solve",
               "--out", "suite", "--quiet", "--option", f"reportbench.tasks={RUN_DATA}",
               "--option", f"reportbench.gt_dir={GT}", "--option",
               f"reportbench.corpus={corpus_dir}"], tmp_path)
    assert run.returncode == 0, run.stderr
    suite = json.loads((tmp_path / "suite/eval.json").read_text())
    assert [(r["benchmark"], r["subtask"], r["status"]) for r in suite["runs"]] == [
        ("reportbench", "shipped", "complete")]
    assert suite["runs"][0]["headline"]["ref_precision"] == pytest.approx(0.5)
    assert sorted(p.name for p in (tmp_path / "suite").iterdir()
                  if not p.name.startswith(".")) == ["eval.json", "reportbench-shipped"]
    from scholarbench.benchmarks.reportbench import ReportBench
    assert list(ReportBench({"tasks": str(RUN_DATA), "eval_granularities": "shipped,detail"}
                            ).eval_defaults().subtasks) == ["shipped", "detail"]
