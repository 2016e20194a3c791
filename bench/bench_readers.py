"""Benchmark: `build`'s survey-source readers grow linearly with their input (docs/performance.md).

    python bench/bench_readers.py [--bib-mb 50] [--headings 20000] [--stock-mb 0.5]

Two tables, each at sizes ×1, ×2, ×4, ×8 (the largest is the given size), each case in a fresh
process: wall time, CPU time (user + system: what the reading costs when other processes share
the cores) and the child's peak RSS:

- `.bib`: `reportbench.bibliography.read_bibtex` on a generated BibTeX file of that many MB.
  Every entry is realistic-hostile for the LaTeX decoder: an accented author (`M{\\"u}ller`),
  a title with protected capitals and, in every fourth entry, `\\emph{…}` and an en dash,
  plus journal, year, DOI and arXiv URL. The last row reads a small file with bibtexparser's
  stock `LatexDecodingMiddleware` (every whole value through pylatexenc), the per-entry cost
  before the fix, for comparison.
- Markdown headings: `builder.source.read_source` on one Pandoc Markdown survey with that many
  headings (levels 1–3 in turn), each followed by a paragraph citing one work.

Per-unit CPU cost (µs per entry / per heading) that stays flat from ×1 to ×8 is linear growth.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

CHILD = r'''
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
kind, path = sys.argv[2], sys.argv[3]
import bibtexparser
from bibtexparser import middlewares as mw
from scholarbench.benchmarks.reportbench.bibliography import read_bibtex
from scholarbench.builder.source import read_source
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
t, c = time.perf_counter(), cpu()       # imports excluded: the reading alone
if kind == "bib":
    n = len(read_bibtex(path).entries)
elif kind == "stock":
    text = open(path, encoding="utf-8").read()
    stock = [mw.LatexDecodingMiddleware()]
    n = len(bibtexparser.parse_string(text, append_middleware=stock).entries)
else:
    doc = read_source(path)
    n = sum(1 for top in doc.sections for _ in top.walk())
seconds, cpu_seconds = time.perf_counter() - t, cpu() - c
print(json.dumps({"n": n, "seconds": seconds, "cpu": cpu_seconds,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
'''


def write_bib(path: Path, megabytes: float) -> int:
    target, n = int(megabytes * 1_000_000), 0
    with path.open("w", encoding="utf-8") as out:
        while out.tell() < target:
            title = f"Learning {{G}}raph representations, part {n}"
            if n % 4 == 0:
                title = f"\\emph{{Deep}} models -- a {{S}}urvey of {{GNN}}s, volume {n}"
            out.write(f"@article{{key{n},\n  title = {{{title}}},\n"
                      f"  author = {{M{{\\\"u}}ller, Anna and Smith, John and Doe, Jane}},\n"
                      f"  journal = {{Journal of Machine Learning Research}},\n"
                      f"  year = {{{2000 + n % 25}}},\n  doi = {{10.1000/jmlr.{n}}},\n"
                      f"  url = {{https://arxiv.org/abs/2001.{n % 100000:05d}}},\n}}\n\n")
            n += 1
    return n


def write_markdown(path: Path, headings: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write("---\ntitle: A survey\n---\n\n")
        for i in range(headings):
            out.write(f"{'#' * (1 + i % 3)} Heading {i}\n\n"
                      f"Some text citing a work [@doi:10.1000/x{i}] and more words.\n\n")


def run(kind: str, path: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(SRC), kind, str(path)],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bib-mb", type=float, default=50.0)
    parser.add_argument("--headings", type=int, default=20000)
    parser.add_argument("--stock-mb", type=float, default=0.5,
                        help="size of the file read with bibtexparser's stock decoder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print("| .bib | entries | wall s | CPU s | CPU µs per entry | peak MiB |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: |")
        for factor in (1, 2, 4, 8):
            mb = args.bib_mb * factor / 8
            path = Path(tmp) / f"{factor}.bib"
            entries = write_bib(path, mb)
            got = run("bib", path)
            assert got["n"] == entries, (got, entries)
            print(f"| {mb:g} MB | {entries:,} | {got['seconds']:.1f} | {got['cpu']:.1f} | "
                  f"{1e6 * got['cpu'] / entries:.0f} | {got['peak_mib']:.0f} |", flush=True)
            path.unlink()
        path = Path(tmp) / "stock.bib"
        entries = write_bib(path, args.stock_mb)
        got = run("stock", path)
        print(f"| {args.stock_mb:g} MB, stock LatexDecodingMiddleware | {entries:,} | "
              f"{got['seconds']:.1f} | {got['cpu']:.1f} | {1e6 * got['cpu'] / entries:.0f} | "
              f"{got['peak_mib']:.0f} |", flush=True)
        print()
        print("| headings | MB | wall s | CPU s | CPU µs per heading | peak MiB |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: |")
        for factor in (1, 2, 4, 8):
            n = args.headings * factor // 8
            path = Path(tmp) / f"{factor}.md"
            write_markdown(path, n)
            got = run("markdown", path)
            assert got["n"] == n, (got, n)
            print(f"| {n:,} | {path.stat().st_size / 1e6:.1f} | {got['seconds']:.2f} | "
                  f"{got['cpu']:.2f} | {1e6 * got['cpu'] / n:.0f} | {got['peak_mib']:.0f} |",
                  flush=True)


if __name__ == "__main__":
    main()
