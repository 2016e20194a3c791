"""The upstream SciNet query files: loader, id normalisation, malformed files."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import shared_path
from scholarbench.errors import DataError
from scholarbench.benchmarks.scinet.queries import (load_queries, load_query_file, normalise_openalex,
                                         ego_query, pair_query, path_query)

DATA = Path(__file__).parent / "data" / "scinet"


def test_normalise_openalex_both_forms():
    assert normalise_openalex("W123") == normalise_openalex("https://openalex.org/W123") \
        == normalise_openalex("openalex:W123") == "openalex:W123"
    assert normalise_openalex("X123") is None and normalise_openalex(None) is None


def test_ok_file_short_and_url_ids():
    tasks = load_query_file(DATA / "queries_OK_cooccur.json")
    assert [t.source for t in tasks] == ["openalex:W5", "openalex:W6"]
    assert tasks[0].info["title"] == "A" and tasks[0].gold is None


@pytest.mark.parametrize("name,line,field", [
    ("queries_task1_novel_TEST.json", 2, "Bad"),          # value not a string
    ("queries_TEST_pncites.json", 2, "X123"),             # key not a W-id
    ("queries_task3_path_TEST.json", 2, None),            # truncated JSON
])
def test_malformed_files_name_file_line_field(name, line, field):
    with pytest.raises(DataError) as err:
        load_query_file(DATA / name)
    assert err.value.file.endswith(name) and err.value.line == line
    assert err.value.field == field


def test_bad_file_name(tmp_path):
    p = tmp_path / "whatever.json"
    p.write_text("{}")
    with pytest.raises(DataError, match="not a SciNet query file"):
        load_query_file(p)


def test_wording_round_trips():
    from scholarbench.benchmarks.scinet.queries import _EGO_RE, _PAIR_RE, _PATH_RE
    assert _EGO_RE.match(ego_query("novel", "X (cs.LG)"))
    assert _PAIR_RE["pncites"].match(pair_query("pncites", "T"))
    assert _PAIR_RE["cooccur"].match(pair_query("cooccur", "T"))
    assert _PATH_RE.match(path_query("a", "b", "c"))


def test_upstream_files_spot_checks():
    folder = shared_path("data", "scinet", "Queries")
    tasks = load_queries(folder)
    ego = [t for t in tasks if t.family == "ego"]
    assert sum(t.kind == "novel" for t in ego) == 1320 == sum(t.kind == "disruptive" for t in ego)
    path = [t for t in tasks if t.family == "path"]
    assert len(path) == 2185
    assert path[0].classic and path[0].recent
    pair = [t for t in tasks if t.family == "pair"]
    assert len(pair) == 14 * 300 and all(t.source.startswith("openalex:W") for t in pair)
    first = load_query_file(folder / "Task2" / "queries_AI_pncites.json")[0]
    assert first.source == "openalex:W4391109131"
