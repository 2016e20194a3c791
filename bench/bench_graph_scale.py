"""Benchmark: the scientometrics at growing size — synthetic citation graphs of 1M, 3M, 10M and
30M edges (bench/_synthetic_graph.py: the model, grown by papers at a fixed power-law citation
distribution), each measure on DuckDB and on Spark local mode.

    python bench/bench_graph_scale.py [--sizes 1M,3M,10M,30M] [--engines duckdb,spark]
        [--spark-sizes SIZES] [--measures scan,scinet,cd_approx,cd,floor,novelty,path]
        [--limit 1200] [--mem-cap-gib 12] [--repeat 1] [--alpha 2.0] [--randomisations 2] [--precision 12] [--spark-memory 6g] [--duckdb-memory default]
        [--spark-partitions 8] [--work /tmp/sb-graph-scale] [--report RESULTS.json]

Every case runs in a fresh child process (its own session, killed with its JVM at `--limit`
seconds: "stopped at limit"; a measure that stops is not run at larger sizes on that engine).
Memory: a child that passes --mem-cap-gib of resident memory (+ its JVM) is stopped too.
A child generates the graph (seeded: the same graph in every child), registers it in the engine
("load": the papers and edge tables plus the clean `edges` table) and runs one measure ("run").
"base MiB" is the child's peak resident memory before the measure, "peak MiB" after it
(ru_maxrss; + the JVM's VmHWM for Spark). Measures:
  scan       cd_sql.scan(), one pass over the edge table (best of 3; the unit of "x scan")
  scinet     disruption(variant="scinet"): n_i, n_j by the semi-join (about edges x references)
  cd_approx  disruption(variant="cd_approx", precision=P): HyperLogLog |C2|
  cd         disruption(variant="cd"): exact, enumerates the coupled pairs
  floor      cd_sql.floor(None): DuckDB's/Spark's bare join + aggregate on the rows cd touches
  novelty    randomise(N) in numpy + novelty(randomisations=N)
  path       max_citation_path (numpy/scipy, no engine): from the most cited paper of the first
             three years to a last-year paper reaching it (the one with most references)
"coupled rows" = the coupling join's rows after the year rule, (f, r, c) with year(c) > year(f),
computed in numpy (checked against cd_sql.coupled_rows at the smallest size). Per doubling of
papers: (t2 / t1) ** (1 / log2(papers2 / papers1)) between consecutive sizes. Results are saved
as JSON in --work; --report re-prints the tables from such a file.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_graph import peak_mib  # noqa: E402  (resident peak + the JVM's)

MEASURES = ("scan", "scinet", "cd_approx", "cd", "floor", "novelty", "path")
ENGINE_FREE = ("path",)


def size_of(label: str) -> int:
    label = label.strip().upper()
    mult = {"K": 10**3, "M": 10**6, "G": 10**9}.get(label[-1], 1)
    return int(float(label.rstrip("KMG")) * mult)


# ---------------------------------------------------------------- child side
_JAVA: list[int] = []


def _rss_mib(pid: int | str) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _watchdog(cap_mib: float) -> None:
    """Stop this case (and its JVM) when resident memory passes the cap: the machine is shared
    and an out-of-memory kill could hit another process."""
    import threading

    def watch() -> None:
        while True:
            rss = _rss_mib("self") + sum(_rss_mib(p) for p in _JAVA)
            if rss > cap_mib:
                for p in _JAVA:
                    os.kill(p, signal.SIGKILL)
                print(json.dumps({"stopped": f"stopped at memory cap ({cap_mib:,.0f} MiB)"}),
                      flush=True)
                os._exit(0)
            time.sleep(0.1)
    threading.Thread(target=watch, daemon=True).start()


def child(case: dict) -> dict:
    import numpy as np
    _watchdog(case.get("mem_cap_mib", 12 * 1024))
    from _synthetic_graph import coupled_rows, describe, approx_rows, synthetic_graph
    t = time.perf_counter()
    g = synthetic_graph(case["edges"], seed=case["seed"], alpha=case.get("alpha", 2.0))
    out = {"gen_s": time.perf_counter() - t, "papers": g.n_papers, "edges": g.n_edges}
    if case["measure"] == "stats":
        out.update(describe(g))
        t = time.perf_counter()
        out["W"], out["W_after"] = coupled_rows(g)
        out["approx_rows"] = approx_rows(g, case["precision"])
        out["stats_s"] = time.perf_counter() - t
        return out
    if case["measure"] == "path":
        return dict(out, **_path(g))
    from scholarbench.graph import cd_sql, disruption, novelty, randomise
    from scholarbench.graph.engine import DuckDBEngine, SparkEngine, load_graph, spark_session
    java = None
    if case["engine"] == "spark":
        spark_session(case["spark_partitions"], case["spark_memory"])
        eng = SparkEngine()
        java = eng.spark.sparkContext._gateway.proc.pid
        _JAVA.append(java)
    else:
        mem = case.get("duckdb_memory")
        eng = DuckDBEngine(memory_limit=mem) if mem and mem != "default" else DuckDBEngine()
    t = time.perf_counter()
    load_graph(eng, g)
    out["load_s"] = time.perf_counter() - t
    out["base_mib"] = peak_mib(java)
    m, work = case["measure"], Path(case["work"])
    t = time.perf_counter()
    if m == "scan":
        runs = []
        for _ in range(3):
            t = time.perf_counter()
            eng.query(cd_sql.scan())
            runs.append(time.perf_counter() - t)
        out["runs"] = runs
        run = min(runs)
    elif m in ("scinet", "cd_approx", "cd"):
        d = disruption(g, variant=m, engine=eng, precision=case["precision"])
        run = time.perf_counter() - t
        out["defined"] = int(np.isfinite(d.values).sum())
        if m != "scinet":
            np.savez(work / f"{m}-{case['engine']}-{case['label']}.npz", n_i=d.n_i, n_j=d.n_j,
                     n_k=d.n_k, values=d.values)
    elif m == "floor":
        out["pairs"] = int(eng.query(cd_sql.floor(None)).column("pairs")[0].as_py())
        run = time.perf_counter() - t
        if case.get("check_rows"):
            out["coupled_rows_sql"] = int(eng.query(cd_sql.coupled_rows(None)).column("n")[0]
                                          .as_py())
    elif m == "novelty":
        rand = randomise(g, case["randomisations"], 0)
        out["randomise_s"] = time.perf_counter() - t
        nv = novelty(g, randomisations=case["randomisations"], seed=0, engine=eng,
                     randomised=rand)
        run = time.perf_counter() - t
        out["defined"] = int(np.isfinite(nv.values).sum())
    else:
        raise ValueError(m)
    out["run_s"] = run
    out["peak_mib"] = peak_mib(java)
    eng.close()
    return out


def _path(g) -> dict:
    import numpy as np
    from scholarbench.graph import PathError, PathFinder
    out = {"base_mib": peak_mib()}
    c = g.citation_counts()
    r = g.reference_counts()
    early = np.flatnonzero(g.year < g.year.min() + 3)
    src = int(early[np.argmax(c[early])])
    late = np.flatnonzero(g.year == g.year.max())
    t = time.perf_counter()
    finder = PathFinder(g)
    for tgt in late[np.argsort(-r[late], kind="stable")][:5]:
        try:
            p = finder.find(str(g.ids[src]), str(g.ids[tgt]))
            break
        except PathError:
            continue
    else:
        return dict(out, run_s=time.perf_counter() - t, note="no path", peak_mib=peak_mib())
    out["run_s"] = time.perf_counter() - t
    t = time.perf_counter()
    finder.find(str(g.ids[src]), str(g.ids[tgt]))
    out.update(second_s=time.perf_counter() - t, path_papers=len(p.path), score=p.score,
               source_citations=int(c[src]), peak_mib=peak_mib())
    return out


# ---------------------------------------------------------------- parent side
def run_child(case: dict, limit: float) -> dict:
    tmp = Path(case["work"]) / f"tmp-{case['label']}-{case['engine']}-{case['measure']}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "TMPDIR": str(tmp),
           "SPARK_LOCAL_DIRS": str(tmp)}
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, "--child", json.dumps(case)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        shutil.rmtree(tmp, ignore_errors=True)
        return {"stopped": f"stopped at limit ({limit:.0f} s)"}
    finally:
        wall = time.perf_counter() - t
    shutil.rmtree(tmp, ignore_errors=True)
    if proc.returncode != 0:
        log = Path(case["work"]) / f"stderr-{tmp.name[4:]}.txt"
        log.write_text(stderr)
        lines = [x for x in stderr.strip().splitlines() if not x.startswith(("\t", " "))]
        hits = [x for x in lines if "Error" in x or "Exception" in x] or lines
        return {"error": hits[-1][:200] if hits else f"exit {proc.returncode}",
                "stderr": str(log), "wall_s": wall}
    return dict(json.loads(stdout.strip().splitlines()[-1]), wall_s=wall)


def source_version() -> str:
    """HEAD and whether src/scholarbench/graph differs from it (other people edit the tree)."""
    root = Path(__file__).resolve().parents[1]
    git = ["git", "-C", str(root)]
    head = subprocess.run(git + ["rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    dirty = subprocess.run(git + ["status", "--porcelain", "src/scholarbench/graph"],
                           capture_output=True, text=True).stdout.strip()
    return head + (" + uncommitted changes in src/scholarbench/graph" if dirty else "")


def load_avg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1M,3M,10M,30M")
    ap.add_argument("--engines", default="duckdb,spark")
    ap.add_argument("--spark-sizes", default=None,
                    help="sizes Spark is tried at (default: all; a measure stopped at the limit "
                    "is not retried larger)")
    ap.add_argument("--measures", default=",".join(MEASURES))
    ap.add_argument("--repeat", type=int, default=1,
                    help="fresh children per case on --repeat-engines; the table shows the "
                    "fastest (a shared machine's load varies)")
    ap.add_argument("--repeat-engines", default="duckdb,numpy")
    ap.add_argument("--mem-cap-gib", type=float, default=12.0,
                    help="a case whose resident memory (+ its JVM's) passes this is stopped")
    ap.add_argument("--limit", type=float, default=1200.0, help="seconds per case")
    ap.add_argument("--randomisations", type=int, default=2)
    ap.add_argument("--precision", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--alpha", type=float, default=2.0,
                    help="citation tail exponent (P(c > x) ~ x^-alpha); lower: bigger hubs")
    ap.add_argument("--spark-memory", default="6g")
    ap.add_argument("--duckdb-memory", default="default",
                    help="DuckDB memory_limit, e.g. 8GB ('default': the engine's default)")
    ap.add_argument("--spark-partitions", type=int, default=8)
    ap.add_argument("--work", default="/tmp/sb-graph-scale")
    ap.add_argument("--report", help="re-print the tables of a saved results JSON")
    ap.add_argument("--child")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    if args.report:
        saved = json.loads(Path(args.report).read_text())
        report(saved)
        return
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    engines = [e for e in args.engines.split(",") if e]
    measures = [m for m in args.measures.split(",") if m]
    spark_sizes = {s.strip().upper() for s in (args.spark_sizes or args.sizes).split(",")}
    labels = [s.strip().upper() for s in args.sizes.split(",")]
    common = {"seed": args.seed, "alpha": args.alpha, "precision": args.precision, "work": str(work),
              "randomisations": args.randomisations, "spark_memory": args.spark_memory,
              "duckdb_memory": args.duckdb_memory,
              "mem_cap_mib": args.mem_cap_gib * 1024,
              "spark_partitions": args.spark_partitions}
    saved = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "args": vars(args),
             "source": source_version(),
             "cpus": os.cpu_count(), "sizes": {}, "results": [],
             "mem_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)}
    out_json = work / "results.json"
    stopped: set[tuple[str, str]] = set()
    for i, label in enumerate(labels):
        base = dict(common, label=label, edges=size_of(label), check_rows=i == 0)
        st = run_child(dict(base, engine="-", measure="stats"), args.limit)
        saved["sizes"][label] = st
        print(f"[{time.strftime('%H:%M:%S')}] {label}: {json.dumps(st)}", flush=True)
        for engine in engines + ["numpy"]:
            if engine == "spark" and label not in spark_sizes:
                continue
            for m in measures:
                if (m in ENGINE_FREE) != (engine == "numpy"):
                    continue
                rec = {"label": label, "engine": engine, "measure": m, "load_before": load_avg()}
                if (engine, m) in stopped:
                    rec["skipped"] = "stopped at a smaller size"
                else:
                    tries = []
                    for _ in range(args.repeat if engine in args.repeat_engines else 1):
                        tries.append(run_child(dict(base, engine=engine, measure=m), args.limit))
                        if "run_s" not in tries[-1]:
                            break
                    ok = [x for x in tries if "run_s" in x]
                    rec.update(min(ok, key=lambda x: x["run_s"]) if ok else tries[-1])
                    if len(ok) > 1:
                        rec["all_runs"] = [x["run_s"] for x in ok]
                        rec["all_peaks"] = [x["peak_mib"] for x in ok]
                    if "stopped" in rec:
                        stopped.add((engine, m))
                rec["load_after"] = load_avg()
                saved["results"].append(rec)
                print(f"[{time.strftime('%H:%M:%S')}] {json.dumps(rec)}", flush=True)
                out_json.write_text(json.dumps(saved, indent=1))
    saved["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
    saved["source_at_end"] = source_version()
    saved["errors"] = errors(work, labels, engines)
    out_json.write_text(json.dumps(saved, indent=1))
    print(f"\nresults: {out_json}\n")
    report(saved)


# ---------------------------------------------------------------- tables
def errors(work: Path, labels: list[str], engines: list[str]) -> list[dict]:
    """cd_approx against exact cd (same engine, else DuckDB's exact), and Spark against DuckDB."""
    import numpy as np
    rows = []
    for label in labels:
        for eng in engines:
            fa = work / f"cd_approx-{eng}-{label}.npz"
            fe = next((f for f in (work / f"cd-{eng}-{label}.npz", work / f"cd-duckdb-{label}.npz")
                       if f.exists()), None)
            if not fa.exists() or fe is None:
                continue
            a, e = np.load(fa), np.load(fe)
            c2, c2a = e["n_j"] + e["n_k"], a["n_j"] + a["n_k"]
            ok = c2 > 0
            rel = np.abs(c2a[ok] - c2[ok]) / c2[ok]
            da, de = np.isfinite(a["values"]), np.isfinite(e["values"])
            both = da & de
            diff = np.abs(a["values"][both] - e["values"][both])
            row = {"label": label, "engine": eng, "exact_from": fe.name, "papers_c2": int(ok.sum()),
                   "rel_median": float(np.median(rel)), "rel_p95": float(np.quantile(rel, .95)),
                   "rel_max": float(rel.max()), "d_mean": float(diff.mean()),
                   "d_p95": float(np.quantile(diff, .95)), "d_max": float(diff.max()),
                   "defined_agree": bool((da == de).all()), "defined": int(da.sum()),
                   "defined_exact": int(de.sum())}
            if eng != "duckdb":
                for m in ("cd", "cd_approx"):
                    f1, f2 = work / f"{m}-{eng}-{label}.npz", work / f"{m}-duckdb-{label}.npz"
                    if f1.exists() and f2.exists():
                        row[f"{m}_same_as_duckdb"] = bool(np.array_equal(
                            np.load(f1)["values"], np.load(f2)["values"], equal_nan=True))
            rows.append(row)
    return rows


def _f(x: float, d: int = 2) -> str:
    return f"{x:,.{d}f}"


def report(saved: dict) -> None:
    sizes, res = saved["sizes"], saved["results"]
    print(f"Run {saved['started']} .. {saved.get('finished', '(unfinished)')}, source "
          f"{saved.get('source', '?')}, "
          f"{saved['cpus']} CPUs, {saved['mem_gib']} GiB; case time limit "
          f"{saved['args']['limit']:.0f} s; novelty N = {saved['args']['randomisations']}; "
          f"cd_approx precision {saved['args']['precision']}; DuckDB memory_limit "
          f"{saved['args'].get('duckdb_memory', 'default')}; Spark local[*], driver memory "
          f"{saved['args']['spark_memory']}, {saved['args']['spark_partitions']} shuffle "
          f"partitions\n")
    print("| size | papers | edges | mean refs | max citations | p99 citations | Σc²/E "
          "| coupled rows (after year rule) | Σc·min(c,2^p) / E | dup dropped | gen s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, s in sizes.items():
        if "edges" not in s or "W" not in s:
            print(f"| {label} | {s.get('stopped') or s.get('error')} |")
            continue
        print(f"| {label} | {s['papers']:,} | {s['edges']:,} | {s['mean_refs']:.2f} | "
              f"{s['max_citations']:,} | {s['p99_citations']:.0f} | {s['W_per_edge']:.1f} | "
              f"{s['W_after']:,} | {s['approx_rows'] / s['edges']:.1f} | {s['dup']:,} | "
              f"{s['gen_s']:.1f} |")
    for r in res:
        if "coupled_rows_sql" in r:
            w = sizes[r["label"]]["W_after"]
            print(f"coupled rows at {r['label']}: numpy {w:,}, cd_sql.coupled_rows on "
                  f"{r['engine']} {r['coupled_rows_sql']:,}: "
                  f"{'equal' if w == r['coupled_rows_sql'] else 'DIFFERENT'}")
    scan = {(r["label"], r["engine"]): r["run_s"] for r in res
            if r["measure"] == "scan" and "run_s" in r}
    print("\n| size | engine | measure | load s | run s | edges/s | × scan | base MiB | peak MiB "
          "| load avg | note |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---|---|")
    for r in res:
        head = f"| {r['label']} | {r['engine']} | {r['measure']} |"
        why = r.get("stopped") or r.get("skipped") or r.get("error")
        if why:
            print(f"{head} | | | | | | {r['load_before']} | {why} |")
            continue
        e = sizes[r["label"]]["edges"]
        sc = scan.get((r["label"], r["engine"]))
        note = []
        if "defined" in r:
            note.append(f"defined {r['defined']:,}")
        if r["measure"] == "scan":
            note.append("runs " + ", ".join(f"{x:.3f}" for x in r["runs"]))
        if r["measure"] == "floor":
            note.append(f"distinct pairs {r['pairs']:,}")
        if "all_runs" in r:
            note.append("all runs " + ", ".join(f"{x:.2f}" for x in r["all_runs"]))
        if "randomise_s" in r:
            note.append(f"randomise {r['randomise_s']:.1f} s")
        if "path_papers" in r:
            note.append(f"{r['path_papers']} papers, S = {r['score']:,}; again "
                        f"{r['second_s']:.1f} s")
        print(f"{head} {_f(r.get('load_s', 0))} | {_f(r['run_s'])} | {e / r['run_s']:,.0f} | "
              f"{_f(r['run_s'] / sc, 1) if sc and r['measure'] != 'path' else ''} | "
              f"{r['base_mib']:,.0f} | {r['peak_mib']:,.0f} | {r['load_before']} | "
              f"{'; '.join(note)} |")
    print("\n| size | engine | coupled rows | cd s | cd rows/s | floor s | floor rows/s "
          "| cd / floor throughput |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    done = {(r["label"], r["engine"], r["measure"]): r for r in res if "run_s" in r}
    for (label, eng, m), r in done.items():
        if m != "cd":
            continue
        w = sizes[label]["W_after"]
        fl = done.get((label, eng, "floor"))
        fcells = (f"{_f(fl['run_s'])} | {w / fl['run_s']:,.0f} | {fl['run_s'] / r['run_s']:.2f}"
                  if fl else " | | ")
        print(f"| {label} | {eng} | {w:,} | {_f(r['run_s'])} | {w / r['run_s']:,.0f} | "
              f"{fcells} |")
    print("\nPer doubling of papers: time factor / peak-memory factor (target ≤ 2.2× time for "
          "scinet and cd_approx)\n")
    labels = list(sizes)
    steps = list(zip(labels, labels[1:]))
    print("| engine | measure | " + " | ".join(f"{a}→{b}" for a, b in steps) + " |")
    print("|---|---|" + "---:|" * len(steps))
    for eng in dict.fromkeys(r["engine"] for r in res):
        for m in dict.fromkeys(r["measure"] for r in res if r["engine"] == eng):
            cells = []
            for a, b in steps:
                ra, rb = done.get((a, eng, m)), done.get((b, eng, m))
                if not ra or not rb:
                    cells.append("")
                    continue
                k = 1 / math.log2(sizes[b]["papers"] / sizes[a]["papers"])
                cells.append(f"{(rb['run_s'] / ra['run_s']) ** k:.2f}× / "
                             f"{(rb['peak_mib'] / ra['peak_mib']) ** k:.2f}×")
            print(f"| {eng} | {m} | " + " | ".join(cells) + " |")
    if saved.get("errors"):
        print("\ncd_approx against exact cd: relative error of |C2| over papers with |C2| > 0, "
              "|cd_approx − cd| over papers where both are defined\n")
        print("| size | engine | papers | \\|C2\\| rel. err median / p95 / max | "
              "\\|Δcd\\| mean / p95 / max | defined sets agree | Spark = DuckDB (cd, cd_approx) |")
        print("|---|---|---:|---|---|---|---|")
        for x in saved["errors"]:
            same = ", ".join(str(x[k]) for k in ("cd_same_as_duckdb", "cd_approx_same_as_duckdb")
                             if k in x)
            print(f"| {x['label']} | {x['engine']} | {x['papers_c2']:,} | "
                  f"{x['rel_median']:.4f} / {x['rel_p95']:.4f} / {x['rel_max']:.4f} | "
                  f"{x['d_mean']:.5f} / {x['d_p95']:.5f} / {x['d_max']:.5f} | "
                  f"{'yes' if x['defined_agree'] else 'no'} ({x['defined']:,} vs "
                  f"{x['defined_exact']:,}) | {same} |")


if __name__ == "__main__":
    main()
