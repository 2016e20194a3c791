"""`scholarbench build` on the shared deep-review survey and on two papers of the shared corpus
read from their unarXive full text (given as corpus ids: the corpus's manifest names the
unArXive folder it was built from), with the scripted loopback endpoint: the TaxoBench,
DeepSynth-Eval, ReportBench and ResearchArena files pass `data import`, and `run` + `score`
complete on the imported data with built-in agents. Which two papers and why: docs/build.md
("Sources")."""
from __future__ import annotations

import json
import re

import pytest

from conftest import shared_path
from fake_openai import FakeOpenAI, Step
from scholarbench.cli import main
from scholarbench.data.store import import_dataset

# the sample's one survey, and the paper whose cited works resolve best in the shared corpus
PAPERS = ("arxiv:2212.11774", "arxiv:2212.11790")


def _scripted(body: dict) -> Step:
    text = body["messages"][0]["content"]
    if "General Question Generation" in text:
        return Step(text="Provide a comprehensive survey on the topic of this survey.")
    if "This is the first step: the topics" in text:
        heads = text.split("Section headers:\n")[1].split("\n\nOpening text:")[0].splitlines()
        return Step(text=json.dumps({"topics": [{"name": "Opening", "headings": [heads[0]]},
                                                {"name": "Closing", "headings": [heads[-1]]}]}))
    if "Topic Anchor" in text:
        topic = re.search(r'The topic is "([^"]+)"', text).group(1)
        return Step(text=json.dumps({"sub_groups": [
            {"sub_group_name": topic, "requirements": [f"{topic}: a fact of the survey"]}]}))
    if "Structure Anchor" in text:
        return Step(text=json.dumps({
            "constraint_question": "Include a glossary table of the terms.",
            "sub_groups": [{"sub_group_name": "A term", "requirements": ["A definition."]}]}))
    if "Write a sentence-level prompt" in text:                 # ReportBench's construction
        return Step(text="Please help me research this field, and ensure only papers published "
                         "before December 2022 are referenced.")
    if "=== Input Data: Criteria ===" in text:                  # DeepSynth's checklist judge
        criteria = text.split("=== Input Data: Criteria ===")[1].split("=== Evaluation")[0]
        n = len([line for line in criteria.strip().splitlines() if line.strip()])
        return Step(text=json.dumps(["not_mentioned"] * n))
    return Step(text="# A report\n\nA survey of the field [1].\n\n## References\n\n"
                     "[1] Explaining and harnessing adversarial examples")   # the writer agent


@pytest.fixture(scope="module")
def endpoint():
    fake = FakeOpenAI(default=_scripted).start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    """The shared corpus: every source of ../shared/data (about 20 s)."""
    from scholarbench.corpus.build import build_default_corpus
    out = tmp_path_factory.mktemp("shared-corpus")
    build_default_corpus(out, shared_path("data"))
    return out


@pytest.fixture(scope="module")
def sources():
    return [str(shared_path("data", "survey_source_deep_review")), *PAPERS]


@pytest.fixture(scope="module")
def built(endpoint, corpus_dir, sources, tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    judge = ["--judge", "judge-x", "--judge-base-url", endpoint.base_url, "--no-llm-cache"]
    assert main(["build", *sources, "--benchmarks", "taxobench,deepsynth,researcharena",
                 "--out", str(out / "a"), "--corpus", str(corpus_dir), *judge]) == 0
    ids = [a for s in ("2212.00001", "2212.11774", "2212.11790") for a in ("--arxiv-id", s)]
    dates = [a for _ in sources for a in ("--survey-date", "2022-12-22")]
    assert main(["build", *sources, "--benchmarks", "reportbench", "--out", str(out / "b"),
                 "--no-corpus", "--unarxive", str(shared_path("data", "unarxive_sample")),
                 *ids, *dates, *judge]) == 0     # no corpus: the papers are found by --unarxive
    return out


@pytest.fixture(scope="module")
def data(built, tmp_path_factory):
    data = tmp_path_factory.mktemp("data")
    counts = {name: import_dataset(name, built / part / name, data)["files"]
              for part, name in (("a", "taxobench"), ("a", "deepsynth"), ("b", "reportbench"),
                                 ("a", "researcharena"))}
    return data, counts


def test_the_papers_are_read_from_unarxive_through_the_corpus(built):
    manifest = json.loads((built / "a" / "manifest.json").read_text())
    kinds = [(s["kind"], s["title"]) for s in manifest["sources"]]
    assert kinds == [("markdown", "Opportunities and obstacles for deep learning in biology "
                      "and medicine"),
                     ("unarxive", "A literature review on different types of empirically "
                      "evaluated bug localization approaches"),
                     ("unarxive", "Normalized Contrastive Learning for Text-Video Retrieval")]
    for source in manifest["sources"][1:]:
        assert source["source"].startswith("unarxive:") and \
            source["files"][0]["path"].endswith("arXiv_src_2212_086.jsonl.gz")


def test_every_benchmark_file_passes_data_import(data):
    _, counts = data
    assert counts["taxobench"]["taxobench.jsonl"]["instances"] == 3
    assert counts["deepsynth"]["tasks.jsonl"]["tasks"] == 3
    assert counts["researcharena"]["survey.jsonl"]["surveys"] == 3
    assert counts["reportbench"]["tasks"]["surveys"] == 3


def _scores(run) -> list[dict]:
    return [json.loads(x) for x in (run / "scores.jsonl").read_text().splitlines()]


def test_taxobench_run_and_score(data, tmp_path, capsys):
    folder, _ = data
    run = tmp_path / "tb"
    assert main(["run", "taxobench", "--mode", "bottom-up", "--agent", "cluster", "--data",
                 str(folder), "--gold-name", "taxobench", "--out", str(run), "--quiet"]) == 0, \
        capsys.readouterr().err
    assert main(["score", str(run)]) == 0
    assert len(_scores(run)) == 3


def test_deepsynth_run_and_score(data, built, endpoint, corpus_dir, tmp_path, capsys):
    folder, _ = data
    run = tmp_path / "ds"
    assert main(["run", "deepsynth", "--agent", "e2e-writer", "--data", str(folder),
                 "--references", str(built / "a" / "deepsynth" / "oracle" / "references.jsonl"),
                 "--corpus", str(corpus_dir), "--oracle", "abstract", "--out", str(run),
                 "--quiet", "--model", "writer-x", "--base-url", endpoint.base_url,
                 "--judge", "judge-x", "--judge-base-url", endpoint.base_url]) == 0, \
        capsys.readouterr().err
    assert main(["score", str(run)]) == 0
    assert [r["status"] for r in _scores(run)] == ["scored"] * 3


def test_reportbench_run_and_score(data, endpoint, corpus_dir, tmp_path, capsys):
    folder, _ = data
    run = tmp_path / "rb"
    assert main(["run", "reportbench", "--agent", "e2e-writer", "--data", str(folder),
                 "--corpus", str(corpus_dir), "--out", str(run), "--quiet", "--model",
                 "writer-x", "--base-url", endpoint.base_url]) == 0, capsys.readouterr().err
    assert main(["score", str(run)]) == 0
    assert {r["arxiv_id"] for r in _scores(run)} == {"2212.00001", "2212.11774", "2212.11790"}


def test_researcharena_run_by_name_and_score(data, corpus_dir, tmp_path, capsys):
    folder, _ = data
    run = tmp_path / "ra"
    assert main(["run", "researcharena", "--task", "discovery", "--tasks-from", "survey",
                 "--corpus", str(corpus_dir), "--agent", "title-bm25", "--out", str(run),
                 "--data", str(folder)]) == 0, capsys.readouterr().err
    assert main(["score", str(run)]) == 0
    rows = _scores(run)
    assert {r["id"] for r in rows} == {"doi:10.1098/rsif.2017.0387", *PAPERS}
    # the survey itself is found in the corpus: its line's id is its corpus paper id
