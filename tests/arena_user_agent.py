"""A user's ResearchArena agent as plain functions (no scholarbench import), for the engine tests:
`arena_user_agent:solve` (ranking answers as REFs: a title, DOIs, an arXiv id with a version, an
S2 corpus id and one title no corpus holds), `arena_user_agent:organise` (a taxonomy answer).
Environment: ARENA_DELAY seconds of sleep per sample (so a run can be killed mid-way);
ARENA_FAIL_ON=<sample id> raises on that sample, as an unreachable endpoint would."""
import os
import time

PAPERS = ["Graph attention networks", "doi:10.1/b", {"id": "arXiv:2105.00003v2", "score": 0.5},
          "A paper nobody wrote", "s2corpus:7"]


def solve(task):
    time.sleep(float(os.environ.get("ARENA_DELAY", "0")))
    if os.environ.get("ARENA_FAIL_ON") == task["id"]:
        raise ConnectionError("endpoint unreachable")
    assert task["prompt"] and task["topic"] and task["k"] == 100
    return {"papers": PAPERS, "info": {"agent_note": task["topic"]}}


def organise(task):
    refs = [r["title"] or r["id"] for r in task["references"]]
    return {"taxonomy": {"name": task["topic"], "subtopics": [
        {"name": "Attention", "papers": refs[:1]},
        {"name": "Contrastive", "papers": refs[1:] + ["A paper nobody wrote"]}]}}
