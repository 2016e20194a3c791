import json

import pytest

from scholarbench.data.store import import_dataset, list_datasets, taxobench_gold_file
from scholarbench.data.taxobench import load_instances, load_predictions
from scholarbench.errors import DataError, ScholarbenchError

from conftest import shared_path


def _write(tmp_path, lines, name="gold.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(l if isinstance(l, str) else json.dumps(l) for l in lines) + "\n")
    return path


GOOD = {"id": 7, "survey": "S", "pdfs": [{"title": "T", "abs": "A"}],
        "gt": {"name": "S", "subtopics": [{"name": "C", "papers": ["T"]}]}}


@pytest.mark.parametrize("bad, line, field", [
    (["{oops"], 1, None),
    ([GOOD, {**GOOD, "id": None}], 2, "id"),
    ([{**GOOD, "gt": {"name": "S", "subtopics": [{"name": 3}]}}], 1, "gt.subtopics[0].name"),
    ([{**GOOD, "gt": {"name": "S", "subtopics": [{"name": "C", "papers": "T"}]}}], 1, "gt.subtopics[0].papers"),
    ([{**GOOD, "gt": {"name": "S"}}], 1, "gt"),                                # empty tree
    ([{k: v for k, v in GOOD.items() if k != "gt"}], 1, "gt"),
    ([{**GOOD, "pdfs": [{"abs": "x"}]}], 1, "pdfs[0].title"),
    ([{**GOOD, "survey": 5}], 1, "survey_topic"),
    ([GOOD, GOOD], 2, "id"),                                                  # duplicate id
])
def test_malformed_gold_files_name_file_line_and_field(tmp_path, bad, line, field):
    path = _write(tmp_path, bad)
    with pytest.raises(DataError) as info:
        load_instances(path)
    assert info.value.file == str(path) and info.value.line == line and info.value.field == field
    assert str(path) in str(info.value) and f"line {line}" in str(info.value)


def test_ids_may_be_ints_or_strings_on_either_side(tmp_path):
    gold = _write(tmp_path, [GOOD])
    pred = _write(tmp_path, [{"id": "7", "hierarchy_tree": GOOD["gt"]}], "pred.jsonl")
    assert load_instances(gold)[0].id == "7"
    assert "7" in load_predictions(pred).by_id


def test_prediction_file_problems_are_reported_with_line_not_raised(tmp_path):
    pred = _write(tmp_path, [{"id": 1, "hierarchy_tree": GOOD["gt"]}, "[1, 2]", "{bad",
                             {"hierarchy_tree": {}}, {"id": 1, "hierarchy_tree": GOOD["gt"]}],
                  "pred.jsonl")
    loaded = load_predictions(pred)
    assert list(loaded.by_id) == ["1"]
    assert [p.split(", ")[1].split(":")[0] for p in loaded.problems] == [
        "line 2", "line 3", "line 4", "line 5"]


def test_paper_under_several_categories_and_duplicate_labels_load(tmp_path):
    rec = {**GOOD, "gt": {"name": "S", "subtopics": [{"name": "C", "papers": ["T"]},
                                                    {"name": "C", "papers": ["T", "U"]}]}}
    task = load_instances(_write(tmp_path, [rec]))[0]
    assert task.gold.all_papers() == ["T", "T", "U"]


def test_import_and_list_real_taxobench(tmp_path):
    src = shared_path("data", "taxobench")
    entry = import_dataset("taxobench", src, tmp_path)       # the folder: instance files only
    assert {k: v["instances"] for k, v in entry["files"].items()} == {
        "taxobench_5_instances.jsonl": 5, "toy_reference.jsonl": 1}
    with pytest.raises(ScholarbenchError, match="several"):
        taxobench_gold_file(tmp_path)
    tasks = load_instances(taxobench_gold_file(tmp_path, "taxobench_5_instances"))
    assert [t.id for t in tasks] == ["1", "2", "28", "34", "64"]
    assert [len(set(t.gold.all_papers())) for t in tasks] == [38, 38, 43, 50, 57]
    assert any("instances=5" in line for line in list_datasets(tmp_path))


def test_gold_file_lookup_without_data_says_what_to_do(tmp_path):
    with pytest.raises(ScholarbenchError, match="data import taxobench"):
        taxobench_gold_file(tmp_path)
