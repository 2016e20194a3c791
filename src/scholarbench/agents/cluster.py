"""`cluster`: ResearchArena's CLUSTERING baseline, a taxonomy cut from a Ward dendrogram.

Papers are embedded (title + abstract) and clustered with Ward linkage. Starting at the root, a
dendrogram node is expanded into up to `branching` children by splitting its largest cluster
again and again; a cluster of at most max(min_leaf, n // leaf_divisor) papers, or one at
`max_depth`, becomes a paper category. Each category is named by the TF-IDF 1-3-gram with the
highest mean weight over its papers that no ancestor (the root counts, with the topic's words)
or earlier sibling already uses. "Uses" is per word, plural `s` folded: under "Preferences" a
child is not called "Preference" or "Preference Data". Number-only tokens ("2022") are not
terms. Children are ordered largest first, so bigger clusters pick their labels first. Labels
are title-cased, keeping the texts' own spelling of acronyms ("RLHF", "ChatGPT").
Everything is deterministic: no sampling, ties broken by position.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from scholarbench.embed.base import Embedder
from scholarbench.records import Paper, TaxoNode, TaxoPrediction, TaxoTask
from scholarbench.text.normalize import normalize_title

if TYPE_CHECKING:
    from scipy.cluster.hierarchy import ClusterNode
# sklearn (TF-IDF) and scipy.cluster (Ward) are imported when the agent runs, not with the
# module: registering the built-in agents (every run, re-score and report) must not pay for them.


@dataclass(frozen=True)
class ClusterParams:
    max_depth: int = 3        # category levels below the root
    branching: int = 4        # most children per category
    min_leaf: int = 3         # a cluster this small (or n // leaf_divisor) is a paper category
    leaf_divisor: int = 12

    def __post_init__(self) -> None:
        for name, low in (("max_depth", 1), ("branching", 2), ("min_leaf", 1), ("leaf_divisor", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"cluster: {name} must be an integer >= {low}, got {value!r}")

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    def config(self) -> dict[str, Any]:
        """What an agent using these parameters records in its run manifest."""
        return {**asdict(self), "linkage": "ward", "labels": "tfidf-1-3gram"}


def paper_text(paper: Paper) -> str:
    return f"{paper.title}. {paper.abstract}" if paper.abstract else paper.title


# sklearn's default (2+ word characters) minus tokens made only of digits
TOKEN_PATTERN = r"(?u)\b(?!\d+\b)\w\w+\b"
_WORD = re.compile(r"\w+")


def _fold(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def words_of(term: str) -> set[str]:
    return {_fold(w) for w in term.split()}


class _Labeler:
    """TF-IDF n-grams fitted on all the instance's paper texts."""

    def __init__(self, texts: list[str], topic: str) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer
        self.texts = texts
        vectorizer = TfidfVectorizer(ngram_range=(1, 3), stop_words="english",
                                     token_pattern=TOKEN_PATTERN)
        try:
            self.matrix = vectorizer.fit_transform(texts).tocsr()
        except ValueError:  # empty vocabulary: every text is stop words, digits or punctuation
            self.terms: list[str] = []
            self.topic_words: frozenset[str] = frozenset()
            return
        self.terms = [str(t) for t in vectorizer.get_feature_names_out()]
        self.topic_words = frozenset(w for t in vectorizer.build_analyzer()(topic)
                                     for w in words_of(t))

    def best(self, rows: list[int], used_words: set[str]) -> str | None:
        """Highest mean TF-IDF term over `rows` sharing no word with `used_words`.

        Equal means go to the alphabetically first term (the vocabulary is sorted).
        """
        if not self.terms:
            return None
        mean = np.asarray(self.matrix[rows].mean(axis=0)).ravel()
        for j in np.argsort(-mean, kind="stable"):
            if mean[j] <= 0:
                return None
            if not words_of(self.terms[j]) & used_words:
                return self.terms[j]
        return None

    def display(self, term: str, rows: list[int]) -> str:
        """Title case; a word the texts mostly spell with inner capitals keeps that spelling."""
        spellings: dict[str, Counter[str]] = {w: Counter() for w in term.split()}
        for r in rows:
            for token in _WORD.findall(self.texts[r]):
                low = token.lower()
                if low in spellings:
                    spellings[low][token] += 1
        out = []
        for word in term.split():
            common = spellings[word].most_common(1)
            surface = common[0][0] if common else word
            out.append(surface if surface[1:] != surface[1:].lower() else
                       word[:1].upper() + word[1:])
        return " ".join(out)


def _split(node: ClusterNode, branching: int, leaf_size: int) -> list[ClusterNode]:
    """Split the largest part (then the one merged latest, then the lowest id) until `branching`.

    A part already small enough to be a paper category is never split: that would only scatter
    it into single-paper categories.
    """
    parts = [node.get_left(), node.get_right()]
    while len(parts) < branching:
        splittable = [i for i, p in enumerate(parts) if not p.is_leaf() and p.count > leaf_size]
        if not splittable:
            break
        i = max(splittable, key=lambda k: (parts[k].count, parts[k].dist, -parts[k].id))
        parts[i:i + 1] = [parts[i].get_left(), parts[i].get_right()]
    return sorted(parts, key=lambda p: -p.count)  # stable: equal sizes keep dendrogram order


def cluster_papers(papers: Sequence[Paper], topic: str, embedder: Embedder,
                   **params: Any) -> TaxoNode:
    """A taxonomy of `papers` rooted at `topic`; each distinct title sits in exactly one category.

    Papers with the same normalised title are kept once (first occurrence). Raises ValueError
    when there is no paper with a non-empty title.
    """
    cfg = ClusterParams(**params)
    seen: set[str] = set()
    kept: list[Paper] = []
    for paper in papers:
        norm = normalize_title(paper.title)
        if norm and norm not in seen:
            seen.add(norm)
            kept.append(paper)
    if not kept:
        raise ValueError("no papers to cluster")
    n = len(kept)
    titles = [p.title for p in kept]
    texts = [paper_text(p) for p in kept]
    leaf_size = max(cfg.min_leaf, n // cfg.leaf_divisor)
    labeler = _Labeler(texts, topic)
    root = TaxoNode(topic.strip() or "Taxonomy")

    def name(rows: list[int], used: set[str], pos: str) -> tuple[str, set[str]]:
        """(label, its words); numbered "Cluster 1.2" when no unused term is left."""
        term = labeler.best(rows, used)
        return (labeler.display(term, rows), words_of(term)) if term else (f"Cluster {pos}", set())

    if n <= leaf_size:
        label, _ = name(list(range(n)), set(labeler.topic_words), "1")
        root.children = [TaxoNode(label, papers=titles)]
        return root

    vectors = np.asarray(embedder.embed(texts), dtype=np.float64)
    if vectors.ndim != 2 or vectors.shape[0] != n or not np.isfinite(vectors).all():
        raise ValueError(f"embedder returned shape {vectors.shape} (or non-finite values) "
                         f"for {n} texts")
    from scipy.cluster.hierarchy import linkage, to_tree
    dendrogram = to_tree(linkage(vectors, method="ward"))

    def expand(node: ClusterNode, level: int, used: set[str], pos: str) -> list[TaxoNode]:
        children = []
        taken = set(used)  # ancestors' words, then each earlier sibling's
        for i, part in enumerate(_split(node, cfg.branching, leaf_size), start=1):
            rows = sorted(part.pre_order())
            child_pos = f"{pos}.{i}" if pos else str(i)
            label, words = name(rows, taken, child_pos)
            taken |= words
            if part.is_leaf() or part.count <= leaf_size or level >= cfg.max_depth:
                children.append(TaxoNode(label, papers=[titles[r] for r in rows]))
            else:
                children.append(TaxoNode(label, children=expand(part, level + 1, used | words,
                                                                child_pos)))
        return children

    root.children = expand(dendrogram, 1, set(labeler.topic_words), "")
    return root


class ClusterAgent:
    """Bottom-up: clusters the task's papers. Deep Research: clusters `ctx.params["papers"]`.

    Deep Research mode without given papers is an error rather than a fallback to the task's
    papers, which are the expert set and would make retrieval perfect.
    """
    name = "cluster"
    modes = ("bottom-up",)   # the runner's deep-research mode needs a retriever: bm25-title

    def __init__(self, max_depth: int = 3, branching: int = 4, min_leaf: int = 3,
                 leaf_divisor: int = 12) -> None:
        self.params = ClusterParams(max_depth, branching, min_leaf, leaf_divisor)

    def config(self) -> dict[str, Any]:
        return self.params.config()

    def generate(self, task: TaxoTask, ctx: Any) -> TaxoPrediction:
        if ctx.mode == "deep-research":
            if "papers" not in ctx.params:
                raise ValueError("cluster has no retriever: in deep-research mode it needs "
                                 "ctx.params['papers'] (use the bm25-title agent)")
            papers = [p if isinstance(p, Paper) else Paper(title=str(p))
                      for p in ctx.params["papers"]]
        else:
            papers = list(task.papers)
        if not any(normalize_title(p.title) for p in papers):
            return TaxoPrediction(task.id, None, error="no papers to cluster")
        taxonomy = cluster_papers(papers, task.topic, ctx.embedder,
                                  **self.params.as_dict())
        return TaxoPrediction(task.id, taxonomy)
