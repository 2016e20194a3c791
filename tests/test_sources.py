"""Source readers: spot checks on the shared data (count, item 0, a middle item, the last item,
as ir_datasets does) and malformed input naming the file, the line and the field."""
from __future__ import annotations

import gzip
import json
from datetime import date
from pathlib import Path

import pytest

from conftest import shared_path
from scholarbench.data.sources import (SOURCES, EdgeRecord, PaperRecord, ParagraphRecord, Ref,
                                       read_arxiv2023, read_deep_review, read_openalex,
                                       read_references, read_s2ag, read_surveys,
                                       read_taxobench, read_unarxive, taxobench_files)
from scholarbench.data.sources.dates import arxiv_year_month, csl_date, parse_date, parse_year
from scholarbench.data.sources.keys import canonical_key, id_key
from scholarbench.data.sources.openalex import abstract_from_inverted_index
from scholarbench.data.sources.reportbench import reference_ids
from scholarbench.errors import DataError


def _split(records):
    out = {PaperRecord: [], EdgeRecord: [], ParagraphRecord: []}
    for rec in records:
        out[type(rec)].append(rec)
    return out[PaperRecord], out[EdgeRecord], out[ParagraphRecord]


def _spot(items, n):
    assert len(items) == n
    return items[0], items[n // 2], items[-1]


# ---- spot checks on the shared data ---------------------------------------------------------

def test_taxobench_spot():
    folder = shared_path("data", "taxobench")
    files = taxobench_files(folder)
    assert [f.name for f in files] == ["taxobench_5_instances.jsonl"]  # toy_* fixtures left out
    papers, edges, paras = _split(read_taxobench(files))
    first, mid, last = _spot(papers, 226)
    assert not edges and not paras
    assert first.title == "Decoding-Time Language Model Alignment with Multiple Objectives"
    assert first.abstract.startswith("Aligning language models (LMs) to human preferences")
    assert mid.title == ("Uncertainty Quantification for In-Context Learning of Large Language "
                         "Models")
    assert last.title.startswith("Solving Challenging Math Word Problems Using GPT-4 Code")
    assert all(p.ids == () and p.source == "taxobench" for p in papers)


def test_reportbench_surveys_spot():
    papers = list(read_surveys(shared_path("data", "reportbench", "ReportBench_v1.1.jsonl")))
    first, mid, last = _spot(papers, 100)
    assert first == PaperRecord(
        "reportbench-surveys", ("arxiv:2312.04861", "doi:10.1109/tits.2025.3554781"),
        "Exploring Radar Data Representations in Autonomous Driving: A Comprehensive Review",
        first.abstract, 2023, date(2023, 12, 8), True, "cs.CV")
    assert first.abstract.startswith("With the rapid advancements of sensor technology")
    assert all(p.is_survey and p.ids[0].startswith("arxiv:") for p in papers)
    assert sum(1 for p in papers if len(p.ids) == 2) == 45  # 45 carry a DOI
    assert mid.published is not None and last.published is not None


def test_reportbench_references_spot():
    papers, edges, paras = _split(read_references(shared_path("data", "reportbench")))
    first, mid, last = _spot(papers, 16204)
    assert len(edges) == 16204 and not paras
    assert first == PaperRecord("reportbench", ("arxiv:1812.10528",),
                                "Adversarial attack and defense on graph data: A survey", "", 2018)
    assert mid == PaperRecord("reportbench", (), "Exploring Event-Driven Dynamic Context for "
                              "Accident Scene Segmentation", "", 2021)
    assert last.title == ("On the Importance of Difficulty Calibration in Membership Inference "
                          "Attacks")
    # every reference is also an edge from its survey (the file name) to it
    assert edges[0] == EdgeRecord("reportbench", Ref(("arxiv:2003.00653",)), first.ref())
    assert edges[-1].citing == Ref(("arxiv:2412.06157",)) and edges[-1].cited == last.ref()
    with_arxiv = sum(1 for p in papers if any(k.startswith("arxiv:") for k in p.ids))
    with_doi = sum(1 for p in papers if any(k.startswith("doi:") for k in p.ids))
    assert (with_arxiv, with_doi) == (2234, 2818)
    assert sum(1 for p in papers if p.abstract) == 724  # BibTeX abstracts (one blank)


def test_arxiv2023_spot():
    papers, edges, paras = _split(read_arxiv2023(shared_path("data", "arxiv2023_citation_graph")))
    first, mid, last = _spot(papers, 33868)
    assert first == PaperRecord("arxiv2023", ("arxiv:2304.07638",),
                                "Causal models in string diagrams", "", 2023, None, None, "cs.LO")
    assert mid.ids == ("arxiv:1704.02965",) and mid.year == 2017 and mid.category == "cs.CV"
    assert last == PaperRecord("arxiv2023", ("ogbn:128481",),
                               "hedging predictions in machine learning", category="cs.LG")
    kinds = [p.ids[0].split(":")[0] for p in papers]
    assert kinds.count("arxiv") == 24394 and kinds.count("ogbn") == 9474
    assert len({p.ids[0] for p in papers}) == 33868
    e0, emid, elast = _spot(edges, 305672)
    assert not paras
    assert (e0.citing.keys, e0.cited.keys) == (("arxiv:2304.07638",), ("arxiv:2010.07922",))
    assert (emid.citing.keys, emid.cited.keys) == (("arxiv:2010.06069",), ("arxiv:1610.02424",))
    assert (elast.citing.keys, elast.cited.keys) == (("ogbn:82875",), ("ogbn:28751",))
    pairs = [(e.citing.keys, e.cited.keys) for e in edges]
    assert sum(1 for a, b in pairs if a == b) == 17 and len(set(pairs)) == 305672


def test_unarxive_spot():
    papers, edges, paras = _split(read_unarxive(shared_path("data", "unarxive_sample")))
    first, mid, last = _spot(papers, 49)
    assert first.ids == ("arxiv:2212.11867",) and first.published == date(2022, 12, 22)
    assert first.title == ("Zeros of a growing number of derivatives of random polynomials with "
                           "independent roots")  # the metadata's line break collapsed
    assert first.category == "math.PR" and first.abstract.startswith("Let $X_1,X_2,")
    assert mid.ids == ("arxiv:2212.11899",) and last.ids == ("arxiv:2212.11827",)
    e0, _, elast = _spot(edges, 1786)  # one edge per bibliography entry
    assert e0.cited == Ref(("arxiv:2104.06921", "openalex:W4225968159"))
    assert elast.cited == Ref(("doi:10.1103/physrev.110.999", "openalex:W1996952165"))
    p0, pmid, plast = _spot(paras, 5928)  # 5,967 body_text items, 39 of them empty
    assert (p0.section, p0.position, p0.cited) == ("Introduction", 0, ())
    assert pmid.paper.keys == ("arxiv:2212.11774",) and pmid.section == "Evaluation"
    assert pmid.position == 93
    assert pmid.cited == (Ref(("doi:10.1145/2970276.2970308", "openalex:W2517752382")),)
    assert plast.position == 12
    assert sum(len(p.cited) for p in paras) <= 3042  # markers, deduplicated per paragraph
    assert sum(1 for p in paras if p.cited) == 1023


def test_s2ag_spot():
    papers, edges, paras = _split(read_s2ag(shared_path("data", "s2ag_samples")))
    first, mid, last = _spot(papers, 303)  # 100 papers, 100 abstracts, 100 paper-ids, 3 s2orc
    assert first.ids == ("s2corpus:108228682", "s2:d5ec1ea2c9261c54cf41fef1e5c9f2f8abe28ce2",
                         "mag:2921691074")
    assert first.year == 2018 and first.title.startswith("Optimization, characterization")
    assert mid.title == "" and mid.abstract  # an abstract: ids only, no title of its own
    assert last.ids == ("s2corpus:256868353", "doi:10.1145/3544548.3580847", "arxiv:2302.07302")
    assert last.title.startswith("CiteSee: Augmenting Citations in Scientific Papers")
    e0, emid, elast = _spot(edges, 213)  # 100 citations + 113 s2orc bib entries
    assert e0 == EdgeRecord("s2ag", Ref(("s2corpus:20187272",)), Ref(("s2corpus:85219962",)))
    assert emid.cited == Ref(("s2corpus:11144007",),
                             "Equivalence of axioms for bankruptcy problems")
    assert sum(1 for e in edges[:100] if not e.cited.keys) == 23  # citedcorpusid null
    p0, pmid, plast = _spot(paras, 252)
    assert p0.section == "citation context" and p0.text.startswith("Before these years")
    assert pmid.section == "The benchmark analysis" and pmid.position == 46
    assert plast.section == "CONCLUSION"


def test_openalex_spot():
    papers, edges, paras = _split(read_openalex(shared_path("data", "openalex_samples")))
    first, mid, last = _spot(papers, 53)  # W2741809807.json, then the 50- and 2-work pages
    assert first.ids == ("openalex:W2741809807", "doi:10.7717/peerj.4375", "mag:2741809807",
                         "pmid:29456894", "pmcid:PMC5815332")
    assert first.published == date(2018, 2, 13) and first.year == 2018
    assert first.abstract.startswith("Despite growing interest in Open Access (OA) to scholarly")
    assert len(first.abstract.split()) == 258  # 167 distinct tokens at positions 0..257
    assert mid.title == "Will Direct Payments Help Biodiversity?"
    assert last.ids == first.ids  # the same work again in the key-papers page
    assert sum(1 for p in papers if p.abstract) == 51
    assert len(edges) == 1177 and not paras  # 45 + 1,017 + 115 referenced works
    assert edges[0].cited == Ref(("openalex:W1560783210",))


def test_deep_review_spot():
    papers, edges, paras = _split(read_deep_review(shared_path("data",
                                                               "survey_source_deep_review")))
    first, mid, last = _spot(papers, 615)  # 614 titled CSL items + the review itself
    assert first.ids == ("arxiv:1106.5730",) and first.published == date(2011, 11, 14)
    assert first.title.startswith("HOGWILD!")
    assert mid.ids == ("doi:10.1093/bioinformatics/btt156", "pmid:23564842", "pmcid:PMC3661051")
    assert last == PaperRecord("deep-review", ("doi:10.1098/rsif.2017.0387",),
                               "Opportunities and obstacles for deep learning in biology and "
                               "medicine", "", 2018, date(2018, 4, 4), True)
    e0, _, elast = _spot(edges, 615)  # one per distinct cited work (short id)
    assert e0.citing == last.ref()
    assert e0.cited.keys == ("doi:10.1371/journal.pbio.1002195", "pmid:26151137",
                             "pmcid:PMC4494865")
    # a url: id, titled by its CSL item
    assert elast.cited == Ref((), "greenelab/deep-review", 2017)
    p0, pmid, plast = _spot(paras, 253)
    assert p0.section == "Abstract" and p0.cited == ()
    assert pmid.section == "Single-cell data" and len(pmid.cited) == 3
    assert plast.section == "Acknowledgements"
    assert sum(len(p.cited) for p in paras) == 796


def test_every_source_is_found_in_the_shared_layout():
    root = shared_path("data")
    assert {s.name: s.locate(root).name for s in SOURCES} == {
        "taxobench": "taxobench", "reportbench": "reportbench",
        "arxiv2023": "arxiv2023_citation_graph", "unarxive": "unarxive_sample",
        "s2ag": "s2ag_samples", "openalex": "openalex_samples",
        "deep-review": "survey_source_deep_review"}


# ---- small helpers --------------------------------------------------------------------------

def test_id_keys_and_canonical_keys():
    assert id_key("doi", "https://doi.org/10.1016/j   .ifacol.2019.11.457") == \
        "doi:10.1016/j.ifacol.2019.11.457"                   # line-wrapped BibTeX DOI
    assert id_key("doi", "10.48550/arXiv.2301.00001") == "arxiv:2301.00001"  # DataCite arXiv DOI
    assert id_key("arxiv", "2304.07638v2") == "arxiv:2304.07638"
    assert id_key("openalex", "https://openalex.org/W1") == "openalex:W1"
    assert id_key("s2corpus", 215416146) == "s2corpus:215416146"
    assert id_key("pmcid", "5815332") == id_key("pmcid", "PMC5815332") == "pmcid:PMC5815332"
    assert id_key("ogbn", "0042") == "ogbn:42"
    assert id_key("doi", "") is None and id_key("arxiv", "not an id") is None
    assert id_key("pmid", "abc") is None and id_key("doi", None) is None
    assert canonical_key("OGBN:17") == "ogbn:17" and canonical_key("mag:2741809807") == \
        "mag:2741809807"
    assert canonical_key("https://doi.org/10.48550/arXiv.2301.00001") == "arxiv:2301.00001"
    assert canonical_key("Attention is all you need") == "title:attention is all you need"


def test_dates():
    assert parse_date("Fri, 8 Dec 2023 06:31:19 GMT") == date(2023, 12, 8)
    assert parse_date("2018-02-13") == date(2018, 2, 13) and parse_date("2018") is None
    assert parse_date("2018-02-30") is None and parse_date(None) is None
    assert csl_date({"date-parts": [[2011, 11, 14]]}) == (2011, date(2011, 11, 14))
    assert csl_date({"date-parts": [[2011]]}) == (2011, None) and csl_date(None) == (None, None)
    assert arxiv_year_month("2304.07638") == (2023, 4)
    assert arxiv_year_month("cs/0112017") == (2001, 12)
    assert arxiv_year_month("9912.1234") == (1999, 12) and arxiv_year_month("2313.00001") is None
    assert parse_year("2019b") == 2019


def test_reference_ids_take_one_arxiv_id_from_the_most_reliable_field():
    # a real GT entry: eprint 2004.02060, but `journal` copy-pasted from the entry before it
    meta = {"eprint": "2004.02060", "archiveprefix": "arXiv", "journal": "arXiv:2004.05645"}
    assert reference_ids(meta) == ("arxiv:2004.02060",)
    assert reference_ids({"journal": "arXiv preprint arXiv:1812.10528"}) == ("arxiv:1812.10528",)
    assert reference_ids({"journal": "CoRR", "volume": "abs/1807.01349"}) == ("arxiv:1807.01349",)
    assert reference_ids({"url": "http://dx.doi.org/10.1038/X", "pages": "2847.2856"}) == \
        ("doi:10.1038/x",)
    assert reference_ids({"eprint": "2019/123", "archiveprefix": "Cryptology ePrint"}) == ()
    assert reference_ids({"journal": "Proc. KDD 2019", "pages": "1812.1052"}) == ()


def test_openalex_abstract_rebuild():
    index = {"Despite": [0], "growing": [1], "interest": [2, 4], "in": [3]}
    assert abstract_from_inverted_index(index, file=Path("x"), line=1, field="a") == \
        "Despite growing interest in interest"
    with pytest.raises(DataError, match="positions"):
        abstract_from_inverted_index({"a": [0, "1"]}, file=Path("x"), line=1, field="a")


# ---- malformed input ------------------------------------------------------------------------

def _gz_csv(path: Path, text: str) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(text)


def _graph(folder: Path, ids="ids\n2304.07638\n17\n", titles="titles\nA\nb\n",
           edges="source,target\n0,1\n") -> Path:
    folder.mkdir(exist_ok=True)
    _gz_csv(folder / "ids.csv.gz", ids)
    _gz_csv(folder / "titles.csv.gz", titles)
    _gz_csv(folder / "edges.csv.gz", edges)
    return folder


def test_arxiv2023_tiny_and_malformed(tmp_path):
    papers, edges, _ = _split(read_arxiv2023(_graph(tmp_path / "ok")))
    assert [p.ids for p in papers] == [("arxiv:2304.07638",), ("ogbn:17",)]
    assert papers[1].year is None and papers[0].category is None  # no labels file
    assert edges == [EdgeRecord("arxiv2023", papers[0].ref(), papers[1].ref())]
    with pytest.raises(DataError) as err:
        list(read_arxiv2023(_graph(tmp_path / "e", edges="source,target\n0,2\n")))
    assert (err.value.line, err.value.field) == (2, "target")
    assert err.value.file.endswith("edges.csv.gz")
    with pytest.raises(DataError) as err:
        list(read_arxiv2023(_graph(tmp_path / "i", ids="ids\n2304.07638\nx y\n")))
    assert (err.value.line, err.value.field) == (3, "ids")
    with pytest.raises(DataError, match="3 rows but ids.csv.gz has 2"):
        list(read_arxiv2023(_graph(tmp_path / "t", titles="titles\nA\nb\nc\n")))
    with pytest.raises(DataError) as err:
        list(read_arxiv2023(_graph(tmp_path / "h", titles="name\nA\nb\n")))
    assert err.value.field == "titles" and err.value.line == 1


def _jsonl(path: Path, rows: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_reportbench_malformed(tmp_path):
    tasks = _jsonl(tmp_path / "t.jsonl", [{"arxiv_id": "2001.00001", "title": "A survey"},
                                          {"arxiv_id": "nope", "title": "x"}])
    with pytest.raises(DataError) as err:
        list(read_surveys(tasks))
    assert (err.value.line, err.value.field) == (2, "arxiv_id")
    _jsonl(tmp_path / "gt" / "2001.00001.jsonl", [{"title": "ok"}, {"title": 3}])
    with pytest.raises(DataError) as err:
        list(read_references(tmp_path / "gt"))
    assert (err.value.line, err.value.field) == (2, "title")
    _jsonl(tmp_path / "bad" / "survey.jsonl", [{"title": "ok"}])
    with pytest.raises(DataError, match="named <arxiv_id>"):
        list(read_references(tmp_path / "bad"))
    _jsonl(tmp_path / "gt2" / "2001.00001.jsonl", [{"title": "ok", "meta_info": [1]}])
    with pytest.raises(DataError) as err:
        list(read_references(tmp_path / "gt2"))
    assert err.value.field == "meta_info"


def test_unarxive_malformed(tmp_path):
    paper = {"paper_id": "2212.00001", "metadata": {"title": "T", "versions": []},
             "body_text": [{"section": "S", "text": "see {{cite:k}}",
                            "cite_spans": [{"ref_id": "missing"}]}],
             "bib_entries": {"k": {"bib_entry_raw": "x", "ids": {"doi": "10.1000/a"}}}}
    _jsonl(tmp_path / "u" / "arXiv_src_1.jsonl", [paper])
    with pytest.raises(DataError) as err:
        list(read_unarxive(tmp_path / "u"))
    assert err.value.line == 1 and err.value.field == "body_text[0].cite_spans[0].ref_id"
    paper["body_text"][0]["cite_spans"][0]["ref_id"] = "k"
    _jsonl(tmp_path / "u" / "arXiv_src_1.jsonl", [paper, {"paper_id": "2212.00002"}])
    with pytest.raises(DataError) as err:
        list(read_unarxive(tmp_path / "u"))
    assert (err.value.line, err.value.field) == (2, "metadata")
    _jsonl(tmp_path / "u" / "arXiv_src_1.jsonl", [paper])
    papers, edges, paras = _split(read_unarxive(tmp_path / "u"))
    assert paras[0].cited == (Ref(("doi:10.1000/a",)),) and edges[0].cited == paras[0].cited[0]


def test_s2ag_and_openalex_malformed(tmp_path):
    _jsonl(tmp_path / "s2" / "citations" / "c.jsonl",
           [{"citingcorpusid": "1", "citedcorpusid": None},
            {"citingcorpusid": "x", "citedcorpusid": "2"}])
    with pytest.raises(DataError) as err:
        list(read_s2ag(tmp_path / "s2"))
    assert (err.value.line, err.value.field) == (2, "citingcorpusid")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="no S2AG"):
        list(read_s2ag(tmp_path / "empty"))
    (tmp_path / "oa").mkdir()
    (tmp_path / "oa" / "page.json").write_text(json.dumps(
        {"results": [{"id": "W1", "title": "T", "referenced_works": ["W2", "Q3"]}]}))
    with pytest.raises(DataError) as err:
        list(read_openalex(tmp_path / "oa"))
    assert err.value.field == "results[0].referenced_works[1]" and err.value.line is None
    (tmp_path / "oa" / "page.json").write_text("{not json")
    with pytest.raises(DataError, match="not valid JSON"):
        list(read_openalex(tmp_path / "oa"))


def test_deep_review_malformed(tmp_path):
    out = tmp_path / "dr" / "output"
    out.mkdir(parents=True)
    (out / "references.json").write_text(json.dumps([{"id": "a", "title": "T"}, {"title": "U"}]))
    with pytest.raises(DataError) as err:
        list(read_deep_review(tmp_path / "dr"))
    assert err.value.field == "[1].id" and err.value.file.endswith("references.json")
    (out / "references.json").write_text(json.dumps([{"id": "a", "title": "T"}]))
    (out / "citations.tsv").write_text("input_id\tstandard_id\nx\ty\n")
    (tmp_path / "dr" / "content").mkdir()
    (tmp_path / "dr" / "content" / "metadata.yaml").write_text('title: "A review"\n')
    with pytest.raises(DataError) as err:
        list(read_deep_review(tmp_path / "dr"))
    assert err.value.line == 1 and err.value.file.endswith("citations.tsv")
