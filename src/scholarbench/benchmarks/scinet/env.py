"""The world SciNet tasks are built in, answers are scored in and graph-aware agents act in:
a citation graph with titles, its per-paper measures (CD index, Uzzi novelty), the reference
populations of the SoS percentiles, and the citation contexts.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Sequence

import numpy as np

from scholarbench.data.identifiers import parse_id
from scholarbench.graph import (CitationGraph, PathFinder, ReferencePopulation, build_graph,
                                disruption, novelty, sos)
from scholarbench.graph.sources import arxiv2023_graph_and_titles
from scholarbench.benchmarks.scinet.contexts import ContextStore, read_unarxive_contexts
from scholarbench.text.normalize import normalize_title
from scholarbench.graph.path import dag_mask

# arXiv CS category names (https://arxiv.org/category_taxonomy), used in the field wording.
CATEGORY_NAMES = {
    "cs.AI": "Artificial Intelligence", "cs.AR": "Hardware Architecture",
    "cs.CC": "Computational Complexity", "cs.CE": "Computational Engineering, Finance, and Science",
    "cs.CG": "Computational Geometry", "cs.CL": "Computation and Language",
    "cs.CR": "Cryptography and Security", "cs.CV": "Computer Vision and Pattern Recognition",
    "cs.CY": "Computers and Society", "cs.DB": "Databases", "cs.DC": "Distributed, Parallel, and Cluster Computing",
    "cs.DL": "Digital Libraries", "cs.DM": "Discrete Mathematics", "cs.DS": "Data Structures and Algorithms",
    "cs.ET": "Emerging Technologies", "cs.FL": "Formal Languages and Automata Theory",
    "cs.GL": "General Literature", "cs.GR": "Graphics", "cs.GT": "Computer Science and Game Theory",
    "cs.HC": "Human-Computer Interaction", "cs.IR": "Information Retrieval", "cs.IT": "Information Theory",
    "cs.LG": "Machine Learning", "cs.LO": "Logic in Computer Science", "cs.MA": "Multiagent Systems",
    "cs.MM": "Multimedia", "cs.MS": "Mathematical Software", "cs.NA": "Numerical Analysis",
    "cs.NE": "Neural and Evolutionary Computing", "cs.NI": "Networking and Internet Architecture",
    "cs.OH": "Other Computer Science", "cs.OS": "Operating Systems", "cs.PF": "Performance",
    "cs.PL": "Programming Languages", "cs.RO": "Robotics", "cs.SC": "Symbolic Computation",
    "cs.SD": "Sound", "cs.SE": "Software Engineering", "cs.SI": "Social and Information Networks",
    "cs.SY": "Systems and Control",
}


def field_name(category: str) -> str:
    """'Computation and Language (cs.CL)'; a category without a known name is itself."""
    name = CATEGORY_NAMES.get(category)
    return f"{name} ({category})" if name else category


@dataclass(frozen=True)
class EnvSettings:
    """Everything that changes the measures; recorded in task files and run manifests."""
    disruption_variant: str = "cd"      # "cd" (Funk & Owen-Smith) or "scinet" (no n_k term)
    window: int | None = None
    seed: int = 0
    randomisations: int = 10
    # SciNet's Evaluation/task1-novelty-sos.py @ ed5c76f: "linear" (np.percentile), "paper"
    novelty_rule: str = "inverted_cdf"
    novelty_pairing: str = "venue"
    novelty_seeds: int = 1       # > 1: the mean of seeds seed..seed+n-1 (defined ones), gold.py

    def as_dict(self) -> dict:
        out = {"disruption_variant": self.disruption_variant, "window": self.window,
               "seed": self.seed, "randomisations": self.randomisations}
        # the novelty variants only when chosen, so task files built before keep their checksum
        if self.novelty_rule != "inverted_cdf":
            out["novelty_rule"] = self.novelty_rule
        if self.novelty_pairing != "venue":
            out["novelty_pairing"] = self.novelty_pairing
        if self.novelty_seeds != 1:
            out["novelty_seeds"] = self.novelty_seeds
        return out


class SciNetEnv:
    def __init__(self, graph: CitationGraph, titles: dict[str, str],
                 contexts: ContextStore | None = None, settings: EnvSettings | None = None,
                 name: str | None = None) -> None:
        self.graph = graph
        self.titles = titles
        self.contexts = contexts or ContextStore()
        self.settings = settings or EnvSettings()
        self.name = name or graph.name
        g = graph
        n = g.n_papers
        self.ids: list[str] = [str(i) for i in g.ids]
        # references: edges sorted by citing; citers: by cited
        self._ref_ptr = np.searchsorted(g.citing, np.arange(n + 1))
        order = np.argsort(g.cited, kind="stable")
        self._cit_src = g.citing[order]
        self._cit_ptr = np.searchsorted(g.cited[order], np.arange(n + 1))

    # ---- construction --------------------------------------------------------------------
    @classmethod
    def from_arxiv2023(cls, folder: str | Path, unarxive: str | Path | None = None,
                       settings: EnvSettings | None = None) -> "SciNetEnv":
        graph, titles = arxiv2023_graph_and_titles(folder)
        env = cls(graph, titles, None, settings, name="arxiv-2023")
        if unarxive is not None:
            env.contexts = read_unarxive_contexts(unarxive, env.has)
        return env

    @classmethod
    def from_tables(cls, papers: Sequence[dict], edges: Sequence[tuple[str, str]],
                    contexts: ContextStore | None = None, settings: EnvSettings | None = None,
                    name: str = "graph") -> "SciNetEnv":
        """papers: dicts with id, title, year (or None), venue (category)."""
        graph = build_graph([p["id"] for p in papers], [p.get("year") for p in papers],
                            [p.get("venue") for p in papers], [e[0] for e in edges],
                            [e[1] for e in edges], name=name)
        return cls(graph, {p["id"]: p["title"] for p in papers}, contexts, settings, name=name)

    # ---- ids -----------------------------------------------------------------------------
    def has(self, paper_id: str) -> bool:
        return self.graph.pid(paper_id) is not None

    @cached_property
    def _title_index(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = defaultdict(list)
        for pid, title in self.titles.items():
            out[normalize_title(title)].append(pid)
        return out

    def resolve(self, text: object) -> str | None:
        """A graph id for an answer item: an id in any spelling the resolver knows (arXiv id or
        URL, `ogbn:<n>`, ...) or a title that exactly one paper has (normalised). None: not a
        paper of the graph."""
        if not isinstance(text, str) or not text.strip():
            return None
        text = text.strip()
        if self.has(text):
            return text
        try:
            key = str(parse_id(text))
        except Exception:
            return None
        if self.has(key):
            return key
        if key.startswith("title:"):
            hits = self._title_index.get(key[len("title:"):], [])
            return hits[0] if len(hits) == 1 else None
        return None

    def title(self, paper_id: str) -> str:
        return self.titles.get(paper_id, "")

    # ---- graph lookups -------------------------------------------------------------------
    def _pid(self, paper_id: str) -> int:
        pid = self.graph.pid(paper_id)
        if pid is None:
            raise KeyError(paper_id)
        return pid

    def references(self, paper_id: str) -> list[str]:
        p = self._pid(paper_id)
        return [self.ids[q] for q in self.graph.cited[self._ref_ptr[p]:self._ref_ptr[p + 1]]]

    def citers(self, paper_id: str) -> list[str]:
        p = self._pid(paper_id)
        return [self.ids[q] for q in self._cit_src[self._cit_ptr[p]:self._cit_ptr[p + 1]]]

    def cites(self, citing: str, cited: str) -> bool:
        a, b = self.graph.pid(citing), self.graph.pid(cited)
        if a is None or b is None:
            return False
        refs = self.graph.cited[self._ref_ptr[a]:self._ref_ptr[a + 1]]
        i = int(np.searchsorted(refs, b))
        return i < len(refs) and int(refs[i]) == b

    def cocited(self, paper_id: str) -> dict[str, int]:
        """Papers cited together with `paper_id` by at least one paper of the graph -> how many
        papers cite both (co-citation count)."""
        g, p = self.graph, self._pid(paper_id)
        out: dict[int, int] = defaultdict(int)
        for c in self._cit_src[self._cit_ptr[p]:self._cit_ptr[p + 1]]:
            for r in g.cited[self._ref_ptr[c]:self._ref_ptr[c + 1]]:
                if r != p:
                    out[int(r)] += 1
        return {self.ids[r]: k for r, k in out.items()}

    def category(self, paper_id: str) -> str | None:
        v = int(self.graph.venue[self._pid(paper_id)])
        return self.graph.venues[v] if v >= 0 else None

    def year(self, paper_id: str) -> int | None:
        p = self._pid(paper_id)
        return int(self.graph.year[p]) if self.graph.has_year[p] else None

    def category_ids(self, category: str) -> list[str]:
        try:
            code = self.graph.venues.index(category)
        except ValueError:
            return []
        return [self.ids[i] for i in np.flatnonzero((self.graph.venue == code) & self.graph.listed)]

    @cached_property
    def citation_counts(self) -> np.ndarray:
        return self.graph.citation_counts()

    def n_citations(self, paper_id: str) -> int:
        return int(self.citation_counts[self._pid(paper_id)])

    @cached_property
    def path_finder(self) -> PathFinder:
        return PathFinder(self.graph)

    @cached_property
    def dag_edges(self) -> set[tuple[int, int]]:
        """(citing, cited) pid pairs kept by the path search's cycle breaking."""
        keep = dag_mask(self.graph)
        return set(zip(self.graph.citing[keep].tolist(), self.graph.cited[keep].tolist()))

    # ---- measures ------------------------------------------------------------------------
    @cached_property
    def _measures(self) -> tuple[np.ndarray, np.ndarray]:
        s = self.settings
        d = disruption(self.graph, variant=s.disruption_variant, window=s.window)
        if isinstance(s.novelty_seeds, bool) or not isinstance(s.novelty_seeds, int) \
                or s.novelty_seeds < 1:
            raise ValueError(f"novelty_seeds must be an integer >= 1, got {s.novelty_seeds!r}")
        runs = np.stack([novelty(self.graph, randomisations=s.randomisations, seed=s.seed + i,
                                 percentile_rule=s.novelty_rule, pairing=s.novelty_pairing
                                 ).values.astype(np.float64) for i in range(s.novelty_seeds)])
        defined = np.isfinite(runs)
        total = np.where(defined, runs, 0.0).sum(axis=0)
        count = defined.sum(axis=0)
        nv = np.full(runs.shape[1], np.nan)
        nv[count > 0] = total[count > 0] / count[count > 0]
        return d.values.astype(np.float64), nv

    @property
    def disruption_values(self) -> np.ndarray:
        return self._measures[0]

    @property
    def novelty_values(self) -> np.ndarray:
        return self._measures[1]

    def measure(self, name: str) -> np.ndarray:
        if name == "novelty":
            return self.novelty_values
        if name == "disruption":
            return self.disruption_values
        raise KeyError(name)

    @cached_property
    def populations(self) -> dict[str, ReferencePopulation | None]:
        """SoS reference populations: every listed paper of the graph with a defined value
        (None when no paper has one: every SoS is then undefined)."""
        listed = self.graph.listed
        out: dict[str, ReferencePopulation | None] = {}
        for m in ("novelty", "disruption"):
            vals = self.measure(m)[listed]
            out[m] = (ReferencePopulation.of(f"{self.name}: all papers with a defined {m}", m,
                                             vals) if np.isfinite(vals).any() else None)
        return out

    def population_name(self, name: str) -> str | None:
        pop = self.populations[name]
        return pop.name if pop is not None else None

    def sos(self, name: str, paper_ids: Sequence[str]) -> np.ndarray:
        """SoS (0-10) of each paper; NaN where the value is undefined or the id unknown."""
        vals = np.full(len(paper_ids), np.nan)
        arr = self.measure(name)
        for i, pid in enumerate(paper_ids):
            p = self.graph.pid(pid)
            if p is not None:
                vals[i] = arr[p]
        pop = self.populations[name]
        return sos(vals, pop) if pop is not None else np.full(len(paper_ids), np.nan)

    def describe(self) -> dict:
        return {"name": self.name, "papers": self.graph.n_papers, "edges": self.graph.n_edges,
                "contexts": len(self.contexts.contexts),
                "paragraphs": len(self.contexts.paragraphs), **self.settings.as_dict()}
