"""HyperLogLog registers as table rows, for the approximate CD index on billion-edge graphs.

Why hand-written: the sketch must be mergeable inside SQL on both engines and give the same bits
on each. DuckDB has no mergeable sketch functions (its `approx_count_distinct` is not mergeable,
and the DataSketches extension would be a run-time download) and Spark's `hll_sketch_*` would
give different numbers from anything DuckDB runs. So each paper's hash is computed once here, in
numpy (SplitMix64 of its pid and a seed), and the engines only take MIN and SUM of integers.

A paper's 48-bit hash h: its top `precision` bits pick the register; rho = 1 + the number of
leading zeros of the remaining R - 1 bits (R = 49 - precision). Each row carries
w = 2^(R - rho) instead of rho, so merging registers is MIN(w) and the HLL sum
sum_j 2^-M_j = (sum_j w_j) / 2^R is an exact integer sum (at most 2^49): no floating-point sum
whose order could differ between engines. The estimator is Flajolet et al. (2007) with linear
counting below 2.5 m; relative standard error about 1.04 / sqrt(m), m = 2^precision.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from scholarbench.errors import ScholarbenchError

PRECISION = 12
_BITS = 48


def check_precision(precision: int) -> int:
    if isinstance(precision, bool) or not isinstance(precision, int) or not 4 <= precision <= 16:
        raise ScholarbenchError(f"sketch precision must be a whole number from 4 to 16, got "
                                f"{precision!r}")
    return precision


def splitmix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on uint64 (wrapping arithmetic)."""
    z = x.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def registers(n_papers: int, precision: int = PRECISION, seed: int = 0) -> pa.Table:
    """hll(pid INT, reg INT, w BIGINT) for papers 0..n-1."""
    check_precision(precision)
    with np.errstate(over="ignore"):
        h = splitmix64(np.arange(n_papers, dtype=np.uint64)
                       + np.uint64(seed) * np.uint64(0xD1B54A32D192ED03)) >> np.uint64(64 - _BITS)
    rest_bits = _BITS - precision
    reg = (h >> np.uint64(rest_bits)).astype(np.int32)
    rest = (h & np.uint64((1 << rest_bits) - 1)).astype(np.int64)
    # bit length of rest, exactly (rest < 2^53 converts to float64 exactly): R - rho = bitlen
    bitlen = np.frexp(rest.astype(np.float64))[1].astype(np.int64)
    w = np.left_shift(np.int64(1), bitlen)
    return pa.table({"pid": pa.array(np.arange(n_papers, dtype=np.int32)),
                     "reg": pa.array(reg), "w": pa.array(w)})


def estimate(nz: np.ndarray, z: np.ndarray, precision: int = PRECISION) -> np.ndarray:
    """Cardinalities from (registers set, sum of their w); 0 where nothing was set."""
    m = 1 << precision
    r = _BITS - precision + 1
    nz = np.asarray(nz, dtype=np.float64)
    total = np.asarray(z, dtype=np.float64) + (m - nz) * float(1 << r)    # sum_j 2^(R - M_j)
    alpha = 0.7213 / (1 + 1.079 / m)
    raw = np.zeros_like(total)
    np.divide(alpha * m * m * float(1 << r), total, out=raw, where=total > 0)
    zeros = m - nz
    small = (raw <= 2.5 * m) & (zeros > 0)
    out = raw.copy()
    with np.errstate(divide="ignore"):
        out[small] = m * np.log(m / zeros[small])
    out[nz == 0] = 0.0
    return out
