"""`scholarbench leaderboard` (docs/leaderboard.md) on real submissions: two agents' runs of the
toy benchmark (tests/plugins/toybench) — one a single run, one an eval suite — each judged by
the same scripted loopback judge and packed, and two forged copies of one (a member added
outside its manifest: refused; a summary edited and rehashed: verified with differences). The
verified two are ranked in the order of their summaries' headline with its interval; the
forged ones are listed apart and never ranked; leaderboard.json and leaderboard.csv hold the
HTML table's numbers; the gap test on hand-computed cases; the papers' rows on a real TaxoBench
run; the site opens in headless Chromium with no console error and no request beyond its own
files (screenshots of a benchmark page and a submission page go to
$SCHOLARBENCH_SCREENSHOT_DIR, else the test's tmp folder)."""
from __future__ import annotations

import csv
import hashlib
import json
import os
import tarfile
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from fake_openai import FakeOpenAI
from scholarbench.benchmarks.taxobench.published import published_rows
from scholarbench.leaderboard import paired_gap
from scholarbench.leaderboard.board import Listed, build_boards
from scholarbench.leaderboard.site import board_page
from scholarbench.report.sections.base import load_report_run
from scholarbench.submission import MANIFEST
from test_pack_verify import Env, _relevant, _write
from test_report_browser import browser  # noqa: F401  (the Chromium client, as a fixture)
from test_report_html import taxo_runs  # noqa: F401


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    judge = FakeOpenAI(default=_relevant).start()
    env = Env(tmp_path_factory.mktemp("lb"), judge)
    judged = ("--quiet", "--no-llm-cache", "--judge", "judge-a", "--judge-base-url",
              judge.base_url)
    run = env.cli("run", "toybench", "--task", "rank", "--agent", "mypkg_agent:solve",
                  "--out", "runs/good", "--llm-judge", *judged)
    assert run.returncode == 0, run.stderr
    suite = env.cli("eval", "--benchmarks", "toybench", "--agent", "toy-echo", "--out",
                    "runs/echo", *judged)                  # a suite: its run is echo/toybench-rank
    assert suite.returncode == 0, suite.stderr
    for out in ("good", "echo"):
        packed = env.cli("pack", f"runs/{out}", "--out", f"{out}.tar.gz")
        assert packed.returncode == 0, packed.stderr
    with tarfile.open(env.tmp / "good.tar.gz") as tar:      # a member outside the manifest
        members = {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}
    _write(env.tmp / "forged.tar.gz", {**members, "good/extra.json": b"{}"})
    # a summary edited and the manifest's digests rewritten to match: verified with differences
    summary = json.loads(members["good/summary.json"])
    summary["metrics"]["hit@3"]["mean"] = 1.0
    edited = {**members, "good/summary.json": json.dumps(summary).encode()}
    manifest = json.loads(edited[MANIFEST])
    for m in manifest["members"]:
        m["sha256"] = hashlib.sha256(edited[m["path"]]).hexdigest()
        m["bytes"] = len(edited[m["path"]])
    _write(env.tmp / "edited.tar.gz", {**edited, MANIFEST: json.dumps(manifest).encode()})
    built = env.cli("leaderboard", "echo.tar.gz", "good.tar.gz", "forged.tar.gz",
                    "edited.tar.gz", "--out", "site")
    assert built.returncode == 0, built.stderr
    env.built = built
    yield env
    judge.stop()


def _summary(env: Env, run: str) -> dict:
    return json.loads((env.tmp / "runs" / run / "summary.json").read_text())


class _Rows(HTMLParser):
    """The rows of every `table.lb`: (class, first cell's text, {data-key: data-value})."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[str, str, dict[str, str]]] = []
        self._head = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr":
            self.rows.append((a.get("class") or "", "", {}))
        elif tag == "th" and self.rows and a.get("scope") == "row":
            self._head = True
        elif tag == "td" and self.rows and "data-key" in a:
            self.rows[-1][2][a["data-key"]] = a.get("data-value") or ""

    def handle_endtag(self, tag):
        if tag == "th":
            self._head = False

    def handle_data(self, data):
        if self._head:
            kind, name, values = self.rows[-1]
            self.rows[-1] = (kind, name + data, values)


def _table(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    """(row class, entry) → the cells of its rows in every table (ranked; cost, flags and
    judges), merged; the judges' own tables carry no keyed cell and are left out."""
    parser = _Rows()
    parser.feed(path.read_text())
    out: dict[tuple[str, str], dict[str, str]] = {}
    for kind, name, cells in parser.rows:
        if cells:
            assert not set(cells) & set(out.get((kind, name), {})), name   # no cell twice
            out.setdefault((kind, name), {}).update(cells)
    return out


def test_two_agents_rank_by_their_headline_with_intervals(site):
    doc = json.loads((site.tmp / "site/leaderboard.json").read_text())
    assert [(b["benchmark"], b["mode"], b["measure"]) for b in doc["boards"]] == [
        ("toybench", "rank", "hit@3")]
    rows = [r for r in doc["boards"][0]["rows"] if r["kind"] == "ranked"]
    good, echo = _summary(site, "good"), _summary(site, "echo/toybench-rank")
    assert good["metrics"]["hit@3"]["mean"] > echo["metrics"]["hit@3"]["mean"]
    assert [(r["rank"], r["submission"], r["run"]) for r in rows] == [   # given echo first
        (1, "good", "good"), (2, "echo", "echo/toybench-rank")]
    for row, summary in zip(rows, (good, echo)):
        m = summary["metrics"]["hit@3"]
        assert row["score"] == m["mean"] and [row["ci_low"], row["ci_high"]] == m["ci95"]
        assert row["n"] == m["n"] and row["agent"] == summary["agent"]
    assert rows[0]["gap"] == pytest.approx(good["metrics"]["hit@3"]["mean"]
                                           - echo["metrics"]["hit@3"]["mean"])
    assert rows[0]["gap_significant"] is (rows[0]["gap_ci_low"] > 0)
    assert rows[1]["gap"] is None                        # the last has no entry below
    for row, summary in zip(rows, (good, echo)):         # the panel's judges, as summarised
        panel = summary.get("judge_panel") or {}
        assert row["judges"] == list(dict.fromkeys(j for m in panel.values() for j in m))
        assert row["alpha"] == next((a["alpha"] for a in (summary.get("judge_agreement")
                                                            or {}).values()
                                     if a.get("alpha") is not None), None)
        assert row["n_suspected_leak"] == summary.get("n_suspected_leak")
        assert row["n_suspected_injection"] == summary.get("n_suspected_injection")
    assert "ranked: good: verified" in site.built.stdout


def test_a_refused_submission_is_listed_apart_and_never_ranked(site):
    doc = json.loads((site.tmp / "site/leaderboard.json").read_text())
    assert [(u["submission"], u["verdict"]) for u in doc["unranked"]] == [
        ("forged", "refused"), ("edited", "verified with differences")]
    assert any("members" in w for w in doc["unranked"][0]["why"])
    assert any("summary" in w for w in doc["unranked"][1]["why"])
    assert all(r["submission"] not in ("forged", "edited")
               for b in doc["boards"] for r in b["rows"])
    index = (site.tmp / "site/index.html").read_text()
    apart = index[index.index("Listed apart"):]
    assert "forged" in apart and "refused" in apart
    page = (site.tmp / "site/submission-forged.html").read_text()
    assert "listed apart, not ranked" in page and "members" in page
    assert "listed apart: forged: refused" in site.built.stdout
    board = (site.tmp / "site/toybench-rank-hit-3.html").read_text()
    assert "forged" not in board


def test_a_missing_submission_file_is_one_line_and_exit_2(site):
    out = site.cli("leaderboard", "good.tar.gz", "nowhere.tar.gz", "--out", "site2")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == ["error: nowhere.tar.gz: no such submission file"]
    assert not (site.tmp / "site2").exists()


def test_json_and_csv_hold_the_html_tables_numbers(site):
    doc = json.loads((site.tmp / "site/leaderboard.json").read_text())
    board = doc["boards"][0]
    html_rows = _table(site.tmp / "site" / board["page"])
    ranked = [r for r in board["rows"] if r["kind"] == "ranked"]
    ours = [(name, cells) for (kind, name), cells in html_rows.items() if kind == "ours"]
    assert len(ours) == len(ranked) == 2
    for (name, cells), row in zip(ours, ranked):
        assert name.startswith(f"{row['rank']}. {row['submission']}")
        assert set(cells) == {"score", "ci_low", "ci_high", "n", "gap", "gap_ci_low",
                              "gap_ci_high", "cost_per_sample", "n_suspected_leak",
                              "mean_without_leaked", "n_suspected_injection",
                              "mean_without_flagged", "alpha"}
        for key, raw in cells.items():
            assert raw == ("" if row[key] is None else repr(row[key])), key
    published = [r for r in board["rows"] if r["kind"] == "published"]
    assert len([k for k in html_rows if k[0] == "published"]) == len(published)
    with open(site.tmp / "site/leaderboard.csv", newline="") as f:
        lines = list(csv.DictReader(f))
    assert len(lines) == len(board["rows"])
    for line, row in zip(lines, board["rows"]):
        assert line["submission"] == (row["submission"] or "")
        for key in ("score", "ci_low", "ci_high", "gap", "n"):
            assert line[key] == ("" if row[key] is None else str(row[key])), key


def test_the_gap_on_hand_computed_cases():
    # a constant difference: every resample's mean is 1, the interval [1, 1]
    gap = paired_gap({"a": 1.0, "b": 1.0, "c": 1.0}, {"a": 0.0, "b": 0.0, "c": 0.0})
    assert (gap.n_pairs, gap.diff, gap.ci_low, gap.ci_high, gap.significant) == \
        (3, 1.0, 1.0, 1.0, True)
    # differences [1, -1]: resampled means -1, 0, 1 with probabilities 1/4, 1/2, 1/4, so the
    # 2.5% and 97.5% quantiles are -1 and 1: not significant
    gap = paired_gap({"a": 1.0, "b": 0.0}, {"a": 0.0, "b": 1.0})
    assert (gap.diff, gap.ci_low, gap.ci_high, gap.significant) == (0.0, -1.0, 1.0, False)
    # differences [1, 1, 1, 0]: a resampled mean is k/4, k ~ Binomial(4, 3/4); P(k = 0) =
    # 1/256 < 2.5% < P(k <= 1) = 13/256, and P(k <= 3) = 175/256 < 97.5%: interval [1/4, 1]
    upper = {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.0, "only-upper": 5.0}
    lower = {"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0, "e": 3.0}
    gap = paired_gap(upper, lower)
    assert (gap.n_pairs, gap.diff, gap.ci_low, gap.ci_high, gap.significant) == \
        (4, 0.75, 0.25, 1.0, True)
    # lower is better: the same values favour the other side
    flipped = paired_gap(upper, lower, higher_better=False)
    assert (flipped.diff, flipped.ci_low, flipped.ci_high, flipped.significant) == \
        (-0.75, -1.0, -0.25, False)
    assert paired_gap(upper, lower) == gap                   # seeded: the same every time
    assert paired_gap({"x": None}, {"x": 1.0}).diff is None  # no pair: no gap
    assert np.isclose(paired_gap({"a": 0.2, "b": 0.4}, {"a": 0.1, "b": 0.1}).diff, 0.2)


CHECKS = """(() => ({
  tables: document.querySelectorAll('table.lb').length,
  ours: (document.querySelector('table.lb') || document).querySelectorAll('tr.ours').length,
  links: [...document.querySelectorAll('a')].map(a => a.getAttribute('href')),
  scripts: document.querySelectorAll('script').length,
  width: document.documentElement.scrollWidth,
}))()"""


def test_the_site_opens_in_chromium_without_errors_or_requests(site, browser):  # noqa: F811
    root = site.tmp / "site"
    shots = Path(os.environ.get("SCHOLARBENCH_SCREENSHOT_DIR") or root)
    shots.mkdir(parents=True, exist_ok=True)
    pages = {"index.html": None, "toybench-rank-hit-3.html": "leaderboard-benchmark.png",
             "submission-good.html": "leaderboard-submission.png",
             "submission-forged.html": None, "submission-good-report.html": None}
    seen = {}
    for name, shot in pages.items():
        browser.open((root / name).as_uri())
        seen[name] = browser.js(CHECKS)
        if shot:
            assert browser.screenshot(shots / shot, full_page=True).stat().st_size > 10_000
    assert browser.problems() == []
    assert all(u.startswith("file://") for u in browser.requests()), browser.requests()
    assert seen["toybench-rank-hit-3.html"]["ours"] == 2
    assert seen["index.html"]["scripts"] == 0
    for name, checks in seen.items():            # every link is a file of the site
        for href in checks["links"]:
            target = href.split("#")[0]     # "#…": a place on the same page
            assert href.startswith("#") or ("://" not in target
                                            and (root / target).is_file()), (name, href)


def test_the_papers_rows_follow_the_ranked_ones_marked_and_unranked(taxo_runs):  # noqa: F811
    """On a real TaxoBench bottom-up run: the board's published rows are the paper's
    transcribed rows for its headline measure, shown after the ranked entry with a badge."""
    run = load_report_run(taxo_runs[0])
    listed = Listed("flat", Path("flat.tar.gz"), None, True, runs={"flat-bu": run})
    [board] = build_boards([listed])
    assert (board.benchmark, board.mode, board.key) == ("taxobench", "bottom-up", "ari")
    paper = {(r.system, r.values["ari"]) for r in published_rows(mode="bottom-up")
             if "ari" in r.values}
    shown = {(p.system, p.value) for p in board.published}
    assert shown and shown <= paper
    assert [e.rank for e in board.entries] == [1]
    page = Path(taxo_runs[0]).parent / "board.html"
    page.write_text(board_page(board, "t"))
    rows = _table(page)
    published = [name for kind, name in rows if kind == "published"]
    assert len(published) == len(shown) and all(n.endswith(" published") for n in published)
    assert list(rows)[0] == ("ours", "1. flat · flat-bu")       # ranked first, the paper after
    for kind, name in rows:
        if kind == "published":
            system = name.removesuffix(" published").strip()
            assert repr(dict(shown)[system]) == rows[(kind, name)]["score"]
