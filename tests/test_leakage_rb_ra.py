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
