"""All TaxoBench metrics for one instance, and the measure catalogue: every measure a summary
reports as a `core.measure.Measure` (label, direction, unit, the paper's equation, and how the
tables print it: 2 decimals, ×100 with "%" for a percent, the plots' bounds), registered as
`taxobench/<key>`; `BY_KEY` finds one by its key. Adding a measure is one
`Measure` here plus its value in `score_instance` (and its column in `published.py` if the
paper prints one).

Choices the paper leaves open (also in docs/metrics.md):
- Paper category of a title under several categories (leaf level): its first category in
  pre-order. SEM-PATH uses every occurrence and keeps the best chain pair (A.4).
- Categories are identified by position in the tree, not by label (labels repeat across branches).
- Organisation views align expert titles with the titles placed in the model's tree; retrieval
  scores align them with the retrieved list (`retrieved_papers`, else the tree's titles).
- An expert paper absent from the model tree gets the one "unretrieved" label ⊥ (eq. 6).
- Undefined values are null and counted, never 0: ARI∩/V∩ and SEM-PATH with no aligned paper;
  NSP with an empty model hierarchy. A missing or malformed prediction is an empty taxonomy:
  recall/precision/F1 0, ARI over all-⊥, US-TED = |T*|, US-NTED = 1, NSR = Soft-F1 = 0.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from scholarbench.embed.base import Embedder, label_similarity
from scholarbench.metrics.leaf import partition_scores
from scholarbench.metrics.names import MetricName
from scholarbench.metrics.retrieval import retrieval_scores
from scholarbench.metrics.sem_path import sem_path_score
from scholarbench.metrics.soft_cardinality import soft_scores
from scholarbench.metrics.tree_edit import FlatTree, us_nted, us_ted
from scholarbench.records import TaxoNode, TaxoPrediction
from scholarbench.core.measure import Direction, Measure
from scholarbench.core.registry import add_measures
from scholarbench.benchmarks.taxobench.judge import DIMENSIONS
from scholarbench.text.align import align_titles
from scholarbench.text.normalize import normalize_title

UNRETRIEVED = "⊥"



# The paper's λ of SEM-PATH (eq. 12): what runs and `score taxobench` compute and report.
SEM_PATH_LAMBDA = 1.0
PERCENT = "percent"        # `Measure.unit`: stored as a fraction, shown ×100 as the paper does
PAPER = "paper"            # Zhang et al. 2026 (TaxoBench); docs/metrics.md


# the plots' axis range where it is not [0, 1]: ARI from -1, US-TED open above, the judge 1–5
BOUNDS: dict[str, tuple[float | None, float | None]] = {
    "ari": (-1.0, 1.0), "ari_cap": (-1.0, 1.0), "us_ted": (0.0, None)}


def _measure(key: str, label: str, direction: Direction, unit: str, provenance: str,
             description: str, judge: bool = False) -> Measure:
    """Shown as the paper prints it: 2 decimals, a percent ×100 with "%"."""
    return Measure("taxobench", key, description=description, label=label, direction=direction,
                   unit=unit, provenance=f"{PAPER} {provenance}", judge=judge,
                   unscored_key="judge_unscored" if judge else None, decimals=2,
                   bounds=(1.0, 5.0) if judge else BOUNDS.get(key, (0.0, 1.0)))


def sem_path_measure(lam: float = SEM_PATH_LAMBDA) -> Measure:
    """SEM-PATH with gap cost λ; its key is what `score_instance(..., lam)` reports."""
    return _measure(sem_path_key(lam), "Sem-Path", "higher", PERCENT,
                    "eq. 12–13, A.4, Alg. 1", f"mean 1/(1+J) over aligned papers, λ={lam:g}")


def sem_path_key(lam: float = SEM_PATH_LAMBDA) -> str:
    """`sem_path` for the paper's λ = 1, else e.g. `sem_path(lambda=0.5)`."""
    return str(MetricName.parse(f"sem_path(lambda={lam})", defaults={"lambda": 1.0}))


# Every TaxoBench measure a summary reports, in the order tables and the terminal print them;
# all are means over the samples with a defined value (no aggregator: macro averages, eq. 1–13).
MEASURES: tuple[Measure, ...] = (
    _measure("recall", "Recall", "higher", PERCENT, "eq. 1, A.5",
             "expert papers retrieved / expert papers"),
    _measure("precision", "Precision", "higher", PERCENT, "eq. 1, A.5",
             "retrieved expert papers / retrieved papers"),
    _measure("f1", "F1", "higher", PERCENT, "eq. 2", "harmonic mean of precision and recall"),
    _measure("ari", "ARI", "higher", PERCENT, "eq. 3, 6",
             "adjusted Rand index on expert papers, ⊥ for missing"),
    _measure("homogeneity", "Hom.", "higher", PERCENT, "eq. 4, 6",
             "homogeneity on expert papers, ⊥ for missing"),
    _measure("completeness", "Comp.", "higher", PERCENT, "eq. 4, 6",
             "completeness on expert papers, ⊥ for missing"),
    _measure("v_measure", "V-Meas.", "higher", PERCENT, "eq. 5, 6",
             "V-measure on expert papers, ⊥ for missing"),
    _measure("ari_cap", "ARI∩", "higher", PERCENT, "§3.3.1 (A), eq. 3",
             "ARI on aligned papers only"),
    _measure("v_measure_cap", "V-Meas.∩", "higher", PERCENT, "§3.3.1 (A), eq. 5",
             "V-measure on aligned papers only"),
    _measure("us_ted", "US-TED", "lower", "edit cost", "eq. 9–10, A.3, Alg. 2",
             "unordered semantic tree edit distance"),
    _measure("us_nted", "US-NTED", "lower", PERCENT, "eq. 11", "US-TED / (|T*| + |T̂|)"),
    sem_path_measure(),
    _measure("nsr", "NSR", "higher", "ratio", "eq. 34–35, A.6", "node soft recall (diagnostic)"),
    _measure("nsp", "NSP", "higher", "ratio", "eq. 34, 36, A.6",
             "node soft precision (diagnostic)"),
    _measure("soft_f1", "Soft F1", "higher", "ratio", "eq. 37, A.6",
             "soft F1 of NSR and NSP (diagnostic)"),
)
# The LLM judge's (§3.4, Table 7, rubric in appendix E.3): in summaries of judged runs only.
JUDGE_MEASURES: tuple[Measure, ...] = tuple(
    _measure(key, label, "higher", "1–5", "§3.4, Table 7, rubric E.3", description,
             judge=True) for _, key, label, description in DIMENSIONS
) + (_measure("judge_avg", "Avg.", "higher", "1–5", "§3.4, Table 7 (Avg.)",
              "mean of the four LLM-judge scores (1-5)", judge=True),)
add_measures(MEASURES + JUDGE_MEASURES)


METRICS = MEASURES            # what `scoring.format_summary` prints (the measures themselves)
METRIC_KEYS = tuple(m.key for m in MEASURES)
BY_KEY: dict[str, Measure] = {m.key: m for m in (*MEASURES, *JUDGE_MEASURES)}


def _papers_by_category(tree: TaxoNode) -> tuple[dict[str, tuple[int, ...]], dict[str, list[tuple[str, ...]]]]:
    """normalised title → (first category position, all ancestor-label chains)."""
    first: dict[str, tuple[int, ...]] = {}
    chains: dict[str, list[tuple[str, ...]]] = {}
    for node, pos, labels in tree.walk_with_path():
        for title in node.papers:
            norm = normalize_title(title)
            if not norm:
                continue
            first.setdefault(norm, pos)
            chains.setdefault(norm, [])
            if labels not in chains[norm]:
                chains[norm].append(labels)
    return first, chains


def _labels(tree: TaxoNode | None) -> list[str]:
    return [n.name for n in tree.walk()] if tree is not None else []


def score_instance(gold: TaxoNode, prediction: TaxoPrediction | None, embedder: Embedder,
                   lam: float = SEM_PATH_LAMBDA) -> dict[str, Any]:
    """Every TaxoBench metric for one instance; `prediction=None` means the agent gave nothing."""
    missing = prediction is None
    taxonomy = None if prediction is None else prediction.taxonomy
    retrieved = [] if prediction is None else prediction.retrieved_titles

    gold_first, gold_chains = _papers_by_category(gold)
    expert_titles = gold.all_papers()
    retrieval_alignment = align_titles(expert_titles, retrieved)
    out: dict[str, Any] = {"n_gold": len(retrieval_alignment.expert),
                           "n_pred": len(retrieval_alignment.model),
                           "n_aligned": retrieval_alignment.n_aligned}
    out.update(retrieval_scores(retrieval_alignment))

    # Leaf level: expert papers against the model tree's categories.
    tree_titles = taxonomy.all_papers() if taxonomy is not None else []
    pred_first, pred_chains = (_papers_by_category(taxonomy) if taxonomy is not None else ({}, {}))
    tree_alignment = (retrieval_alignment if prediction is not None and prediction.retrieved is None
                      else align_titles(expert_titles, tree_titles))
    matched = tree_alignment.model_for_expert()
    truth, e2e, cap_truth, cap_pred, path_pairs = [], [], [], [], []
    for e_idx, title in enumerate(tree_alignment.expert):
        e_norm = normalize_title(title)
        truth.append(gold_first[e_norm])
        m_idx = matched.get(e_idx)
        if m_idx is None:
            e2e.append(UNRETRIEVED)
            continue
        m_norm = normalize_title(tree_alignment.model[m_idx])
        e2e.append(pred_first[m_norm])
        cap_truth.append(gold_first[e_norm])
        cap_pred.append(pred_first[m_norm])
        path_pairs.append((gold_chains[e_norm], pred_chains[m_norm]))
    out.update(partition_scores(truth, e2e))
    cap = partition_scores(cap_truth, cap_pred)
    out["ari_cap"], out["v_measure_cap"] = cap["ari"], cap["v_measure"]

    # Hierarchy level: one similarity matrix over the distinct labels of both trees.
    gold_labels, pred_labels = _labels(gold), _labels(taxonomy)
    vocab = list(dict.fromkeys(gold_labels + pred_labels))
    index = {label: i for i, label in enumerate(vocab)}
    sim = label_similarity(embedder, vocab)
    g_idx = np.array([index[x] for x in gold_labels])
    p_idx = np.array([index[x] for x in pred_labels], dtype=int)
    gold_flat = FlatTree.from_node(gold)
    pred_flat = FlatTree.from_node(taxonomy) if taxonomy is not None else None
    distance = us_ted(gold_flat, pred_flat, sim[np.ix_(g_idx, p_idx)] if pred_flat else None)
    out["us_ted"] = distance
    out["us_nted"] = us_nted(distance, len(gold_flat), len(pred_flat) if pred_flat else 0)

    def delta(x: str, y: str) -> float:
        return 1.0 - float(sim[index[x], index[y]])

    out[sem_path_key(lam)] = sem_path_score(path_pairs, delta, lam)
    both = np.concatenate([g_idx, p_idx])
    out.update(soft_scores(sim[np.ix_(both, both)], len(g_idx)))
    out["missing"] = missing
    out["malformed"] = bool(prediction is not None and prediction.error)
    if prediction is not None and prediction.error:
        out["error"] = prediction.error
    return out
