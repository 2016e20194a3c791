"""`scholarbench build --benchmarks reportbench`: the existing ReportBench constructions
(`survey_gt` ground truth, `construct` prompts) reached through the build command, on the shared
deep-review survey with the scripted loopback endpoint; the output passes `data import`."""
from __future__ import annotations

import json

from conftest import shared_path
from fake_openai import FakeOpenAI, Step
from scholarbench.cli import main
from scholarbench.data.store import import_dataset


def _reportbench_reply(body: dict) -> Step:
    text = body["messages"][0]["content"]
    assert "Write a sentence-level prompt" in text          # the --granularity default
    return Step(text="Please help me research deep learning in biology and medicine, and "
                     "ensure only papers published before December 2021 are referenced.")


def test_reportbench_tasks_and_ground_truth_pass_data_import(tmp_path, capsys):
    from scholarbench.benchmarks.reportbench.ground_truth import read_gt_file
    from scholarbench.benchmarks.reportbench.tasks import load_tasks as load_rb
    fake = FakeOpenAI(default=_reportbench_reply).start()
    try:
        rc = main(["build", str(shared_path("data", "survey_source_deep_review")),
                   "--benchmarks", "reportbench", "--out", str(tmp_path / "o"), "--no-corpus",
                   "--arxiv-id", "2112.00001", "--survey-date", "2021-12-28",
                   "--judge", "judge-x", "--judge-base-url", fake.base_url, "--no-llm-cache"])
    finally:
        fake.stop()
    assert rc == 0, capsys.readouterr().err
    folder = tmp_path / "o" / "reportbench"
    entry = import_dataset("reportbench", folder, tmp_path / "data")
    assert entry["files"]["tasks"]["surveys"] == 1
    (task,) = load_rb(folder)
    assert task.cutoff.isoformat() == "2021-12-01" and task.updated.isoformat() == "2021-12-28"
    gt = read_gt_file(folder / "ReportBench_v1.1_GT" / "2112.00001.jsonl")
    # 615 distinct works less the 19 without any title (web pages whose URL Manubot rewrote):
    # upstream's GT files never hold an untitled line
    assert len(gt) == 596
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert manifest["prompts"]["reportbench.prompt"].startswith("construct_sentence_v1@")
    assert manifest["usage"]["reportbench.prompt"]["calls"] == 1


def test_reportbench_needs_a_survey_date_per_source(tmp_path, capsys):
    # issue 35: the arXiv id is no longer required (a survey may not be on arXiv); the date is
    rc = main(["build", str(shared_path("data", "survey_source_deep_review")),
               "--benchmarks", "reportbench", "--out", str(tmp_path / "o"), "--no-corpus"])
    assert rc == 2 and "one --survey-date per SOURCE" in capsys.readouterr().err
    rc = main(["build", str(shared_path("data", "survey_source_deep_review")),
               "--benchmarks", "reportbench", "--out", str(tmp_path / "o"), "--no-corpus",
               "--arxiv-id", "not-an-id", "--survey-date", "2021-12-28"])
    assert rc == 2 and "--arxiv-id 'not-an-id': not an arXiv id" in capsys.readouterr().err


def test_reportbench_builds_a_survey_not_on_arxiv(tmp_path, capsys):
    """No --arxiv-id (or `--arxiv-id none`): the task and its GT are keyed local-<slug>, and
    the folder passes `data import` and loads."""
    from scholarbench.benchmarks.reportbench.ground_truth import load_ground_truth
    from scholarbench.benchmarks.reportbench.tasks import load_tasks as load_rb
    fake = FakeOpenAI(default=_reportbench_reply).start()
    try:
        for out, extra in (("a", []), ("b", ["--arxiv-id", "none"])):
            rc = main(["build", str(shared_path("data", "survey_source_deep_review")),
                       "--benchmarks", "reportbench", "--out", str(tmp_path / out),
                       "--no-corpus", "--survey-date", "2021-12-28", *extra,
                       "--judge", "judge-x", "--judge-base-url", fake.base_url,
                       "--no-llm-cache"])
            assert rc == 0, capsys.readouterr().err
    finally:
        fake.stop()
    key = "local-opportunities-and-obstacles-for-deep-learning-in-biology-and"   # 60 chars
    for out in ("a", "b"):
        folder = tmp_path / out / "reportbench"
        (task,) = load_rb(folder)
        assert task.arxiv_id == key and task.cutoff.isoformat() == "2021-12-01"
        assert len(load_ground_truth(folder / "ReportBench_v1.1_GT")[key]) == 596
    entry = import_dataset("reportbench", tmp_path / "a" / "reportbench", tmp_path / "data")
    assert entry["files"]["tasks"]["surveys"] == 1


def test_a_rebuild_never_replays_an_unusable_reply_or_another_endpoints(tmp_path, monkeypatch,
                                                                         capsys):
    """The reply cache serves a build only replies it could use, asked of the same endpoint
    and model (issue 35): a prompt whose cut-off stays wrong after the repair is asked again
    by the next build; a usable one is replayed; another model or endpoint is asked afresh."""
    from scholarbench.llm.client import ChatClient
    from scholarbench.llm.config import ModelConfig
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))
    bad = FakeOpenAI(default=lambda body: Step(text="Please survey deep learning.")).start()
    good = FakeOpenAI(default=_reportbench_reply).start()

    def build(out, fake, model="judge-x"):
        before = len(fake.requests)
        rc = main(["build", str(shared_path("data", "survey_source_deep_review")),
                   "--benchmarks", "reportbench", "--out", str(tmp_path / out), "--no-corpus",
                   "--arxiv-id", "2112.00001", "--survey-date", "2021-12-28",
                   "--judge", model, "--judge-base-url", fake.base_url])
        assert rc == 0, capsys.readouterr().err
        return len(fake.requests) - before
    try:
        assert build("o1", bad) == 2             # the reply and its repair: both unusable
        assert build("o2", bad) == 2             # asked again, not replayed
        assert build("o3", good) == 1            # another endpoint: asked
        assert build("o4", good) == 0            # a usable reply: replayed
        assert build("o5", good, "judge-y") == 1  # another model: asked
    finally:
        bad.stop()
        good.stop()
    # no base URL given: the SDK calls OPENAI_BASE_URL, which the cache key then names
    config = ModelConfig("judge", model="m")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert ChatClient(config).model_id == "openai|m"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert ChatClient(config).model_id == "http://127.0.0.1:9/v1|m"


def test_a_local_key_is_a_plain_slug_only():
    """A task's local key names a GT file: only `local-` and lower-case words joined by '-'."""
    from scholarbench.benchmarks.reportbench.tasks import is_survey_key
    assert is_survey_key("local-deep-learning") and is_survey_key("2112.00001")
    for bad in ("local-", "local-../../etc/passwd", "local-A", "local--x", "local-x-",
                "local-x/y", "local-x.jsonl"):
        assert not is_survey_key(bad), bad
