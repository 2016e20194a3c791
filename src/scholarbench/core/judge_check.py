"""`scholarbench judge-check RUN_DIR [RUN_DIR …] [--probes NAMES] [--limit N] --judge …`: the
engine's half of the injection check (what it measures and writes: `injection.check`)."""
from __future__ import annotations

import argparse
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from scholarbench.core.commands import _models
from scholarbench.core.engine import add_stage_usage, benchmark_class
from scholarbench.core.rundir import RunDir
from scholarbench.data.jsonl import read_jsonl_tolerant
from scholarbench.errors import ScholarbenchError
from scholarbench.injection.check import PAIRS, format_check, summarise
from scholarbench.injection.probes import Probe, probes_named
from scholarbench.llm.commands import add_model_flags


def add_judge_check_parser(sub: Any) -> None:
    p = sub.add_parser("judge-check", help="measure how far injected text moves a run's LLM "
                       "judge (docs/injection.md)")
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    p.add_argument("--probes", default="all", help="comma-separated probe names (default all: "
                   "direct-order, closing-tag, system-turn, score-in-answer, non-english, appeal)")
    p.add_argument("--limit", type=int, help="the first N judgeable samples of each run")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_model_flags(p, agent=False, judge=True)
    p.set_defaults(func=cmd_judge_check)


def cmd_judge_check(args: argparse.Namespace) -> int:
    probes = probes_named(args.probes)
    if args.limit is not None and args.limit < 1:
        raise ScholarbenchError("--limit must be >= 1")
    models = _models(args)
    for run_dir in map(Path, args.run_dirs):
        if not (run_dir / "manifest.json").is_file():
            raise ScholarbenchError(f"{run_dir}: not a run directory")
        result = check_run(run_dir, models, probes, limit=args.limit, progress=not args.quiet)
        print(format_check(run_dir, result))
    return 0


def check_run(run_dir: Path, models: Any, probes: Sequence[Probe], *,
              limit: int | None = None, progress: bool = True) -> dict[str, Any]:
    # tqdm here, not at the top: the command line imports this module to build its parser
    from tqdm import tqdm
    run = RunDir(run_dir)
    manifest = run.read_manifest()
    bench = benchmark_class(str(manifest.get("benchmark")))(manifest.get("options") or {})
    if bench.judge_reads is None:
        raise ScholarbenchError(f"{run_dir}: no LLM judge of {bench.title or bench.name} reads "
                                "the agent's text, so there is nothing to check "
                                "(docs/injection.md)")
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
                clean = bench.judge_with_probe(sample, record, None, client)
                for probe in probes:
                    probed = bench.judge_with_probe(sample, record, probe.text, client)
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
        others = [r for r in read_jsonl_tolerant(run.file(PAIRS))
                  if r.get("judge") != client.model_id]    # pairs of the other judges stay
        run.write_jsonl(PAIRS, others + rows)
        manifest = run.read_manifest()
        manifest.setdefault("injection_check", {})[client.model_id] = result
        run.write_manifest(manifest)
    return result
