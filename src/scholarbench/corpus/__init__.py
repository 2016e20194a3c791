"""The offline corpus: papers, citation edges and full-text paragraphs from every raw source,
merged into one store (Parquet, queried through DuckDB) with BM25 search and graph queries.

    build_default_corpus(out_dir, data_root)   every source found under a data root
    build_corpus(out_dir, taxobench_files, reportbench_dir=None, extra_papers_file=None)
    Corpus.open(out_dir)                        resolve, get_by_ids, search_bm25, references,
                                                citations, co_cited, coupled, paragraphs

Module map: sources are read by `scholarbench.data.sources`; `merge` (records -> papers),
`link` (edges and paragraphs -> paper_ids, stubs), `survey` (the survey flag), `schema` (files
and columns), `write` (Parquet, indices, manifest), `build` (the pipeline), `store` (`Corpus`),
`graph` (the SQL), `bm25` (the index).
"""
from scholarbench.corpus.build import CorpusInfo, build_corpus, build_default_corpus
from scholarbench.corpus.schema import Paragraph
from scholarbench.corpus.store import Corpus

__all__ = ["Corpus", "CorpusInfo", "Paragraph", "build_corpus", "build_default_corpus"]
