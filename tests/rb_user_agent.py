"""A user's ReportBench agent for the engine tests: a plain function, no scholarbench import.

Environment: RB_DELAY (seconds to sleep per sample, so a run can be killed mid-way), RB_FAIL
(a sample id that raises), RB_LOG (a file each call appends the sample id to), RB_PROMPTS (a
file each call appends {"id", "prompt"} to), RB_CITE_SURVEY (cite the hidden survey too).
"""
import json
import os
import time

REPORT = ("# Sequence models\n\nThe Transformer relies solely on attention [1].\n\n"
          "## References\n\n[1] Vaswani, A. (2017). Attention is all you need. "
          "arXiv:1706.03762\n")


def solve(task):
    for var, line in (("RB_LOG", task["id"]),
                      ("RB_PROMPTS", json.dumps({"id": task["id"], "prompt": task["prompt"],
                                                 "fields": {k: task.get(k) for k in (
                                                     "topic", "cutoff", "exclude_ids",
                                                     "exclude_title", "granularity")}}))):
        if os.environ.get(var):
            with open(os.environ[var], "a", encoding="utf-8") as handle:
                handle.write(line + "\n")
    time.sleep(float(os.environ.get("RB_DELAY") or 0))
    if os.environ.get("RB_FAIL") == task["id"]:
        raise ConnectionError("endpoint unreachable")
    cited = ["Deep Residual Learning for Image Recognition"]
    if os.environ.get("RB_CITE_SURVEY"):
        cited.append(task["exclude_ids"][0])
    return {"report": REPORT, "cited": cited, "info": {"searches": 1}}
