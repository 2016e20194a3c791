"""The CD index as SQL text, split by the work each part inherently needs.

For a focal paper f: C1 = the papers after f citing f; C2 = the papers after f citing >= 1 of
f's references; n_j = |C1 & C2|, n_i = |C1| - n_j, n_k = |C2| - n_j.

- `cited_counts`, `reference_counts`: one grouped pass each: citations, |C1|, references.
- `shared`: n_j, a semi-join of each citation edge c -> f, expanded by f's references r,
  against the edges c -> r (the triangles f -> r <- c -> f): about edges x references rows.
  SciNet's variant needs no more.
- `coupled`: |C2|, exact. It must enumerate the coupled pairs (f, c) with f -> r <- c, whose
  number is the sum over references of squared citation counts: the inherent cost of n_k.
- `sketched`: |C2| approximately, from mergeable HyperLogLog registers (`graph.sketch`): the
  citers of a hub reference (cited more than 2^precision times) are merged once per (reference,
  focal year), so an edge to it brings at most one row per register, whatever its citation
  count; other references bring their citers' registers directly (no more rows than exact).
- `floor` and `scan`: bare queries for the benchmark: the join + aggregate on the rows `coupled`
  must touch, and one pass over the edge table.

Memory: `coupled` and `sketched` take a chunk of focal papers (pid modulo `chunks`), so each
aggregate holds a part of the pairs (`graph.disruption.chunks_for`).

Same dialect rules as `graph.sql`: the common subset of DuckDB and Spark SQL, integer results.
"""
from __future__ import annotations


def after(later: str, focal: str, window: int | None) -> str:
    """`later` is published after `focal` (by year), within `window` years when given."""
    cond = f"{later} > {focal}"
    if window is not None:
        cond += f" AND {later} <= {focal} + {int(window)}"
    return cond


def _chunk(column: str, chunk: int, chunks: int) -> str:
    return "" if chunks <= 1 else f" AND {column} % {int(chunks)} = {int(chunk)}"


def cited_counts(window: int | None, year_rule: bool = True) -> str:
    """Per cited paper f: nc (citations) and n1 = |C1| (citers after f).

    `year_rule=False` is SciNet's upstream task-1 rule: every citer counts, dated or not."""
    c1 = after("citing_year", "cited_year", window) if year_rule else "TRUE"
    return f"""
SELECT CAST(cited AS INT) AS f, CAST(COUNT(*) AS BIGINT) AS nc,
       CAST(SUM(CASE WHEN {c1} THEN 1 ELSE 0 END) AS BIGINT) AS n1
FROM edges GROUP BY cited
"""


def reference_counts() -> str:
    return """
SELECT CAST(citing AS INT) AS f, CAST(COUNT(*) AS BIGINT) AS nr FROM edges GROUP BY citing
"""


def shared(window: int | None, year_rule: bool = True) -> str:
    """Per focal paper f: nj = n_j, its citers in C1 that also cite one of f's references.

    Each counted citation edge c -> f is expanded by f's references r and probed against the
    edge c -> r (the triangles f -> r <- c -> f): about edges x references rows. The probe key
    is the edge packed into one BIGINT (citing * 2^32 + cited; pids are INT), a single-column
    hash probe: 15-20% faster than the two-column key on arxiv-2023 and a 10M-edge graph."""
    c1 = after("l.citing_year", "l.cited_year", window) if year_rule else "TRUE"
    return f"""
SELECT CAST(f AS INT) AS f, CAST(COUNT(*) AS BIGINT) AS nj
FROM (SELECT DISTINCT l.citing AS c, l.cited AS f
      FROM edges l
      JOIN edges ef ON ef.citing = l.cited
      JOIN edges ec ON {_packed("ec.citing", "ec.cited")} = {_packed("l.citing", "ef.cited")}
      WHERE {c1}) shared_citers
GROUP BY f
"""


def _packed(citing: str, cited: str) -> str:
    return f"CAST({citing} AS BIGINT) * 4294967296 + {cited}"


def coupled(window: int | None, chunk: int = 0, chunks: int = 1) -> str:
    """Per focal paper with |C2| > 0 (of one chunk: pid modulo `chunks`): f, n2 = |C2|."""
    c2 = after("b.citing_year", "a.citing_year", window)
    return f"""
SELECT CAST(f AS INT) AS f, CAST(COUNT(*) AS BIGINT) AS n2
FROM (SELECT a.citing AS f, b.citing AS c
      FROM edges a JOIN edges b ON b.cited = a.cited
      WHERE {c2}{_chunk("a.citing", chunk, chunks)}
      GROUP BY a.citing, b.citing) coupled_pairs
GROUP BY f
"""


def hub_references(above: int) -> str:
    """The references cited more than `above` times: their citers go through `sketch_unions`."""
    return f"SELECT cited AS r FROM edges GROUP BY cited HAVING COUNT(*) > {int(above)}"


def sketch_unions(window: int | None) -> str:
    """Per (hub reference r, focal year yf) and register: the smallest w among r's citers
    published after yf (within the window) — computed once, then merged per focal paper by
    `sketched`, so an edge f -> r to a hub brings at most one row per register.

    Over `hll(pid, reg, w)` (a register keeps the smallest w, the largest rho, of its papers)
    and `hll_hubs(r)` (`hub_references`, materialised)."""
    later = after("h.y", "fy.yf", window)
    return f"""
WITH hs AS (
  SELECT e.cited AS r, e.citing_year AS y, k.reg, MIN(k.w) AS w
  FROM edges e JOIN hll_hubs hb ON hb.r = e.cited JOIN hll k ON k.pid = e.citing
  WHERE e.citing_year IS NOT NULL
  GROUP BY e.cited, e.citing_year, k.reg),
fy AS (
  SELECT DISTINCT e.cited AS r, e.citing_year AS yf
  FROM edges e JOIN hll_hubs hb ON hb.r = e.cited WHERE e.citing_year IS NOT NULL)
SELECT fy.r, fy.yf, h.reg, MIN(h.w) AS w
FROM fy JOIN hs h ON h.r = fy.r AND {later}
GROUP BY fy.r, fy.yf, h.reg
"""


def sketched(window: int | None, chunk: int = 0, chunks: int = 1) -> str:
    """Per focal paper with a non-empty C2 sketch: f, nz (registers set), z (the sum over set
    registers of w = 2^(R - rho), R the largest rho; `sketch.estimate` turns them into |C2|).

    A reference that is not a hub brings its later citers' registers directly (the coupling
    join's rows for it, no more); a hub brings its union row per register from `hll_unions`.
    The registers are the same either way (a MIN over the same citers)."""
    c2 = after("b.citing_year", "a.citing_year", window)
    part = _chunk("a.citing", chunk, chunks)
    return f"""
WITH u AS (
  SELECT a.citing AS f, q.reg, q.w
  FROM edges a JOIN hll_unions q ON q.r = a.cited AND q.yf = a.citing_year
  WHERE TRUE{part}
  UNION ALL
  SELECT a.citing AS f, k.reg, k.w
  FROM edges a JOIN edges b ON b.cited = a.cited JOIN hll k ON k.pid = b.citing
  WHERE {c2}{part} AND a.cited NOT IN (SELECT r FROM hll_hubs)),
m AS (SELECT f, reg, MIN(w) AS w FROM u GROUP BY f, reg)
SELECT CAST(f AS INT) AS f, CAST(COUNT(*) AS BIGINT) AS nz, CAST(SUM(w) AS BIGINT) AS z
FROM m GROUP BY f
"""


def floor(window: int | None) -> str:
    """The bare join + aggregate on the rows `coupled` must touch: the distinct coupled pairs
    after the year rule, counted. What the engine itself needs for n_k, nothing else."""
    c2 = after("b.citing_year", "a.citing_year", window)
    return f"""
SELECT COUNT(*) AS pairs FROM (
  SELECT a.citing, b.citing FROM edges a JOIN edges b ON b.cited = a.cited
  WHERE {c2} GROUP BY a.citing, b.citing) coupled_pairs
"""


def scan() -> str:
    """One pass over the edge table, every column read (the unit of the benchmark's ratios)."""
    return """
SELECT COUNT(*) AS n, SUM(CAST(citing AS BIGINT)) AS s1, SUM(CAST(cited AS BIGINT)) AS s2,
       SUM(CAST(citing_year AS BIGINT)) AS s3, SUM(CAST(cited_year AS BIGINT)) AS s4
FROM edges
"""


def coupled_rows(window: int | None) -> str:
    """How many (f, r, c) rows the coupling join yields after the year rule (before dedup)."""
    c2 = after("b.citing_year", "a.citing_year", window)
    return f"SELECT COUNT(*) AS n FROM edges a JOIN edges b ON b.cited = a.cited WHERE {c2}"
