"""DuckDB and Spark run the same SQL: identical results (bit for bit) on small graphs and on the
real arxiv-2023 graph. Spark starts once for this module; select or skip these tests with
`-m spark` / `-m "not spark"`."""
from __future__ import annotations

import argparse
import csv
import os

import numpy as np
import pytest

from conftest import shared_path
from scholarbench.graph import DuckDBEngine, build_graph, disruption, novelty, randomise
from scholarbench.graph.commands import add_graph_parser
from scholarbench.graph.sources import arxiv2023_graph

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def spark_engine():
    try:
        from scholarbench.graph.engine import SparkEngine
        engine = SparkEngine()
    except Exception as exc:  # no pyspark, no Java
        if os.environ.get("CI") == "true":
            pytest.fail(f"Spark is needed in CI: {exc}")
        pytest.skip(f"Spark is not available here: {exc}")
    yield engine
    engine.close()


def same(a, b):
    assert a.dtype == b.dtype
    assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


def random_graph(seed, n=120, m=900):
    rng = np.random.default_rng(seed)
    ids = [f"w{i}" for i in range(n)]
    years = [None if rng.random() < 0.1 else int(rng.integers(1995, 2005)) for _ in ids]
    venues = [None if rng.random() < 0.1 else f"s{rng.integers(0, 6)}" for _ in ids]
    a, b = rng.integers(0, n, m), rng.integers(0, n, m)
    return build_graph(ids, years, venues, [ids[i] for i in a], [ids[j] for j in b])


def test_small_graph_novelty(spark_engine):
    # the windowed CD index is compared through the CLI below, the full one on arxiv-2023
    g = random_graph(0)
    with DuckDBEngine() as duck:
        for stratify, pairs in (("years", True), ("none", False)):
            rand = randomise(g, 4, seed=9, stratify=stratify)
            nd = novelty(g, randomised=rand, engine=duck, with_pairs=pairs)
            ns = novelty(g, randomised=rand, engine=spark_engine, with_pairs=pairs)
            assert ns.engine == "spark"
            same(nd.values, ns.values)
            same(nd.pairs, ns.pairs)
            if pairs:
                assert nd.pair_z.to_pydict() == ns.pair_z.to_pydict()
            assert np.isfinite(nd.values).sum() > 50


def test_cli_engine_spark(tmp_path, spark_engine):
    """The whole metrics table, CD index with a window included, through the CLI."""
    g = random_graph(1, n=60, m=400)
    edges, papers = tmp_path / "e.csv", tmp_path / "p.csv"
    with edges.open("w", newline="") as fh:
        csv.writer(fh).writerows([("citing", "cited")] + [(g.ids[c], g.ids[d]) for c, d in
                                                          zip(g.citing, g.cited)])
    with papers.open("w", newline="") as fh:
        csv.writer(fh).writerows([("id", "year", "venue")] + [
            (g.ids[i], g.year[i] if g.has_year[i] else "", g.venues[g.venue[i]]
             if g.venue[i] >= 0 else "") for i in range(g.n_papers)])
    parser = argparse.ArgumentParser()
    add_graph_parser(parser.add_subparsers(dest="command"))
    outs = {}
    for engine in ("duckdb", "spark"):
        outs[engine] = tmp_path / f"{engine}.csv"
        args = parser.parse_args(["graph", "metrics", "--edges", str(edges), "--papers",
                                  str(papers), "--out", str(outs[engine]), "--engine", engine,
                                  "--randomisations", "3", "--window", "4"])
        assert args.func(args) == 0
    text = outs["duckdb"].read_text()
    assert text == outs["spark"].read_text()
    rows = list(csv.DictReader(text.splitlines()))
    assert sum(r["cd_index"] != "" for r in rows) > 10
    assert sum(r["novelty"] != "" for r in rows) > 10


def test_arxiv2023(spark_engine):
    g = arxiv2023_graph(shared_path("data", "arxiv2023_citation_graph"))
    d = disruption(g)
    s = disruption(g, engine=spark_engine)
    for name in ("n_i", "n_j", "n_k", "references", "citations", "cd", "scinet"):
        same(getattr(d, name), getattr(s, name))
    assert np.isfinite(d.cd).sum() > 15000
    rand = randomise(g, 3, seed=0)
    nd = novelty(g, randomised=rand)
    ns = novelty(g, randomised=rand, engine=spark_engine)
    same(nd.values, ns.values)
    same(nd.pairs, ns.pairs)
    assert np.isfinite(nd.values).sum() > 20000
    same(novelty(g, randomisations=3, seed=0).values, nd.values)   # same seed, same numbers


def test_every_disruption_variant_is_bit_identical_on_both_engines(spark_engine):
    """Same SQL text, same bits: the exact counts, SciNet's two variants and the sketched
    CD index (whose registers and sums are integers), with and without a window."""
    g = random_graph(2, n=150, m=1200)
    with DuckDBEngine() as duck:
        for variant, window, hubs in (("scinet", None, None), ("scinet", 3, None),
                                      ("scinet_upstream", None, None), ("cd_approx", None, None),
                                      ("cd_approx", 4, 5), ("cd", 4, None)):
            d = disruption(g, variant=variant, window=window, engine=duck, precision=6,
                           hubs_above=hubs)
            s = disruption(g, variant=variant, window=window, engine=spark_engine, precision=6,
                           hubs_above=hubs)
            for name in ("values", "n_i", "n_j", "references", "citations"):
                same(getattr(d, name), getattr(s, name))
            if d.n_k is not None:
                same(d.n_k, s.n_k)
            assert np.isfinite(d.values).sum() > 20, variant
