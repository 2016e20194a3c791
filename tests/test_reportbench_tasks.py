"""ReportBench tasks and shipped ground truth: the real files load (counts, spot checks), the
evaluation prompt is upstream's, cut-off dates parse, bad input names file/line/field."""
from __future__ import annotations

import json
from datetime import date

import pytest

from conftest import shared_path
from scholarbench.errors import DataError
from scholarbench.benchmarks.reportbench import (build_eval_prompt, load_ground_truth, load_tasks,
                                                 parse_cutoff, read_gt_file)
from scholarbench.benchmarks.reportbench.tasks import DEFAULT_TEMPLATE
from scholarbench.text.normalize import normalize_title


@pytest.fixture(scope="module")
def rb_dir():
    return shared_path("data", "reportbench")


def test_all_100_tasks_load(rb_dir):
    tasks = load_tasks(rb_dir)
    assert len(tasks) == 100
    assert len({t.arxiv_id for t in tasks}) == 100
    first = tasks[0]
    assert first.arxiv_id == "2312.04861"
    assert first.cutoff == date(2025, 4, 1)
    assert first.application_domain == "Transportation and Intelligent Mobility"
    assert first.published == date(2023, 12, 8)
    # the paper's appendix A.3 sentence-level example, verbatim
    assert first.eval_prompt == (
        "Please help me research the academic advancements in different radar data "
        "representation methods in the field of autonomous driving, and ensure only papers "
        "published before April 2025 are referenced.\n\nYou also need to follow the following "
        "rules:\n- Do not refer to the survey titled \"Exploring Radar Data Representations in "
        "Autonomous Driving: A Comprehensive Review\".\n- Responses are given in the form of an "
        "English language survey with citations where appropriate.")
    # one prompt names no cut-off; every other one does, on the first of a month
    assert [t.arxiv_id for t in tasks if t.cutoff is None] == ["2302.10588"]
    assert all(t.cutoff.day == 1 for t in tasks if t.cutoff)
    assert len({t.application_domain for t in tasks}) == 10


def test_shipped_template_is_the_default(rb_dir):
    assert (rb_dir / "prompt_template_eval.txt").read_text(encoding="utf-8") == DEFAULT_TEMPLATE


def test_template_fill_is_upstreams_plain_replace():
    assert build_eval_prompt("{prompt} / {title}", "P", "T") == "P / T"
    # upstream replaces {prompt} first, then {title} everywhere (even inside the prompt)
    assert build_eval_prompt("{prompt}|{title}", "a {title}", "T") == "a T|T"


@pytest.mark.parametrize("prompt,expected", [
    ("ensure only papers published before April 2025 are referenced.", date(2025, 4, 1)),
    ("the research status prior to August 2023.", date(2023, 8, 1)),
    ("Only refer to and cite papers published **before July 2024**.", date(2024, 7, 1)),
    ("must only refer to papers written before [December 2021], with", date(2021, 12, 1)),
    ("papers published before Sept. 2020", date(2020, 9, 1)),
    ("published before 2021.", date(2021, 1, 1)),
    ("Please help me research STPA in learning-enabled systems.", None),
])
def test_parse_cutoff(prompt, expected):
    assert parse_cutoff(prompt) == expected


def _task_line(**over):
    obj = {"arxiv_id": "2101.00001", "title": "A survey", "prompt": "Before May 2021.",
           "application_domain": "X", "versions": [{"version": "v1",
                                                    "created": "Fri, 8 Dec 2023 06:31:19 GMT"}]}
    obj.update(over)
    return json.dumps({k: v for k, v in obj.items() if v is not ...})


@pytest.mark.parametrize("lines,line,field", [
    ([_task_line(), "{not json"], 2, None),
    ([_task_line(prompt=...)], 1, "prompt"),
    ([_task_line(arxiv_id="12345")], 1, "arxiv_id"),
    ([_task_line(), _task_line()], 2, "arxiv_id"),
    ([_task_line(title=7)], 1, "title"),
    ([_task_line(versions="v1")], 1, "versions"),
])
def test_bad_task_lines_name_file_line_field(tmp_path, lines, line, field):
    path = tmp_path / "ReportBench_v1.1.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_tasks(tmp_path)
    assert err.value.line == line and err.value.field == field
    assert err.value.file == str(path)


def test_real_ground_truth_loads(rb_dir):
    gt = load_ground_truth(rb_dir)
    assert len(gt) == 100
    sizes = {s: len(refs) for s, refs in gt.items()}
    assert sum(sizes.values()) == 16204
    assert min(sizes.values()) == 5 and max(sizes.values()) == 884
    assert sum(len({normalize_title(r.title) for r in refs}) for refs in gt.values()) == 15056
    first = gt["2003.00653"][0]
    assert first.title == "Adversarial attack and defense on graph data: A survey"
    assert first.bib_id == "graph-attack-survey-2018"
    assert first.ids == ("arxiv:1812.10528",)
    assert set(gt) == {t.arxiv_id for t in load_tasks(rb_dir)}


@pytest.mark.parametrize("content,line,field", [
    ('{"title": "ok"}\n{"bib_id": "x"}\n', 2, "title"),
    ('{"title": "  "}\n', 1, "title"),
    ('{"title": "ok", "meta_info": [1]}\n', 1, "meta_info"),
    ('{"title": "ok"}\n[1, 2]\n', 2, None),
])
def test_bad_gt_lines(tmp_path, content, line, field):
    path = tmp_path / "2101.00001.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataError) as err:
        read_gt_file(path)
    assert (err.value.line, err.value.field) == (line, field)


def test_gt_file_must_be_named_by_arxiv_id(tmp_path):
    path = tmp_path / "survey.jsonl"
    path.write_text('{"title": "ok"}\n', encoding="utf-8")
    with pytest.raises(DataError, match="arxiv_id"):
        read_gt_file(path)
