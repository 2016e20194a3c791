import pytest

from scholarbench.data.identifiers import arxiv_id_in_citation, parse_id


@pytest.mark.parametrize("raw, key", [
    ("https://doi.org/10.1145/3292500.3330851", "doi:10.1145/3292500.3330851"),
    ("doi:10.1109/TITS.2025.3554781.", "doi:10.1109/tits.2025.3554781"),
    ("10.1109/TITS.2025.3554781", "doi:10.1109/tits.2025.3554781"),
    ("arXiv:1812.10528v3", "arxiv:1812.10528"),
    ("https://arxiv.org/abs/2304.07638", "arxiv:2304.07638"),
    ("https://arxiv.org/pdf/2304.07638v2.pdf", "arxiv:2304.07638"),
    ("2304.07638", "arxiv:2304.07638"),
    ("0704.0001v1", "arxiv:0704.0001"),
    ("arXiv:cs/0112017v1", "arxiv:cs/0112017"),
    ("hep-th/9901001", "arxiv:hep-th/9901001"),
    ("W2741809807", "openalex:W2741809807"),
    ("https://openalex.org/W2741809807", "openalex:W2741809807"),
    ("https://api.openalex.org/works/w2741809807", "openalex:W2741809807"),
    ("649def34f8be52c8b66281af98ae884c09aef38b", "s2:649def34f8be52c8b66281af98ae884c09aef38b"),
    ("CorpusId:215416146", "s2corpus:215416146"),
    ("Attention Is All You Need.", "title:attention is all you need"),
    ("title:“Graph‐based” RAG", "title:graph based rag"),
])
def test_canonical_keys(raw, key):
    assert str(parse_id(raw)) == key


def test_same_paper_different_spellings_share_a_key():
    spellings = ["arXiv:1812.10528v2", "https://arxiv.org/abs/1812.10528", "1812.10528v1"]
    assert len({str(parse_id(s)) for s in spellings}) == 1
    assert parse_id("W123") == parse_id("https://openalex.org/W123")


def test_arxiv_ids_in_bibliography_text_only_when_arxiv_is_named():
    assert arxiv_id_in_citation("arXiv preprint arXiv:1812.10528") == "1812.10528"
    assert arxiv_id_in_citation("CoRR abs/1908.01297, arXiv") == "1908.01297"
    assert arxiv_id_in_citation("Proc. KDD 2019, pages 2847.2856") is None


@pytest.mark.parametrize("raw, key", [
    ("ogbn:00123", "ogbn:123"), ("PMID: 31", "pmid:31"), ("pmcid:PMC7", "pmcid:PMC7"),
    ("pmcid:7", "pmcid:PMC7"), ("mag:2963403868", "mag:2963403868"),
    ("https://doi.org/10.48550/arXiv.1706.03762", "arxiv:1706.03762"),
])
def test_local_kinds_and_arxiv_dois(raw, key):
    assert str(parse_id(raw)) == key
