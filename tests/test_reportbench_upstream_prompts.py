"""ReportBench's ``upstream`` statement prompt set: upstream ``statement/prompts.py`` @ 1826140
(ByteDance-BandAI/ReportBench) verbatim, filled as upstream fills it (raw text, no JSON mode,
the whole report's cited statements as "already cited", no evidence slot in the fact check).
The expected texts below were produced with upstream's templates and ``str.format`` (what
LangChain's ``PromptTemplate`` does) and compared with them byte for byte."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from scholarbench.references.report_refs import parse_report
from scholarbench.benchmarks.reportbench.run_scoring import statement_judge
from scholarbench.benchmarks.reportbench.sources import Passage, SourceText, Unreachable
from scholarbench.benchmarks.reportbench.statement_prompts import PromptSet
from scholarbench.benchmarks.reportbench.statements import StatementConfig, StatementJudge
from scholarbench.errors import ScholarbenchError

UP = PromptSet("upstream")
STATEMENT = "BERT uses\n</statement> masked LM [3]."

# sha256 of upstream's five template strings (statement/prompts.py @ 1826140)
UPSTREAM_SHA256 = {
    "cited": "6f876693f1308fa73300cca54c96d1ee338ea260811faa8b346616430ea34f99",
    "noncited": "d9839d0a118435d5f9628d7dfe7e21000837f8b1e182bcd3e4c741ff0ae3f58f",
    "passage": "9a6041775e59678441eea52b9f58693f343a6b1894b77e294f849ff4168ee59b",
    "consistency": "b566939982e282a09d074f66227e727f2a2d0ba418570962f7f55fb198a288bb",
    "fact_check": "08173ef49ce9dacc49190115b7783602f50b37c2385106f88de4494b460ffc39",
}


def test_upstream_templates_are_byte_identical():
    for kind, sha in UPSTREAM_SHA256.items():
        assert UP.prompt(kind).sha256 == sha, kind
        assert PromptSet("v1").prompt(kind).sha256 != sha, kind


def test_upstream_prompts_render_byte_identical_to_upstream():
    assert UP.render("passage", statement=STATEMENT,
                     source_text="[abstract] We introduce BERT </source> {source_text}") == (
        '\nYou are provided with\n[Statement]: BERT uses\n</statement> masked LM [3].\n\n'
        '[Source Document]:\n"""[abstract] We introduce BERT </source> {source_text}"""\n\n'
        'Return any relevant content from the source document that supports the statement. '
        'This can be a sentence, paragraph, or even the entire text if necessary.\n'
        'If no content supports it, return "NOT_FOUND".\nReturn plain text only.\n')
    assert UP.render("consistency", statement=STATEMENT,
                     source_sentence="We introduce BERT.") == (
        '\nYou will decide whether a claim is correctly supported by a source sentence.\n\n'
        '[Claim] (summary from report):\nBERT uses\n</statement> masked LM [3].\n\n'
        '[Source Sentence] (pulled from original source):\nWe introduce BERT.\n\n'
        'Respond with JSON containing:\n'
        '  "reason": one short sentence explaining your decision\n'
        '  "match": true or false          // true if the source sentence faithfully supports '
        'the claim\nReturn ONLY the JSON.\n')
    # the evidence has no slot in upstream's fact-check prompt: left out
    assert UP.render("fact_check", statement=STATEMENT, evidence_source="corpus",
                     evidence="E") == (
        '\nYou are tasked with verifying the accuracy of a factual statement using web search '
        'capabilities.\n\n[Statement to verify]:\nBERT uses\n</statement> masked LM [3].\n\n'
        'Please:\n1. Use web search to find reliable, authoritative sources about this '
        'statement\n2. Analyze the information you find from multiple sources\n3. Determine if '
        'the statement is factually correct or incorrect based on your research\n\n'
        'Respond with JSON containing:\n  "reason": a detailed explanation of your '
        'verification process and findings (2-3 sentences)\n  "decision": true if the '
        'statement is correct, false if it is incorrect\n\nOnly return the JSON response.\n')
    assert UP.render("cited", report="# R\nA claim [1].") == (
        '\nYou are given a research report delimited by triple backticks.\nIdentify every '
        'statement that cites an external source (e.g. has a URL, DOI, or explicit citation '
        'marker) and pair it with the corresponding URL.\nReturn a JSON list where each item '
        'has two keys:\n  "statement": the single\u2011sentence claim, stripped of '
        'leading/trailing whitespace\n  "url": the canonical URL that supports that claim\n'
        'If a citation contains multiple URLs, duplicate the statement for each URL.\n'
        'ONLY return valid JSON.\nReport:\n```# R\nA claim [1].```\n')
    noncited = UP.render("noncited", report="# R\nA claim [1].",
                         cited_statements=["A claim.", "B claim."])
    assert noncited.startswith('\nYou are given a research report delimited by triple '
                               'backticks.\nYou are also given a list of statements that '
                               'already have citations.\n\n')
    assert noncited.endswith('ONLY return valid JSON.\n\nReport:\n```# R\nA claim [1].```\n\n'
                             'Already cited statements:\n- A claim.\n- B claim.\n')
    assert UP.render("noncited", report="R", cited_statements=[]).endswith(
        "Already cited statements:\n\n")      # upstream's "\n".join of an empty list


def test_v1_quotes_what_upstream_pastes_raw():
    v1 = PromptSet("v1").render("passage", statement=STATEMENT, source_text="a </source> b")
    assert "<statement>\nBERT uses &lt;/statement> masked LM [3].\n</statement>" in v1
    assert "<source>\na &lt;/source> b\n</source>" in v1
    assert PromptSet("v1").cited_list([]) == "(none)"
    with pytest.raises(ValueError):
        PromptSet("v0")
    with pytest.raises(ValueError):
        StatementConfig(prompt_set="paper")


# ---- the pipeline with the upstream set ---------------------------------------------------------

REPORT = ("# R\n\nTransformers use attention [1]. ResNets are deep [2]. Transformers are new "
          "[1]. GPUs are fast.\n\n## References\n[1] Vaswani, A. Attention is all you need.\n"
          "[2] He, K. Deep residual learning.\n")
CITED = [{"statement": "Transformers use attention.", "url": "[1]"},
         {"statement": "ResNets are deep.", "url": "[2]"},
         {"statement": "Transformers are new.", "url": "[1]"}]


class Lookup:
    corpus, allow_network = None, False

    def lookup(self, ref):
        if ref.label == "2":
            return Unreachable("not in corpus")
        return SourceText([Passage("Transformers use attention only.", "abstract")], "corpus",
                          paper_id="arxiv:1706.03762")


class Evidence:
    name = "corpus"

    def __init__(self):
        self.searched = 0

    def search(self, statement, k):
        self.searched += 1
        return []


class Judge:
    """Upstream-style replies: bare JSON lists (fenced), free text for the passage."""
    model_id = "fake-judge"

    def __init__(self):
        self.calls = []

    def complete(self, messages, **kw):
        self.calls.append((messages, kw))
        text = messages[0]["content"]
        if "Identify every statement that cites" in text:
            reply = "```json\n" + json.dumps(CITED) + "\n```"
        elif "Already cited statements" in text:
            reply = json.dumps([{"statement": "GPUs are fast."}])
        elif "Return any relevant content" in text:
            reply = "NOT_FOUND" if "are new" in text else "Transformers use attention only."
        elif "decide whether a claim" in text:
            reply = json.dumps({"reason": "r", "match": True})
        else:
            reply = json.dumps({"reason": "r", "decision": True})
        return SimpleNamespace(text=reply)


def test_pipeline_with_the_upstream_prompts_hand_checked():
    judge, evidence = Judge(), Evidence()
    sj = StatementJudge(judge, lookup=Lookup(), evidence=evidence, workers=1,
                        config=StatementConfig(prompt_set="upstream", samples=1))
    result = sj.judge_report(REPORT, parse_report(REPORT))
    prompts = [m[0]["content"] for m, _ in judge.calls]
    assert all(len(m) == 1 and m[0]["role"] == "user" for m, _ in judge.calls)
    assert all("response_format" not in kw for _, kw in judge.calls)   # no JSON mode
    assert prompts[0] == UP.render("cited", report=REPORT)
    noncited = next(p for p in prompts if "Already cited statements" in p)
    assert noncited.endswith("Already cited statements:\n- Transformers use attention.\n"
                             "- ResNets are deep.\n- Transformers are new.\n")
    assert evidence.searched == 0               # no evidence slot: no search
    m = result.metrics()
    # attention: matched; ResNets: unreachable; "are new": NOT_FOUND (a mismatch).
    # upstream (match_text.py / verify_alignment.py @ 1826140): the unreachable source is
    # skipped, so alignment_rate = 1/2 = cited_match_rate_checkable; upstream match_rate
    # (rows reaching matching / cited rows) = 2/3; the paper's rate counts it: 1/3.
    assert (m["n_cited"], m["n_cited_checked"], m["n_cited_unreachable"]) == (3, 2, 1)
    assert m["cited_match_rate_checkable"] == pytest.approx(1 / 2)
    assert m["cited_match_rate"] == pytest.approx(1 / 3)
    assert m["n_cited_not_found"] == 1 and m["n_noncited_correct"] == 1
    ident = sj.config.identity()
    assert ident["prompt_set"] == "upstream"
    assert ident["prompts"]["consistency"].startswith("consistency_upstream@")


def test_statement_prompts_option_reaches_the_config():
    bench = SimpleNamespace(options={"statement_prompts": "upstream"}, evidence_tool=None,
                            statement_config=None, vote_judges=[])
    sj = statement_judge(bench, Judge(), None, False)
    assert sj.config.prompt_set == "upstream" and not sj.prompts.quoted
    bench.options = {}
    assert statement_judge(bench, Judge(), None, False).config.prompt_set == "v1"
    bench.options = {"statement_prompts": "paper"}
    with pytest.raises(ScholarbenchError, match="unknown statement prompts 'paper'"):
        statement_judge(bench, Judge(), None, False)
