"""What every benchmark's judge panel shares (docs/judges.md "Panels, repeats and agreement"):
the judges' names, usage roles and manifest entries, a repeat's seed, the per-judge entry of a
score row, and the terminal line per panel-scored measure.

A "judge" here is either a chat client or a benchmark's judge object holding one (`.client`;
TaxoBench's `TaxoBenchJudge`); a "panel" is anything with `.judges` (and `.labels` for
`panel_models`), or a plain list of judges.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.metrics.agreement import samples_key


def client_of(judge: Any) -> Any:
    """The chat client of a judge object, or the judge itself when it is a client."""
    return getattr(judge, "client", judge)


def _judges(panel: Any) -> list[Any]:
    return list(getattr(panel, "judges", panel))


def labels_of(judges: Sequence[Any]) -> list[str]:
    """Short, unique judge names: the model name (`--judge NAME`), `NAME#2` for a second
    judge of the same name at another endpoint."""
    out: list[str] = []
    for judge in judges:
        client = client_of(judge)
        config = getattr(client, "config", None)
        name = str(getattr(config, "model", None) or getattr(judge, "model", None)
                   or getattr(client, "model_id", None) or type(client).__name__)
        label, n = name, 1
        while label in out:
            n += 1
            label = f"{name}#{n}"
        out.append(label)
    return out


def mean_defined(values: Sequence[float | None]) -> float | None:
    """The mean of the values that are not None; None when none is."""
    defined = [float(v) for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


def n_judges_key(metric: str) -> str:
    """The row field saying how many judges a panel value holds."""
    return f"{metric}_n_judges"


def panel_value(per_judge: dict[str, dict[str, Any]], metric: str) -> dict[str, Any]:
    """A panel's value of `metric` (the mean of the judges' values that are defined: every
    judge weighs the same) and how many judges it holds (`<metric>_n_judges`), so a value
    one judge of two could give says so."""
    values = [e.get(metric) for e in per_judge.values()]
    return {metric: mean_defined(values),
            n_judges_key(metric): sum(1 for v in values if v is not None)}


def repeat_seed(client: Any, sample: int = 0) -> int | None:
    """Repeat `sample`'s seed: the configured seed (0 when none) + `sample`, so every repeat
    is a distinct request (and reply-cache key); repeat 0 asks as a lone judge."""
    return seed_of(getattr(getattr(client, "config", None), "seed", None), sample)


def seed_of(base: int | None, sample: int = 0) -> int | None:
    """Repeat `sample`'s seed from the configured seed `base` (`repeat_seed`)."""
    return base if sample == 0 else (base or 0) + sample


def judge_entry(metric: str, values: Sequence[float | None], unscored: int,
                samples: int) -> dict[str, Any]:
    """One judge's part of a row for `metric`: its value (the mean of its repeats that have
    one), how many items it left unscored and, with repeats, each repeat's value."""
    entry: dict[str, Any] = {metric: mean_defined(values), f"{metric}_unscored": unscored}
    if samples > 1:
        entry[samples_key(metric)] = list(values)
    return entry


def judge_roles(panel: Any) -> list[str]:
    """The usage roles of the panel's judges: `judge`, then `judge_2`, `judge_3`, … (as
    ReportBench's vote judges)."""
    return ["judge"] + [f"judge_{i}" for i in range(2, len(_judges(panel)) + 1)]


def public_model(judge: Any) -> dict[str, Any]:
    """A judge's public configuration and model id (the manifest's `models.judge`)."""
    client = client_of(judge)
    config = getattr(client, "config", None)
    return {**(config.public() if config is not None else {}),
            "model_id": getattr(client, "model_id", getattr(judge, "model", None))}


def panel_models(panel: Any) -> dict[str, Any]:
    """The manifest's `models` entries: `judge` (the first), and with a panel `judges`: every
    judge's public configuration, label and usage role."""
    judges = _judges(panel)
    labels = getattr(panel, "labels", None) or labels_of(judges)
    out: dict[str, Any] = {"judge": public_model(judges[0])}
    if len(judges) > 1:
        out["judges"] = [{"label": label, "usage_role": role, **public_model(j)}
                         for label, role, j in zip(labels, judge_roles(judges), judges)]
    return out


def format_panel(summary: dict[str, Any]) -> list[str]:
    """One `judges <metric>:` line per panel-scored measure of a summary (`judge_panel`,
    `judge_agreement`): α between the judges, each judge's mean, n and repeat spread."""
    lines = []
    for name, judges in (summary.get("judge_panel") or {}).items():
        agreement = (summary.get("judge_agreement") or {}).get(name) or {}
        alpha = agreement.get("alpha")
        parts = []
        for label, e in judges.items():
            mean = "—" if e["mean"] is None else f"{e['mean']:.4f}"
            spread = (f", spread {e['spread']:.3f} over {e['repeats']} repeats"
                      if e.get("spread") is not None else "")
            parts.append(f"{label} {mean} (n={e['n']}{spread})")
        head = (f"α {alpha:.3f} between {agreement.get('n_judges')} judges; "
                if alpha is not None else ("α undefined; " if len(judges) > 1 else ""))
        lines.append(f"  judges {name}: {head}{'; '.join(parts)}")
    return lines


__all__ = ["client_of", "format_panel", "judge_entry", "judge_roles", "labels_of",
           "mean_defined", "n_judges_key", "panel_value", "panel_models", "public_model",
           "repeat_seed", "seed_of"]
