"""Benchmark: how long a stdio MCP tools server takes to answer `initialize`, per benchmark.

    python bench/bench_mcp_start.py [--corpus DIR] [--data ../shared/data] [--repeat 5]
        [--compare SRC]

For each benchmark, `python -m scholarbench tools serve --benchmark B --task ID …` (the command
an MCP client launches) is started as a subprocess; the clock runs from the spawn to the line
of the `initialize` response on its stdout, i.e. what a client waits before it may list or call
a tool. The `--session FILE` form (what a run's `ctx.tools.mcp_stdio()` hands an agent: no
benchmark to load) is timed too, then the first `search` call after `initialize`.

The corpus is `--corpus` (default: the default corpus built from `--data` into a temporary
directory). The data directory is a temporary copy made of symlinks to `--data` with
`corpus/default` pointing at the corpus, so SciNet (which serves the data directory's default
corpus) never builds one inside the shared data. Task: each benchmark's first sample.
Median and max of `--repeat` starts, in seconds. `--compare SRC` (another checkout's `src`,
e.g. `git archive BASE src | tar -x -C /tmp/base`) starts that code's server alternately
with this one's, so a loaded machine slows both alike, and gives the ratio of the medians.
Both trees are byte-compiled first, so neither start pays for compiling.
"""
from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parents[0] / "shared" / "data"
# benchmark -> (sub-task, extra `tools serve` arguments); the task id is found at run time
SERVERS = {
    "taxobench": ("", ["--option", "gold_name=taxobench_5_instances.jsonl"]),
    "researcharena": ("discovery", []),
    "deepsynth": ("report", []),
    "reportbench": ("shipped", []),
    "scinet": ("", []),
}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "0"}}}
SEARCH = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
          "params": {"name": "search", "arguments": {"query": "graph neural networks"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def data_dir(tmp: Path, data: Path, corpus: Path) -> Path:
    out = tmp / "data"
    out.mkdir()
    for entry in data.iterdir():
        if entry.name != "corpus":
            (out / entry.name).symlink_to(entry.resolve())
    (out / "arxiv2023").symlink_to((data / "arxiv2023_citation_graph").resolve())
    (out / "unarxive").symlink_to((data / "unarxive_sample").resolve())
    (out / "corpus").mkdir()
    (out / "corpus" / "default").symlink_to(corpus.resolve())
    return out


def env(src: Path) -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = os.pathsep.join(p for p in [str(src), out.get("PYTHONPATH", "")] if p)
    return out


def first_task(name: str, subtask: str, data: Path, corpus: Path, extra: list[str]) -> tuple:
    from scholarbench.core.commands import agent_params
    from scholarbench.core.engine import benchmark_class
    from scholarbench.core.suite import default_options
    cls = benchmark_class(name)
    overrides = {k.replace("-", "_"): v for k, v in agent_params(
        [extra[i + 1] for i in range(0, len(extra), 2)]).items()}
    if name != "scinet":                     # SciNet serves the data directory's corpus
        overrides["corpus"] = str(corpus)
    options = default_options(cls, overrides)
    options["data"] = str(data)
    bench = cls(options)
    subtask = subtask or next(iter(cls.subtasks))
    bench.check(subtask)
    return subtask, bench.load(subtask, 1).samples[0].id, "corpus" in overrides


def time_start(args: list[str], src: Path, search: bool = False
               ) -> tuple[float, float | None]:
    """Seconds to the initialize response (and to the first search's answer after it)."""
    err = tempfile.TemporaryFile(mode="w+")
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "scholarbench", "tools", "serve", *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                            env=env(src), text=True)
    try:
        proc.stdin.write(json.dumps(INIT) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        ready = time.perf_counter() - t
        if '"result"' not in line:
            proc.wait(timeout=30)
            err.seek(0)
            raise RuntimeError(err.read().strip().splitlines()[-1][:200])
        first = None
        if search:
            proc.stdin.write(json.dumps(INITIALIZED) + "\n" + json.dumps(SEARCH) + "\n")
            proc.stdin.flush()
            t = time.perf_counter()
            proc.stdout.readline()
            first = time.perf_counter() - t
        return ready, first
    finally:
        if not proc.stdin.closed:
            proc.stdin.close()
        proc.terminate()
        proc.wait(timeout=30)
        err.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--corpus", help="a built corpus (default: built from --data)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--compare", help="another checkout's src directory, started "
                        "alternately with this one's")
    args = parser.parse_args()
    srcs = [ROOT / "src"] + ([Path(args.compare)] if args.compare else [])
    for src in srcs:        # an archived tree has no bytecode, and with PYTHONDONTWRITEBYTECODE
        compileall.compile_dir(src, quiet=1)     # set each of its starts would compile it
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        corpus = Path(args.corpus) if args.corpus else tmp / "corpus"
        if not args.corpus:
            from scholarbench.corpus.build import build_default_corpus
            build_default_corpus(corpus, Path(args.data))
        data = data_dir(tmp, Path(args.data), corpus)
        runs: list[tuple[str, list[str]]] = []
        for name, (subtask, extra) in SERVERS.items():
            subtask, task, with_corpus = first_task(name, subtask, data, corpus, extra)
            serve = ["--benchmark", name, "--subtask", subtask, "--task", task,
                     "--data", str(data), *extra]
            if with_corpus:
                serve += ["--corpus", str(corpus)]
            runs.append((f"{name} ({subtask}, task {task})", serve))
        spec = tmp / "session.json"
        spec.write_text(json.dumps({"corpus": str(corpus), "sample_id": "s", "log": None,
                                    "rules": {"before": "2023-01-01", "exclude_surveys": True,
                                              "exclude_ids": []}}), encoding="utf-8")
        runs.append(("--session FILE (a run's stdio server; before 2023-01-01, no surveys)",
                     ["--session", str(spec)]))
        for label, serve in runs:
            times: dict = {src: [] for src in srcs}
            for src in srcs:                       # warm-up start (file cache), not counted
                try:
                    time_start(serve, src)
                except RuntimeError:
                    pass
            for _ in range(args.repeat):
                for src in srcs:                   # alternately: load slows both alike
                    if isinstance(times[src], RuntimeError):
                        continue
                    try:
                        times[src].append(time_start(serve, src, search=True))
                    except RuntimeError as exc:
                        times[src] = exc
            row = [label]
            for src in srcs:
                got = times[src]
                if isinstance(got, RuntimeError) or not got:
                    row += [f"failed: {got}", ""]
                    continue
                ready = [r for r, _ in got]
                row += [f"{statistics.median(ready):.2f} / {max(ready):.2f}",
                        f"{statistics.median([f for _, f in got]):.3f}"]
            if len(srcs) == 2 and not any(c.startswith("failed") for c in row):
                after, before = (statistics.median([r for r, _ in times[s]]) for s in srcs)
                row.append(f"{after / before:.2f}x")
            rows.append(tuple(row))
    print(f"MCP stdio server start ({args.repeat} starts each; load average "
          f"{os.getloadavg()[0]:.2f} at the end)\n")
    head = ["server", "ready (initialize answered), s: median / max", "then first search, s"]
    if args.compare:
        head = ["server", "ready, s: median / max", "first search, s",
                f"{args.compare}: ready, s", "first search, s", "ready: this / compared"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
