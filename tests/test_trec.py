"""TREC qrels/run reading and writing: formats, malformed input, duplicates, trec_eval order."""
from __future__ import annotations

import pytest

from conftest import shared_path
from scholarbench.data.trec import (Qrels, Run, as_float32, iter_qrels, iter_run, read_qrels,
                                    read_run, run_lines, trec_eval_order, write_qrels, write_run)
from scholarbench.errors import DataError


def _write(tmp_path, name, text):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


# ---------------------------------------------------------------- qrels

def test_read_golden_qrels():
    qrels = read_qrels(shared_path("golden-inputs", "researcharena", "qrels.trec"))
    assert qrels.query_ids == ["263621678", "56895323"]
    assert len(qrels.judgements["263621678"]) == 18
    assert len(qrels.judgements["56895323"]) == 43
    assert set(qrels.judgements["263621678"].values()) == {1}
    grades = list(qrels.judgements["56895323"].values())
    assert grades.count(2) == 16 and grades.count(1) == 27  # influential=2, relevant=1
    assert qrels.judgements["56895323"]["17237868"] == 2
    assert len(qrels.relevant("56895323", level=2)) == 16


def test_qrels_whitespace_variants_are_equivalent(tmp_path):
    plain = read_qrels(_write(tmp_path, "a", "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"))
    messy = read_qrels(_write(tmp_path, "b", "q1\t0\td1\t1\r\n\n  q1   0  d2 \t 0  \r\n"
                                             "\t\nq2\t\t0 d3\t2"))
    assert messy.judgements == plain.judgements == {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}


def test_byte_order_mark_is_not_part_of_the_first_qid(tmp_path):
    path = _write(tmp_path, "q", "\ufeffq1 0 d1 1\n".encode("utf-8"))
    assert read_qrels(path).query_ids == ["q1"]


def test_qrels_typed_records(tmp_path):
    path = _write(tmp_path, "q", "q1 0 d1 1\nq1 Q0 d2 -1\n")
    recs = list(iter_qrels(path))
    assert [(r.query_id, r.doc_id, r.relevance, r.iteration) for r in recs] == \
        [("q1", "d1", 1, "0"), ("q1", "d2", -1, "Q0")]


@pytest.mark.parametrize("line, field, reason", [
    ("q1 0 d1", "rel", "missing"),
    ("q1 0", "docid", "missing"),
    ("q1 0 d1 1.5", "rel", "not an integer: '1.5'"),
    ("q1 0 d1 high", "rel", "not an integer: 'high'"),
    ("q1 0 d1 1_0", "rel", "not an integer"),
])
def test_malformed_qrels_line_names_file_line_field(tmp_path, line, field, reason):
    path = _write(tmp_path, "bad.qrels", f"q1 0 d0 1\n\n{line}\n")
    with pytest.raises(DataError) as err:
        read_qrels(path)
    assert err.value.file == str(path)
    assert err.value.line == 3  # blank lines still count: the number is the file's line
    assert err.value.field == field
    assert reason in str(err.value)
    assert str(path) in str(err.value) and "line 3" in str(err.value)


def test_qrels_extra_field_is_an_error(tmp_path):
    with pytest.raises(DataError, match="expected 4 whitespace-separated fields") as err:
        read_qrels(_write(tmp_path, "q", "q1 0 d1 1 extra\n"))
    assert err.value.line == 1


def test_duplicate_qrels_judgement_is_an_error_naming_both_lines(tmp_path):
    path = _write(tmp_path, "q", "q1 0 d1 1\nq1 0 d2 1\nq1 0 d1 0\n")
    with pytest.raises(DataError, match=r"duplicate judgement .*'d1'.*first at line 1") as err:
        read_qrels(path)
    assert (err.value.line, err.value.field) == (3, "docid")


def test_same_doc_in_two_queries_is_not_a_duplicate(tmp_path):
    qrels = read_qrels(_write(tmp_path, "q", "q1 0 d1 1\nq2 0 d1 0\n"))
    assert qrels.judgements == {"q1": {"d1": 1}, "q2": {"d1": 0}}


def test_empty_qrels_is_an_error(tmp_path):
    with pytest.raises(DataError, match="no judgements"):
        read_qrels(_write(tmp_path, "q", "\n  \n"))


def test_missing_and_non_utf8_files(tmp_path):
    with pytest.raises(DataError, match="cannot read") as err:
        read_qrels(tmp_path / "nope.qrels")
    assert err.value.file == str(tmp_path / "nope.qrels")
    with pytest.raises(DataError, match="not UTF-8") as err:
        read_run(_write(tmp_path, "r", b"q1 Q0 d1 1 1.0 t\nq1 Q0 \xff 2 0.5 t\n"))
    assert err.value.line == 2


# ---------------------------------------------------------------- runs

def test_read_golden_run():
    run = read_run(shared_path("golden-inputs", "researcharena", "run_late.trec"))
    assert run.query_ids == ["263621678", "56895323"]
    assert [len(run.scores[q]) for q in run.query_ids] == [68, 93]
    assert run.tags == ("late",)
    assert run.duplicates_dropped == 0
    assert run.scores["263621678"]["900678000"] == 68.0


def test_run_whitespace_variants_are_equivalent(tmp_path):
    plain = read_run(_write(tmp_path, "a", "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 -1e-3 t\n"))
    messy = read_run(_write(tmp_path, "b", "\tq1\tQ0\td1\t1\t2.5\tt\r\n\n"
                                           "q1   Q0 d2    2  -1E-3   t   "))
    assert messy.scores == plain.scores == {"q1": {"d1": 2.5, "d2": -0.001}}


def test_run_typed_records_keep_every_line(tmp_path):
    path = _write(tmp_path, "r", "q1 Q0 d1 1 2.0 sys\nq1 Q0 d1 2 1.0 sys\n")
    assert [(n, e.doc_id, e.rank, e.score, e.tag, e.iteration) for n, e in iter_run(path)] == \
        [(1, "d1", 1, 2.0, "sys", "Q0"), (2, "d1", 2, 1.0, "sys", "Q0")]


@pytest.mark.parametrize("line, field, reason", [
    ("q1 Q0 d1 1 abc t", "score", "not a number: 'abc'"),
    ("q1 Q0 d1 1 nan t", "score", "not a number: 'nan'"),
    ("q1 Q0 d1 1 inf t", "score", "not a number: 'inf'"),
    ("q1 Q0 d1 1 1_0 t", "score", "not a number: '1_0'"),
    ("q1 Q0 d1 1 1e999 t", "score", "not a finite number"),
    ("q1 Q0 d1 1 0x1p3 t", "score", "not a number"),
    ("q1 Q0 d1 first 1.0 t", "rank", "not an integer: 'first'"),
    ("q1 Q0 d1 1.0 1.0 t", "rank", "not an integer"),
    ("q1 Q0 d1 1 1.0", "tag", "missing"),
    ("q1 Q0 d1 1", "score", "missing"),
    ("q1", "iter", "missing"),
])
def test_malformed_run_line_names_file_line_field(tmp_path, line, field, reason):
    path = _write(tmp_path, "bad.run", f"q1 Q0 d0 1 5.0 t\n{line}\n")
    with pytest.raises(DataError) as err:
        read_run(path)
    assert (err.value.file, err.value.line, err.value.field) == (str(path), 2, field)
    assert reason in str(err.value)
    assert f"{path}, line 2, field '{field}'" in str(err.value)


def test_run_extra_field_is_an_error(tmp_path):
    # trec_eval 9.0.8 silently ignores a 7th field; a split docid must not go unnoticed here.
    with pytest.raises(DataError, match="got 7") as err:
        read_run(_write(tmp_path, "r", "q1 Q0 doc 1 1 1.0 t\n"))
    assert err.value.line == 1 and err.value.field is None


def test_duplicate_run_lines_keep_first_and_are_counted(tmp_path):
    path = _write(tmp_path, "r", "q1 Q0 d1 1 3.0 t\nq1 Q0 d2 2 2.0 t\nq1 Q0 d1 3 9.0 t\n"
                                 "q2 Q0 d1 1 1.0 t\nq1 Q0 d2 4 0.0 t\n")
    run = read_run(path)
    assert run.scores == {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {"d1": 1.0}}
    assert run.duplicates_dropped == 2
    assert run.duplicate_lines == (3, 5)


def test_duplicate_run_lines_error_variant(tmp_path):
    path = _write(tmp_path, "r", "q1 Q0 d1 1 3.0 t\nq1 Q0 d1 2 1.0 t\n")
    with pytest.raises(DataError, match="duplicate document 'd1'.*first at line 1") as err:
        read_run(path, on_duplicate="error")
    assert (err.value.line, err.value.field) == (2, "docid")
    with pytest.raises(ValueError):
        read_run(path, on_duplicate="last")


@pytest.mark.parametrize("text", ["", "\n", "  \n\t\n"])
def test_empty_run_is_valid(tmp_path, text):
    run = read_run(_write(tmp_path, "r", text))
    assert run.scores == {} and len(run) == 0 and run.duplicates_dropped == 0


def test_from_dict_validation():
    with pytest.raises(DataError, match="finite") as err:
        Run.from_dict({"q1": {"d1": float("nan")}})
    assert err.value.field == "score"
    with pytest.raises(DataError, match="whitespace") as err:
        Run.from_dict({"q1": {"d 1": 1.0}})
    assert err.value.field == "docid"
    with pytest.raises(DataError, match="integer"):
        Qrels.from_dict({"q1": {"d1": 1.5}})
    assert Run.from_dict({"q1": {}, "q2": {"d": 1}}).scores == {"q2": {"d": 1.0}}


# ---------------------------------------------------------------- trec_eval order and writing

def test_ties_break_by_docid_descending():
    # Checked on the trec_eval 9.0.8 binary: a three-way tie a, b, c is evaluated as c, b, a.
    assert [d for d, _ in trec_eval_order({"a": 1.0, "b": 1.0, "c": 1.0})] == ["c", "b", "a"]
    assert [d for d, _ in trec_eval_order({"a": 1.0, "b": 2.0, "c": 1.0})] == ["b", "c", "a"]


def test_docids_compare_as_strings_not_numbers():
    assert [d for d, _ in trec_eval_order({"10": 0.0, "9": 0.0, "100": 0.0})] == \
        ["9", "100", "10"]


def test_scores_compare_in_single_precision():
    # trec_eval keeps scores in a C float: 1.00000001 == 1.0 there, so docid decides.
    assert as_float32(1.00000001) == 1.0
    assert [d for d, _ in trec_eval_order({"a": 1.00000001, "b": 1.0})] == ["b", "a"]
    assert [d for d, _ in trec_eval_order({"a": 1.0001, "b": 1.0})] == ["a", "b"]


def test_write_run_canonical_lines(tmp_path):
    run = {"q2": {"x": 0.5}, "q10": {"a": 1.0, "b": 3.0, "c": 1.0, "d": 1.00000001}}
    path = tmp_path / "out" / "run.trec"
    write_run(path, run, "mytag")
    assert path.read_text(encoding="utf-8").splitlines() == [
        "q10 Q0 b 1 3.0 mytag",
        "q10 Q0 d 2 1.00000001 mytag",
        "q10 Q0 c 3 1.0 mytag",
        "q10 Q0 a 4 1.0 mytag",
        "q2 Q0 x 1 0.5 mytag",
    ]
    back = read_run(path)
    assert back.scores == {"q10": run["q10"], "q2": run["q2"]}  # scores survive exactly
    assert [e.rank for _, e in iter_run(path)] == [1, 2, 3, 4, 1]


def test_write_run_round_trips_golden_all_tied(tmp_path):
    run = read_run(shared_path("golden-inputs", "researcharena", "run_all_tied.trec"))
    path = tmp_path / "tied.trec"
    write_run(path, run, "all_tied")
    assert read_run(path).scores == run.scores
    first = path.read_text().splitlines()[:11]
    # Every score ties, so trec_eval's order is docid descending: the ten 9006780xx docs
    # (not relevant) come before the first relevant one, whatever ranks the file had.
    assert [line.split()[2] for line in first] == [f"90067800{i}" for i in range(9, -1, -1)] + \
        ["252898846"]


def test_write_run_rejects_bad_tag_and_ids(tmp_path):
    with pytest.raises(DataError, match="whitespace"):
        write_run(tmp_path / "r", {"q": {"d": 1.0}}, "two words")
    with pytest.raises(DataError):
        write_run(tmp_path / "r", {"q": {"d": 1.0}}, "")
    assert not (tmp_path / "r").exists()
    assert run_lines(Run({}), "t") == []


def test_write_qrels_round_trip(tmp_path):
    qrels = {"q2": {"b": 0, "a": 2}, "q1": {"z": -1}}
    write_qrels(tmp_path / "q", qrels)
    assert (tmp_path / "q").read_text().splitlines() == ["q1 0 z -1", "q2 0 a 2", "q2 0 b 0"]
    assert read_qrels(tmp_path / "q").judgements == {"q1": {"z": -1}, "q2": {"a": 2, "b": 0}}
