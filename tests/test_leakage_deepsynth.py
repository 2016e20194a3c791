"""The leakage audit on DeepSynth-Eval (docs/leakage.md): a task names its survey by arXiv id;
with the corpus also by its title and abstract, and the writers' cut-off (the survey's first
possible day). Scripted replay reports cite the survey by its arXiv DOI, a paper after the
cut-off, quote the survey's title and abstract, or stay clean: flags, the items recorded, the
counts and the means with and without the flagged samples worked out by hand; the drill-down
of the HTML report is not per-item here (DeepSynth has no reference lists), the findings are."""
from __future__ import annotations

import json
from dataclasses import replace
from datetime import date

import pytest

from fake_openai import FakeOpenAI
from test_deepsynth_oracle import PAPERS, STUB, checklist, router
from test_deepsynth_run import Roles, config
from scholarbench.corpus.build import build
from scholarbench.data.sources.records import EdgeRecord

ABSTRACT = ("We organise widget learning into transformers pooling and graph methods and "
            "compare them on every public widget benchmark")
TITLE = "A survey of widget learning"
SURVEYS = {7: "2301.00001", 8: "2302.99999", 9: "2301.00001", 10: "2301.00001"}
EVERYTHING = ("Widget transformers, gadget pooling and widget graphs, organised by input "
              "type, with their limitations")
REPORTS = {
    # the survey by arXiv's DataCite DOI (resolves to the survey's corpus row)
    7: {"report": "# Widgets\n\nSee [1] and [2].\n\n## References\n\n[1] Early widget learning "
                  "methods. arXiv:1901.00009\n[2] Lee (2023). Our source. "
                  "https://doi.org/10.48550/arXiv.2301.00001\n"},
    # task 8's survey is not in the corpus (cut-off: its arXiv month, 2023-02-01): a June
    # 2023 paper, also given in `cited` (counted once)
    8: {"report": "# Widgets\n\nSee [1].\n\n## References\n\n[1] Widget learning after the "
                  "survey. arXiv:2306.00010\n", "cited": ["arxiv:2306.00010"]},
    # clean: papers before the cut-off, and every requirement's key word
    9: {"report": f"# Widgets\n\n{EVERYTHING} [1].\n\n## References\n\n[1] Early widget "
                  "learning methods. arXiv:1901.00009\n"},
    # the survey's title quoted, 17 words of its abstract verbatim, no references
    10: {"report": f"# Widgets\n\nAs {TITLE} explains, we organise widget learning into "
                   "transformers pooling and graph methods and compare them on every public "
                   "widget dataset."},
}


@pytest.fixture
def inputs(tmp_path):
    papers = dict(PAPERS, SURVEY=replace(PAPERS["SURVEY"], abstract=ABSTRACT))
    records: list = list(papers.values())
    records += [EdgeRecord("reportbench", papers["SURVEY"].ref(), papers[k].ref())
                for k in ("R1", "R2", "R3")] + [EdgeRecord("reportbench",
                                                           papers["SURVEY"].ref(), STUB)]
    build(tmp_path / "corpus", [("tiny", records)], {})
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({
        "task_id": i, "survey_id": s, "general_prompt": "Please write a comprehensive survey "
        "paper on widget learning based on the provided papers.", "checklist": checklist()})
        + "\n" for i, s in SURVEYS.items()))
    replay = tmp_path / "reports.jsonl"
    replay.write_text("".join(json.dumps({"id": str(i), **r}) + "\n" for i, r in REPORTS.items()))
    server = FakeOpenAI().start()
    server.default = router()
    yield tasks, tmp_path / "corpus", replay, server
    server.stop()


def _rows(path):
    return {str(r["task_id"]): r for r in map(json.loads, path.read_text().splitlines())}


def test_deepsynth_flags_the_survey_later_papers_and_copied_text(tmp_path, inputs, capsys):
    from scholarbench.cli import main
    from scholarbench.benchmarks.deepsynth.api import run_deepsynth
    tasks, corpus, replay, server = inputs
    out = tmp_path / "run"
    summary = run_deepsynth(config(tasks, out, corpus, agent="replay", replay=replay),
                            Roles(server, tmp_path / "cache.sqlite"))
    rows = _rows(out / "scores.jsonl")
    assert {i: r.get("suspected_leak") for i, r in rows.items()} == {
        "7": {"survey": 1}, "8": {"after_cutoff": 1}, "9": None,
        "10": {"title_quoted": 1, "abstract_words": 17}}
    assert [(i["rule"], i["index"], i["label"]) for i in rows["7"]["leaked_items"]] == [
        ("survey", 1, "[2] A survey of widget learning")]          # its corpus title
    assert [(i["rule"], i["label"]) for i in rows["8"]["leaked_items"]] == [
        ("after_cutoff", "[1] Widget learning after the survey")]
    assert rows["10"]["leaked_spans"] == [
        "we organise widget learning into transformers pooling and graph methods and compare "
        "them on every public widget"]
    # flagged, not changed. By hand (the scripted judge marks a requirement correct when the
    # report names its key word): 9 names all five (every group full: 1.0); 7 and 8 none
    # (0.0); 10 names transformers and pooling only: Methods 2 of 3 items, Structure 0
    assert [rows[i]["n_correct"] for i in "7 8 9 10".split()] == [0, 0, 5, 2]
    # 10: Methods (general, θ = 3 items) 2/3, Structure (constraint) 0: Overall 1/3
    want = {"dse_overall": [0, 0, 1, 1 / 3], "dse_general": [0, 0, 1, 2 / 3],
            "dse_constraint": [0, 0, 1, 0]}
    for key, values in want.items():
        assert [rows[i][key] for i in "7 8 9 10".split()] == pytest.approx(values), key
    assert summary["n_suspected_leak"] == 3
    assert summary["metrics"]["dse_overall"]["mean"] == pytest.approx(1 / 3)   # (1 + 1/3) / 4
    assert summary["metrics"]["dse_general"]["mean"] == pytest.approx(5 / 12)
    block = summary["without_leaked"]
    assert (block["n_leaked"], block["n_samples"]) == (3, 1)
    assert set(block["metrics"]) == set(summary["metrics"])
    assert [block["metrics"][k]["mean"] for k in ("dse_overall", "dse_general",
                                                  "dse_constraint")] == pytest.approx([1, 1, 1])
    # re-scored from the run's files (the corpus the manifest names), rebuilt from the rows
    capsys.readouterr()
    assert main(["score", str(out)]) == 0
    assert {i: r.get("suspected_leak") for i, r in _rows(out / "scores.jsonl").items()} == {
        i: r.get("suspected_leak") for i, r in rows.items()}
    printed = capsys.readouterr().out
    assert "3 sample(s) hold papers or text only the answer key could give" in printed
    assert "without the 3 samples suspected of leakage (docs/leakage.md): dse_overall 1.0000 " \
           "(n=1)" in printed
    assert main(["aggregate", str(out), "--check"]) == 0
    # the report: the badge on the sample's row, the findings listed, the leaderboard's note
    from scholarbench.report.exports import leaderboard_text
    from scholarbench.report.html import render_html_report
    from scholarbench.report.sections.base import load_report_runs
    html = render_html_report(load_report_runs([out]))
    seven = html[html.index('<details class="sample" data-sample="7"'):
                 html.index('<details class="sample" data-sample="8"')]
    assert 'class="leak-badge" data-leak="survey 1"' in seven
    assert "[2] A survey of widget learning" in seven and "leak: the survey itself" in seven
    ten = html[html.index('<details class="sample" data-sample="10"'):]
    assert "the report quotes the survey's title 1×" in ten
    assert "<q>we organise widget learning" in ten
    text = leaderboard_text(load_report_runs([out]), "markdown")
    assert "3 samples suspected of leakage" in text and r"dse\_overall 1.0000 (n=1)" in text


def test_deepsynth_audit_without_a_corpus_knows_the_survey_by_its_arxiv_id():
    """No corpus: the survey by its arXiv id (or arXiv's DOI), a later paper by an arXiv id
    after the survey's arXiv month; no title or abstract is known, so the text is not
    checked."""
    from types import SimpleNamespace
    from scholarbench.benchmarks.deepsynth.leakage import answer_key, suspected_leak
    task = SimpleNamespace(survey_id="2301.00001")
    key = answer_key(task)
    assert key.cutoff == date(2023, 1, 1) and key.titles == () and key.abstract is None
    assert suspected_leak(task, REPORTS[7]) == {"survey": 1}
    assert suspected_leak(task, {"report": "Text.", "cited": ["2301.00001v3", "2212.00001",
                                                              "2302.00002"]}) == {
        "survey": 1, "after_cutoff": 1}
    assert suspected_leak(task, REPORTS[10]) == {}
    assert suspected_leak(task, None) == {}
