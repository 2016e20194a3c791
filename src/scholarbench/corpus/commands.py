"""`scholarbench corpus build | resolve | dense`: the offline corpus of the data directory."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scholarbench.corpus.build import default_corpus
from scholarbench.corpus.dense import DENSE_DIRS
from scholarbench.corpus.resolve import resolve_command
from scholarbench.corpus.store import Corpus
from scholarbench.embed.minilm import default_embedder
from scholarbench.paths import DATA_HELP, data_dir


def add_corpus_parser(sub: argparse._SubParsersAction) -> None:
    corpus = sub.add_parser("corpus", help="build the offline corpus from the imported data; "
                            "resolve references (ids, DOIs, arXiv ids, titles) to its papers")
    csub = corpus.add_subparsers(dest="action", required=True)
    build = csub.add_parser("build", help="build the default corpus from the imported data")
    build.add_argument("--data", help=DATA_HELP)
    resolve = csub.add_parser("resolve", help="print REF<TAB>paper_id for each reference, or "
                              "REF<TAB>- when it names no corpus paper")
    resolve.add_argument("refs", nargs="*", metavar="REF",
                         help="corpus ids, DOIs, arXiv ids or titles")
    resolve.add_argument("--file", help="a file of references, one a line")
    resolve.add_argument("--corpus", help="corpus directory (default: the data dir's default "
                         "corpus)")
    resolve.add_argument("--data", help=DATA_HELP)
    dense = csub.add_parser("dense", help="build the dense (MiniLM) indices that dense and "
                            "hybrid search read; the tools refuse those modes until they exist")
    dense.add_argument("--corpus", help="corpus directory (default: the data dir's default "
                       "corpus)")
    dense.add_argument("--fields", choices=["title", "title+abstract", "all"], default="all",
                       help="which index (default: both)")
    dense.add_argument("--data", help=DATA_HELP)
    corpus.set_defaults(func=cmd_corpus)


def cmd_corpus(args: argparse.Namespace) -> int:
    if args.action == "resolve":
        corpus = Path(args.corpus) if args.corpus else data_dir(args.data) / "corpus" / "default"
        text, unresolved = resolve_command(corpus, args.refs, args.file)
        print(text)
        if unresolved:
            print(f"{unresolved} reference(s) did not resolve (marked -)", file=sys.stderr)
        return 0
    if args.action == "dense":
        return _build_dense(Path(args.corpus) if args.corpus else
                            default_corpus(data_dir(args.data)), args.fields)
    default_corpus(data_dir(args.data), rebuild=True)
    return 0


def _build_dense(corpus_dir: Path, fields: str) -> int:
    """Build (or find up to date) the MiniLM dense indices the tools' dense search reads."""
    corpus, embedder = Corpus.open(corpus_dir), default_embedder()
    try:
        for name in (sorted(DENSE_DIRS) if fields == "all" else [fields]):
            index = corpus.dense_index(name, embedder)
            state = "built" if index.rebuilt else "up to date"
            print(f"dense index {corpus_dir / DENSE_DIRS[name]}: {state} ({index.count} papers, "
                  f"{embedder.model_id})")
    finally:
        corpus.close()
    return 0
