import json
import subprocess
import sys
from pathlib import Path

import pytest

from scholarbench.data.demo import demo_records
from scholarbench.errors import ScholarbenchError
from scholarbench.benchmarks.taxobench.runner import RunConfig, run, score_files, score_run

from conftest import FakeEmbedder, kill_after_lines

HERE = Path(__file__).parent


def _perturbed_predictions(records, n_keep=None):
    """Predictions that flatten each expert tree (a real, imperfect answer)."""
    preds = []
    for rec in records[:n_keep]:
        papers = [p["title"] for p in rec["pdfs"]]
        half = len(papers) // 2
        preds.append({"id": rec["id"], "hierarchy_tree": {"name": rec["survey"], "subtopics": [
            {"name": "First half", "papers": papers[:half]},
            {"name": "Second half", "papers": papers[half:]}]}})
    return preds


@pytest.fixture
def gold_and_pred(tmp_path):
    records = demo_records() * 1
    # more instances so a kill lands mid-way: re-id copies of the demo set
    many = [dict(r, id=f"{r['id']}-{k}") for k in range(4) for r in records]
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(r) + "\n" for r in many))
    pred = tmp_path / "pred.jsonl"
    pred.write_text("".join(json.dumps(p) + "\n" for p in _perturbed_predictions(many)))
    return gold, pred, many


def _scores(run_dir):
    return [json.loads(l) for l in (run_dir / "scores.jsonl").read_text().splitlines()]


def test_sigkill_mid_generate_resumes_to_the_same_scores(tmp_path, gold_and_pred):
    gold, pred, many = gold_and_pred
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, str(HERE / "run_slow.py"), str(gold), str(pred),
                             str(killed), "0.4"])
    gen = killed / "generate.jsonl"
    done_before = kill_after_lines(proc, gen)
    assert 3 <= done_before < len(many), "the kill must land mid-generate"
    assert not (killed / "scores.jsonl").exists()
    subprocess.run([sys.executable, str(HERE / "run_slow.py"), str(gold), str(pred), str(killed),
                    "0"], check=True)
    ids = [json.loads(l)["id"] for l in gen.read_text().splitlines()]
    assert sorted(ids) == sorted(str(r["id"]) for r in many)      # each sample exactly once
    clean = tmp_path / "clean"
    subprocess.run([sys.executable, str(HERE / "run_slow.py"), str(gold), str(pred), str(clean),
                    "0"], check=True)
    assert _scores(killed) == _scores(clean)


def test_rescoring_a_run_reproduces_its_scores(tmp_path, gold_and_pred):
    gold, pred, _ = gold_and_pred
    out = tmp_path / "run"
    summary = run(RunConfig(gold, "bottom-up", "replay", out, agent_params={"path": str(pred)},
                            progress=False), FakeEmbedder())
    first = _scores(out)
    assert summary == score_run(out, FakeEmbedder(), progress=False)
    assert _scores(out) == first
    assert json.loads((out / "manifest.json").read_text())["data"]["sha256"]
    # an agent that reports no counts (empty TaxoPrediction.info) writes no "info" key
    generated = [json.loads(l) for l in (out / "generate.jsonl").read_text().splitlines()]
    assert all(set(r) == {"id", "prediction", "error", "seconds"} for r in generated)


def test_resume_refuses_a_different_configuration(tmp_path, gold_and_pred):
    gold, pred, _ = gold_and_pred
    out = tmp_path / "run"
    run(RunConfig(gold, "bottom-up", "replay", out, limit=2, agent_params={"path": str(pred)},
                  progress=False), FakeEmbedder())
    with pytest.raises(ScholarbenchError, match="limit"):
        run(RunConfig(gold, "bottom-up", "replay", out, limit=3, agent_params={"path": str(pred)},
                      progress=False), FakeEmbedder())


def test_missing_and_malformed_outputs_are_scored_and_counted(tmp_path, gold_and_pred):
    gold, _, many = gold_and_pred
    pred = tmp_path / "partial.jsonl"
    lines = [json.dumps(p) for p in _perturbed_predictions(many)[:5]]
    lines[1] = json.dumps({"id": many[1]["id"], "hierarchy_tree": {"name": 5}})
    lines.append("{not json")
    pred.write_text("\n".join(lines) + "\n")
    out = tmp_path / "run"
    summary = run(RunConfig(gold, "bottom-up", "replay", out, agent_params={"path": str(pred)},
                            progress=False), FakeEmbedder())
    rows = _scores(out)
    assert len(rows) == len(many)                       # no sample dropped
    assert summary["n_missing"] == len(many) - 5
    assert summary["n_malformed"] == 1
    bad = next(r for r in rows if r["id"] == str(many[1]["id"]))
    assert bad["malformed"] and "hierarchy_tree.name" in bad["error"]
    assert summary["metrics"]["ari_cap"]["n_null"] == len(many) - 4


def test_score_files_writes_one_line_per_gold_instance_with_the_documented_keys(tmp_path, gold_and_pred):
    gold, pred, many = gold_and_pred
    out = tmp_path / "scores.jsonl"
    problems = []
    score_files(gold, pred, out, FakeEmbedder(), on_problem=problems.append)
    rows = [json.loads(l) for l in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == [str(r["id"]) for r in many]
    keys = {"id", "n_gold", "n_pred", "n_aligned", "recall", "precision", "f1", "ari",
            "homogeneity", "completeness", "v_measure", "ari_cap", "v_measure_cap", "us_ted",
            "us_nted", "sem_path", "nsr", "nsp", "soft_f1", "missing"}
    assert keys <= set(rows[0])
    assert problems == []
