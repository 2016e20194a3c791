"""DeepSynth-Eval judge cost: judge calls per task, and cache reuse on a second pass.

The 4 shared tasks (their own ``survey_result`` replayed) are judged twice through
``run_deepsynth`` against the scripted server (``--delay`` seconds per reply, default 20 ms):
pass 1 in a fresh run directory with an empty reply cache, pass 2 in another fresh directory
with the same cache. ``--bad-share`` of the first replies per sub-group are unusable (not
JSON), so the judge's repair turns show in the call counts. Prints one row per task (its
score row's sub-groups, requirements and judge calls), then each pass's model calls and cache
hits (the engine's judge stage asks every task's requests at once, `--workers` at a time).

    python bench/bench_deepsynth_judge.py [--tasks FILE] [--delay 0.02] [--workers 1]
                                          [--bad-share 0.1]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fake_openai import FakeOpenAI, Step  # noqa: E402

from scholarbench.llm.cache import ReplyCache  # noqa: E402
from scholarbench.llm.client import ChatClient  # noqa: E402
from scholarbench.llm.config import ModelConfig  # noqa: E402
from scholarbench.llm.roles import LLMRoles  # noqa: E402
from scholarbench.benchmarks.deepsynth.api import DeepSynthRunConfig, run_deepsynth  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "deepsynth" / \
    "example_gen_result.jsonl"
LABELS = ("mentioned_correct", "not_mentioned", "mentioned_incorrect")


def judge_server(delay: float, bad_share: float):
    """Labels fixed by a hash of each requirement; the first reply to a prompt is unusable
    for ``bad_share`` of the sub-groups (by hash), the repair is then answered."""
    def answer(body: dict) -> Step:
        prompt = body["messages"][0]["content"]
        n = int(prompt.split("contains exactly ")[1].split()[0])
        digest = int(hashlib.sha256(prompt.encode()).hexdigest()[:8], 16)
        if len(body["messages"]) == 1 and (digest % 1000) / 1000 < bad_share:
            return Step(text="Let me think about the survey first.", delay=delay)
        labels = [LABELS[(digest >> i) % 3] for i in range(n)]
        return Step(text="```json\n" + json.dumps(labels) + "\n```", delay=delay)
    return answer


def one_pass(tasks: Path, out: Path, fake: FakeOpenAI, cache_path: Path, workers: int
             ) -> tuple[dict, list[dict], float]:
    def roles(*, need_agent: bool, need_judge: bool) -> LLMRoles:
        cache = ReplyCache(cache_path)
        config = ModelConfig(role="judge", model="bench-judge", base_url=fake.base_url,
                             api_key_env="BENCH_NO_KEY", timeout=30.0, max_retries=0,
                             concurrency=max(1, workers))
        return LLMRoles(judge=ChatClient(config, cache=cache), cache=cache)
    start = time.perf_counter()
    summary = run_deepsynth(DeepSynthRunConfig(tasks_path=tasks, out=out, agent="replay",
                                               progress=False), roles)
    wall = time.perf_counter() - start
    rows = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines() if x]
    return summary, rows, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=Path, default=SHARED)
    parser.add_argument("--delay", type=float, default=0.02)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--bad-share", type=float, default=0.1)
    args = parser.parse_args()
    if not args.tasks.exists():
        sys.exit(f"{args.tasks} not found (pass --tasks FILE with survey_result lines)")
    fake = FakeOpenAI(default=judge_server(args.delay, args.bad_share)).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            tmp_path = Path(tmp)
            first, lines1, wall1 = one_pass(args.tasks, tmp_path / "one", fake,
                                            tmp_path / "c.sqlite", args.workers)
            requests_after_first = len(fake.requests)
            second, lines2, wall2 = one_pass(args.tasks, tmp_path / "two", fake,
                                             tmp_path / "c.sqlite", args.workers)
            requests_second = len(fake.requests) - requests_after_first
    finally:
        fake.stop()
    print(f"DeepSynth-Eval judge, {len(lines1)} tasks, scripted judge {args.delay * 1e3:.0f} ms "
          f"per reply, {args.workers} worker(s), {args.bad_share:.0%} first replies unusable\n")
    header = ("task", "sub-groups", "items", "calls p1", "calls p2")
    print(" | ".join(f"{h:>10}" for h in header))
    print("-" * (13 * len(header)))
    for a, b in zip(lines1, lines2):
        row = (a["task_id"], a["n_subgroups_judged"], a["n_requirements"], a["n_judge_calls"],
               b["n_judge_calls"])
        print(" | ".join(f"{v!s:>10}" for v in row))
    total_calls = sum(x["n_judge_calls"] for x in lines1)
    subs = sum(x["n_subgroups_judged"] for x in lines1)
    print(f"\npass 1: {total_calls} judge calls ({total_calls / max(1, len(lines1)):.1f} per "
          f"task; {subs} sub-groups, empty ones included), {first['judge']['model_calls']} to "
          f"the model, {wall1:.2f} s wall")
    print(f"pass 2: {requests_second} requests reached the server, "
          f"{second['judge']['cache_hits']} cache hits, {wall2:.2f} s wall")
    same = first["means"] == second["means"]
    print(f"scores identical across passes: {same}; unscored items: pass 1 "
          f"{first['n_unscored']}, pass 2 {second['n_unscored']}")


if __name__ == "__main__":
    main()
