"""Model prices: what a call costs, from the user's own price table (docs/cost.md).

Prices are US dollars per million tokens, input and output, per model name. They come from
`--price MODEL=IN/OUT` (repeatable) or the config file's `[prices]` table (`"gpt-4o" = [2.5,
10.0]`); a role's own `price_input_per_mtok` / `price_output_per_mtok` in its table comes
between the two. None is built in: a shipped table would go stale without anyone noticing.
The packaged local model costs nothing. A model without a price has a cost of None (its tokens
and calls are still counted and shown).
"""
from __future__ import annotations

import math
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from scholarbench.errors import ScholarbenchError

Prices = dict[str, tuple[float, float]]        # model name → (input, output) $ per 1M tokens
FLAG_KEY = "prices"                             # where a role's flags carry the --price table


def _price(value: Any, where: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ScholarbenchError(f"{where}: a price is a number of dollars per million tokens, "
                                f"not {value!r}") from None
    if not math.isfinite(number) or number < 0:
        raise ScholarbenchError(f"{where}: a price must be a finite number >= 0, not {value!r}")
    return number


def parse_price_flags(values: Iterable[str] | None) -> Prices:
    """`--price MODEL=IN/OUT` flags, e.g. `gpt-4o=2.5/10`."""
    out: Prices = {}
    for text in values or ():
        model, sep, pair = str(text).rpartition("=")
        inp, slash, outp = pair.partition("/")
        if not sep or not model.strip() or not slash:
            raise ScholarbenchError(f"--price {text!r}: give MODEL=IN/OUT, dollars per million "
                                    "input and output tokens (e.g. --price gpt-4o=2.5/10)")
        out[model.strip()] = (_price(inp, f"--price {text}"), _price(outp, f"--price {text}"))
    return out


def read_price_table(path: Path | None) -> Prices:
    """The config file's `[prices]` table (none: {})."""
    if path is None:
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, OSError):
        return {}                       # the model tables' reader reports a bad file
    table = data.get("prices")
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise ScholarbenchError(f"{path}: [prices] must be a table of MODEL = [IN, OUT]")
    out: Prices = {}
    for model, pair in table.items():
        where = f"{path} [prices] {model}"
        if not isinstance(pair, list) or len(pair) != 2:
            raise ScholarbenchError(f"{where}: give [IN, OUT], dollars per million input and "
                                    "output tokens (e.g. \"gpt-4o\" = [2.5, 10.0])")
        out[str(model)] = (_price(pair[0], where), _price(pair[1], where))
    return out


def apply_prices(config: Any, flag_prices: Mapping[str, Any] | None, file_prices: Prices) -> Any:
    """`config` with its model's price: `--price` first, then the role's own price keys, then
    the `[prices]` table; unchanged when none names its model."""
    source = dict(getattr(config, "source", {}) or {})
    hit = (flag_prices or {}).get(config.model)
    where = "flag"
    if hit is None and config.price_input_per_mtok is None \
            and config.price_output_per_mtok is None:
        hit, where = file_prices.get(config.model), "file"
    if hit is None:
        return config
    source.update(price_input_per_mtok=where, price_output_per_mtok=where)
    return replace(config, price_input_per_mtok=float(hit[0]),
                   price_output_per_mtok=float(hit[1]), source=source)


__all__ = ["FLAG_KEY", "Prices", "apply_prices", "parse_price_flags", "read_price_table"]
