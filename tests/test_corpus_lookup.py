"""Lookups by row position (`Corpus.get_rows`, `get_by_ids`, search hits) give exactly what the
previous SQL lookup gave (`SELECT * FROM papers WHERE paper_id = ANY(?)` over the papers table
in paper_id order): same ids, order, fields, values and value types, with and without the
search filters, on a written corpus, a first-format one and one whose papers.parquet is not in
paper_id order. Opening a corpus does not import bm25s (the first search does)."""
from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from scholarbench.corpus.build import build, build_corpus
from scholarbench.corpus.store import Corpus
from scholarbench.records import Paper
from test_corpus_store import PAPERS, _refs

QUERIES = ["graph graphs", "graph neural networks", "molecule molecules transformer",
           "point transformer", "learning", "survey review", "nothing-matches-this"]
FILTERS = [{}, {"exclude_surveys": True}, {"before": "2021-02-01"},
           {"before": "2016-01-01", "exclude_surveys": True, "exclude_ids": ["arxiv:2101.00003"]}]


def old_rows(directory: Path, ids: list[str]) -> list[dict]:
    """The previous lookup, verbatim: the papers table in paper_id order, then a scan."""
    con = duckdb.connect()
    con.execute("CREATE TABLE papers AS SELECT * FROM read_parquet(?) ORDER BY paper_id",
                [str(directory / "papers.parquet")])
    cur = con.execute("SELECT * FROM papers WHERE paper_id = ANY(?::VARCHAR[])", [ids])
    names = [d[0] for d in cur.description]
    found = {row[0]: dict(zip(names, row)) for row in cur.fetchall()}
    return [found[i] for i in ids]


def old_search(corpus: Corpus, query: str, k: int, fields: str, **filters) -> list:
    rows, scores = corpus._index(fields).top(query, k, corpus._keep(**filters))
    found = old_rows(corpus.directory, [corpus._ids[int(r)] for r in rows])
    return [(Paper(title=r["title"], abstract=r["abstract"] or "", paper_id=r["paper_id"],
                   year=r["year"], source=r["source"]), float(s))
            for r, s in zip(found, scores)]


def typed(rows: list[dict]) -> list[list[tuple]]:
    return [[(k, type(v), v) for k, v in row.items()] for row in rows]


def check_same(corpus: Corpus) -> None:
    ids = list(corpus._ids)
    random.Random(0).shuffle(ids)
    for wanted in (ids, ids[:3] + ids[:2], ids[-1:]):
        assert typed(corpus.get_rows(wanted)) == typed(old_rows(corpus.directory, wanted))
        assert corpus.get_by_ids(wanted) == [
            Paper(title=r["title"], abstract=r["abstract"] or "", paper_id=r["paper_id"],
                  year=r["year"], source=r["source"])
            for r in old_rows(corpus.directory, wanted)]
    assert corpus.get_rows([]) == [] and corpus.get_by_ids([]) == []
    n = 0
    for query in QUERIES:
        for filters in FILTERS:
            for fields in ("title", "title+abstract"):
                for k in (1, 3, 20):
                    new = corpus.search_bm25(query, k, fields=fields, **filters)
                    assert new == old_search(corpus, query, k, fields, **filters)
                    assert all(type(s) is float for _, s in new)
                    n += len(new)
    assert n > 100          # the queries do find papers


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("lookup")
    build(out, [("t", PAPERS + _refs())], {})
    return out


def test_lookups_and_search_hits_match_the_previous_sql_lookup(built):
    check_same(Corpus.open(built))


def test_a_papers_file_out_of_paper_id_order_is_read_in_paper_id_order(built, tmp_path):
    table = pq.read_table(built / "papers.parquet")
    shuffled = list(range(table.num_rows))
    random.Random(1).shuffle(shuffled)
    pq.write_table(table.take(shuffled), tmp_path / "papers.parquet")
    corpus = Corpus.open(tmp_path)
    assert corpus._ids == sorted(corpus._ids) == table.column("paper_id").to_pylist()
    check_same(corpus)


def test_first_format_corpus_rows_match(tmp_path):
    inst = tmp_path / "i.jsonl"
    inst.write_text('{"id": 1, "survey": "s", "pdfs": [{"title": "Alpha beta", "abs": "x y"}, '
                    '{"title": "Beta gamma: a survey", "abs": ""}], "gt": {"name": "r", '
                    '"papers": ["Alpha beta"]}}\n')
    out = tmp_path / "c"
    build_corpus(out, [inst])
    table = pq.read_table(out / "papers.parquet").select(
        ["paper_id", "title", "abstract", "norm_title", "source", "sources", "year"])
    pq.write_table(table, out / "papers.parquet")
    corpus = Corpus.open(out)
    assert typed(corpus.get_rows(corpus._ids)) == typed(old_rows(out, corpus._ids))
    assert [p for p, _ in corpus.search_bm25("beta", 5)] == [
        p for p, _ in old_search(corpus, "beta", 5, "title+abstract")]


def test_missing_ids_are_named_as_before(built):
    corpus = Corpus.open(built)
    with pytest.raises(KeyError, match=r"2 id\(s\) not in the corpus, e.g. \['nope', 'nah'\]"):
        corpus.get_rows([corpus._ids[0], "nope", "nah", "nope"])
    with pytest.raises(KeyError, match="1 id"):
        corpus.get_by_ids(["nope"])


def test_opening_a_corpus_does_not_import_bm25s(built):
    code = ("import sys; from scholarbench.corpus.store import Corpus; "
            f"c = Corpus.open({str(built)!r}); c.get_rows(c._ids[:2]); "
            "print('bm25s' in sys.modules); c.search_bm25('graph', 2); "
            "print('bm25s' in sys.modules)")
    src = str(Path(__file__).resolve().parents[1] / "src")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": src, "PATH": ""}, check=True).stdout.split()
    assert out == ["False", "True"]
