"""SciNet's pncites gold labelled by the sentiment judge (`--sentiment judge`, issue 27): SciNet
labelled its citation contexts with GPT-5 and the appendix-C prompt; here the judge role does,
through the same prompt and client as `judge validate`. A scripted judge on loopback says
Positive where the cue rule says Neutral (so the gold must change), and answers garbage for one
context (unscored: left out, counted)."""
from __future__ import annotations

import json

import pytest

from fake_openai import FakeOpenAI, Step
from test_scinet_core import A, B, C, EDGES, PAPERS
from scholarbench.benchmarks.scinet.contexts import store_from_records
from scholarbench.benchmarks.scinet.env import EnvSettings, SciNetEnv
from scholarbench.benchmarks.scinet.sentiment_judge import JudgeLabels, SentimentJudge
from scholarbench.benchmarks.scinet.tasks import BuildSettings, build_tasks, positive_citers
from scholarbench.llm.client import ChatClient
from scholarbench.llm.config import ModelConfig
from scholarbench.llm.roles import LLMRoles

NEUTRAL_BY_RULE = "Prior work {{cite:x}} studied graphs."          # the rule: Neutral
GARBLED = "Another mention {{cite:y}} of it."


def env() -> SciNetEnv:
    ctx = store_from_records([{"citing": C, "cited": A, "text": NEUTRAL_BY_RULE},
                              {"citing": B, "cited": A, "text": GARBLED}], [])
    return SciNetEnv.from_tables(PAPERS, EDGES, ctx, EnvSettings(randomisations=3))


def script(body) -> Step:
    text = body["messages"][-1]["content"]
    return Step(text="Positive" if "studied graphs" in text else "no idea, sorry")


@pytest.fixture
def judge():
    fake = FakeOpenAI(default=script).start()
    config = ModelConfig(role="judge", model="sentiment-judge", base_url=fake.base_url,
                         api_key_env="FAKE_KEY_FOR_TESTS", timeout=5.0, max_retries=0)
    yield fake, ChatClient(config, retry_wait=(0.01, 0.05))
    fake.stop()


def test_the_judge_labels_the_gold_and_an_unusable_reply_is_left_out(judge):
    fake, client = judge
    e = env()
    assert positive_citers(e, A) == ([], [B, C])                 # the cue rule: both Neutral
    labels = JudgeLabels(SentimentJudge(client))
    assert positive_citers(e, A, labeler=labels) == ([C], [C])   # B's context unscored
    assert labels.labelled == 1 and len(labels.unscored) == 1
    # the judge read the cited paper's title and the context, as quoted data
    first = next(r for r in fake.requests if "studied graphs" in r["messages"][-1]["content"])
    assert "<context>" in first["messages"][-1]["content"]
    s = BuildSettings(min_papers=2, n_pair=1, min_citers=1, sentiment="judge")
    task = next(t for t in build_tasks(e, "pair", s, JudgeLabels(SentimentJudge(client)))
                if t.kind == "pncites")
    assert task.gold["positive"] == [C] and task.gold["context_citers"] == [C]
    assert task.info["sentiment_rule"].startswith("judge:citation_sentiment_judge.v1")
    assert task.info["sentiment_rule"].endswith("sentiment-judge")
    assert task.info["sentiment_unscored"] == 1
    assert task.info["settings"]["sentiment"] == "judge"
    rule = next(t for t in build_tasks(e, "pair", BuildSettings(min_papers=2, n_pair=1,
                                                                min_citers=1))
                if t.kind == "pncites")
    assert rule.gold["positive"] == [] and "sentiment" not in rule.info["settings"]


def test_the_settings_and_the_labeler_go_together(judge):
    _, client = judge
    with pytest.raises(ValueError, match="labeler"):
        build_tasks(env(), "pair", BuildSettings(sentiment="judge"))
    with pytest.raises(ValueError, match="labeler"):
        build_tasks(env(), "pair", BuildSettings(), JudgeLabels(SentimentJudge(client)))
    with pytest.raises(ValueError, match="sentiment must be one of"):
        build_tasks(env(), "pair", BuildSettings(sentiment="gpt"))


def test_a_run_builds_its_gold_with_the_judge_and_records_the_labels(tmp_path, judge):
    """Through the engine: the judge role labels the contexts when the tasks are built, the
    run's tasks.jsonl holds the judged gold and the manifest the label counts."""
    from scholarbench.benchmarks.scinet import SciNetRunConfig, run_scinet
    _, client = judge
    config = SciNetRunConfig("pair", "relation-aware", tmp_path / "run", env=env(),
                             build=BuildSettings(min_papers=2, n_pair=1, min_citers=1,
                                                 sentiment="judge"))
    run_scinet(config, lambda need_agent, need_judge: LLMRoles(judge=client))
    tasks = [json.loads(x) for x in (tmp_path / "run" / "tasks.jsonl").read_text().splitlines()]
    pncites = next(t for t in tasks if t["kind"] == "pncites")
    assert pncites["gold"]["positive"] == [C]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    labels = manifest["data"]["sentiment_labels"]
    assert labels["labelled"] == 1 and labels["unscored"] == 1
    assert labels["rule"] == pncites["info"]["sentiment_rule"]


def test_the_command_line_option_turns_the_judge_on(judge, capsys):
    """`run scinet --sentiment judge` reaches the build as the option `sentiment`; `score`
    has no such option (it scores the run's own tasks)."""
    from scholarbench.benchmarks.scinet.benchmark import SciNet
    from scholarbench.cli import main
    from scholarbench.core.models import Models
    _, client = judge
    bench = SciNet({"sentiment": "judge"}, env=env(),
                   build=BuildSettings(min_papers=2, n_pair=1, min_citers=1))
    models = Models(lambda **_: LLMRoles(judge=client))
    pncites = next(t for t in bench.read_tasks("pair", models) if t.kind == "pncites")
    assert pncites.gold["positive"] == [C] and pncites.info["sentiment_unscored"] == 1
    with pytest.raises(SystemExit):
        main(["run", "scinet", "--task", "pair", "--sentiment", "gpt"])
    assert "invalid choice: 'gpt'" in capsys.readouterr().err


def test_the_run_models_reach_load_as_an_argument_never_the_benchmark(tmp_path, judge):
    """The engine hands the run's models to a `load` that takes them (`load_samples`) and keeps
    none on the benchmark; a `load` without them (toybench's form) is called without them;
    with no model given, the judge's build says so in one line before any request."""
    from scholarbench.benchmarks.scinet.benchmark import SciNet
    from scholarbench.core.benchmark import Benchmark, Loaded, load_samples
    from scholarbench.core.engine import run_benchmark
    from scholarbench.core.models import Models
    from scholarbench.errors import ScholarbenchError

    class Plain(Benchmark):
        name, subtasks = "plain", {"s": "ranking"}

        def load(self, subtask, limit):
            return Loaded([], {"subtask": subtask, "limit": limit})

    fake, client = judge
    models = Models(lambda **_: LLMRoles(judge=client))
    assert load_samples(Plain(), "s", 2, models).data == {"subtask": "s", "limit": 2}
    build = BuildSettings(min_papers=2, n_pair=1, min_citers=1)
    bench = SciNet({"sentiment": "judge"}, env=env(), build=build)
    with pytest.raises(ScholarbenchError, match="needs the judge model but none was given"):
        load_samples(bench, "pair", None, Models())
    assert fake.requests == []
    labels = load_samples(bench, "pair", None, models).data["sentiment_labels"]
    assert labels["labelled"] == 1 and labels["unscored"] == 1
    outcome = run_benchmark(bench, "pair", "relation-aware", tmp_path / "run", models=models,
                            progress=False)
    assert outcome.summary["n_samples"] > 0
    assert not hasattr(bench, "models") and not hasattr(Plain(), "models")
