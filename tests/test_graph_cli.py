"""`graph metrics` and `graph path` through add_graph_parser, and bad input files."""
from __future__ import annotations

import argparse
import csv
import gzip
import json
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from scholarbench.errors import DataError, ScholarbenchError
from scholarbench.graph import paper_metrics, read_graph
from scholarbench.graph.commands import add_graph_parser

PAPERS = [("R1", "2000", "X"), ("R2", "2000", "Y"), ("F", "2005", "X"), ("A", "2006", "Y"),
          ("B", "2007", "X"), ("C", "2008", "Y"), ("G", "2012", ""), ("U", "", "X")]
EDGES = [("F", "R1"), ("F", "R2"), ("A", "F"), ("B", "F"), ("B", "R1"), ("C", "R2"),
         ("G", "F"), ("U", "F"), ("A", "R1"), ("C", "R1"), ("G", "R2"), ("B", "R2")]


def run(argv):
    parser = argparse.ArgumentParser(prog="scholarbench")
    add_graph_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


def write_csv(path, header, rows, gz=False):
    opener = gzip.open if gz else open
    with opener(path, "wt", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


@pytest.fixture
def files(tmp_path):
    return (write_csv(tmp_path / "edges.csv", ["citing", "cited"], EDGES),
            write_csv(tmp_path / "papers.csv", ["id", "year", "venue"], PAPERS))


def test_metrics_writes_the_table(files, tmp_path, capsys):
    edges, papers = files
    out = tmp_path / "out" / "m.csv"
    assert run(["graph", "metrics", "--edges", str(edges), "--papers", str(papers),
                "--out", str(out), "--randomisations", "3", "--seed", "4"]) == 0
    assert "wrote 8 papers" in capsys.readouterr().out
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == ["id", "cd_index", "disruption_scinet", "novelty", "citations",
                             "references"]
    by_id = {r["id"]: r for r in rows}
    assert [r["id"] for r in rows] == sorted(by_id)
    # F (2005) cites R1, R2. After it, A, B and G cite F and a reference (n_j = 3), C cites
    # only references (n_k = 1), U has no year; n_i = 0
    f = by_id["F"]
    assert (f["citations"], f["references"]) == ("4", "2")
    assert float(f["cd_index"]) == pytest.approx((0 - 3) / (0 + 3 + 1))
    assert float(f["disruption_scinet"]) == pytest.approx(-1.0)
    assert by_id["R1"]["cd_index"] == ""                                  # no references
    expected = paper_metrics(read_graph(edges, papers), randomisations=3, seed=4)
    for pid, nov in zip(expected.ids, expected.measures["novelty"]):
        cell = by_id[str(pid)]["novelty"]
        assert (cell == "") if math.isnan(nov) else float(cell) == nov


def test_metrics_window_and_parquet(tmp_path):
    pq.write_table(pa.table({"citing": [e[0] for e in EDGES], "cited": [e[1] for e in EDGES]}),
                   tmp_path / "e.parquet")
    pq.write_table(pa.table({"id": [p[0] for p in PAPERS],
                             "year": [int(p[1]) if p[1] else None for p in PAPERS]}),
                   tmp_path / "p.parquet")
    gz = write_csv(tmp_path / "e.csv.gz", ["citing", "cited"], EDGES, gz=True)
    for edges in (tmp_path / "e.parquet", gz):
        out = tmp_path / f"m-{edges.suffix}.csv"
        run(["graph", "metrics", "--edges", str(edges), "--papers", str(tmp_path / "p.parquet"),
             "--out", str(out), "--window", "2", "--randomisations", "2"])
        f = {r["id"]: r for r in csv.DictReader(out.open())}["F"]
        assert float(f["cd_index"]) == pytest.approx(-1.0)                # A, B only
        assert f["novelty"] == ""                                         # no venues given


def test_path_prints_json(files, capsys):
    edges, papers = files
    assert run(["graph", "path", "--edges", str(edges), "--papers", str(papers),
                "--from", "R1", "--to", "G"]) == 0
    # G cites F and R2; of R1's citers (F, A, B, C) only F is cited by G: R1 4 + F 4 + G 0
    assert json.loads(capsys.readouterr().out) == {"path": ["R1", "F", "G"], "score": 8}


def test_path_errors(files):
    edges, papers = files
    base = ["graph", "path", "--edges", str(edges), "--papers", str(papers)]
    with pytest.raises(ScholarbenchError, match="'nope' is not a paper"):
        run(base + ["--from", "nope", "--to", "G"])
    with pytest.raises(ScholarbenchError, match="swap --from and --to"):
        run(base + ["--from", "G", "--to", "R1"])
    with pytest.raises(ScholarbenchError, match="no citation path"):
        run(base + ["--from", "R1", "--to", "R2"])
    with pytest.raises(ScholarbenchError, match="at most 2 papers \\(the shortest has 3\\)"):
        run(base + ["--from", "R1", "--to", "G", "--max-papers", "2"])


def test_engine_choice_is_checked(files, tmp_path):
    from scholarbench.graph import commands, engine
    assert commands.ENGINES == engine.ENGINES
    edges, papers = files
    with pytest.raises(SystemExit):
        run(["graph", "metrics", "--edges", str(edges), "--papers", str(papers),
             "--out", str(tmp_path / "m.csv"), "--engine", "postgres"])


@pytest.mark.parametrize("header,rows,line,field,message", [
    (["citing", "target"], [("A", "B")], 1, "cited", "no column 'cited'"),
    (["citing", "cited"], [("A", "B"), ("A", "")], 3, "cited", "non-empty id"),
    (["citing", "cited"], [("A", "B"), ("A",)], 3, None, "expected 2 fields"),
])
def test_bad_edge_file(tmp_path, files, header, rows, line, field, message):
    _, papers = files
    bad = write_csv(tmp_path / "bad.csv", header, rows)
    with pytest.raises(DataError, match=message) as info:
        read_graph(bad, papers)
    assert (info.value.file, info.value.line, info.value.field) == (str(bad), line, field)


@pytest.mark.parametrize("rows,line,field,message", [
    ([("A", "2001"), ("B", "20x1")], 3, "year", "integer year"),
    ([("A", "2001"), ("A", "2002")], 3, "id", "duplicate id 'A' \\(first on line 2\\)"),
    ([("", "2001")], 2, "id", "non-empty id"),
])
def test_bad_paper_file(tmp_path, files, rows, line, field, message):
    edges, _ = files
    bad = write_csv(tmp_path / "bad.csv", ["id", "year"], rows)
    with pytest.raises(DataError, match=message) as info:
        read_graph(edges, bad)
    assert (info.value.file, info.value.line, info.value.field) == (str(bad), line, field)


def test_bad_parquet_and_missing_files(tmp_path, files):
    edges, papers = files
    pq.write_table(pa.table({"id": ["A", "B"], "year": ["2001", "soon"]}), tmp_path / "p.parquet")
    with pytest.raises(DataError, match="record 2: need an integer year") as info:
        read_graph(edges, tmp_path / "p.parquet")
    assert info.value.field == "year"
    pq.write_table(pa.table({"citing": ["A"]}), tmp_path / "e.parquet")
    with pytest.raises(DataError, match="no column 'cited'"):
        read_graph(tmp_path / "e.parquet", papers)
    (tmp_path / "junk.parquet").write_text("not parquet")
    with pytest.raises(DataError, match="not a readable Parquet file"):
        read_graph(tmp_path / "junk.parquet", papers)
    with pytest.raises(DataError, match="no such file"):
        read_graph(tmp_path / "missing.csv", papers)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(DataError, match="no header"):
        read_graph(empty, papers)


def test_ids_only_in_edges_become_stubs(tmp_path, files, capsys):
    _, papers = files
    edges = write_csv(tmp_path / "e.csv", ["citing", "cited"], EDGES + [("F", "outside"),
                                                                        ("F", "F")])
    g = read_graph(edges, papers)
    assert (g.stats.stub_papers, g.stats.self_citations) == (1, 1)
    out = tmp_path / "m.csv"
    run(["graph", "metrics", "--edges", str(edges), "--papers", str(papers), "--out", str(out),
         "--randomisations", "2"])
    assert "1 self-citations dropped" in capsys.readouterr().err
    rows = {r["id"]: r for r in csv.DictReader(out.open())}
    assert "outside" not in rows and rows["F"]["references"] == "3"


def test_measures_choose_the_columns(files, tmp_path, capsys):
    edges, papers = files
    out = tmp_path / "m.csv"
    assert run(["graph", "metrics", "--edges", str(edges), "--papers", str(papers), "--out",
                str(out), "--measures", "disruption_scinet_upstream,disruption_scinet,"
                "cd_index_approx", "--sketch-precision", "10"]) == 0
    assert "sketch precision 10" in capsys.readouterr().out
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == ["id", "disruption_scinet", "disruption_scinet_upstream",
                             "cd_index_approx", "citations", "references"]
    f = {r["id"]: r for r in rows}["F"]
    # F (2005): citers A, B, G (after F, each citing a reference) and U (undated, cites only
    # F): SciNet's year rule keeps A, B, G (-1); upstream keeps U too: (1 - 3) / 4
    assert float(f["disruption_scinet"]) == -1.0
    assert float(f["disruption_scinet_upstream"]) == -0.5
    # four coupled citers are exactly countable by a sketch: (0 - 3) / (0 + 3 + 1)
    assert float(f["cd_index_approx"]) == pytest.approx(-0.75, abs=0.02)


def test_measures_are_checked(files, tmp_path):
    edges, papers = files
    base = ["graph", "metrics", "--edges", str(edges), "--papers", str(papers), "--out",
            str(tmp_path / "m.csv")]
    with pytest.raises(ScholarbenchError, match="unknown measure 'cd'; choose from cd_index"):
        run(base + ["--measures", "cd"])
    with pytest.raises(ScholarbenchError, match="no measure"):
        run(base + ["--measures", ","])
    with pytest.raises(ScholarbenchError, match="no window"):
        run(base + ["--measures", "disruption_scinet_upstream", "--window", "3"])
    with pytest.raises(ScholarbenchError, match="precision"):
        run(base + ["--measures", "cd_index_approx", "--sketch-precision", "30"])


def test_cli_lists_agree_with_the_modules():
    from scholarbench.graph import commands, engine, table
    assert commands.ENGINES == engine.ENGINES
    assert commands.MEASURES == table.MEASURES
    assert commands.DEFAULT_MEASURES == table.DEFAULT_MEASURES
