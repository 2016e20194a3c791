"""`scholarbench demo`: the main job end to end on whatever data is installed.

Uses the imported TaxoBench data when there is some; otherwise writes the project's own small
demo set into the data directory, and says which it used. Runs `cluster` in Bottom-Up mode and
`bm25-title` in Deep Research mode, then prints the leaderboard beside the paper's rows; on
the built-in set each of our rows says so on its own line ("… (demo set, not the paper's
surveys)"), since the paper's rows under it are measured on its 72 surveys.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from scholarbench.paths import DATA_HELP, data_dir
from scholarbench.data.demo import write_demo
from scholarbench.embed import default_embedder


def add_demo_parser(sub: argparse._SubParsersAction) -> None:
    demo = sub.add_parser("demo", help="run the main job: TaxoBench in both modes, then the "
                          "leaderboard")
    demo.add_argument("--data", help=DATA_HELP)
    demo.add_argument("--out", default="runs/demo", help="where the demo's run directories go")
    demo.add_argument("--limit", type=int)
    demo.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    run_demo(data=args.data, out=Path(args.out), limit=args.limit)
    return 0


def run_demo(data: str | None, out: Path, limit: int | None = None) -> None:
    # deferred: pulls in pyarrow
    from scholarbench.corpus.build import build_corpus, build_default_corpus
    # deferred: pulls in scipy
    from scholarbench.benchmarks.taxobench.tables import leaderboard, load_runs
    # deferred: pulls in scipy
    from scholarbench.benchmarks.taxobench.runner import RunConfig, run

    root = data_dir(data)
    imported = sorted((root / "taxobench").glob("*.jsonl"))
    label = ""         # on each of our rows, beside the paper's: whose instances they are
    if imported:
        gold = imported[0]
        print(f"using imported TaxoBench data: {gold}")
        corpus = root / "corpus" / "default"
        build_default_corpus(corpus, root)
    else:
        gold, distractors = write_demo(root / "demo")
        print(f"no TaxoBench data imported in {root}; using the built-in demo set ({gold}). "
              "Import the real data with `scholarbench data import taxobench PATH`.")
        corpus = root / "demo" / "corpus"
        label = " (demo set, not the paper's surveys)"
        build_corpus(corpus, [gold], None, extra_papers_file=distractors)
    embedder = default_embedder()
    dirs = []
    for mode, agent in (("bottom-up", "cluster"), ("deep-research", "bm25-title")):
        target = out / f"{mode}-{agent}"
        print(f"\n== TaxoBench {mode}, agent {agent} → {target}")
        run(RunConfig(gold_path=gold, mode=mode, agent=agent, out=target, limit=limit,
                      corpus_dir=corpus if mode == "deep-research" else None,
                      run_name=f"{agent}{label}" if label else None), embedder)
        dirs.append(target)
    print()
    print(leaderboard(load_runs(dirs), fmt="terminal", published=True))
    print(f"\nrun directories: {', '.join(str(d) for d in dirs)}  "
          f"(re-score with `scholarbench score DIR`, tables with `scholarbench report DIR...`)")
