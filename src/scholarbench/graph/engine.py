"""Where the SQL of `graph.sql` runs: DuckDB in-process (default) or Spark (local mode here, a
cluster for an OpenAlex-size graph). An engine only registers tables, materialises query results
as tables and returns query results as Arrow; every measure is SQL text shared by both.

Table contract (what `load_graph` registers from a `CitationGraph`):
    papers(pid INT, year INT NULL, venue INT NULL)
    edges_in(citing INT, cited INT)          -- raw; every endpoint is a papers.pid
    edges(citing, cited, citing_year, cited_year)   -- sql.EDGES over edges_in, materialised
"""
from __future__ import annotations

import tempfile
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from scholarbench.errors import ScholarbenchError
from scholarbench.graph import sql
from scholarbench.graph.records import CitationGraph

ENGINES = ("duckdb", "spark")


class Engine(ABC):
    name: str

    def __init__(self) -> None:
        self.graph_token: str | None = None

    @abstractmethod
    def register(self, name: str, table: pa.Table) -> None:
        """Make an Arrow table queryable as `name` (replacing any table of that name)."""

    @abstractmethod
    def materialize(self, name: str, query: str) -> None:
        """Compute `query` once and keep the result as table `name`."""

    @abstractmethod
    def query(self, query: str) -> pa.Table:
        ...

    def close(self) -> None:
        pass

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DuckDBEngine(Engine):
    """In-process DuckDB; what spills goes to a temporary directory of its own, not the working
    directory. `memory_limit` (e.g. "2GB") defaults to DuckDB's 80% of RAM: tight limits are not
    a memory bound for the CD index's aggregate (DuckDB 2.0 failed to allocate its hash table at
    128 and 256 MB on arxiv-2023 while 192 MB passed), so the measures bound their own aggregates
    by running in chunks (`graph.disruption`)."""
    name = "duckdb"

    def __init__(self, threads: int | None = None, memory_limit: str | None = None) -> None:
        import duckdb
        super().__init__()
        self._spill = tempfile.TemporaryDirectory(prefix="sb-duckdb-")
        config: dict[str, Any] = {"preserve_insertion_order": False,
                                  "temp_directory": self._spill.name}
        if threads:
            config["threads"] = threads
        if memory_limit:
            config["memory_limit"] = memory_limit
        self.con = duckdb.connect(config=config)

    def register(self, name: str, table: pa.Table) -> None:
        self.con.register("__arrow_in", table)
        try:
            self.con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM __arrow_in")
        finally:
            self.con.unregister("__arrow_in")

    def materialize(self, name: str, query: str) -> None:
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {query}")

    def query(self, query: str) -> pa.Table:
        return self.con.sql(query).to_arrow_table()

    def close(self) -> None:
        self.con.close()
        self._spill.cleanup()


_SPARK = None


def spark_session(partitions: int = 4, driver_memory: str = "2g"):
    """The process's Spark session; a local[*] one is created on first use when none is active.
    (On a cluster, create the session first: `SparkEngine()` then picks it up.)"""
    global _SPARK
    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:
        raise ScholarbenchError("engine 'spark' is the [spark] extra: pip install "
                                "'scholarbench[spark]' (and a Java 17+ runtime)") from exc
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    if _SPARK is None:
        _SPARK = (SparkSession.builder.master("local[*]").appName("scholarbench-graph")
                  .config("spark.ui.enabled", "false")
                  .config("spark.ui.showConsoleProgress", "false")
                  .config("spark.sql.shuffle.partitions", str(partitions))
                  .config("spark.sql.autoBroadcastJoinThreshold", str(64 * 1024 * 1024))
                  .config("spark.driver.memory", driver_memory)
                  .getOrCreate())
        _SPARK.sparkContext.setLogLevel("ERROR")
    return _SPARK


class SparkEngine(Engine):
    """Tables live as Parquet in a temporary directory (registering an Arrow table through
    `createDataFrame` + cache is ~20x slower in local mode), read back as temp views; on a
    cluster, pass `workdir` on shared storage."""
    name = "spark"

    def __init__(self, spark: Any = None, workdir: str | None = None) -> None:
        super().__init__()
        # a session of its own (same SparkContext): its temp views cannot clash with another
        # engine's in this process
        self.spark = (spark or spark_session()).newSession()
        self._tmp = None if workdir else tempfile.TemporaryDirectory(prefix="sb-spark-")
        self.workdir = Path(workdir or self._tmp.name)
        self._views: set[str] = set()
        self._version = 0

    def _path(self, name: str) -> str:
        self._version += 1          # a new path each time: a view may still read the old one
        return str(self.workdir / f"{name}-{self._version}.parquet")

    def _view(self, name: str, path: str) -> None:
        self.spark.read.parquet(path).createOrReplaceTempView(name)
        self._views.add(name)

    def register(self, name: str, table: pa.Table) -> None:
        import pyarrow.parquet as pq
        path = self._path(name)
        pq.write_table(table, path)
        self._view(name, path)

    def materialize(self, name: str, query: str) -> None:
        path = self._path(name)
        self.spark.sql(query).write.mode("overwrite").parquet(path)
        self._view(name, path)

    def query(self, query: str) -> pa.Table:
        return self.spark.sql(query).toArrow()

    def close(self) -> None:
        """Drops this engine's views and files; the session stays up for the next engine."""
        for name in self._views:
            self.spark.catalog.dropTempView(name)
        self._views.clear()
        if self._tmp is not None:
            self._tmp.cleanup()
        self.graph_token = None


def open_engine(engine: "str | Engine") -> tuple[Engine, bool]:
    """(engine, owned): a name opens a new engine that the caller must close."""
    if isinstance(engine, Engine):
        return engine, False
    if engine == "duckdb":
        return DuckDBEngine(), True
    if engine == "spark":
        return SparkEngine(), True
    raise ScholarbenchError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")


def _nullable(values: np.ndarray, valid: np.ndarray) -> pa.Array:
    return pa.array(values, type=pa.int32(), mask=~valid)


def load_graph(engine: Engine, graph: CitationGraph) -> None:
    """Register the graph's tables unless this engine holds them already."""
    if engine.graph_token == graph.token:
        return
    papers = pa.table({
        "pid": pa.array(np.arange(graph.n_papers, dtype=np.int32)),
        "year": _nullable(graph.year, graph.has_year),
        "venue": _nullable(graph.venue, graph.venue >= 0),
    })
    edges = pa.table({"citing": pa.array(graph.citing.astype(np.int32)),
                      "cited": pa.array(graph.cited.astype(np.int32))})
    engine.register("papers", papers)
    engine.register("edges_in", edges)
    engine.materialize("edges", sql.EDGES)
    engine.graph_token = graph.token
