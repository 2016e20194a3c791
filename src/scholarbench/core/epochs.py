"""`--epochs K`: each sample solved K times, scored per epoch, summarised per sample.

Modelled on Inspect's `--epochs` (each sample run K times, the scores reduced per sample by the
mean). Epoch 1 is the run without epochs: its samples keep their ids and the agent's seed (0),
so `--epochs 1` (the default) changes nothing and a run can be taken from 1 to K epochs on
resume, keeping what was solved. Epoch e > 1 is a sample of its own in every stage file, under
the id `ID#e`, with the seed e − 1 (`AgentContext.seed`, `epoch`; a plain-callable agent finds
both in its task); the agent still sees the sample's own id. Its score row carries `epoch` and
`sample` (the id of the sample it repeats), so the summary is rebuilt from scores.jsonl alone.

The summary (`core.summarise`) reads the per-sample rows `per_sample` makes: one row per sample,
each measure the mean of its defined values over the sample's counted epochs (an `error` epoch
is no result, as an errored sample is; a `malformed` or `missing` one counts with the score its
empty answer got; an `unscored` one leaves that measure out for that epoch). A bootstrap over
those rows is the cluster bootstrap by sample — each resampled sample brings all its epochs —
so the interval covers both the task sampling and the agent's own variance. `spread` says how
much the agent varied: per measure, its value on each epoch's rows, their SD, and the mean over
samples of the within-sample SD. docs/scores.md ("Epochs") says why the interval is not wider
than a one-epoch run's.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

from scholarbench.core.agent import AgentContext
from scholarbench.core.benchmark import Sample
from scholarbench.core.columns import NOT_COUNTED, is_number
from scholarbench.errors import ScholarbenchError

EPOCHS_KEY = "epochs"      # the manifest's and the summary's block (K > 1 only)
SEP = "#"                  # ID#e: epoch e > 1 of sample ID


@dataclass
class EpochSample(Sample):
    """One epoch of a sample: `id` is the stage files' key (`ID#e`), `sample` the sample's."""
    sample: str = ""
    epoch: int = 1
    seed: int = 0


def sample_id_of(sample: Sample) -> str:
    """The sample's own id (an epoch's `ID`, not `ID#e`): the key of what a benchmark made per
    sample before the epochs were expanded (a pre-agent stage's records)."""
    return getattr(sample, "sample", None) or sample.id


def check_epochs(k: int | None) -> int:
    """K as given on the command line (None: 1); at least 1."""
    if k is None:
        return 1
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ScholarbenchError(f"--epochs must be a whole number >= 1 (got {k!r})")
    return k


def seed_of(epoch: int) -> int:
    """The agent's seed in epoch `epoch` (epoch 1: 0, the seed of a run without epochs)."""
    return epoch - 1


def epoch_id(sample_id: str, epoch: int) -> str:
    return sample_id if epoch == 1 else f"{sample_id}{SEP}{epoch}"


def expand(samples: Sequence[Sample], k: int) -> list[Sample]:
    """The samples K times, epoch by epoch (epoch 1 first: its samples as they are). K = 1
    returns them unchanged."""
    if k == 1:
        return list(samples)
    return [EpochSample(epoch_id(s.id, e), s.task, s.gold, s.unscorable, sample=s.id, epoch=e,
                        seed=seed_of(e))
            for e in range(1, k + 1) for s in samples]


def manifest_block(k: int) -> dict[str, Any]:
    """What the manifest records of K epochs (nothing for 1)."""
    return {"k": k, "seeds": [seed_of(e) for e in range(1, k + 1)]} if k > 1 else {}


def epochs_of(manifest: dict[str, Any]) -> int:
    """K as the manifest records it (1 when it records none)."""
    block = manifest.get(EPOCHS_KEY)
    return int(block.get("k", 1)) if isinstance(block, dict) else 1


def context_for(ctx: AgentContext, sample: Sample) -> AgentContext:
    """The agent's context for one sample: an epoch's seed and number when it is one."""
    if not isinstance(sample, EpochSample):
        return ctx
    return replace(ctx, seed=sample.seed, epoch=sample.epoch)


def mark(record: dict[str, Any], sample: Sample) -> dict[str, Any]:
    """A generate record or score row with its epoch, seed and sample (an epoch's only)."""
    if isinstance(sample, EpochSample):
        record.update(epoch=sample.epoch, seed=sample.seed, sample=sample.sample)
    return record


# -- the summary's side: from score rows alone ---------------------------------------------

def _epoch_of(row: dict[str, Any], id_key: str) -> tuple[str, int]:
    """(sample id, epoch) of a score row; a row without `epoch` is epoch 1 of its own id."""
    epoch, sample = row.get("epoch", 1), row.get("sample", row.get(id_key))
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
        raise ScholarbenchError(f"score row {row.get(id_key)!r}: epoch {epoch!r} is not a "
                                "whole number >= 1")
    return str(sample), epoch


def clusters(rows: Sequence[dict[str, Any]], id_key: str) -> dict[str, list[dict[str, Any]]]:
    """Each sample's rows (all its epochs), in first-seen order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        out.setdefault(_epoch_of(row, id_key)[0], []).append(row)
    return out


def per_sample(rows: Sequence[dict[str, Any]], id_key: str) -> list[dict[str, Any]]:
    """One row per sample (module docstring): a number is the mean of the sample's counted
    epochs' numbers under that key (one they all agree on is kept as it is, so a count stays a
    whole number); any other value is kept when all those epochs agree on it.
    A sample with no counted epoch keeps its first row's status (`error`, `unscorable`)."""
    out = []
    for sample, group in clusters(rows, id_key).items():
        counted = [r for r in group if r.get("status") not in NOT_COUNTED]
        if not counted:
            out.append({id_key: sample, "status": group[0].get("status")})
            continue
        row: dict[str, Any] = {id_key: sample}
        for key in dict.fromkeys(k for r in counted for k in r):
            if key in (id_key, "epoch", "seed", "sample"):
                continue
            values = [r.get(key) for r in counted]
            numbers = [float(v) for v in values if is_number(v)]
            if numbers and all(is_number(v) for v in values) and \
                    all(v == values[0] for v in values):
                row[key] = values[0]           # every epoch agrees: kept as is (a count stays
            elif numbers and all(v is None or is_number(v) for v in values):   # whole)
                row[key] = math.fsum(numbers) / len(numbers)
            elif all(v == values[0] for v in values):
                row[key] = values[0]
            else:
                row[key] = None
        if row.get("status") is None:          # epochs of different statuses: it counts
            row["status"] = "scored"
        out.append(row)
    return out


def spread(rows: Sequence[dict[str, Any]], id_key: str, keys: Sequence[str],
           value_of: Callable[[Sequence[dict[str, Any]]], dict[str, Any]]
           ) -> dict[str, dict[str, Any]]:
    """Per measure key: `by_epoch` (its value on each epoch's rows alone, by `value_of`: rows
    → {key: value}), `sd_epochs` (their sample SD) and `sd_within` (the mean over samples with
    two or more defined epochs of the SD of the sample's values; None for a key no row holds
    as a number, e.g. a pooled measure)."""
    by_epoch: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_epoch.setdefault(_epoch_of(row, id_key)[1], []).append(row)
    values = [value_of(by_epoch[e]) for e in sorted(by_epoch)]
    groups = [[r for r in g if r.get("status") not in NOT_COUNTED]
              for g in clusters(rows, id_key).values()]
    out = {}
    for key in keys:
        each = [v.get(key) for v in values]
        defined = [float(v) for v in each if is_number(v)]
        within = [statistics.stdev(xs) for g in groups
                  if len(xs := [float(r[key]) for r in g if is_number(r.get(key))]) >= 2]
        out[key] = {"by_epoch": each,
                    "sd_epochs": _round(statistics.stdev(defined)) if len(defined) >= 2
                    else None,
                    "sd_within": _round(statistics.fmean(within)) if within else None}
    return out


def _round(x: float) -> float:
    return round(x, 12)


def spread_cell(entry: dict[str, Any] | None) -> str:
    """' (epochs sd 0.0123)' for a headline cell; '' when there is no spread."""
    if not isinstance(entry, dict) or entry.get("sd_epochs") is None:
        return ""
    return f" (epoch sd {entry['sd_epochs']:.4f})"


def epochs_line(block: dict[str, Any], keys: Sequence[str] | None = None) -> str:
    """The terminal's line of a run of K epochs: K, the seeds, and each (headline) measure's
    spread across epochs."""
    spreads = block.get("spread") or {}
    shown = [k for k in (keys or spreads) if k in spreads]
    parts = [f"{k} {spreads[k]['sd_epochs']:.4f}" if spreads[k].get("sd_epochs") is not None
             else f"{k} —" for k in shown]
    seeds = ", ".join(str(s) for s in block.get("seeds") or ())
    return (f"epochs: {block.get('k')} (seeds {seeds}) over {block.get('n_samples')} samples; "
            f"SD of the epoch means: {'; '.join(parts) or '—'}")


__all__ = ["EPOCHS_KEY", "EpochSample", "check_epochs", "clusters", "context_for",
           "epoch_id", "epochs_line", "epochs_of", "expand", "manifest_block", "mark", "per_sample",
           "sample_id_of", "seed_of", "spread", "spread_cell"]
