"""Synthetic run directories in the runs' own format (manifest.json + scores.jsonl), one per
benchmark, with the real score rows' shapes: TaxoBench's 15 tree measures, ResearchArena's
ranking measures, DeepSynth-Eval's checklist scores with a two-judge panel (per-judge entries and
counts: its pooled precision), ReportBench's reference and statement counts (its pooled micro
measures), SciNet pair tasks with hits and distinct-paper counts (its micro averages).

`scholarbench aggregate RUN` writes the summary of such a run; `aggregate --check` then accepts
it. Values are random but seeded, so a run of n rows is the same every time.

`varied=True` (`vary`) adds what a real run's rows can hold and the plain rows lack: every
status word with its reason, undefined (null) values, integers among a measure's floats,
samples flagged `suspected_injection` / `suspected_leak`, reference counts, and judge panels of
three judges (one of them missing on some rows) with two repeats each (DeepSynth-Eval,
ReportBench's statement rates, TaxoBench's judge) — the runs tests/data/runs-columns holds.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Callable

from scholarbench.core.records import RUN_FORMAT

Row = dict[str, Any]
TAXO_FLOATS = ("recall", "precision", "f1", "ari", "homogeneity", "completeness", "v_measure",
               "ari_cap", "v_measure_cap", "us_ted", "us_nted", "sem_path", "nsr", "nsp",
               "soft_f1")
ARENA = ("R@10", "R@100", "P@10", "P@100", "nDCG@10", "nDCG@30", "nDCG@100", "RR", "AP")
DSE = ("dse_overall", "dse_general", "dse_constraint")
JUDGES = ("judge-a", "judge-b")


def _status(rng: random.Random) -> str:
    return "error" if rng.random() < 0.01 else "scored"


def taxobench(i: int, rng: random.Random) -> Row:
    n_gold = rng.randint(5, 40)
    return {"id": str(i), "n_gold": n_gold, "n_pred": rng.randint(3, 40),
            "n_aligned": rng.randint(0, n_gold),
            **{k: rng.random() * (5 if k == "us_ted" else 1) for k in TAXO_FLOATS},
            "missing": False, "malformed": False, "status": _status(rng), "n_refs": 0,
            "unresolved": 0}


def researcharena(i: int, rng: random.Random) -> Row:
    return {"id": str(i), **{k: rng.random() for k in ARENA}, "status": _status(rng)}


def deepsynth(i: int, rng: random.Random) -> Row:
    judges = {}
    for label in JUDGES:
        entry: Row = {}
        for key in DSE:
            # a checklist score: few distinct values (Krippendorff's alpha over the panel
            # holds a values × values matrix per task: continuous scores would not fit)
            entry.update({key: rng.randint(0, 8) / 8, f"{key}_unscored": 0})
        entry.update(n_correct=rng.randint(0, 12), n_incorrect=rng.randint(0, 6))
        judges[label] = entry
    row: Row = {"task_id": f"t{i}", "status": _status(rng)}
    for key in DSE:
        row[key] = sum(j[key] for j in judges.values()) / len(judges)
    row.update(n_correct=sum(j["n_correct"] for j in judges.values()),
               n_incorrect=sum(j["n_incorrect"] for j in judges.values()),
               n_not_mentioned=rng.randint(0, 5), n_unscored=0, n_groups=rng.randint(2, 6),
               n_groups_undefined=0, n_empty_sub_groups=0, unscored_reasons={},
               judges=judges)
    return row


def reportbench(i: int, rng: random.Random) -> Row:
    count, n_gt = rng.randint(0, 60), rng.randint(1, 80)
    matched, gt_matched = rng.randint(0, count), rng.randint(0, n_gt)
    row: Row = {"id": str(i), "arxiv_id": f"2401.{i:05d}", "status": _status(rng), "n_gt": n_gt,
                "ref_precision": matched / count if count else 0.0,
                "ref_recall": gt_matched / n_gt, "ref_count": count, "n_matched": matched,
                "n_gt_matched": gt_matched}
    if rng.random() < 0.1:
        return {**row, "statements": "not judged (no report)"}
    checked, unreachable = rng.randint(0, 20), rng.randint(0, 4)
    correct, incorrect, tie = rng.randint(0, 15), rng.randint(0, 5), rng.randint(0, 2)
    matched_st = rng.randint(0, checked)
    return {**row, "statements": "judged", "n_cited_matched": matched_st,
            "n_cited_checked": checked, "n_cited_unreachable": unreachable,
            "n_noncited_correct": correct, "n_noncited_incorrect": incorrect,
            "n_noncited_tie": tie,
            "cited_match_rate": _rate(matched_st, checked + unreachable),
            "cited_match_rate_checkable": _rate(matched_st, checked),
            "noncited_accuracy": _rate(correct, correct + incorrect),
            "noncited_accuracy_upstream": _rate(correct, correct + incorrect + tie)}


def scinet_pair(i: int, rng: random.Random) -> Row:
    kind = "pncites" if i % 2 else "cooccur"
    distinct = rng.randint(0, 50)
    row: Row = {"task_id": f"t{i}", "family": "pair", "kind": kind, "returned": distinct,
                "considered": distinct, "distinct": distinct, "in_graph": distinct,
                "not_in_graph": 0, "empty": distinct == 0, "missing_answer": False,
                "status": _status(rng)}
    first, second = (("cite_acc", "cite_sentiment") if kind == "pncites"
                     else ("comention_acc", "comention_paragraph"))
    for key in (first, second):
        hits = rng.randint(0, distinct)
        row[key] = _rate(hits, distinct) or 0.0
        row[f"{key}_hits"] = hits
    return row


def _rate(num: int, den: int) -> float | None:
    return num / den if den else None


STATUSES = ("scored",) * 14 + ("error", "unscorable", "missing", "malformed", "unscored",
                                "oversized")
PANEL = ("judge-a", "judge-b", "judge-c")


def _panel(rng: random.Random, keys: tuple[str, ...], value: Callable[[], Any]) -> Row:
    """Three judges' entries (the third missing on a fifth of the rows), two repeats each."""
    out: Row = {}
    for label in PANEL:
        if label == PANEL[-1] and rng.random() < 0.2:
            continue
        entry: Row = {}
        for key in keys:
            repeats = [None if rng.random() < 0.1 else value() for _ in range(2)]
            done = [v for v in repeats if v is not None]
            entry.update({key: sum(done) / len(done) if done else None,
                          f"{key}_unscored": len(repeats) - len(done),
                          f"{key}_samples": repeats})
        out[label] = entry
    return out


def vary(name: str, row: Row, rng: random.Random) -> Row:
    """`row` with what real rows also hold (module docstring)."""
    status = rng.choice(STATUSES + (("no_references",) if name == "reportbench" else ()))
    row["status"] = status
    if status not in ("scored", "no_references"):
        failed = f"task '{rng.randint(0, 9)}' failed: code {rng.randint(1, 99)}"
        row["reason"] = rng.choice(("the agent timed out after 30 s", "no answer", failed))
    for key, value in list(row.items()):
        if isinstance(value, float) and rng.random() < 0.05:
            row[key] = None                               # undefined here
        elif isinstance(value, float) and rng.random() < 0.03 and 0 <= value <= 1:
            row[key] = round(value)                       # an integer among floats
    if rng.random() < 0.03:
        row["suspected_injection"] = ["ignore-previous"]
    if rng.random() < 0.03:
        row["suspected_leak"] = {"papers": rng.randint(1, 3)}
    if name in ("taxobench", "reportbench"):
        refs = rng.randint(0, 30)
        row.update(n_refs=refs, unresolved=rng.randint(0, refs))
    if name == "deepsynth":
        judges = _panel(rng, DSE, lambda: rng.randint(-2, 8) / 8)
        for entry in judges.values():
            entry.update(n_correct=rng.randint(0, 12), n_incorrect=rng.randint(0, 6))
        row["judges"] = judges
    elif name == "reportbench" and row.get("statements") == "judged":
        row["judges"] = _panel(rng, ("cited_match_rate", "noncited_accuracy"), rng.random)
    elif name == "taxobench":
        for key in TAXO_JUDGE:
            row[key] = rng.randint(1, 5) if rng.random() < 0.9 else None
        row["judges"] = _panel(rng, TAXO_JUDGE, lambda: float(rng.randint(1, 5)))
    return row


TAXO_JUDGE = ("judge_coverage", "judge_organization", "judge_logic", "judge_topology",
              "judge_avg")


Factory = Callable[[int, random.Random], Row]
# name: (benchmark, sub-task, the manifest's options, the row factory)
BENCHMARKS: dict[str, tuple[str, str | None, dict[str, Any], Factory]] = {
    "taxobench": ("taxobench", "bottom-up", {"gold": None, "corpus": None, "with_judge": False},
                  taxobench),
    "researcharena": ("researcharena", "discovery", {}, researcharena),
    "deepsynth": ("deepsynth", None, {"variant": "paper"}, deepsynth),
    "reportbench": ("reportbench", "shipped", {}, reportbench),
    "scinet-pair": ("scinet", "pair", {"variant": "paper"}, scinet_pair),
}


def write_run(run_dir: Path, name: str, n: int, seed: int = 0, varied: bool = False) -> None:
    """manifest.json and scores.jsonl of a synthetic run of `name` with `n` rows (`varied`:
    with what real rows also hold, `vary`)."""
    benchmark, mode, options, factory = BENCHMARKS[name]
    run_dir.mkdir(parents=True, exist_ok=True)
    manifest = {"format": RUN_FORMAT, "benchmark": benchmark, "mode": mode,
                "agent": "synthetic", "run_name": f"{name}-{n}", "n_samples": n,
                "options": options}
    (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=2))
    rng = random.Random(seed)
    with (run_dir / "scores.jsonl").open("w") as fh:
        for i in range(n):
            row = factory(i, rng)
            fh.write(json.dumps(vary(name, row, rng) if varied else row) + "\n")
