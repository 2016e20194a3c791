"""Without the shared data: a hand-made unarXive paper as a build SOURCE (`unarxive:PATH#ID`, or
an arXiv id with `--unarxive DIR`) read into the section tree and citations every builder uses;
`data import researcharena` / `data import scinet` accepting a build's output (and refusing a
malformed file with one line naming file, line and field), and `run scinet --tasks NAME`
reading the imported file by name."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from scinet_files import write_tiny_graph
from scholarbench.builder import read_source
from scholarbench.builder.unarxive import title_of
from scholarbench.cli import main
from scholarbench.data.store import import_dataset
from scholarbench.errors import DataError


def _para(section, number, kind, text, cites=()):
    return {"section": section, "sec_number": number, "sec_type": kind,
            "content_type": "paragraph", "text": text,
            "cite_spans": [{"ref_id": c, "text": f"{{{{cite:{c}}}}}"} for c in cites],
            "ref_spans": []}


def _entry(raw, **ids):
    return {"bib_entry_raw": raw, "contained_arXiv_ids": [], "contained_links": [],
            "discipline": "Computer Science",
            "ids": {"open_alex_id": "", "doi": "", "arxiv_id": "", **ids}}


# a survey of the tiny SciNet graph's papers (tests/test_scinet_core.py): A, C, E, F are
# 1001/1201/1401/1501.00001; `u` names nothing anywhere
SURVEY = {
    "paper_id": "2201.00001", "discipline": "Computer Science",
    "metadata": {"title": "A tiny\n  lineage survey", "abstract": "We review a lineage.",
                 "categories": "cs.LG", "versions": [{"created": "Mon, 3 Jan 2022"}]},
    "abstract": {"text": "We review a lineage."},
    "body_text": [
        _para("", "", "", "A note before any heading {{cite:u}}.", ["u"]),
        _para("Introduction", "1", "section", "Deep learning {{cite:a}} grew.", ["a"]),
        _para("Old", "2", "section", "Old work {{formula:f1}} here."),
        _para("Residual {{cite:c}}", "1", "subsection", "Residual nets {{cite:c}}.", ["c"]),
        _para("Old", "2", "section", "Back in Old {{cite:a}}.", ["a"]),
        _para("New", "3", "section", "Transformers {{cite:e}} and pretraining {{cite:f}}.",
              ["e", "f"]),
        _para("Acknowledgements", "-1", "section", "Thanks {{cite:u}}.", ["u"]),
    ],
    "bib_entries": {
        "a": _entry("A. Author, “Deep learning foundations,” in Proc. X, 2010.",
                    arxiv_id="1001.00001"),
        "c": _entry("C. Author. 2012. Residual networks. In CVPR.", arxiv_id="1201.00001"),
        "e": _entry("E. Author, Transformers, 2014", arxiv_id="1401.00001"),
        "f": _entry("F. Author (2015). Pretrained language models. In ACL.",
                    arxiv_id="1501.00001"),
        "u": _entry("U. Nobody, “An unknown work,” 2020.", doi="10.9999/nowhere"),
        "n": _entry("Never cited, 1999."),
    },
    "ref_entries": {"f1": {"latex": "x^2", "type": "formula"}},
}


@pytest.fixture()
def folders(tmp_path):
    graph, unarxive = write_tiny_graph(tmp_path / "g")
    (unarxive / "arXiv_src_2201_001.jsonl").write_text(json.dumps(SURVEY) + "\n",
                                                      encoding="utf-8")
    return graph, unarxive


def test_unarxive_paper_reads_as_a_section_tree_with_its_citations(folders):
    _, unarxive = folders
    doc = read_source(f"unarxive:{unarxive}#arXiv:2201.00001v2")
    assert doc.kind == "unarxive" and doc.title == "A tiny lineage survey"
    assert doc.abstract == "We review a lineage."
    tree = [(path, s.level, s.keys) for top in doc.sections for path, s in top.walk()]
    # the subsection's "1" is not read as a top number; the heading's marker is its citation;
    # the paragraph back in "Old" continues it; Acknowledgements is back matter
    assert tree == [(("Introduction",), 2, ["a"]),
                    (("Old",), 2, ["a"]),
                    (("Old", "Residual"), 3, ["c", "c"]),
                    (("New",), 2, ["e", "f"])]
    assert doc.unsectioned == ["u"] and doc.excluded == ["u"]
    old = doc.sections[1]
    assert old.text == "Old work $x^2$ here.\n\nBack in Old [2]."     # `a` is work 2
    works = {w.key: w for w in doc.gt.works}
    assert list(works) == ["u", "a", "c", "e", "f"] and doc.gt.uncited == 1
    assert works["a"].ids == ("arxiv:1001.00001",) and works["u"].ids == ("doi:10.9999/nowhere",)
    assert [works[k].title for k in "acef"] == ["Deep learning foundations", "Residual networks",
                                                "", "Pretrained language models"]
    assert works["a"].n_citations == 2 and works["c"].n_citations == 2


def test_titles_from_reference_strings():
    assert title_of("W. Wong, “A survey on software fault localization,” IEEE TSE, 2016.") == \
        "A survey on software fault localization"
    assert title_of("Max Bain and A. Z. 2021. Frozen in time: A joint video encoder. In ICCV.") \
        == "Frozen in time: A joint video encoder"
    assert title_of("R. Epstein, Astrophys. J. 223 (1978) 1037.") == ""


def test_arxiv_id_source_with_unarxive_builds_imports_and_runs_by_name(folders, tmp_path, capsys):
    graph, unarxive = folders
    out = tmp_path / "o"
    assert main(["build", "2201.00001", "--benchmarks", "taxobench,scinet", "--out", str(out),
                 "--no-corpus", "--graph", str(graph), "--unarxive", str(unarxive)]) == 0, \
        capsys.readouterr().err
    manifest = json.loads((out / "manifest.json").read_text())
    (source,) = manifest["sources"]
    assert source["kind"] == "unarxive" and source["source"] == f"unarxive:{unarxive}#2201.00001"
    assert source["files"][0]["path"].endswith("arXiv_src_2201_001.jsonl")
    (inst,) = [json.loads(x) for x in (out / "taxobench" / "taxobench.jsonl").read_text()
               .splitlines()]
    assert inst["gt"]["subtopics"] == [
        {"name": "Introduction", "papers": ["Deep learning foundations"]},
        {"name": "Old", "subtopics": [{"name": "Residual", "papers": ["Residual networks"]}]},
        {"name": "New", "papers": ["Pretrained language models"]}]  # `e` has no title
    data = tmp_path / "data"
    entry = import_dataset("taxobench", out / "taxobench", data)
    assert entry["files"]["taxobench.jsonl"]["instances"] == 1
    entry = import_dataset("scinet", out / "scinet", data)
    n = entry["files"]["tasks.jsonl"]["tasks"]
    assert n >= 1 and (data / "scinet" / "tasks.jsonl").is_file()
    run = tmp_path / "run"
    assert main(["run", "scinet", "--task", "path", "--tasks", "tasks", "--graph", str(graph),
                 "--unarxive", str(unarxive), "--agent", "relation-aware", "--out", str(run),
                 "--data", str(data)]) == 0, capsys.readouterr().err
    assert main(["score", str(run)]) == 0
    rows = [json.loads(x) for x in (run / "scores.jsonl").read_text().splitlines()]
    assert len(rows) == n and all(r["status"] == "scored" for r in rows)


def test_unknown_arxiv_id_is_one_line_and_exit_2(folders, tmp_path, capsys):
    _, unarxive = folders
    assert main(["build", "2201.99999", "--benchmarks", "taxobench", "--out",
                 str(tmp_path / "o"), "--no-corpus", "--unarxive", str(unarxive)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no paper arxiv:2201.99999" in err
    with pytest.raises(DataError, match="unarxive:FILE_OR_FOLDER#ARXIV_ID"):
        read_source(f"unarxive:{unarxive}")


GOOD_SURVEY = {"id": "my-survey", "title": "A survey", "publicationDate": "2020-01-01",
               "references": {"influential": [], "relevant": ["arxiv:1001.00001"]},
               "typology": None}
GOOD_TASK = {"task_id": "path/x/000", "family": "path", "kind": "path", "query": "q",
             "field": "f", "classic": "arxiv:1001.00001", "recent": "arxiv:1501.00001",
             "gold": {"path": ["arxiv:1001.00001", "arxiv:1201.00001", "arxiv:1501.00001"]},
             "info": {}}


@pytest.mark.parametrize("name,good,bad,where", [
    ("researcharena", GOOD_SURVEY, {**GOOD_SURVEY, "id": "other",
                                    "references": {"relevant": "arxiv:1"}},
     "line 2, field 'references.relevant'"),
    ("scinet", GOOD_TASK, {**GOOD_TASK, "task_id": "path/x/001", "classic": None},
     "line 2, field 'classic'"),
])
def test_import_accepts_a_good_file_and_refuses_a_malformed_one(name, good, bad, where,
                                                                tmp_path, capsys):
    folder = tmp_path / name
    folder.mkdir()
    file = folder / ("survey.jsonl" if name == "researcharena" else "tasks.jsonl")
    file.write_text(json.dumps(good) + "\n", encoding="utf-8")
    data = tmp_path / "data"
    assert main(["data", "--data", str(data), "import", name, str(folder)]) == 0
    assert (data / name / file.name).read_text() == file.read_text()
    file.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["data", "--data", str(tmp_path / "d2"), "import", name, str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{file}, {where}" in err and "Traceback" not in err
    assert not (tmp_path / "d2" / name / file.name).exists()        # nothing copied
    file.write_text("", encoding="utf-8")
    assert main(["data", "--data", str(tmp_path / "d3"), "import", name, str(file)]) == 2
    assert "no " in capsys.readouterr().err
