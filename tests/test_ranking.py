"""ResearchArena ranking measures: trec_eval-exact values, hand-computed cases, edge-case rules."""
from __future__ import annotations

import json
import math
import random
import re

import pytest

from conftest import shared_path
from scholarbench.data.trec import Qrels, Run, read_qrels, read_run
from scholarbench.benchmarks.researcharena.measures.ranking import (DEFAULT_MEASURES, ScoreRow,
                                                                    aggregate, coverage, evaluate,
                                                                    parse_measures)
from scholarbench.benchmarks.researcharena.files import format_summary, score_researcharena_files

GOLDEN_RUNS = ("run_all_tied.trec", "run_interleaved.trec", "run_late.trec", "run_perfect.trec")
TREC_EVAL_NAMES = {"P_10": "P@10", "P_100": "P@100", "recall_10": "R@10", "recall_100": "R@100",
                   "ndcg_cut_10": "nDCG@10", "ndcg_cut_30": "nDCG@30",
                   "ndcg_cut_100": "nDCG@100", "recip_rank": "RR", "map": "AP"}

# Produced by the trec_eval binary, version 9.0.8 (`trec_eval -v` prints "trec_eval version
# 9.0.8"), with exactly
#     trec_eval -c -q -m all_trec qrels.trec run_X.trec
# on ../shared/golden-inputs/researcharena/, keeping the lines of the measures we use (and
# num_q). Verbatim except that the tabs trec_eval prints are shown as spaces.
# How that binary was built: trec_eval.c (the 9.0.x main program of usnistgov/trec_eval) was
# compiled with gcc 12.2 against the trec_eval 9.0.8 library that pytrec_eval-terrier 0.5.11
# compiles from the trec_eval-9.0.8 release sources (its extension module exports every te_*
# function and table; struct layouts were checked against its DWARF debug info). So the
# reading of both files, ranking, tie-breaking, measures and -c averaging are trec_eval
# 9.0.8's own code running as the command-line program, independent of ir_measures and of
# pytrec_eval's wrapper (which builds the ranking from Python dicts and has no -c). The
# measure formulas are the same compiled C code pytrec_eval runs: that is the point (trec_eval
# is the reference), and the hand-computed tests below check the formulas independently.
TREC_EVAL_PRINTED = """
== run_all_tied
map                       263621678    0.1840
recip_rank                263621678    0.0909
P_10                      263621678    0.0000
P_100                     263621678    0.1000
recall_10                 263621678    0.0000
recall_100                263621678    0.5556
ndcg_cut_10               263621678    0.0000
ndcg_cut_30               263621678    0.3794
ndcg_cut_100              263621678    0.3794
map                       56895323    0.0770
recip_rank                56895323    0.0909
P_10                      56895323    0.0000
P_100                     56895323    0.1000
recall_10                 56895323    0.0000
recall_100                56895323    0.2326
ndcg_cut_10               56895323    0.0000
ndcg_cut_30               56895323    0.1635
ndcg_cut_100              56895323    0.1407
num_q                     all    2
map                       all    0.1305
recip_rank                all    0.0909
P_10                      all    0.0000
P_100                     all    0.1000
recall_10                 all    0.0000
recall_100                all    0.3941
ndcg_cut_10               all    0.0000
ndcg_cut_30               all    0.2714
ndcg_cut_100              all    0.2600
== run_interleaved
map                       263621678    0.5674
recip_rank                263621678    1.0000
P_10                      263621678    0.5000
P_100                     263621678    0.1800
recall_10                 263621678    0.2778
recall_100                263621678    1.0000
ndcg_cut_10               263621678    0.5549
ndcg_cut_30               263621678    0.7371
ndcg_cut_100              263621678    0.8267
map                       56895323    0.5333
recip_rank                56895323    1.0000
P_10                      56895323    0.5000
P_100                     56895323    0.4300
recall_10                 56895323    0.1163
recall_100                56895323    1.0000
ndcg_cut_10               56895323    0.2774
ndcg_cut_30               56895323    0.3177
ndcg_cut_100              56895323    0.6926
num_q                     all    2
map                       all    0.5504
recip_rank                all    1.0000
P_10                      all    0.5000
P_100                     all    0.3050
recall_10                 all    0.1970
recall_100                all    1.0000
ndcg_cut_10               all    0.4162
ndcg_cut_30               all    0.5274
ndcg_cut_100              all    0.7597
== run_late
map                       263621678    0.1532
recip_rank                263621678    0.0196
P_10                      263621678    0.0000
P_100                     263621678    0.1800
recall_10                 263621678    0.0000
recall_100                263621678    1.0000
ndcg_cut_10               263621678    0.0000
ndcg_cut_30               263621678    0.0000
ndcg_cut_100              263621678    0.4627
map                       56895323    0.2837
recip_rank                56895323    0.0196
P_10                      56895323    0.0000
P_100                     56895323    0.4300
recall_10                 56895323    0.0000
recall_100                56895323    1.0000
ndcg_cut_10               56895323    0.0000
ndcg_cut_30               56895323    0.0000
ndcg_cut_100              56895323    0.5335
num_q                     all    2
map                       all    0.2185
recip_rank                all    0.0196
P_10                      all    0.0000
P_100                     all    0.3050
recall_10                 all    0.0000
recall_100                all    1.0000
ndcg_cut_10               all    0.0000
ndcg_cut_30               all    0.0000
ndcg_cut_100              all    0.4981
== run_perfect
map                       263621678    1.0000
recip_rank                263621678    1.0000
P_10                      263621678    1.0000
P_100                     263621678    0.1800
recall_10                 263621678    0.5556
recall_100                263621678    1.0000
ndcg_cut_10               263621678    1.0000
ndcg_cut_30               263621678    1.0000
ndcg_cut_100              263621678    1.0000
map                       56895323    1.0000
recip_rank                56895323    1.0000
P_10                      56895323    1.0000
P_100                     56895323    0.4300
recall_10                 56895323    0.2326
recall_100                56895323    1.0000
ndcg_cut_10               56895323    1.0000
ndcg_cut_30               56895323    1.0000
ndcg_cut_100              56895323    1.0000
num_q                     all    2
map                       all    1.0000
recip_rank                all    1.0000
P_10                      all    1.0000
P_100                     all    0.3050
recall_10                 all    0.3941
recall_100                all    1.0000
ndcg_cut_10               all    1.0000
ndcg_cut_30               all    1.0000
ndcg_cut_100              all    1.0000
"""

# The same binary and command, with only the printing changed from "%6.4f" to "%.17g" (a
# debugging build that prints each query's and the final TREC_EVAL values at full double
# precision), so our values can be compared beyond trec_eval's 4 printed decimals.
# "all" is trec_eval's -c mean over the qrels queries.
TREC_EVAL_FULL = {
    "run_all_tied.trec": {
        "263621678": {
            "R@10": 0, "R@100": 0.55555555555555558, "P@10": 0, "P@100": 0.10000000000000001,
            "nDCG@10": 0, "nDCG@30": 0.37936873013807826, "nDCG@100": 0.37936873013807826,
            "RR": 0.090909090909090912, "AP": 0.18401588712476225,
        },
        "56895323": {
            "R@10": 0, "R@100": 0.23255813953488372, "P@10": 0, "P@100": 0.10000000000000001,
            "nDCG@10": 0, "nDCG@30": 0.16353011493603986, "nDCG@100": 0.1406601530808162,
            "RR": 0.090909090909090912, "AP": 0.077029906238272564,
        },
        "all": {
            "R@10": 0, "R@100": 0.39405684754521964, "P@10": 0, "P@100": 0.10000000000000001,
            "nDCG@10": 0, "nDCG@30": 0.27144942253705906, "nDCG@100": 0.2600144416094472,
            "RR": 0.090909090909090912, "AP": 0.1305228966815174,
        },
    },
    "run_interleaved.trec": {
        "263621678": {
            "R@10": 0.27777777777777779, "R@100": 1, "P@10": 0.5, "P@100": 0.17999999999999999,
            "nDCG@10": 0.55489891264249036, "nDCG@30": 0.73708266401805922,
            "nDCG@100": 0.82672987882259119, "RR": 1, "AP": 0.5674168099360134,
        },
        "56895323": {
            "R@10": 0.11627906976744186, "R@100": 1, "P@10": 0.5, "P@100": 0.42999999999999999,
            "nDCG@10": 0.27744945632124518, "nDCG@30": 0.31772574592630409,
            "nDCG@100": 0.69258706427226813, "RR": 1, "AP": 0.53328332950166413,
        },
        "all": {
            "R@10": 0.19702842377260982, "R@100": 1, "P@10": 0.5, "P@100": 0.30499999999999999,
            "nDCG@10": 0.41617418448186777, "nDCG@30": 0.52740420497218166,
            "nDCG@100": 0.75965847154742971, "RR": 1, "AP": 0.55035006971883882,
        },
    },
    "run_late.trec": {
        "263621678": {
            "R@10": 0, "R@100": 1, "P@10": 0, "P@100": 0.17999999999999999, "nDCG@10": 0,
            "nDCG@30": 0, "nDCG@100": 0.46271371983278764, "RR": 0.019607843137254902,
            "AP": 0.15318624611182213,
        },
        "56895323": {
            "R@10": 0, "R@100": 1, "P@10": 0, "P@100": 0.42999999999999999, "nDCG@10": 0,
            "nDCG@30": 0, "nDCG@100": 0.53354094229590576, "RR": 0.019607843137254902,
            "AP": 0.28374822221216772,
        },
        "all": {
            "R@10": 0, "R@100": 1, "P@10": 0, "P@100": 0.30499999999999999, "nDCG@10": 0,
            "nDCG@30": 0, "nDCG@100": 0.4981273310643467, "RR": 0.019607843137254902,
            "AP": 0.21846723416199493,
        },
    },
    "run_perfect.trec": {
        "263621678": {
            "R@10": 0.55555555555555558, "R@100": 1, "P@10": 1, "P@100": 0.17999999999999999,
            "nDCG@10": 1, "nDCG@30": 1, "nDCG@100": 1, "RR": 1, "AP": 1,
        },
        "56895323": {
            "R@10": 0.23255813953488372, "R@100": 1, "P@10": 1, "P@100": 0.42999999999999999,
            "nDCG@10": 1, "nDCG@30": 1, "nDCG@100": 1, "RR": 1, "AP": 1,
        },
        "all": {
            "R@10": 0.39405684754521964, "R@100": 1, "P@10": 1, "P@100": 0.30499999999999999,
            "nDCG@10": 1, "nDCG@30": 1, "nDCG@100": 1, "RR": 1, "AP": 1,
        },
    },
}


def _printed() -> dict[str, dict[tuple[str, str], str]]:
    out: dict[str, dict[tuple[str, str], str]] = {}
    current = None
    for line in TREC_EVAL_PRINTED.strip().splitlines():
        if line.startswith("== "):
            current = out.setdefault(line[3:] + ".trec", {})
            continue
        name, qid, value = line.split()
        if name in TREC_EVAL_NAMES:
            current[(qid, TREC_EVAL_NAMES[name])] = value
        else:
            assert (name, qid, value) == ("num_q", "all", "2")
    return out


def _golden(name: str):
    base = ("golden-inputs", "researcharena")
    return read_qrels(shared_path(*base, "qrels.trec")), read_run(shared_path(*base, name))


# ---------------------------------------------------------------- golden cross-check

@pytest.mark.parametrize("run_name", GOLDEN_RUNS)
def test_golden_every_query_and_measure_equals_trec_eval(run_name):
    qrels, run = _golden(run_name)
    rows = evaluate(qrels, run)
    expected = TREC_EVAL_FULL[run_name]
    printed = _printed()[run_name]
    assert len(rows) == 2 * len(DEFAULT_MEASURES)
    for row in rows:
        assert row.value == pytest.approx(expected[row.query_id][row.measure], abs=1e-9), row
        assert f"{row.value:.4f}" == printed[(row.query_id, row.measure)], row
    means = aggregate(rows)
    for measure, mean in means.items():
        assert mean == pytest.approx(expected["all"][measure], abs=1e-9), measure
        assert f"{mean:.4f}" == printed[("all", measure)], measure
    assert set(printed) == {(r.query_id, r.measure) for r in rows} | \
        {("all", m) for m in DEFAULT_MEASURES}


def test_golden_all_tied_hand_computed():
    # Every score ties, so trec_eval ranks by docid descending (as strings): per query the ten
    # non-judged 900...-docs come first and the ten judged (all grade 1) docs take ranks 11-20.
    rows = {(r.query_id, r.measure): r.value for r in evaluate(*_golden("run_all_tied.trec"))}
    dcg = sum(1 / math.log2(r + 1) for r in range(11, 21))
    for qid, n_rel in (("263621678", 18), ("56895323", 43)):
        assert rows[(qid, "RR")] == 1 / 11
        assert rows[(qid, "P@10")] == 0.0 and rows[(qid, "R@10")] == 0.0
        assert rows[(qid, "nDCG@10")] == 0.0
        assert rows[(qid, "P@100")] == 10 / 100
        assert rows[(qid, "R@100")] == 10 / n_rel
        ap = sum(k / (10 + k) for k in range(1, 11)) / n_rel
        assert rows[(qid, "AP")] == pytest.approx(ap, abs=1e-15)
    # 263621678: 18 docs of grade 1, so the ideal DCG@30 and @100 are the first 18 discounts.
    ideal = sum(1 / math.log2(r + 1) for r in range(1, 19))
    assert rows[("263621678", "nDCG@30")] == pytest.approx(dcg / ideal, abs=1e-15)
    assert rows[("263621678", "nDCG@100")] == pytest.approx(dcg / ideal, abs=1e-15)
    # 56895323: 16 influential (gain 2) then 27 relevant (gain 1) in the ideal ranking.
    gains = [2] * 16 + [1] * 27
    for k in (30, 100):
        ideal = sum(g / math.log2(r + 1) for r, g in enumerate(gains[:k], start=1))
        assert rows[("56895323", f"nDCG@{k}")] == pytest.approx(dcg / ideal, abs=1e-15)
    # (Trusting the file's rank column instead would give RR = 1: it lists the judged docs
    # first. trec_eval ignores that column, and so do we.)
    assert aggregate([ScoreRow(q, m, v) for (q, m), v in rows.items()])["RR"] == 1 / 11


def test_golden_perfect_run_hand_computed():
    rows = {(r.query_id, r.measure): r.value for r in evaluate(*_golden("run_perfect.trec"))}
    for qid, n_rel in (("263621678", 18), ("56895323", 43)):
        for measure in ("P@10", "R@100", "nDCG@10", "nDCG@30", "nDCG@100", "RR", "AP"):
            assert rows[(qid, measure)] == pytest.approx(1.0, abs=1e-15), (qid, measure)
        assert rows[(qid, "P@100")] == n_rel / 100  # fewer relevant docs than the cutoff
        assert rows[(qid, "R@10")] == 10 / n_rel


# ---------------------------------------------------------------- hand-computed cases

def _values(qrels, run, measures=DEFAULT_MEASURES):
    return {(r.query_id, r.measure): r.value for r in evaluate(qrels, run, measures)}


def test_perfect_run_scores_one():
    qrels = {"q": {"a": 2, "b": 1, "c": 1, "x": 0}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0, "x": 0.5}}
    values = _values(qrels, run, ["R@10", "nDCG@10", "nDCG@30", "RR", "AP"])
    assert values == {("q", m): 1.0 for m in ("R@10", "nDCG@10", "nDCG@30", "RR", "AP")}


def test_relevant_doc_at_rank_three():
    qrels = {"q": {"rel": 1, "n1": 0}}
    run = {"q": {"n1": 0.9, "n2": 0.8, "rel": 0.7, "n3": 0.6}}
    values = _values(qrels, run)
    assert values[("q", "RR")] == 1 / 3
    assert values[("q", "AP")] == 1 / 3
    assert values[("q", "P@10")] == 1 / 10 and values[("q", "P@100")] == 1 / 100
    assert values[("q", "R@10")] == 1.0
    assert values[("q", "nDCG@10")] == pytest.approx(1 / math.log2(4), abs=1e-15)


def test_tie_break_order_is_docid_descending():
    qrels = {"q": {"a": 1}}
    # a, b, c tie: trec_eval ranks c, b, a, so the relevant 'a' is third.
    assert _values(qrels, {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}, ["RR"])[("q", "RR")] == 1 / 3
    # ... and first when it has the largest docid.
    assert _values({"q": {"c": 1}}, {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}, ["RR"]) == \
        {("q", "RR"): 1.0}
    # Scores equal in single precision tie as well (trec_eval stores them as C floats).
    assert _values(qrels, {"q": {"a": 1.00000001, "b": 1.0}}, ["RR"])[("q", "RR")] == 1 / 2


def test_ndcg_uses_grades_and_binary_measures_use_rel_at_least_one():
    qrels = {"q": {"inf": 2, "rel": 1, "no": 0, "neg": -1}}
    run = {"q": {"rel": 4.0, "inf": 3.0, "neg": 2.0, "no": 1.0}}
    values = _values(qrels, run)
    dcg = 1 / math.log2(2) + 2 / math.log2(3)  # linear gains: grade 2 counts twice grade 1
    ideal = 2 / math.log2(2) + 1 / math.log2(3)
    assert values[("q", "nDCG@10")] == pytest.approx(dcg / ideal, abs=1e-15)
    assert values[("q", "P@10")] == 2 / 10  # rel >= 1 relevant, 0 and -1 not
    assert values[("q", "R@10")] == 1.0 and values[("q", "RR")] == 1.0
    assert values[("q", "AP")] == 1.0
    # A negative grade gains nothing (is not subtracted), as in trec_eval.
    neg_first = _values({"q": {"neg": -1, "rel": 1}}, {"q": {"neg": 2.0, "rel": 1.0}},
                        ["nDCG@10"])
    assert neg_first[("q", "nDCG@10")] == pytest.approx(1 / math.log2(3), abs=1e-15)


def test_precision_denominator_is_the_cutoff():
    values = _values({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["P@10", "P@100"])
    assert values == {("q", "P@10"): 0.1, ("q", "P@100"): 0.01}


# ---------------------------------------------------------------- missing-value rules

def test_query_missing_from_run_scores_zero_and_counts():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    rows = evaluate(qrels, {"q1": {"a": 1.0}})
    assert [(r.query_id, r.measure) for r in rows] == \
        [(q, m) for q in ("q1", "q2") for m in DEFAULT_MEASURES]  # counted, not dropped
    assert all(r.value == 0.0 for r in rows if r.query_id == "q2")
    means = aggregate(rows)
    assert means["RR"] == 0.5 and means["AP"] == 0.5  # trec_eval -c: divide by 2 queries
    assert coverage(qrels, {"q1": {"a": 1.0}}).missing_from_run == ("q2",)


def test_query_with_no_relevant_document_scores_zero_and_counts():
    qrels = {"q1": {"a": 1}, "q0": {"x": 0, "y": -1}}
    run = {"q1": {"a": 1.0}, "q0": {"x": 2.0, "y": 1.0}}
    values = _values(qrels, run)
    assert all(values[("q0", m)] == 0.0 for m in DEFAULT_MEASURES)
    assert aggregate(evaluate(qrels, run))["nDCG@10"] == 0.5  # q0 stays in the denominator
    assert coverage(qrels, run).without_relevant == ("q0",)


def test_run_query_not_in_qrels_is_ignored_and_counted():
    qrels = {"q1": {"a": 1, "b": 0}}
    alone = evaluate(qrels, {"q1": {"b": 2.0, "a": 1.0}})
    extra = evaluate(qrels, {"q1": {"b": 2.0, "a": 1.0}, "zz": {"a": 5.0}, "q9": {"b": 1.0}})
    assert extra == alone
    assert {r.query_id for r in extra} == {"q1"}
    assert coverage(qrels, {"q1": {"a": 1}, "zz": {"a": 5.0}}).not_in_qrels == ("zz",)


def test_empty_run_scores_zero_for_every_qrels_query(tmp_path):
    (tmp_path / "empty.run").write_text("")
    qrels = {"q1": {"a": 1}, "q2": {"b": 2}}
    rows = evaluate(qrels, read_run(tmp_path / "empty.run"))
    assert len(rows) == 2 * len(DEFAULT_MEASURES) and all(r.value == 0.0 for r in rows)
    assert aggregate(rows) == {m: 0.0 for m in DEFAULT_MEASURES}


def test_duplicate_run_line_first_occurrence_decides(tmp_path):
    path = tmp_path / "dup.run"
    path.write_text("q1 Q0 rel 1 1.0 t\nq1 Q0 non 2 2.0 t\nq1 Q0 rel 3 5.0 t\n")
    run = read_run(path)
    # The first line (score 1.0) is kept: 'non' (2.0) ranks above it. Keeping the last
    # line (5.0), as a dict built from the file would, would give RR = 1.
    assert _values({"q1": {"rel": 1}}, run, ["RR"]) == {("q1", "RR"): 0.5}
    assert run.duplicates_dropped == 1


# ---------------------------------------------------------------- invariants and names

def test_run_line_order_does_not_matter(tmp_path):
    qrels, run = _golden("run_interleaved.trec")
    lines = shared_path("golden-inputs", "researcharena", "run_interleaved.trec") \
        .read_text().splitlines()
    random.Random(3).shuffle(lines)
    (tmp_path / "shuffled.run").write_text("\n".join(lines) + "\n")
    assert evaluate(qrels, read_run(tmp_path / "shuffled.run")) == evaluate(qrels, run)


def test_values_are_bounded():
    rng = random.Random(11)
    docs = [f"d{i}" for i in range(200)]
    qrels = {f"q{q}": {d: rng.choice([0, 1, 2]) for d in rng.sample(docs, 30)} for q in range(5)}
    run = {f"q{q}": {d: rng.random() for d in rng.sample(docs, 120)} for q in range(6)}
    for row in evaluate(qrels, run):
        assert 0.0 <= row.value <= 1.0 + 1e-12


def test_accepts_typed_records_and_dicts_alike():
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"a": 1.0, "b": 0.5}}
    assert evaluate(Qrels.from_dict(qrels), Run.from_dict(run)) == evaluate(qrels, run)


def test_measure_names_are_ir_measures_printed_names():
    assert parse_measures(DEFAULT_MEASURES) == list(DEFAULT_MEASURES)
    with pytest.raises(ValueError, match="not an ir_measures measure"):
        parse_measures(["ndcg_cut_10"])
    with pytest.raises(ValueError, match="not computed by the pytrec_eval provider"):
        parse_measures(["RR@10"])
    with pytest.raises(ValueError, match="twice"):
        parse_measures(["RR", "RR"])
    with pytest.raises(ValueError, match="no measures"):
        parse_measures([])
    with pytest.raises(ValueError, match="qrels has no queries"):
        evaluate({}, {"q": {"a": 1.0}})


def test_aggregate_is_the_mean_per_measure():
    rows = [ScoreRow("a", "RR", 1.0), ScoreRow("b", "RR", 0.0), ScoreRow("a", "AP", 0.25),
            ScoreRow("b", "AP", 0.75), ScoreRow("c", "RR", 0.5)]
    assert aggregate(rows) == {"RR": 0.5, "AP": 0.5}
    assert aggregate([]) == {}


# ---------------------------------------------------------------- files runner

def test_score_researcharena_files(tmp_path):
    (tmp_path / "q.trec").write_text("q1 0 a 2\nq1 0 b 1\nq2 0 c 1\nq3 0 x 0\n")
    (tmp_path / "r.trec").write_text("q1 Q0 b 1 2.0 sys\nq1 Q0 a 2 1.0 sys\nq1 Q0 b 3 0.1 sys\n"
                                     "q3 Q0 x 1 1.0 sys\nq9 Q0 a 1 1.0 sys\n")
    out = tmp_path / "scores" / "s.jsonl"
    summary = score_researcharena_files(tmp_path / "q.trec", tmp_path / "r.trec", out)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 3 * len(DEFAULT_MEASURES)
    assert all(set(d) == {"query_id", "measure", "value"} for d in lines)
    assert [d["measure"] for d in lines[:len(DEFAULT_MEASURES)]] == list(DEFAULT_MEASURES)
    assert [d["query_id"] for d in lines[::len(DEFAULT_MEASURES)]] == ["q1", "q2", "q3"]
    assert {d["value"] for d in lines if d["query_id"] != "q1"} == {0.0}
    rr_q1 = next(d["value"] for d in lines if d["query_id"] == "q1" and d["measure"] == "RR")
    assert rr_q1 == 1.0
    assert summary["queries_scored"] == 3
    assert summary["queries_missing_from_run"] == 1 and summary["missing_from_run_ids"] == ["q2"]
    assert summary["run_queries_not_in_qrels"] == 1 and summary["not_in_qrels_ids"] == ["q9"]
    assert summary["queries_without_relevant"] == 1
    assert summary["duplicate_run_lines_dropped"] == 1 and summary["duplicate_run_lines"] == [3]
    assert summary["means"]["RR"] == pytest.approx(1 / 3)
    assert list(summary["means"]) == list(DEFAULT_MEASURES)
    assert summary["scoring"]["provider"] == "pytrec_eval"
    json.dumps(summary)  # the summary is plain JSON
    text = format_summary(summary)
    assert "3 queries scored, 1 missing from the run" in text and "RR" in text
    # A rerun replaces the file rather than appending to it.
    score_researcharena_files(tmp_path / "q.trec", tmp_path / "r.trec", out)
    assert len(out.read_text().splitlines()) == 3 * len(DEFAULT_MEASURES)


@pytest.mark.parametrize("run_name", GOLDEN_RUNS)
def test_score_researcharena_files_golden_means(tmp_path, run_name):
    base = ("golden-inputs", "researcharena")
    summary = score_researcharena_files(shared_path(*base, "qrels.trec"),
                                        shared_path(*base, run_name), tmp_path / "s.jsonl")
    for measure, mean in summary["means"].items():
        assert mean == pytest.approx(TREC_EVAL_FULL[run_name]["all"][measure], abs=1e-9)
    assert summary["queries_scored"] == 2 and summary["queries_missing_from_run"] == 0


def test_score_researcharena_files_bad_input_names_the_line(tmp_path):
    (tmp_path / "q.trec").write_text("q1 0 a 1\n")
    (tmp_path / "r.trec").write_text("q1 Q0 a 1 high sys\n")
    from scholarbench.errors import DataError
    with pytest.raises(DataError, match=r"r\.trec, line 1, field 'score': not a number"):
        score_researcharena_files(tmp_path / "q.trec", tmp_path / "r.trec", tmp_path / "s.jsonl")
    assert not (tmp_path / "s.jsonl").exists()


def test_cli_score_researcharena_writes_query_measure_value_lines(tmp_path, capsys):
    import json as _json

    from scholarbench.cli import main
    from conftest import shared_path
    golden = shared_path("golden-inputs", "researcharena")
    out = tmp_path / "s.jsonl"
    assert main(["score", "researcharena", "--qrels", str(golden / "qrels.trec"), "--run",
                 str(golden / "run_perfect.trec"), "--out", str(out)]) == 0
    rows = [_json.loads(line) for line in out.read_text().splitlines()]
    assert all(set(r) == {"query_id", "measure", "value"} for r in rows)
    assert {r["value"] for r in rows if r["measure"] == "nDCG@10"} == {1.0}
    bad = tmp_path / "bad.trec"
    bad.write_text("q1 Q0 d1 1 high tag\n")
    assert main(["score", "researcharena", "--qrels", str(golden / "qrels.trec"), "--run",
                 str(bad), "--out", str(out)]) == 2
    assert "line 1" in capsys.readouterr().err


@pytest.mark.parametrize("measure, says", [
    ("P@9999999999999999999999", "its cutoff (after @) must be from 1 to 2147483647, got "
                                 "9999999999999999999999"),
    ("P@0", "its cutoff (after @) must be from 1 to 2147483647, got 0"),  # trec_eval exits
    ("AP(rel=0)", "its rel= must be from 1 to 2147483647, got 0")])
def test_a_measure_parameter_out_of_range_is_named_with_its_range(tmp_path, capsys, measure,
                                                                   says):
    from scholarbench.cli import main
    with pytest.raises(ValueError, match=re.escape(f"measure {measure!r}: {says}")):
        parse_measures([measure])
    (tmp_path / "q.trec").write_text("q1 0 a 1\n")
    (tmp_path / "r.trec").write_text("q1 Q0 a 1 1.0 sys\n")
    assert main(["score", "researcharena", "--qrels", str(tmp_path / "q.trec"), "--run",
                 str(tmp_path / "r.trec"), "--out", str(tmp_path / "s.jsonl"),
                 "--measures", measure]) == 2
    assert f"error: --measures: measure {measure!r}: {says}" in capsys.readouterr().err
