"""The leakage audit (docs/leakage.md) on ReportBench and on ResearchArena discovery/selection,
end to end from the command line: scripted answers citing the survey by DOI, by a title
variant, papers after the cut-off, and clean ones — flags, counts and the means with and
without the flagged samples worked out by hand; the scores themselves unchanged."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from test_reportbench_llm import RUN_DATA, build_tiny_corpus

HERE = Path(__file__).parent
GT = HERE / "data" / "reportbench" / "gt"

# -- ReportBench -------------------------------------------------------------------------------

ABSTRACT = ("We review attention based sequence models and residual convolutional networks and "
            "show how both ideas combine in the deep architectures used today for text and "
            "images")
ATT = "[1] Vaswani, A. (2017). Attention is all you need. arXiv:1706.03762"
RES = "[2] He, K. (2016). Deep residual learning for image recognition. doi:10.1109/cvpr.2016.90"


def _report(text: str, *refs: str) -> str:
    return f"# Survey\n\n{text} [1] [2] [3].\n\n## References\n\n" + "\n".join(refs) + "\n"


REPORTS = {
    # the survey by its DOI (unresolved: the corpus knows it by its arXiv id only)
    "2102.00001": _report("Attention matters", ATT,
                          "[2] Lee, K. (2021). Sequence survey. https://doi.org/10.1000/s.1"),
    # the survey by a shortened title (no id)
    "2102.00002": _report("Attention and residuals", ATT, RES,
                          "[3] Smith, J. (2021). Deep Architectures for Sequences and Images. "
                          "Technical report."),
    # two papers of the cut-off's month or later (cut-off: March 2021)
    "2102.00003": _report("Attention again", ATT,
                          "[2] Doe, J. (2021). A later paper. arXiv:2104.01234",
                          "[3] Roe, J. (2021). A paper of the month. arXiv:2103.00002"),
    # clean
    "2102.00004": _report("Attention and Adam", ATT,
                          "[2] Kingma, D. (2015). Adam: A method for stochastic optimization. "
                          "arXiv:1412.6980"),
    # clean references, 14 words of the abstract verbatim
    "2102.00005": _report("As is known, " + " ".join(ABSTRACT.split()[2:16]) + " indeed", ATT,
                          RES),
}


@pytest.fixture
def rb_inputs(tmp_path):
    """Five copies of the first test survey (own ids and DOIs, a longer abstract), each with
    its ground truth (Attention, BERT, ResNet), the tiny corpus and the scripted answers."""
    base = json.loads((RUN_DATA / "ReportBench_v1.1.jsonl").read_text().splitlines()[0])
    folder, gt = tmp_path / "tasks", tmp_path / "tasks" / "gt"
    gt.mkdir(parents=True)
    lines = []
    for i, sid in enumerate(REPORTS, start=1):
        lines.append(json.dumps(dict(base, arxiv_id=sid, doi=f"10.1000/s.{i}",
                                     abstract=ABSTRACT)))
        shutil.copy(GT / "2101.00001.jsonl", gt / f"{sid}.jsonl")
    (folder / "ReportBench_v1.1.jsonl").write_text("\n".join(lines) + "\n")
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": s, "report": r}) + "\n"
                               for s, r in REPORTS.items()))
    build_tiny_corpus(tmp_path / "corpus").close()
    return folder, gt, tmp_path / "corpus", answers


def _rows(path: Path) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, path.read_text().splitlines())}


def test_reportbench_flags_the_survey_by_doi_and_title_later_papers_and_abstract_copies(
        tmp_path, rb_inputs, monkeypatch, capsys):
    from scholarbench.cli import main
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "no-data"))
    folder, gt, corpus, answers = rb_inputs
    out = tmp_path / "run"
    assert main(["run", "reportbench", "--agent", "replay", "--agent-arg", f"path={answers}",
                 "--tasks", str(folder), "--gt-dir", str(gt), "--corpus", str(corpus),
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = _rows(out / "scores.jsonl")
    assert {s: r.get("suspected_leak") for s, r in rows.items()} == {
        "2102.00001": {"survey": 1}, "2102.00002": {"survey": 1},
        "2102.00003": {"after_cutoff": 2}, "2102.00004": None,
        "2102.00005": {"abstract_words": 14}}
    # flagged, not changed. By hand (GT: Attention, BERT, ResNet; a reference outside the
    # corpus counts by its stated title): 1 Attention + the survey (never a match): P 1/2,
    # R 1/3; 2 Attention, ResNet + the survey: P 2/3, R 2/3; 3 Attention + two later papers:
    # P 1/3, R 1/3; 4 Attention, Adam: P 1/2, R 1/3; 5 Attention, ResNet: P 1, R 2/3
    precision = [0.5, 2 / 3, 1 / 3, 0.5, 1.0]
    recall = [1 / 3, 2 / 3, 1 / 3, 1 / 3, 2 / 3]
    assert [rows[s]["ref_precision"] for s in REPORTS] == pytest.approx(precision)
    assert [rows[s]["ref_recall"] for s in REPORTS] == pytest.approx(recall)
    # the scorer's exact hidden-survey check misses the shortened title; the audit does not
    assert [rows[s].get("n_hidden_survey") for s in REPORTS] == [1, None, None, None, None]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_suspected_leak"] == 4
    assert summary["metrics"]["ref_precision"]["mean"] == pytest.approx(sum(precision) / 5)
    assert summary["metrics"]["ref_recall"]["mean"] == pytest.approx(sum(recall) / 5)
    block = summary["without_leaked"]
    assert (block["n_leaked"], block["n_samples"]) == (4, 1)
    assert set(block["metrics"]) == set(summary["metrics"])
    assert block["metrics"]["ref_precision"]["mean"] == pytest.approx(0.5)
    assert block["metrics"]["ref_recall"]["mean"] == pytest.approx(1 / 3)
    assert "4 sample(s) hold papers or text only the answer key could give" in printed
    assert "without the 4 samples suspected of leakage (docs/leakage.md): " in printed
    # re-scored from the run's files, and rebuilt from the rows alone
    assert main(["score", str(out)]) == 0
    assert {s: r.get("suspected_leak") for s, r in _rows(out / "scores.jsonl").items()} == {
        s: r.get("suspected_leak") for s, r in rows.items()}
    assert main(["aggregate", str(out), "--check"]) == 0
    # the answers as a prediction file, the task file beside the GT folder: the same flags
    capsys.readouterr()
    filed = tmp_path / "filed.jsonl"
    assert main(["score", "reportbench", "--gt-dir", str(gt), "--pred", str(answers),
                 "--corpus", str(corpus), "--out", str(filed)]) == 0
    assert {r["arxiv_id"]: r.get("suspected_leak") for r in map(
        json.loads, filed.read_text().splitlines())} == {
        s: r.get("suspected_leak") for s, r in rows.items()}
    printed = capsys.readouterr().out
    assert "4 sample(s) hold papers or text only the answer key could give" in printed
    assert "without the 4 samples suspected of leakage (docs/leakage.md): ref_precision " \
           "0.5000 (n=1), ref_recall 0.3333 (n=1), ref_count 2.0000 (n=1)" in printed


# -- ResearchArena discovery / selection -------------------------------------------------------

S, A, C, E, G, L = ("arxiv:2106.00100", "doi:10.1/a", "arxiv:2105.00003", "doi:10.1/e",
                    "arxiv:1903.00007", "arxiv:2201.00010")
ARENA_SURVEYS = {"100": "Graph learning: a survey",               # S of the tiny corpus
                 "101": "Graph neural networks for molecules: a survey",
                 "102": "Graph neural networks for recommendation: a survey",
                 "103": "Graph neural networks for traffic: a survey"}
ARENA_ANSWERS = {
    # the survey by its arXiv id with a version (resolved to its corpus id)
    "100": [A, "2106.00100v2", C, "1903.00007"],
    # the survey by a subtitled title the corpus does not resolve (kept in info)
    "101": ["Graph Neural Networks for Molecules: A Survey (Extended Version)", A, C],
    # L (2022) and an unknown July 2021 arXiv id after the cut-off, E a survey
    "102": [L, A, E, C, "2107.00001"],
    # clean: A, B (not searchable: not before the cut-off, but a paper of its year), G
    "103": [A, "doi:10.1/b", "1903.00007"],
}


@pytest.fixture
def ra_inputs(tmp_path):
    """Four upstream-format surveys (cut-off 2021-06-15, gold A, C, G; 100 is the corpus's
    survey S), the tiny hand-made corpus, the scripted answers."""
    from test_researcharena_fixtures import build_tiny
    surveys = tmp_path / "survey.jsonl"
    surveys.write_text("".join(json.dumps({
        "id": int(i), "title": t, "publicationDate": "2021-06-15",
        "references": {"influential": [1], "relevant": [3, 7]}}) + "\n"
        for i, t in ARENA_SURVEYS.items()))
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": i, "papers": p}) + "\n"
                               for i, p in ARENA_ANSWERS.items()))
    build_tiny(tmp_path / "corpus")
    return surveys, tmp_path / "corpus", answers


@pytest.mark.parametrize("task", ["discovery", "selection"])
def test_researcharena_flags_the_survey_by_id_and_title_later_papers_and_surveys(
        tmp_path, ra_inputs, monkeypatch, capsys, task):
    from scholarbench.cli import main
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "no-data"))
    surveys, corpus, answers = ra_inputs
    out = tmp_path / "run"
    assert main(["run", "researcharena", "--task", task, "--agent", "replay", "--agent-arg",
                 f"path={answers}", "--corpus", str(corpus), "--tasks-from", str(surveys),
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = _rows(out / "scores.jsonl")
    assert {i: r.get("suspected_leak") for i, r in rows.items()} == {
        "100": {"survey": 1}, "101": {"survey": 1},
        "102": {"after_cutoff": 2, "excluded": 1}, "103": None}
    # flagged, not changed. By hand (gold A, C, G): 100 [A, S, C, G] R@10 1, P@10 .3, RR 1;
    # 101 [?, A, C] 2/3, .2, 1/2; 102 [L, A, E, C, ?] 2/3, .2, 1/2; 103 [A, B, G] 2/3, .2, 1
    recall, precision, rr = [1, 2 / 3, 2 / 3, 2 / 3], [.3, .2, .2, .2], [1, .5, .5, 1]
    for key, want in (("R@10", recall), ("P@10", precision), ("RR", rr)):
        assert [rows[i][key] for i in ARENA_SURVEYS] == pytest.approx(want), key
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_suspected_leak"] == 3
    assert summary["metrics"]["R@10"]["mean"] == pytest.approx(0.75)
    assert summary["metrics"]["P@10"]["mean"] == pytest.approx(0.225)
    assert summary["metrics"]["RR"]["mean"] == pytest.approx(0.75)
    block = summary["without_leaked"]
    assert (block["n_leaked"], block["n_samples"]) == (3, 1)
    assert set(block["metrics"]) == set(summary["metrics"])
    assert [block["metrics"][k]["mean"] for k in ("R@10", "P@10", "RR")] == pytest.approx(
        [2 / 3, 0.2, 1.0])
    assert "3 sample(s) hold papers or text only the answer key could give" in printed
    # re-scored from the run's files (the corpus is the manifest's), rebuilt from the rows
    assert main(["score", str(out)]) == 0
    assert {i: r.get("suspected_leak") for i, r in _rows(out / "scores.jsonl").items()} == {
        i: r.get("suspected_leak") for i, r in rows.items()}
    assert main(["aggregate", str(out), "--check"]) == 0
    # the corpus gone: re-scored alike, the audit reading the ids as written (E is not known
    # to be a survey any more; the arXiv ids still date L and 2107.00001)
    corpus.rename(tmp_path / "moved")
    assert main(["score", str(out)]) == 0
    again = _rows(out / "scores.jsonl")
    assert again["102"]["suspected_leak"] == {"after_cutoff": 2}
    assert [again[i]["R@10"] for i in ARENA_SURVEYS] == pytest.approx(recall)
    assert main(["aggregate", str(out), "--check"]) == 0


def test_researcharena_audit_without_a_corpus_reads_the_ids_as_written():
    """A re-score with no corpus: the survey still by its paper_id, a later paper only by an
    arXiv id; no paper is known to be a survey, and a title needs its corpus row."""
    from datetime import date
    from types import SimpleNamespace
    from scholarbench.benchmarks.researcharena.leakage import suspected_leak
    task = SimpleNamespace(topic="Graph learning: a survey", survey_id=S,
                           cutoff=date(2021, 6, 15))
    assert suspected_leak(task, [A, S, L, E, "doi:10.1/later"]) == {"survey": 1,
                                                                    "after_cutoff": 1}
    assert suspected_leak(task, [A, G]) == {}
    assert suspected_leak(task, ["unresolved:1", A], None,
                          ["GRAPH LEARNING - A SURVEY."]) == {"survey": 1}
