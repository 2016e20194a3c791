"""`scholarbench verify SUBMISSION`: every check of docs/leaderboard.md, one `Check` a line.

In order: the members (`integrity`); then for each run, in a temporary folder holding the
verified members: the code versions of both sides, the task set against the verifier's data
(`data_check`), the summary rebuilt from scores.jsonl (`aggregate --check`'s
`summary_differences`), the re-score through the engine (`rescore`: judge-free measures, the
judge-scored ones from the replayed records, the leakage and injection flags) and, when asked,
a re-judge with the verifier's judge; then each suite's eval.json rebuilt from its runs. A
submission whose members fail is refused before any run is opened.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from scholarbench.core.aggregate import differences, rebuild_suite, summary_differences
from scholarbench.core.manifest import package_versions
from scholarbench.core.models import Models
from scholarbench.core.rundir import RunDir, read_json_file
from scholarbench.errors import ScholarbenchError
from scholarbench.metrics.agreement import krippendorff_alpha
from scholarbench.submission.archive import extract, read_archive
from scholarbench.submission.data_check import verifier_task_set
from scholarbench.submission.integrity import member_check
from scholarbench.submission.members import PackedRun
from scholarbench.submission.rescore import (FLAGS, Rescored, bench_of, copy_run, flagged,
                                             measure_keys, replayed, rescore, row_differences,
                                             submitted_rows)
from scholarbench.submission.verdict import Check, Verification


def verify(path: Path, *, data: str | None = None, rejudge: Models | None = None,
           on_check: Any = None) -> Verification:
    """Verify the submission at `path` against the verifier's data (`data`: its data folder,
    None for the default) and, with `rejudge`, re-judge it with those models. `on_check(check)`
    is called as each check is made (the command prints it)."""
    result = Verification()

    def add(check: Check) -> None:
        result.checks.append(check)
        if on_check is not None:
            on_check(check)

    archive = read_archive(path)
    add(member_check(archive))
    if result.checks[-1].verdict == "refused" or archive.manifest is None:
        return result
    manifest = archive.manifest
    with tempfile.TemporaryDirectory(prefix="scholarbench-verify-") as tmp:
        root = Path(tmp) / "submission"
        extract(archive.files, [m.path for m in manifest.members], root)
        for run in manifest.runs:
            for check in run_checks(root, Path(tmp), run, manifest.versions, data, rejudge):
                add(check)
        for suite in manifest.suites:
            add(suite_check(root / suite, suite))
    return result


def run_checks(root: Path, tmp: Path, run: PackedRun, packed_with: dict[str, str],
               data: str | None, rejudge: Models | None) -> list[Check]:
    """The checks of one run (module docstring)."""
    scope, run_dir = run.dir, root / run.dir
    try:
        manifest = RunDir(run_dir).read_manifest()
        bench = bench_of(manifest, data)
    except (ScholarbenchError, KeyError) as exc:      # KeyError: a benchmark not installed
        return [Check("data", scope, "refused", "the verifier cannot open this run's "
                      f"benchmark: {exc.args[0] if exc.args else exc}")]
    mode = str(manifest.get("mode"))
    submitted = submitted_rows(run_dir, bench.id_key)
    checks = [code_check(scope, manifest, packed_with)]
    task_set = verifier_task_set(scope, manifest, list(submitted), data)
    checks.append(task_set.check)
    checks.append(summary_check(scope, run_dir))
    if task_set.loaded is None:
        return checks
    free, judged = measure_keys(bench, mode)
    ours = replayed(copy_run(run_dir, tmp / "replay" / run.dir, task_set, data), manifest,
                    bench)
    if ours.error is not None:
        checks.append(Check("re-score", scope, "refused", f"the engine could not re-score "
                            f"the run here: {ours.error}"))
        return checks
    diffs = row_differences(submitted, ours.rows, free)
    checks.append(Check("judge-free re-score", scope, "differs" if diffs else "ok",
                        f"{len(diffs)} difference(s) in {', '.join(free) or 'no measure'}"
                        if diffs else f"{len(ours.rows)} samples re-scored from the answers "
                        f"equal the submitted rows on {', '.join(free) or 'no measure'}",
                        tuple(diffs)))
    if judged:
        checks.append(judge_check(scope, submitted, ours, judged))
    checks.append(flag_check(scope, submitted, ours))
    if rejudge is not None and bench.judged_items(mode):
        checks.append(rejudge_check(scope, run_dir, tmp, task_set, data, submitted, judged,
                                    rejudge, bench, mode))
    elif rejudge is not None:
        checks.append(Check("re-judge", scope, "skipped", "the run asks no judge through the "
                            "engine's judge stage"))
    return checks


def code_check(scope: str, manifest: dict[str, Any], packed_with: dict[str, str]) -> Check:
    ran = (manifest.get("versions") or {}).get("scholarbench", "not recorded")
    here = package_versions().get("scholarbench", "unknown")
    return Check("code", scope, "info", f"run with scholarbench {ran}, packed with "
                 f"{packed_with.get('scholarbench', 'not recorded')}, verified with {here}")


def summary_check(scope: str, run_dir: Path) -> Check:
    try:
        diffs = summary_differences(run_dir)
    except ScholarbenchError as exc:
        return Check("summary", scope, "refused", f"cannot rebuild it: {exc}")
    if diffs:
        return Check("summary", scope, "differs", "summary.json is not the summary rebuilt "
                     "from scores.jsonl", tuple(f"{d} differs" for d in diffs))
    return Check("summary", scope, "ok", "summary.json is rebuilt from scores.jsonl")


def judge_check(scope: str, submitted: dict[str, dict[str, Any]], ours: Rescored,
                judged: list[str]) -> Check:
    """Judge-scored measures re-derived from the submitted records; a record that is not on
    file is a missing verdict. Skipped when no judge scored the run (every value null on
    both sides)."""
    if not any(r.get(k) is not None for rows in (submitted, ours.rows) for r in rows.values()
               for k in judged):
        return Check("judge records", scope, "skipped", f"no judge scored this run "
                     f"({', '.join(judged)} undefined in every row)")
    diffs = list(ours.missing_verdicts) + row_differences(submitted, ours.rows,
                                                          [*judged, "status"])
    if diffs:
        return Check("judge records", scope, "differs", f"{len(ours.missing_verdicts)} "
                     f"missing verdict(s); {len(diffs) - len(ours.missing_verdicts)} "
                     "difference(s) re-derived from the records", tuple(diffs))
    return Check("judge records", scope, "ok", f"{', '.join(judged)} re-derived from the "
                 "submitted judge records equal the submitted rows")


def flag_check(scope: str, submitted: dict[str, dict[str, Any]], ours: Rescored) -> Check:
    parts, diffs = [], []
    for key, name in FLAGS.items():
        theirs, mine = flagged(submitted, key), flagged(ours.rows, key)
        parts.append(f"{name} flags {len(mine)} sample(s)"
                     + (f" ({', '.join(sorted(mine)[:10])})" if mine else ""))
        diffs += [f"sample {s}: flagged by the {name} here, not in the submission"
                  for s in sorted(mine - theirs)]
        diffs += [f"sample {s}: flagged by the {name} in the submission, not here"
                  for s in sorted(theirs - mine)]
    return Check("leakage and injection", scope, "differs" if diffs else "ok",
                 "; ".join(parts) + " (re-run on the answers)", tuple(diffs))


def rejudge_check(scope: str, run_dir: Path, tmp: Path, task_set: Any, data: str | None,
                  submitted: dict[str, dict[str, Any]], judged: list[str], models: Models,
                  bench: Any, mode: str) -> Check:
    """The run re-judged by the verifier's judge (the engine's judge records dropped from the
    copy, so every request is asked), with Krippendorff's α (interval) per judged measure
    between the submitted and the verifier's values, and the headline under each."""
    drop = [i.file for i in bench.judged_items(mode)]
    ours = rescore(copy_run(run_dir, tmp / "rejudge" / run_dir.name, task_set, data, drop),
                   models, bench.id_key)
    if ours.error is not None or ours.summary is None:
        return Check("re-judge", scope, "refused", f"the verifier's judge could not score "
                     f"the run: {ours.error}")
    own = read_json_file(run_dir / "summary.json")
    parts = []
    ids = sorted(set(submitted) & set(ours.rows))
    for key in judged:
        alpha = krippendorff_alpha([[_num(submitted[i].get(key)) for i in ids],
                                    [_num(ours.rows[i].get(key)) for i in ids]])
        parts.append(f"{key}: α {'undefined' if alpha is None else f'{alpha:.3f}'}, "
                     f"headline {_mean(own, key)} submitted, {_mean(ours.summary, key)} "
                     "re-judged")
    return Check("re-judge", scope, "info", "; ".join(parts))


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def _mean(summary: dict[str, Any], key: str) -> str:
    entry = (summary.get("metrics") or {}).get(key)
    mean = entry.get("mean") if isinstance(entry, dict) else None
    return "—" if mean is None else f"{mean:.4g}"


def suite_check(suite_dir: Path, scope: str) -> Check:
    try:
        own, rebuilt = rebuild_suite(suite_dir)
    except ScholarbenchError as exc:
        return Check("eval.json", scope, "refused", f"cannot rebuild it: {exc}")
    diffs = differences(json.loads(json.dumps(rebuilt)), own)
    if diffs:
        return Check("eval.json", scope, "differs", "eval.json is not the one rebuilt from "
                     "its runs", tuple(f"{d} differs" for d in diffs))
    return Check("eval.json", scope, "ok", "eval.json is rebuilt from its runs")


__all__ = ["code_check", "flag_check", "judge_check", "rejudge_check", "run_checks",
           "suite_check", "summary_check", "verify"]
