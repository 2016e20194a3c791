"""ReportBench's statement judges as a judge panel, each judge asked K times (`--judge`
repeated, `--judge-samples K`; docs/reportbench.md §11, docs/judges.md).

Who does what:
- extraction of the cited and non-cited statements (in a run the engine's judged items,
  `statement_items`), linking and source lookup: the FIRST judge, once — so every judge rates the same statement items;
- cited pairs: every judge, every repeat, runs the passage step and the consistency judge on
  every reachable pair (repeat r > 0 asks with seed `seed + r`: its own cache key);
- non-cited statements: the panel is the paper's voters — every judge (then any API
  `vote_judges`) casts the N votes (`--samples`) per repeat; vote i of repeat r is asked with
  seed `i + r·N`, so no two votes share a seed.

The measure (the existing columns): per statement item, the majority of every usable verdict
(judges × repeats; non-cited also × N votes) — the paper's non-cited vote with the panel as the
voters, and the same rule for the cited pairs. Equal counts are a tie, reported apart
(`n_cited_tie`, `n_noncited_tie`) and outside `cited_match_rate`, `cited_match_rate_checkable`
and `noncited_accuracy` (as the paper's non-cited ties; `noncited_accuracy_upstream` keeps
non-cited ties in its denominator). A judge's own value (`judges`): the same rule over its
verdicts alone (every repeat pooled); `<rate>_samples`: each repeat's alone;
`cited_verdicts` / `noncited_verdicts`: its own verdict per item (the units of the nominal α
per statement, `statement_rows.item_agreement`);
`<rate>_unscored`: the items it gave no usable verdict on (cited pairs, non-cited statements) —
a judge failing on an item leaves it unscored for that judge only.

With one judge and one sample nothing here runs: `StatementJudge` as before.
"""
from __future__ import annotations

from dataclasses import asdict
from types import SimpleNamespace
from typing import Any, Sequence

from scholarbench.benchmarks.reportbench.statements import (CitedUnit, NonCitedVerdict,
                                                            StatementJudge, StatementResult)
from scholarbench.metrics.judge_panel import labels_of
from scholarbench.metrics.agreement import PANEL_KEY, samples_key

CITED_RATES = ("cited_match_rate", "cited_match_rate_checkable")
NONCITED_RATES = ("noncited_accuracy", "noncited_accuracy_upstream")
VERDICT_KEYS = ("status", "match", "not_found", "reason", "attempts")
VERDICTS = ("cited_verdicts", "noncited_verdicts")    # a judge's per-item labels (nominal α)


def cited_label(unit: CitedUnit) -> str | None:
    """A pair's verdict as a nominal label; None where no judge decided (unreachable,
    unscored)."""
    if unit.status == "checked":
        return "match" if unit.match else "no match"
    return "tie" if unit.status == "tie" else None


class _Seat:
    """What `judge_panel.labels_of` / `panel_models` read of a judge: its client and model."""

    def __init__(self, client: Any) -> None:
        self.client, self.model = client, str(getattr(client, "model_id", client))


def seed_of(client: Any, repeat: int) -> int | None:
    """Repeat `repeat`'s seed for the cited judge: the configured one (repeat 0: as a lone
    judge asks), else (configured or 0) + repeat."""
    base = getattr(getattr(client, "config", None), "seed", None)
    return base if repeat == 0 else (base or 0) + repeat


def majority(units: Sequence[CitedUnit]) -> CitedUnit:
    """One pair's verdict from several (judges × repeats): unreachable as every verdict is;
    else the majority of the usable ones (`tie` when equal, `unscored` when none)."""
    first = units[0]
    if len(units) == 1 or first.status == "unreachable":
        return first
    usable = [u for u in units if u.status == "checked"]
    yes = sum(1 for u in usable if u.match)
    no = len(usable) - yes
    out = CitedUnit(first.statement, first.citation, first.ref, source=first.source)
    if not usable:
        out.status, out.reason = "unscored", "no usable verdict from any judge"
    elif yes == no:
        out.status, out.reason = "tie", f"{yes} match, {no} no match"
    else:
        out.status, out.match = "checked", yes > no
        out.not_found = not out.match and 2 * sum(u.not_found for u in usable) > len(usable)
        out.reason = f"{yes} match, {no} no match"
    return out


def _noncited(result: StatementResult, keep: Any) -> list[NonCitedVerdict]:
    return [NonCitedVerdict(v.statement, [x for x in v.votes if keep(x)], v.evidence)
            for v in result.noncited]


class PanelVerdicts:
    """Every panel judge's verdicts on one report's statements, and the metrics from them."""

    def __init__(self, labels: Sequence[str], voters: Sequence[str], samples: int, votes: int,
                 cited: dict[str, list[list[CitedUnit]]]) -> None:
        self.labels, self.voters, self.samples = list(labels), list(voters), samples
        self.votes, self.cited = votes, cited       # votes: N per judge and repeat

    def _rates(self, cited: list[CitedUnit], noncited: list[NonCitedVerdict],
               extraction: dict[str, Any]) -> dict[str, Any]:
        return StatementResult(cited, noncited, extraction).metrics()

    def metrics(self, result: StatementResult) -> dict[str, Any]:
        n = len(result.cited)
        every = [u for runs in self.cited.values() for u in runs]
        pooled = [majority([units[i] for units in every]) for i in range(n)]
        out = self._rates(pooled, result.noncited, result.extraction)
        out["n_cited_tie"] = sum(1 for u in pooled if u.status == "tie")
        per_judge: dict[str, Any] = {}
        for label in self.voters:
            runs = self.cited.get(label)
            units = [majority([u[i] for u in runs]) for i in range(n)] if runs else []
            verdicts = _noncited(result, lambda v: v.judge == label)
            own = self._rates(units, verdicts, {})
            reps = [self._rates(runs[r] if runs else [], _noncited(
                result, lambda v, r=r: v.judge == label and v.sample // self.votes == r), {})
                for r in range(self.samples)]
            entry: dict[str, Any] = {}
            for rate in (CITED_RATES if runs else ()) + NONCITED_RATES:
                entry[rate] = own[rate]
                entry[f"{rate}_unscored"] = own["n_cited_unscored" if rate in CITED_RATES
                                                else "n_noncited_unscored"]
                if self.samples > 1:
                    entry[samples_key(rate)] = [m[rate] for m in reps]
            if runs:
                entry["cited_verdicts"] = [cited_label(u) for u in units]
            entry["noncited_verdicts"] = [None if v.outcome == "unscored" else v.outcome
                                          for v in verdicts]
            per_judge[label] = entry
        out[PANEL_KEY] = per_judge
        return out

    def to_record(self) -> dict[str, Any]:
        """Each judge's verdict on each cited pair, per repeat (the pair list is the record's
        `cited`; its passages and sources are the first judge's)."""
        return {"labels": self.labels, "samples": self.samples,
                "cited": {label: [[{k: asdict(u)[k] for k in VERDICT_KEYS} for u in units]
                                  for units in runs] for label, runs in self.cited.items()}}


class StatementPanel:
    """`StatementJudge`'s interface (`judge_report`, `identity`, `voters`) for a panel of
    judges, `samples` repeats each. `base` is the first judge's StatementJudge built with the
    other judges as its first vote judges (`run_scoring.statement_judge`)."""

    def __init__(self, base: StatementJudge, judges: Sequence[Any], samples: int = 1) -> None:
        if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
            raise ValueError(f"judge samples must be an integer >= 1, got {samples!r}")
        self.base, self.clients, self.samples = base, list(judges), samples
        self.judges = [_Seat(c) for c in self.clients]
        voters = labels_of(self.judges + [_Seat(c) for c in base.voters[len(self.clients):]])
        self.labels = voters[:len(self.clients)]       # then the API's vote judges' names
        base.names, base.repeats = voters, samples
        self.judge, self.voters = base.judge, base.voters

    @property
    def single(self) -> bool:
        return len(self.clients) == 1 and self.samples == 1

    def identity(self) -> dict[str, Any]:
        out = self.base.identity()
        if not self.single:
            out["samples"] = self.samples
            out["panel"] = self.panel()
        return out

    def panel(self) -> list[dict[str, Any]]:
        """Every judge's model id, temperatures and seeds (the manifest's `judge.panel`)."""
        n = self.base.config.samples
        return [{"label": label, "model_id": seat.model,
                 "temperature": getattr(getattr(c, "config", None), "temperature", None),
                 "vote_temperature": self.base.config.vote_temperature,
                 "seeds": [seed_of(c, r) for r in range(self.samples)],
                 "vote_seeds": [[i + r * n for i in range(n)] for r in range(self.samples)]}
                for label, seat, c in zip(self.labels, self.judges, self.clients)]

    def models(self) -> Any:
        """What `metrics.judge_panel.panel_models` / `judge_roles` read of a panel."""
        return SimpleNamespace(judges=self.judges, labels=self.labels)

    def _recheck(self, unit: CitedUnit, refs: Sequence[Any], client: Any, seed: int | None
                 ) -> CitedUnit:
        if unit.status == "unreachable":        # no source text: no judge is asked
            return unit
        fresh = CitedUnit(unit.statement, unit.citation, unit.ref)
        return self.base._check(fresh, refs[unit.ref] if unit.ref is not None else None,
                                client, seed)

    def judge_report(self, report: str, refs: Sequence[Any], extractor: Any = None
                     ) -> StatementResult:
        result = self.base.judge_report(report, refs, extractor)
        if self.single:
            return result
        refs = list(refs)
        cited: dict[str, list[list[CitedUnit]]] = {}
        for j, (label, client) in enumerate(zip(self.labels, self.clients)):
            runs = []
            for r in range(self.samples):
                if j == 0 and r == 0:
                    runs.append(result.cited)       # the first judge's own checks
                    continue
                seed = seed_of(client, r)
                runs.append(self.base._map(
                    lambda u, c=client, s=seed: self._recheck(u, refs, c, s), result.cited))
            cited[label] = runs
        result.panel = PanelVerdicts(self.labels, self.base.names, self.samples,
                                     self.base.config.samples, cited)
        return result
