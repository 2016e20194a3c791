"""ResearchArena's measures (pure functions, no benchmark state):

    ranking        discovery / selection: ir_measures on trec_eval's own code (R@k, P@k, nDCG@k,
                   RR, AP, and any other measure its pytrec_eval provider computes)
    organisation   mind-maps: heading soft recall, heading entity recall, tree semantic distance

Importing this package registers the measures as `core.measure.Measure` objects
(`declared`; the registry imports it when measures are first looked up).
"""
from scholarbench.benchmarks.researcharena.measures import declared  # noqa: F401  (registers)
