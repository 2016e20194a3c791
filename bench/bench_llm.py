"""LLM layer throughput: the local model's calls/s and tokens/s on this machine, cache-hit latency,
and client throughput at concurrency 1, 4 and 16 against the scripted server (50 ms per reply).

    python bench/bench_llm.py [--local-calls 5] [--skip-local]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _timing import ms  # noqa: E402
from fake_openai import FakeOpenAI, Step  # noqa: E402

from scholarbench.llm.cache import ReplyCache  # noqa: E402
from scholarbench.llm.client import ChatClient  # noqa: E402
from scholarbench.llm.config import ModelConfig  # noqa: E402

PROMPTS = ["Write one search query for a survey on {}.".format(t) for t in (
    "graph neural networks", "retrieval-augmented generation", "diffusion models",
    "federated learning", "knowledge distillation", "neural architecture search",
    "contrastive learning", "code generation with LLMs")]


def bench_local(calls: int) -> list[tuple[str, str]]:
    from scholarbench.llm.roles import bind_roles
    with tempfile.TemporaryDirectory() as tmp:
        client = bind_roles(need_agent=True, cache_path=Path(tmp) / "c.sqlite").agent
        client.complete([{"role": "user", "content": "warm up"}], max_tokens=1)   # server start
        before = client.usage.as_dict()
        start = time.perf_counter()
        for i in range(calls):
            client.complete([{"role": "user", "content": PROMPTS[i % len(PROMPTS)]}],
                            max_tokens=48)
        wall = time.perf_counter() - start
        after = client.usage.as_dict()
        out_tokens = after["completion_tokens"] - before["completion_tokens"]
        in_tokens = after["prompt_tokens"] - before["prompt_tokens"]
        hits = []
        for i in range(calls):
            t = time.perf_counter()
            client.complete([{"role": "user", "content": PROMPTS[i % len(PROMPTS)]}],
                            max_tokens=48)
            hits.append(time.perf_counter() - t)
    return [("local model", f"{calls / wall:.3f} calls/s, {out_tokens / wall:.1f} generated tok/s "
             f"({in_tokens} prompt + {out_tokens} generated tokens in {wall:.1f} s)"),
            ("cache hit p50 / p95 (ms)", ms(hits))]


def bench_concurrency(levels: tuple[int, ...], n: int, delay: float) -> list[tuple[str, str]]:
    fake = FakeOpenAI(default=Step(text="ok", delay=delay)).start()
    rows = []
    try:
        for level in levels:
            config = ModelConfig(role="agent", model="fake", base_url=fake.base_url,
                                 concurrency=level)
            client = ChatClient(config, cache=ReplyCache(None))
            messages = [[{"role": "user", "content": f"{level}-{i}"}] for i in range(n)]
            start = time.perf_counter()
            with ThreadPoolExecutor(max_workers=level) as pool:
                list(pool.map(client.complete, messages))
            wall = time.perf_counter() - start
            rows.append((f"fake server, concurrency {level}",
                         f"{n / wall:.1f} calls/s ({n} calls, {delay * 1e3:.0f} ms each)"))
    finally:
        fake.stop()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--local-calls", type=int, default=5)
    parser.add_argument("--skip-local", action="store_true")
    parser.add_argument("--calls", type=int, default=160)
    args = parser.parse_args()
    rows = bench_concurrency((1, 4, 16), args.calls, 0.05)
    if not args.skip_local:
        rows = bench_local(args.local_calls) + rows
    width = max(len(r[0]) for r in rows)
    print(f"{'what':<{width}}  figure")
    for name, figure in rows:
        print(f"{name:<{width}}  {figure}")


if __name__ == "__main__":
    main()
