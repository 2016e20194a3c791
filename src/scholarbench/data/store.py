"""The user's data directory: `data import` validates and copies files in; `data list` shows them.

Layout: <data>/taxobench/*.jsonl (instance files), <data>/reportbench/gt/ (ground-truth reference
lists) and <data>/reportbench/ReportBench_v1.1.jsonl (the task surveys, when the imported folder
has it), <data>/deepsynth/*.jsonl (DeepSynth-Eval task files) — these two written by the
benchmark's registered "dataset" importer (`importer(source, <data>/<name>) -> counts`), <data>/{arxiv2023, unarxive,
s2ag, openalex, deep-review}/ (copies of those source folders, as laid out in the shared data),
<data>/corpus/default/ (the built corpus), <data>/index.json.
`scholarbench.corpus.build.build_default_corpus(out, <data>)` reads this layout.
"""
from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from scholarbench.data.jsonl import iter_jsonl_lines
from scholarbench.data.source_tree import check_source
from scholarbench.data.sources import SOURCES, EdgeRecord, PaperRecord
from scholarbench.data.taxobench import load_instances
from scholarbench.errors import DataError, ScholarbenchError
from scholarbench.files import sha256_file
from scholarbench.registry import REGISTRY

# Source folders copied whole (licence and provenance files travel with the data).
FOLDER_DATASETS = ("arxiv2023", "unarxive", "s2ag", "openalex", "deep-review")


def datasets() -> tuple[str, ...]:
    """What `data import` takes: TaxoBench instance files (read by `data.taxobench`), each
    benchmark's registered "dataset" (ReportBench, DeepSynth-Eval, plug-ins) and the source
    folders."""
    return ("taxobench", *REGISTRY.names("dataset"), *FOLDER_DATASETS)


def _index_path(data: Path) -> Path:
    return data / "index.json"


def read_index(data: Path) -> dict[str, Any]:
    path = _index_path(data)
    if not path.exists():
        return {}
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ScholarbenchError(f"{path}: not a readable data index ({exc}); move it aside and "
                                "import the data again") from None
    if not isinstance(index, dict) or not all(isinstance(v, dict) for v in index.values()):
        raise ScholarbenchError(f"{path}: not a data index (expected an object of objects); "
                                "move it aside and import the data again")
    return index


def _write_index(data: Path, index: dict[str, Any]) -> None:
    data.mkdir(parents=True, exist_ok=True)
    _index_path(data).write_text(json.dumps(index, indent=2) + "\n")


def _taxobench_files(source: Path) -> list[Path]:
    """Instance files under `source` (a file or a folder); prediction files are left out."""
    files = [source] if source.is_file() else sorted(source.glob("*.jsonl"))
    out = []
    for path in files:
        first = next(iter_jsonl_lines(path), None)
        if first is None:
            if source.is_file():
                raise DataError("no TaxoBench instances in the file (it is empty)",
                                file=str(path))
            continue
        lineno, obj, problem = first
        if problem is not None:
            raise DataError(problem, file=str(path), line=lineno)
        if "gt" in obj:
            out.append(path)
    return out


def import_dataset(name: str, source: Path, data: Path) -> dict[str, Any]:
    """Validate and copy `source` into `<data>/<name>/` and add its files to the index.

    The index keeps every file imported under `name` (each with its own source and time); a
    file of the same name replaces the earlier one, and the returned entry's `replaced` names
    those (with where they came from) so the command can say so."""
    if name not in datasets():
        raise ScholarbenchError(f"unknown dataset {name!r}; known: {', '.join(datasets())}")
    if not source.exists():
        raise ScholarbenchError(f"{source}: no such file or folder")
    check_source(source, data, tree=name in FOLDER_DATASETS)   # before anything is copied
    index = read_index(data)
    target = data / name
    target.mkdir(parents=True, exist_ok=True)
    entry: dict[str, Any] = {"source": str(source.resolve()),
                             "imported": datetime.now(timezone.utc).isoformat(), "files": {}}
    if name == "taxobench":
        files = _taxobench_files(source)
        if not files:
            raise ScholarbenchError(f"{source}: no TaxoBench instance file (.jsonl with 'gt') found")
        for path in files:
            tasks = load_instances(path)      # validates: raises DataError naming file/line/field
            shutil.copyfile(path, target / path.name)
            entry["files"][path.name] = {"sha256": sha256_file(path), "instances": len(tasks)}
    elif name in FOLDER_DATASETS:
        entry["files"] = {"records": _import_folder(name, source, target)}
    else:   # a benchmark's own data (its registry "dataset" entry validates and copies)
        entry["files"] = REGISTRY.get("dataset", name)(source, target)
    index[name], entry["replaced"] = _merged(index.get(name), entry)
    _write_index(data, index)
    return entry


def _merged(old: dict[str, Any] | None, new: dict[str, Any]) -> tuple[dict[str, Any], dict]:
    """The index entry of a kind after importing `new`: the earlier files kept, those of the
    same name replaced; and {replaced name: its earlier source}."""
    stamp = {"source": new["source"], "imported": new["imported"]}
    files = {k: {**v, **stamp} if isinstance(v, dict) else v for k, v in new["files"].items()}
    before = dict((old or {}).get("files") or {})
    replaced = {k: (before[k].get("source") if isinstance(before[k], dict) else None)
                or (old or {}).get("source") or "?" for k in files if k in before}
    before.update(files)
    return {**stamp, "files": before}, replaced


def _import_folder(name: str, source: Path, target: Path) -> dict[str, int]:
    """Validate a source folder by reading every record, then copy it into `target`."""
    spec = next(s for s in SOURCES if s.name == name)
    if not source.is_dir() or not spec.present(source):
        raise ScholarbenchError(f"{source}: not a {name} folder (expected the layout of "
                                f"{' or '.join(spec.folders)}/ in the shared data)")
    counts = {"papers": 0, "edges": 0, "paragraphs": 0}
    for record in spec.read(source):    # raises DataError naming file, line and field
        kind = ("papers" if isinstance(record, PaperRecord)
                else "edges" if isinstance(record, EdgeRecord) else "paragraphs")
        counts[kind] += 1
    if source.resolve() != target.resolve():
        shutil.copytree(source, target, dirs_exist_ok=True)
    return counts


def latest_import(data: Path, name: str) -> str | None:
    """The file name imported last under `name` that is still there (by the index's times;
    `eval` runs it unless told otherwise), else None."""
    entry = read_index(data).get(name) or {}
    files = entry.get("files") or {}
    dated = [(str(info.get("imported") or entry.get("imported") or ""), fname)
             for fname, info in files.items()
             if isinstance(info, dict) and (data / name / fname).is_file()]
    return max(dated)[1] if dated else None


def taxobench_gold_file(data: Path, name: str | None = None) -> Path:
    folder = data / "taxobench"
    files = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    if name:
        files = [f for f in files if f.name == name or f.stem == name]
    if not files:
        raise ScholarbenchError(
            f"no TaxoBench data in {folder}; run `scholarbench data import taxobench PATH` "
            "or `scholarbench demo` (which writes a small demo set)")
    if len(files) > 1:
        raise ScholarbenchError(f"several TaxoBench files in {folder}: "
                                f"{', '.join(f.name for f in files)}; choose one with --gold-name")
    return files[0]


def list_datasets(data: Path) -> list[str]:
    index = read_index(data)
    lines = [f"data directory: {data}"]
    if not index:
        lines.append("  (nothing imported yet)")
    for name, entry in sorted(index.items()):
        for fname, info in entry.get("files", {}).items():
            info = info if isinstance(info, dict) else {"value": info}
            counts = ", ".join(f"{k}={v}" for k, v in info.items()
                               if k not in ("sha256", "source", "imported"))
            lines.append(f"  {name}/{fname}: {counts}  "
                         f"(from {info.get('source') or entry.get('source')})")
    corpus = data / "corpus" / "default" / "manifest.json"
    if corpus.exists():
        lines.append(f"  corpus/default: {json.loads(corpus.read_text()).get('counts')}")
    return lines
