"""The measures as SQL text, the one definition that DuckDB and Spark both run (the CD index's
queries are in `graph.cd_sql`).

Only the common subset of the two dialects is used (joins, GROUP BY, CASE, COUNT(DISTINCT),
window SUM, CAST, SQRT), integer arithmetic wherever a result must be exact, and every output
column is cast to a fixed type so both engines return the same Arrow schema. Floating-point
values come from one division / square root of exact integers, so both engines produce the same
bits (IEEE 754 division and square root are correctly rounded in C++ and Java alike).

Parameters are integers validated by the callers and formatted into the text.
"""
from __future__ import annotations

# Clean edges with the years of both ends (self-citations and repeats dropped).
EDGES = """
SELECT e.citing, e.cited, pc.year AS citing_year, pf.year AS cited_year
FROM (SELECT DISTINCT citing, cited FROM edges_in WHERE citing <> cited) e
JOIN papers pc ON pc.pid = e.citing
JOIN papers pf ON pf.pid = e.cited
"""


# Uzzi novelty over `nets(r, citing, cited)`: r = 0 is the observed network, r = 1..N the
# randomised ones. A stratum is the citing paper's year (-1 when unknown), or 0 for all papers.
def _stratum(column: str, by_year: bool) -> str:
    return f"COALESCE({column}, -1)" if by_year else "0"


# What a reference pair is counted as: the two cited papers' venues (Uzzi) or the two cited
# papers themselves (SciNet's `all_paper_z_score`, keyed by work ids).
PAIRINGS = {"venue": "p.venue", "paper": "t.cited"}


def _novelty_ctes(n: int, by_year: bool, pairing: str = "venue") -> str:
    s = _stratum("p.year", by_year)
    key = PAIRINGS[pairing]
    return f"""
hist AS (
  SELECT t.r, t.citing, {key} AS venue, COUNT(*) AS m
  FROM nets t JOIN papers p ON p.pid = t.cited
  WHERE {key} IS NOT NULL
  GROUP BY t.r, t.citing, {key}),
pairs AS (
  SELECT a.r, a.citing, a.venue AS v1, b.venue AS v2,
         CASE WHEN a.venue = b.venue THEN CAST(a.m * (a.m - 1) / 2 AS BIGINT)
              ELSE a.m * b.m END AS k
  FROM hist a JOIN hist b ON b.r = a.r AND b.citing = a.citing AND b.venue >= a.venue
  WHERE a.venue <> b.venue OR a.m > 1),
counted AS (
  SELECT r, s, v1, v2, CAST(SUM(k) AS BIGINT) AS cnt
  FROM (SELECT q.r, {s} AS s, q.v1, q.v2, q.k
        FROM pairs q JOIN papers p ON p.pid = q.citing) x
  GROUP BY r, s, v1, v2),
moments AS (
  SELECT s, v1, v2,
         CAST(SUM(CASE WHEN r = 0 THEN cnt ELSE 0 END) AS BIGINT) AS obs,
         CAST(SUM(CASE WHEN r > 0 THEN cnt ELSE 0 END) AS BIGINT) AS s1,
         CAST(SUM(CASE WHEN r > 0 THEN cnt * cnt ELSE 0 END) AS BIGINT) AS s2
  FROM counted GROUP BY s, v1, v2),
zs AS (
  SELECT s, v1, v2, obs, s1, s2,
         CASE WHEN {n} * s2 - s1 * s1 > 0
              THEN CAST({n} * obs - s1 AS DOUBLE)
                   / SQRT(CAST({n} * s2 - s1 * s1 AS DOUBLE) * {n} / {n - 1})
              ELSE CAST(NULL AS DOUBLE) END AS z
  FROM moments WHERE obs > 0)"""


def pair_z(n: int, by_year: bool, pairing: str = "venue") -> str:
    """Per (stratum, venue pair) observed in some paper: observed count, sum and sum of squares
    of the randomised counts, and z = (obs - mean) / sd (sample sd over the N randomisations;
    z = (N obs - S1) / sqrt((N S2 - S1^2) N / (N - 1)); NULL when the sd is 0)."""
    return f"""WITH {_novelty_ctes(n, by_year, pairing)}
SELECT CAST(s AS INT) AS stratum, CAST(v1 AS INT) AS v1, CAST(v2 AS INT) AS v2,
       obs AS observed, s1, s2, z
FROM zs ORDER BY stratum, v1, v2
"""


def novelty(n: int, by_year: bool, percentile: int, rule: str = "inverted_cdf",
            pairing: str = "venue") -> str:
    """Per paper with >= 1 defined pair z-score: the `percentile`-th percentile of its pairs'
    z-scores, each pair weighted by how many reference pairs map to it. `rule`
    "inverted_cdf": the smallest z whose cumulative weight reaches percentile% of the total
    (exact on integers); "linear": numpy's default (`np.percentile`, SciNet's
    `Evaluation/task1-novelty-sos.py` @ ed5c76f) — with the W weighted values sorted, position
    h = (W - 1) p / 100 and z[floor h] + (z[floor h + 1] - z[floor h]) (h - floor h)."""
    s = _stratum("p.year", by_year)
    return f"""WITH {_novelty_ctes(n, by_year, pairing)},
own AS (
  SELECT q.citing AS pid, z.z, q.k
  FROM pairs q
  JOIN papers p ON p.pid = q.citing
  JOIN zs z ON z.s = {s} AND z.v1 = q.v1 AND z.v2 = q.v2
  WHERE q.r = 0 AND z.z IS NOT NULL),
{percentile_of("own", percentile, rule)}
"""


def percentile_of(source: str, percentile: int, rule: str) -> str:
    """The tail of a WITH over `source(pid, z, k)`: per pid, `novelty` (the percentile) and
    `pairs` (the total weight)."""
    cum = f"""cum AS (
  SELECT pid, z,
         SUM(k) OVER (PARTITION BY pid ORDER BY z ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
           AS upto,
         SUM(k) OVER (PARTITION BY pid) AS total
  FROM {source})"""
    if rule == "inverted_cdf":
        return f"""{cum}
SELECT CAST(pid AS INT) AS pid, MIN(z) AS novelty, CAST(MAX(total) AS BIGINT) AS pairs
FROM cum WHERE upto * 100 >= total * {percentile}
GROUP BY pid ORDER BY pid"""
    if rule != "linear":
        raise ValueError(f"unknown percentile rule {rule!r}")
    return f"""{cum},
pos AS (
  SELECT pid, z, upto, total,
         CAST(((total - 1) * {percentile} - MOD((total - 1) * {percentile}, 100)) / 100
              AS BIGINT) AS i,
         CAST(MOD((total - 1) * {percentile}, 100) AS BIGINT) AS f
  FROM cum),
ends AS (
  SELECT pid, MAX(total) AS total, MAX(f) AS f,
         MIN(CASE WHEN upto > i THEN z END) AS lo,
         MIN(CASE WHEN upto > i + 1 THEN z END) AS hi
  FROM pos GROUP BY pid)
SELECT CAST(pid AS INT) AS pid,
       CASE WHEN f = 0 THEN lo ELSE lo + (hi - lo) * CAST(f AS DOUBLE) / 100 END AS novelty,
       CAST(total AS BIGINT) AS pairs
FROM ends ORDER BY pid"""
