"""`scholarbench data import NAME PATH | list`: the benchmark data in the data directory."""
from __future__ import annotations

import argparse
from pathlib import Path

from scholarbench.data.store import datasets, import_dataset, list_datasets
from scholarbench.paths import DATA_HELP, data_dir


def add_data_parser(sub: argparse._SubParsersAction) -> None:
    data = sub.add_parser("data", help="import and list benchmark data")
    data.add_argument("--data", help=DATA_HELP)
    dsub = data.add_subparsers(dest="data_cmd", required=True)
    imp = dsub.add_parser("import", help="validate a dataset and copy it into the data directory")
    imp.add_argument("name", choices=datasets())
    imp.add_argument("path")
    dsub.add_parser("list", help="what is in the data directory")
    data.set_defaults(func=cmd_data)


def cmd_data(args: argparse.Namespace) -> int:
    data = data_dir(args.data)
    if args.data_cmd == "import":
        entry = import_dataset(args.name, Path(args.path), data)
        print(f"imported {args.name} into {data / args.name}: {entry['files']}")
        for name, source in entry["replaced"].items():
            print(f"replaced {args.name}/{name} (imported earlier from {source})")
    else:
        print("\n".join(list_datasets(data)))
    return 0
