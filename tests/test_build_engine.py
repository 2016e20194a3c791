"""`scholarbench build` through the engine's machinery: each (survey, benchmark) unit is a
record of `DIR/units.jsonl`; a build into the same DIR keeps done units (no model call: the
loopback server counts requests, the reply cache is off) and builds errored or changed ones
again; `--concurrency 2` writes the same bytes as one unit at a time; a locked DIR is refused
in one line. Sources: the LaTeX test survey and the small Markdown survey of
test_build_researcharena_scinet; the scripted endpoint answers DeepSynth's stages."""
from __future__ import annotations

import json
import threading
import re
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, Step
from scholarbench.cli import main

LATEX = Path(__file__).parent / "data" / "reportbench" / "latex_survey"
SMALL = """---
title: "Attention and adversarial examples: a small survey"
---

# Introduction

Attention for translation [@arxiv:1409.0473] and for captions [@arxiv:1502.03044].

# Robustness

Adversarial examples [@arxiv:1312.6199]; visualising recurrent networks [@arxiv:1506.02078].
Generative models [@arxiv:1511.06434] and TensorFlow [@arxiv:1603.04467].
An unknown work [@doi:10.9999/not-a-paper-anywhere].
"""
SMALL_TITLE = "Attention and adversarial examples"
FILES = ("taxobench/taxobench.jsonl", "deepsynth/tasks.jsonl",
         "deepsynth/oracle/references.jsonl", "deepsynth/anchors/trace.jsonl", "review.md")


class Script:
    """DeepSynth's stages answered per survey; `fail` (a title) makes that survey's calls a
    400; `slow` (a title) delays that survey's replies so units finish out of order."""

    def __init__(self) -> None:
        self.fail: str | None = None
        self.slow: str | None = None
        self.slow_seen = threading.Event()     # the slow survey's first request has come

    def __call__(self, body: dict) -> Step:
        text = body["messages"][0]["content"]
        if self.fail and self.fail in text:
            return Step(status=400, text="bad request")
        delay = 0.0
        if self.slow and self.slow in text:
            self.slow_seen.set()
            delay = 1.0
        elif self.slow:
            # the other survey's calls wait (up to 5 s) for the slow survey's first request,
            # so units that really run at once overlap however the threads are scheduled
            self.slow_seen.wait(5.0)
        if "General Question Generation" in text:
            return Step(text="Provide a comprehensive survey on the topic.", delay=delay)
        if "This is the first step: the topics" in text:
            outline = text.split("Section headers:\n")[1].split("\n\nOpening text:")[0]
            return Step(text=json.dumps({"topics": [
                {"name": "Overview", "headings": [outline.splitlines()[0]]}]}), delay=delay)
        if "Topic Anchor" in text:
            topic = re.search(r'The topic is "([^"]+)"', text).group(1)
            return Step(text=json.dumps({"sub_groups": [
                {"sub_group_name": topic, "requirements": [f"{topic}: a fact"]}]}), delay=delay)
        return Step(text=json.dumps({"constraint_question": "Include the table.",
                                     "sub_groups": [{"sub_group_name": "row", "requirements": [
                                         "A row of the table."]}]}), delay=delay)


@pytest.fixture(scope="module")
def endpoint():
    script = Script()
    fake = FakeOpenAI(default=script).start()
    yield fake, script
    fake.stop()


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    small = tmp_path_factory.mktemp("small") / "small.md"
    small.write_text(SMALL, encoding="utf-8")
    return [str(LATEX), str(small)]


def _build(sources, out: Path, fake: FakeOpenAI, *extra: str) -> int:
    return main(["build", *sources, "--benchmarks", "taxobench,deepsynth", "--out", str(out),
                 "--no-corpus", "--judge", "judge-x", "--judge-base-url", fake.base_url,
                 "--no-llm-cache", *extra])


def _units(out: Path) -> dict[str, dict]:
    rows = [json.loads(x) for x in (out / "units.jsonl").read_text().splitlines()]
    return {r["unit"]: r for r in rows}          # the last record of each unit


def _same_build(a: Path, b: Path) -> None:
    for rel in FILES:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    ma, mb = (json.loads((x / "manifest.json").read_text()) for x in (a, b))
    for key in ("sources", "benchmarks", "models", "prompts", "usage"):
        assert ma[key] == mb[key], key


@pytest.fixture(scope="module")
def clean(endpoint, sources, tmp_path_factory):
    """A clean build, one unit at a time, with the endpoint working."""
    fake, script = endpoint
    script.fail = script.slow = None
    out = tmp_path_factory.mktemp("clean")
    assert _build(sources, out, fake) == 0
    return out


def test_an_endpoint_failure_is_resumed_by_building_that_unit_alone(endpoint, sources, clean,
                                                                    tmp_path, capsys):
    fake, script = endpoint
    out = tmp_path / "o"
    script.fail = SMALL_TITLE
    assert _build(sources, out, fake) == 3
    err = capsys.readouterr().err
    assert "1 unit(s) not built (deepsynth/attention-and-adversarial-examples-a-small-survey" \
        in err and "run the same build again" in err
    units = _units(out)
    assert {k: u["status"] for k, u in units.items()} == {
        "taxobench/a-tiny-survey": "done",
        # no title for any cited work without a bibliography: no task, kept, not retried
        "taxobench/attention-and-adversarial-examples-a-small-survey": "unbuildable",
        "deepsynth/a-tiny-survey": "done",
        "deepsynth/attention-and-adversarial-examples-a-small-survey": "error"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["benchmarks"]["deepsynth"]["instances"] == 1       # the error is no task
    assert manifest["benchmarks"]["deepsynth"]["units"][
        "deepsynth/attention-and-adversarial-examples-a-small-survey"]["status"] == "error"
    review = (out / "review.md").read_text()
    assert "NOT BUILT (error)" in review
    assert "- `deepsynth/attention-and-adversarial-examples-a-small-survey`: error: " in review
    assert "- `deepsynth/a-tiny-survey`: done (1 task(s))" in review

    script.fail = None
    before = len(fake.requests)
    assert _build(sources, out, fake) == 0
    again = fake.requests[before:]
    assert again and all(SMALL_TITLE in r["messages"][0]["content"] for r in again)
    assert "units: 1 built, 3 kept" in capsys.readouterr().out
    _same_build(out, clean)
    assert json.loads((out / "manifest.json").read_text())["build"]["kept"] == 3

    before = len(fake.requests)                  # everything done: no model call at all
    assert _build(sources, out, fake) == 0
    assert len(fake.requests) == before
    _same_build(out, clean)


def test_a_changed_source_builds_its_units_again(endpoint, sources, tmp_path, capsys):
    fake, script = endpoint
    script.fail = script.slow = None
    small = tmp_path / "small.md"
    small.write_text(SMALL, encoding="utf-8")
    out = tmp_path / "o"
    assert _build([sources[0], str(small)], out, fake) == 0
    capsys.readouterr()
    small.write_text(SMALL + "\nOne more sentence.\n", encoding="utf-8")
    before = len(fake.requests)
    assert _build([sources[0], str(small)], out, fake) == 0
    again = fake.requests[before:]
    assert again and all(SMALL_TITLE in r["messages"][0]["content"] for r in again)
    said = capsys.readouterr().out
    assert "units: 2 built, 2 kept" in said
    assert "(2 built again: their source or options changed)" in said


def test_concurrency_2_writes_the_same_files_as_one_at_a_time(endpoint, sources, clean,
                                                              tmp_path):
    fake, script = endpoint
    script.fail, script.slow = None, "A tiny survey"    # the first survey finishes last
    fake.max_in_flight = 0
    try:
        assert _build(sources, tmp_path / "c", fake, "--concurrency", "2") == 0
    finally:
        script.slow = None
    assert fake.max_in_flight >= 2                           # two units' calls did overlap
    _same_build(tmp_path / "c", clean)
    rows = [json.loads(x) for x in (tmp_path / "c" / "units.jsonl").read_text().splitlines()]
    order = [r["unit"] for r in rows]
    assert order.index("deepsynth/a-tiny-survey") > order.index(
        "deepsynth/attention-and-adversarial-examples-a-small-survey")   # finished out of order


def test_a_locked_dir_is_refused_in_one_line(endpoint, sources, tmp_path, capsys):
    from scholarbench.core.rundir import RunDir
    fake, _ = endpoint
    out = tmp_path / "o"
    before = len(fake.requests)
    with RunDir(out).lock():
        assert _build(sources, out, fake) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "in use by another scholarbench build" in err
    assert len(fake.requests) == before and not (out / "units.jsonl").exists()


def test_an_outer_usage_scope_counts_the_calls_of_scopes_nested_in_it():
    """A unit's scope sees the calls its builder counts in per-stage scopes of its own, and a
    client's count reaches the innermost scope once."""
    from scholarbench.llm.usage import Usage, sample_scope
    client = Usage()
    with sample_scope() as unit:
        with sample_scope() as stage:
            client.add_call(3, 2, estimated=False, cost=None)
            client.add_failure()
        client.add_call(1, 1, estimated=False, cost=None)
    assert (stage.calls, stage.failures, stage.prompt_tokens) == (1, 1, 3)
    assert (unit.calls, unit.failures, unit.prompt_tokens) == (2, 1, 4)
    assert (client.calls, client.failures) == (2, 1)
