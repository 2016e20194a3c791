"""The checklist judge as a run directory records it, in one shape for the summary and the
report (`summary.run_counts`, `section.py`): the engine's ``judged.checklist`` (the judges,
their seeds, the prompt version, the repeats) and ``usage.checklist.<role>``, or — a run
judged before the engine judged — the manifest's own ``judge`` identity and
``judge_line_calls``."""
from __future__ import annotations

from typing import Any

from scholarbench.core.judge_stage import (judge_model_id, judge_seeds, judged_entry,
                                           recorded_judges)

ITEM = "checklist"          # the judged item (`checklist.NAME`)
FILE = f"judge.{ITEM}.jsonl"   # its verdicts (`core.judge_stage`)


def checklist_entry(manifest: dict[str, Any]) -> dict[str, Any] | None:
    return judged_entry(manifest, ITEM)


def judge_identity(manifest: dict[str, Any]) -> dict[str, Any]:
    """``model_id``, ``temperature``, ``seed`` and ``prompt`` of the (first) judge; with a
    panel or repeats also ``samples`` and ``panel`` (each judge's label, model id,
    temperature and seeds)."""
    entry = checklist_entry(manifest)
    if entry is None:
        return dict(manifest.get("judge") or {})          # judged before the engine judged
    judges = recorded_judges(entry)
    if not judges:
        return {}
    first, repeats = judges[0], int(entry.get("repeats") or 1)
    out: dict[str, Any] = {"model_id": judge_model_id(first),
                           "temperature": first.get("temperature"),
                           "seed": first.get("seed"), "prompt": entry.get("prompt")}
    if len(judges) > 1 or repeats > 1:
        out.update(samples=repeats, panel=[
            {"label": j.get("label"), "model_id": judge_model_id(j),
             "temperature": j.get("temperature"), "seeds": judge_seeds(j, repeats)}
            for j in judges])
    return out


def judge_model(manifest: dict[str, Any]) -> str | None:
    """The (first) judge's model name."""
    entry = checklist_entry(manifest)
    judges = (entry or {}).get("judges") or []
    if judges and isinstance(judges[0], dict):
        return str(judges[0].get("model"))
    return ((manifest.get("models") or {}).get("judge") or {}).get("model")


def judge_calls(manifest: dict[str, Any]) -> dict[str, int]:
    """``model_calls`` and ``cache_hits`` of the checklist judge: every judge's, over every
    scoring of the run directory (`usage.checklist`); a run judged before the engine judged:
    those behind its judgements (``judge_line_calls``)."""
    usage = (manifest.get("usage") or {}).get(ITEM)
    if isinstance(usage, dict):
        roles = [u for u in usage.values() if isinstance(u, dict)]
        return {"model_calls": sum(int(u.get("calls") or 0) for u in roles),
                "cache_hits": sum(int(u.get("cache_hits") or 0) for u in roles)}
    line_calls = manifest.get("judge_line_calls") or {}
    return {"model_calls": line_calls.get("model_calls", 0),
            "cache_hits": line_calls.get("cache_hits", 0)}


def first_judge_reasons(manifest: dict[str, Any], records: Any
                        ) -> dict[str, dict[tuple[int, int], list[Any]]]:
    """task id → (group, sub-group) → the unscored reason per requirement, of the verdicts of
    the first judge's first repeat (the judgement judged.jsonl holds) among `records` (the
    lines of judge.checklist.jsonl, in file order). A request two tasks shared is on file
    under the first of them."""
    entry = checklist_entry(manifest) or {}
    judges = entry.get("judges") or [{}]
    first = judges[0] if isinstance(judges[0], dict) else {}
    out: dict[str, dict[tuple[int, int], list[Any]]] = {}
    for rec in records:
        if (rec.get("fingerprint"), rec.get("repeat"), rec.get("prompt")) != \
                (first.get("fingerprint"), 0, entry.get("prompt")):
            continue
        g, _, s = str(rec.get("subject")).partition(".")
        if g.isdigit() and s.isdigit():
            out.setdefault(str(rec.get("task_id")), {})[(int(g), int(s))] = \
                (rec.get("verdict") or {}).get("reasons") or []
    return out


__all__ = ["FILE", "ITEM", "checklist_entry", "first_judge_reasons", "judge_calls",
           "judge_identity", "judge_model"]
