"""Is a paper a survey? A title / abstract regex heuristic (`is_survey_text`).

ResearchArena's discovery task searches "non-survey papers"; `Corpus.search_bm25(...,
exclude_surveys=True)` uses the `is_survey` column, which is True when a source says so
(ReportBench's task surveys, the deep-review article, OpenAlex type "review") and otherwise this
heuristic on the merged paper's title and abstract.

A *survey* here is a paper whose main contribution is to review a body of work: surveys,
reviews, overviews, tutorials, primers, introductions to a field, systematic literature
reviews and mappings, meta-analyses, state-of-the-art reports. Not surveys: questionnaire
studies ("a survey of 500 developers"), product-review data, peer review, code review,
survey propagation, sky surveys, shared-task / competition reports.

Title rules (any match flags): survey(s) — unless the phrase is survey propagation, a sky /
user / online / household / developer / practitioner / web survey, or survey data / responses /
respondents / study; review as "a/an/the … review", "review of/on", "<systematic | literature |
scoping | critical | comprehensive | brief | …> review" — never peer / code / product /
customer / movie / user / online / app reviews or reviewer(s); overview; tutorial; "a primer";
"introduction to"; lecture notes; systematic mapping / literature; meta-analysis; "a taxonomy
of / for"; "(recent) advances in" at the start; "(the) state of the art in / of" at the start
or "state-of-the-art survey / review / report".

Abstract rules (only phrases a research paper rarely uses of itself): "this / our / the present
survey | review | tutorial", "in this survey / review", "we survey", "we (present | provide |
give | conduct) a (comprehensive | systematic | …) survey / review / overview", "systematic
(literature) review", "literature review" — again never after "peer" / "code".

Measured (tests/data/survey_labels.tsv, checked by tests/test_corpus_survey.py):
- recall on ReportBench's 100 task surveys (all positives, title + abstract): 99/100
  (title alone: 97/100). The miss: "Key Issues Review: Useful autonomous quantum machines".
- arxiv-2023 (titles only, no abstracts): 961 of 33,868 titles flagged. A seeded sample
  (random.Random(20240501)) of 100 flagged and 100 unflagged titles, each labelled by reading it:
  precision 95/100 = 0.95 (95% Wilson interval 0.89-0.98; the 5 are two shared-task
  overviews, a project overview, review guidelines and a study of crowdsourcing tasks);
  2/100 unflagged titles are surveys (0.02, interval 0.006-0.07), so the estimated recall over
  the graph is 0.95*961 / (0.95*961 + 0.02*32,907) = 0.58, with the intervals 0.27-0.84.
  Surveys whose titles do not say so ("Sketching as a tool for numerical linear algebra") are
  missed: a flag is a strong signal; an unflagged paper is not proof of a research paper.
The patterns were written after browsing arxiv-2023 titles that contain the keywords, before
the sample was drawn and labelled; they were not changed after labelling.
"""
from __future__ import annotations

import re

_F = re.IGNORECASE

_TITLE_POSITIVE = [re.compile(p, _F) for p in (
    r"\bsurveys?\b",
    r"\b(a|an|the)\s+(?:[\w-]+\s+){0,3}review\b(?!er)",
    r"\breviews?\s+(of|on)\b",
    r"\b(systematic|literature|scoping|critical|comprehensive|brief|short|concise|selective|"
    r"narrative|rapid|integrative|tutorial|structured|historical|comparative|methodological|"
    r"mapping|technical)\s+reviews?\b",
    r"\boverviews?\b",
    r"\btutorials?\b",
    r"\ba\s+primer\b|\bprimer\s+(on|in|for|to)\b",
    r"\bintroduction\s+to\b",
    r"\blecture\s+notes\b",
    r"\bsystematic\s+(mapping|literature)\b",
    r"\bmeta-?analys[ie]s\b",
    r"\ba\s+taxonomy\s+(of|for)\b",
    r"^(recent\s+)?advances\s+(in|on)\b",
    r"^(the\s+)?state[\s-]+of[\s-]+the[\s-]+art\s+(in|of|on)\b",
    r"\bstate[\s-]+of[\s-]+the[\s-]+art\s+(survey|review|report|overview)\b",
)]
_TITLE_NEGATIVE = [re.compile(p, _F) for p in (
    r"\bsurvey\s+propagation\b",
    r"\b(sky|user|online|household|developer|practitioner|web|field|national|panel|"
    r"large-scale|interview)\s+surveys?\b",
    r"\bsurveys?\s+(data|responses?|respondents?|study|studies|experiments?|questions?|"
    r"instruments?)\b",
)]
_REVIEW_NEGATIVE = re.compile(
    r"\b(peer|code|product|customer|movie|user|online|app|hotel|restaurant|amazon|yelp|"
    r"consumer|book|paper)[\s-]+reviews?\b|\breview\s+(rating|helpfulness|generation|"
    r"summari[sz]ation|spam|text|data|mining|sentiment)", _F)
_ABSTRACT_POSITIVE = [re.compile(p, _F) for p in (
    r"\b(this|our|the\s+present)\s+(survey|review|tutorial)\b",
    r"\bin\s+this\s+(survey|review)\b",
    r"\bwe\s+survey\b",
    r"\bwe\s+(present|provide|give|conduct|offer)\s+an?\s+(?:[\w-]+\s+){0,2}"
    r"(survey|review|overview)\b",
    r"\bsystematic\s+(literature\s+)?review\b",
    r"\bliterature\s+review\b",
)]


def _review_ok(text: str, match: re.Match) -> bool:
    """A 'review' match counts unless it is peer / code / product … review."""
    if "review" not in match.group(0).lower():
        return True
    window = text[max(0, match.start() - 20):match.end() + 25]
    return not _REVIEW_NEGATIVE.search(window)


def _any(patterns: list[re.Pattern], text: str) -> bool:
    for pattern in patterns:
        for match in pattern.finditer(text):
            if _review_ok(text, match):
                return True
    return False


def title_says_survey(title: str) -> bool:
    text = " ".join(title.split())
    if not _any(_TITLE_POSITIVE, text):
        return False
    if any(p.search(text) for p in _TITLE_NEGATIVE):
        # a negative phrase only vetoes when no other (non-"survey") rule fires
        return _any(_TITLE_POSITIVE[1:], text)
    return True


def abstract_says_survey(abstract: str) -> bool:
    return bool(abstract) and _any(_ABSTRACT_POSITIVE, " ".join(abstract.split()))


def is_survey_text(title: str, abstract: str = "") -> bool:
    return title_says_survey(title) or abstract_says_survey(abstract)
