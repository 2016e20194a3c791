"""Citation-graph queries in DuckDB SQL over the `edges` table (citing, cited), one row per pair.

Ties are broken by paper_id, so every answer is deterministic.
- references(p): papers p cites.  citations(p): papers citing p.
- co_cited(p, k): papers cited together with p — for every paper c citing p, each other paper c
  cites scores 1; ranked by that count (the number of papers citing both), then paper_id.
- coupled(p, k): bibliographic coupling — papers q != p ranked by the number of references p and
  q share, then paper_id.
"""
from __future__ import annotations

import duckdb

REFERENCES = "SELECT cited FROM edges WHERE citing = ? ORDER BY cited"
CITATIONS = "SELECT citing FROM edges WHERE cited = ? ORDER BY citing"
CO_CITED = """
    SELECT b.cited AS paper_id, count(*) AS n
    FROM edges a JOIN edges b ON a.citing = b.citing
    WHERE a.cited = $pid AND b.cited <> $pid
    GROUP BY b.cited ORDER BY n DESC, paper_id LIMIT $k"""
COUPLED = """
    SELECT b.citing AS paper_id, count(*) AS n
    FROM edges a JOIN edges b ON a.cited = b.cited
    WHERE a.citing = $pid AND b.citing <> $pid
    GROUP BY b.citing ORDER BY n DESC, paper_id LIMIT $k"""


def column(con: duckdb.DuckDBPyConnection, sql: str, pid: str) -> list[str]:
    return [row[0] for row in con.execute(sql, [pid]).fetchall()]


def ranked(con: duckdb.DuckDBPyConnection, sql: str, pid: str, k: int) -> list[tuple[str, int]]:
    if k <= 0:
        return []
    return [(row[0], int(row[1])) for row in con.execute(sql, {"pid": pid, "k": k}).fetchall()]
