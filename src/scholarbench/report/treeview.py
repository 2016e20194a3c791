"""Expert vs model taxonomy, side by side, with every category node marked (TaxoBench Figs. 9–10).

Node matching (categories only; the two roots are always paired and marked "root"):

1. **matched** — same label after `normalize_title` (case, punctuation, dashes and quotes
   ignored). Labels repeat across branches, so equal labels are paired one to one in pre-order.
2. **renamed** — among the nodes left, a one-to-one assignment (Hungarian, scipy
   `linear_sum_assignment`, maximising the pair score) over the candidate pairs: a pair is a
   candidate when its *label similarity* reaches the threshold of the similarity in use, or when
   its *paper overlap* reaches `PAPER_OVERLAP` (0.6). The pair score is the larger of the two.
   Label similarity is, in order of preference: the embedder passed in; else the MiniLM vectors
   the run's scoring already stored in the embedding cache (read-only; used only when it holds
   every label, so the model is never loaded for a report), max(0, cos) as TaxoBench eq. 7,
   threshold `EMBEDDING_THRESHOLD` (0.7); else a string fallback, rapidfuzz's normalised Indel
   similarity of the normalised labels, threshold `STRING_THRESHOLD` (0.8). Paper overlap is the
   Jaccard index of the two subtrees' papers, expert and model titles paired by the TaxoBench
   title alignment (`text.align.align_titles`, A.5); it catches a category kept with another
   name ("Tool Creation" → "Tool Development", Fig. 10) that no label similarity would.
3. **missing** — an expert node left unpaired; **extra** — a model node left unpaired.

Papers are marked too: an expert paper the model tree also places (aligned title) or does not;
a model paper that is an expert paper or not. A category with one paper and no sub-category is
tagged "singleton", as the paper's Fig. 9 does.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from scholarbench.leakage.marks import tag_html
from scholarbench.paths import cache_dir
from scholarbench.records import TaxoNode
from scholarbench.text.align import align_titles
from scholarbench.text.escape import html as html_text
from scholarbench.text.normalize import normalize_title

ROOT, MATCHED, RENAMED, MISSING, EXTRA = "root", "matched", "renamed", "missing", "extra"
STATUSES = (MATCHED, RENAMED, MISSING, EXTRA)
PAPER_OVERLAP = 0.6
EMBEDDING_THRESHOLD = 0.7
STRING_THRESHOLD = 0.8

Pos = tuple[int, ...]


class LabelSimilarity(Protocol):
    description: str
    threshold: float

    def matrix(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray: ...


class StringSimilarity:
    """rapidfuzz's normalised Indel similarity of the normalised labels (no model)."""
    description = ("string similarity of the normalised labels (rapidfuzz normalised Indel "
                   f"ratio) ≥ {STRING_THRESHOLD}")
    threshold = STRING_THRESHOLD

    def matrix(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        if not a or not b:
            return np.zeros((len(a), len(b)))
        from rapidfuzz.distance import Indel
        from rapidfuzz.process import cdist
        return cdist([_norm(x) for x in a], [_norm(y) for y in b],
                     scorer=Indel.normalized_similarity, dtype=np.float64, workers=1)


class EmbeddingSimilarity:
    """max(0, cos) of label vectors (TaxoBench eq. 7), from an embedder or stored vectors."""

    def __init__(self, vectors_for, description: str,
                 threshold: float = EMBEDDING_THRESHOLD) -> None:
        self._vectors_for = vectors_for
        self.description = description
        self.threshold = threshold

    def matrix(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        if not a or not b:
            return np.zeros((len(a), len(b)))
        va = _unit(np.asarray(self._vectors_for(list(a)), dtype=np.float64))
        vb = _unit(np.asarray(self._vectors_for(list(b)), dtype=np.float64))
        return np.clip(va @ vb.T, 0.0, 1.0)

    @classmethod
    def of_embedder(cls, embedder) -> "EmbeddingSimilarity":
        return cls(embedder.embed, f"cosine of {getattr(embedder, 'model_id', 'embedder')} label "
                   f"embeddings ≥ {EMBEDDING_THRESHOLD}")


def _unit(vecs: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs / np.where(norms == 0, 1.0, norms)


def cached_vectors(cache_path: Path, model_id: str, texts: Sequence[str]
                   ) -> dict[str, np.ndarray] | None:
    """The stored vectors of `texts` from a CachedEmbedder SQLite file, opened read-only;
    None when the file is absent or lacks any of them."""
    wanted = list(dict.fromkeys(texts))
    if not cache_path.is_file() or not model_id:
        return None
    try:
        con = sqlite3.connect(f"file:{cache_path}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    found: dict[str, np.ndarray] = {}
    try:
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for text, blob in con.execute(
                    f"SELECT text, v FROM vec WHERE model=? AND text IN ({marks})",
                    [model_id, *chunk]):
                found[text] = np.frombuffer(blob, dtype=np.float32)
    except sqlite3.Error:
        return None
    finally:
        con.close()
    return found if len(found) == len(wanted) else None


def similarity_for(labels: Sequence[str], model_id: str | None, embedder=None,
                   cache_path: Path | None = None) -> LabelSimilarity:
    """The label similarity to use for these labels (see the module docstring for the order)."""
    if embedder is not None:
        return EmbeddingSimilarity.of_embedder(embedder)
    if model_id and cache_path is None:
        cache_path = cache_dir() / "embeddings.sqlite"
    if model_id and cache_path is not None:
        vectors = cached_vectors(cache_path, model_id, labels)
        if vectors is not None:
            return EmbeddingSimilarity(lambda texts: np.stack([vectors[t] for t in texts]),
                                       f"cosine of the {model_id} label embeddings stored when "
                                       f"the run was scored ≥ {EMBEDDING_THRESHOLD}")
    return StringSimilarity()


def _norm(label: str) -> str:
    return normalize_title(label) or label.strip().lower()


@dataclass(frozen=True)
class NodeMark:
    status: str
    partner: Pos | None = None
    partner_label: str | None = None
    label_similarity: float | None = None
    paper_overlap: float | None = None


@dataclass
class TreeComparison:
    expert: TaxoNode
    model: TaxoNode | None
    expert_marks: dict[Pos, NodeMark]
    model_marks: dict[Pos, NodeMark]
    expert_paper_placed: dict[str, bool]   # normalised expert title → in the model tree
    model_paper_expert: dict[str, bool]    # normalised model title → is an expert paper
    similarity: str
    counts: dict[str, int] = field(default_factory=dict)


def _nodes(tree: TaxoNode | None) -> list[tuple[TaxoNode, Pos]]:
    return [] if tree is None else [(n, pos) for n, pos, _ in tree.walk_with_path()]


def _subtree_papers(nodes: list[tuple[TaxoNode, Pos]], key) -> dict[Pos, set]:
    """Each node's set of paper keys, its whole subtree included (iterative, deepest first)."""
    out: dict[Pos, set] = {}
    for node, pos in sorted(nodes, key=lambda item: -len(item[1])):
        papers = {k for t in node.papers if (k := key(t)) is not None}
        for i in range(len(node.children)):
            papers |= out.get(pos + (i,), set())
        out[pos] = papers
    return out


def compare_trees(expert: TaxoNode, model: TaxoNode | None,
                  similarity: LabelSimilarity | None = None) -> TreeComparison:
    similarity = similarity or StringSimilarity()
    e_nodes, m_nodes = _nodes(expert), _nodes(model)
    e_marks: dict[Pos, NodeMark] = {}
    m_marks: dict[Pos, NodeMark] = {}
    # papers: the TaxoBench alignment between the two trees' titles
    alignment = align_titles(expert.all_papers(), model.all_papers() if model else [])
    e_index = {normalize_title(t): i for i, t in enumerate(alignment.expert)}
    m_index = {normalize_title(t): j for j, t in enumerate(alignment.model)}
    m_to_e = {m: e for e, m, _ in alignment.pairs}
    e_aligned = {e for e, _, _ in alignment.pairs}
    placed = {normalize_title(t): i in e_aligned for i, t in enumerate(alignment.expert)}
    is_expert = {normalize_title(t): j in m_to_e for j, t in enumerate(alignment.model)}

    def e_key(title: str):
        return e_index.get(normalize_title(title))

    def m_key(title: str):
        j = m_index.get(normalize_title(title))
        if j is None:
            return None
        return m_to_e[j] if j in m_to_e else ("model", j)

    e_sets = _subtree_papers(e_nodes, e_key)
    m_sets = _subtree_papers(m_nodes, m_key)

    if model is not None:
        e_marks[()] = NodeMark(ROOT, (), model.name)
        m_marks[()] = NodeMark(ROOT, (), expert.name)
    else:
        e_marks[()] = NodeMark(ROOT)
    e_rest = [(n, p) for n, p in e_nodes if p != ()]
    m_rest = [(n, p) for n, p in m_nodes if p != ()]

    # 1. exact (normalised) labels, pre-order
    by_label: dict[str, list[tuple[TaxoNode, Pos]]] = {}
    for node, pos in m_rest:
        by_label.setdefault(_norm(node.name), []).append((node, pos))
    for node, pos in e_rest:
        queue = by_label.get(_norm(node.name))
        if queue:
            m_node, m_pos = queue.pop(0)
            e_marks[pos] = NodeMark(MATCHED, m_pos, m_node.name, 1.0)
            m_marks[m_pos] = NodeMark(MATCHED, pos, node.name, 1.0)

    # 2. renamed: Hungarian over candidates by label similarity or paper overlap
    e_left = [(n, p) for n, p in e_rest if p not in e_marks]
    m_left = [(n, p) for n, p in m_rest if p not in m_marks]
    if e_left and m_left:
        from scipy.optimize import linear_sum_assignment
        labels = similarity.matrix([n.name for n, _ in e_left], [n.name for n, _ in m_left])
        overlap = np.zeros_like(labels)
        for i, (_, ep) in enumerate(e_left):
            a = e_sets[ep]
            if not a:
                continue
            for j, (_, mp) in enumerate(m_left):
                b = m_sets[mp]
                if b:
                    overlap[i, j] = len(a & b) / len(a | b)
        candidate = (labels >= similarity.threshold) | (overlap >= PAPER_OVERLAP)
        score = np.where(candidate, np.maximum(labels, overlap), 0.0)
        rows, cols = linear_sum_assignment(score, maximize=True)
        for i, j in zip(rows, cols):
            if not candidate[i, j]:
                continue
            (e_node, ep), (m_node, mp) = e_left[i], m_left[j]
            ls, po = float(labels[i, j]), float(overlap[i, j])
            e_marks[ep] = NodeMark(RENAMED, mp, m_node.name, ls, po)
            m_marks[mp] = NodeMark(RENAMED, ep, e_node.name, ls, po)

    # 3. the rest
    for _, pos in e_rest:
        e_marks.setdefault(pos, NodeMark(MISSING))
    for _, pos in m_rest:
        m_marks.setdefault(pos, NodeMark(EXTRA))
    counts = {status: sum(1 for m in e_marks.values() if m.status == status)
              for status in (MATCHED, RENAMED, MISSING)}
    counts[EXTRA] = sum(1 for m in m_marks.values() if m.status == EXTRA)
    counts["expert_nodes"] = len(e_rest)
    counts["model_nodes"] = len(m_rest)
    counts["expert_papers"] = len(alignment.expert)
    counts["expert_papers_placed"] = len(e_aligned)
    counts["model_papers"] = len(alignment.model)
    return TreeComparison(expert, model, e_marks, m_marks, placed, is_expert,
                          similarity.description, counts)


# ------------------------------------------------------------------------------------ rendering

_e = html_text   # text.escape.html: escaped, controls and bidi removed


_SYMBOL = {MATCHED: "=", RENAMED: "≈", MISSING: "−", EXTRA: "+", ROOT: ""}


def _node_tag(mark: NodeMark, side: str) -> str:
    if mark.status == RENAMED:
        detail = []
        if mark.label_similarity is not None:
            detail.append(f"label {mark.label_similarity:.2f}")
        if mark.paper_overlap:
            detail.append(f"papers {mark.paper_overlap:.2f}")
        other = "model" if side == "expert" else "expert"
        return (f'<span class="tag tag-renamed" title="{_e(", ".join(detail))}">≈ {other}: '
                f"{_e(mark.partner_label)}</span>")
    return ""   # missing / extra: the symbol, colour and legend say it


def render_tree(tree: TaxoNode, marks: dict[Pos, NodeMark], side: str,
                paper_state: dict[str, bool], max_papers: int | None = None,
                leaked: dict[str, str] | None = None) -> str:
    """A nested list; iterative, so arbitrarily deep trees render without recursion.
    `leaked`: normalised title → the leakage rule it was counted under (model side)."""
    out = [f'<ul class="tree tree-{side}">']
    prev = -1
    for node, pos, _ in tree.walk_with_path():
        depth = len(pos)
        if depth > prev:
            if prev >= 0:
                out.append('<ul class="children">')
        else:
            out.append("</li>")
            out.extend(["</ul></li>"] * (prev - depth))
        mark = marks.get(pos, NodeMark(EXTRA if side == "model" else MISSING))
        singleton = not node.children and len(node.papers) == 1
        out.append(f'<li class="node st-{mark.status}" data-status="{mark.status}" '
                   f'data-pos="{_e(".".join(map(str, pos)) or "root")}">'
                   f'<span class="sym">{_SYMBOL[mark.status]}</span>'
                   f'<span class="label">{"ROOT: " if depth == 0 else ""}'
                   f'{_e(node.name) if node.name or depth else "(virtual root)"}</span>'
                   + _node_tag(mark, side)
                   + ('<span class="tag tag-singleton">singleton</span>' if singleton else ""))
        if node.papers:
            shown = node.papers if max_papers is None else node.papers[:max_papers]
            out.append('<ul class="papers">')
            for title in shown:
                hit = paper_state.get(normalize_title(title), False)
                if side == "expert":
                    cls, sym, tip = (("placed", "✓", "placed in the model tree") if hit else
                                     ("lost", "✗", "not in the model tree"))
                else:
                    cls, sym, tip = (("expert", "✓", "an expert paper") if hit else
                                     ("other", "·", "not an expert paper"))
                rule = (leaked or {}).get(normalize_title(title))
                out.append(f'<li class="paper {cls}{" leak" if rule else ""}" title="{tip}"'
                           + (f' data-rule="{_e(rule)}"' if rule else "")
                           + f'><span class="psym">{sym}</span>{_e(title)}'
                           + (tag_html(rule) if rule else "") + "</li>")
            if len(shown) < len(node.papers):
                out.append(f'<li class="paper more">… {len(node.papers) - len(shown)} more</li>')
            out.append("</ul>")
        prev = depth
    out.append("</li>")
    out.extend(["</ul></li>"] * max(prev, 0))
    out.append("</ul>")
    return "".join(out)


LEGEND_NODES = ('<div class="tree-legend"><span class="node st-matched"><span class="sym">='
                '</span><span class="label">matched</span></span><span class="node st-renamed">'
                '<span class="sym">≈</span><span class="label">renamed</span></span><span '
                'class="node st-missing"><span class="sym">−</span><span class="label">missing'
                '</span> (expert only)</span><span class="node st-extra"><span class="sym">+'
                '</span><span class="label">extra</span> (model only)</span>')
LEGEND = (LEGEND_NODES + '<span class="paper placed"><span class="psym">✓</span>paper in both '
          'trees</span><span class="paper lost"><span class="psym">✗</span>expert paper the '
          'model tree lacks</span><span class="paper other"><span class="psym">·</span>model '
          'paper not in the expert tree</span>')
LEGEND_NODES += "</div>"
LEGEND += "</div>"


def render_comparison(cmp: TreeComparison, model_title: str = "Model taxonomy",
                      expert_title: str = "Expert taxonomy", papers: bool = True,
                      leaked: dict[str, str] | None = None) -> str:
    c = cmp.counts
    summary = (f"expert categories: {c[MATCHED]} matched, {c[RENAMED]} renamed, {c[MISSING]} "
               f"missing of {c['expert_nodes']}; model categories: {c['model_nodes']}, "
               f"{c[EXTRA]} extra")
    if papers and c["expert_papers"]:
        summary += (f"; expert papers placed in the model tree: {c['expert_papers_placed']} of "
                    f"{c['expert_papers']}")
    expert_html = render_tree(cmp.expert, cmp.expert_marks, "expert",
                              cmp.expert_paper_placed if papers else {})
    if cmp.model is None:
        model_html = '<p class="empty">No model taxonomy (missing or malformed output).</p>'
    else:
        model_html = render_tree(cmp.model, cmp.model_marks, "model",
                                 cmp.model_paper_expert if papers else {}, leaked=leaked)
    return (f'<div class="tree-compare" data-missing="{c[MISSING]}" data-extra="{c[EXTRA]}" '
            f'data-matched="{c[MATCHED]}" data-renamed="{c[RENAMED]}">'
            + (LEGEND if papers else LEGEND_NODES) +
            f'<p class="tree-summary">{_e(summary)}. <span class="muted">Renamed by '
            f"{_e(cmp.similarity)} or paper overlap ≥ {PAPER_OVERLAP}.</span></p>"
            f'<div class="tree-cols"><div class="tree-col"><h5>{_e(expert_title)}</h5>'
            f'{expert_html}</div><div class="tree-col"><h5>{_e(model_title)}</h5>{model_html}'
            "</div></div></div>")
