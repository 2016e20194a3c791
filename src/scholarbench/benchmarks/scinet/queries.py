"""SciNet's query wording, and the loader for the upstream query files
(`Queries/Task1|Task2|Task3/*.json`, each one JSON object)."""
from __future__ import annotations

import json
import re
from pathlib import Path

from scholarbench.data.identifiers import parse_id
from scholarbench.errors import DataError
from scholarbench.benchmarks.scinet.records import SciNetTask

EGO = "What are the top 5 most {adj} papers in the field of {field}?"
PNCITES = 'Which papers positively cite the paper titled "{title}"?'
COOCCUR = ('Which papers co-occur with the paper titled "{title}" in citation contexts and are '
           'similar?')
PATH = ('What is the most influential citation path from "{classic}" to "{recent}" in the field '
        'of {field}?')
ADJECTIVE = {"novel": "novel", "disruptive": "disruptive"}

_EGO_RE = re.compile(r"^What are the top \d+ most (novel|disruptive) papers in the field of (.+)\?$",
                     re.S)
_PAIR_RE = {"pncites": re.compile(r'^Which papers positively cite the paper titled "(.*)"\?$', re.S),
            "cooccur": re.compile(r'^Which papers co-occur with the paper titled "(.*)" in '
                                  r'citation contexts and are similar\?$', re.S)}
_PATH_RE = re.compile(r'^What is the most influential citation path from "(.*)" to "(.*)" in the '
                      r'field of (.+)\?$', re.S)
_FILE_T1 = re.compile(r"^queries_task1_(novel|disruptive)_(\w+)\.json$")
_FILE_T2 = re.compile(r"^queries_(\w+?)_(pncites|cooccur)\.json$")
_FILE_T3 = re.compile(r"^queries_task3_path_(\w+)\.json$")


def ego_query(kind: str, field: str) -> str:
    return EGO.format(adj=ADJECTIVE[kind], field=field)


def pair_query(kind: str, title: str) -> str:
    return (PNCITES if kind == "pncites" else COOCCUR).format(title=title)


def path_query(classic: str, recent: str, field: str) -> str:
    return PATH.format(classic=classic, recent=recent, field=field)


def normalise_openalex(text: object) -> str | None:
    """'openalex:W123' for 'W123', 'https://openalex.org/W123', 'openalex:W123'; else None."""
    if not isinstance(text, str):
        return None
    try:
        key = parse_id(text.strip())
    except Exception:
        return None
    return str(key) if key.kind == "openalex" else None


def _line_of(raw: str, key: str) -> int | None:
    """1-based line where the JSON key first appears (for error messages)."""
    pos = raw.find(json.dumps(key, ensure_ascii=False)[:-1])
    if pos < 0:
        pos = raw.find(json.dumps(key)[:-1])
    return raw.count("\n", 0, pos) + 1 if pos >= 0 else None


def load_query_file(path: str | Path) -> list[SciNetTask]:
    """One upstream query file -> tasks without ground truth (`gold` None)."""
    path = Path(path)
    name = path.name
    if m := _FILE_T1.match(name):
        family, kind, domain = "ego", m.group(1), m.group(2)
    elif m := _FILE_T2.match(name):
        family, kind, domain = "pair", m.group(2), m.group(1)
    elif m := _FILE_T3.match(name):
        family, kind, domain = "path", "path", m.group(1)
    else:
        raise DataError("not a SciNet query file name (queries_task1_<novel|disruptive>_<D>.json, "
                        "queries_<D>_<pncites|cooccur>.json, queries_task3_path_<D>.json)",
                        file=str(path))
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read: {exc}", file=str(path)) from exc
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise DataError(f"not valid JSON ({exc.msg} at column {exc.colno})", file=str(path),
                        line=exc.lineno) from exc
    if not isinstance(data, dict):
        raise DataError(f"expected a JSON object of queries, got {type(data).__name__}",
                        file=str(path), line=1)
    tasks = []
    for key, query in data.items():
        line = _line_of(raw, key)
        if not isinstance(query, str) or not query.strip():
            raise DataError("the query must be a non-empty string", file=str(path), line=line,
                            field=key)
        query = query.strip()
        info = {"upstream_file": name, "domain": domain, "upstream_key": key}
        if family == "ego":
            m = _EGO_RE.match(query)
            if not m or m.group(1) != kind:
                raise DataError(f"not a {kind} ego-centric query: {query[:80]!r}",
                                file=str(path), line=line, field=key)
            tasks.append(SciNetTask(f"{domain}/{kind}/{key}", "ego", kind, query,
                                    field=m.group(2), info=info))
        elif family == "pair":
            source = normalise_openalex(key)
            if source is None:
                raise DataError("the key must be an OpenAlex work id (W… or "
                                "https://openalex.org/W…)", file=str(path), line=line, field=key)
            m = _PAIR_RE[kind].match(query)
            if not m:
                raise DataError(f"not a {kind} query: {query[:80]!r}", file=str(path),
                                line=line, field=key)
            info["title"] = m.group(1)
            tasks.append(SciNetTask(f"{domain}/{kind}/{source}", "pair", kind, query,
                                    source=source, info=info))
        else:
            m = _PATH_RE.match(query)
            if not m:
                raise DataError(f"not a path query: {query[:80]!r}", file=str(path), line=line,
                                field=key)
            tasks.append(SciNetTask(f"{domain}/path/{key}", "path", "path", query,
                                    field=m.group(3), classic=m.group(1), recent=m.group(2),
                                    info=info))
    return tasks


def load_queries(folder: str | Path, family: str | None = None) -> list[SciNetTask]:
    """Every query file under `folder` (a SciNet `Queries/` folder or one file), in path order;
    `family` keeps one family."""
    folder = Path(folder)
    files = [folder] if folder.is_file() else sorted(folder.rglob("queries_*.json"))
    if not files:
        raise DataError("no SciNet query file (queries_*.json)", file=str(folder))
    tasks = [t for f in files for t in load_query_file(f)]
    return [t for t in tasks if family is None or t.family == family]
