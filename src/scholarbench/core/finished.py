"""A finished run is not scored again (`eval` or `run` on a run with nothing left to do).

Scoring records, in the manifest, the basis it scored from (`BASIS_KEY`): a digest of the
answers file, of every manifest field that changes a score (benchmark, sub-task, agent, options,
data and corpus checksums, embedder, output limits, package versions, the run format) and of
the judges the scoring would ask — their resolved configurations (model, base URL without
secrets, temperature, seed), the panel and `--judge-samples`; none when the benchmark asks no
judge under its options. A later invocation that generated no new answer keeps the run as it is
— its scores.jsonl, summary.json and manifest — when the basis is the same and the summary says
complete with no errored sample and no failed judge call. Anything else scores again, as
before: a changed option, judge or version, a new or retried answer, an incomplete run, a run
scored before the basis was recorded, or models given as clients (no flags to resolve them
from: the basis is unknown).
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

from scholarbench.core.judging import FAILURES_KEY, recipe_judges
from scholarbench.core.rundir import RunDir

BASIS_KEY = "scored_from"
SCORED_FIELDS = ("benchmark", "mode", "agent", "agent_config", "limit", "n_samples", "data",
                 "options", "corpus", "embedder", "output_limits", "versions")


def _file_digest(path: Any) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


def judge_basis(models: Any, asks_judge: bool) -> Any:
    """The judges a scoring asks, as configured (no model is bound); "none" when it asks no
    judge; None when they cannot be told (models given as clients, without flags)."""
    if not asks_judge:
        return "none"
    configs = recipe_judges(models)
    if configs is None:
        return None
    return {"judges": [c.public() for c in configs],
            "samples": int(getattr(models, "judge_samples", 1) or 1)}


def scoring_basis(run: RunDir, manifest: dict[str, Any], generate_file: str, judges: Any,
                  run_format: int) -> str | None:
    """The digest of what a scoring of `run` reads (module docstring); None when unknown."""
    answers = _file_digest(run.file(generate_file))
    if answers is None or judges is None:
        return None
    basis = {"answers": answers, "format": run_format, "judges": judges,
             **{k: manifest.get(k) for k in SCORED_FIELDS}}
    if manifest.get("epochs"):      # `--epochs K` > 1 (a run without keeps its basis)
        basis["epochs"] = manifest["epochs"]
    text = json.dumps(basis, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def kept_summary(run: RunDir, earlier: dict[str, Any] | None, basis: str | None
                 ) -> dict[str, Any] | None:
    """The run's summary when its last scoring stands (same basis, complete, no errored
    sample, no failed judge call); else None (score again)."""
    if earlier is None or basis is None or earlier.get(BASIS_KEY) != basis:
        return None
    if earlier.get(FAILURES_KEY):               # the last scoring's judges fell short
        return None
    try:
        summary = json.loads(run.file("summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(summary, dict) or not summary.get("complete", False):
        return None
    status = summary.get("status")
    if not isinstance(status, dict) or status.get("error"):
        return None
    if not run.file("scores.jsonl").exists():
        return None
    return summary


__all__ = ["BASIS_KEY", "SCORED_FIELDS", "judge_basis", "kept_summary", "scoring_basis"]
