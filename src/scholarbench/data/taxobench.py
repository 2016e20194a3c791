"""TaxoBench upstream formats.

Instance (`dataset/data.jsonl`): `id` (int or str), `survey` and/or `survey_topic`, `pdfs`
[{title, abs}], `gt` (tree). Other upstream fields (`gt_paper_count`, `survey_topic_path`, ...)
are accepted and ignored. Prediction: `id`, `hierarchy_tree`, optional `retrieved_papers`
(titles, or objects with a `title`); upstream's `hierarchy_response` (raw model text) is accepted.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from scholarbench.data.jsonl import iter_jsonl
from scholarbench.data.trees import TreeError, parse_tree
from scholarbench.errors import DataError
from scholarbench.records import Paper, TaxoPrediction, TaxoTask
from scholarbench.data.jsonl import iter_jsonl_lines

PREDICTION_KEYS = {"id", "hierarchy_tree", "retrieved_papers", "hierarchy_response"}


def normalise_id(value: object) -> str | None:
    """Ids may be ints or strings upstream; both sides are compared as strings."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def parse_instance(obj: dict, *, file: str, line: int) -> TaxoTask:
    def fail(msg: str, fld: str) -> DataError:
        return DataError(msg, file=file, line=line, field=fld)

    task_id = normalise_id(obj.get("id"))
    if task_id is None:
        raise fail("missing or not an int/string id", "id")
    topic = obj.get("survey_topic", obj.get("survey"))
    if not isinstance(topic, str) or not topic.strip():
        raise fail("missing survey topic (need 'survey_topic' or 'survey' as a string)",
                   "survey_topic")
    survey = obj.get("survey", topic)
    if not isinstance(survey, str):
        raise fail("'survey' must be a string", "survey")
    pdfs = obj.get("pdfs", [])
    if not isinstance(pdfs, list):
        raise fail("'pdfs' must be a list", "pdfs")
    papers = []
    for i, pdf in enumerate(pdfs):
        if not isinstance(pdf, dict) or not isinstance(pdf.get("title"), str):
            raise fail("each pdf needs a string 'title'", f"pdfs[{i}].title")
        abstract = pdf.get("abs", "") or ""
        if not isinstance(abstract, str):
            raise fail("'abs' must be a string", f"pdfs[{i}].abs")
        papers.append(Paper(title=pdf["title"], abstract=abstract))
    if "gt" not in obj:
        raise fail("missing expert tree", "gt")
    try:
        gold = parse_tree(obj["gt"], "gt")
    except TreeError as exc:
        raise fail(str(exc), exc.field) from exc
    if not gold.all_papers():
        raise fail("expert tree has no papers", "gt")
    return TaxoTask(id=task_id, topic=topic.strip(), survey=survey, papers=papers, gold=gold)


def load_instances(path: str | Path) -> list[TaxoTask]:
    """All instances of one file; duplicate ids are an error (they would be scored twice)."""
    tasks: list[TaxoTask] = []
    seen: dict[str, int] = {}
    for line, obj in iter_jsonl(path):
        task = parse_instance(obj, file=str(path), line=line)
        if task.id in seen:
            raise DataError(f"duplicate id {task.id!r} (first on line {seen[task.id]})",
                            file=str(path), line=line, field="id")
        seen[task.id] = line
        tasks.append(task)
    return tasks


def parse_prediction(obj: dict) -> TaxoPrediction:
    """Never raises on a bad tree: the prediction comes back with `error` set (scored malformed)."""
    task_id = normalise_id(obj.get("id"))
    if task_id is None:
        raise ValueError("missing or not an int/string id")
    unknown = set(obj) - PREDICTION_KEYS
    if unknown:
        return TaxoPrediction(task_id, None, error=f"unknown field(s) {sorted(unknown)}")
    retrieved = None
    raw = obj.get("retrieved_papers")
    if raw is not None:
        if not isinstance(raw, list):
            return TaxoPrediction(task_id, None, error="retrieved_papers: must be a list")
        retrieved = []
        for i, item in enumerate(raw):
            title = item.get("title") if isinstance(item, dict) else item
            if not isinstance(title, str):
                return TaxoPrediction(task_id, None,
                                      error=f"retrieved_papers[{i}]: need a title string")
            retrieved.append(title)
    tree = obj.get("hierarchy_tree")
    if tree is None or tree == {}:
        return TaxoPrediction(task_id, None, retrieved=retrieved, error="hierarchy_tree: missing")
    try:
        taxonomy = parse_tree(tree, "hierarchy_tree")
    except TreeError as exc:
        return TaxoPrediction(task_id, None, retrieved=retrieved, error=f"{exc.field}: {exc}")
    return TaxoPrediction(task_id, taxonomy, retrieved=retrieved)


@dataclass
class PredictionFile:
    by_id: dict[str, TaxoPrediction] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    oversized: set[str] = field(default_factory=set)   # ids whose answer broke a size limit


def load_predictions(path: str | Path, limits: Any = None,
                     lines: Iterable[tuple[int, dict]] | None = None) -> PredictionFile:
    """Agent outputs: bad lines are reported in `problems` (file and line), never raised; an
    output over `limits` (`core.limits.OutputLimits`) is kept as an empty prediction whose
    error names the limit, its id in `oversized`. `lines` (line number, object): the lines
    already read and chosen (a replay file's lines for one run), else the whole file."""
    out = PredictionFile()
    path = Path(path)
    n_lines = 0
    first: dict[str, int] = {}
    source = iter_jsonl_lines(path) if lines is None else \
        ((n, obj, None) for n, obj in lines)
    for lineno, obj, problem in source:
        n_lines += 1
        if problem is not None:
            out.problems.append(f"{path}, line {lineno}: {problem}; line ignored")
            continue
        too_big = limits.violation("taxonomy", obj) if limits is not None else None
        try:
            pred = parse_prediction({"id": obj.get("id")} if too_big else obj)
        except ValueError as exc:
            out.problems.append(f"{path}, line {lineno}: {exc}; line ignored")
            continue
        if too_big:
            pred.error = f"oversized: {too_big}"
            out.oversized.add(pred.id)
        if pred.id in out.by_id:
            out.problems.append(f"{path}, line {lineno}: duplicate id {pred.id!r}: first "
                                f"kept (line {first[pred.id]}), this line ignored")
            continue
        out.by_id[pred.id] = pred
        first[pred.id] = lineno
    if n_lines == 0 and lines is None:
        raise DataError("no predictions in the file (it is empty)", file=str(path))
    return out
