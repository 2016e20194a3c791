"""The leakage audit (docs/leakage.md, issue 29): per sample, the answer's papers against the
task's own rules — the source survey by id or title variant, papers not before the cut-off,
papers the rule excludes, a report quoting the survey's title or its abstract — flagged in
the score row (`suspected_leak`), counted in the summary with every mean also without the
flagged samples, shown in the eval table and the terminal summary; never a changed score."""
from __future__ import annotations

import json
from datetime import date

import pytest

from conftest import FakeEmbedder, use_fake_embedder
from scholarbench.leakage import (SPAN, AnswerKey, Cited, abstract_words, audit, leaked_note,
                                  same_title, without_leaked)

AGENT = f"{__name__}:solve"

# -- the audit on its own ----------------------------------------------------------------------

UQ = "A Survey on Uncertainty Quantification of Large Language"      # TaxoBench's own spelling
UQ_FULL = ("A Survey on Uncertainty Quantification of Large Language Models: Taxonomy, Open "
           "Challenges, and Future Directions")
ABSTRACT = ("Large language models are increasingly deployed in settings where knowing when "
            "they are wrong matters as much as being right and we review methods that estimate "
            "their uncertainty from tokens samples and internal states")


def test_the_survey_is_found_by_doi_arxiv_id_or_a_title_variant_each_reference_once():
    key = AnswerKey(titles=(UQ,), ids=("arXiv:2412.05563", "10.1145/3744238"))
    refs = ["https://doi.org/10.1145/3744238",        # the DOI, another spelling
            "2412.05563v2",                           # the arXiv id with a version
            "10.48550/arXiv.2412.05563",              # arXiv's DataCite DOI
            UQ_FULL,                                  # the title with its subtitle
            "50_" + UQ,                               # a directory-order prefix
            "2412.05563v2",                           # a repeat: one reference
            "Semantic entropy detects hallucinations"]
    assert audit(key, refs) == {"survey": 5}
    assert audit(key, refs[-1:]) == {}
    # a resolved id or a corpus title names it too
    assert audit(key, [Cited("P7", ids=("doi:10.1145/3744238",))]) == {"survey": 1}
    assert audit(key, [Cited("P8", titles=(UQ_FULL.upper(),))]) == {"survey": 1}


def test_short_titles_match_only_when_equal():
    assert same_title("Graph Neural Networks", "graph neural networks")
    assert not same_title("Graph Neural Networks", "Graph neural networks for traffic")
    assert same_title(UQ, UQ_FULL) and not same_title(UQ, "A Survey on Large Language Models")


def test_papers_not_before_the_cutoff_by_corpus_date_or_arxiv_month_and_excluded_papers():
    key = AnswerKey(titles=("A Survey of Graph Neural Networks",), cutoff=date(2024, 3, 1))
    papers = [Cited("2403.00001"),                            # March 2024: not before
              Cited("arXiv:2402.99999"),                      # February: before
              Cited("P1", earliest=date(2024, 3, 1)),         # the cut-off day itself
              Cited("P2", earliest=date(2024, 2, 29)),
              Cited("P3"),                                    # undated: not counted
              Cited("P4", excluded=True),                     # the rule excludes it
              Cited("P5", earliest=date(2025, 1, 1), excluded=True)]   # first reason only
    assert audit(key, papers) == {"after_cutoff": 3, "excluded": 1}
    assert audit(AnswerKey(titles=key.titles), papers) == {"excluded": 2}   # no cut-off


def test_a_report_quoting_the_title_or_a_long_span_of_the_abstract():
    key = AnswerKey(titles=(UQ_FULL,), abstract=ABSTRACT)
    words = ABSTRACT.split()
    span = " ".join(words[3:3 + SPAN + 2])                  # 14 words verbatim
    text = f"As {UQ_FULL.lower()} argues, {span}. Then our own words. {UQ_FULL}!"
    assert audit(key, [], text) == {"title_quoted": 2, "abstract_words": SPAN + 2}
    assert audit(key, [], text, quote_title=False) == {"abstract_words": SPAN + 2}
    short = " ".join(words[3:3 + SPAN - 1])                 # 11 words: below the threshold
    assert abstract_words(ABSTRACT, f"x {short} y") == 0
    assert audit(key, [], "A report in its own words about model uncertainty.") == {}


# -- the summary, the eval table and the notes -------------------------------------------------

class _MeanBench:
    """A benchmark whose aggregate is the plain mean of `recall` (what summarise calls)."""

    def aggregate(self, rows, manifest):
        values = [r["recall"] for r in rows]
        return {"metrics": {"recall": {"mean": sum(values) / len(values), "n": len(values),
                                       "n_null": 0}}}


def test_without_leaked_aggregates_again_only_when_a_row_is_flagged():
    rows = [{"recall": 1.0, "suspected_leak": {"survey": 1}}, {"recall": 0.5},
            {"recall": 0.0}]
    summary = _MeanBench().aggregate(rows, {})
    block = without_leaked(lambda kept: _MeanBench().aggregate(kept, {})["metrics"], rows,
                           summary)
    assert block == {"n_leaked": 1, "n_samples": 2,
                     "metrics": {"recall": {"mean": 0.25, "n": 2, "n_null": 0}}}
    assert without_leaked(lambda kept: {}, rows[1:], summary) is None
    assert leaked_note({"without_leaked": block}) == (
        "without the 1 sample suspected of leakage (docs/leakage.md): recall 0.2500 (n=2)")
    assert leaked_note({}) is None


def test_the_eval_table_shows_the_headline_means_without_leaked_samples():
    from scholarbench.core.suite import format_table
    entry = {"benchmark": "taxobench", "subtask": "deep-research", "status": "complete",
             "samples": 4, "counts": {"scored": 4}, "headline": {"recall": 0.875},
             "without_leaked": {"n_leaked": 2, "n_samples": 2, "metrics": {
                 "recall": {"mean": 0.75, "n": 2, "n_null": 0},
                 "ari": {"mean": 0.1, "n": 2, "n_null": 0}}}}
    table = format_table([entry])
    assert table.splitlines()[-1] == (
        "  taxobench deep-research: without the 2 samples suspected of leakage "
        "(docs/leakage.md): recall 0.7500 (n=2)")
    plain = {k: v for k, v in entry.items() if k != "without_leaked"}
    assert "leakage" not in format_table([plain])


# -- TaxoBench Deep Research, end to end -------------------------------------------------------

SURVEYS = {"1": "A Survey of Graph Neural Networks for Molecules",
           "2": UQ,
           "3": "Retrieval Augmented Generation for Question Answering: A Survey",
           "4": "A Review of Diffusion Models for Image Synthesis"}
PAPERS = {sid: [f"{word} study number {k} of topic {sid}" for k, word in
                enumerate(("Attention", "Contrastive"))] for sid in SURVEYS}
SURVEY_ID: dict[str, str] = {}          # the corpus paper_id of survey 1 (set by the fixture)


def solve(task: dict) -> dict:
    """1 cites the survey by its corpus id, 2 by its full title (the instance has a truncated
    one), 3 and 4 are clean; 4 also names an unknown paper."""
    sid = task["id"]
    papers = {"1": PAPERS["1"] + [SURVEY_ID["1"]],
              "2": PAPERS["2"] + [UQ_FULL],
              "3": PAPERS["3"][:1],
              "4": PAPERS["4"] + ["An unrelated paper on protein folding"]}[sid]
    return {"taxonomy": {"name": task["topic"], "subtopics": [
        {"name": "First", "papers": papers[:1]}, {"name": "Rest", "papers": papers[1:]}]}}


def _instance(sid: str) -> dict:
    return {"id": int(sid), "survey": SURVEYS[sid], "survey_topic": SURVEYS[sid],
            "pdfs": [{"title": t, "abs": f"About {t}."} for t in PAPERS[sid]],
            "gt": {"name": SURVEYS[sid], "subtopics": [
                {"name": "A", "papers": PAPERS[sid][:1]},
                {"name": "B", "papers": PAPERS[sid][1:]}]}}


@pytest.fixture
def setup(tmp_path, monkeypatch):
    """A gold file of the four instances and a corpus holding their papers and survey 1."""
    from scholarbench.corpus.build import build_corpus
    from scholarbench.corpus.store import Corpus
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "no-data"))
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))
    use_fake_embedder(monkeypatch)
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(_instance(s)) + "\n" for s in SURVEYS))
    source = tmp_path / "corpus-source.jsonl"
    pdfs = [{"title": SURVEYS["1"], "abs": "We survey GNNs for molecules."}]
    pdfs += [p for s in SURVEYS for p in _instance(s)["pdfs"]]
    source.write_text(json.dumps({"id": 99, "survey": "x", "pdfs": pdfs,
                                  "gt": {"name": "r", "papers": ["x"]}}) + "\n")
    build_corpus(tmp_path / "corpus", [source], None)
    corpus = Corpus.open(tmp_path / "corpus")
    SURVEY_ID["1"] = corpus.resolve("title:" + SURVEYS["1"])
    assert SURVEY_ID["1"] and SURVEY_ID["1"] != SURVEYS["1"]
    corpus.close()
    return gold, tmp_path / "corpus"


def _rows(out) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, (out / "scores.jsonl").read_text().splitlines())}


def test_taxobench_deep_research_flags_the_survey_by_id_and_by_title_variant(tmp_path, setup,
                                                                            capsys):
    from scholarbench.cli import main
    gold, corpus = setup
    out = tmp_path / "run"
    assert main(["run", "taxobench", "--mode", "deep-research", "--agent", AGENT, "--gold",
                 str(gold), "--corpus", str(corpus), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = _rows(out)
    generated = {r["id"]: r for r in map(json.loads,
                                         (out / "generate.jsonl").read_text().splitlines())}
    # the id was recorded as the corpus title: the survey's, flagged by title
    assert SURVEYS["1"] in generated["1"]["prediction"]["hierarchy_tree"]["subtopics"][1][
        "papers"]
    assert rows["1"]["suspected_leak"] == {"survey": 1}
    assert rows["2"]["suspected_leak"] == {"survey": 1}
    assert "suspected_leak" not in rows["3"] and "suspected_leak" not in rows["4"]
    # flagged, not changed: by hand, recall 2/2, 2/2, 1/2, 2/2; precision 2/3, 2/3, 1/1, 2/3
    assert [rows[s]["recall"] for s in "1234"] == pytest.approx([1.0, 1.0, 0.5, 1.0])
    assert [rows[s]["precision"] for s in "1234"] == pytest.approx([2 / 3, 2 / 3, 1.0, 2 / 3])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_suspected_leak"] == 2
    assert summary["metrics"]["recall"]["mean"] == pytest.approx(3.5 / 4)
    assert summary["metrics"]["precision"]["mean"] == pytest.approx(3 / 4)
    block = summary["without_leaked"]
    assert block["n_leaked"] == 2 and block["n_samples"] == 2
    assert set(block["metrics"]) == set(summary["metrics"])
    assert block["metrics"]["recall"]["mean"] == pytest.approx(0.75)
    assert block["metrics"]["precision"]["mean"] == pytest.approx((1.0 + 2 / 3) / 2)
    assert block["metrics"]["recall"]["n"] == 2
    assert "2 sample(s) hold papers or text only the answer key could give" in printed
    assert "without the 2 samples suspected of leakage (docs/leakage.md): recall 0.7500 " \
           "(n=2), precision 0.8333 (n=2)" in printed
    # the summary is the rows' alone
    assert main(["aggregate", str(out), "--check"]) == 0
    # eval.json's entry and the eval table carry the headline means without them
    from scholarbench.benchmarks.taxobench import TaxoBench
    from scholarbench.core.suite import format_table, run_entry
    entry = run_entry(TaxoBench(), "deep-research", out)
    assert entry["n_suspected_leak"] == 2 and entry["without_leaked"] == block
    assert format_table([entry]).splitlines()[-1].startswith(
        "  taxobench deep-research: without the 2 samples suspected of leakage "
        "(docs/leakage.md): recall 0.7500 (n=2), precision 0.8333 (n=2), f1 ")


AGENT_BU = f"{__name__}:solve_bottom_up"


def solve_bottom_up(task: dict) -> dict:
    """Places paper 1 and names the survey as a paper: not audited in Bottom-Up."""
    return {"taxonomy": {"name": task["topic"], "subtopics": [
        {"name": "A", "papers": ["1", task["survey"]]}]}}


def test_taxobench_has_no_cutoff_check_and_bottom_up_is_not_audited(tmp_path, setup):
    """TaxoBench instances carry no survey date: a paper from years after the survey is not
    flagged; Bottom-Up (the paper list is given) is not audited."""
    from scholarbench.benchmarks.taxobench.leakage import answer_key, suspected_leak
    from scholarbench.data.taxobench import load_instances, parse_prediction
    gold, _ = setup
    task = load_instances(gold)[0]
    assert answer_key(task) == AnswerKey(titles=(SURVEYS["1"],))
    pred = parse_prediction({"id": "1", "hierarchy_tree": {"name": "r", "papers": [
        "arXiv:2901.00001", PAPERS["1"][0]]}})
    assert suspected_leak(task, pred) == {}
    from scholarbench.benchmarks.taxobench.runner import RunConfig, run
    out = tmp_path / "bu"
    summary = run(RunConfig(gold, "bottom-up", AGENT_BU, out, progress=False), FakeEmbedder())
    assert summary["n_suspected_leak"] == 0 and "without_leaked" not in summary


def test_score_files_flags_a_prediction_retrieving_the_survey(tmp_path, setup, capsys):
    """`score taxobench --gold --pred --out`: the same flag, summary block and printed note."""
    from scholarbench.cli import main
    gold, _ = setup
    pred = tmp_path / "pred.jsonl"
    pred.write_text(
        json.dumps({"id": 3, "hierarchy_tree": {"name": "r", "papers": PAPERS["3"]},
                    "retrieved_papers": PAPERS["3"] + [SURVEYS["3"].upper()]}) + "\n"
        + json.dumps({"id": 4, "hierarchy_tree": {"name": "r", "papers": PAPERS["4"]}}) + "\n")
    out = tmp_path / "scores.jsonl"
    assert main(["score", "taxobench", "--gold", str(gold), "--pred", str(pred), "--out",
                 str(out)]) == 0
    printed = capsys.readouterr().out
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["3"]["suspected_leak"] == {"survey": 1}
    assert [s for s, r in rows.items() if r.get("suspected_leak")] == ["3"]
    # by hand: 3 retrieved 2 gold papers of 3 (precision 2/3, recall 1); 4 recall 1,
    # precision 1; 1 and 2 have no prediction (0, 0)
    assert rows["3"]["precision"] == pytest.approx(2 / 3)
    assert "1 sample(s) hold papers or text only the answer key could give" in printed
    assert "without the 1 sample suspected of leakage (docs/leakage.md): recall 0.3333 " \
           "(n=3), precision 0.3333 (n=3)" in printed


def test_from_corpus_gives_titles_dates_and_the_survey_flag_resolved_papers_need(tmp_path,
                                                                                 setup):
    """What ResearchArena's and ReportBench's scorers hand over: corpus facts of resolved
    references (a year gives 1 January), unresolved ones as written."""
    from scholarbench.corpus.build import build_corpus
    from scholarbench.corpus.store import Corpus
    from scholarbench.leakage import from_corpus
    extra = tmp_path / "extra.jsonl"
    extra.write_text("".join(json.dumps(p) + "\n" for p in (
        {"title": "Molecular graph transformers at scale", "year": 2031},
        {"title": "Message passing on molecular graphs", "year": 2019},
        {"title": "A Survey of Molecular Property Prediction", "year": 2019})))
    gold, _ = setup
    build_corpus(tmp_path / "c", [gold], None, extra)
    corpus = Corpus.open(tmp_path / "c")
    later, earlier, other = (corpus.resolve("title:" + t) for t in (
        "Molecular graph transformers at scale", "Message passing on molecular graphs",
        "A Survey of Molecular Property Prediction"))
    assert corpus.get_rows([other])[0]["is_survey"]
    refs = [("Molecular graph transformers at scale", later), ("2019 MPNN", earlier),
            ("the molecular survey", other), ("doi:10.1/unknown", None),
            (UQ_FULL, None)]
    cited = from_corpus(corpus, refs, excluded_surveys=True)
    assert [c.ref for c in cited] == [r for r, _ in refs]
    assert cited[0].titles == ("Molecular graph transformers at scale",)
    assert cited[0].earliest == date(2031, 1, 1) and later in cited[0].ids
    assert cited[2].excluded and not cited[1].excluded and cited[3] == Cited("doi:10.1/unknown")
    key = AnswerKey(titles=(UQ,), cutoff=date(2030, 6, 1))
    assert audit(key, cited) == {"survey": 1, "after_cutoff": 1, "excluded": 1}
    assert audit(key, from_corpus(None, refs[:1])) == {}     # no corpus: as written
    # what the scorer knows is kept and the corpus facts added
    (merged,) = from_corpus(corpus, [(Cited("#1", titles=(UQ_FULL,), ids=("doi:10.1/x",)),
                                      later)])
    assert merged.titles == (UQ_FULL, "Molecular graph transformers at scale")
    assert merged.ids[:2] == ("doi:10.1/x", later) and merged.earliest == date(2031, 1, 1)
    assert audit(key, [merged]) == {"survey": 1}
    corpus.close()
