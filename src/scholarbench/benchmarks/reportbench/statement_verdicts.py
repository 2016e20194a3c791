"""One report's statement result from the engine's verdicts (`statement_items`): the same
units as the requests (`statement_units`), each pair's verdict per judge and repeat, each
non-cited statement's votes — the `StatementResult` (and, with a panel or repeats, its
`statement_panel.PanelVerdicts`) that `StatementJudge` builds when it asks on its own, so the
row and the metrics are computed by the same code either way. Nothing here asks a model.

The per-report result is also kept in statements.jsonl (a new line when this scoring asked a
judge about the report, or its result changed), the record a reader opens to see which source
and passage each pair was judged on.
"""
from __future__ import annotations

import copy
import json
from typing import Any, Sequence

from scholarbench.benchmarks.reportbench.llm_common import split_report
from scholarbench.benchmarks.reportbench.statement_checks import (apply_check, locate,
                                                                  vote_of)
from scholarbench.benchmarks.reportbench.statement_extraction import EngineExtraction
from scholarbench.benchmarks.reportbench.statement_items import (CHECKS, VOTES, pair_subject,
                                                                 vote_subject)
from scholarbench.benchmarks.reportbench.statement_panel import PanelVerdicts
from scholarbench.benchmarks.reportbench.statement_prompts import PromptSet
from scholarbench.benchmarks.reportbench.statement_records import (CitedUnit, NonCitedVerdict,
                                                                   StatementResult)
from scholarbench.benchmarks.reportbench.statement_rows import statement_row
from scholarbench.benchmarks.reportbench.statement_units import (cited_units,
                                                                 noncited_statements)
from scholarbench.core.judge_stage import judged_entry, recorded_judges

STATEMENTS = "statements.jsonl"


def panel_shape(manifest: dict[str, Any], item: str) -> tuple[list[str], int]:
    """(the labels of the judges that answered `item`, its repeats) as the judge stage
    recorded them in the manifest's `judged.<item>`."""
    entry = judged_entry(manifest, item) or {}
    return ([str(j.get("label")) for j in recorded_judges(entry)],
            int(entry.get("repeats") or 1))


class EngineStatements:
    """`scoring.Scorer`'s statements hook over the verdicts of the four items (`verdicts` by
    item name: asked now, or read from file for the judges the manifest names)."""

    judge = None                    # nothing here asks a judge

    def __init__(self, verdicts: dict[str, Any], config: Any, sources: Any, run: Any,
                 described: Any = None) -> None:
        self.verdicts, self.config, self.sources, self.run = verdicts, config, sources, run
        self.described = described  # the judges' description for the manifest (`identity`)
        self.prompts = PromptSet(config.prompt_set)
        manifest = run.read_manifest()
        self.checkers, self.repeats = panel_shape(manifest, CHECKS)
        self.voters, vote_repeats = panel_shape(manifest, VOTES)
        self.repeats = max(self.repeats, vote_repeats)
        self.records = run.stage(STATEMENTS).records

    def result(self, survey: str, report: str, refs: Sequence[Any]) -> StatementResult:
        cfg = self.config
        chunks = split_report(report, cfg.chunk_chars)
        extract = EngineExtraction(self.verdicts, survey)
        units = cited_units(extract, chunks, refs)
        checks = self.verdicts.get(CHECKS)
        texts = [locate(u, ref, self.sources.lookup, cfg)
                 for u, ref in zip(units.cited, units.refs_of)]
        runs: dict[str, list[list[CitedUnit]]] = {}
        for label in self.checkers:
            runs[label] = [[self._checked(unit, text, checks, survey, i, label, r)
                            for i, (unit, text) in enumerate(zip(units.cited, texts))]
                           for r in range(self.repeats)]
        first = runs[self.checkers[0]][0] if self.checkers else units.cited
        result = StatementResult(cited=first, extraction=units.extraction)
        if cfg.noncited:
            result.noncited = self._noncited(survey, extract, chunks, units)
        if len(self.checkers) > 1 or self.repeats > 1:
            result.panel = PanelVerdicts(self.checkers, self.voters or self.checkers,
                                         self.repeats, cfg.samples, runs)
        return result

    @staticmethod
    def _checked(unit: CitedUnit, text: str | None, checks: Any, survey: str, i: int,
                 label: str, repeat: int) -> CitedUnit:
        out = copy.copy(unit)
        if text is None:                    # unreachable: no judge was asked
            return out
        values = checks.of(survey, pair_subject(i)).get(label, []) if checks else []
        whys = checks.why(survey, pair_subject(i)).get(label, []) if checks else []
        verdict = values[repeat] if repeat < len(values) else None
        why = whys[repeat] if repeat < len(whys) else None
        return apply_check(out, verdict, why, text)

    def _noncited(self, survey: str, extract: Any, chunks: Sequence[str], units: Any
                  ) -> list[NonCitedVerdict]:
        cfg, votes = self.config, self.verdicts.get(VOTES)
        out = []
        for k, statement in enumerate(noncited_statements(extract, chunks, units,
                                                          self.prompts.quoted)):
            _, found = self.sources.evidence_for(statement, self.prompts, cfg)
            cast = []
            for label in self.voters:
                for r in range(self.repeats):
                    for i in range(cfg.samples):
                        subject = vote_subject(k, i)
                        values = votes.of(survey, subject).get(label, []) if votes else []
                        whys = votes.why(survey, subject).get(label, []) if votes else []
                        cast.append(vote_of(label, i + r * cfg.samples,
                                            values[r] if r < len(values) else None,
                                            whys[r] if r < len(whys) else None))
            out.append(NonCitedVerdict(statement, cast, [e.source for e in found]))
        return out

    def row(self, survey: str, report: str, refs: Sequence[Any]) -> dict[str, Any]:
        record = {"id": survey, "fingerprint": "engine",
                  **self.result(survey, report, refs).to_record()}
        record = json.loads(json.dumps(record, default=str))
        asked = any(survey in getattr(v, "asked", {}) for v in self.verdicts.values()
                    if v is not None)
        if asked or self.records.get(survey) != record:     # judged (again) now, or changed
            self.run.append(STATEMENTS, record)
            self.records[survey] = record
        return statement_row(record["metrics"])


__all__ = ["EngineStatements", "STATEMENTS", "panel_shape"]
