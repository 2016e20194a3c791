"""A run's answers as TaxoBench predictions (its generate.jsonl lines, parsed once)."""
from __future__ import annotations

from typing import Any

from scholarbench.data.taxobench import parse_prediction
from scholarbench.records import TaxoNode, TaxoPrediction


def predictions(generated: dict[str, dict[str, Any]]) -> dict[str, TaxoPrediction | None]:
    """Predictions by id; None for a sample without one (the agent failed or gave nothing)."""
    preds: dict[str, TaxoPrediction | None] = {}
    for sid, record in generated.items():
        preds[sid] = prediction(record, str(sid))
    return preds


def prediction(record: dict[str, Any] | None, sid: str) -> TaxoPrediction | None:
    """Sample `sid`'s prediction from its generate line; None without one (the agent failed
    or gave nothing)."""
    raw = (record or {}).get("prediction")
    if record is None or raw is None or record.get("status") == "error":
        return None
    if not isinstance(raw, dict):      # a hand-edited or foreign line: malformed, counted
        return TaxoPrediction(sid, None,
                              error=f"prediction: expected a JSON object, got "
                              f"{type(raw).__name__}")
    pred = parse_prediction(raw)
    if record.get("error"):
        pred.error = record["error"]
    return pred


def judgeable(pred: TaxoPrediction | None) -> TaxoNode | None:
    """The taxonomy a judge is sent: a prediction's tree when it parsed; None (never sent)
    for a missing or malformed one."""
    if pred is None or pred.taxonomy is None or pred.error:
        return None
    return pred.taxonomy


__all__ = ["judgeable", "prediction", "predictions"]
