"""DeepSynth-Eval task loading: the four shared upstream tasks (spot checks), the unified prompt,
and malformed checklists (DataError naming file, line and field)."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from conftest import shared_path
from scholarbench.benchmarks.deepsynth import (CONSTRAINT_SEPARATOR, constraint_questions,
                                               load_tasks, parse_task, task_to_json,
                                               unified_prompt)
from scholarbench.errors import DataError


@pytest.fixture(scope="module")
def shared_tasks():
    return load_tasks(shared_path("data", "deepsynth", "example_gen_result.jsonl"))


def test_shared_tasks_counts(shared_tasks):
    # PROVENANCE.md: 4 lines, task_id 0, 1, 2, 4; 806 requirements in all
    assert [t.task_id for t in shared_tasks] == [0, 1, 2, 4]
    assert [t.survey_id for t in shared_tasks] == ["2209.06428", "2209.15179", "2210.09292",
                                                   "2301.05712"]
    shape = [(len(t.checklist), len(t.constraint_groups),
              sum(len(g.sub_groups) for g in t.checklist), t.n_requirements)
             for t in shared_tasks]
    assert shape == [(12, 5, 98, 276), (7, 2, 28, 83), (13, 3, 60, 213), (17, 3, 77, 234)]
    assert sum(t.n_requirements for t in shared_tasks) == 806
    groups = [g for t in shared_tasks for g in t.checklist]
    assert {g.clip_factor for g in groups if g.strict} == {0.8}
    assert {g.clip_factor for g in groups if not g.strict} == {1.0}
    assert {g.weight for g in groups} == {1.0}
    assert {r.reward for g in groups for s in g.sub_groups for r in s.requirements} == {1.0}
    # no eval_result in the generation file; every strict group carries its question
    assert all(s.eval_result is None for g in groups for s in g.sub_groups)
    assert all(g.detailed_prompt for g in groups if g.strict)


def test_shared_tasks_spot_items(shared_tasks):
    first = shared_tasks[0].checklist[0]
    assert first.name == "Semantic Information Extraction Methods" and not first.strict
    assert first.sub_groups[0].name == "Object Detection Methods Coverage"
    assert first.sub_groups[0].requirements[0].content.startswith(
        "The article should distinguish between one-stage and two-stage object detection")
    last = shared_tasks[-1].checklist[-1]
    assert last.name == "Video Self-Supervised Learning Methods by Information Type"
    assert last.strict and last.n_requirements == 23
    assert shared_tasks[1].survey_result.startswith("Chapter\u202f1\u202f–\u202fIntroduction")


def test_unified_prompt_order_and_separator(shared_tasks):
    task = shared_tasks[1]  # 5 general groups, then 2 strict groups
    questions = constraint_questions(task)
    assert len(questions) == 2
    assert questions[0].startswith("Survey the different types of adversarial attacks based on")
    assert questions[1].startswith("Survey the fundamental distinction between digital and")
    prompt = unified_prompt(task)
    assert CONSTRAINT_SEPARATOR == "\n\n"
    assert prompt == "\n\n".join([task.general_prompt, *questions])
    assert prompt.startswith("Please write a comprehensive survey paper on physical adversarial "
                             "attacks in computer vision based on the provided papers.\n\nSurvey")
    assert unified_prompt(task, sep="\n- ").count("\n- ") == 2
    # every task: one piece per strict group, in checklist order
    for t in shared_tasks:
        assert constraint_questions(t) == [g.detailed_prompt.strip() for g in t.checklist
                                           if g.strict]


def test_golden_checklists_are_the_shared_tasks(shared_tasks):
    golden = load_tasks(shared_path("golden-inputs", "deepsynth", "judged_tasks.jsonl"))
    assert [t.task_id for t in golden] == [0, 1]
    for judged in golden:
        plain = next(t for t in shared_tasks if t.task_id == judged.task_id)
        strip = tuple(replace(g, sub_groups=tuple(replace(s, eval_result=None)
                                                  for s in g.sub_groups))
                      for g in judged.checklist)
        assert strip == plain.checklist
        assert all(len(s.eval_result) == len(s.requirements)
                   for g in judged.checklist for s in g.sub_groups)
        assert judged.survey_result.endswith("...[truncated for golden file]")


def test_round_trip_through_upstream_json(shared_tasks):
    for task in shared_tasks:
        again = parse_task(json.loads(json.dumps(task_to_json(task))))
        assert replace(again, source=task.source) == task


def test_optional_fields_take_upstream_defaults():
    task = parse_task({"task_id": 7, "general_prompt": "p", "checklist": [
        {"group_name": "g", "sub_groups": [{"sub_group_name": "s",
                                            "requirements": [{"content": "c"}],
                                            "eval_result": None}]},
        {"group_name": "h", "strict": True, "detailed_prompt": "q", "sub_groups": []}]})
    general, strict = task.checklist
    assert (general.strict, general.clip_factor, general.weight) == (False, 1.0, 1.0)
    assert strict.clip_factor == 0.8  # upstream score.py's default for strict groups
    assert general.sub_groups[0].requirements[0].reward == 1.0
    assert general.sub_groups[0].eval_result is None  # null reads as "not judged"


def _task(**overrides):
    task = {"task_id": 1, "general_prompt": "Write a survey.", "checklist": [
        {"group_name": "g", "strict": False, "clip_factor": 1.0, "weight": 1.0, "sub_groups": [
            {"sub_group_name": "s", "requirements": [{"content": "a", "reward": 1.0},
                                                     {"content": "b", "reward": 1.0}]}]},
        {"group_name": "h", "strict": True, "clip_factor": 0.8, "weight": 1.0,
         "detailed_prompt": "Tabulate.", "sub_groups": []}]}
    for path, value in overrides.items():
        keys = path.split("/")
        node = task
        for key in keys[:-1]:
            node = node[int(key)] if key.isdigit() else node[key]
        if value is _DELETE:
            del node[int(keys[-1]) if keys[-1].isdigit() else keys[-1]]
        else:
            node[int(keys[-1]) if keys[-1].isdigit() else keys[-1]] = value
    return task


_DELETE = object()
G = "checklist/0"
REQ = "checklist/0/sub_groups/0/requirements"

MALFORMED = [
    ({"checklist": _DELETE}, "checklist", "missing"),
    ({"checklist": {"g": 1}}, "checklist", "expected a list, got object"),
    ({"task_id": _DELETE}, "task_id", "missing"),
    ({"task_id": True}, "task_id", "expected a number or a non-empty string"),
    ({"general_prompt": " "}, "general_prompt", "missing or empty"),
    ({"checklist/0": "g"}, "checklist[0]", "expected an object, got string"),
    ({f"{G}/group_name": _DELETE}, "checklist[0].group_name", "missing"),
    ({f"{G}/strict": "yes"}, "checklist[0].strict", "expected true or false"),
    ({f"{G}/clip_factor": 1.5}, "checklist[0].clip_factor", "must be in (0, 1]"),
    ({f"{G}/clip_factor": 0}, "checklist[0].clip_factor", "must be in (0, 1]"),
    ({f"{G}/clip_factor": "0.8"}, "checklist[0].clip_factor", "expected a number, got string"),
    ({f"{G}/clip_factor": True}, "checklist[0].clip_factor", "expected a number, got boolean"),
    ({f"{G}/weight": 0}, "checklist[0].weight", "must be > 0"),
    ({f"{G}/clip_facor": 0.5}, "checklist[0].clip_facor", "unknown field"),
    ({f"{G}/sub_groups": _DELETE}, "checklist[0].sub_groups", "missing"),
    ({f"{G}/sub_groups/0/requirements": _DELETE}, "checklist[0].sub_groups[0].requirements",
     "missing"),
    ({f"{G}/sub_groups/0/eval_result": "mentioned_correct"},
     "checklist[0].sub_groups[0].eval_result", "expected a list, got string"),
    ({f"{REQ}/1": "b"}, "checklist[0].sub_groups[0].requirements[1]", "expected an object"),
    ({f"{REQ}/1/content": ""}, "checklist[0].sub_groups[0].requirements[1].content",
     "empty requirement"),
    ({f"{REQ}/1/content": 3}, "checklist[0].sub_groups[0].requirements[1].content",
     "expected a string, got number"),
    ({f"{REQ}/0/reward": -1}, "checklist[0].sub_groups[0].requirements[0].reward", "must be > 0"),
    ({f"{REQ}/0/weight": 1}, "checklist[0].sub_groups[0].requirements[0].weight",
     "unknown field"),
    ({"checklist/1/detailed_prompt": _DELETE}, "checklist[1].detailed_prompt",
     "needs its constraint question"),
]


@pytest.mark.parametrize("overrides,field,message", MALFORMED)
def test_malformed_checklist_names_file_line_field(tmp_path, overrides, field, message):
    path = tmp_path / "tasks.jsonl"
    good = _task(task_id=0)
    path.write_text(json.dumps(good) + "\n\n" + json.dumps(_task(**overrides)) + "\n")
    with pytest.raises(DataError) as err:
        load_tasks(path)
    assert (err.value.file, err.value.line, err.value.field) == (str(path), 3, field)
    assert message in err.value.reason
    assert f"{path}, line 3, field '{field}'" in str(err.value)


def test_prompts_not_required_to_score(tmp_path):
    path = tmp_path / "judged.jsonl"
    path.write_text(json.dumps(_task(**{"general_prompt": _DELETE,
                                        "checklist/1/detailed_prompt": _DELETE})) + "\n")
    (task,) = load_tasks(path, require_prompts=False)
    with pytest.raises(DataError) as err:
        unified_prompt(task)
    assert (err.value.file, err.value.line, err.value.field) == (
        str(path), 1, "checklist[1].detailed_prompt")


def test_non_finite_number_and_bad_lines(tmp_path):
    path = tmp_path / "t.jsonl"
    line = json.dumps(_task()).replace('"reward": 1.0', '"reward": NaN', 1)
    path.write_text(line + "\n")
    with pytest.raises(DataError) as err:
        load_tasks(path)
    assert err.value.field == "checklist[0].sub_groups[0].requirements[0].reward"
    path.write_text(json.dumps(_task()) + "\n[1, 2]\n")
    with pytest.raises(DataError) as err:
        load_tasks(path)
    assert (err.value.line, err.value.field) == (2, None)
    path.write_text(json.dumps(_task()) + "\n{not json\n")
    with pytest.raises(DataError) as err:
        load_tasks(path)
    assert err.value.line == 2


def test_duplicate_task_id(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(_task()) + "\n" + json.dumps(_task()) + "\n")
    with pytest.raises(DataError) as err:
        load_tasks(path)
    assert (err.value.line, err.value.field) == (2, "task_id")
    assert "first on line 1" in str(err.value)


def test_upstream_score_output_keys_are_accepted():
    obj = _task()
    obj["evaluation_summary"] = {"pass_rate_all": 0.5}
    obj["checklist"][0]["score_stats"] = {"group_pass_rate": 0.5}
    assert parse_task(obj).task_id == 1
