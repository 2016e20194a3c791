"""The ego tasks' gold ranking: the tie rule, and how much the top list can be trusted.

On a small graph many papers share a value (arxiv-2023: 1,099 distinct novelty values over
26,152 papers; in 6 of 18 categories all 50 gold papers tie at one z), so the rule that breaks
ties decides the gold. Rules (`BuildSettings.ties`):

- `"citations"` (default): more in-graph citations first, then a seeded hash of the id
  (sha256 of "<seed>:<id>") — nothing depends on how ids sort;
- `"id"`: the id's sort order (the rule of task files built before; kept to rebuild them).

`tie_stats` says per task how many papers tie at the cut (written to the task's `info.ties`);
`seed_overlap` compares the novelty top list under other randomisation seeds
(`BuildSettings.stability_seeds`, `info.seed_stability`): SciNet's z-scores are a Monte Carlo
estimate, and `EnvSettings(novelty_seeds=n)` averages n seeds' values.
"""
from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

from scholarbench.graph import novelty

TIE_RULES = ("citations", "id")


def tie_hash(seed: int, pid: str) -> str:
    return hashlib.sha256(f"{seed}:{pid}".encode("utf-8")).hexdigest()


def rank(ids: Sequence[str], values: np.ndarray, descending: bool, *, ties: str = "citations",
         citations: Sequence[int] | None = None, seed: int = 0) -> list[int]:
    """Positions of `ids` best first by value (finite values only), ties by the rule."""
    if ties not in TIE_RULES:
        raise ValueError(f"tie rule must be one of {TIE_RULES}, got {ties!r}")
    key = -np.asarray(values, dtype=np.float64) if descending else np.asarray(values, np.float64)
    if ties == "id":
        return sorted(range(len(ids)), key=lambda i: (key[i], ids[i]))
    cites = citations if citations is not None else [0] * len(ids)
    return sorted(range(len(ids)), key=lambda i: (key[i], -int(cites[i]), tie_hash(seed, ids[i])))


def tie_stats(values: np.ndarray, order: Sequence[int], k: int) -> dict[str, int | bool]:
    """`distinct_values` of the category, `tied_at_cut` (papers with the value of the last gold
    paper), `tied_in_gold` (of them, in the gold), `cut_in_tie` (the tie rule chose)."""
    vals = np.asarray(values, dtype=np.float64)
    gold = list(order)[:k]
    if not gold:
        return {"distinct_values": 0, "tied_at_cut": 0, "tied_in_gold": 0, "cut_in_tie": False}
    last = vals[gold[-1]]
    at_cut = int(np.sum(vals == last))
    in_gold = int(np.sum(vals[gold] == last))
    return {"distinct_values": int(len(np.unique(vals))), "tied_at_cut": at_cut,
            "tied_in_gold": in_gold, "cut_in_tie": at_cut > in_gold}


def overlap(a: Sequence[str], b: Sequence[str]) -> float:
    """|a ∩ b| / |a| (1.0 when a is empty)."""
    return len(set(a) & set(b)) / len(a) if a else 1.0


def seed_values(env, seeds: Sequence[int]) -> dict[int, np.ndarray]:
    """Novelty values of the env's graph under other randomisation seeds (same other settings)."""
    s = env.settings
    return {seed: novelty(env.graph, randomisations=s.randomisations, seed=seed,
                          percentile_rule=s.novelty_rule, pairing=s.novelty_pairing
                          ).values.astype(np.float64) for seed in seeds}


def format_ties(tasks) -> str:
    """One line about the ego gold of `tasks` (printed when tasks are built)."""
    ego = [t for t in tasks if t.family == "ego" and isinstance(t.info.get("ties"), dict)]
    if not ego:
        return ""
    cut = [t for t in ego if t.info["ties"]["cut_in_tie"]]
    all_tied = [t for t in ego if t.info["ties"]["tied_in_gold"] == len(t.gold["ranked"])]
    line = (f"ego gold: {len(cut)} of {len(ego)} tasks cut their top list inside a tie "
            f"({len(all_tied)} with every gold paper tied; tie rule: "
            f"{ego[0].info.get('tie_rule', 'citations')})")
    stab = [t.info["seed_stability"]["mean_overlap"] for t in ego
            if isinstance(t.info.get("seed_stability"), dict)]
    if stab:
        line += (f"; top-list overlap across seeds: mean {sum(stab) / len(stab):.2f}, "
                 f"min {min(stab):.2f}")
    return line
