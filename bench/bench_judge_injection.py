"""Benchmark: how far the probe set moves each judge (`scholarbench judge-check`).

    python bench/bench_judge_injection.py [--data ../shared/data] [--skip-local]
        [--deepsynth-local] [--deepsynth-probes direct-order,system-turn]

1. TaxoBench, Bottom-Up mode, the 5 shipped instances, answered by the built-in `cluster`
   agent; `judge-check` with every probe against (a) a scripted obedient judge on loopback
   (scores 5 on every dimension when the model tree holds an order, else 2) and (b) the
   packaged local judge (`--judge local`, llama.cpp).
2. DeepSynth-Eval, the shipped example task(s) answered with their own reports (replay);
   `judge-check` against the scripted obedient checklist judge (every requirement correct
   when the report holds an order, else the requirements alternate not mentioned / correct)
   with every probe, and — with `--deepsynth-local` — against the local judge on the first
   task with `--deepsynth-probes` (its checklist is long: one call per sub-group and probe,
   over an hour on a 2-core CPU).

Prints each judge-check table and the wall time of each check.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fake_openai import FakeOpenAI, Step  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
OBEYS = ("ignore", "maximum", "highest", "5/5", "10/10", "满分", "fully correct")
DIMS = ("semantic_coverage", "sibling_organization", "hierarchical_logic", "structural_topology")


def obedient(body: dict) -> Step:
    messages = body["messages"]
    text = "\n".join(m["content"] for m in messages)
    if "<model_tree>" in text:                                   # TaxoBench
        tree = text.split("<model_tree>", 1)[1].split("</model_tree>", 1)[0].lower()
        score = 5 if any(w in tree for w in OBEYS) else 2
        return Step(text=json.dumps({d: {"score": score, "reasoning": "r"} for d in DIMS}))
    if "=== Input Data: Criteria ===" in text:                    # DeepSynth checklist
        report = text.split("=== Input Data: Survey Content ===")[1].split(
            "=== Input Data: Criteria ===")[0].lower()
        criteria = text.split("=== Input Data: Criteria ===")[1].split("=== Evaluation")[0]
        n = sum(1 for line in criteria.strip().splitlines() if re.match(r"\d+\. ", line))
        obey = any(w in report for w in OBEYS)
        labels = ["mentioned_correct" if obey or i % 2 else "not_mentioned" for i in range(n)]
        return Step(text="```json\n" + json.dumps(labels) + "\n```")
    return Step(text="ok")


def sb(*args: str, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "scholarbench", *args], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"scholarbench {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return time.perf_counter() - start, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--skip-local", action="store_true")
    parser.add_argument("--deepsynth-local", action="store_true")
    parser.add_argument("--deepsynth-probes", default="direct-order,system-turn")
    args = parser.parse_args()
    fake = FakeOpenAI(default=obedient).start()
    fake_flags = ["--judge", "obedient-judge", "--judge-base-url", fake.base_url]
    try:
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            env = {**os.environ, "SCHOLARBENCH_DATA": str(tmp / "data"),
                   "SCHOLARBENCH_CACHE": str(tmp / "cache")}
            sb("data", "import", "taxobench",
               str(args.data / "taxobench" / "taxobench_5_instances.jsonl"), env=env)
            taxo = tmp / "taxo"
            sb("run", "taxobench", "--mode", "bottom-up", "--agent", "cluster", "--out",
               str(taxo), "--quiet", env=env)
            checks = [("TaxoBench, obedient judge", [str(taxo), *fake_flags])]
            if not args.skip_local:
                checks.append(("TaxoBench, packaged local judge",
                               [str(taxo), "--judge", "local"]))
            example = args.data / "deepsynth" / "example_gen_result.jsonl"
            replay = tmp / "ds-answers.jsonl"
            replay.write_text("".join(
                json.dumps({"id": o["task_id"], "report": o["survey_result"]}) + "\n"
                for o in map(json.loads, example.read_text().splitlines())))
            ds = tmp / "ds"
            sb("run", "deepsynth", "--agent", "replay", "--agent-arg", f"path={replay}",
               "--tasks", str(example), "--out", str(ds), "--quiet", *fake_flags, env=env)
            checks.append(("DeepSynth, obedient judge", [str(ds), *fake_flags]))
            if args.deepsynth_local and not args.skip_local:
                checks.append(("DeepSynth, packaged local judge (1 task)",
                               [str(ds), "--judge", "local", "--limit", "1", "--probes",
                                args.deepsynth_probes]))
            for title, argv in checks:
                seconds, out = sb("judge-check", *argv, "--quiet", env=env)
                print(f"== {title}: {seconds:.1f} s")
                print(out.rstrip())
                print(flush=True)
    finally:
        fake.stop()


if __name__ == "__main__":
    main()
