"""Metric names that print and parse back: `sem_path`, `sem_path(lambda=0.5)`, `nDCG@10`, `RR`.

A name's printed form is its key in every results file. Parameters equal to their defaults are
left out of the printed form, so the paper's setting prints as the bare name.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_NAME = re.compile(r"^(?P<base>[A-Za-z][A-Za-z0-9_]*)(?:@(?P<cut>\d+))?(?:\((?P<params>[^()]*)\))?$")


@dataclass(frozen=True)
class MetricName:
    base: str
    cutoff: int | None = None
    params: tuple[tuple[str, float], ...] = field(default_factory=tuple)

    def __str__(self) -> str:
        out = self.base + (f"@{self.cutoff}" if self.cutoff is not None else "")
        if self.params:
            out += "(" + ",".join(f"{k}={_fmt(v)}" for k, v in self.params) + ")"
        return out

    @classmethod
    def parse(cls, text: str, defaults: dict[str, float] | None = None) -> "MetricName":
        match = _NAME.match(text.strip())
        if not match:
            raise ValueError(f"not a metric name: {text!r}")
        params = {}
        if match["params"]:
            for item in match["params"].split(","):
                key, sep, value = item.partition("=")
                if not sep:
                    raise ValueError(f"parameter without '=' in {text!r}")
                params[key.strip()] = float(value)
        defaults = defaults or {}
        kept = tuple(sorted((k, v) for k, v in params.items() if defaults.get(k) != v))
        cut = int(match["cut"]) if match["cut"] else None
        return cls(match["base"], cut, kept)


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
