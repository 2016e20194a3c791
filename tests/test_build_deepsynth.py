"""`scholarbench build --benchmarks deepsynth` with the scripted loopback endpoint on the shared
deep-review survey: the built tasks pass `data import`, every checklist group traces to a
topic (anchored to the survey's headers) or a table of the survey, the screens flag what they
should, and the Oracle Context is the bibliography minus the unresolved works (counted)."""
from __future__ import annotations

import json
import re

import pytest

from conftest import shared_path
from fake_openai import FakeOpenAI, Step
from scholarbench.benchmarks.deepsynth.loader import load_tasks
from scholarbench.benchmarks.deepsynth.oracle import read_reference_lists
from scholarbench.builder import read_source
from scholarbench.builder.deepsynth import PROMPTS, prompt, screens
from scholarbench.builder.works import cited_works
from scholarbench.cli import main
from scholarbench.data.store import import_dataset


def _scripted(body: dict) -> Step:
    text = body["messages"][0]["content"]
    if "General Question Generation" in text:
        return Step(text="Provide a comprehensive survey on deep learning in biology and "
                         "medicine.")
    if "This is the first step: the topics" in text:
        outline = text.split("Section headers:\n")[1].split("\n\nOpening text:")[0]
        heads = outline.splitlines()
        return Step(text=json.dumps({"topics": [
            {"name": "Foundations", "headings": [heads[0], "Not a header of this survey"]},
            {"name": "Patient categorization", "headings": [heads[5], heads[6]]}]}))
    if "Topic Anchor" in text:
        topic = re.search(r'The topic is "([^"]+)"', text).group(1)
        return Step(text=json.dumps({"sub_groups": [
            {"sub_group_name": topic, "requirements": [f"{topic}: a fact of the survey",
                                                       f"{topic}: another fact"]}]}))
    if "Structure Anchor" in text:
        return Step(text=json.dumps({
            "constraint_question": "Include a glossary table of deep learning terms with "
                                   "their definition and example applications.",
            "sub_groups": [{"sub_group_name": "Autoencoder (AE)", "requirements": [
                "An autoencoder minimises the error between its output and input layers.",
                "Autoencoder (AE): ✓"]}]}))
    if "=== Input Data: Criteria ===" in text:                  # the checklist judge
        criteria = text.split("=== Input Data: Criteria ===")[1].split("=== Evaluation")[0]
        n = len([line for line in criteria.strip().splitlines() if line.strip()])
        return Step(text=json.dumps(["not_mentioned"] * n))
    return Step(text="# A report\n\nDeep learning in biology [1].")  # the writer agent


@pytest.fixture(scope="module")
def endpoint():
    fake = FakeOpenAI(default=_scripted).start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    from scholarbench.corpus.build import build_default_corpus
    root = tmp_path_factory.mktemp("src")
    (root / "survey_source_deep_review").symlink_to(
        shared_path("data", "survey_source_deep_review"))
    out = tmp_path_factory.mktemp("corpus")
    build_default_corpus(out, root)
    return out


@pytest.fixture(scope="module")
def built(endpoint, corpus_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    rc = main(["build", str(shared_path("data", "survey_source_deep_review")),
               "--benchmarks", "deepsynth", "--out", str(out), "--corpus", str(corpus_dir),
               "--judge", "judge-x", "--judge-base-url", endpoint.base_url, "--no-llm-cache"])
    assert rc == 0
    return out


def test_built_tasks_pass_data_import(built, tmp_path):
    entry = import_dataset("deepsynth", built / "deepsynth", tmp_path / "data")
    assert entry["files"]["tasks.jsonl"]["tasks"] == 1
    (task,) = load_tasks(built / "deepsynth" / "tasks.jsonl")
    assert task.general_prompt.startswith("Provide a comprehensive survey on")
    general = [g for g in task.checklist if not g.strict]
    strict = [g for g in task.checklist if g.strict]
    assert [g.name for g in general] == ["Foundations", "Patient categorization"]
    assert all(g.clip_factor == 1.0 for g in general)          # upstream defaults
    assert [g.name for g in strict] == ["Glossary."] and strict[0].clip_factor == 0.8
    assert strict[0].detailed_prompt.startswith("Include a glossary table")


def test_every_group_traces_to_a_topic_or_a_table_of_the_survey(built):
    doc = read_source(shared_path("data", "survey_source_deep_review"))
    headers = {" > ".join(p) for top in doc.sections for p, _ in top.walk()}
    tables = {t.where for top in doc.sections for _, s in top.walk() for t in s.tables}
    (task,) = load_tasks(built / "deepsynth" / "tasks.jsonl")
    trace = [json.loads(line) for line in
             (built / "deepsynth" / "anchors" / "trace.jsonl").read_text().splitlines()]
    assert [t["group"] for t in trace] == [g.name for g in task.checklist]
    for group, anchor in zip(task.checklist, (t["anchor"] for t in trace)):
        if group.strict:
            assert anchor["kind"] == "table" and anchor["where"] in tables
        else:
            assert anchor["kind"] == "topic" and anchor["headings"]
            assert set(anchor["headings"]) <= headers        # the invented header was dropped
    assert len(tables) == 1                                  # the glossary; the competing-
    # interests tables sit under excluded back matter


def test_oracle_context_is_the_bibliography_minus_the_unresolved(built, corpus_dir):
    from scholarbench.corpus.store import Corpus
    corpus = Corpus.open(corpus_dir)
    doc = read_source(shared_path("data", "survey_source_deep_review"))
    works, _ = cited_works(doc.gt, corpus)
    lists = read_reference_lists(built / "deepsynth" / "oracle" / "references.jsonl")
    (refs,) = lists.values()
    resolved = [w for w in works if w.paper_id]
    assert len(refs) == len(resolved) and 0 < len(resolved) < len(works)
    assert [r.ids[0] for r in refs] == [w.paper_id for w in resolved]
    manifest = json.loads((built / "manifest.json").read_text())
    counts = manifest["benchmarks"]["deepsynth"]["counts"]
    (c,) = counts.values()
    assert c["bibliography"] == len(works) == 615
    assert c["resolved"] + c["unresolved"] == c["bibliography"]
    assert c["unresolved"] == len(works) - len(resolved)


def test_manifest_records_prompts_models_and_usage_per_stage(built):
    manifest = json.loads((built / "manifest.json").read_text())
    for stage in PROMPTS:
        key = f"deepsynth.{stage}"
        assert manifest["prompts"][key] == prompt(stage).identity()
        assert manifest["models"][key].endswith("|judge-x")
        assert manifest["usage"][key]["calls"] >= 1
    assert manifest["usage"]["deepsynth.topic_items"]["calls"] == 2     # one per topic
    review = (built / "review.md").read_text()
    assert "contextual ambiguity: bare symbol in item \"Autoencoder (AE): ✓\"" in review
    assert "0 unresolved" not in review


def test_screens():
    group = {"group_name": "T", "strict": True,
             "detailed_prompt": "A table of datasets: GSM8K has 8.5k problems, MATH has 12.5k.",
             "sub_groups": [{"sub_group_name": "x", "requirements": [
                 {"content": "GSM8K has 8.5k problems"}, {"content": "MATH has 12.5k"},
                 {"content": "AQuA: ×"}]}]}
    flags = screens(group)
    assert any(f.startswith("over-specification: 2 of 3") for f in flags)
    assert any("bare symbol" in f and "AQuA: ×" in f for f in flags)
    group["detailed_prompt"] = "A table of reasoning datasets with their size."
    group["sub_groups"][0]["requirements"] = [{"content": "GSM8K has 8.5k problems"}]
    assert screens(group) == []


def test_run_and_score_on_the_built_task(built, endpoint, corpus_dir, tmp_path, monkeypatch):
    """The built task file and reference list run end to end with the built-in single-turn
    writer (scripted endpoint as agent and judge)."""
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    code = main(["run", "deepsynth", "--agent", "e2e-writer", "--tasks",
                 str(built / "deepsynth" / "tasks.jsonl"), "--references",
                 str(built / "deepsynth" / "oracle" / "references.jsonl"),
                 "--corpus", str(corpus_dir), "--oracle", "abstract", "--out", "runs/b",
                 "--quiet", "--model", "writer-x", "--base-url", endpoint.base_url,
                 "--judge", "judge-x", "--judge-base-url", endpoint.base_url])
    assert code == 0
    scores = [json.loads(x) for x in (tmp_path / "runs/b/scores.jsonl").read_text().splitlines()]
    assert [r["status"] for r in scores] == ["scored"]
    oracle = [json.loads(x) for x in (tmp_path / "runs/b/oracle.jsonl").read_text().splitlines()]
    assert oracle[0]["source"] == "file"


def _build_with(default, tmp_path):
    fake = FakeOpenAI(default=default).start()
    try:
        rc = main(["build", str(shared_path("data", "survey_source_deep_review")),
                   "--benchmarks", "deepsynth", "--out", str(tmp_path / "o"), "--no-corpus",
                   "--judge", "judge-x", "--judge-base-url", fake.base_url, "--no-llm-cache"])
    finally:
        fake.stop()
    return rc, (tmp_path / "o" / "review.md").read_text()


def test_unusable_replies_write_no_task_and_exit_non_zero(tmp_path, capsys):
    rc, review = _build_with(Step(text="I cannot help with that."), tmp_path)
    assert rc == 1
    assert "no task written for deepsynth" in capsys.readouterr().err
    assert "task written: NO" in review
    assert "- topics: after 1 repair(s): not valid JSON" in review
    assert (tmp_path / "o" / "deepsynth" / "tasks.jsonl").read_text() == ""


def test_a_failing_endpoint_is_an_error(tmp_path, capsys):
    rc, review = _build_with(Step(status=400, text="bad request"), tmp_path)
    assert rc == 3
    assert "model call(s) failed" in capsys.readouterr().err
    assert "call failed" in review
