"""`scholarbench llm ask|serve|config`, and the model flags every LLM-using command shares."""
from __future__ import annotations

import argparse
import json
import signal
import sys
from typing import Any

from scholarbench.errors import ScholarbenchError
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
        group.add_argument("--judge", help="the judges' chat model (never the agent's by default: "
                           "unset means the local model)")
        group.add_argument("--judge-base-url", help="the judge model's endpoint")
        group.add_argument("--judge-api-key-env", metavar="VAR",
                           help="the environment variable holding the judge endpoint's key")
    group.add_argument("--llm-config", help="TOML file with [agent]/[judge] tables "
                       "(default: $SCHOLARBENCH_CONFIG, then ./scholarbench.toml)")
    group.add_argument("--no-llm-cache", action="store_true",
                       help="do not read or write the persistent reply cache")


def agent_flags(args: argparse.Namespace) -> dict[str, Any]:
    return {"model": getattr(args, "model", None), "base_url": getattr(args, "base_url", None),
            "api_key_env": getattr(args, "api_key_env", None)}


def judge_flags(args: argparse.Namespace) -> dict[str, Any]:
    return {"model": getattr(args, "judge", None),
            "base_url": getattr(args, "judge_base_url", None),
            "api_key_env": getattr(args, "judge_api_key_env", None)}


def model_recipe(args: argparse.Namespace) -> dict:
    """`bind_roles` arguments from the model flags: plain data (no key; keys are read from the
    environment where the roles are bound), so another process can bind the same models."""
    return {"agent_flags": agent_flags(args), "judge_flags": judge_flags(args),
            "config_file": getattr(args, "llm_config", None),
            "no_cache": getattr(args, "no_llm_cache", False)}


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
        from scholarbench.llm.config import resolve_role
        out = {role: resolve_role(role, flags, config_file=args.llm_config).public()
               for role, flags in (("agent", agent_flags(args)), ("judge", judge_flags(args)))}
        print(json.dumps(out, indent=2))
        return 0
    if args.llm_cmd == "serve":
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
