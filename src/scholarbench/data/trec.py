"""TREC qrels and run files: typed reading and canonical writing.

Formats (fields separated by any run of whitespace: spaces, tabs, several of either; a trailing
``\\r`` is ignored; blank lines are skipped):

    qrels   ``qid iter docid rel``                  exactly 4 fields, ``rel`` an integer
    run     ``qid Q0 docid rank score tag``         exactly 6 fields, ``rank`` an integer,
                                                    ``score`` a finite decimal number

A malformed line raises :class:`~scholarbench.errors.DataError` naming the file, the 1-based line
and the field, e.g. ``run.trec, line 7, field 'score': not a number: 'abc'``. We are stricter than
trec_eval here on purpose: trec_eval 9.0.8 reads ``score`` with ``atof`` (so ``abc`` silently
becomes 0.0) and ignores a seventh field; a typo in a run file must not change a score unnoticed.

Rules for the cases the format leaves open (each one checked against the trec_eval 9.0.8 binary
and pytrec_eval-terrier 0.5.11, see tests/test_trec.py and tests/test_ranking.py):

* **Duplicate (qid, docid) in a run** -- the *first* occurrence (in file order) is kept, later
  ones are dropped and counted (:attr:`Run.duplicates_dropped`, :attr:`Run.duplicate_lines`).
  Neither reference tool has a rule we could copy: trec_eval 9.0.8 refuses such a run outright
  (``trec_eval.form_res_rels: duplicate docs d``, exit status 4, no scores at all), and
  pytrec_eval / ir_measures take a dict, so whoever builds the dict decides (ir_measures' own
  file reader keeps the *last* occurrence, silently). Keeping the first line is what an agent
  that emits its ranking top-down meant, and counting it keeps the repair visible. Pass
  ``on_duplicate="error"`` to get trec_eval's refusal (a DataError naming both lines) instead.
* **Duplicate (qid, docid) in qrels** -- always a DataError naming both lines (trec_eval refuses
  too: ``duplicate docs``); two judgements of one document cannot both be right.
* **Empty run file** (no lines, or only blank ones) -- valid: a run that retrieved nothing, so
  every qrels query scores 0 (see :mod:`scholarbench.benchmarks.researcharena.measures.ranking`). trec_eval 9.0.8 instead
  stops with ``Cannot read results file``; with ``-c`` it would give a run retrieving nothing for
  some queries 0 on those queries, and we extend that to all of them.
* **Empty qrels file** -- DataError: there is nothing to score against.
* **The ``iter`` / ``Q0`` columns and the run's ``rank`` column** are read and kept but, as in
  trec_eval, play no part in scoring: trec_eval re-ranks every query itself (next item).

Ranking order (:func:`trec_eval_order`, used by :func:`write_run`): trec_eval sorts each query's
documents by score descending and breaks ties by **docid descending** (``strcmp(docno2, docno1)``
in ``form_res_rels.c``), ignoring the file's rank column. Scores are compared as C ``float``
(single precision: trec_eval stores ``sim`` in a ``float``), so ``1.00000001`` and ``1.0`` tie
and are ordered by docid. We checked both facts on the trec_eval 9.0.8 binary: a three-way tie
``a, b, c`` is ranked ``c, b, a``, and the float-precision pair above ranks the larger docid first.
docids compare as strings (byte order), so ``"9" > "10"``. Queries are written in ascending qid
order (trec_eval's own query order).
"""
from __future__ import annotations

import math
import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Literal, Mapping, TypeVar

from scholarbench.errors import DataError
from scholarbench.files import require_regular, temp_beside

T = TypeVar("T")

QRELS_FIELDS = ("qid", "iter", "docid", "rel")
RUN_FIELDS = ("qid", "iter", "docid", "rank", "score", "tag")

_INT = re.compile(r"^[+-]?\d+$", re.ASCII)
# A plain decimal number, as C's strtod reads one; no inf/nan, no Python-only forms like 1_000.
_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$", re.ASCII)

OnDuplicate = Literal["keep_first", "error"]


@dataclass(frozen=True)
class Qrel:
    """One judgement line: document ``doc_id`` has grade ``relevance`` for query ``query_id``."""
    query_id: str
    doc_id: str
    relevance: int
    iteration: str = "0"


@dataclass(frozen=True)
class RunEntry:
    """One run line. ``rank`` is the file's; trec_eval (and we) re-rank by score, then docid."""
    query_id: str
    doc_id: str
    rank: int
    score: float
    tag: str
    iteration: str = "Q0"


@dataclass(frozen=True)
class Qrels:
    """Judgements per query: ``judgements[qid][docid] = grade`` (queries in file order)."""
    judgements: dict[str, dict[str, int]]
    source: str | None = None

    @property
    def query_ids(self) -> list[str]:
        return list(self.judgements)

    def relevant(self, query_id: str, level: int = 1) -> set[str]:
        """docids judged at least ``level`` for the query (binary measures use level 1)."""
        return {d for d, r in self.judgements.get(query_id, {}).items() if r >= level}

    def __len__(self) -> int:
        return len(self.judgements)

    @classmethod
    def from_dict(cls, judgements: Mapping[str, Mapping[str, int]],
                  source: str | None = None) -> "Qrels":
        def grade(rel: object, qid: object, doc: object) -> int:
            if isinstance(rel, bool) or not isinstance(rel, int):
                raise DataError(f"not an integer: {rel!r} (query {qid}, document {doc})",
                                file=source, field="rel")
            return int(rel)
        return cls(_checked_table(judgements, source, grade), source)


@dataclass(frozen=True)
class Run:
    """Scores per query: ``scores[qid][docid] = score`` (first occurrence of each pair kept)."""
    scores: dict[str, dict[str, float]]
    tags: tuple[str, ...] = ()
    duplicates_dropped: int = 0
    duplicate_lines: tuple[int, ...] = ()
    source: str | None = None

    @property
    def query_ids(self) -> list[str]:
        return list(self.scores)

    def __len__(self) -> int:
        return len(self.scores)

    @classmethod
    def from_dict(cls, scores: Mapping[str, Mapping[str, float]],
                  source: str | None = None) -> "Run":
        def number(score: object, qid: object, doc: object) -> float:
            if isinstance(score, bool) or not isinstance(score, (int, float)) \
                    or not math.isfinite(score):
                raise DataError(f"not a finite number: {score!r} (query {qid}, document "
                                f"{doc})", file=source, field="score")
            return float(score)
        return cls(_checked_table(scores, source, number), source=source)


# ---------------------------------------------------------------- reading

def _lines(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(1-based line number, whitespace-split fields) for each non-blank line.

    Decoded line by line, so an invalid UTF-8 byte is reported on its own line.
    """
    require_regular(path)
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror}", file=str(path)) from exc
    with handle:
        for lineno, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(f"not UTF-8 text ({exc.reason} at byte {exc.start + 1})",
                                file=str(path), line=lineno) from exc
            if lineno == 1:
                text = text.removeprefix("\ufeff")  # a byte-order mark is not part of a qid
            fields = text.split()
            if fields:
                yield lineno, fields


def _expect_fields(fields: list[str], names: tuple[str, ...], path: Path, lineno: int) -> None:
    expected = f"expected {len(names)} whitespace-separated fields ({' '.join(names)})"
    if len(fields) < len(names):
        raise DataError(f"missing: {expected}, got {len(fields)}", file=str(path), line=lineno,
                        field=names[len(fields)])
    if len(fields) > len(names):
        raise DataError(f"{expected}, got {len(fields)} (whitespace inside a field?)",
                        file=str(path), line=lineno)


def read_qrels(path: str | Path) -> Qrels:
    """Read a qrels file; DataError on a malformed line, a duplicate judgement or no lines."""
    path = Path(path)
    judgements: dict[str, dict[str, int]] = {}
    first_line: dict[tuple[str, str], int] = {}
    for lineno, fields in _lines(path):
        _expect_fields(fields, QRELS_FIELDS, path, lineno)
        qid, _iteration, doc, rel = fields
        if not _INT.match(rel):
            raise DataError(f"not an integer: {rel!r}", file=str(path), line=lineno, field="rel")
        key = (qid, doc)
        if key in first_line:
            raise DataError(f"duplicate judgement for query {qid!r}, document {doc!r} "
                            f"(first at line {first_line[key]})",
                            file=str(path), line=lineno, field="docid")
        first_line[key] = lineno
        judgements.setdefault(qid, {})[doc] = int(rel)
    if not judgements:
        raise DataError("no judgements: a qrels file needs at least one line", file=str(path))
    return Qrels(judgements, str(path))


def iter_qrels(path: str | Path) -> Iterator[Qrel]:
    """Each judgement of a (valid) qrels file as a typed record, in file order."""
    path = Path(path)
    read_qrels(path)  # validate the whole file first: errors name the line
    for _lineno, (qid, iteration, doc, rel) in _lines(path):
        yield Qrel(qid, doc, int(rel), iteration)


def _parse_run_line(fields: list[str], path: Path, lineno: int) -> RunEntry:
    _expect_fields(fields, RUN_FIELDS, path, lineno)
    qid, iteration, doc, rank, score, tag = fields
    if not _INT.match(rank):
        raise DataError(f"not an integer: {rank!r}", file=str(path), line=lineno, field="rank")
    if not _NUMBER.match(score):
        raise DataError(f"not a number: {score!r}", file=str(path), line=lineno, field="score")
    value = float(score)
    if not math.isfinite(value):  # e.g. 1e999
        raise DataError(f"not a finite number: {score!r}", file=str(path), line=lineno,
                        field="score")
    return RunEntry(qid, doc, int(rank), value, tag, iteration)


def iter_run(path: str | Path) -> Iterator[tuple[int, RunEntry]]:
    """(line number, entry) for every line of a run file, duplicates included."""
    path = Path(path)
    for lineno, fields in _lines(path):
        yield lineno, _parse_run_line(fields, path, lineno)


def read_run(path: str | Path, *, on_duplicate: OnDuplicate = "keep_first") -> Run:
    """Read a run file. An empty file is a valid run that retrieved nothing.

    ``on_duplicate="keep_first"`` keeps the first line of a repeated (qid, docid) and counts
    the rest; ``"error"`` raises DataError naming both lines (trec_eval's refusal).
    """
    if on_duplicate not in ("keep_first", "error"):
        raise ValueError(f"on_duplicate must be 'keep_first' or 'error', not {on_duplicate!r}")
    path = Path(path)
    scores: dict[str, dict[str, float]] = {}
    first_line: dict[tuple[str, str], int] = {}
    duplicates: list[int] = []
    tags: dict[str, None] = {}
    for lineno, entry in iter_run(path):
        key = (entry.query_id, entry.doc_id)
        if key in first_line:
            if on_duplicate == "error":
                raise DataError(f"duplicate document {entry.doc_id!r} for query "
                                f"{entry.query_id!r} (first at line {first_line[key]})",
                                file=str(path), line=lineno, field="docid")
            duplicates.append(lineno)
            continue
        first_line[key] = lineno
        tags.setdefault(entry.tag)
        scores.setdefault(entry.query_id, {})[entry.doc_id] = entry.score
    return Run(scores, tuple(tags), len(duplicates), tuple(duplicates), str(path))


# ---------------------------------------------------------------- ordering and writing

def as_float32(value: float) -> float:
    """The value trec_eval compares: ``sim`` is stored in a C ``float``."""
    return struct.unpack("f", struct.pack("f", value))[0]


def trec_eval_order(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """(docid, score) pairs in trec_eval's ranking: float32 score desc, then docid desc."""
    return sorted(scores.items(), key=lambda item: (as_float32(item[1]), item[0]), reverse=True)


def _checked_table(table: Mapping[str, Mapping[str, Any]], source: str | None,
                   value: Callable[[object, object, object], T]) -> dict[str, dict[str, T]]:
    """`table[qid][docid]` with every qid and docid checked (`_check_token`) and every value
    turned by `value(v, qid, docid)` (a DataError when it is unusable); a query with no document
    is left out."""
    out: dict[str, dict[str, T]] = {}
    for qid, docs in table.items():
        _check_token(qid, "qid", source)
        row: dict[str, T] = {}
        for doc, v in docs.items():
            _check_token(doc, "docid", source)
            row[str(doc)] = value(v, qid, doc)
        if row:
            out[str(qid)] = row
    return out


def _check_token(value: object, name: str, source: str | None) -> None:
    text = str(value)
    if not text or any(ch.isspace() for ch in text):
        raise DataError(f"must be non-empty without whitespace: {text!r}", file=source,
                        field=name)


def _format_score(value: float) -> str:
    return repr(float(value))  # shortest text that reads back to the same double


def write_lines_atomic(path: Path, lines: Iterable[str]) -> None:
    """Write ``lines`` (newline-terminated) to a temp file beside ``path``, then rename over it."""
    require_regular(path, output=True)     # never rename over a device or a FIFO
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            for line in lines:
                handle.write(line + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def run_lines(run: Run | Mapping[str, Mapping[str, float]], tag: str) -> list[str]:
    """Canonical run lines: qids ascending, each query in :func:`trec_eval_order`, ranks 1..n."""
    _check_token(tag, "tag", None)
    scores = run.scores if isinstance(run, Run) else Run.from_dict(run).scores
    out = []
    for qid in sorted(scores):
        for rank, (doc, score) in enumerate(trec_eval_order(scores[qid]), start=1):
            out.append(f"{qid} Q0 {doc} {rank} {_format_score(score)} {tag}")
    return out


def write_run(path: str | Path, run: Run | Mapping[str, Mapping[str, float]], tag: str) -> None:
    """Write ``run`` in canonical form (see :func:`run_lines`); the file is replaced atomically.

    The file's ranks agree with the order trec_eval evaluates in, so a reader that trusts the
    rank column and one that re-sorts by score see the same ranking.
    """
    write_lines_atomic(Path(path), run_lines(run, tag))


def write_qrels(path: str | Path, qrels: Qrels | Mapping[str, Mapping[str, int]]) -> None:
    """Write ``qid 0 docid rel`` lines, qids ascending and docids ascending within a query."""
    judgements = qrels.judgements if isinstance(qrels, Qrels) else Qrels.from_dict(qrels).judgements
    write_lines_atomic(Path(path), (f"{qid} 0 {doc} {judgements[qid][doc]}"
                               for qid in sorted(judgements) for doc in sorted(judgements[qid])))


__all__ = ["Qrel", "RunEntry", "Qrels", "Run", "QRELS_FIELDS", "RUN_FIELDS", "read_qrels",
           "iter_qrels", "read_run", "iter_run", "write_run", "run_lines", "write_qrels",
           "trec_eval_order", "as_float32", "write_lines_atomic"]
