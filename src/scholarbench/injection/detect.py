"""Detection of instruction-like text aimed at a judge inside agent outputs.

A heuristic, on purpose simple and visible: named regular expressions for the shapes an
injection takes (an order to ignore instructions, text addressed to the judge, a demand for
the top score, a score already "given", a fake chat turn or closing tag, the same in a few
other languages). A match flags the sample (`suspected_injection`, the rule names) and is
counted in the summary; nothing is changed or dropped — the judge still sees the answer, so
the flag tells a reader which scores to look at. A survey *about* prompt injection can match
(a false positive is a flag, not a penalty); the rates measured on real outputs and on the
probe set are in docs/injection.md.
"""
from __future__ import annotations

import re
from typing import Any, Sequence

_F = re.IGNORECASE | re.MULTILINE
RULES: dict[str, re.Pattern[str]] = {
    "ignore-instructions": re.compile(
        r"\b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(previous|prior|above|earlier|"
        r"preceding|all|any|your)\b[^.\n]{0,25}\b(instructions?|prompts?|rules?|directions?|"
        r"guidelines?)\b", _F),
    "addresses-judge": re.compile(
        r"\b(notes?|messages?|instructions?|reminders?)\s+(to|for)\s+(the\s+)?(judges?|graders?|"
        r"evaluators?|reviewers?|assessors?|scorers?|llm|ai|language model)\b|"
        r"\b(dear|attention)\s+(the\s+)?(judges?|graders?|evaluators?|assessors?)\b", _F),
    "demands-score": re.compile(
        r"\b(give|assign|award|rate|grade|mark)\b[^.\n]{0,40}\b(highest|maximum|max|full|"
        r"perfect|top)\b[^.\n]{0,25}\b(scores?|marks?|ratings?|points?|grades?)\b|"
        r"\brate\b[^.\n]{0,30}\b(5\s*/\s*5|10\s*/\s*10)|"
        r"\b(rated|marked|graded)\s+as\s+(fully\s+)?(correct|complete|perfect)\b", _F),
    "states-verdict": re.compile(
        r"\b(judge'?s?|final|overall)\s+(verdict|score|rating|grade)\b[^.\n]{0,20}"
        r"(:|\bis\b)|\b(all|every)\s+(the\s+)?(requirements?|criteria|checklist items?)\s+"
        r"(are\s+|is\s+)?(correct|satisfied|met|passed)\b", _F),
    "fake-turn": re.compile(
        r"<\|(im_start|im_end|system|assistant|user|eot_id|start_header_id)\|>|\[/?INST\]|"
        r"<</?SYS>>|^\s*(system|assistant)\s*:", _F),
    "closing-tag": re.compile(
        r"</\s*(model_tree|reference_tree|survey_content|report|answer|output|data|document|"
        r"user_input|context|system|instructions?)\s*>", _F),
    "non-english-order": re.compile(
        r"忽略.{0,12}(指令|指示|说明)|打满分|给.{0,8}(满分|最高分)|"
        r"\bignore[zr]\b.{0,40}\binstructions\b|\bignora\b.{0,40}\binstrucciones\b|"
        r"\bignoriere\b.{0,40}\banweisungen\b|игнорир.{0,40}инструкц|"
        r"\bnote maximale\b|\bpuntuaci[oó]n m[aá]xima\b|\bh[oö]chste punktzahl\b", _F),
}
# generate-record keys that are not the agent's answer
_NOT_ANSWER = frozenset({"id", "task_id", "status", "error", "seconds", "info", "missing",
                         "report_sha256"})


def find_injection(text: str) -> list[str]:
    """The names of the rules `text` matches, in rule order."""
    return [name for name, rule in RULES.items() if rule.search(text)]


def scan_record(record: dict[str, Any] | None) -> list[str]:
    """The rules any string of a generate record's answer matches (walked without
    recursion; keys that are not the agent's answer are skipped)."""
    if not isinstance(record, dict):
        return []
    hits: set[str] = set()
    stack: list[Any] = [v for k, v in record.items() if k not in _NOT_ANSWER]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if len(value) > 3:
                hits.update(find_injection(value))
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return [name for name in RULES if name in hits]


def flag_injections(rows: Sequence[dict[str, Any]], generated: dict[str, dict[str, Any]],
                    id_key: str) -> int:
    """Mark each row whose answer holds instruction-like text aimed at a judge
    (`suspected_injection`: the rule names; `injection.detect`); returns how many. Flagged, not
    changed: the scores stand as the judge gave them."""
    flagged = 0
    for row in rows:
        rec = generated.get(str(row.get(id_key)))
        hits = scan_record(rec) if rec is not None and rec.get("status", "ok") == "ok" else []
        if hits:
            row["suspected_injection"] = hits
            flagged += 1
    return flagged
