"""Years and dates as the sources write them."""
from __future__ import annotations

import calendar
import re
from datetime import date, datetime
from typing import Sequence
from email.utils import parsedate_to_datetime

_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)")
_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")
_ARXIV_NEW = re.compile(r"^(\d{2})(\d{2})\.\d{4,5}$")
_ARXIV_OLD = re.compile(r"^[a-z\-]+(?:\.[A-Za-z]{2})?/(\d{2})(\d{2})\d{3}$")


def parse_year(value: object) -> int | None:
    """A four-digit year from bibliography text ("2019b", "Aug. 2021", "2021-04-21"), else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 1800 <= value <= 2099 else None
    if isinstance(value, str):
        match = _YEAR.search(value)
        return int(match.group(1)) if match else None
    return None


def parse_date(value: object) -> date | None:
    """An exact day from ISO text ("2018-02-13", "2018-02-13T10:00Z") or RFC 2822 text
    ("Fri, 8 Dec 2023 06:31:19 GMT", arXiv's version dates); None for anything less exact."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    match = _ISO.match(text)
    try:
        if match:
            return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        parsed: datetime = parsedate_to_datetime(text)
        return parsed.date()
    except (ValueError, TypeError, IndexError):
        return None


def csl_date(issued: object) -> tuple[int | None, date | None]:
    """(year, exact date) from a CSL-JSON `issued` ({"date-parts": [[2018, 4, 4]]})."""
    if not isinstance(issued, dict):
        return None, None
    parts = issued.get("date-parts")
    if not (isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]):
        return None, None
    first = parts[0]
    year = parse_year(first[0]) if isinstance(first[0], int) else parse_year(str(first[0]))
    if year is None or len(first) < 3:
        return year, None
    try:
        return year, date(year, int(first[1]), int(first[2]))
    except (TypeError, ValueError):
        return year, None


def arxiv_year_month(arxiv_id: str) -> tuple[int, int] | None:
    """Submission (year, month) encoded in an arXiv id: 2304.07638 -> (2023, 4),
    cs/0112017 -> (2001, 12). The scheme started in 1991."""
    match = _ARXIV_NEW.match(arxiv_id) or _ARXIV_OLD.match(arxiv_id)
    if not match:
        return None
    yy, mm = int(match.group(1)), int(match.group(2))
    if not 1 <= mm <= 12:
        return None
    return (1900 + yy if yy >= 91 else 2000 + yy), mm


def _arxiv_month(ids: Sequence[str] | None) -> tuple[int, int] | None:
    for key in ids or ():
        if key.startswith("arxiv:"):
            month = arxiv_year_month(key[6:])
            if month:
                return month
    return None


def _bound(published: date | None, ids: Sequence[str] | None, year: int | None, last: bool
           ) -> date | None:
    """`earliest_date` (`last` False) or `latest_date` (`last` True)."""
    if published is not None:
        return published
    month = _arxiv_month(ids)
    if month:
        return date(month[0], month[1], calendar.monthrange(*month)[1] if last else 1)
    if not year:
        return None
    return date(year, 12, 31) if last else date(year, 1, 1)


def earliest_date(published: date | None, ids: Sequence[str] | None, year: int | None
                  ) -> date | None:
    """The first day a paper may have appeared: `published`; else the first day of its arXiv
    id's month; else 1 January of `year`; else None."""
    return _bound(published, ids, year, last=False)


def latest_date(published: date | None, ids: Sequence[str] | None, year: int | None
                ) -> date | None:
    """The last day a paper may have appeared: `published`; else the last day of its arXiv
    id's month; else 31 December of `year`; else None."""
    return _bound(published, ids, year, last=True)
