"""Task families and their answer schemas: what every agent returns, whichever way it comes in.

| family     | used by                                                  | answer (JSON)                       |
| ---------- | -------------------------------------------------------- | ----------------------------------- |
| taxonomy   | TaxoBench (both modes), ResearchArena organisation       | {"taxonomy": TREE, "retrieved": [REF, …] (optional)} |
| ranking    | ResearchArena discovery/selection, SciNet ego/pair       | {"papers": [REF, …]}  best first    |
| report     | ReportBench, DeepSynth-Eval                              | {"report": "markdown", "cited": [REF, …] (optional)} |
| path       | SciNet path                                              | {"papers": [REF, …]}  in path order |

TREE is TaxoBench's form: {"name": str, "subtopics": [TREE, …], "papers": [REF, …]}. A REF is a
corpus id, a DOI, an arXiv id, a title or — when the task's prompt lists papers — the paper's
number in that list (an integer or a string such as "3" / "[3]"; integers are read as their
string); the benchmark resolves it offline to its own papers per task (`core.refs`), counting
what does not resolve; `ranking` also takes {"id": REF, "score": number}.

Answers are read from users, so the models forbid unknown keys: a misspelt field is a malformed
answer with a message that names it, never a silently empty one. `parse_answer` turns anything an
agent returned into the family's model or a `Malformed` with the reason.
"""
from __future__ import annotations

from typing import Annotated, Any, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

FAMILIES = ("taxonomy", "ranking", "report", "path")


def _ref(value: Any) -> Any:
    """A paper number given as a JSON integer is a REF like its string."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


Ref = Annotated[str, BeforeValidator(_ref)]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TreeNode(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    subtopics: list["TreeNode"] = Field(default_factory=list)
    papers: list[Ref] = Field(default_factory=list)


class ScoredRef(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: Ref
    score: float | None = None


class TaxonomyAnswer(_Answer):
    taxonomy: TreeNode
    retrieved: list[Ref] | None = None


class RankingAnswer(_Answer):
    papers: list[Union[Ref, ScoredRef]]

    def refs(self) -> list[str]:
        return [p if isinstance(p, str) else p.id for p in self.papers]


class ReportAnswer(_Answer):
    report: str
    cited: list[Ref] = Field(default_factory=list)


class PathAnswer(_Answer):
    papers: list[Ref]

    def refs(self) -> list[str]:
        return list(self.papers)


ANSWERS: dict[str, type[_Answer]] = {"taxonomy": TaxonomyAnswer, "ranking": RankingAnswer,
                                     "report": ReportAnswer, "path": PathAnswer}
# The keys an agent may add beside the answer: counts it wants recorded, and an error of its own.
SIDE_KEYS = ("info",)


class Malformed(Exception):
    """The agent's answer does not fit the family's schema (scored as the benchmark says)."""


def parse_answer(family: str, obj: Any) -> _Answer:
    """The family's answer model from a model instance or JSON-able dict; `Malformed` otherwise."""
    model = ANSWERS[family]
    if isinstance(obj, model):
        return obj
    if isinstance(obj, BaseModel):
        obj = obj.model_dump()
    if not isinstance(obj, dict):
        raise Malformed(f"a {family} answer must be a JSON object, got {type(obj).__name__}")
    body = {k: v for k, v in obj.items() if k not in SIDE_KEYS}
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        errors = exc.errors()
        fields = [".".join(str(p) for p in e["loc"] if not str(p).startswith("function-"))
                  or "(answer)" for e in errors]
        others = list(dict.fromkeys(f for f in fields[1:] if f != fields[0]))
        more = (f"; also field{'s' if len(others) > 1 else ''} {', '.join(others[:3])}"
                + (f" and {len(others) - 3} more" if len(others) > 3 else "")) if others else ""
        raise Malformed(f"{family} answer, field {fields[0]}: {errors[0]['msg']}{more}") \
            from None


def answer_info(obj: Any) -> dict[str, Any]:
    info = obj.get("info") if isinstance(obj, dict) else None
    return info if isinstance(info, dict) else {}


def schema(family: str) -> dict[str, Any]:
    return ANSWERS[family].model_json_schema()
