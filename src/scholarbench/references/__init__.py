"""The references a generated report cites: its bibliography parsed (`report_refs`), the
identifiers in its text (`identifiers_in_text`), each reference resolved in a corpus
(`resolve`), and all three in one call (`extract.extract_references`). A floor under the
benchmarks: ReportBench scores with it, and the leakage audit of DeepSynth-Eval reads a
report's references with it."""
