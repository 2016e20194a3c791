"""Building benchmark tasks from one's own surveys (`scholarbench build`, docs/build.md)."""
from scholarbench.builder.api import BENCHMARKS, BuildResult, build
from scholarbench.builder.source import Section, SurveyDoc, read_source
from scholarbench.builder.taxobench import TaxoDraft, draft_taxonomy

__all__ = ["BENCHMARKS", "BuildResult", "Section", "SurveyDoc", "TaxoDraft", "build",
           "draft_taxonomy", "read_source"]
