"""`scholarbench llm ask|serve|config`, and the model flags every LLM-using command shares."""
from __future__ import annotations

import argparse
import json
import signal
import sys
from typing import Any

from scholarbench.errors import ScholarbenchError
from scholarbench.llm.config import read_panel, resolve_role
from scholarbench.llm.prices import FLAG_KEY, parse_price_flags
from scholarbench.llm.roles import bind_roles


def add_model_flags(parser: argparse.ArgumentParser, *, agent: bool = True,
                    judge: bool = True) -> None:
    group = parser.add_argument_group("models (flags > $SCHOLARBENCH_* > scholarbench.toml > local)")
    if agent:
        group.add_argument("--model", help="the agent's chat model name ('local' = packaged "
                           "llama.cpp model; default)")
        group.add_argument("--base-url", help="the agent model's OpenAI-compatible endpoint")
        group.add_argument("--api-key-env", metavar="VAR", help="the environment variable "
                           "holding the agent endpoint's key ($OPENAI_API_KEY goes only to "
                           "api.openai.com)")
    if judge:
        group.add_argument("--judge", action="append", metavar="NAME",
                           help="the judges' chat model (never the agent's by default: unset "
                           "means the local model); given again, a judge panel (docs/judges.md)")
        group.add_argument("--judge-base-url", action="append", metavar="URL",
                           help="the judge model's endpoint (one per --judge in a panel)")
        group.add_argument("--judge-api-key-env", action="append", metavar="VAR",
                           help="the environment variable holding the judge endpoint's key "
                           "(one per --judge in a panel, or once for every judge)")
        group.add_argument("--judge-panel", metavar="NAME",
                           help="the judge panel [panel.NAME] of the config file instead of "
                           "--judge flags (docs/judges.md)")
        group.add_argument("--judge-samples", type=int, metavar="K",
                           help="ask each judge K times (seeds seed, seed+1, …) and report "
                           "the spread (default 1; every judged measure: TaxoBench, DeepSynth-Eval, "
                           "ReportBench, SciNet)")
    group.add_argument("--price", action="append", metavar="MODEL=IN/OUT",
                       help="a model's price in dollars per million input/output tokens "
                       "(repeatable; or the config file's [prices] table): cost per sample, "
                       "stage and run (docs/cost.md)")
    group.add_argument("--llm-config", help="TOML file with [agent]/[judge] tables "
                       "(default: $SCHOLARBENCH_CONFIG, then ./scholarbench.toml)")
    group.add_argument("--no-llm-cache", action="store_true",
                       help="do not read or write the persistent reply cache")


def agent_flags(args: argparse.Namespace) -> dict[str, Any]:
    return {"model": getattr(args, "model", None), "base_url": getattr(args, "base_url", None),
            "api_key_env": getattr(args, "api_key_env", None), **price_flags(args)}


def price_flags(args: argparse.Namespace) -> dict[str, Any]:
    """`--price` as a role's flags carry it (`llm.prices.FLAG_KEY`; none given: nothing)."""
    prices = parse_price_flags(getattr(args, "price", None))
    return {FLAG_KEY: {m: list(p) for m, p in prices.items()}} if prices else {}


JUDGE_FLAGS = (("model", "judge"), ("base_url", "judge_base_url"),
               ("api_key_env", "judge_api_key_env"))


def judge_panel_flags(args: argparse.Namespace) -> list[dict[str, Any]]:
    """One flag set per judge: `--judge`, `--judge-base-url`, `--judge-api-key-env` given
    again form a panel, paired in order. `--judge-base-url` is given once per `--judge` or not
    at all; `--judge-api-key-env` once per `--judge`, not at all, or once for every judge (a
    panel on one provider); anything else is a usage error (never a silently dropped judge)."""
    given = {key: _as_list(getattr(args, dest, None)) for key, dest in JUDGE_FLAGS}
    if (name := getattr(args, "judge_panel", None)) is not None:
        if any(given.values()):
            raise ScholarbenchError("--judge-panel names a panel of the config file; give it "
                                    "or --judge flags, not both")
        return [{**j, **price_flags(args)}
                for j in read_panel(name, getattr(args, "llm_config", None))[0]]
    n = max(1, len(given["model"]))
    if len(given["api_key_env"]) == 1:        # one provider's key for the whole panel
        given["api_key_env"] = given["api_key_env"] * n
    for key, dest in JUDGE_FLAGS:
        if len(given[key]) not in (0, n):
            flag = "--" + dest.replace("_", "-")
            also = " (or once for every judge)" if key == "api_key_env" else ""
            raise ScholarbenchError(f"{flag} given {len(given[key])} times for {n} judge(s) "
                                    f"(--judge): give it once per --judge{also}, or not at "
                                    "all")
    return [{**{key: (given[key][i] if given[key] else None) for key, _ in JUDGE_FLAGS},
             **price_flags(args)} for i in range(n)]


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def judge_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The first (or only) judge's flags."""
    return judge_panel_flags(args)[0]


def judge_samples(args: argparse.Namespace) -> int:
    k = getattr(args, "judge_samples", None)
    if k is None and (name := getattr(args, "judge_panel", None)) is not None:
        k = read_panel(name, getattr(args, "llm_config", None))[1]
    if k is None:
        return 1
    if k < 1:
        raise ScholarbenchError(f"--judge-samples must be >= 1, not {k}")
    return int(k)


def model_recipe(args: argparse.Namespace) -> dict:
    """`bind_roles` arguments from the model flags: plain data (no key; keys are read from the
    environment where the roles are bound), so another process can bind the same models."""
    panel = judge_panel_flags(args)
    recipe = {"agent_flags": agent_flags(args), "judge_flags": panel[0],
              "config_file": getattr(args, "llm_config", None),
              "no_cache": getattr(args, "no_llm_cache", False)}
    if len(panel) > 1:
        recipe["panel_flags"] = panel[1:]
    return recipe


def roles_from_args(args: argparse.Namespace, *, need_agent: bool, need_judge: bool):
    return bind_roles(**model_recipe(args), need_agent=need_agent, need_judge=need_judge)


def cmd_llm(args: argparse.Namespace) -> int:
    if args.llm_cmd == "ask":
        role = "judge" if args.as_judge else "agent"
        roles = roles_from_args(args, need_agent=role == "agent", need_judge=role == "judge")
        client = getattr(roles, role)
        reply = client.complete([{"role": "user", "content": args.prompt}],
                                max_tokens=args.max_tokens)
        print(reply.text)
        print(f"[{role}: {client.model_id}; {'cached' if reply.cached else 'called'}; "
              f"{reply.prompt_tokens}+{reply.completion_tokens} tokens]", file=sys.stderr)
        return 0
    if args.llm_cmd == "config":
        panel = judge_panel_flags(args)
        out = {role: resolve_role(role, flags, config_file=args.llm_config).public()
               for role, flags in (("agent", agent_flags(args)), ("judge", panel[0]))}
        if len(panel) > 1:
            out["judges"] = [resolve_role("judge", flags, config_file=args.llm_config).public()
                             for flags in panel]
        print(json.dumps(out, indent=2))
        return 0
    if args.llm_cmd == "serve":
        # deferred: pulls in http.client, ssl and subprocess (the local model's server)
        from scholarbench.llm.local import LocalServer
        server = LocalServer(args.local_model, port=args.port, n_ctx=args.n_ctx)
        server.start()
        print(f"serving {server.spec.name} at {server.base_url} (Ctrl-C stops it)\n"
              f"use it with: --model {server.spec.name} --base-url {server.base_url}", flush=True)
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
        try:
            server.process.wait()
        except KeyboardInterrupt:
            pass
        finally:
            server.stop()
        return 0
    raise ScholarbenchError(f"unknown llm command {args.llm_cmd!r}")


def add_llm_parser(sub) -> None:
    llm = sub.add_parser("llm", help="check and serve chat models (ask, serve, config)")
    lsub = llm.add_subparsers(dest="llm_cmd", required=True)
    ask = lsub.add_parser("ask", help="print the configured model's reply to PROMPT")
    ask.add_argument("prompt")
    ask.add_argument("--as-judge", action="store_true", help="ask the judge model instead")
    ask.add_argument("--max-tokens", type=int, default=256)
    add_model_flags(ask)
    config = lsub.add_parser("config", help="show how the agent and judge roles resolve")
    add_model_flags(config)
    serve = lsub.add_parser("serve", help="serve the packaged local model on 127.0.0.1 "
                            "(OpenAI-compatible) until stopped")
    serve.add_argument("--local-model", default="qwen2.5-coder-0.5b")
    serve.add_argument("--port", type=int, default=8080)
    serve.add_argument("--n-ctx", type=int, default=8192)
    llm.set_defaults(func=cmd_llm)
