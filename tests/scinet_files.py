"""The hand-made graph of test_scinet_core.py as files on disk, for command-line SciNet tests:
an arxiv-2023 folder (ids, titles, labels, edges as gzipped CSV) and an unArXive folder whose
citation contexts and paragraph are those of `tiny_env()`."""
from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

from test_scinet_core import EDGES, PAPERS

UNARXIVE = [
    {"paper_id": "1201.00001",        # C: "We build on the method of A." (Positive)
     "bib_entries": {"x": {"ids": {"arxiv_id": "1001.00001"}}},
     "body_text": [{"text": "We build on the method of {{cite:x}}."}]},
    {"paper_id": "1101.00001",        # B: "However, A fails on images." (Negative)
     "bib_entries": {"x": {"ids": {"arxiv_id": "1001.00001"}}},
     "body_text": [{"text": "However, {{cite:x}} fails on images."}]},
    {"paper_id": "2301.99999",        # a paper outside the graph: A and D in one paragraph
     "bib_entries": {"x": {"ids": {"arxiv_id": "1001.00001"}},
                     "y": {"ids": {"arxiv_id": "1301.00001"}}},
     "body_text": [{"text": "Following {{cite:x}}, we train. Attention {{cite:y}} helps."}]},
]


def _gz_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    path.write_bytes(gzip.compress(text.getvalue().encode("utf-8")))


def write_tiny_graph(root: Path) -> tuple[Path, Path]:
    """(graph folder, unArXive folder) under `root`."""
    graph, unarxive = root / "arxiv2023", root / "unarxive"
    graph.mkdir(parents=True, exist_ok=True)
    unarxive.mkdir(parents=True, exist_ok=True)
    index = {p["id"]: i for i, p in enumerate(PAPERS)}
    _gz_csv(graph / "ids.csv.gz", ["ids"], [[p["id"].removeprefix("arxiv:")] for p in PAPERS])
    _gz_csv(graph / "titles.csv.gz", ["titles"], [[p["title"]] for p in PAPERS])
    _gz_csv(graph / "labels.csv.gz", ["labels"], [[p["venue"]] for p in PAPERS])
    _gz_csv(graph / "edges.csv.gz", ["source", "target"],
            [[str(index[a]), str(index[b])] for a, b in EDGES])
    (unarxive / "arXiv_src_tiny.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in UNARXIVE), encoding="utf-8")
    return graph, unarxive


def write_tiny_tasks(root: Path) -> tuple[Path, Path, Path]:
    """(graph folder, unArXive folder, task file built from them with small settings)."""
    from scholarbench.benchmarks.scinet.env import EnvSettings, SciNetEnv
    from scholarbench.benchmarks.scinet.records import write_tasks
    from scholarbench.benchmarks.scinet.tasks import BuildSettings, build_tasks
    graph, unarxive = write_tiny_graph(root)
    env = SciNetEnv.from_arxiv2023(graph, unarxive, EnvSettings(randomisations=3))
    tasks = root / "tasks.jsonl"
    write_tasks(build_tasks(env, settings=BuildSettings(
        min_papers=2, n_pair=5, min_citers=1, n_classic=3, n_recent=3, recent_years=3,
        per_category=2)), tasks)
    return graph, unarxive, tasks
