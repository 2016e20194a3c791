"""DeepSynth-Eval scores: hand-computed cases (edge fixture, the two golden judged tasks),
invariants on the four shared tasks, the `score deepsynth` file function."""
from __future__ import annotations

import json
import random
from dataclasses import replace
from fractions import Fraction as F
from pathlib import Path

import pytest

from conftest import shared_path
from scholarbench.benchmarks.deepsynth import (Group, Requirement, SubGroup, Task, aggregate,
                                               format_summary, load_tasks, metric_key, read_label,
                                               score_deepsynth_judged, score_group, score_task)
from scholarbench.metrics.names import MetricName

EDGE = Path(__file__).parent / "data" / "deepsynth" / "edge_judged.jsonl"
ROW_KEYS = ["task_id", "dse_overall", "dse_general", "dse_constraint", "n_correct",
            "n_incorrect", "n_not_mentioned", "n_unscored"]


def approx(x):
    return pytest.approx(float(x), abs=1e-12)


def _group(labels, clip=1.0, strict=False, weight=1.0, rewards=None):
    reqs = tuple(Requirement(f"r{i}", (rewards or [1.0] * len(labels))[i])
                 for i in range(len(labels)))
    return Group("g", strict, clip, weight, (SubGroup("s", reqs, tuple(labels)),))


def test_read_label():
    assert read_label("mentioned_correct") == "mentioned_correct"
    assert read_label(" Mentioned_Correct\n") == "mentioned_correct"
    assert read_label("NOT_MENTIONED") == "not_mentioned"
    for bad in ("mentioned correct", "correct", "", None, 1, ["mentioned_correct"]):
        assert read_label(bad) is None


def test_paper_threshold_example():
    # §3.5: N_k = 10 representative methods, θ_k = 8 (clip 0.8): covering 8 is full score
    c, n, x = "mentioned_correct", "not_mentioned", "mentioned_incorrect"
    assert score_group(_group([c] * 8 + [n] * 2, clip=0.8)).score == approx(1)
    assert score_group(_group([c] * 10, clip=0.8)).score == 1.0          # min(1, 10/8)
    assert score_group(_group([c] * 6 + [n] * 4, clip=0.8)).score == approx(F(6, 8))
    assert score_group(_group([c] * 4 + [x] * 2 + [n] * 4, clip=0.8)).score == approx(F(2, 8))
    # no lower clip: all wrong scores -1/clip
    assert score_group(_group([x] * 10, clip=0.8)).score == approx(F(-10, 8))


def test_empty_sub_group_and_empty_group_do_not_crash():
    empty = Group("g", False, 1.0, 1.0, (SubGroup("s", (), ()), SubGroup("t", (), None)))
    paper = score_group(empty)
    assert paper.score is None and paper.threshold == 0 and paper.n_empty_sub_groups == 2
    assert score_group(empty, "upstream").score == 0.0  # upstream itself raises here
    assert score_group(Group("g", False, 1.0, 1.0, ())).score is None
    task = score_task(Task(1, (empty,)))
    assert (task.dse_overall, task.dse_general, task.dse_constraint) == (None, None, None)


def test_unscored_items_leave_both_sums():
    # 3 scored (2 correct, 1 not mentioned) + 2 unscored: θ = 0.8 × 3, S = 2 → 2/2.4
    g = score_group(_group(["mentioned_correct", "MENTIONED_CORRECT", "not_mentioned",
                            "mentioned", None], clip=0.8))
    assert g.reward_get == 2 and g.threshold == approx(F(12, 5)) and g.score == approx(F(5, 6))
    assert (g.tally.unscored, dict(g.tally.reasons)) == (2, {"unknown_label": 1,
                                                             "unscored_by_judge": 1})


def test_edge_fixture_by_hand_paper():
    (a, b, c) = [score_task(t) for t in load_tasks(EDGE)]
    # task "a" (groups: name, weight, clip → scored items, S, θ, score):
    #  G0 general w2 clip1: [correct, Mentioned_Correct→correct, " not_mentioned "→nm, incorrect]
    #     + ["maybe", null] unscored + an empty sub-group: S = 2-1 = 1, θ = 1×4 → 1/4
    #  G1 general w1 clip.5: 2 labels for 3 requirements → all 3 unscored → no score
    #  G2 strict w1 clip.8: 5 correct + 2 not judged (unscored): S = 5, θ = 4 → min(1, 5/4) = 1
    #  G3 strict w3 clip.5: [incorrect (reward 2), correct (reward 1)]; paper r = ±1: S = 0 → 0
    #  G4 general w1 clip1: [incorrect, MENTIONED_INCORRECT]: S = -2, θ = 2 → -1
    assert [g.score for g in a.groups] == [approx(F(1, 4)), None, 1.0, 0.0, approx(-1)]
    assert a.dse_general == approx((2 * F(1, 4) + 1 * -1) / (2 + 1))        # -1/6
    assert a.dse_constraint == approx((1 * 1 + 3 * 0) / F(1 + 3))           # 1/4
    assert a.dse_overall == approx((2 * F(1, 4) + 1 + 0 - 1) / (2 + 1 + 3 + 1))  # 1/14
    assert (a.tally.correct, a.tally.incorrect, a.tally.not_mentioned, a.tally.unscored) == \
        (2 + 5 + 1, 1 + 1 + 2, 1, 2 + 3 + 2)
    assert dict(a.tally.reasons) == {"unknown_label": 1, "unscored_by_judge": 1,
                                     "length_mismatch": 3, "not_judged": 2}
    # "b": empty checklist; 3: an empty sub-group and a group without sub-groups
    for t in (b, c):
        assert (t.dse_overall, t.dse_general, t.dse_constraint) == (None, None, None)
    summary = aggregate([a, b, c])
    assert summary["means"] == {"dse_overall": approx(F(1, 14)),
                                "dse_general": approx(F(-1, 6)),
                                "dse_constraint": approx(F(1, 4)),
                                "dse_precision": approx(F(8, 12))}
    assert summary["n_undefined"] == {"dse_overall": 2, "dse_general": 2, "dse_constraint": 2}
    assert summary["undefined_ids"]["dse_overall"] == ["b", 3]
    assert (summary["n_groups"], summary["n_groups_undefined"], summary["n_empty_sub_groups"]) \
        == (7, 3, 2)


def test_edge_fixture_by_hand_upstream():
    (a, b, c) = [score_task(t, "upstream") for t in load_tasks(EDGE)]
    # upstream score.py: exact-case labels, ±reward, unknown labels count in θ, zip pairing:
    #  G0: correct +1, "Mentioned_Correct" 0, " not_mentioned " 0, incorrect -1, "maybe" 0,
    #      null 0: get 0, θ = 6 → 0 (the empty sub-group crashes upstream; here it adds nothing)
    #  G1: zip pairs 2 of 3: get 2, θ = 0.5×2 = 1 → min(2, 1) = 1
    #  G2: 5 correct; the sub-group without eval_result adds its 2 rewards to θ:
    #      5 / (0.8×7) = 25/28
    #  G3: -2 + 1 = -1, θ = 0.5×3 → -2/3
    #  G4: incorrect -1, "MENTIONED_INCORRECT" 0: -1/2
    assert [g.score for g in a.groups] == [0.0, 1.0, approx(F(25, 28)), approx(F(-2, 3)),
                                           approx(F(-1, 2))]
    assert a.dse_general == approx((2 * 0 + 1 + F(-1, 2)) / 4)                   # 1/8
    assert a.dse_constraint == approx((F(25, 28) + 3 * F(-2, 3)) / 4)            # -31/112
    assert a.dse_overall == approx((0 + 1 + F(25, 28) - 2 - F(1, 2)) / 8)        # -17/224
    assert (a.tally.correct, a.tally.incorrect, a.tally.not_mentioned, a.tally.unscored) == \
        (9, 3, 0, 8)
    # upstream: a task without groups scores 0 Overall (and counts); no general groups → left out
    assert (b.dse_overall, b.dse_general, b.dse_constraint) == (0.0, None, None)
    assert (c.dse_overall, c.dse_general, c.dse_constraint) == (0.0, 0.0, None)
    summary = aggregate([a, b, c], "upstream")
    assert summary["means"] == {"dse_overall(upstream=1)": approx(F(-17, 224) / 3),
                                "dse_general(upstream=1)": approx(F(1, 8) / 2),
                                "dse_constraint(upstream=1)": approx(F(-31, 112)),
                                "dse_precision(upstream=1)": approx(F(9, 12))}


# The golden judged file (2 tasks, the shared tasks 0 and 1 with synthetic labels). Per group:
# (sub-group label strings, C = correct, X = incorrect, . = not mentioned).
def test_golden_task1_by_hand():
    tasks = load_tasks(shared_path("golden-inputs", "deepsynth", "judged_tasks.jsonl"))
    task = next(t for t in tasks if t.task_id == 1)
    s = score_task(task)
    # general, clip 1, θ = N_k:
    #  G0  C.X .XCC XCC CC.        N 13, C 7, X 3 → S 4  → 4/13
    #  G1  .XC XCC CC.X C.X .XC    N 16, C 7, X 5 → S 2  → 2/16
    #  G2  XCC. CC C.X .XCC        N 13, C 7, X 3 → S 4  → 4/13
    #  G3  CC.XC C.X .XCC XCC CC.  N 18, C 10, X 4 → S 6 → 6/18
    #  G4  C. .X XC CC C.          N 10, C 5, X 2 → S 3  → 3/10
    # strict, clip 0.8:
    #  G5  CC CC                   N 4, C 4 → 4/3.2 = 1.25 → 1
    #  G6  CCC ... ...             N 9, C 3 → 3/7.2 = 5/12
    general = [F(4, 13), F(2, 16), F(4, 13), F(6, 18), F(3, 10)]
    constraint = [F(1), F(5, 12)]
    assert [g.score for g in s.groups] == [approx(x) for x in general + constraint]
    assert s.dse_general == approx(sum(general) / 5)                   # 2143/7800 = 0.274744
    assert s.dse_constraint == approx(sum(constraint) / 2)             # 17/24 = 0.708333
    assert s.dse_overall == approx((sum(general) + sum(constraint)) / 7)  # 4353/10920 = 0.398626
    assert sum(general) / 5 == F(2143, 7800) and (sum(general) + sum(constraint)) / 7 == \
        F(4353, 10920)
    # C 7+7+7+10+5+4+3 = 43, X 3+5+3+4+2 = 17, not mentioned 83-43-17 = 23
    assert s.row() == {"task_id": 1, "dse_overall": approx(F(4353, 10920)),
                       "dse_general": approx(F(2143, 7800)), "dse_constraint": approx(F(17, 24)),
                       "n_correct": 43, "n_incorrect": 17, "n_not_mentioned": 23,
                       "n_unscored": 0}
    # every label is exact lower case: upstream's rules give the same numbers
    assert score_task(task, "upstream").dse_overall == s.dse_overall


def test_golden_task0_by_hand():
    tasks = load_tasks(shared_path("golden-inputs", "deepsynth", "judged_tasks.jsonl"))
    task = next(t for t in tasks if t.task_id == 0)
    # general, clip 1 (M = the label "Mentioned_Correct", a correct under the paper's rules):
    #  G0  MX.. C... C.. C.. C.          N 16, C 5, X 1 → 4/16
    #  G1  CX. C.. C.. C. C.             N 13, C 5, X 1 → 4/13
    #  G2  CX.. C... C.. C..             N 14, C 4, X 1 → 3/14
    #  G3  CX. C.. C.. C.                N 11, C 4, X 1 → 3/11
    #  G4  CX. C.. C.. C.. C..           N 15, C 5, X 1 → 4/15
    #  G5  CX. C.. C.. C..               N 12, C 4, X 1 → 3/12
    #  G6  CX. C.. C.. C..               N 12, C 4, X 1 → 3/12
    # strict, clip 0.8 (θ = 0.8 N):
    #  G7  31 sub-groups, C in every 3rd  N 135, C 11 → 11/108
    #  G8  30 one-item sub-groups          N 30, C 10 → 10/24
    #  G9  C.... .....                     N 10, C 1 → 1/8
    #  G10 C...                            N 4, C 1 → 1/3.2 = 5/16
    #  G11 C . ..                          N 4, C 1 → 5/16
    general = [F(4, 16), F(4, 13), F(3, 14), F(3, 11), F(4, 15), F(3, 12), F(3, 12)]
    constraint = [F(11, 108), F(10, 24), F(1, 8), F(5, 16), F(5, 16)]
    s = score_task(task)
    assert [g.score for g in s.groups] == [approx(x) for x in general + constraint]
    assert s.dse_general == approx(sum(general) / 7)                       # 0.258767
    assert s.dse_constraint == approx(sum(constraint) / 5)                 # 0.253704
    assert s.dse_overall == approx((sum(general) + sum(constraint)) / 12)  # 0.256658
    # C 5+5+4+4+5+4+4+11+10+1+1+1 = 55, X 7, not mentioned 276-55-7 = 214
    assert (s.tally.correct, s.tally.incorrect, s.tally.not_mentioned, s.tally.unscored) == \
        (55, 7, 214, 0)
    # upstream: "Mentioned_Correct" adds 0 and stays in θ: G0 = 3/16; it is counted nowhere
    up = score_task(task, "upstream")
    up_general = [F(3, 16)] + general[1:]
    assert up.dse_general == approx(sum(up_general) / 7)                   # 0.249839
    assert up.dse_overall == approx((sum(up_general) + sum(constraint)) / 12)  # 0.251449
    assert (up.tally.correct, up.tally.unscored) == (54, 1)


def test_golden_file_summary(tmp_path):
    golden = shared_path("golden-inputs", "deepsynth", "judged_tasks.jsonl")
    out = tmp_path / "scores.jsonl"
    summary = score_deepsynth_judged(golden, out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [list(r) for r in rows] == [ROW_KEYS, ROW_KEYS]
    assert [r["task_id"] for r in rows] == [0, 1]
    t0 = (F(4, 16) + F(4, 13) + F(3, 14) + F(3, 11) + F(4, 15) + F(3, 12) + F(3, 12)
          + F(11, 108) + F(10, 24) + F(1, 8) + F(5, 16) + F(5, 16)) / 12
    t1 = F(4353, 10920)
    assert summary["means"]["dse_overall"] == approx((t0 + t1) / 2)        # 0.327642
    # precision, micro: (55 + 43) / (55 + 43 + 7 + 17) = 98/122
    assert summary["means"]["dse_precision"] == approx(F(98, 122))
    assert (summary["n_correct"], summary["n_incorrect"], summary["n_not_mentioned"],
            summary["n_unscored"], summary["n_requirements"]) == (98, 24, 237, 0, 359)
    text = format_summary(summary)
    assert "dse_overall" in text and "32.76%" in text and "80.33%" in text
    # a rerun rewrites the file whole
    score_deepsynth_judged(golden, out)
    assert len(out.read_text().splitlines()) == 2


@pytest.fixture(scope="module")
def shared_tasks():
    return load_tasks(shared_path("data", "deepsynth", "example_gen_result.jsonl"))


def _labelled(task, pick):
    groups = []
    for gi, g in enumerate(task.checklist):
        subs = tuple(replace(s, eval_result=tuple(pick(gi, si, ri)
                                                  for ri in range(len(s.requirements))))
                     for si, s in enumerate(g.sub_groups))
        groups.append(replace(g, sub_groups=subs))
    return replace(task, checklist=tuple(groups))


def test_shared_tasks_unjudged_are_unscored_not_zero(shared_tasks, tmp_path):
    summary = score_deepsynth_judged(shared_path("data", "deepsynth", "example_gen_result.jsonl"),
                                     tmp_path / "s.jsonl")
    assert summary["n_unscored"] == 806 and summary["unscored_reasons"] == {"not_judged": 806}
    assert summary["means"]["dse_overall"] is None
    assert summary["n_undefined"]["dse_overall"] == 4
    rows = [json.loads(x) for x in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert [r["n_unscored"] for r in rows] == [276, 83, 213, 234]


def test_shared_tasks_identity_and_extremes(shared_tasks):
    for task in shared_tasks:
        k, m = len(task.general_groups), len(task.constraint_groups)
        perfect = score_task(_labelled(task, lambda *_: "mentioned_correct"))
        assert (perfect.dse_overall, perfect.dse_general, perfect.dse_constraint) == (1, 1, 1)
        absent = score_task(_labelled(task, lambda *_: "not_mentioned"))
        assert (absent.dse_overall, absent.dse_general, absent.dse_constraint) == (0, 0, 0)
        wrong = score_task(_labelled(task, lambda *_: "mentioned_incorrect"))
        # general: -N/N = -1; strict: -N/(0.8 N) = -1.25
        assert wrong.dse_general == approx(-1) and wrong.dse_constraint == approx(F(-5, 4))
        assert wrong.dse_overall == approx((k * -1 + m * F(-5, 4)) / (k + m))
        assert aggregate([wrong])["means"]["dse_precision"] == 0.0


def test_invariants_on_random_labels(shared_tasks):
    rng = random.Random(5)
    labels = ["mentioned_correct", "not_mentioned", "mentioned_incorrect"]
    judged = [_labelled(t, lambda *_: rng.choice(labels)) for t in shared_tasks]
    scores = [score_task(t) for t in judged]
    for t, s in zip(judged, scores):
        tally = s.tally
        assert tally.correct + tally.incorrect + tally.not_mentioned + tally.unscored == \
            t.n_requirements
        for g in s.groups:
            assert -1 / g.clip_factor - 1e-12 <= g.score <= 1
        # clean data (exact labels, rewards 1, no empty sub-groups): both variants agree
        up = score_task(t, "upstream")
        assert (up.dse_overall, up.dse_general, up.dse_constraint) == \
            (approx(s.dse_overall), approx(s.dse_general), approx(s.dse_constraint))
        # group order does not matter
        shuffled = list(t.checklist)
        rng.shuffle(shuffled)
        again = score_task(replace(t, checklist=tuple(shuffled)))
        assert again.dse_overall == approx(s.dse_overall)
    means = aggregate(scores)["means"]
    assert aggregate(scores[::-1])["means"] == {k: approx(v) for k, v in means.items()}


def test_metric_keys_parse_back():
    assert metric_key("dse_overall") == "dse_overall"
    key = metric_key("dse_overall", "upstream")
    assert key == "dse_overall(upstream=1)"
    assert str(MetricName.parse(key, defaults={"upstream": 0.0})) == key
    with pytest.raises(ValueError):
        metric_key("dse_overall", "legacy")
    with pytest.raises(ValueError):
        score_task(Task(1, ()), "legacy")  # type: ignore[arg-type]
