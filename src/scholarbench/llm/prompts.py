"""Versioned prompt files: `prompts/<name>.txt` in a package, the name carrying the version.

`{field}` placeholders are filled in one pass (a value containing `{x}` stays literal), and every
placeholder must get a value and every value a placeholder. `identity()` (name + sha256 prefix)
is what results record, so a changed prompt file is visible in every run that used it.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class Prompt:
    name: str
    text: str
    sha256: str
    fields: frozenset[str]

    def fill(self, **values: object) -> str:
        """Every placeholder replaced; KeyError naming one left unfilled or one unknown."""
        missing, extra = self.fields - set(values), set(values) - self.fields
        if missing or extra:
            raise KeyError(f"prompt {self.name}: missing {sorted(missing)}, "
                           f"unknown {sorted(extra)}")
        return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), self.text)

    def identity(self) -> str:
        return f"{self.name}@{self.sha256[:12]}"


def make_prompt(name: str, text: str) -> Prompt:
    return Prompt(name, text, hashlib.sha256(text.encode("utf-8")).hexdigest(),
                  frozenset(_PLACEHOLDER.findall(text)))


@lru_cache(maxsize=None)
def load_package_prompt(package: str, name: str, *, strip_final_newline: bool = False) -> Prompt:
    """`prompts/<name>.txt` of `package` (package data)."""
    path = resources.files(package).joinpath(f"prompts/{name}.txt")
    if not path.is_file():
        raise ValueError(f"unknown prompt {name!r} in {package}")
    text = path.read_text(encoding="utf-8")
    if strip_final_newline and text.endswith("\n"):
        text = text[:-1]
    return make_prompt(name, text)
