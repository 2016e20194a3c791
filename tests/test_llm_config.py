"""Role resolution: flags > environment > TOML file > the local default; judges are separate."""
from __future__ import annotations

import pytest

from scholarbench.errors import ScholarbenchError
from scholarbench.llm.config import resolve_role


def test_nothing_configured_means_local_for_both_roles(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for role in ("agent", "judge"):
        config = resolve_role(role, {}, environ={})
        assert config.is_local and config.source == {}


def test_judge_never_inherits_the_agents_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    agent = resolve_role("agent", {"model": "gpt-x", "base_url": "http://127.0.0.1:9/v1"},
                         environ={})
    judge = resolve_role("judge", {"model": None}, environ={})
    assert agent.model == "gpt-x" and judge.model == "local"


def test_precedence_flag_env_file(tmp_path):
    path = tmp_path / "sb.toml"
    path.write_text('[llm]\ntemperature = 0.3\n[agent]\nmodel = "from-file"\nmax_tokens = 64\n'
                    '[judge]\nmodel = "judge-file"\nbase_url = "http://127.0.0.1:1/v1"\n')
    env = {"SCHOLARBENCH_MODEL": "from-env", "SCHOLARBENCH_MODEL_BASE_URL": "http://h/v1"}
    agent = resolve_role("agent", {}, config_file=path, environ=env)
    assert (agent.model, agent.base_url, agent.max_tokens, agent.temperature) == \
        ("from-env", "http://h/v1", 64, 0.3)
    assert agent.source["model"] == "env" and agent.source["max_tokens"] == "file"
    flagged = resolve_role("agent", {"model": "from-flag"}, config_file=path, environ=env)
    assert flagged.model == "from-flag" and flagged.source["model"] == "flag"
    judge = resolve_role("judge", {}, config_file=path, environ=env)
    assert judge.model == "judge-file" and judge.temperature == 0.3


def test_keys_in_files_are_refused(tmp_path):
    path = tmp_path / "sb.toml"
    path.write_text('[judge]\nmodel = "m"\napi_key = "sk-oops"\n')
    with pytest.raises(ScholarbenchError, match="environment only"):
        resolve_role("judge", {}, config_file=path, environ={})


@pytest.mark.parametrize("text,match", [("[agent]\nmodle = 'x'\n", "unknown key 'modle'"),
                                        ("[agent\n", "not valid TOML"),
                                        ("[agent]\nconcurrency = 'many'\n", "must be a number")])
def test_bad_config_files_name_the_problem(tmp_path, text, match):
    path = tmp_path / "sb.toml"
    path.write_text(text)
    with pytest.raises(ScholarbenchError, match=match):
        resolve_role("agent", {}, config_file=path, environ={})


def test_base_url_without_model_is_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ScholarbenchError, match="no model"):
        resolve_role("agent", {"base_url": "http://127.0.0.1:5/v1"}, environ={})


def test_a_flag_naming_the_local_model_drops_an_endpoint_from_below(tmp_path, monkeypatch):
    """`--judge local` means the packaged model even when the environment names an endpoint
    for the judge (docs/doc-commands test: `llm config --judge local` with
    $SCHOLARBENCH_JUDGE_BASE_URL set was refused as 'a base_url but no model name')."""
    env = {"SCHOLARBENCH_JUDGE": "remote-judge",
           "SCHOLARBENCH_JUDGE_BASE_URL": "http://127.0.0.1:9/v1"}
    monkeypatch.chdir(tmp_path)                     # no ./scholarbench.toml
    config = resolve_role("judge", {"model": "local"}, environ=env)
    assert config.model == "local" and config.base_url is None
    # a flag naming another model keeps the environment's endpoint (same provider)
    other = resolve_role("judge", {"model": "other"}, environ=env)
    assert other.model == "other" and other.base_url == "http://127.0.0.1:9/v1"
