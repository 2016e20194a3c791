"""Pooled (micro) aggregates declared as functions of column sums, so that a measure's value
and its bootstrap interval compute the same arithmetic — the interval over resampled columns
(numpy), never re-running Python over a list of rows for each of its resamples.

A `Pooled` says, for the rows it is given, its *columns*: k lists of one number per row (0
where a row adds nothing to a sum), and a `combine` from the columns' sums to the value. It is
vectorised: given sums of shape (..., k) it returns shape (...), NaN where the value is
undefined. `ratio(numerator, denominator)` is the common case, Σ numerator keys / Σ
denominator keys; `ratio_of(terms)` the same with a row's (numerator, denominator) computed by
a function (a fallback key, a flag that zeroes a term).

Integer terms are summed as int64, exactly, so a value and each resample's value equal those of
a Python loop over the rows bit for bit; float terms are summed by numpy (pairwise), which can
differ from a Python sum in the last bits (docs/scores.md, "Confidence intervals").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from scholarbench.core.columns import ScoreRows

Row = dict[str, Any]
Columns = Callable[[Sequence[Row]], "list[list[Any]]"]
Combine = Callable[[Any], Any]          # sums (..., k) → values (...), NaN: undefined


@dataclass(frozen=True)
class Pooled:
    """An aggregate computed by `combine` from the sums of `columns(rows)`. `from_columns`,
    when given, computes the same columns as numpy arrays from `core.columns.ScoreRows`'
    columns (None: it cannot; `columns` then walks the rows); on `ScoreRows` the columns are
    computed once per rows and kept."""
    columns: Columns
    combine: Combine
    note: str = ""                      # what it is, for docs and reprs: "Σ a / Σ b"
    from_columns: Callable[[Any], "list[Any] | None"] | None = None

    def _columns_of(self, rows: Sequence[Row]) -> list[Any]:
        """The columns: lists from `columns`, or arrays from `from_columns` (on ScoreRows)."""
        if not isinstance(rows, ScoreRows):
            return self.columns(rows)

        def compute() -> list[Any]:
            arrays = self.from_columns(rows) if self.from_columns is not None else None
            return arrays if arrays is not None else self.columns(rows)
        return rows.cached(("pooled", self), compute)

    def value(self, rows: Sequence[Row]) -> float | None:
        """The aggregate over `rows` (None where `combine` says NaN). The sums are Python's,
        in row order: what a loop over the rows gives."""
        import numpy as np      # deferred: `run --help` must not import numpy
        value = float(self.combine(np.asarray([sum(col.tolist() if isinstance(col, np.ndarray)
                                                   else col) for col in self._columns_of(rows)])))
        return None if value != value else value

    def __call__(self, rows: Sequence[Row]) -> float | None:
        """An aggregator: `value`."""
        return self.value(rows)

    def arrays(self, rows: Sequence[Row]) -> list[Any]:
        """The columns as numpy arrays (int64 where every term is an integer)."""
        import numpy as np      # deferred: `run --help` must not import numpy
        return [col if isinstance(col, np.ndarray) else
                np.asarray(col) if col else np.zeros(0, dtype=np.int64)
                for col in self._columns_of(rows)]

    def resampled(self, arrays: Sequence[Any], idx: Any) -> Any:
        """The value for each resample of row indices `idx` (shape (m, n)): shape (m,)."""
        return self.combine(ColumnSums(arrays).of(Resamples(idx)))


class Resamples:
    """One batch of resamples: the row indices `idx` (m, n) and, computed once when a
    statistic asks for it, how often each row is drawn in each resample (`counts`, (m, n)).
    `buffers` (shared by the batches of one draw) hold the (m, n) arrays a batch fills, so the
    next batch writes into the same memory instead of asking for more (each fresh 50 MB costs
    its page faults)."""

    def __init__(self, idx: Any, buffers: dict[Any, Any] | None = None) -> None:
        self.idx = idx
        self._counts: Any = None
        self._buffers = {} if buffers is None else buffers

    def _buffer(self, key: Any, dtype: Any) -> Any:
        import numpy as np      # deferred: `run --help` must not import numpy
        m, n = self.idx.shape
        buffer = self._buffers.get(key)
        if buffer is None or buffer.shape[1] != n or buffer.shape[0] < m:
            buffer = self._buffers[key] = np.empty((m, n), dtype=dtype)
        return buffer[:m]

    def gathered(self, column: Any) -> Any:
        """`column[idx]`: each resample's values (in a buffer the next gather overwrites)."""
        import numpy as np      # deferred: `run --help` must not import numpy
        # every index is in range, so "clip" changes nothing and lets take write in place
        return np.take(column, self.idx, out=self._buffer(("take", column.dtype),
                                                          column.dtype), mode="clip")

    def counts(self) -> Any:
        """(m, n) float64: row i's draws in resample r (exact small integers)."""
        import numpy as np      # deferred: `run --help` must not import numpy
        if self._counts is None:
            n = self.idx.shape[1]
            self._counts = self._buffer("counts", np.float64)
            for r, row in enumerate(self.idx):
                self._counts[r] = np.bincount(row, minlength=n)
        return self._counts


class ColumnSums:
    """Σ of each column over each resample, in the columns' order. Integer columns are summed
    together as (draw counts) @ (columns) when that is exact — every partial sum an integer
    below 2^53, so a float64 product is exact whatever the order — which costs one pass over
    the indices for all of them (and for every measure of the batch: `Resamples.counts`);
    an integer column of one value sums to n times it; a float column (or integers too large
    for that bound) is gathered and summed per resample (`col[idx].sum(axis=-1)`: numpy's
    pairwise order, as before)."""

    def __init__(self, arrays: Sequence[Any]) -> None:
        import numpy as np      # deferred: `run --help` must not import numpy
        self.arrays = list(arrays)
        n = self.n = len(self.arrays[0]) if self.arrays else 0
        integer = [i for i, col in enumerate(self.arrays)
                   if col.dtype.kind in "ib" and len(col) == n and n * _largest(col) < 2 ** 53]
        # an integer column of one value sums to n times it in every resample (a panel's
        # "has this judge" flag on every row)
        self.constant = {i: int(self.arrays[i][0]) * n for i in integer
                         if n and self.arrays[i].min() == self.arrays[i].max()}
        exact = [i for i in integer if i not in self.constant]
        self.exact = exact if len(exact) >= 2 else []
        self.matrix = (np.stack([self.arrays[i] for i in self.exact], axis=-1)
                       .astype(np.float64) if self.exact else None)

    def of(self, batch: Resamples) -> Any:
        """(m, k) sums of the k columns over the batch's m resamples (int64 where the columns
        are integers)."""
        import numpy as np      # deferred: `run --help` must not import numpy
        by_matrix = {}
        if self.matrix is not None:
            summed = np.rint(batch.counts() @ self.matrix).astype(np.int64)
            by_matrix = {i: summed[:, j] for j, i in enumerate(self.exact)}
        m = len(batch.idx)
        return np.stack([by_matrix[i] if i in by_matrix
                         else np.full(m, self.constant[i], dtype=np.int64)
                         if i in self.constant
                         else batch.gathered(col).sum(axis=-1)
                         for i, col in enumerate(self.arrays)], axis=-1)


def _largest(col: Any) -> int:
    """max |value| of an integer column, as a Python int (no int64 overflow)."""
    return max(abs(int(col.max())), abs(int(col.min()))) if len(col) else 0


def divide(num: Any, den: Any, at_zero: float | None) -> Any:
    """num / den elementwise; `at_zero` (None: NaN) where den is 0."""
    import numpy as np          # deferred: `run --help` must not import numpy
    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    fill = np.nan if at_zero is None else float(at_zero)
    out = np.full(np.broadcast(num, den).shape, fill)
    np.divide(num, den, out=out, where=den != 0)
    return out


def ratio_of(terms: Callable[[Row], tuple[Any, Any]], *, at_zero: float | None = None,
             note: str = "") -> Pooled:
    """Σ numerator / Σ denominator of each row's `terms(row)`; `at_zero` when Σ den is 0."""
    def columns(rows: Sequence[Row]) -> list[list[Any]]:
        pairs = [terms(r) for r in rows]
        return [[p[0] for p in pairs], [p[1] for p in pairs]]

    def combine(sums: Any) -> Any:
        return divide(sums[..., 0], sums[..., 1], at_zero)
    return Pooled(columns, combine, note)


def ratio(numerator: Sequence[str], denominator: Sequence[str], *,
          where: Callable[[Row], bool] | None = None, at_zero: float | None = None) -> Pooled:
    """Σ of the `numerator` keys / Σ of the `denominator` keys over the rows `where` holds
    (all by default; a missing or null key counts 0). On `core.columns.ScoreRows` its two
    columns are the rows' summed count columns (`ScoreRows.counts`), 0 where `where` fails."""
    def terms(row: Row) -> tuple[Any, Any]:
        if where is not None and not where(row):
            return 0, 0
        return (_total(row, numerator), _total(row, denominator))

    def from_columns(rows: Any) -> list[Any] | None:
        import numpy as np      # deferred: `run --help` must not import numpy
        num, den = rows.counts(*numerator), rows.counts(*denominator)
        if num is None or den is None:
            return None
        if where is not None:
            keep = rows.mask(where)
            num, den = np.where(keep, num, 0), np.where(keep, den, 0)
        return [num, den]
    note = f"Σ {' + '.join(numerator)} / Σ ({' + '.join(denominator)})"
    pooled = ratio_of(terms, at_zero=at_zero, note=note)
    return Pooled(pooled.columns, pooled.combine, note, from_columns)


def _total(row: Row, keys: Sequence[str]) -> Any:
    total = 0
    for key in keys:
        total += row.get(key, 0) or 0
    return total


__all__ = ["ColumnSums", "Pooled", "Resamples", "divide", "ratio", "ratio_of"]
