"""The leaderboard report: the paper's published rows, run loading, table layout and formats."""
import csv
import io
import json
import math
import re
from pathlib import Path

import pytest

from scholarbench.cli import main
from scholarbench.data.demo import demo_records
from scholarbench.errors import DataError
from scholarbench.benchmarks.taxobench.measures import METRIC_KEYS
from scholarbench.benchmarks.taxobench.judge import JUDGE_KEYS
from scholarbench.benchmarks.taxobench.published import PUBLISHED, TABLE_KEYS, PublishedRow, published_rows
from scholarbench.benchmarks.taxobench.tables import format_value, leaderboard, load_runs, to_csv
from scholarbench.core.manifest import new_manifest, write_manifest
from scholarbench.benchmarks.taxobench.runner import aggregate, score_files

from conftest import FakeEmbedder, shared_path

PAPER = "000_4fb1d97269a96388.txt"

# ------------------------------------------------------------------ published rows vs the paper

# The paper's column headers (arrows and markup removed) → our METRICS keys.
HEADER_KEYS = {"Recall": "recall", "Precision": "precision", "F1": "f1", "ARI": "ari",
               "Hom.": "homogeneity", "Comp.": "completeness", "V-Meas.": "v_measure",
               "ARI∩": "ari_cap", "V-Meas.∩": "v_measure_cap", "US-TED": "us_ted",
               "US-NTED": "us_nted", "SEM-PATH": "sem_path", "NSR": "nsr", "NSP": "nsp",
               "Soft F1": "soft_f1", "Cov.": "judge_coverage", "Org.": "judge_organization",
               "Log.": "judge_logic", "Topo.": "judge_topology", "Avg.": "judge_avg"}
PAPER_TABLES = (2, 3, 4, 5, 7)   # Table 6 (judge-human agreement) describes no system


def _clean(cell: str) -> str:
    cell = cell.replace("<math>_{\\cap}</math>", "∩")
    cell = re.sub(r"<math>\\(up|down)arrow</math>", "", cell)
    cell = re.sub(r"<[^>]+>", "", cell)
    return cell.replace("↑", "").replace("↓", "").strip()


def _paper_tables() -> dict[int, dict]:
    """Tables 2–5 and 7 of the paper file: header keys and (mode, group, system, printed
    cells) rows."""
    text = shared_path("papers", PAPER).read_text(encoding="utf-8")
    found: dict[int, list[dict]] = {}
    for match in re.finditer(r'<table border="1">(.*?)</table>', text, re.S):
        caption = re.search(r"\*\*Table (\d+)", text[match.end():])
        number = int(caption.group(1))
        if number not in PAPER_TABLES:
            continue
        body = match.group(1)
        thead, tbody = body.split("<tbody>")
        headers = [_clean(h) for attrs, h in re.findall(r"<th([^>]*)>(.*?)</th>", thead, re.S)
                   if "span" not in attrs]
        headers = [h for h in headers if h not in ("Deep Research Agent", "Model")]
        mode = {2: "deep-research", 3: "deep-research", 4: "bottom-up", 5: None,
                7: None}[number]
        group = None
        rows = []
        for tr in re.findall(r"<tr>(.*?)</tr>", tbody, re.S):
            tds = re.findall(r"<td([^>]*)>(.*?)</td>", tr, re.S)
            if len(tds) == 1 and "colspan" in tds[0][0]:
                label = _clean(tds[0][1])
                if label.endswith("Mode"):
                    mode = {"Deep Research Mode": "deep-research",
                            "Bottom-Up Mode": "bottom-up"}[label]
                    group = None
                else:
                    group = label
                continue
            cells = [_clean(c) for _, c in tds]
            rows.append({"mode": mode, "group": group, "system": cells[0], "cells": cells[1:]})
        found.setdefault(number, []).append({"keys": tuple(HEADER_KEYS[h] for h in headers),
                                             "rows": rows})
    assert sorted(found) == list(PAPER_TABLES)
    assert all(len(tables) == 1 for tables in found.values()), "a caption matched two tables"
    return {number: tables[0] for number, tables in found.items()}


def _printed_value(cell: str) -> float:
    return float(cell[:-1]) / 100 if cell.endswith("%") else float(cell)


@pytest.mark.parametrize("number", PAPER_TABLES)
def test_every_published_row_matches_the_paper(number):
    paper = _paper_tables()[number]
    assert paper["keys"] == TABLE_KEYS[number]              # columns in the paper's order
    ours = published_rows(table=number)
    assert [(r.mode, r.group, r.system) for r in ours] == \
        [(p["mode"], p["group"], p["system"]) for p in paper["rows"]]
    for row, printed in zip(ours, paper["rows"]):
        assert list(row.values) == list(TABLE_KEYS[number])
        for key, cell in zip(TABLE_KEYS[number], printed["cells"]):
            assert math.isclose(row.values[key], _printed_value(cell), abs_tol=1e-12), \
                (number, row.system, key, cell)
            assert format_value(key, row.values[key]) == cell   # we print it as the paper does


def test_published_table_7_covers_both_modes_and_its_average_is_the_mean_of_four():
    paper = _paper_tables()[7]
    assert paper["keys"] == TABLE_KEYS[7] == JUDGE_KEYS           # Table 7's column order
    assert [r["mode"] for r in paper["rows"]].count("deep-research") == 7
    assert [r["mode"] for r in paper["rows"]].count("bottom-up") == 12
    rows = published_rows(table=7)
    assert len(rows) == 19
    for row in rows:
        dims = [row.values[k] for k in JUDGE_KEYS[:4]]
        assert all(1.0 <= v <= 5.0 for v in row.values.values())
        # the printed average: the mean of the unrounded scores, rounded to 2 decimals
        assert abs(sum(dims) / 4 - row.values["judge_avg"]) <= 0.005 + 1e-9, row.system
    # the same systems as the paper's other tables of each mode
    assert {r.system for r in published_rows(7, "deep-research")} == \
        {r.system for r in published_rows(2, "deep-research")}
    assert [(r.group, r.system) for r in published_rows(7, "bottom-up")] == \
        [(r.group, r.system) for r in published_rows(4, "bottom-up")]


def test_published_rows_spot_checks_and_counts():
    assert len(PUBLISHED) == 7 + 7 + 12 + 7 + 12 + 7 + 12
    by = {(r.table, r.mode, r.system): r for r in PUBLISHED}
    assert by[(2, "deep-research", "o3")].values["recall"] == 0.2092
    assert by[(2, "deep-research", "Grok")].values["precision"] == 0.2935
    assert by[(3, "deep-research", "Qwen")].values["ari"] == -0.0007
    assert by[(3, "deep-research", "Gemini")].values["ari_cap"] == 0.4172
    assert by[(3, "deep-research", "Perplexity")].values["us_ted"] == 56.66   # absolute
    assert by[(4, "bottom-up", "Qwen3-Max*")].values["ari"] == 0.3124
    assert by[(4, "bottom-up", "Claude-4.5-Sonnet")].values["homogeneity"] == 0.8227
    assert by[(4, "bottom-up", "Kimi-K2-Thinking")].group == "Thinking-based"
    assert by[(5, "deep-research", "o3")].values == {"nsr": 0.76, "nsp": 0.92, "soft_f1": 0.83}
    assert by[(5, "bottom-up", "DeepSeek-V3.2-Thinking")].values["nsp"] == 0.89
    assert by[(7, "deep-research", "o3")].values == {
        "judge_coverage": 2.14, "judge_organization": 2.71, "judge_logic": 3.06,
        "judge_topology": 2.28, "judge_avg": 2.55}
    assert by[(7, "deep-research", "Doubao")].values["judge_coverage"] == 1.90
    assert by[(7, "bottom-up", "DeepSeek-V3.2")].values["judge_avg"] == 2.59
    assert by[(7, "bottom-up", "Kimi-K2-Thinking")].values["judge_logic"] == 2.64
    assert by[(7, "bottom-up", "Kimi-K2-Thinking")].group == "Thinking-based"
    assert {r.mode for r in published_rows(table=4)} == {"bottom-up"}
    assert len(published_rows(table=5, mode="bottom-up")) == 12
    with pytest.raises(AttributeError):
        by[(2, "deep-research", "o3")].system = "x"  # type: ignore[misc]
    assert isinstance(PUBLISHED[0], PublishedRow)


# ----------------------------------------------------------------------------------- fake runs

def make_run(root: Path, dirname: str, mode: str = "bottom-up", agent: str = "cluster",
             run_name: str | None = None, n: int = 5, means: dict | None = None,
             nulls: dict | None = None, missing: int = 0, malformed: int = 0,
             judge: dict | None = None) -> Path:
    """A run directory with a manifest and summary in the runner's format. `judge` adds the
    judge keys as score_run writes them: {"model": name, "prompt": version, "means": {key: v},
    "unscored": k}; every missing/malformed sample is one without a prediction to judge."""
    d = root / dirname
    d.mkdir(parents=True)
    manifest = {"format": "scholarbench-run/1", "benchmark": "taxobench", "mode": mode,
                "agent": agent}
    if run_name is not None:
        manifest["run_name"] = run_name
    (d / "manifest.json").write_text(json.dumps(manifest))
    metrics = {}
    for key in METRIC_KEYS:
        n_null = (nulls or {}).get(key, 0)
        mean = None if n_null == n else (means or {}).get(key, 12.5 if key == "us_ted" else 0.5)
        metrics[key] = {"mean": mean, "n": n - n_null, "n_null": n_null}
    summary = {"benchmark": "taxobench", "mode": mode, "agent": agent, "run_name": run_name,
               "n_samples": n, "n_missing": missing, "n_malformed": malformed,
               "metrics": metrics}
    if judge is not None:
        unscored = judge.get("unscored", 0)
        n_null = unscored + missing + malformed
        for key in JUDGE_KEYS:
            mean = None if n_null == n else judge.get("means", {}).get(key, 3.0)
            metrics[key] = {"mean": mean, "n": n - n_null, "n_null": n_null,
                            "n_unscored": unscored}
        model = judge.get("model", "gpt-4o-mini")
        summary["judge"] = {"prompt": judge.get("prompt", "taxobench_judge_v1"),
                            "prompt_sha256": "ab" * 32,
                            "model_id": f"https://api.example/v1|{model}"}
        manifest["models"] = {"judge": {"model": model,
                                        "model_id": f"https://api.example/v1|{model}"}}
        (d / "manifest.json").write_text(json.dumps(manifest))
    (d / "summary.json").write_text(json.dumps(summary))
    return d


def _blocks(text: str) -> list[tuple[str, list[str]]]:
    """Terminal output → [(table title, its lines up to the next blank line)] in order."""
    out: list[tuple[str, list[str]]] = []
    current = None
    for line in text.splitlines():
        if line.startswith("Table "):
            current = []
            out.append((line, current))
        elif not line.strip():
            current = None
        elif current is not None:
            current.append(line)
    return out


def _block(text: str, prefix: str) -> list[str]:
    matches = [lines for title, lines in _blocks(text) if title.startswith(prefix)]
    assert len(matches) == 1, prefix
    return matches[0]


_PIPE = re.compile(r"(?<!\\)\|")


def _md_tables(text: str) -> dict[str, list[list[str]]]:
    """Markdown output → {### title: rows of cells (header first, alignment row dropped)}."""
    out, title = {}, None
    for line in text.splitlines():
        if line.startswith("### "):
            title = line[4:]
            out[title] = []
        elif line.startswith("|") and title is not None:
            cells = [c.strip() for c in _PIPE.split(line)[1:-1]]
            if not all(re.fullmatch(r":?-{3,}:?", c) for c in cells):
                out[title].append(cells)
    return out


@pytest.fixture
def runs(tmp_path):
    dr = make_run(tmp_path, "dr", mode="deep-research", agent="bm25-title",
                  means={"recall": 0.2092, "us_ted": 29.26, "nsr": 0.76},
                  nulls={"ari_cap": 5, "v_measure_cap": 5, "sem_path": 5})
    bu = make_run(tmp_path, "bu", mode="bottom-up", agent="cluster", run_name="cluster-k8",
                  nulls={"sem_path": 1}, missing=1)
    return load_runs([dr, bu])


def test_load_runs_types_and_names(runs):
    dr, bu = runs
    assert (dr.mode, dr.name, dr.n_samples) == ("deep-research", "bm25-title", 5)  # agent fallback
    assert bu.name == "cluster-k8" and bu.n_missing == 1
    assert dr.metrics["recall"].mean == 0.2092 and dr.metrics["ari_cap"].mean is None
    assert bu.metrics["sem_path"].n == 4 and bu.metrics["sem_path"].n_null == 1
    assert set(dr.metrics) == set(METRIC_KEYS)


def test_terminal_layout_follows_the_papers_tables(runs):
    text = leaderboard(runs)
    titles = [line for line in text.splitlines() if line.startswith("Table ")]
    assert [t.split(" —")[0] for t in titles] == ["Table 2 layout", "Table 3 layout",
                                                  "Table 5 layout", "Table 4 layout",
                                                  "Table 5 layout"]
    assert "Table 2 layout — Retrieval" in titles and "Table 3 layout — Organisation" in titles
    expected = {
        "Table 2": ["Recall↑", "Precision↑", "F1↑"],
        "Table 3": ["ARI↑", "V-Meas.↑", "ARI∩↑", "V-Meas.∩↑",
                    "US-TED↓", "US-NTED↓", "Sem-Path↑"],
        "Table 4": ["ARI↑", "Hom.↑", "Comp.↑", "V-Meas.↑",
                    "US-TED↓", "US-NTED↓", "Sem-Path↑"],
    }
    for prefix, labels in expected.items():
        header = _block(text, prefix)[0].split()
        assert header == ["System", "Samples"] + labels
    # ours first, with the sample count; then the paper's rows, each marked
    table2 = _block(text, "Table 2")
    assert table2[2].split() == ["bm25-title", "n=5", "20.92%", "50.00%", "50.00%"]
    assert table2[3].startswith("··") and "published" in table2[3]
    assert table2[4].split()[:3] == ["o3", "(published)", "n=72"]
    assert "20.92%" in table2[4] and "29.29%" in table2[4]
    table4 = _block(text, "Table 4")
    assert table4[2].split()[0] == "cluster-k8"
    published = [line for line in table4 if "(published)" in line]
    assert len(published) == 12
    assert any("Non-thinking-based" in line for line in table4)
    assert any("Thinking-based" in line and "Non" not in line for line in table4)
    # aligned columns: header, rule and every row (not the separator labels) equally long
    for _, lines in _blocks(text):
        widths = {len(line) for line in lines if not line.startswith(("··", "  note"))}
        assert len(widths) == 1, lines
    assert text.rstrip().endswith(
        "Published rows: TaxoBench paper (Zhang et al. 2026), measured on all 72 surveys with "
        "the agents' real outputs; ours on 5 instance(s) of each run's own data (its "
        "scores.jsonl lists them).")     # issue 35: "the 5 instances listed" listed none


def test_null_means_show_as_a_dash_and_are_explained(runs):
    text = leaderboard(runs)
    table3 = _block(text, "Table 3")
    ours = table3[2].split()
    assert ours == ["bm25-title", "n=5", "50.00%", "50.00%", "—", "—", "29.26", "50.00%", "—"]
    assert ("note — bm25-title: ari_cap, v_measure_cap, sem_path undefined for 5 of 5 samples "
            "(excluded from the mean)") in table3[-1]
    table4 = _block(text, "Table 4")
    assert table4[-1].strip() == (
        "note — cluster-k8: sem_path undefined for 1 of 5 samples (excluded from the mean); "
        "1 missing prediction (scored as an empty taxonomy)")
    # the missing prediction concerns every table; the null sem_path only Table 4
    table5 = [lines for title, lines in _blocks(text) if title.startswith("Table 5")][1]
    assert table5[-1].strip() == \
        "note — cluster-k8: 1 missing prediction (scored as an empty taxonomy)"
    assert "note" not in " ".join(_block(text, "Table 2"))


def test_malformed_predictions_are_noted(tmp_path):
    d = make_run(tmp_path, "r", malformed=2, missing=0)
    text = leaderboard(load_runs([d]))
    assert "cluster: 2 malformed predictions (scored as empty taxonomies)" in text


def test_markdown_tables_are_valid_github_tables(runs):
    text = leaderboard(runs, fmt="markdown")
    lines = text.splitlines()
    table_lines: list[list[str]] = []
    for i, line in enumerate(lines):
        if line.startswith("|"):
            if not lines[i - 1].startswith("|"):
                assert lines[i - 1] == ""                     # a table starts after a blank line
                table_lines.append([])
            table_lines[-1].append(line)
    assert len(table_lines) == 5
    for table in table_lines:
        counts = {len(_PIPE.findall(line)) for line in table}
        assert len(counts) == 1, table                        # same number of | in every row
        assert all(line.startswith("| ") and line.endswith(" |") for line in table)
        assert re.fullmatch(r"\| --- (\| ---: )+\|", table[1])
    tables = _md_tables(text)
    assert tables["Table 2 layout — Retrieval"][0] == ["System", "Samples", "Recall↑",
                                                       "Precision↑", "F1↑"]
    row = tables["Table 3 layout — Organisation"][1]
    assert row[0] == "bm25-title" and row[4:6] == ["—", "—"]
    t4 = tables["Table 4 layout — Organisation"]
    assert t4[1][0] == "cluster-k8"
    assert t4[2][0].startswith("*") and "published" in t4[2][0]     # separator row, marked
    assert ["Gemini-3-Pro\\* (published)", "n=72", "29.86%", "68.25%", "67.15%", "67.00%",
            "32.32", "76.35%", "28.13%"] in t4                       # "*" escaped, not emphasis
    assert "- Note — cluster-k8: sem\\_path undefined for 1 of 5 samples" in text
    assert "## TaxoBench — Deep Research mode" in text
    assert "## TaxoBench — Bottom-Up mode" in text


def test_percent_formatting():
    assert format_value("recall", 0.2092) == "20.92%"
    assert format_value("us_nted", 0.7403) == "74.03%"     # a fraction, shown as the paper does
    assert format_value("ari", -0.0007) == "-0.07%"
    assert format_value("ari", -1e-7) == "0.00%"           # no "-0.00%"
    assert format_value("us_ted", 29.26) == "29.26"        # absolute distance
    assert format_value("nsr", 0.76) == "0.76"
    assert format_value("soft_f1", 1.0) == "1.00"
    assert format_value("sem_path", None) == "—"


def test_published_rows_can_be_left_out(runs):
    text = leaderboard(runs, published=False)
    assert "(published)" not in text and "Published rows" not in text
    assert "Zhang" not in leaderboard(runs, fmt="markdown", published=False)


def test_only_the_modes_present_are_shown(tmp_path):
    text = leaderboard(load_runs([make_run(tmp_path, "bu")]))
    assert "Table 4 layout" in text and "Table 5 layout" in text
    assert "Table 2 layout" not in text and "Table 3 layout" not in text
    assert "o3 (published)" not in text                          # Table 5: Bottom-Up rows only
    assert "Kimi-K2-Thinking (published)" in text


def test_footnote_with_different_sample_counts(tmp_path):
    runs = load_runs([make_run(tmp_path, "a", n=5), make_run(tmp_path, "b", n=3, agent="x")])
    assert "ours on 3/5 instances (n per row) of each run's own data" in leaderboard(runs)


def test_unknown_format_is_refused(runs):
    with pytest.raises(ValueError):
        leaderboard(runs, fmt="html")


def test_csv_has_one_row_per_run_with_means_and_counts(runs):
    rows = list(csv.DictReader(io.StringIO(to_csv(runs))))
    assert [r["system"] for r in rows] == ["bm25-title", "cluster-k8"]
    for key in METRIC_KEYS:
        assert {key, f"{key}_n", f"{key}_n_null"} <= set(rows[0])
    assert float(rows[0]["recall"]) == 0.2092 and rows[0]["recall_n"] == "5"
    assert rows[0]["ari_cap"] == "" and rows[0]["ari_cap_n_null"] == "5"
    assert rows[1]["n_missing"] == "1" and rows[1]["mode"] == "bottom-up"


# --------------------------------------------------------------------------------------- errors

def _summary(d: Path) -> dict:
    return json.loads((d / "summary.json").read_text())


@pytest.mark.parametrize("breakage, fname, fragment", [
    (lambda d: (d / "summary.json").write_text('{"benchmark": "taxobench", "mode": '),
     "summary.json", "not valid JSON"),
    (lambda d: (d / "summary.json").unlink(), "summary.json", "not a finished run directory"),
    (lambda d: (d / "manifest.json").unlink(), "manifest.json", "not a finished run directory"),
    (lambda d: (d / "summary.json").write_text("[1, 2]"), "summary.json", "JSON object"),
    (lambda d: (d / "summary.json").write_text(json.dumps(
        {**_summary(d), "metrics": {k: v for k, v in _summary(d)["metrics"].items()
                                    if k != "recall"}})),
     "summary.json", "field 'metrics.recall'"),
    (lambda d: (d / "summary.json").write_text(json.dumps(
        {**_summary(d), "metrics": {**_summary(d)["metrics"],
                                    "f1": {"mean": "high", "n": 5, "n_null": 0}}})),
     "summary.json", "field 'metrics.f1.mean'"),
    (lambda d: (d / "summary.json").write_text(json.dumps({**_summary(d), "n_samples": 7})),
     "summary.json", "differs from n_samples"),
    (lambda d: (d / "summary.json").write_text(json.dumps({**_summary(d), "mode": "files"})),
     "summary.json", "field 'mode'"),
    (lambda d: (d / "summary.json").write_text(json.dumps({**_summary(d),
                                                           "benchmark": "reportbench"})),
     "summary.json", "field 'benchmark'"),
])
def test_bad_run_directories_name_the_file(tmp_path, breakage, fname, fragment):
    good = make_run(tmp_path, "good")
    bad = make_run(tmp_path, "bad")
    breakage(bad)
    with pytest.raises(DataError) as err:
        load_runs([good, bad])
    message = str(err.value)
    assert str(bad / fname) in message and fragment in message


def test_cli_report_prints_the_leaderboard_and_errors_cleanly(tmp_path, capsys):
    good = make_run(tmp_path, "good")
    assert main(["report", str(good), "--format", "markdown"]) == 0
    assert "### Table 4 layout — Organisation" in capsys.readouterr().out
    (good / "summary.json").write_text("{")
    assert main(["report", str(good)]) == 2
    assert str(good / "summary.json") in capsys.readouterr().err


def test_a_real_run_directory_loads_and_renders(tmp_path):
    """A run directory in the runner's own formats (scored rows, aggregate, manifest)."""
    records = demo_records()
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(r) + "\n" for r in records))
    pred = tmp_path / "pred.jsonl"
    keep = records[:-1]      # the last instance gets no prediction
    pred.write_text("".join(json.dumps({"id": r["id"], "hierarchy_tree": {
        "name": r["survey"],
        "subtopics": [{"name": "All", "papers": [p["title"] for p in r["pdfs"]]}]}}) + "\n"
        for r in keep))
    scores = tmp_path / "scores.jsonl"
    score_files(gold, pred, scores, FakeEmbedder(), on_problem=lambda msg: None)
    rows = [json.loads(line) for line in scores.read_text().splitlines()]
    out = tmp_path / "run"
    out.mkdir()
    manifest = new_manifest(benchmark="taxobench", mode="bottom-up", agent="replay",
                            run_name="flat")
    write_manifest(out, manifest)
    (out / "summary.json").write_text(json.dumps(aggregate(rows, manifest)))
    [loaded] = load_runs([out])
    assert loaded.name == "flat" and loaded.n_samples == len(records) and loaded.n_missing == 1
    text = leaderboard([loaded])
    assert _block(text, "Table 4")[2].split()[:2] == ["flat", f"n={len(records)}"]
    assert "flat: " in text and "1 missing prediction" in text


# ------------------------------------------------------------------------------ LLM-as-judge

def test_no_judge_table_when_no_run_was_judged(runs):
    for fmt in ("terminal", "markdown", "latex"):
        text = leaderboard(runs, fmt=fmt)
        assert "Table 7" not in text and "LLM-as-Judge" not in text
    assert not any(run.judged for run in runs) and all(r.judge is None for r in runs)
    assert all(m.n_unscored == 0 for r in runs for m in r.metrics.values())


def test_judge_table_for_the_judged_mode_with_unjudged_runs_dashed(tmp_path):
    judged = make_run(tmp_path, "judged", agent="llm-taxonomy", missing=1, malformed=1,
                      judge={"unscored": 1, "means": {"judge_coverage": 2.0, "judge_avg": 2.25}})
    plain = make_run(tmp_path, "plain", agent="cluster")
    dr = make_run(tmp_path, "dr", mode="deep-research", agent="bm25-title")
    runs = load_runs([judged, plain, dr])
    j = runs[0]
    assert j.judged and j.judge.model == "gpt-4o-mini" and j.judge.prompt == "taxobench_judge_v1"
    assert j.metrics["judge_avg"].n_unscored == 1 and j.metrics["judge_avg"].n_null == 3
    text = leaderboard(runs)
    titles = [line for line in text.splitlines() if line.startswith("Table ")]
    assert titles.count("Table 7 layout — LLM-as-Judge") == 1     # Bottom-Up only: DR unjudged
    table7 = _block(text, "Table 7")
    assert table7[0].split() == ["System", "Samples", "Cov.↑", "Org.↑", "Log.↑", "Topo.↑",
                                 "Avg.↑"]
    assert table7[2].split() == ["llm-taxonomy", "n=5", "2.00", "3.00", "3.00", "3.00", "2.25"]
    assert table7[3].split() == ["cluster", "n=5", "—", "—", "—", "—", "—"]
    assert table7[5].split()[:3] == ["Claude-4.5-Sonnet", "(published)", "n=72"]
    assert table7[5].split()[3:] == ["2.17", "2.74", "2.90", "2.32", "2.53"]
    assert len([line for line in table7 if "(published)" in line]) == 12
    notes = [line.strip() for line in table7 if line.startswith("  note")]
    assert notes[0] == (
        "note — llm-taxonomy: judge gpt-4o-mini, prompt taxobench_judge_v1; 1 of 5 samples "
        "unscored (the judge's reply was unusable after a repair turn; excluded from the "
        "means); 2 of 5 samples without a prediction to judge (missing or malformed; not sent "
        "to the judge, excluded from the means)")
    assert notes[1].startswith("note — cluster: not judged (re-score the run with "
                               "`scholarbench score RUN_DIR --with-judge`")
    assert notes[2] == ("note — Published rows were judged by GPT-4o (TaxoBench §3.4, appendix "
                        "B); ours by gpt-4o-mini, so the scores are not directly comparable.")
    # the other tables' notes are unchanged: missing predictions scored as empty taxonomies
    assert "1 missing prediction (scored as an empty taxonomy)" in "\n".join(_block(text,
                                                                                    "Table 4"))
    assert "judge" not in "\n".join(_block(text, "Table 4"))
    # without published rows: no comparison note, the run notes stay
    bare = _block(leaderboard(runs, published=False), "Table 7")
    assert not any("GPT-4o" in line for line in bare) and any("not judged" in x for x in bare)


def test_judge_table_in_markdown_and_latex(tmp_path):
    runs = load_runs([make_run(tmp_path, "j", mode="deep-research", agent="llm-taxonomy",
                               judge={"unscored": 2})])
    md = _md_tables(leaderboard(runs, fmt="markdown"))
    table = md["Table 7 layout — LLM-as-Judge"]
    assert table[0] == ["System", "Samples", "Cov.↑", "Org.↑", "Log.↑", "Topo.↑", "Avg.↑"]
    assert table[1] == ["llm-taxonomy", "n=5", "3.00", "3.00", "3.00", "3.00", "3.00"]
    assert ["o3 (published)", "n=72", "2.14", "2.71", "3.06", "2.28", "2.55"] in table
    assert len(table) == 1 + 1 + 1 + 7          # header, ours, separator, the paper's 7 agents
    latex = leaderboard(runs, fmt="latex")
    assert r"\caption{TaxoBench --- Deep Research mode: Table 7 layout --- LLM-as-Judge}" in latex
    assert r"Cov.\ensuremath{\uparrow}" in latex
    assert r"\textit{Doubao (published)} & \textit{n=72} & \textit{1.90}" in latex
    assert r"2 of 5 samples unscored" in latex and r"taxobench\_judge\_v1" in latex


def test_a_gpt_4o_judge_and_two_different_judges(tmp_path):
    same = load_runs([make_run(tmp_path, "a", judge={"model": "gpt-4o-2024-08-06"})])
    assert "Published rows were judged by GPT-4o (TaxoBench §3.4), as ours" in leaderboard(same)
    assert "not directly comparable" not in leaderboard(same)
    two = load_runs([make_run(tmp_path, "b", agent="x", judge={"model": "gpt-4o"}),
                     make_run(tmp_path, "c", agent="y", judge={"model": "qwen2.5-7b"})])
    text = leaderboard(two)
    assert ("Our runs were judged by different judges (gpt-4o, prompt taxobench_judge_v1; "
            "qwen2.5-7b, prompt taxobench_judge_v1): their judge scores are not directly "
            "comparable with each other.") in text
    assert "ours by qwen2.5-7b, so the scores are not directly comparable" in text


def test_judge_info_falls_back_to_the_manifest(tmp_path):
    d = make_run(tmp_path, "r", judge={"model": "judge-x"})
    summary = json.loads((d / "summary.json").read_text())
    del summary["judge"]
    (d / "summary.json").write_text(json.dumps(summary))
    manifest = json.loads((d / "manifest.json").read_text())
    manifest["judge"] = {"prompt": "taxobench_judge_v1"}
    (d / "manifest.json").write_text(json.dumps(manifest))
    [run] = load_runs([d])
    assert (run.judge.model, run.judge.model_id, run.judge.prompt) == (
        "judge-x", "https://api.example/v1|judge-x", "taxobench_judge_v1")
    manifest.pop("models")
    manifest.pop("judge")
    (d / "manifest.json").write_text(json.dumps(manifest))
    [run] = load_runs([d])
    assert run.judge.label == "an unrecorded model, prompt not recorded"
    assert "judge an unrecorded model, prompt not recorded" in leaderboard([run])


def test_csv_has_the_judge_columns(tmp_path):
    runs = load_runs([make_run(tmp_path, "j", agent="llm", missing=1, judge={"unscored": 1}),
                      make_run(tmp_path, "p", agent="cluster")])
    rows = list(csv.DictReader(io.StringIO(to_csv(runs))))
    for key in JUDGE_KEYS:
        assert {key, f"{key}_n", f"{key}_n_null", f"{key}_n_unscored"} <= set(rows[0])
    judged, plain = rows
    assert (judged["judge_avg"], judged["judge_avg_n"], judged["judge_avg_n_null"],
            judged["judge_avg_n_unscored"]) == ("3.0", "3", "2", "1")
    assert (judged["judge_model"], judged["judge_prompt"]) == ("gpt-4o-mini",
                                                                "taxobench_judge_v1")
    assert all(plain[c] == "" for c in plain if c.startswith("judge"))   # not judged: empty


@pytest.mark.parametrize("breakage, fragment", [
    (lambda m: m.pop("judge_logic"), "field 'metrics.judge_logic'"),
    (lambda m: m["judge_avg"].update(n_unscored=4), "n_unscored (4) exceeds n_null (1)"),
    (lambda m: m["judge_avg"].update(n_unscored=-1), "field 'metrics.judge_avg.n_unscored'"),
])
def test_bad_judge_entries_name_the_field(tmp_path, breakage, fragment):
    d = make_run(tmp_path, "bad", judge={"unscored": 1})
    summary = _summary(d)
    breakage(summary["metrics"])
    (d / "summary.json").write_text(json.dumps(summary))
    with pytest.raises(DataError) as err:
        load_runs([d])
    assert str(d / "summary.json") in str(err.value) and fragment in str(err.value)
