"""The leakage audit (docs/leakage.md): per sample, whether an answer holds what only the
answer key could give (`audit`), and every mean also without the flagged samples
(`unleaked`)."""
from scholarbench.leakage.audit import (KEYS, SPAN, AnswerKey, Cited, Findings, abstract_spans,
                                        abstract_words, audit, findings, from_corpus,
                                        leaked_papers, paper_counts, same_title, title_quotes)
from scholarbench.leakage.unleaked import (count_leaked, leak_lines, leaked_note,
                                           without_leaked)

__all__ = ["KEYS", "SPAN", "AnswerKey", "Cited", "Findings", "abstract_spans", "abstract_words",
           "audit", "count_leaked", "findings", "from_corpus", "leak_lines", "leaked_note",
           "leaked_papers", "paper_counts", "same_title", "title_quotes", "without_leaked"]
