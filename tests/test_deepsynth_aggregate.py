"""DeepSynth-Eval's summary from its score rows and manifest alone: `scholarbench aggregate RUN
--check` with nothing else left in the run directory and an empty data dir, a fresh benchmark
instance's `aggregate`, both scoring variants, an errored task, the judge's cache counts, the
declared measures and the pooled-precision aggregator (against hand-computed rows), and
`score deepsynth --judged` summarised as a run."""
from __future__ import annotations

import json
import shutil

import pytest

from fake_openai import Step
from test_deepsynth_oracle import judge_labels, kind_of, router
from test_deepsynth_run import Roles, config, corpus_dir, fake, lines, tasks_path  # noqa: F401
from scholarbench import cli
from scholarbench.benchmarks.deepsynth import DeepSynthBenchmark, score_deepsynth_judged
from scholarbench.benchmarks.deepsynth.api import run_deepsynth, score_run
from scholarbench.benchmarks.deepsynth.measures import measures_for, pooled_precision
from scholarbench.core.aggregate import differences, rebuild
from scholarbench.core.summary_metrics import aggregate
from scholarbench.core.measure import defined, interval
from scholarbench.core.registry import REGISTRY

KEPT = ("manifest.json", "scores.jsonl", "summary.json")


def harsh(prompt: str) -> list[str]:
    """The scripted judge, but a report naming widget graphs gets them wrong."""
    return ["mentioned_incorrect" if label == "mentioned_correct" and "graphs" in line.lower()
            else label for label, line in zip(judge_labels(prompt), prompt.split(
                "=== Input Data: Criteria ===")[1].split("=== Evaluation")[0].strip()
                .splitlines())]


def writes_graphs(prompt: str) -> str:
    return ("# Widget learning\n\nWidget transformers [1], widget graphs [2] and gadget pooling "
            "[3].\n")


def strip_run(run, tmp_path, monkeypatch):
    """Leave the manifest, the scores and the summary only; point the data dir at nothing."""
    aside = tmp_path / "aside"
    aside.mkdir(exist_ok=True)
    for path in run.iterdir():
        if path.name not in KEPT:
            shutil.move(str(path), str(aside / path.name))
    empty = tmp_path / "empty-data"
    empty.mkdir(exist_ok=True)
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(empty))


def check(run, capsys) -> None:
    capsys.readouterr()
    assert cli.main(["aggregate", str(run), "--check"]) == 0, capsys.readouterr().err
    rebuilt, _ = rebuild(run)
    own = json.loads((run / "summary.json").read_text())
    assert differences(json.loads(json.dumps(rebuilt)), own) == []
    rows = lines(run / "scores.jsonl")
    counted = [r for r in rows if r["status"] != "error"]
    for key, entry in own["metrics"].items():       # n / n_null are the measure's own counts
        n = len(defined(counted, key)) if "precision" not in key else \
            (len(counted) if entry["mean"] is not None else 0)
        assert (entry["n"], entry["n_null"]) == (n, len(counted) - n), key


def test_the_summary_is_rebuilt_from_scores_alone(fake, tasks_path, corpus_dir, tmp_path,
                                                  monkeypatch, capsys):
    fake.default = router(judge=harsh, e2e=writes_graphs)
    out = tmp_path / "run"
    summary = run_deepsynth(config(tasks_path, out, corpus_dir),
                            Roles(fake, tmp_path / "cache.sqlite"))
    assert summary["n_incorrect"] == 2 and summary["n_correct"] == 4   # precision 2/3
    assert summary["oracle"]["tasks_corpus"] == 1 and summary["writer_info"]["llm"]["calls"] == 2
    rows = lines(out / "scores.jsonl")
    manifest = json.loads((out / "manifest.json").read_text())
    strip_run(out, tmp_path, monkeypatch)
    tasks_path.unlink()
    check(out, capsys)
    # a fresh instance from the recorded options: no state from score() (main raised here)
    fresh = aggregate(DeepSynthBenchmark(manifest["options"]), rows, manifest)
    assert {k: fresh[k] for k in fresh} == {k: summary[k] for k in fresh if k != "metrics"} | {
        "metrics": {k: {f: v for f, v in m.items() if f != "ci95"}
                    for k, m in summary["metrics"].items()}}
    for key, entry in summary["metrics"].items():
        assert entry["ci95"] is not None, key                     # two tasks: an interval
    assert summary["ci_method"].startswith("percentile bootstrap")
    # `score deepsynth --judged` on the run's judged file: the run's summary path, same numbers
    again = score_deepsynth_judged(tmp_path / "aside" / "judged.jsonl", tmp_path / "s.jsonl")
    assert again["metrics"] == summary["metrics"] and again["status"] == summary["status"]
    assert again["agent"] == "judged-file" and "reports" not in again
    capsys.readouterr()
    assert cli.main(["score", "deepsynth", "--judged", str(tmp_path / "aside" / "judged.jsonl"),
                     "--out", str(tmp_path / "s2.jsonl")]) == 0
    low, high = summary["metrics"]["dse_precision"]["ci95"]
    assert f"[95% CI {100 * low:.2f}%, {100 * high:.2f}%]" in capsys.readouterr().out


def test_an_errored_task_and_the_upstream_rescore_rebuild_too(fake, tasks_path, corpus_dir,
                                                               tmp_path, monkeypatch, capsys):
    base = router()
    # task 8 has no oracle context (its survey is not in the corpus): its writer fails
    fake.default = lambda body: (Step(status=500) if kind_of(body) == "e2e" and
                                 "A dense summary." not in body["messages"][0]["content"]
                                 else base(body))
    out = tmp_path / "run"
    summary = run_deepsynth(config(tasks_path, out, corpus_dir),
                            Roles(fake, tmp_path / "cache.sqlite"))
    assert summary["status"] == {"scored": 1, "error": 1}
    assert summary["oracle"]["tasks_none"] == 1 and summary["reports"]["write_error"] == 1
    check(out, capsys)
    upstream = score_run(out, variant="upstream")       # the manifest's options say paper
    assert "dse_overall(upstream=1)" in upstream["metrics"]
    strip_run(out, tmp_path, monkeypatch)
    check(out, capsys)


def test_judge_cache_counts_live_in_the_manifest_not_the_rows(fake, tasks_path, corpus_dir,
                                                              tmp_path, capsys):
    roles = Roles(fake, tmp_path / "cache.sqlite")
    first = run_deepsynth(config(tasks_path, tmp_path / "one", corpus_dir), roles)
    second = run_deepsynth(config(tasks_path, tmp_path / "two", corpus_dir), roles)
    assert (first["judge"]["model_calls"], second["judge"]["cache_hits"]) == (6, 6)
    assert lines(tmp_path / "one" / "scores.jsonl") == lines(tmp_path / "two" / "scores.jsonl")
    manifest = json.loads((tmp_path / "two" / "manifest.json").read_text())
    assert {k: manifest["usage"]["checklist"]["judge"][k] for k in ("calls", "cache_hits")} \
        == {"calls": 0, "cache_hits": 6}
    check(tmp_path / "one", capsys)
    check(tmp_path / "two", capsys)


def test_pooled_precision_is_not_the_mean_of_task_precisions():
    rows = [{"task_id": 1, "status": "scored", "n_correct": 3, "n_incorrect": 1},
            {"task_id": 2, "status": "scored", "n_correct": 1, "n_incorrect": 0},
            {"task_id": 3, "status": "unscored", "n_correct": 0, "n_incorrect": 0},
            {"task_id": 4, "status": "error", "n_correct": None, "n_incorrect": None}]
    paper = {m.key: m for m in measures_for("paper")}["dse_precision"]
    assert paper.value(rows) == pytest.approx(4 / 5)          # not (3/4 + 1/1) / 2 = 0.875
    assert pooled_precision("paper")(rows[2:3]) is None       # 0/0: undefined under the paper
    assert pooled_precision("upstream")(rows[2:3]) == 0.0     # and 0 under upstream score.py
    low, high = interval(paper, rows * 3)
    assert low <= 0.8 <= high


def test_the_measures_are_declared_namespaced_and_judged(capsys):
    names = [n for n in REGISTRY.names("measure") if "dse_" in n]
    assert "deepsynth/dse_precision" in names and "deepsynth/dse_overall(upstream=1)" in names
    assert not [n for n in names if not n.startswith("deepsynth/")]   # no flat dse_* names
    keys = [m.key for m in measures_for("upstream")]
    assert keys == ["dse_overall(upstream=1)", "dse_general(upstream=1)",
                    "dse_constraint(upstream=1)", "dse_precision(upstream=1)"]
    assert all(m.judge and m.direction == "higher" for m in measures_for("paper"))
    assert [m.aggregator is not None for m in measures_for("paper")] == [False] * 3 + [True]
    bench = DeepSynthBenchmark({})
    assert {m.key for m in bench.measures("report")} >= {"dse_overall", "dse_precision"}
    assert cli.main(["list", "measure"]) == 0
    out = capsys.readouterr().out
    assert "deepsynth" in out and "dse_precision" in out and "[LLM judge]" in out
