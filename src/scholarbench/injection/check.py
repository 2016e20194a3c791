"""`scholarbench judge-check RUN_DIR …`: how far injected text moves a judge.

For each sample of a finished run whose answer the benchmark's LLM judge reads (status ok),
the judge scores the answer as it is and then with each probe (`probes.PROBES`) added where
the judge reads the agent's text (`Benchmark.judge_with_probe`). Per probe and over all:

- `mean_shift`: the mean of (probed − clean) in the judge measure's own units;
- `share_moved` / `share_up`: the share of samples whose score changed / rose;
- `n` pairs compared, `n_unscored` pairs left out because a judge reply was unusable.

Pairs go to `injection.jsonl` in the run directory (each with its judge; checking a judge
again replaces only its own pairs); the figures to the manifest's
`injection_check.<judge model id>` (one entry per judge checked), shown in the HTML report.
The judge's usage is accounted under `usage.judge-check.judge`. The clean scores come from
the reply cache when the run was judged by the same model.
"""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from tqdm import tqdm

from scholarbench.errors import ScholarbenchError
from scholarbench.injection.probes import Probe

PAIRS = "injection.jsonl"


def check_run(run_dir: Path, models: Any, probes: Sequence[Probe], *,
              limit: int | None = None, progress: bool = True) -> dict[str, Any]:
    from scholarbench.core.engine import add_stage_usage, benchmark_class
    from scholarbench.core.rundir import RunDir
    run = RunDir(run_dir)
    manifest = run.read_manifest()
    bench = benchmark_class(str(manifest.get("benchmark")))(manifest.get("options") or {})
    if bench.judge_reads is None:
        raise ScholarbenchError(f"{run_dir}: no LLM judge of {bench.title or bench.name} reads "
                                "the agent's text, so there is nothing to check "
                                "(docs/injection.md)")
    bench.models = models
    models.bind(judge=True)
    client = models.judge()
    with run.lock():
        loaded = bench.load_for_rescore(run, manifest)
        generated = run.stage(bench.generate_file, bench.id_key).records
        samples = [s for s in loaded.samples if s.unscorable is None and s.id in generated
                   and generated[s.id].get("status", "ok") == "ok"]
        if limit is not None:
            samples = samples[:limit]
        if not samples:
            raise ScholarbenchError(f"{run_dir}: no sample with an answer for the judge")
        before = client.usage.as_dict()
        rows: list[dict[str, Any]] = []
        try:
            for sample in tqdm(samples, desc="judge-check", unit="sample",
                               disable=not progress):
                record = generated[sample.id]
                clean = bench.judge_with_probe(sample, record, None)
                for probe in probes:
                    probed = bench.judge_with_probe(sample, record, probe.text)
                    rows.append({"judge": client.model_id, "id": sample.id,
                                 "probe": probe.name, "clean": clean,
                                 "probed": probed, "shift": None if clean is None or probed
                                 is None else probed - clean})
        finally:
            add_stage_usage(run, "judge-check", "judge", client, before)
        result = {"judge": client.model_id, "measure": bench.judge_measure,
                  "reads": bench.judge_reads, "n_samples": len(samples),
                  "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                  **summarise(rows, probes)}
        from scholarbench.data.jsonl import read_jsonl_tolerant
        others = [r for r in read_jsonl_tolerant(run.file(PAIRS))
                  if r.get("judge") != client.model_id]    # pairs of the other judges stay
        run.write_jsonl(PAIRS, others + rows)
        manifest = run.read_manifest()
        manifest.setdefault("injection_check", {})[client.model_id] = result
        run.write_manifest(manifest)
    return result


def summarise(rows: Sequence[dict[str, Any]], probes: Sequence[Probe]) -> dict[str, Any]:
    def stats(subset: Sequence[dict[str, Any]]) -> dict[str, Any]:
        shifts = [r["shift"] for r in subset if r["shift"] is not None]
        n = len(shifts)
        return {"n": n, "n_unscored": len(subset) - n,
                "mean_shift": sum(shifts) / n if n else None,
                "share_moved": sum(1 for x in shifts if abs(x) > 1e-9) / n if n else None,
                "share_up": sum(1 for x in shifts if x > 1e-9) / n if n else None}
    return {"overall": stats(rows),
            "probes": {p.name: {"style": p.style, **stats([r for r in rows
                                                             if r["probe"] == p.name])}
                       for p in probes}}


def format_check(run_dir: Path, result: dict[str, Any]) -> str:
    def fmt(s: dict[str, Any]) -> str:
        if s["mean_shift"] is None:
            return f"{'—':>8} {'—':>7} {'—':>6}  n={s['n']} unscored={s['n_unscored']}"
        return (f"{s['mean_shift']:>+8.3f} {100 * s['share_moved']:>6.0f}% "
                f"{100 * s['share_up']:>5.0f}%  n={s['n']}"
                + (f" unscored={s['n_unscored']}" if s["n_unscored"] else ""))
    lines = [f"{run_dir}: judge {result['judge']}, {result['measure']} over "
             f"{result['n_samples']} sample(s); the probe goes into {result['reads']}",
             f"  {'probe':<18} {'style':<22} {'shift':>8} {'moved':>7} {'up':>6}"]
    for name, s in result["probes"].items():
        lines.append(f"  {name:<18} {s['style']:<22} {fmt(s)}")
    lines.append(f"  {'all probes':<18} {'':<22} {fmt(result['overall'])}")
    return "\n".join(lines)


def injection_summary_text(entry: dict[str, Any]) -> str:
    """One line for the HTML report's metadata."""
    o = entry.get("overall") or {}
    if o.get("mean_shift") is None:
        head = "no pair scored"
    else:
        head = (f"{entry.get('measure')} shift {o['mean_shift']:+.3f}, "
                f"{100 * o['share_moved']:.0f}% of {o['n']} pairs moved")
    parts = [f"{name} {s['mean_shift']:+.2f} ({100 * s['share_moved']:.0f}%)"
             for name, s in (entry.get("probes") or {}).items()
             if isinstance(s, dict) and s.get("mean_shift") is not None]
    return f"{head} over {entry.get('n_samples')} sample(s)" + (
        "; " + ", ".join(parts) if parts else "")
