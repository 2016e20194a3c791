"""ResearchArena on the score seam: every sub-task's summary is rebuilt from scores.jsonl and the
manifest alone (no data dir, corpus, tasks file or embedder), its measures are declared Measure
objects, and every metric carries a 95% interval."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FakeEmbedder
from test_researcharena_engine import N_SURVEYS, S, corpus_dir, no_entities, surveys  # noqa: F401
from scholarbench.benchmarks.researcharena import ResearchArena
from scholarbench.benchmarks.researcharena.runs import ArenaRunConfig, run
from scholarbench.cli import main
from scholarbench.core.aggregate import differences, rebuild
from scholarbench.core.summary_metrics import aggregate


@pytest.fixture
def empty_data(tmp_path, monkeypatch):
    """SCHOLARBENCH_DATA is an empty folder: nothing a run used can be read back."""
    empty = tmp_path / "empty-data"
    empty.mkdir()
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(empty))
    return empty


def _rows(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]


def _gone(out: Path) -> None:
    """What `aggregate` must not read: the run's task set, gold and answer files (the corpus
    stays: the module's other tests share it; the data dir is empty)."""
    for name in ("tasks.jsonl", "qrels.trec", "run.trec", "generate.jsonl"):
        (out / name).unlink(missing_ok=True)


def _assert_rebuilt(out: Path, capsys) -> dict:
    summary = json.loads((out / "summary.json").read_text())
    _gone(out)
    rebuilt, _ = rebuild(out)
    assert differences(json.loads(json.dumps(rebuilt)), summary) == []
    capsys.readouterr()
    assert main(["aggregate", str(out), "--check"]) == 0
    assert "reproduced" in capsys.readouterr().out
    assert summary["metrics"] and all("ci95" in m for m in summary["metrics"].values())
    return summary


def _runs(tmp_path: Path, corpus: Path, surveys_file: Path) -> dict[str, Path]:
    out = {"discovery": tmp_path / "disc", "selection": tmp_path / "sel",
           "organisation": tmp_path / "org"}
    run(ArenaRunConfig("discovery", "arena_user_agent:solve", out["discovery"], corpus,
                       progress=False))
    run(ArenaRunConfig("selection", "title-bm25", out["selection"], corpus, measures="P@5",
                       progress=False))
    run(ArenaRunConfig("organisation", "arena_user_agent:organise", out["organisation"],
                       corpus, tasks_from=str(surveys_file), progress=False), FakeEmbedder())
    return out


def test_every_subtask_summary_is_rebuilt_from_scores_alone(tmp_path, corpus_dir, surveys,
                                                            no_entities, empty_data, capsys):
    for task, out in _runs(tmp_path, corpus_dir, surveys).items():
        summary = _assert_rebuilt(out, capsys)
        # what used to come from the scorer's tasks and answers is in the rows
        assert summary["references"]["tasks"] == summary["n_samples"]
        if task == "discovery":
            assert summary["references_answered"] == {"refs": 10, "refs_unresolved": 2}
            assert summary["metrics"]["R@10"]["ci95"] is not None
        if task == "selection":
            assert "P@5" in summary["metrics"] and "ci95" in summary["metrics"]["P@5"]
        if task == "organisation":
            assert summary["references"]["flags"]["no_mindmap"] == N_SURVEYS - 1


def test_a_fresh_instance_aggregates_as_the_scoring_one(tmp_path, corpus_dir, empty_data):
    """The summary's reference totals came from state the scorer kept on the benchmark: a fresh
    instance (as `aggregate RUN` builds) gave no totals and no answered references."""
    out = tmp_path / "run"
    summary = run(ArenaRunConfig("discovery", "arena_user_agent:solve", out, corpus_dir,
                                 progress=False))
    manifest = json.loads((out / "manifest.json").read_text())
    fresh = aggregate(ResearchArena(manifest["options"]), _rows(out), manifest)
    assert fresh["references"] == summary["references"] and fresh["references"]["tasks"] == 3
    assert fresh["references_answered"] == summary["references_answered"] != \
        {"refs": 0, "refs_unresolved": 0}
    row = {r["id"]: r for r in _rows(out)}[S]
    assert row["reference_counts"]["resolved"] >= row["reference_counts"]["searchable"] > 0
    assert row["references_answered"] == {"refs": 5, "refs_unresolved": 1}


def test_every_summary_measure_is_declared_and_its_mean_is_the_plain_mean(tmp_path, corpus_dir,
                                                                          surveys, no_entities):
    """No ResearchArena measure pools: each summary mean is the mean over the counted rows
    (`Measure.value`), up to trec_eval's summation order for the ranking measures."""
    for task, out in _runs(tmp_path, corpus_dir, surveys).items():
        summary = json.loads((out / "summary.json").read_text())
        manifest = json.loads((out / "manifest.json").read_text())
        declared = {m.key: m for m in ResearchArena(manifest["options"]).measures(task)}
        assert list(declared) == list(summary["metrics"])
        rows = _rows(out)
        for key, entry in summary["metrics"].items():
            measure = declared[key]
            assert measure.aggregator is None and measure.qualified == f"researcharena/{key}"
            if entry["mean"] is None:          # entity recall: no gold entity anywhere
                assert measure.value(rows) is None and entry["ci95"] is None
            else:
                assert measure.value(rows) == pytest.approx(entry["mean"], rel=1e-12,
                                                            abs=1e-15)


def test_measures_are_registered_and_parameterised():
    from scholarbench.benchmarks.researcharena.measures.declared import ranking_measure
    from scholarbench.core.registry import REGISTRY
    for key in ("R@10", "nDCG@100", "RR", "AP", "tree_semantic_distance"):
        assert REGISTRY.find("measure", f"researcharena/{key}") is not None
    assert REGISTRY.find("measure", "heading_soft_recall") is None     # no flat name
    assert REGISTRY.find("measure", "researcharena/RR").label == "MRR"
    assert REGISTRY.find("measure", "researcharena/tree_semantic_distance").direction == "lower"
    assert ranking_measure("P@5").provenance.startswith("ir_measures name")
    bench = ResearchArena({"measures": "P@5 AP(rel=2)"})
    assert [m.key for m in bench.measures("discovery")][-2:] == ["P@5", "AP(rel=2)"]
    assert [m.key for m in bench.measures("organisation")] == [
        "heading_soft_recall", "heading_entity_recall", "tree_semantic_distance"]


def test_score_files_aggregate_as_the_run_does(tmp_path, corpus_dir, capsys):
    """`score researcharena --qrels --run` goes through the run path's summarise: a run's
    qrels.trec + run.trec give its summary's means bit for bit, and intervals beside them."""
    from scholarbench.benchmarks.researcharena.files import score_researcharena_files
    out = tmp_path / "run"
    summary = run(ArenaRunConfig("discovery", "arena_user_agent:solve", out, corpus_dir,
                                 progress=False))
    files = score_researcharena_files(out / "qrels.trec", out / "run.trec", tmp_path / "s.jsonl")
    assert files["means"] == {k: summary["metrics"][k]["mean"] for k in files["means"]}
    assert files["ci95"] == {k: summary["metrics"][k]["ci95"] for k in files["ci95"]}
    assert files["ci95"]["R@10"] is not None and files["ci_method"] == summary["ci_method"]
    asked = score_researcharena_files(out / "qrels.trec", out / "run.trec", tmp_path / "t.jsonl",
                                      measures=["P@5", "RR"])
    assert list(asked["means"]) == ["P@5", "RR"] and asked["means"]["RR"] == files["means"]["RR"]


def test_organisation_embeds_the_runs_headings_in_one_batch(tmp_path, corpus_dir, no_entities):
    """`prepare_scoring` embeds every heading of the run (gold and predicted, three surveys)
    in one encoder call; each sample's scoring then only reads the cache, and scores as
    without it."""
    from scholarbench.embed.base import CachedEmbedder
    survey_file = tmp_path / "survey.jsonl"
    survey_file.write_text("".join(json.dumps({
        "id": 100 + i, "title": f"Graph topic {i}: a survey", "publicationDate": "2021-06-15",
        "references": {"influential": [1], "relevant": [3, 7]},
        "typology": json.dumps({f"Graph {i}": {f"Attention {i}": None, "Contrastive": None}})
    }) + "\n" for i in range(3)))

    class CountingEncoder:
        model_id = "fake"

        def __init__(self) -> None:
            self.fake, self.batches = FakeEmbedder(), []

        def encode(self, texts):
            self.batches.append(list(texts))
            return self.fake.embed(texts)

    encoder = CountingEncoder()
    config = {"tasks_from": str(survey_file), "progress": False}
    plain = run(ArenaRunConfig("organisation", "arena_user_agent:organise", tmp_path / "a",
                               corpus_dir, **config), FakeEmbedder())
    cached = run(ArenaRunConfig("organisation", "arena_user_agent:organise", tmp_path / "b",
                                corpus_dir, **config), CachedEmbedder(encoder))
    assert len(encoder.batches) == 1
    assert {"Attention 0", "Attention 2", "Attention"} <= set(encoder.batches[0])
    assert cached["status"] == {"scored": 3}
    assert {k: m["mean"] for k, m in cached["metrics"].items()} == \
        {k: m["mean"] for k, m in plain["metrics"].items()}
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["embedding_cache"]["computed"] == len(encoder.batches[0])
