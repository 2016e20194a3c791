"""The HTML report in a real browser: headless Chromium opens the file, the plots and the tree
views render (non-zero boxes), nothing logs an error or fetches anything, a screenshot is saved.

Chromium is driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON
messages separated by NUL on file descriptors 3 and 4), so the test needs no Python package,
only the Debian packages `chromium` (and `chromium-driver`, for anyone driving it through
WebDriver). Without Chromium the test is skipped, except under CI=true, where it fails.
Set SCHOLARBENCH_CHROMIUM to use another binary; the screenshot goes to the test's tmp dir, or
to $SCHOLARBENCH_SCREENSHOT_DIR when set.
"""
from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from scholarbench.report.html import write_html_report

from test_judge_injection import env  # noqa: F401
from test_judge_panel import fixed_agent, judges  # noqa: F401
from test_report_deepsynth_reportbench import deepsynth_runs, reportbench_runs  # noqa: F401
from test_report_html import arena_runs, taxo_runs  # noqa: F401
from test_report_scinet import scinet_runs  # noqa: F401
from test_leakage_rb_ra import rb_inputs  # noqa: F401
from test_tools_endpoint import corpus_dir  # noqa: F401

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-pipe"]


def chromium_binary() -> str:
    for candidate in (os.environ.get("SCHOLARBENCH_CHROMIUM"), "chromium", "chromium-browser",
                      "google-chrome"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)  # type: ignore[return-value]
    message = ("headless Chromium not found (install the Debian packages: apt-get install -y "
               "chromium chromium-driver)")
    if os.environ.get("CI") == "true":
        pytest.fail(message + "; CI must install them")
    pytest.skip(message)


class Browser:
    """A minimal DevTools-protocol client over Chromium's debugging pipe."""

    def __init__(self, binary: str, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="sb-chromium-")
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()

        def child() -> None:    # Chromium reads commands on fd 3 and writes replies on fd 4
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen([binary, *FLAGS, f"--user-data-dir={self.profile}",
                                      "about:blank"], close_fds=False, preexec_fn=child,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []
        self.session: str | None = None

    def _recv(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self._r], [], [], remaining)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed the debugging pipe")
            self._buf += chunk
        message, self._buf = self._buf.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict | None = None, session: bool = True) -> dict:
        self._id += 1
        message: dict = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._w, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._recv(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, event: str, since: int = 0) -> None:
        """Wait for `event` among the events from index `since` on (a second page's load
        must not be satisfied by the first page's)."""
        deadline = time.monotonic() + self.timeout
        while not any(e.get("method") == event and e.get("sessionId") == self.session
                      for e in self.events[since:]):
            self.events.append(self._recv(deadline))

    def open(self, url: str, width: int = 1280, height: int = 1000) -> None:
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=False)
        self.session = self.call("Target.attachToTarget", {"targetId": target["targetId"],
                                                           "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                         "deviceScaleFactor": 1,
                                                         "mobile": False})
        seen = len(self.events)
        self.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired", since=seen)

    def js(self, expression: str):
        result = self.call("Runtime.evaluate", {"expression": expression,
                                                "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params: dict = {"format": "png"}
        if full_page:
            size = self.js("[document.documentElement.scrollWidth, "
                           "document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": size[0], "height": size[1],
                                "scale": 1})
        data = self.call("Page.captureScreenshot", params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries seen so far."""
        out = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error",
                                                                              "assert"):
                out.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Runtime.exceptionThrown":
                out.append(f"exception: {params.get('exceptionDetails')}")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.append(f"log: {params['entry'].get('text')}")
        return out

    def requests(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events
                if e.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        try:
            self.call("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._r, self._w):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture
def browser():
    b = Browser(chromium_binary())
    yield b
    b.close()


CHECKS = """(() => {
  const box = el => { const r = el.getBoundingClientRect(); return [r.width, r.height]; };
  const figs = [...document.querySelectorAll('figure svg.chart')];
  const firstTree = document.querySelector('details.sample[open] .tree-compare');
  const missing = firstTree && firstTree.querySelector('li.node[data-status="missing"] > .label');
  return {
    charts: figs.length,
    emptyCharts: figs.filter(s => { const [w, h] = box(s); return w < 50 || h < 50; }).length,
    marks: document.querySelectorAll('figure svg.chart circle, figure svg.chart rect.bar, '
                                     + 'figure svg.chart path.line').length,
    tables: document.querySelectorAll('table.lb').length,
    publishedRows: document.querySelectorAll('table.lb tr.published').length,
    firstTree: firstTree ? box(firstTree) : null,
    treeNodes: firstTree ? firstTree.querySelectorAll('li.node').length : 0,
    missingColour: missing ? getComputedStyle(missing).color : null,
    missingBox: missing ? box(missing) : null,
  };
})()"""

OPEN_ALL = """(() => {
  document.querySelectorAll('details').forEach(d => d.open = true);
  const trees = [...document.querySelectorAll('.tree-compare')];
  return {trees: trees.length,
          hidden: trees.filter(t => t.getBoundingClientRect().height < 20).length,
          mindmaps: document.querySelectorAll('section[data-mode="organisation"] .tree-compare')
                    .length};
})()"""


def test_report_renders_in_chromium(browser, taxo_runs, arena_runs, tmp_path):
    report = write_html_report([*taxo_runs, *arena_runs], tmp_path / "report.html")
    browser.open(report.resolve().as_uri())
    state = browser.js(CHECKS)
    assert state["charts"] >= 12 and state["emptyCharts"] == 0, state
    assert state["marks"] > 50, state
    assert state["tables"] >= 7 and state["publishedRows"] > 40, state
    assert state["firstTree"] and state["firstTree"][1] > 100, state       # tree view rendered
    assert state["treeNodes"] >= 6, state
    assert state["missingBox"] and state["missingBox"][0] > 0, state
    assert state["missingColour"] == "rgb(198, 40, 40)", state              # marked in red
    opened = browser.js(OPEN_ALL)
    assert opened["trees"] == 3 + 3 + 1 and opened["hidden"] == 0 and opened["mindmaps"] == 1, opened
    browser.js("window.scrollTo(0, 0); document.querySelectorAll('details:not(.sample)')"
               ".forEach(d => d.open = false)")
    assert browser.problems() == []
    assert all(url.startswith(("file://", "data:")) for url in browser.requests()), \
        browser.requests()
    target = Path(os.environ.get("SCHOLARBENCH_SCREENSHOT_DIR") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    shot = browser.screenshot(target / "report.png")
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 20_000
    print(f"screenshot: {shot}")


ALL_BENCHMARKS = """(() => {
  const box = el => { const r = el.getBoundingClientRect(); return [r.width, r.height]; };
  const sections = [...document.querySelectorAll('section.benchmark')].map(s => s.dataset.benchmark);
  const charts = bench => [...document.querySelectorAll(
      `section.benchmark[data-benchmark="${bench}"] figure svg.chart`)];
  const empty = list => list.filter(s => { const [w, h] = box(s); return w < 50 || h < 50; }).length;
  const segs = [...document.querySelectorAll('svg[data-chart="status-breakdown"] rect.seg')];
  const firstDse = document.querySelector(
      'section.benchmark[data-benchmark="deepsynth"] details.sample[open]');
  const firstRb = document.querySelector(
      'section.benchmark[data-benchmark="reportbench"] details.sample[open] .ref-cols');
  return {
    sections,
    dseCharts: charts('deepsynth').length, rbCharts: charts('reportbench').length,
    emptyCharts: empty(charts('deepsynth')) + empty(charts('reportbench')),
    segments: segs.length, wideSegments: segs.filter(r => box(r)[0] > 1).length,
    dsePublished: document.querySelectorAll(
        'section.benchmark[data-benchmark="deepsynth"] table.lb tr.published').length,
    rbPublished: document.querySelectorAll(
        'section.benchmark[data-benchmark="reportbench"] table.lb tr.published').length,
    dseSample: firstDse ? box(firstDse) : null,
    refCols: firstRb ? box(firstRb) : null,
    scripts: document.querySelectorAll('script').length,
    snCharts: charts('scinet').length, snEmpty: empty(charts('scinet')),
    snBars: document.querySelectorAll(
        'section.benchmark[data-benchmark="scinet"] svg.chart rect.bar').length,
    snTables: document.querySelectorAll(
        'section.benchmark[data-benchmark="scinet"] table.lb').length,
  };
})()"""


def test_report_with_all_benchmarks_renders(browser, taxo_runs, arena_runs, deepsynth_runs,
                                            reportbench_runs, scinet_runs, tmp_path):
    report = write_html_report([*taxo_runs, *arena_runs, *deepsynth_runs, *reportbench_runs,
                                *scinet_runs.values()], tmp_path / "report-all.html")
    browser.open(report.resolve().as_uri(), height=1700)
    state = browser.js(ALL_BENCHMARKS)
    assert state["sections"] == ["taxobench", "researcharena", "deepsynth", "reportbench",
                                 "scinet"], state
    assert state["snCharts"] >= 6 and state["snEmpty"] == 0 and state["snBars"] >= 10, state
    assert state["snTables"] == 3 + 2, state            # per family, + LLM tables (ego, path)
    assert state["dseCharts"] >= 6 and state["rbCharts"] >= 5 and state["emptyCharts"] == 0, state
    assert state["segments"] >= 16 and state["wideSegments"] >= 8, state
    assert state["dsePublished"] == 10 and state["rbPublished"] == 6, state
    assert state["dseSample"] and state["dseSample"][1] > 150, state
    assert state["refCols"] and state["refCols"][1] > 30, state
    assert state["scripts"] == 0, state                     # the hostile reports stay text
    opened = browser.js(OPEN_ALL)
    assert opened["hidden"] == 0, opened
    assert browser.problems() == []
    assert all(url.startswith(("file://", "data:")) for url in browser.requests()), \
        browser.requests()
    browser.js("document.querySelectorAll('details:not(.sample)').forEach(d => d.open = false)")
    target = Path(os.environ.get("SCHOLARBENCH_SCREENSHOT_DIR") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    for bench in ("deepsynth", "reportbench", "scinet"):
        browser.js(f"document.querySelector('section.benchmark[data-benchmark=\"{bench}\"]')"
                   ".scrollIntoView()")
        shot = browser.screenshot(target / f"report-{bench}.png")
        data = shot.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 50_000
        print(f"screenshot: {shot}")


SUITE = """(() => {
  const box = el => el.getBoundingClientRect();
  const overview = document.querySelector('section.suite table.lb');
  const wrap = overview && overview.closest('div.scroll');
  const main = document.querySelector('main');
  const notes = [...document.querySelectorAll('section.suite ul.notes li')];
  return {
    rows: overview ? overview.querySelectorAll('tbody tr').length : 0,
    first: document.querySelector('h2').textContent,
    pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
    scrolls: wrap ? wrap.scrollWidth > wrap.clientWidth : null,
    wrapInsideMain: wrap ? box(wrap).right <= box(main).right + 1 : null,
    tablesOutside: [...document.querySelectorAll('table')].filter(
        t => !t.closest('div.scroll') && box(t).right > box(main).right + 1).length,
    notes: notes.map(n => n.textContent),
    notesInside: notes.every(n => box(n).right <= box(main).right + 1),
  };
})()"""


def test_a_suite_report_opens_with_its_overview_and_wide_tables_scroll(browser, taxo_runs,
                                                                      tmp_path):
    """`report SUITE_DIR`: the overview first (one row per sub-task, every status column), a
    wide table scrolls inside its box, and a long error text wraps inside the page."""
    from scholarbench.core.engine import benchmark_class
    from scholarbench.core.suite import run_entry
    suite = tmp_path / "suite"
    entries = []
    for src in taxo_runs:
        summary = json.loads((src / "summary.json").read_text())
        name = f"taxobench-{summary['mode']}"
        shutil.copytree(src, suite / name)
        bench = benchmark_class("taxobench")()
        entries.append({"benchmark": "taxobench", "subtask": summary["mode"],
                        "run_dir": f"somewhere/else/{name}",
                        **run_entry(bench, summary["mode"], suite / name)})
    long_error = ("the agent's endpoint https://example.invalid/v1/chat/completions refused "
                  "the connection: " + "HTTPSConnectionPool(host=example.invalid)/" * 8)
    entries.append({"benchmark": "deepsynth", "subtask": "report", "status": "failed",
                    "reason": long_error})
    (suite / "eval.json").write_text(json.dumps({"agent": "my-agent", "runs": entries}))
    report = write_html_report([suite], tmp_path / "suite.html")
    browser.open(report.resolve().as_uri(), width=1100, height=900)
    state = browser.js(SUITE)
    assert state["first"] == "Suite overview" and state["rows"] == 3, state
    assert state["pageOverflow"] <= 0 and state["tablesOutside"] == 0, state
    assert state["scrolls"] is True and state["wrapInsideMain"] is True, state
    assert any(long_error[:60] in n for n in state["notes"]) and state["notesInside"], state
    assert browser.problems() == []
    target = Path(os.environ.get("SCHOLARBENCH_SCREENSHOT_DIR") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    shot = browser.screenshot(target / "report-suite.png")
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    print(f"screenshot: {shot}")


JUDGES = """(() => {
  const box = el => el.getBoundingClientRect();
  const section = document.querySelector('section.judges');
  const main = document.querySelector('main');
  const tables = section ? [...section.querySelectorAll('table.lb')] : [];
  return {
    tables: tables.map(t => t.dataset.title),
    rows: tables.map(t => t.querySelectorAll('tbody tr').length),
    scripts: document.querySelectorAll('script').length,
    evil: section ? section.textContent.includes("<script>alert('judge')</script>") : false,
    pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
    inside: tables.every(t => box(t.closest('div.scroll')).right <= box(main).right + 1),
    tocLink: !!document.querySelector('nav.toc a[href="#judges"]'),
  };
})()"""


LEAK = """(() => {
  const box = el => { const r = el.getBoundingClientRect(); return [r.width, r.height]; };
  const sample = document.querySelector('details.sample[data-sample="2102.00003"]');
  document.querySelectorAll('details.sample').forEach(d => d.open = d === sample);
  sample.querySelectorAll('details').forEach(d => d.open = false);
  const marked = [...sample.querySelectorAll('.ref-col li.leak')];
  const badge = sample.querySelector('summary .leak-badge');
  sample.scrollIntoView();
  return {
    marked: marked.map(li => [li.dataset.rule, li.textContent]),
    tags: marked.map(li => box(li.querySelector('.leak-tag'))),
    background: marked.length ? getComputedStyle(marked[0]).backgroundColor : null,
    badge: badge ? [badge.textContent, getComputedStyle(badge).backgroundColor, box(badge)] : null,
    findings: sample.querySelectorAll('.leak-findings li.leak').length,
    unmarked: sample.querySelectorAll('.ref-col li:not(.leak)').length,
  };
})()"""


def test_report_judges_panel_renders(browser, judges, fixed_agent, env, tmp_path):
    """Two SciNet runs scored by a two-judge panel with repeats (one judge's name is a
    `<script>`), a TaxoBench run with one judge: a judges panel per run, the rankings table,
    the hostile name shown as text; `report-judges.png` scrolled to the panel."""
    from test_report_judges import panel_run
    from test_judge_panel import reply
    from test_judge_injection import _gold_and_pred, _judge_flags, obedient
    from scholarbench.cli import main
    a, b = judges
    names = ("judge-a", "<script>alert('judge')</script>")
    first = panel_run(tmp_path, judges, names=names, samples=2, out="r1", name="relation-aware")
    a.default = lambda body: reply(5)
    b.default = lambda body: reply(1)
    second = panel_run(tmp_path, judges, names=names, samples=2, out="r2", name="bm25-path")
    gold, pred = _gold_and_pred(tmp_path)
    env.default = obedient
    taxo = tmp_path / "taxo"
    assert main(["run", "taxobench", "--mode", "bottom-up", "--agent", "replay", "--agent-arg",
                 f"path={pred}", "--gold", str(gold), "--out", str(taxo), "--quiet",
                 "--with-judge", *_judge_flags(env)]) == 0
    assert main(["judge-check", str(taxo), "--quiet", "--probes", "direct-order,appeal",
                 *_judge_flags(env)]) == 0
    report = write_html_report([taxo, first, second], tmp_path / "report-judges.html")
    browser.open(report.resolve().as_uri(), width=1280, height=1000)
    state = browser.js(JUDGES)
    assert len(state["tables"]) == 4 and state["tables"][-1] == "Judges' rankings of the runs", \
        state
    assert state["rows"] == [5, 3, 3, 1], state
    assert state["scripts"] == 0 and state["evil"] is True, state
    assert state["pageOverflow"] <= 0 and state["inside"] and state["tocLink"], state
    assert browser.problems() == []
    browser.js("document.querySelector('section.judges').scrollIntoView()")
    target = Path(os.environ.get("SCHOLARBENCH_SCREENSHOT_DIR") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    shot = browser.screenshot(target / "report-judges.png")
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    print(f"screenshot: {shot}")


def test_a_drilldown_marks_the_leaked_references(browser, rb_inputs, tmp_path,  # noqa: F811
                                                 monkeypatch):
    """A ReportBench run whose scripted answers cite the survey by DOI, two papers after the
    cut-off, or only clean papers: the drill-down's marks and badges are visible."""
    from scholarbench.cli import main
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "no-data"))
    folder, gt, corpus, answers = rb_inputs
    out = tmp_path / "run"
    assert main(["run", "reportbench", "--agent", "replay", "--agent-arg", f"path={answers}",
                 "--tasks", str(folder), "--gt-dir", str(gt), "--corpus", str(corpus),
                 "--out", str(out)]) == 0
    report = write_html_report([out], tmp_path / "report-leak.html")
    browser.open(report.resolve().as_uri(), height=1100)
    state = browser.js(LEAK)
    assert state["marked"] == [["after_cutoff", "A later paperleak: after the cut-off"],
                               ["after_cutoff", "A paper of the monthleak: after the cut-off"]
                               ], state
    assert all(w > 20 and h > 8 for w, h in state["tags"]), state
    assert state["background"] == "rgb(253, 236, 234)", state       # the marked rows' tint
    assert state["badge"][0] == "suspected leak: after cut-off 2", state
    assert state["badge"][1] == "rgb(179, 38, 30)" and state["badge"][2][0] > 60, state
    assert state["findings"] == 2 and state["unmarked"] >= 2, state
    assert browser.problems() == []
    target = Path(os.environ.get("SCHOLARBENCH_SCREENSHOT_DIR") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    shot = browser.screenshot(target / "report-leak.png")
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    print(f"screenshot: {shot}")


def test_a_paged_drilldown_is_found_by_its_search_box(browser, taxo_runs, tmp_path,
                                                      monkeypatch):
    """Issue 37: the report lists the drill-down's pages; typing a sample id in the search
    box links its page, which opens from disk with its samples and links back."""
    from scholarbench.report import htmlkit
    monkeypatch.setattr(htmlkit, "DRILL_PAGE", 1)
    report = write_html_report(taxo_runs[:1], tmp_path / "paged.html")
    ids = [json.loads(x)["id"] for x in
           (taxo_runs[0] / "scores.jsonl").read_text().splitlines()]
    browser.open(report.resolve().as_uri())
    assert browser.js("document.querySelectorAll('details.sample').length") == 0
    assert browser.js("document.querySelectorAll('ol.drill-pages a').length") == len(ids)
    last = str(ids[-1])
    hit = browser.js(f"""(() => {{
      const box = document.querySelector('input[data-drill]');
      box.value = {json.dumps(last)}; box.dispatchEvent(new Event('input'));
      const a = box.closest('p').querySelector('.drill-hit a');
      return a ? [a.textContent, a.href] : null; }})()""")
    assert hit and hit[0] == f"{last} (page {len(ids)})", hit
    target = Path(os.environ.get("SCHOLARBENCH_SCREENSHOT_DIR") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    browser.js("document.querySelector('input[data-drill]').scrollIntoView()")
    shot = browser.screenshot(target / "report-paged.png")
    assert browser.problems() == []
    browser.open(hit[1])
    assert browser.js("[...document.querySelectorAll('details.sample')]"
                      ".map(d => d.dataset.sample)") == [last]
    assert browser.js("document.querySelector('a[href$=\"paged.html\"]') !== null")
    page_shot = browser.screenshot(target / "report-paged-page.png")
    assert browser.problems() == []
    assert all(url.startswith(("file://", "data:")) for url in browser.requests())
    print(f"screenshots: {shot} {page_shot}")


def test_a_drilldown_shows_the_agents_exchange_and_the_judges(browser, tmp_path, monkeypatch,
                                                              capsys, corpus_dir):  # noqa: F811
    """Issue 38: in Chromium, a sample's drill-down opens to the endpoint agent's whole exchange
    (its chat calls, the tool calls it made, the reply) and, in a judged run, the judge's prompt
    and reply; both visible (non-empty boxes), screenshots saved."""
    from test_transcripts import endpoint_tool_run, judged_taxo_run
    target = Path(os.environ.get("SCHOLARBENCH_SCREENSHOT_DIR") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    shown = """(() => {
      document.querySelectorAll('details').forEach(d => d.open = true);
      const box = el => { const r = el.getBoundingClientRect(); return r.width * r.height; };
      const ex = [...document.querySelectorAll('details.exchange')];
      return {exchanges: ex.map(d => d.querySelector('summary').textContent),
              toolcalls: [...document.querySelectorAll('details.exchange .toolcall')]
                         .filter(t => box(t) > 0).map(t => t.textContent),
              replies: [...document.querySelectorAll('details.exchange .reply pre')]
                       .filter(t => box(t) > 0).map(t => t.textContent.slice(0, 200))};
    })()"""
    agent_run = endpoint_tool_run(tmp_path, corpus_dir, capsys)
    report = write_html_report([agent_run], tmp_path / "agent.html")
    browser.open(report.resolve().as_uri())
    seen = browser.js(shown)
    assert any("agent exchange, 3 chat calls" in s for s in seen["exchanges"]), seen
    assert sum("search(" in t for t in seen["toolcalls"]) >= 2, seen
    assert seen["replies"], seen
    browser.js("document.querySelector('details.exchange').scrollIntoView()")
    browser.screenshot(target / "drilldown-agent-exchange.png")
    judged = judged_taxo_run(tmp_path, monkeypatch)
    report = write_html_report([judged], tmp_path / "judged.html")
    browser.open(report.resolve().as_uri())
    seen = browser.js(shown)
    assert any("judge fake-judge on" in s for s in seen["exchanges"]), seen
    assert any("semantic_coverage" in r for r in seen["replies"]), seen
    browser.js("[...document.querySelectorAll('details.exchange')].pop().scrollIntoView()")
    browser.screenshot(target / "drilldown-judge-exchange.png")
    assert browser.problems() == []
