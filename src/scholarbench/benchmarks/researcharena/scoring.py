"""Scoring a ResearchArena run: one scores.jsonl row per selected task, never skipped; the
summary; the terminal lines.

Discovery and selection:

- The list order is the ranking. The run's score for rank i of n is n - i + 1 (the agent's own
  scores are kept in generate.jsonl), so trec_eval's tie-breaking (docid descending) never
  reorders an agent's list, and run.trec scored by trec_eval gives the same numbers.
- A paper_id repeated in one list keeps its first rank; the repeats are counted per sample
  (`duplicates_dropped`).
- Measures: all of `R@10 R@100 P@10 P@100 nDCG@10 nDCG@30 nDCG@100 RR AP` for both tasks (the
  same ranked list answers both), plus any `--measures` asked for; the summary marks the
  paper's measures for the task (discovery: Recall and Precision at 10 and 100, §5;
  selection: nDCG@10/30/100 and MRR).
- A missing output (no line, or the agent returned nothing) is an empty ranking: 0 on every
  measure, counted (`n_missing`). A malformed one (an entry that is not [id without spaces,
  finite number], or a family answer that does not fit) is also scored as empty and counted
  (`n_malformed`).
- An `error` sample (the agent raised, or its model failed) is not a result: its row has null
  measures, it is left out of the means, of qrels.trec and of run.trec, and counted
  (`n_error`); the run is incomplete until a resumed run redoes it.
- A task with no gold (empty qrels) is unscorable: the agent is not run on it, its row has
  null measures and `unscorable: "empty_gold"`; it is excluded from the means and counted
  beside them (and listed in `unscorable_ids`).

The leakage audit (docs/leakage.md, `leakage.suspected_leak`) flags a row whose ranking holds
the survey itself, a paper not before the cut-off or another survey (`suspected_leak`); the
scores are unchanged.

Organisation (`mindmaps`): the mind-map is scored with `measures.organisation.organisation_scores`
against the task's ground-truth mind-map (an upstream typology, else a TaxoBench tree). A task
without one is unscorable (`unscorable: "no_mindmap"`; the agent is not run on it), counted and
listed. A missing or malformed mind-map is scored as an empty one (HSR 0, HER 0, TSD = gold
size), counted.

Row statuses (the engine's words): `scored`, `missing`, `malformed`, `unscorable`, `error`.

Every row also carries its task's `reference_counts` and, when the answer says, its
`references_answered` (`sample_fields`), so that `summary_fields` reads the rows and the
manifest only: `scholarbench aggregate RUN` rebuilds the summary with no tasks file or data.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from scholarbench.benchmarks.researcharena.answers import parse_ranking
from scholarbench.benchmarks.researcharena.leakage import leak_findings
from scholarbench.benchmarks.researcharena.measures.declared import ORGANISATION_KEYS, measures_of
from scholarbench.benchmarks.researcharena.measures.organisation import (HEADING_ENTITY_RECALL,
                                                                       her_note)
from scholarbench.benchmarks.researcharena.measures.ranking import (DEFAULT_MEASURES,
                                                                    DISCOVERY_MEASURES,
                                                                    SELECTION_MEASURES, evaluate)
from scholarbench.benchmarks.researcharena.records import EMPTY_GOLD, ArenaTask
from scholarbench.benchmarks.researcharena.tasks import reference_counts, sum_counts
from scholarbench.core.measure import NOT_COUNTED
from scholarbench.core.status import sample_status
from scholarbench.core.summary_metrics import measure_entry
from scholarbench.data.trec import Run, write_qrels, write_run

TASKS_FILE, QRELS, GENERATE, RUN, SCORES, SUMMARY = (
    "tasks.jsonl", "qrels.trec", "generate.jsonl", "run.trec", "scores.jsonl", "summary.json")
PRIMARY = {"discovery": DISCOVERY_MEASURES, "selection": SELECTION_MEASURES,
           "organisation": ORGANISATION_KEYS}


def measure_names(extra: Sequence[str] = ()) -> list[str]:
    """The paper's nine measures, then the extra ones asked for (each once)."""
    return list(dict.fromkeys([*DEFAULT_MEASURES, *extra]))


def _outcome(rec: dict[str, Any] | None, key: str) -> tuple[str, str | None]:
    """(missing | malformed | error | ok, error text) of one generate.jsonl record."""
    if rec is None:
        return "missing", "no output for this sample"
    status = rec.get("status", "ok")
    if status == "error":
        return "error", rec.get("error")
    if rec.get("missing") or (status == "ok" and rec.get(key) is None):
        return "missing", rec.get("error") or f"the agent returned no {key}"
    if status != "ok":
        return "malformed", rec.get("error")
    return "ok", rec.get("error")


def answer_row(task: ArenaTask, rec: dict[str, Any] | None, key: str, unscorable: str | None
               ) -> tuple[dict[str, Any], str]:
    """A row's answer fields (`missing`, `malformed`, `error`) and the answer's outcome."""
    outcome, error = _outcome(rec, key)
    if unscorable is not None and rec is None:
        outcome, error = "ok", None            # not run: unscorable, not missing
    row: dict[str, Any] = {"id": task.id, "missing": outcome == "missing",
                           "malformed": outcome == "malformed", "error": error}
    return row, outcome


def row_status(row: dict[str, Any], outcome: str) -> str:
    if row.get("unscorable"):
        return "unscorable"
    return {"ok": "scored"}.get(outcome, outcome)


def score_ranking(tasks: Sequence[ArenaTask], records: dict[str, dict[str, Any]], out: Path,
                  variant: str, measures: Sequence[str], tag: str, corpus: Any = None
                  ) -> list[dict[str, Any]]:
    """Rows for discovery / selection; rewrites qrels.trec and run.trec in `out`. With
    `corpus`, the leakage audit reads the ranked papers' corpus rows (`leakage`)."""
    qrels = {t.id: t.qrels(variant) for t in tasks}
    rows: dict[str, dict[str, Any]] = {}
    outcomes: dict[str, str] = {}
    run_scores: dict[str, dict[str, float]] = {}
    for task in tasks:
        rec = records.get(task.id)
        unscorable = EMPTY_GOLD if not qrels[task.id] else None
        row, outcome = answer_row(task, rec, "ranking", unscorable)
        ids: list[str] = []
        if outcome == "ok" and rec is not None:
            parsed, dropped, problem = parse_ranking(rec["ranking"])
            if parsed is None:
                row.update(malformed=True, error=problem)
                outcome = "malformed"
            else:
                ids = parsed
                row["duplicates_dropped"] = dropped
                info = rec.get("info") if isinstance(rec.get("info"), dict) else {}
                examples = info.get("unresolved_examples")
                row.update(leak_findings(task, ids, corpus,            # docs/leakage.md;
                                         examples if isinstance(examples, list) else ()
                                         ).row())                    # no score changes
        row["n_retrieved"] = len(ids)
        row["n_gold"] = len(qrels[task.id])
        if ids and outcome != "error":
            run_scores[task.id] = {pid: float(len(ids) - i) for i, pid in enumerate(ids)}
        if unscorable:
            row["unscorable"] = unscorable
        rows[task.id], outcomes[task.id] = row, outcome
    scorable = {q: docs for q, docs in qrels.items() if docs and outcomes[q] != "error"}
    values: dict[tuple[str, str], float] = {}
    if scorable:
        for r in evaluate(scorable, {q: d for q, d in run_scores.items() if q in scorable},
                          measures):
            values[(r.query_id, r.measure)] = r.value
    for task in tasks:
        row = rows[task.id]
        for name in measures:
            row[name] = values.get((task.id, name)) if task.id in scorable else None
        row["status"] = row_status(row, outcomes[task.id])
    if scorable:
        write_qrels(out / QRELS, scorable)
    else:
        (out / QRELS).write_text("")    # no task has gold: an empty file, not a stale one
    write_run(out / RUN, Run.from_dict(run_scores), tag)
    return [rows[t.id] for t in tasks]


def run_tag(manifest: dict[str, Any]) -> str:
    name = str(manifest.get("run_name") or manifest.get("agent") or "run")
    return "".join(c if not c.isspace() else "_" for c in name) or "run"


def sample_fields(task: ArenaTask, record: dict[str, Any] | None) -> dict[str, Any]:
    """What the summary needs from a row's task and answer, for the row, so that the summary is
    a function of scores.jsonl alone: the task's `reference_counts`, and the references read
    from the answer (`references_answered`: refs, refs_unresolved) when it says."""
    out: dict[str, Any] = {"reference_counts": reference_counts(task)}
    info = (record or {}).get("info")
    if isinstance(info, dict) and isinstance(info.get("refs"), int):
        out["references_answered"] = {"refs": info["refs"],
                                      "refs_unresolved": int(info.get("refs_unresolved") or 0)}
    return out


def _reference_answers(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """REFs read from the agent's answers and how many did not resolve (summed)."""
    total = unresolved = 0
    for row in rows:
        answered = row.get("references_answered")
        if isinstance(answered, dict):
            total += int(answered.get("refs") or 0)
            unresolved += int(answered.get("refs_unresolved") or 0)
    return {"refs": total, "refs_unresolved": unresolved}


def summarise(rows: Sequence[dict[str, Any]], manifest: dict[str, Any],
              keys: Sequence[str]) -> dict[str, Any]:
    """The summary's ResearchArena fields for the measures `keys` (`measures_of`), as
    `ResearchArena.aggregate` builds them."""
    return {"metrics": {m.key: measure_entry(m, rows) for m in measures_of(manifest["mode"], keys)},
            **summary_fields(rows, manifest, keys)}


def summary_fields(rows: Sequence[dict[str, Any]], manifest: dict[str, Any],
                   keys: Sequence[str]) -> dict[str, Any]:
    """The summary's ResearchArena fields beside `metrics` (the engine adds status counts and
    `complete`), from the score rows and the manifest alone (`sample_fields` put the rest on
    the rows); `keys`: the run's measures."""
    task_kind = manifest["mode"]
    scored = [r for r in rows if sample_status(r) not in NOT_COUNTED]
    unscorable: dict[str, int] = {}
    for r in rows:
        if sample_status(r) == "unscorable":
            why = str(r.get("unscorable") or r.get("reason") or "unscorable")
            unscorable[why] = unscorable.get(why, 0) + 1
    return {"benchmark": "researcharena", "task": task_kind, "agent": manifest["agent"],
            "run_name": manifest.get("run_name"), "n_samples": len(rows),
            "n_scored": len(scored), "n_unscorable": unscorable,
            "unscorable_ids": sorted(r["id"] for r in rows
                                     if sample_status(r) == "unscorable"),
            "n_missing": sum(1 for r in rows if r.get("missing")),
            "n_malformed": sum(1 for r in rows if r.get("malformed")),
            "n_error": sum(1 for r in rows if r.get("status") == "error"),
            "primary": [k for k in PRIMARY.get(task_kind, ()) if k in keys],
            "qrels": manifest.get("data", {}).get("qrels"),
            "grading": manifest.get("data", {}).get("grading"),
            "references": sum_counts([r["reference_counts"] for r in rows
                                      if isinstance(r.get("reference_counts"), dict)]),
            "references_answered": _reference_answers(rows), **_measure_notes(scored, keys)}


def _measure_notes(scored: Sequence[dict[str, Any]], keys: Sequence[str]) -> dict[str, Any]:
    """Heading Entity Recall's NER model(s) (`ner_model`) and its caveat (`measure_notes`,
    printed beside the value everywhere), when the run has that measure."""
    if HEADING_ENTITY_RECALL not in keys:
        return {}
    models = sorted({str(r["ner_model"]) for r in scored if r.get("ner_model")})
    return {"ner_model": ", ".join(models) or None,
            "measure_notes": {HEADING_ENTITY_RECALL: her_note(models)}}


def format_summary(summary: dict[str, Any]) -> str:
    """Terminal text: the task's primary measures first, then the rest, with the counts."""
    unscorable = ", ".join(f"{n} {why}" for why, n in summary["n_unscorable"].items()) or "none"
    errors = f", {summary['n_error']} errored" if summary.get("n_error") else ""
    lines = [f"{summary.get('run_name') or summary['agent']} ({summary['task']}): "
             f"{summary['n_samples']} tasks, {summary['n_scored']} scored, unscorable: "
             f"{unscorable}; {summary['n_missing']} missing, {summary['n_malformed']} "
             f"malformed{errors}"]
    order = list(summary["primary"]) + [k for k in summary["metrics"]
                                        if k not in summary["primary"]]
    for key in order:
        m = summary["metrics"][key]
        value = "—" if m["mean"] is None else f"{m['mean']:.4f}"
        mark = "*" if key in summary["primary"] else " "
        null = f"  ({m['n_null']} undefined, excluded)" if m["n_null"] else ""
        note = (summary.get("measure_notes") or {}).get(key)
        lines.append(f" {mark}{key:<24} {value:>8}{null}" + (f"  ({note})" if note else ""))
    refs = summary["references"]
    lines.append(f"  references: {refs['resolved']} resolved, {refs['searchable']} searchable, "
                 f"unsearchable {refs['unsearchable']}, unresolved {refs['unresolved']}"
                 + (f" (unknown for {refs['unresolved_unknown_tasks']} tasks)"
                    if refs.get("unresolved_unknown_tasks") else ""))
    answered = summary.get("references_answered") or {}
    if answered.get("refs"):
        lines.append(f"  answers: {answered['refs']} references read, "
                     f"{answered['refs_unresolved']} did not resolve to a corpus paper")
    return "\n".join(lines)


__all__ = ["TASKS_FILE", "QRELS", "GENERATE", "RUN", "SCORES", "SUMMARY", "ORGANISATION_KEYS",
           "PRIMARY", "answer_row", "measure_names", "row_status", "score_ranking", "run_tag",
           "sample_fields", "summarise", "summary_fields", "format_summary"]
