"""The basis a scoring records (`core.finished`): what it digests and when a run is kept."""
from __future__ import annotations

import json

from scholarbench.core.finished import BASIS_KEY, judge_basis, kept_summary, scoring_basis
from scholarbench.core.models import Models
from scholarbench.core.rundir import RunDir


def _run(tmp_path, summary=None):
    run = RunDir(tmp_path / "run")
    run.path.mkdir(parents=True)
    run.file("generate.jsonl").write_text('{"id": "a", "answer": {"papers": []}}\n')
    run.file("scores.jsonl").write_text('{"id": "a", "status": "scored"}\n')
    run.file("summary.json").write_text(json.dumps(summary or {
        "complete": True, "status": {"scored": 1}}))
    return run


MANIFEST = {"benchmark": "toy", "mode": "rank", "agent": "x", "options": {"k": 1},
            "versions": {"scholarbench": "1"}, "command": ["run"], "usage": {}}


def test_the_basis_follows_what_scores_read_and_nothing_else(tmp_path):
    run = _run(tmp_path)
    base = scoring_basis(run, MANIFEST, "generate.jsonl", "none", 3)
    assert base == scoring_basis(run, {**MANIFEST, "command": ["eval"], "usage": {"x": 1}},
                                 "generate.jsonl", "none", 3)       # not read by scoring
    for changed in ({"options": {"k": 2}}, {"versions": {"scholarbench": "2"}},
                    {"data": {"sha256": "x"}}, {"corpus": {"papers_sha256": "y"}}):
        assert scoring_basis(run, {**MANIFEST, **changed}, "generate.jsonl", "none", 3) != base
    assert scoring_basis(run, MANIFEST, "generate.jsonl", "none", 4) != base
    assert scoring_basis(run, MANIFEST, "generate.jsonl", {"judges": [{"model": "m"}]},
                         3) != base
    assert scoring_basis(run, MANIFEST, "generate.jsonl", None, 3) is None     # unknown
    run.file("generate.jsonl").write_text('{"id": "a", "answer": {"papers": ["p"]}}\n')
    assert scoring_basis(run, MANIFEST, "generate.jsonl", "none", 3) != base


def test_the_judges_are_read_from_the_flags_without_binding_a_model(monkeypatch):
    monkeypatch.delenv("SCHOLARBENCH_JUDGE_MODEL", raising=False)
    bound = []
    models = Models(lambda **kw: bound.append(kw))
    assert judge_basis(models, False) == "none"
    assert judge_basis(models, True) is None                     # no recipe: unknown
    models.recipe = {"judge_flags": {"model": "judge-a", "base_url": "http://h/v1"}}
    a = judge_basis(models, True)
    models.recipe = {"judge_flags": {"model": "judge-b", "base_url": "http://h/v1"}}
    assert judge_basis(models, True) != a
    models.judge_samples = 2
    models.recipe = {"judge_flags": {"model": "judge-a", "base_url": "http://h/v1"}}
    assert judge_basis(models, True) != a and bound == []


def test_only_a_complete_run_without_errors_or_failed_judge_calls_is_kept(tmp_path):
    run = _run(tmp_path)
    basis = scoring_basis(run, MANIFEST, "generate.jsonl", "none", 3)
    earlier = {**MANIFEST, BASIS_KEY: basis}
    assert kept_summary(run, earlier, basis) == {"complete": True, "status": {"scored": 1}}
    assert kept_summary(run, earlier, "other") is None
    assert kept_summary(run, {**MANIFEST}, basis) is None                 # older run
    assert kept_summary(run, {**earlier, "judge_failures": [{"failed": 2}]}, basis) is None
    for summary in ({"complete": False, "status": {"scored": 1}},
                    {"complete": True, "status": {"scored": 1, "error": 1}}):
        assert kept_summary(_run(tmp_path / str(len(str(summary))), summary), earlier,
                            basis) is None
