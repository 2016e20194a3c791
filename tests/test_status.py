"""One status per sample in every output (core.status): the rule, the counts with each column's
top reason, the eval table's columns, and the eval entry of a sub-task that cannot be scored."""
from __future__ import annotations

import json
from pathlib import Path

from scholarbench.core.eval_defaults import EvalDefaults
from scholarbench.core.status import COLUMNS, count_samples, run_counts, sample_status
from scholarbench.core.suite import format_table, run_entry


def test_the_agents_answer_decides_first():
    # the scorer scored an unparsable answer as an empty one ("missing"): it is malformed
    assert sample_status({"status": "missing", "missing": True},
                         {"status": "malformed", "error": "field taxonomy: Field required"}) \
        == "malformed"
    assert sample_status({"status": "missing"}, {"status": "malformed", "missing": True}) \
        == "missing"
    assert sample_status({"status": "scored"}, {"status": "error"}) == "error"
    assert sample_status({"status": "malformed"}, {"status": "oversized"}) == "oversized"
    assert sample_status({"status": "scored", "unscorable": "no_mindmap"}) == "unscorable"
    assert sample_status({"status": "unscored"}, {}) == "unscored"
    assert sample_status({"status": "no_references"}, {}) == "scored"
    assert sample_status({}, None) == "scored"


def test_counts_name_the_top_reason_of_each_column():
    rows = [{"id": "1", "status": "missing"}, {"id": "2", "status": "missing"},
            {"id": "3", "status": "scored"}, {"id": "4", "status": "no_references"},
            {"id": "5", "status": "scored", "unscorable": "no_mindmap"},
            {"id": "6", "status": "unscored"}]
    generated = {"1": {"status": "malformed", "error": "no prediction for id '1' in a.jsonl"},
                 "2": {"status": "malformed", "error": "no prediction for id '2' in a.jsonl"}}
    summary = {"n_unresolved": 3, "n_unscored": 437, "unscored_reasons": {"invalid_json": 437}}
    c = count_samples(rows, generated, summary=summary)
    assert c.n_samples == 6 and sum(v for k, v in c.counts.items() if k != "unresolved") == 6
    assert c.counts == {"scored": 2, "missing": 0, "malformed": 2, "oversized": 0,
                        "unresolved": 3, "unscored": 1, "unscorable": 1, "error": 0}
    # the first sample's own reason (issue 35: no template), and how many more share its form
    assert c.reasons["malformed"] == "2× no prediction for id '1' in a.jsonl (1 more like it)"
    assert c.reasons["scored"] == "1× no references in the answer"
    assert c.reasons["unscorable"] == "1× no_mindmap"
    assert c.reasons["unscored"] == "437 judge item(s) unscored, 437× invalid_json"
    assert c.status_dict() == {"scored": 2, "malformed": 2, "unscored": 1, "unscorable": 1}
    # unscored judge items explain themselves even when every sample kept a score
    judge_only = count_samples([{"id": "1", "status": "scored"}], {},
                               summary={"judge": {"unscored_reasons": {"invalid_json": 4}}})
    assert judge_only.reasons["unscored"] == "4 judge item(s) unscored, 4× invalid_json"
    assert count_samples([], {}).counts["unresolved"] is None      # the run has no resolver


def _entry(**counts) -> dict:
    base = {c: 0 for c in COLUMNS}
    base.update(counts)
    return {"benchmark": "deepsynth", "subtask": "report", "status": "complete", "samples": 2,
            "counts": base,
            "reasons": {"unscored": "437 judge item(s) unscored, 437× invalid_json"},
            "headline": {"dse_overall": None}}


def test_the_eval_table_has_every_column_and_the_reasons():
    text = format_table([_entry(unscored=2, unresolved=None)])
    head = text.splitlines()[0].split()
    assert head[:4] == ["benchmark", "sub-task", "status", "n"]
    assert head[4:12] == ["scored", "miss", "malf", "over", "unres", "unsc", "unsb", "err"]
    row = text.splitlines()[2].split()
    assert row[4:12] == ["0", "0", "0", "0", "—", "2", "0", "0"]
    assert "unscored (judge): 437 judge item(s) unscored, 437× invalid_json" in text
    assert "unsc = unscored (judge)" in text


class _Arena:
    name = "researcharena"
    headline = {"organisation": ("heading_soft_recall",)}

    def eval_defaults(self) -> EvalDefaults:
        return EvalDefaults(("organisation",), hint=lambda subtask: "import TaxoBench instances")

    def measures(self, subtask: str) -> tuple:
        return ()


def _write_run(run: Path, rows: list[dict], generated: list[dict], summary: dict) -> None:
    run.mkdir(parents=True)
    (run / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "generate.jsonl").write_text("".join(json.dumps(r) + "\n" for r in generated))
    (run / "summary.json").write_text(json.dumps(summary))


def test_a_sub_task_with_no_scorable_sample_is_skipped_with_how_to_enable_it(tmp_path):
    run = tmp_path / "researcharena-organisation"
    _write_run(run, [{"id": "a", "status": "unscorable", "unscorable": "no_mindmap"},
                     {"id": "b", "status": "unscorable", "unscorable": "no_mindmap"}], [],
               {"benchmark": "researcharena", "metrics": {}, "status": {"unscorable": 2}})
    entry = run_entry(_Arena(), "organisation", run)  # type: ignore[arg-type]
    assert entry["status"] == "skipped"
    assert entry["reason"] == ("every sample unscorable (2× no_mindmap); import TaxoBench "
                               "instances")
    table = format_table([{"benchmark": "researcharena", "subtask": "organisation", **entry}])
    assert "skipped" in table and "import TaxoBench instances" in table


def test_run_counts_reads_the_benchmarks_own_files(tmp_path):
    run = tmp_path / "deepsynth-report"
    _write_run(run, [{"task_id": 7, "status": "scored"}, {"task_id": 8, "status": "missing"}],
               [{"task_id": 8, "status": "malformed", "error": "report: not a string"}],
               {"benchmark": "deepsynth"})
    counts = run_counts(run)
    assert counts.counts["malformed"] == 1 and counts.counts["scored"] == 1
    assert counts.reasons["malformed"] == "1× report: not a string (sample 8)"   # issue 35: names it
