"""The HTML report at the scale of a leaderboard (issue 37): 4 synthetic runs of n samples each
(`_synthetic_runs.py`, TaxoBench rows with every status word, panels and flags: `varied`),
aggregated, then `scholarbench report R1 R2 R3 R4 --html --include-incomplete` (the synthetic
rows include errored samples) timed as a whole command.

    /work/venv/bin/python bench/bench_report_scale.py [--sizes 1000,10000] [--runs 4]
        [--benchmark taxobench] [--screenshots DIR]

Per size: the command's wall time and peak RSS, the report file's size, the drill-down pages
beside it (count and total size), the SVG marks in the report; with `--screenshots` (needs
Chromium; tests/test_report_browser.py's client), the time until the report's load event in
headless Chromium, a screenshot of the overview, and one of a drill-down page opened from the
report's page list (loaded on demand, from disk).
"""
from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "bench")]

from _synthetic_runs import write_run  # noqa: E402


def aggregate(run: Path) -> None:
    subprocess.run([sys.executable, "-m", "scholarbench", "aggregate", str(run)], check=True,
                   stdout=subprocess.DEVNULL)


def report(runs: list[Path], out: Path) -> tuple[float, float]:
    """(wall seconds, peak MiB) of the report command, in a fresh child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "scholarbench", "report", *map(str, runs), "--html",
                    str(out), "--include-incomplete"], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024


def open_in_chromium(report: Path, shots: Path, n: int) -> float:
    from test_report_browser import Browser, chromium_binary
    browser = Browser(chromium_binary(), timeout=120)
    try:
        start = time.perf_counter()
        browser.open(report.resolve().as_uri())
        loaded = time.perf_counter() - start
        browser.screenshot(shots / f"report-{n}-overview.png")
        page = browser.js("(document.querySelector('ol.drill-pages a') || {}).href")
        if page:
            browser.open(page)
            browser.js("document.querySelector('details.sample') && "
                       "(document.querySelector('details.sample').open = true)")
            browser.screenshot(shots / f"report-{n}-drilldown.png")
        problems = browser.problems()
        if problems:
            print(f"browser problems at {n}: {problems[:3]}", file=sys.stderr)
        return loaded
    finally:
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--benchmark", default="taxobench")
    parser.add_argument("--out", default="/tmp/bench-report-scale")
    parser.add_argument("--screenshots", help="a folder for Chromium's screenshots")
    args = parser.parse_args()
    out = Path(args.out)
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        runs = []
        for k in range(args.runs):
            run = out / f"{args.benchmark}-{n}-{k}"
            if not (run / "summary.json").exists():
                write_run(run, args.benchmark, n, seed=k, varied=True)
                aggregate(run)
            runs.append(run)
        html = out / f"report-{n}.html"
        wall, peak = report(runs, html)
        side = [p for p in html.with_name(html.stem + "_files").rglob("*") if p.is_file()] \
            if html.with_name(html.stem + "_files").exists() else []
        text = html.read_text(encoding="utf-8")
        marks = len(re.findall(r"<(?:circle|rect|path)\b", text))
        opened = None
        if args.screenshots:
            shots = Path(args.screenshots)
            shots.mkdir(parents=True, exist_ok=True)
            opened = open_in_chromium(html, shots, n)
        rows.append((n, wall, peak, html.stat().st_size / 2**20, len(side),
                     sum(p.stat().st_size for p in side) / 2**20, marks, opened))
    print(f"\n{args.runs} runs of {args.benchmark} per size; `report … --html`\n")
    print("| samples per run | time | peak | report | drill-down pages beside it | SVG marks "
          "| Chromium load |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n, wall, peak, size, pages, side_mb, marks, opened in rows:
        load = f"{opened:.2f} s" if opened is not None else "—"
        print(f"| {n:,} | {wall:.1f} s | {peak:.0f} MiB | {size:.2f} MB | {pages} files, "
              f"{side_mb:.1f} MB | {marks:,} | {load} |")


if __name__ == "__main__":
    main()
