"""Which chat model plays which role, from CLI flags, then the environment, then a TOML file.

Two roles: `agent` (what an LLM agent calls) and `judge` (what LLM-as-judge metrics call). They are
resolved separately: a judge never inherits the agent's model. With nothing configured a role gets
the packaged local model (llama.cpp), and the run records that it did.

API keys come only from the environment. A TOML file may name the variable that holds the key
(`api_key_env = "MY_KEY"`) but a literal key in it is refused, so keys never sit in files we read,
log, cache or write into manifests. A key goes only where it was configured for: the default
`$OPENAI_API_KEY` only to api.openai.com (no base URL, or an openai.com host); any other endpoint
gets a key only from a variable named for it (`--api-key-env` / `--judge-api-key-env`,
`$SCHOLARBENCH_MODEL_API_KEY_ENV`, `api_key_env` in the file) — a loopback server gets none
otherwise — and never over plain `http://` to a host that is not loopback unless
`allow_http_key = true`. Loopback is `hosts.is_loopback_host`: an IP address in 127/8 or ::1,
or the name `localhost` — never a prefix (`127.evil.example` is a remote name). The key variable's value and the base URL's password and credential-like
query values are remembered for redaction (`llm.secrets`) as soon as a role is resolved; manifests
record the base URL through `llm.secrets.redact_url`.

Time limits per call, both in wall-clock seconds: `timeout` bounds one attempt (connect at most
10 s; an attempt still running then is abandoned and retried), `deadline` the whole call — every
attempt, read and backoff wait (`llm.client`).
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from scholarbench.errors import ScholarbenchError
from scholarbench.llm.prices import FLAG_KEY, apply_prices, read_price_table
from scholarbench.hosts import is_loopback_url
from scholarbench.llm.secrets import redact_url, remember, remember_url

ROLES = ("agent", "judge")
LOCAL = "local"   # the model name that means "the packaged llama.cpp model"
NO_KEY = "sk-no-key"              # sent to a loopback server when no key is configured
LOCAL_KEY = "sk-local-no-key"     # sent to the packaged local model's server
PLACEHOLDER_KEYS = frozenset({NO_KEY, LOCAL_KEY})   # not credentials (`llm.base_url`)
DEFAULT_CONFIG_FILE = "scholarbench.toml"
_ENV_PREFIX = {"agent": "SCHOLARBENCH_MODEL", "judge": "SCHOLARBENCH_JUDGE"}
_FILE_KEYS = {"model", "base_url", "api_key_env", "temperature", "max_tokens", "seed", "timeout",
              "deadline", "concurrency", "max_retries", "price_input_per_mtok",
              "price_output_per_mtok", "local_model", "allow_http_key"}


@dataclass(frozen=True)
class ModelConfig:
    """One role's model. `model == "local"` means the packaged GGUF served by llama.cpp."""
    role: str
    model: str = LOCAL
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.0
    max_tokens: int = 1024
    seed: int | None = 0
    timeout: float = 60.0        # one attempt
    deadline: float = 120.0      # the whole call, retries included (wall clock)
    concurrency: int = 4
    max_retries: int = 5
    allow_http_key: bool = False
    price_input_per_mtok: float | None = None
    price_output_per_mtok: float | None = None
    local_model: str = "qwen2.5-coder-0.5b"
    source: dict[str, str] = field(default_factory=dict)   # field -> "flag" | "env" | "file" | "default"

    @property
    def is_local(self) -> bool:
        return self.model == LOCAL

    def api_key(self) -> str:
        """The key for this role's endpoint, read from the environment at call time (never
        stored on the record); the routing rules are in the module docstring."""
        from urllib.parse import urlsplit
        if self.is_local:
            return LOCAL_KEY
        url = self.base_url
        host = (urlsplit(url).hostname or "").lower() if url else "api.openai.com"
        openai_host = host == "openai.com" or host.endswith(".openai.com")
        named = ("api_key_env" in self.source         # the user named the variable
                 or self.api_key_env != "OPENAI_API_KEY")
        loopback = bool(url) and is_loopback_url(url)
        if not (openai_host or named):
            if loopback:
                return NO_KEY   # local servers (vLLM, llama.cpp, Ollama) accept any key
            raise ScholarbenchError(
                f"the {self.role} model's endpoint {redact_url(url)} is not OpenAI: "
                f"${self.api_key_env} is not sent there; name the variable holding its key "
                f"with --{'judge-' if self.role == 'judge' else ''}api-key-env VAR (or "
                f"api_key_env in the config file)")
        if url and urlsplit(url).scheme == "http" and not loopback and not self.allow_http_key:
            raise ScholarbenchError(
                f"refusing to send the {self.role} model's API key over plain http to "
                f"{host}; use https, or set allow_http_key = true for this role")
        key = os.environ.get(self.api_key_env)
        if key:
            remember(key)
            return key
        if loopback:
            return NO_KEY
        raise ScholarbenchError(
            f"the {self.role} model {self.model!r} needs an API key in ${self.api_key_env} "
            f"(keys are read from the environment only)")

    def public(self) -> dict[str, Any]:
        """What a manifest may record: everything but secrets (there are none on the record)."""
        out = asdict(self)
        out.pop("source")
        out["base_url"] = redact_url(out["base_url"])
        out["configured_by"] = dict(self.source)
        return out


def check_base_url(url: str, where: str) -> str:
    """`url` if it is an http(s) URL with a host (and a valid port); a usage error otherwise,
    never echoing what could be a key in the URL's user part."""
    from urllib.parse import urlsplit
    try:
        parts = urlsplit(str(url).strip())
        parts.port                                   # raises on a port that is not a number
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        parts, ok = None, False
    if not ok:
        scheme = f"a {parts.scheme}: URL" if parts is not None and parts.scheme else "malformed"
        raise ScholarbenchError(f"{where}: an OpenAI-compatible endpoint is an http:// or "
                                f"https:// URL with a host, e.g. http://127.0.0.1:8080/v1 "
                                f"(this one is {scheme})")
    return str(url).strip()


def _coerce(name: str, value: Any, where: str) -> Any:
    if name == "base_url" and value is not None:
        return check_base_url(value, where)
    if name == "allow_http_key" and value is not None:
        if isinstance(value, str):
            value = value.strip().lower() in ("1", "true", "yes")
        return bool(value)
    kinds = {"temperature": float, "timeout": float, "deadline": float,
             "price_input_per_mtok": float,
             "price_output_per_mtok": float, "max_tokens": int, "seed": int, "concurrency": int,
             "max_retries": int}
    if name in kinds and value is not None:
        try:
            value = kinds[name](value)
        except (TypeError, ValueError):
            raise ScholarbenchError(f"{where}: {name} must be a number, not {value!r}") from None
        if name in {"concurrency", "max_retries", "max_tokens"} and value < (0 if name == "max_retries" else 1):
            raise ScholarbenchError(f"{where}: {name} out of range ({value})")
    return value


def read_config_file(path: Path) -> dict[str, dict[str, Any]]:
    """`[agent]` and `[judge]` tables; a table `[llm]` gives defaults for both."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ScholarbenchError(f"{path}: not valid TOML ({exc})") from None
    except OSError as exc:
        raise ScholarbenchError(f"{path}: cannot read ({exc.strerror})") from None
    out: dict[str, dict[str, Any]] = {}
    shared = data.get("llm", {})
    for role in ROLES:
        out[role] = _model_table({**shared, **data.get(role, {})}, f"{path} [{role}]")
    return out


def _model_table(table: dict[str, Any], at: str) -> dict[str, Any]:
    """One model's settings from a config file: known keys only, never an API key, coerced."""
    for key in table:
        if key in {"api_key", "key", "openai_api_key"}:
            raise ScholarbenchError(f"{at}: {key}: API keys are read from the environment "
                                    "only; name the variable with api_key_env")
        if key not in _FILE_KEYS:
            raise ScholarbenchError(f"{at}: unknown key {key!r}; known: "
                                    f"{', '.join(sorted(_FILE_KEYS))}")
    return {k: _coerce(k, v, at) for k, v in table.items()}


def _from_env(role: str, environ: Mapping[str, str]) -> dict[str, Any]:
    prefix = _ENV_PREFIX[role]
    names = {"model": prefix, "base_url": f"{prefix}_BASE_URL", "api_key_env": f"{prefix}_API_KEY_ENV"}
    out = {k: environ[v] for k, v in names.items() if environ.get(v)}
    return {k: _coerce(k, v, f"${names[k]}") for k, v in out.items()}


def config_path(config_file: str | Path | None = None,
                environ: Mapping[str, str] | None = None) -> Path | None:
    """The TOML file read: the one given, else $SCHOLARBENCH_CONFIG, else ./scholarbench.toml."""
    environ = os.environ if environ is None else environ
    path = Path(config_file) if config_file else None
    if path is None and environ.get("SCHOLARBENCH_CONFIG"):
        path = Path(environ["SCHOLARBENCH_CONFIG"])
    if path is None and Path(DEFAULT_CONFIG_FILE).is_file():
        path = Path(DEFAULT_CONFIG_FILE)
    return path


PANEL_KEYS = {"judges", "samples"}


def read_panel(name: str, config_file: str | Path | None = None
               ) -> tuple[list[dict[str, Any]], int | None]:
    """A named judge panel of the TOML file: `[panel.NAME]` with `judges = [{model = …,
    base_url = …, api_key_env = …, temperature = …}, …]` (the `[judge]` table's keys, which
    each judge overrides) and optionally `samples = K`. Returns (each judge's settings, K)."""
    path = config_path(config_file)
    where = f"[panel.{name}]"
    if path is None:
        raise ScholarbenchError(f"--judge-panel {name}: no config file (--llm-config, "
                                f"$SCHOLARBENCH_CONFIG or ./{DEFAULT_CONFIG_FILE})")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ScholarbenchError(f"{path}: not valid TOML ({exc})") from None
    except OSError as exc:
        raise ScholarbenchError(f"{path}: cannot read ({exc.strerror})") from None
    table = (data.get("panel") or {}).get(name)
    if not isinstance(table, dict):
        known = ", ".join(sorted(data.get("panel") or {})) or "none"
        raise ScholarbenchError(f"{path}: no judge panel {where} (panels: {known})")
    if extra := sorted(set(table) - PANEL_KEYS):
        raise ScholarbenchError(f"{path}: {where} unknown key {extra[0]!r}; known: judges, "
                                "samples")
    judges = table.get("judges")
    if not isinstance(judges, list) or not judges or not all(isinstance(j, dict)
                                                             for j in judges):
        raise ScholarbenchError(f"{path}: {where} judges must be a list of tables, e.g. "
                                "[{model = \"gpt-4o\"}, {model = \"m\", base_url = \"…\"}]")
    out = []
    for i, judge in enumerate(judges, start=1):
        out.append(_model_table(judge, f"{path} {where} judge {i}"))
    samples = table.get("samples")
    if samples is not None and (isinstance(samples, bool) or not isinstance(samples, int)
                                or samples < 1):
        raise ScholarbenchError(f"{path}: {where} samples must be an integer >= 1")
    return out, samples


def resolve_role(role: str, flags: Mapping[str, Any] | None = None, *,
                 config_file: str | Path | None = None,
                 environ: Mapping[str, str] | None = None) -> ModelConfig:
    """Flags win over the environment, which wins over the file; then the defaults."""
    if role not in ROLES:
        raise ValueError(role)
    environ = os.environ if environ is None else environ
    path = config_path(config_file, environ)
    flags = dict(flags or {})
    flag_prices = flags.pop(FLAG_KEY, None)       # `--price MODEL=IN/OUT` (llm.prices)
    layers = [("file", read_config_file(path)[role] if path else {}),
              ("env", _from_env(role, environ)),
              ("flag", {k: _coerce(k, v, f"--{k}") for k, v in flags.items() if v is not None})]
    config = ModelConfig(role=role, source={})
    source: dict[str, str] = {}
    for name, values in layers:
        if values:
            if values.get("model") == LOCAL and "base_url" not in values:
                values = {**values, "base_url": None}   # the local model: no endpoint below wins
            config = replace(config, **values)
            source.update({k: name for k in values})
    remember_url(config.base_url)
    remember(environ.get(config.api_key_env))
    if config.base_url and config.model == LOCAL:
        raise ScholarbenchError(f"{role}: a base_url was given ({redact_url(config.base_url)}) "
                                "but no model name; pass --model/--judge NAME too")
    return apply_prices(replace(config, source=source), flag_prices, read_price_table(path))
