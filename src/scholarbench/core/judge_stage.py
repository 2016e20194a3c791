"""The engine's judge stage (DESIGN.md "Judging is the engine's"; docs/write-a-benchmark.md).

A benchmark declares what it asks a judge — `JudgedItem`s from `Benchmark.judged_items`: a
name, a prompt version, the requests one sample makes and how a reply becomes a verdict — and
never runs a judge itself. The engine asks every judge of the panel (`--judge`, repeated), K
times each (`--judge-samples K`), keeps every verdict in `judge.<item>.jsonl`, and hands the
verdicts to `score_sample` (`ScoreContext.verdicts`).

Each verdict is kept under a key of who was asked what: sha256 of the judge's fingerprint
(`core.judging.JudgeIdentity`: model, base URL without secrets, temperature, seed), the item,
its prompt version, the repeat index and the request's messages. So a re-score with the same
judge and prompt asks nothing; another judge, another temperature or a changed prompt asks
again; and `--dry-run` counts exactly the requests not on file (`plan`, the same object the run
executes). A reply that stays unusable after the repair turn (`llm.structured.ask_json`) is an
`unscored` verdict (counted per judge, asked again next time); a call that fails after every
retry is `error` and makes the run incomplete (`core.judging.JudgeWatch`).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from scholarbench.core.concurrency import in_flight
from scholarbench.core.judging import JudgeIdentity, identities
from scholarbench.core.rundir import RunDir, read_stage
from scholarbench.core.usage import usage_snapshot, add_stage_usage
from scholarbench.core.writing import write_record
from scholarbench.llm.config import LOCAL
from scholarbench.llm.structured import JsonOutcome, ask_json
from scholarbench.llm.transcript import JUDGE_TEXT, transcript_scope
from scholarbench.llm.usage import sample_scope
from scholarbench.metrics.judge_panel import client_of, mean_defined, repeat_seed, seed_of


@dataclass(frozen=True)
class JudgeRequest:
    """One request about one sample: what in it is judged (`subject`: "answer", a claim id)
    and the chat messages (agent text inside `data_block`s)."""
    subject: str
    messages: tuple[dict[str, str], ...]
    expect: Any = None      # what the item's own `ask` needs to read the reply (how many
                            # labels it must list); not part of the key: the messages say it
    seed: int | None = None     # this request's own seed, for every judge (a vote i of N:
                                # i), repeat r asking `seed + r·seed_step`; None: the judge's
    seed_step: int = 0          # repeat seed (`metrics.judge_panel.repeat_seed`)
    temperature: float | None = None    # this request's own sampling temperature

    @property
    def input_hash(self) -> str:
        """sha256 of the messages (and of the request's own seed and temperature when it has
        them: two votes on one statement are two requests)."""
        own = {k: v for k, v in (("seed", self.seed), ("seed_step", self.seed_step),
                                 ("temperature", self.temperature)) if v}
        text = json.dumps(list(self.messages) + ([own] if own else []), sort_keys=True,
                          ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def seed_for(self, client: Any, repeat: int) -> int | None:
        """The seed repeat `repeat` of `client` asks this request with."""
        if self.seed is None:
            return repeat_seed(client, repeat)
        return self.seed + repeat * self.seed_step


@dataclass(frozen=True)
class JudgedItem:
    """What a benchmark asks a judge: `requests(sample, record)` builds one sample's requests
    (none: nothing to judge, e.g. no answer); `validate(parsed JSON)` returns the verdict or
    raises ValueError naming what is wrong (the judge is then asked once to repair)."""
    name: str                       # the stage; its records: judge.<name>.jsonl
    prompt_version: str             # change it with the prompt: old verdicts are not reused
    requests: Callable[[Any, dict[str, Any] | None], Sequence[JudgeRequest]]
    validate: Callable[[Any], Any]
    schema: dict[str, Any] | None = None     # the reply's JSON schema, sent where supported
    per_sample: int | None = 1      # requests per answered sample when fixed (the dry run's
                                    # bound before the answers); None: the answers decide
    bound: Callable[[Any], int] | None = None   # with per_sample None: at most this many
                                    # requests for one sample before its answer is known
    basis: str = ""                 # the dry run's rule for that bound ("1 per …")
    ask: Callable[[Any, JudgeRequest, int | None], JsonOutcome] | None = None
    # the reply protocol, when the benchmark's own (an upstream reply format with its own
    # repair turns): `ask(client, request, seed)`; a partly usable reply is an outcome with
    # both `value` and `unscored` (kept, handed on, asked again next time). Default:
    # `llm.structured.ask_json` with `validate` and `schema`
    panel: bool = True              # False: only the panel's first judge, once (no repeats) —
                                    # an extraction every later judgement must share
    needs: tuple[str, ...] = ()     # earlier items whose verdicts this one's requests read:
                                    # then `requests(sample, record, earlier)`, `earlier` their
                                    # `Verdicts` by name (a later step of one protocol)
    voters: tuple[Any, ...] = ()    # clients that answer this item besides the panel (the
                                    # API's extra vote judges of ReportBench), once each
    calls: int = 1                  # model calls one request makes, at most, before repairs
                                    # (a two-step protocol: 2) — the dry run's bound
    counted_by_needs: bool = False  # how many requests it makes depends on what the replies
                                    # of `needs` say (one per pair they found), not only on
                                    # the sample: no count before those are on file

    @property
    def file(self) -> str:
        return f"judge.{self.name}.jsonl"


def data_block(tag: str, text: str) -> str:
    """`text` as untrusted data inside `<tag> … </tag>`: every lookalike of the tag in it
    (any case, spaces after `<` or around `/`) has its `<` written `&lt;`, so the text can
    neither close its block nor open another."""
    lookalike = re.compile(r"<(?=\s*/?\s*" + re.escape(tag) + r"\b)", re.IGNORECASE)
    return f"<{tag}>\n{lookalike.sub('&lt;', text)}\n</{tag}>"


def verdict_key(judge: JudgeIdentity, item: JudgedItem, repeat: int,
                request: JudgeRequest) -> str:
    text = json.dumps([judge.fingerprint, item.name, item.prompt_version, repeat,
                       request.input_hash])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True)
class PlannedRequest:
    """One request of one judge, one repeat: what the run sends unless its key is on file."""
    sample: str
    request: JudgeRequest
    judge: JudgeIdentity
    repeat: int
    key: str


def requests_of(item: JudgedItem, sample: Any, record: dict[str, Any] | None,
                earlier: dict[str, "Verdicts"] | None = None) -> Sequence[JudgeRequest]:
    """One sample's requests of `item`; an item that `needs` earlier ones reads their verdicts
    (`earlier`; one not given reads as no verdict)."""
    if not item.needs:
        return item.requests(sample, record)
    given = earlier or {}
    return item.requests(sample, record, {n: given.get(n) or Verdicts(n) for n in item.needs})


def plan(item: JudgedItem, samples: Sequence[Any], generated: dict[str, dict[str, Any]],
         judges: Sequence[JudgeIdentity], repeats: int,
         earlier: dict[str, "Verdicts"] | None = None) -> list[PlannedRequest]:
    """Every request of `item` for the answered, scorable samples, per judge and repeat."""
    out = []
    for sample in samples:
        if sample.unscorable is not None:
            continue
        for request in requests_of(item, sample, generated.get(sample.id), earlier):
            for judge in judges:
                for k in range(repeats):
                    out.append(PlannedRequest(sample.id, request, judge, k,
                                              verdict_key(judge, item, k, request)))
    return out


def on_file(run: RunDir, item: JudgedItem) -> dict[str, dict[str, Any]]:
    """The usable verdicts on file (`ok` records), by key."""
    records = read_stage(run.file(item.file), "key").records
    return {k: r for k, r in records.items() if r.get("status") == "ok"}


@dataclass
class Verdicts:
    """One item's verdicts: sample id → subject → judge label → [verdict per repeat] (None
    where a reply stayed unusable or the call failed, `reasons` saying which; a partly usable
    reply's verdict where the item's own `ask` kept one)."""
    item: str
    by_sample: dict[str, dict[str, dict[str, list[Any]]]] = field(default_factory=dict)
    reasons: dict[str, dict[str, dict[str, list[str | None]]]] = field(default_factory=dict)
    asked: dict[str, int] = field(default_factory=dict)   # sample id → model calls this
                                    # scoring made for it (repairs included); absent: every
                                    # verdict of the sample came from the file

    def add(self, sample: str, subject: str, label: str, repeat: int, verdict: Any,
            reason: str | None = None) -> None:
        for store, value in ((self.by_sample, verdict), (self.reasons, reason)):
            per_judge = store.setdefault(sample, {}).setdefault(subject, {})
            slots = per_judge.setdefault(label, [])
            slots.extend([None] * (repeat + 1 - len(slots)))
            slots[repeat] = value

    def of(self, sample: str, subject: str = "answer") -> dict[str, list[Any]]:
        return self.by_sample.get(sample, {}).get(subject, {})

    def why(self, sample: str, subject: str = "answer") -> dict[str, list[str | None]]:
        """Why each verdict of `of` is None (the record's reason: an unusable reply, a failed
        call; None where the verdict is there or was never asked)."""
        return self.reasons.get(sample, {}).get(subject, {})

    def value(self, sample: str, subject: str = "answer") -> tuple[float | None, int]:
        """The panel's value (each judge's mean over its repeats, then the mean over the
        judges with a value: every judge weighs the same) and how many judges gave one."""
        per_judge = [mean_defined([float(v) for v in vs if v is not None])
                     for vs in self.of(sample, subject).values()]
        defined = [v for v in per_judge if v is not None]
        return mean_defined(defined), len(defined)


def request_usage(used: Any) -> dict[str, Any]:
    """One request's calls, tokens and cost (None: its model has no price; docs/cost.md)."""
    counts = used.as_dict()
    return {k: counts[k] for k in ("calls", "cache_hits", "prompt_tokens", "completion_tokens",
                                   "cost_usd")}


def record_judges(run: RunDir, item: JudgedItem, judges: Sequence[JudgeIdentity],
                  planned: Sequence[PlannedRequest]) -> None:
    """The manifest's `judged.<item>`: the prompt version and every judge of this scoring
    (label, usage role, model, base URL without secrets, temperature, seed, each repeat's
    seed, fingerprint) — written here only, once per scoring."""
    manifest = run.read_manifest()
    repeats = 1 + max((p.repeat for p in planned), default=0)
    manifest.setdefault("judged", {})[item.name] = {
        "prompt": item.prompt_version, "repeats": repeats, "requests": len(planned),
        "judges": [{"label": j.label, "role": j.role, "model": j.model,
                    "base_url": j.base_url, "temperature": j.temperature, "seed": j.seed,
                    "seeds": [seed_of(j.seed, k) for k in range(repeats)],
                    "fingerprint": j.fingerprint} for j in judges]}
    run.write_manifest(manifest)


def panel_of(item: JudgedItem, judges: Sequence[Any], repeats: int
             ) -> tuple[list[Any], int]:
    """The judges and repeats that answer `item`: the whole panel K times, or (an item with
    `panel` False) the first judge once."""
    return (list(judges), repeats) if item.panel else (list(judges)[:1], 1)


def judge_stage(run: RunDir, item: JudgedItem, samples: Sequence[Any],
                generated: dict[str, dict[str, Any]], models: Any, *, id_key: str = "id",
                progress: bool = True, earlier: dict[str, Verdicts] | None = None
                ) -> Verdicts:
    """Ask what is not on file, write each verdict as it comes, return them all (`earlier`:
    the verdicts of the items this one `needs`)."""
    from tqdm import tqdm                     # the progress bar: not needed to import this
    clients, repeats = panel_of(item, [client_of(j) for j in models.judges()],
                                int(getattr(models, "judge_samples", 1) or 1))
    clients += [c for c in item.voters if all(c is not k for k in clients)]
    idents = identities(clients)
    by_fp = {i.fingerprint: c for i, c in zip(idents, clients)}
    planned = plan(item, samples, generated, idents, repeats, earlier)
    done = on_file(run, item)
    todo = list({p.key: p for p in planned if p.key not in done}.values())
    before = {fp: usage_snapshot(c) for fp, c in by_fp.items()}
    workers = max(1, min(int(getattr(getattr(c, "config", None), "concurrency", 1) or 1)
                         for c in clients))

    def ask(p: PlannedRequest) -> dict[str, Any]:
        client = by_fp[p.judge.fingerprint]
        seed = p.request.seed_for(client, p.repeat)
        own = {} if p.request.temperature is None else {"temperature": p.request.temperature}
        with sample_scope() as used, transcript_scope(JUDGE_TEXT) as exchange:   # its cost
            outcome = (item.ask(client, p.request, seed) if item.ask is not None  # and calls
                       else ask_json(client, list(p.request.messages), validate=item.validate,
                                     schema=item.schema, name=item.name, seed=seed, **own))
        record: dict[str, Any] = {"key": p.key, id_key: p.sample, "subject": p.request.subject,
                                  "judge": p.judge.label, "fingerprint": p.judge.fingerprint,
                                  "repeat": p.repeat, "prompt": item.prompt_version,
                                  "attempts": outcome.attempts, "usage": request_usage(used),
                                  "exchange": exchange.as_record()}
        if outcome.ok:
            record.update(status="ok", verdict=outcome.value)
        elif str(outcome.unscored).startswith("call failed"):
            record.update(status="error", verdict=None, reason=outcome.unscored)
        else:
            record.update(status="unscored", verdict=outcome.value, reason=outcome.unscored)
        return record

    asked: dict[str, int] = {}
    try:
        bar = tqdm(total=len(todo), desc=item.name, unit="call",
                   disable=not progress or not todo)
        for _, record in in_flight(todo, ask, workers):
            write_record(run, item.file, record, "key")
            done[record["key"]] = record
            sample = str(record[id_key])
            asked[sample] = asked.get(sample, 0) + int(record.get("attempts") or 0)
            bar.update()
        bar.close()
    finally:
        for ident in idents:
            add_stage_usage(run, item.name, ident.role, by_fp[ident.fingerprint],
                            before[ident.fingerprint])
        record_judges(run, item, idents, planned)
    verdicts = collect(item, planned, done)
    verdicts.asked = asked
    return verdicts


def collect(item: JudgedItem, planned: Sequence[PlannedRequest],
            records: dict[str, dict[str, Any]]) -> Verdicts:
    """The verdicts of `planned` from `records` (by key)."""
    verdicts = Verdicts(item.name)
    for p in planned:
        rec = records.get(p.key)
        ok = rec is not None and rec.get("status") == "ok"
        verdicts.add(p.sample, p.request.subject, p.judge.label, p.repeat,
                     rec.get("verdict") if rec else None,      # None: failed or unusable
                     None if ok or rec is None else rec.get("reason"))
    return verdicts


def judged_entry(manifest: dict[str, Any], item: str) -> dict[str, Any] | None:
    """The manifest's `judged.<item>` (`record_judges`); None for a run its item was not judged
    in by this stage (an older run keeps its benchmark's own keys)."""
    judged = manifest.get("judged")
    entry = judged.get(item) if isinstance(judged, dict) else None
    return entry if isinstance(entry, dict) else None


def recorded_judges(entry: dict[str, Any]) -> list[dict[str, Any]]:
    return [j for j in entry.get("judges") or [] if isinstance(j, dict)]


def judge_model_id(judge: dict[str, Any]) -> str | None:
    """A recorded judge's model id as its client names it ("BASE_URL|model"); the packaged
    local model under its recorded name ("local:<model>")."""
    model = judge.get("model")
    if not model:
        return None
    if str(model).split(":")[0] == LOCAL and not judge.get("base_url"):
        return str(model)
    return f"{judge.get('base_url') or 'openai'}|{model}"


def judge_seeds(judge: dict[str, Any], repeats: int) -> list[int | None]:
    """Each repeat's seed as recorded (`record_judges`), or as `repeat_seed` derives it."""
    return judge.get("seeds") or [seed_of(judge.get("seed"), k) for k in range(repeats)]


def recorded(run: RunDir, item: JudgedItem, samples: Sequence[Any],
             generated: dict[str, dict[str, Any]],
             earlier: dict[str, Verdicts] | None = None) -> Verdicts | None:
    """The verdicts on file of the judges and repeats the manifest's `judged.<item>` names,
    asking nothing (a re-score that reads its judgements); None when it names none or another
    prompt version."""
    entry = judged_entry(run.read_manifest(), item.name)
    if entry is None or entry.get("prompt") != item.prompt_version:
        return None
    judges = [JudgeIdentity(j["label"], j["role"], j["model"], j.get("base_url"),
                            j.get("temperature"), j.get("seed"))
              for j in recorded_judges(entry)]
    planned = plan(item, samples, generated, judges, int(entry.get("repeats") or 1), earlier)
    return collect(item, planned, read_stage(run.file(item.file), "key").records)


__all__ = ["JudgeRequest", "JudgedItem", "PlannedRequest", "Verdicts", "collect", "data_block",
           "judge_model_id", "judge_seeds", "judge_stage", "judged_entry", "on_file",
           "panel_of", "plan",
           "recorded", "requests_of", "recorded_judges", "verdict_key"]
