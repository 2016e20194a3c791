"""Score rows that also answer as columns (issue 37, "rows as columns").

A run's summary asks the same questions of every row many times over: which rows count (status),
the defined values of each measure, the sums a pooled measure divides, the rows a measure's
interval resamples. `ScoreRows` is the list of rows scores.jsonl holds (dicts, unchanged, for
what genuinely needs a row: a benchmark's nested judge entries, reasons, ids) that builds each
such column once, as a numpy array, and keeps it:

- `numbers(key)`: float64, NaN where the row's value is not a number (`is_number`:
  missing, null, a bool, a string, NaN or ±Infinity); `defined(key)` the defined values as
  `core.measure.defined` lists them;
- `counts(keys)`: Σ over `keys` of each row's `row.get(key, 0) or 0` (int64 when every term is an
  integer), what a pooled ratio sums (`core.pooled.ratio`);
- `mask(predicate)`, `truthy(key)`, `status_in(words)`: one bool per row;
- `subset(mask)`: the rows where `mask` holds, in order, itself a `ScoreRows` whose columns are
  sliced from these (`counted()`: the rows in every aggregate, cached);
- `cached(key, compute)`: anything else computed once per rows (a pooled measure's columns).

Every column is computed from the dicts with the very test the row-by-row code applies, so a
summary computed from columns is the one the rows gave, byte for byte
(tests/test_score_columns.py). The rows are not to be changed in place once a column is read;
the list's own mutators drop every column kept.
"""
from __future__ import annotations

import gc
import math
from contextlib import contextmanager
from typing import Any, Callable, Hashable, Iterable, Iterator, Sequence

NOT_COUNTED = ("error", "unscorable")     # no result: left out of every aggregate
EXACT = 2 ** 53                           # integers a float64 holds exactly


class ScoreRows(list):
    """The rows (a list of dicts) with their columns, built once each (module docstring)."""

    def __init__(self, rows: Iterable[dict[str, Any]] = ()) -> None:
        super().__init__(rows)
        self._kept: dict[Hashable, Any] = {}
        self._parent: ScoreRows | None = None
        self._index: Any = None            # positions in the parent

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (or copied) as the rows alone: the columns are rebuilt when asked for."""
        return ScoreRows, (list(self),)

    @classmethod
    def of(cls, rows: Sequence[dict[str, Any]]) -> "ScoreRows":
        """`rows` themselves when they already are `ScoreRows`, else a `ScoreRows` of them."""
        return rows if isinstance(rows, ScoreRows) else cls(rows)

    # -- what is kept ----------------------------------------------------------------------
    def cached(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """`compute()` the first time `key` is asked for, the same object after."""
        if key not in self._kept:
            self._kept[key] = compute()
        return self._kept[key]

    # -- columns ---------------------------------------------------------------------------
    def values(self, key: str) -> list[Any]:
        """`row.get(key)` of every row (the values as they are)."""
        return self.cached(("values", key), lambda: [r.get(key) for r in self])

    def numbers(self, key: str) -> Any:
        """float64 per row: the value where it is a finite number, else NaN."""
        if self._parent is not None:
            return self.cached(("numbers", key),
                               lambda: self._parent.numbers(key)[self._index])
        return self.cached(("numbers", key), lambda: _numbers(self.values(key)))

    def defined(self, key: str) -> list[float]:
        """The defined values of `key` in row order, as `core.measure.defined` gives them."""
        import numpy as np      # deferred: `run --help` must not import numpy
        values = self.numbers(key)
        return values[~np.isnan(values)].tolist()

    def counts(self, *keys: str) -> Any:
        """Σ over `keys` of each row's `row.get(key, 0) or 0` (int64 when every term is an
        integer, else float64); None when a term is no number (the caller sums the rows)."""
        if self._parent is not None:
            def sliced() -> Any:
                whole = self._parent.counts(*keys)
                return None if whole is None else whole[self._index]
            return self.cached(("counts", keys), sliced)
        return self.cached(("counts", keys), lambda: _counts(self, keys))

    def mask(self, predicate: Callable[[dict[str, Any]], Any]) -> Any:
        """bool per row: `bool(predicate(row))`."""
        import numpy as np      # deferred: `run --help` must not import numpy
        return self.cached(("mask", predicate), lambda: np.fromiter(
            (bool(predicate(r)) for r in self), dtype=bool, count=len(self)))

    def truthy(self, key: str) -> Any:
        """bool per row: whether `row.get(key)` is truthy."""
        import numpy as np      # deferred: `run --help` must not import numpy
        return self.cached(("truthy", key), lambda: np.fromiter(
            (bool(v) for v in self.values(key)), dtype=bool, count=len(self)))

    def status_in(self, words: Sequence[str]) -> Any:
        """bool per row: whether `row.get("status")` is one of `words`."""
        import numpy as np      # deferred: `run --help` must not import numpy
        words = tuple(words)
        return self.cached(("status", words), lambda: np.fromiter(
            (v in words for v in self.values("status")), dtype=bool, count=len(self)))

    def per_row(self, key: Hashable, terms: Callable[[dict[str, Any]], tuple[Any, ...]]
                ) -> list[Any]:
        """The columns of `terms(row)` (a tuple per row): `np.asarray` of each position over the
        rows (int64 for Python ints), computed once over all the rows and sliced for a subset;
        `key` names what `terms` computes."""
        import numpy as np      # deferred: `run --help` must not import numpy
        if self._parent is not None:
            return self.cached(("per_row", key), lambda: [
                column[self._index] for column in self._parent.per_row(key, terms)])

        def build() -> list[Any]:
            rows = [terms(r) for r in self]
            if not rows:
                return []
            table = np.array(rows)
            if table.ndim == 2 and table.dtype.kind == "i":   # all ints: one conversion
                return [np.ascontiguousarray(table[:, i]) for i in range(table.shape[1])]
            return [np.asarray([t[i] for t in rows]) for i in range(len(rows[0]))]
        return self.cached(("per_row", key), build)

    def total(self, key: str) -> Any:
        """Σ of `row.get(key, 0) or 0` over the rows, as Python's `sum` over the rows gives it."""
        column = self.counts(key)
        if column is None:
            return sum(r.get(key, 0) or 0 for r in self)
        return sum(column.tolist())

    def int_total(self, key: str) -> int:
        """Σ of `int(row.get(key) or 0)` over the rows: from the count column when every value
        is an int (or a bool), else row by row."""
        column = self.counts(key)
        if column is not None and column.dtype.kind == "i":
            return sum(column.tolist())
        return sum(int(r.get(key) or 0) for r in self)

    # -- subsets ---------------------------------------------------------------------------
    def subset(self, mask: Any, key: Hashable = None) -> "ScoreRows":
        """The rows where `mask` (bool per row) holds, in order; kept under `key` when given."""
        def build() -> ScoreRows:
            import numpy as np      # deferred: `run --help` must not import numpy
            index = np.flatnonzero(mask)
            out = ScoreRows(self[i] for i in index.tolist())
            out._parent, out._index = self, index
            return out
        return self.cached(("subset", key), build) if key is not None else build()

    def counted(self) -> "ScoreRows":
        """The rows in every aggregate: not errored, not unscorable."""
        return self.subset(~self.status_in(NOT_COUNTED), key="counted")

    def where(self, predicate: Callable[[dict[str, Any]], Any]) -> "ScoreRows":
        """The rows `predicate` holds for (kept: the same predicate gives the same rows)."""
        return self.subset(self.mask(predicate), key=("where", predicate))

    # -- a change drops what was kept -------------------------------------------------------
    def _changed(self) -> None:
        self._kept.clear()
        self._parent = self._index = None


def _dropping(name: str) -> Callable[..., Any]:
    method = getattr(list, name)

    def changed(self: ScoreRows, *args: Any, **kwargs: Any) -> Any:
        self._changed()
        return method(self, *args, **kwargs)
    changed.__name__ = name
    return changed


for _name in ("append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
              "__setitem__", "__delitem__", "__iadd__", "__imul__"):
    setattr(ScoreRows, _name, _dropping(_name))


def where(rows: Sequence[dict[str, Any]], predicate: Callable[[dict[str, Any]], Any]
          ) -> Sequence[dict[str, Any]]:
    """The rows `predicate` holds for, in order: a `ScoreRows` subset (its columns sliced from
    the rows', kept per predicate: give a module-level function) when `rows` are `ScoreRows`,
    else a list."""
    if isinstance(rows, ScoreRows):
        return rows.where(predicate)
    return [r for r in rows if predicate(r)]


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a run's rows are read and summarised (on again
    after, when it was on): 100,000 rows are millions of dicts, lists and numbers that hold no
    cycle, and every full collection walks them all again — a third of the time of reading
    them (issue 37). Reference counting still frees everything that is let go."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def is_number(value: Any) -> bool:
    """A measure's value: an int or a float (not a bool), finite."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(float(value))


def _numbers(values: Sequence[Any]) -> Any:
    """float64 of `values`: a finite int or float (not a bool) as itself, anything else NaN —
    `is_number`'s test."""
    import numpy as np      # deferred: `run --help` must not import numpy
    nan = float("nan")
    out = np.fromiter((v if v.__class__ is float or v.__class__ is int
                       else float(v) if is_number(v) else nan for v in values),
                      dtype=np.float64, count=len(values))
    out[~np.isfinite(out)] = nan
    return out


def _counts(rows: ScoreRows, keys: Sequence[str]) -> Any:
    """Σ over `keys` of `row.get(key, 0) or 0` per row, as a row-by-row `total = 0; total +=
    term` adds them; None when a term is neither an int, a float nor a bool, or a term's size
    reaches 2^53 (where float64 would round an integer: the caller then sums the rows)."""
    import numpy as np      # deferred: `run --help` must not import numpy
    total: Any = np.zeros(len(rows), dtype=np.int64)
    for key in keys:
        terms = [r.get(key, 0) or 0 for r in rows]
        if not set(map(type, terms)) <= _NUMBER_TYPES:
            return None
        column = np.asarray(terms) if terms else np.zeros(0, dtype=np.int64)
        if column.dtype == bool:
            column = column.astype(np.int64)
        if column.dtype.kind not in "if" or (len(column) and np.abs(column).max() >= EXACT):
            return None
        total = total + column
    return total


_NUMBER_TYPES = frozenset((int, float, bool))


__all__ = ["NOT_COUNTED", "ScoreRows", "collector_paused", "is_number", "where"]
