"""Bind the agent and judge roles to clients for one run, and record them in the manifest."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from scholarbench.errors import ScholarbenchError
from scholarbench.llm.cache import ReplyCache
from scholarbench.llm.client import ChatClient
from scholarbench.llm.config import ModelConfig, resolve_role
from scholarbench.paths import cache_dir

LOCAL_TIMEOUT = 600.0   # seconds per local-model attempt unless configured
LOCAL_DEADLINE = 1200.0  # and per call (CPU generation is slow on a busy machine)


def default_cache_path() -> Path:
    return cache_dir() / "llm-replies.sqlite"


def open_client(config: ModelConfig, *, cache: ReplyCache | None = None,
                **client_kwargs: Any) -> ChatClient:
    """A client for the role; the local model's server starts only on the first cache miss."""
    if config.is_local:
        # deferred: pulls in http.client, ssl and subprocess (the local model's server)
        from scholarbench.llm.local import _spec, shared_server_url
        spec = _spec(config.local_model)
        if "timeout" not in config.source:   # CPU generation is slow on a busy machine
            config = replace(config, timeout=LOCAL_TIMEOUT)
        if "deadline" not in config.source:
            config = replace(config, deadline=max(LOCAL_DEADLINE, config.timeout))
        client = ChatClient(config, cache=cache, model_id=spec.model_id,
                            connect=lambda: shared_server_url(spec.name), **client_kwargs)
        client.json_mode = "llama"   # llama-cpp-python turns a schema into a grammar
        return client
    return ChatClient(config, cache=cache, **client_kwargs)


@dataclass
class LLMRoles:
    """The clients of one run. Judge and agent are resolved independently; `judges` is the
    judge panel (`judge` first), one client when no panel was asked for."""
    agent: ChatClient | None = None
    judge: ChatClient | None = None
    cache: ReplyCache | None = field(default=None, repr=False)
    judges: list[ChatClient] = field(default_factory=list)

    def panel(self) -> list[ChatClient]:
        return list(self.judges) or ([self.judge] if self.judge is not None else [])

    def manifest_entry(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for role in ("agent", "judge"):
            client = getattr(self, role)
            if client is not None:
                out[role] = {**client.config.public(), "model_id": client.model_id}
        if len(self.panel()) > 1:
            out["judges"] = [{**c.config.public(), "model_id": c.model_id}
                             for c in self.panel()]
        return out

    def usage(self) -> dict[str, Any]:
        return {role: getattr(self, role).usage.as_dict() for role in ("agent", "judge")
                if getattr(self, role) is not None}


def bind_roles(*, agent_flags: Mapping[str, Any] | None = None,
               judge_flags: Mapping[str, Any] | None = None, need_agent: bool = False,
               need_judge: bool = False, config_file: str | Path | None = None,
               cache_path: str | Path | None = None, no_cache: bool = False,
               panel_flags: Sequence[Mapping[str, Any]] = ()) -> LLMRoles:
    """`panel_flags`: the flags of the judges after the first (a panel; `llm.commands`)."""
    cache = None if no_cache else ReplyCache(cache_path or default_cache_path())
    roles = LLMRoles(cache=cache)
    if need_agent:
        roles.agent = open_client(_key_checked(resolve_role("agent", agent_flags,
                                                            config_file=config_file)),
                                  cache=cache)
    if need_judge:
        configs = [_key_checked(resolve_role("judge", flags, config_file=config_file))
                   for flags in (judge_flags, *panel_flags)]
        roles.judges = [open_client(c, cache=cache) for c in configs]
        roles.judge = roles.judges[0]
        ids = [c.model_id for c in roles.judges]
        if len(set(ids)) < len(ids):
            twice = next(i for i in ids if ids.count(i) > 1)
            raise ScholarbenchError(f"the judge panel names {twice} twice; a judge is one "
                                    "model at one endpoint (repeats: --judge-samples K)")
    return roles


def _key_checked(config: Any) -> Any:
    """A role whose key is missing fails here, in one line, before any sample runs — not as a
    refused call on every sample: a remote endpoint without its key (`ModelConfig.api_key`),
    or a variable the user named (`--api-key-env VAR`, the environment, the config file) that
    is not set, even for a loopback server."""
    import os
    config.api_key()
    if (not config.is_local and "api_key_env" in config.source
            and not os.environ.get(config.api_key_env)):
        flag = "--judge-api-key-env" if config.role == "judge" else "--api-key-env"
        raise ScholarbenchError(f"the {config.role} model {config.model!r} needs an API key in "
                                f"${config.api_key_env} ({flag}), which is not set; keys are "
                                "read from the environment only")
    return config
