"""`scholarbench judge validate [--datasets …] [--limit N] [--out FILE] --judge …`."""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from scholarbench.errors import ScholarbenchError
from scholarbench.core.commands import _models
from scholarbench.llm.commands import add_model_flags
from scholarbench.paths import data_dir
from scholarbench.judges.labelled import DATASETS, SPLITS, load


def add_judge_parser(sub: Any) -> None:
    judge = sub.add_parser("judge", help="check LLM judges against human labels "
                           "(docs/judges.md)")
    jsub = judge.add_subparsers(dest="judge_cmd", required=True)
    p = jsub.add_parser("validate", help="run SciNet's citation-sentiment judge on human-"
                        "labelled citation contexts; accuracy and Cohen's kappa beside the "
                        "papers' own figures")
    p.add_argument("--data", help="folder holding citation_intent/ and clscisumm/ (default: "
                   "--data, $SCHOLARBENCH_DATA, the data dir)")
    p.add_argument("--datasets", default=",".join(DATASETS),
                   help=f"comma-separated, of {', '.join(DATASETS)} (default all)")
    p.add_argument("--split", default="test", choices=SPLITS,
                   help="SciCite / ACL-ARC split (default test)")
    p.add_argument("--limit", type=int, help="a seeded sample of N mapped items per data set")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="write the full result (every item) as JSON here")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_model_flags(p, agent=False, judge=True)
    p.set_defaults(func=cmd_judge_validate)


def cmd_judge_validate(args: argparse.Namespace) -> int:
    # deferred: pulls in pyarrow and SciNet's judge (`judge --help` loads neither)
    from scholarbench.benchmarks.scinet.sentiment_judge import SentimentJudge
    from scholarbench.judges.validate import (NO_HUMAN_LABELS, SCINET_PUBLISHED,
                                              TAXOBENCH_PUBLISHED, format_validation,
                                              validate_dataset)
    if args.limit is not None and args.limit < 1:
        raise ScholarbenchError("--limit must be >= 1")
    names = [n.strip() for n in args.datasets.split(",") if n.strip()]
    root = data_dir(args.data)
    loaded = [load(name, root, args.split) for name in names]     # bad input before any call
    client = _models(args).judge()
    judge = SentimentJudge(client)
    before = client.usage.as_dict()
    datasets = []
    for data in loaded:
        bar = _bar(args, data)
        datasets.append(validate_dataset(judge, data, limit=args.limit, seed=args.seed,
                                         progress=bar.update if bar else None))
        if bar:
            bar.close()
    after = client.usage.as_dict()
    result: dict[str, Any] = {
        "judge": {"model_id": judge.model, "prompt": judge.prompt.identity()},
        "split": args.split, "limit": args.limit, "seed": args.seed,
        "usage": {k: after[k] - before.get(k, 0) for k in after
                  if isinstance(after[k], int) and not isinstance(after[k], bool)},
        "datasets": datasets, "published": {"scinet": SCINET_PUBLISHED,
                                            "taxobench": TAXOBENCH_PUBLISHED},
        "no_human_labels": NO_HUMAN_LABELS}
    print(format_validation(result))
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


def _bar(args: argparse.Namespace, data: Any) -> Any:
    if args.quiet:
        return None
    from tqdm import tqdm
    total = len(data.items) if args.limit is None else min(args.limit, len(data.items))
    return tqdm(total=total, desc=f"judge validate {data.dataset}", unit="item", leave=False)
