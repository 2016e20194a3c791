"""Errors that name where bad input was found."""
from __future__ import annotations


class ScholarbenchError(Exception):
    """Base class for errors the CLI reports without a traceback."""


class IncompleteRun(ScholarbenchError):
    """A stage stopped because a model call failed after every retry (a judge down): what is
    done is on disk and the same command resumes; the CLI exits 3, not 2."""
    exit_status = 3


class DataError(ScholarbenchError):
    """A data file is malformed. Names the file, the line (1-based) and the field."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.file, self.line, self.field, self.reason = file, line, field, message
        where = []
        if file is not None:
            where.append(str(file))
        if line is not None:
            where.append(f"line {line}")
        if field is not None:
            where.append(f"field '{field}'")
        super().__init__(f"{': '.join([', '.join(where)] if where else [])}{': ' if where else ''}{message}")


def exceeds_int_digits(exc: BaseException) -> bool:
    """Whether `exc` is Python's ValueError for an integer of more than
    `sys.get_int_max_str_digits()` digits (json raises it for such a number in the input)."""
    return isinstance(exc, ValueError) and "integer string conversion" in str(exc)
