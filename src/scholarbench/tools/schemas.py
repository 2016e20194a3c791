"""The literature tools' arguments, as pydantic models: one source for validation, the MCP
input schemas and the OpenAI function-calling schemas (`ToolSpec.json_schema`).

Caps (`le=`) bound every answer's size; a bad argument is a `ToolError` naming the field, never
a crash of the server.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_PAGE = 100


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class SearchArgs(_Args):
    query: str = Field(min_length=1, max_length=1000, description="free-text query")
    k: int = Field(10, ge=1, le=MAX_PAGE, description="results to return")
    offset: int = Field(0, ge=0, le=900, description="skip this many results (pagination)")
    mode: Literal["bm25", "dense", "hybrid"] = Field(
        "bm25", description="bm25 (lexical), dense (MiniLM cosine) or hybrid (RRF of both)")
    fields: Literal["title", "title+abstract"] = Field(
        "title", description="what is searched: titles only, or titles and abstracts")
    abstract_chars: int = Field(200, ge=0, le=2000,
                                description="characters of each abstract to include")
    exclude_surveys: bool = Field(False, description="leave out papers flagged as surveys")


class PaperArgs(_Args):
    paper: str = Field(min_length=1, max_length=2000,
                       description="a corpus id, DOI, arXiv id or exact title")
    abstract_chars: int = Field(1500, ge=0, le=5000,
                                description="characters of the abstract to include")
    paragraphs: int = Field(0, ge=0, le=20,
                            description="full-text paragraphs to include, where present")
    paragraph_chars: int = Field(1000, ge=1, le=5000,
                                 description="characters of each paragraph to include")


class GraphArgs(_Args):
    paper: str = Field(min_length=1, max_length=2000,
                       description="a corpus id, DOI, arXiv id or exact title")
    k: int = Field(20, ge=1, le=MAX_PAGE, description="results to return")
    offset: int = Field(0, ge=0, description="skip this many results (pagination)")


class RankedArgs(_Args):
    paper: str = Field(min_length=1, max_length=2000,
                       description="a corpus id, DOI, arXiv id or exact title")
    k: int = Field(10, ge=1, le=MAX_PAGE, description="results to return")


class ContextArgs(_Args):
    paper: str = Field(min_length=1, max_length=2000,
                       description="a corpus id, DOI, arXiv id or exact title")
    k: int = Field(5, ge=1, le=50, description="paragraphs to return")
    offset: int = Field(0, ge=0, description="skip this many paragraphs (pagination)")
    text_chars: int = Field(800, ge=50, le=5000, description="characters of each paragraph")


@dataclass(frozen=True)
class ToolSpec:
    name: str
    args: type[_Args]
    description: str

    def json_schema(self) -> dict[str, Any]:
        schema = self.args.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        return schema


TOOLS: dict[str, ToolSpec] = {spec.name: spec for spec in (
    ToolSpec("search", SearchArgs,
             "Search the task's literature (papers the task may see) by text. Returns papers "
             "best first: id, title, year, category, score and the start of the abstract."),
    ToolSpec("get_paper", PaperArgs,
             "Look up one paper by corpus id, DOI, arXiv id or exact title: its ids, title, "
             "year, abstract, reference and citation counts and, optionally, full-text "
             "paragraphs."),
    ToolSpec("references", GraphArgs, "The papers a paper cites (that the task may see)."),
    ToolSpec("citations", GraphArgs, "The papers citing a paper (that the task may see)."),
    ToolSpec("co_cited", RankedArgs,
             "Papers most often cited together with a paper: ranked by how many papers cite "
             "both (counted over the papers the task may see)."),
    ToolSpec("coupled", RankedArgs,
             "Papers sharing the most references with a paper (bibliographic coupling)."),
    ToolSpec("citation_contexts", ContextArgs,
             "Paragraphs of other papers that cite a paper (its citation contexts), where the "
             "corpus has full text; each with the citing paper and the other papers it cites."),
)}
