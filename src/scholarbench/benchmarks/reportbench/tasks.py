"""ReportBench tasks from the upstream files: `ReportBench_v1.1.jsonl` + `prompt_template_eval.txt`.

Each line of the task file is an arXiv metadata record of a survey plus `prompt` (the
reverse-engineered research request, with a time cut-off) and `application_domain`. The model
input is built as upstream's `infer/process_prompt.py` builds `prompt_new`: the template
(`prompt_template/eval.txt`, shipped as `prompt_template_eval.txt`) with `{prompt}` replaced
first and `{title}` second, by plain string replacement (so the text is byte-identical to
upstream's, including its one quirk: a `{title}` inside the prompt would be replaced too).

The cut-off date is read from the prompt ("published before April 2025", "prior to
August 2023", "before **July 2024**", "before [December 2021]") as the first day of that month:
"before April 2025" means published on or before 2025-03-31, i.e. `before=2025-04-01` in the
corpus search filters. A prompt that states none (one of the 100: 2302.10588) has
`cutoff=None`; `Task.cutoff_found` tells them apart and `load_tasks` counts them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from scholarbench.data.jsonl import iter_jsonl
from scholarbench.data.sources._io import clean_title, need_str
from scholarbench.data.sources.dates import parse_date
from scholarbench.data.sources.reportbench import LOCAL_KEY as LOCAL_KEY_RE
from scholarbench.errors import DataError

TASKS_FILE = "ReportBench_v1.1.jsonl"
TEMPLATE_FILE = "prompt_template_eval.txt"
# The upstream template, verbatim (199 bytes, no final newline); used when the folder has none.
DEFAULT_TEMPLATE = ("{prompt}\n\nYou also need to follow the following rules:\n"
                    "- Do not refer to the survey titled \"{title}\".\n"
                    "- Responses are given in the form of an English language survey with "
                    "citations where appropriate.")

_MONTHS = {name: i for i, name in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], start=1)}
_MONTHS.update({name[:3]: i for name, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_CUTOFF = re.compile(
    r"\b(?:before|prior\s+to|earlier\s+than|until|up\s+to|no\s+later\s+than)\s*[\[*_\"'(]*\s*"
    r"(?:(?P<month>[A-Za-z]{3,9})\.?\s+)?(?P<year>(?:19|20)\d\d)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Task:
    arxiv_id: str               # the survey's arXiv id, as in the file (no version)
    title: str                  # the survey's title (line breaks collapsed)
    prompt: str                 # the upstream `prompt`, verbatim
    eval_prompt: str            # the model input: template with prompt and title filled in
    cutoff: date | None         # first day of the month named in the prompt; None if none
    application_domain: str
    published: date | None      # v1 submission date
    abstract: str = ""
    categories: tuple[str, ...] = ()
    doi: str = ""
    updated: date | None = None  # the latest version's submission date (the cut-off's month)

    @property
    def cutoff_found(self) -> bool:
        return self.cutoff is not None


def build_eval_prompt(template: str, prompt: str, title: str) -> str:
    """Upstream's `apply_template`: replace `{prompt}`, then `{title}` (plain replacement)."""
    return template.replace("{prompt}", prompt).replace("{title}", title)


def parse_cutoff(prompt: str) -> date | None:
    """The first day of the month the prompt names as its cut-off ("before April 2025" ->
    2025-04-01; a bare year "before 2021" -> 2021-01-01); None when the prompt names none.
    When several are named (a detail-rich prompt may repeat it), the first is used."""
    for match in _CUTOFF.finditer(prompt):
        month_word = (match.group("month") or "").lower().rstrip(".")
        year = int(match.group("year"))
        if not month_word:
            return date(year, 1, 1)
        month = _MONTHS.get(month_word)
        if month:
            return date(year, month, 1)
        # "before the end of 2021" style: the word is not a month; a bare year follows
        return date(year, 1, 1) if month_word in ("of", "in", "year") else None
    return None


def read_template(folder: Path) -> str:
    path = folder / TEMPLATE_FILE
    if not path.is_file():
        return DEFAULT_TEMPLATE
    text = path.read_text(encoding="utf-8")
    for field in ("{prompt}", "{title}"):
        if field not in text:
            raise DataError(f"the template has no {field} placeholder", file=str(path))
    return text


ARXIV_KEY = r"\d{4}\.\d{4,5}|[a-z][a-z\-]*(\.[A-Za-z]{2})?/\d{7}"
# a survey that is not on arXiv (`scholarbench build` without its --arxiv-id): `local-` + a
# slug of its title; it names no paper, so it hides nothing by id
LOCAL_KEY = LOCAL_KEY_RE.pattern


def is_survey_key(text: str) -> bool:
    """A task's `arxiv_id`: an unversioned arXiv id, or a `local-<slug>` key."""
    return re.fullmatch(f"{ARXIV_KEY}|{LOCAL_KEY}", text) is not None


def load_tasks(path: str | Path, template: str | None = None) -> list[Task]:
    """Tasks of a ReportBench folder (holding `ReportBench_v1.1.jsonl` and, optionally,
    `prompt_template_eval.txt`) or of the task file itself. Malformed lines raise DataError
    naming the file, line and field; a duplicate arxiv_id is an error too."""
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    file = path / TASKS_FILE if path.is_dir() else path
    if not file.is_file():
        raise DataError("no ReportBench task file", file=str(file))
    template = read_template(folder) if template is None else template
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for line, obj in iter_jsonl(file):
        def text(field: str, optional: bool = False) -> str:
            return need_str(obj, field, file=file, line=line, optional=optional)
        arxiv_id = text("arxiv_id")
        if not is_survey_key(arxiv_id):
            raise DataError(f"not an arXiv id (without version) or a local-<slug> key: "
                            f"{arxiv_id!r}", file=str(file), line=line, field="arxiv_id")
        if arxiv_id in seen:
            raise DataError(f"arxiv_id {arxiv_id} already on line {seen[arxiv_id]}",
                            file=str(file), line=line, field="arxiv_id")
        seen[arxiv_id] = line
        title, prompt = clean_title(text("title")), text("prompt")
        if not title:
            raise DataError("empty title", file=str(file), line=line, field="title")
        if not prompt:
            raise DataError("empty prompt", file=str(file), line=line, field="prompt")
        versions = obj.get("versions") or []
        if not isinstance(versions, list) or not all(isinstance(v, dict) for v in versions):
            raise DataError("need a list of {version, created}", file=str(file), line=line,
                            field="versions")
        tasks.append(Task(
            arxiv_id=arxiv_id, title=title, prompt=obj["prompt"],
            eval_prompt=build_eval_prompt(template, obj["prompt"], title),
            cutoff=parse_cutoff(prompt),
            application_domain=text("application_domain", optional=True),
            published=parse_date(versions[0].get("created")) if versions else None,
            abstract=text("abstract", optional=True),
            categories=tuple(text("categories", optional=True).split()),
            doi=text("doi", optional=True),
            updated=parse_date(versions[-1].get("created")) if versions else None))
    return tasks
