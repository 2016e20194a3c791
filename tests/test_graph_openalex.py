"""OpenAlex Works (API pages, single Works, gzipped snapshot JSON lines) -> Parquet -> graph."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import shared_path
from scholarbench.errors import DataError
from scholarbench.graph import disruption, ingest_openalex, openalex_graph, parse_work


def samples():
    return shared_path("data", "openalex_samples")


def test_samples_folder(tmp_path):
    stats = ingest_openalex([samples()], tmp_path)
    # 50 + 2 + 1 Works (W2741809807 twice), 1,017 + 115 + 45 references
    assert (stats.files, stats.works, stats.references) == (3, 53, 1177)
    works = pq.read_table(tmp_path / "works").to_pylist()
    peerj = [w for w in works if w["work"] == "W2741809807"]
    assert len(peerj) == 2
    assert {(w["year"], w["venue"], w["venue_name"], w["paper_id"]) for w in peerj} == {
        (2018, "S1983995261", "PeerJ", "openalex:W2741809807")}
    concepts = pq.read_table(tmp_path / "concepts").to_pylist()
    mine = [c for c in concepts if c["work"] == "W2741809807" and c["part"] == peerj[0]["part"]]
    assert len(mine) == 19 and mine[0]["concept"].startswith("C") and 0 <= mine[0]["level"] <= 5
    g = openalex_graph(tmp_path)
    assert g.listed.sum() == 52                        # the duplicate Work kept once
    assert g.n_edges == 1177 - 45                      # and its references once
    i = g.pid("W2741809807")
    assert (g.year[i], g.venues[g.venue[i]]) == (2018, "S1983995261")
    assert g.reference_counts()[i] == 45
    assert g.stats.stub_papers == g.n_papers - 52      # referenced Works outside the samples
    d = disruption(g)                                  # runs; references outside have no year
    assert d.references[i] == 45


def test_snapshot_json_lines_gz_equals_the_api_page(tmp_path):
    page = json.loads((samples() / "api_page_50works.json").read_text())
    snap = tmp_path / "snap" / "updated_date=2025-10-08"
    snap.mkdir(parents=True)
    with gzip.open(snap / "part_000.gz", "wt", encoding="utf-8") as fh:
        for work in page["results"]:
            fh.write(json.dumps(work) + "\n")
    (tmp_path / "page").mkdir()
    (tmp_path / "page" / "p.json").write_text(json.dumps(page))
    a = ingest_openalex([tmp_path / "snap"], tmp_path / "a")
    b = ingest_openalex([tmp_path / "page"], tmp_path / "b")
    assert (a.works, a.references) == (50, 1017)
    assert (a.works, a.references, a.concepts) == (b.works, b.references, b.concepts)
    ga, gb = openalex_graph(tmp_path / "a"), openalex_graph(tmp_path / "b")
    assert list(ga.ids) == list(gb.ids)
    assert (ga.citing == gb.citing).all() and (ga.cited == gb.cited).all()
    lines = pq.read_table(tmp_path / "a" / "works").column("record").to_pylist()
    assert lines == list(range(1, 51))                 # JSON-lines records are line numbers


def test_latest_copy_wins(tmp_path):
    old = {"id": "W1", "publication_year": 2000, "referenced_works": ["W2"],
           "updated_date": "2024-01-01"}
    new = {"id": "https://openalex.org/W1", "publication_year": 2001,
           "referenced_works": ["W3", "W4"], "updated_date": "2025-01-01"}
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "b.jsonl").write_text(json.dumps(old) + "\n")
    (tmp_path / "in" / "a.jsonl").write_text(json.dumps(new) + "\n")
    ingest_openalex([tmp_path / "in"], tmp_path / "out")
    g = openalex_graph(tmp_path / "out")
    i = g.pid("W1")
    assert g.year[i] == 2001 and sorted(g.ids[g.cited[g.citing == i]]) == ["W3", "W4"]


@pytest.mark.parametrize("work,field,message", [
    ({"id": "S12"}, "id", "not an OpenAlex Work id"),
    ({"id": "W1", "referenced_works": ["W2", "nonsense"]}, "referenced_works[1]", "Work id"),
    ({"id": "W1", "referenced_works": "W2"}, "referenced_works", "need a list"),
    ({"id": "W1", "publication_year": "recent"}, "publication_year", "need a year"),
    ({"id": "W1", "concepts": [{"id": "X"}]}, "concepts[0]", "C-id"),
    ({"id": "W1", "title": 5}, "title", "need a string"),
])
def test_bad_work_names_file_line_field(tmp_path, work, field, message):
    path = tmp_path / "part_001.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "W9"}) + "\n")
        fh.write(json.dumps(work) + "\n")
    with pytest.raises(DataError, match=message) as info:
        ingest_openalex([path], tmp_path / "out")
    assert (info.value.file, info.value.line, info.value.field) == (str(path), 2, field)


def test_bad_pages(tmp_path):
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"meta": {}, "results": {"id": "W1"}}))
    with pytest.raises(DataError, match="list of Works") as info:
        ingest_openalex([page], tmp_path / "out")
    assert info.value.field == "results"
    assert not list((tmp_path / "out").rglob("*.parquet*"))      # no partial part left
    page.write_text(json.dumps({"results": [{"id": "W1"}, {"id": "W2", "referenced_works": [3]}]}))
    with pytest.raises(DataError) as info:
        ingest_openalex([page], tmp_path / "out")
    assert info.value.field == "results[1].referenced_works[0]"
    page.write_text("{not json")
    with pytest.raises(DataError, match="not valid JSON"):
        ingest_openalex([page], tmp_path / "out")
    with pytest.raises(DataError, match="no such file"):
        ingest_openalex([tmp_path / "missing"], tmp_path / "out")
    with pytest.raises(DataError, match="run the ingestion first"):
        openalex_graph(tmp_path / "nothing")


def test_output_folder_must_be_empty(tmp_path):
    ingest_openalex([samples() / "W2741809807.json"], tmp_path / "out")
    with pytest.raises(DataError, match="ingest into an empty folder"):
        ingest_openalex([samples() / "W2741809807.json"], tmp_path / "out")


def test_host_venue_of_older_records():
    w = parse_work({"id": "W5", "host_venue": {"id": "https://openalex.org/S77",
                                               "display_name": "Old Journal"}},
                   file=Path("w.json"), line=None)
    assert (w.venue, w.venue_name, w.references, w.year) == ("S77", "Old Journal", (), None)
