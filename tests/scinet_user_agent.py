"""A user's SciNet agent: a plain function of the task's JSON (no scholarbench import).

Pair tasks: the query paper's title, an arXiv DOI, a DOI the graph does not have and a junk
string; path tasks: the start paper's title and the end paper's id; ego tasks: nothing.
`SCINET_FAIL_ON=<task id>` makes it raise on that task, `SCINET_SLOW=<seconds>` sleep first.
"""
import os
import time

SEEN = []


def solve(task):
    SEEN.append(task)
    time.sleep(float(os.environ.get("SCINET_SLOW", "0")))
    if task["id"] == os.environ.get("SCINET_FAIL_ON"):
        raise ConnectionError("endpoint unreachable")
    if task["subtask"] == "pair":
        return {"papers": [task["paper"]["title"], "10.48550/arXiv.1101.00001",
                           "10.1145/0000000.0000000", "not a paper at all"]}
    if task["subtask"] == "path":
        return {"papers": [task["from"]["title"], task["to"]["id"]]}
    return {"papers": []}
