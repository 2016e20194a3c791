"""The typed result of `verify`: one `Check` per line, and the verdict they make."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# ok: agrees; differs: the verifier's rebuild disagrees (listed); refused: the submission
# cannot be checked or does not match the verifier's data; info: reported, not judged (code
# versions, a re-judge's agreement); skipped: not applicable to this run
CheckVerdict = Literal["ok", "differs", "refused", "info", "skipped"]
VERIFIED, WITH_DIFFERENCES, REFUSED = "verified", "verified with differences", "refused"
EXIT = {VERIFIED: 0, WITH_DIFFERENCES: 1, REFUSED: 2}


@dataclass(frozen=True)
class Check:
    """One line of `verify`: which check, on what (a run's folder, a suite, the submission),
    its verdict, a one-line detail and the differences it lists."""
    name: str
    scope: str
    verdict: CheckVerdict
    detail: str
    differences: tuple[str, ...] = ()

    def lines(self, limit: int = 20) -> list[str]:
        out = [f"{self.verdict:<8} {self.scope}: {self.name}: {self.detail}"]
        out += [f"           - {d}" for d in self.differences[:limit]]
        if len(self.differences) > limit:
            out.append(f"           … and {len(self.differences) - limit} more")
        return out


@dataclass
class Verification:
    """Every check of a submission, in order, and the verdict they make."""
    checks: list[Check] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        verdicts = {c.verdict for c in self.checks}
        if "refused" in verdicts:
            return REFUSED
        return WITH_DIFFERENCES if "differs" in verdicts else VERIFIED

    @property
    def reasons(self) -> list[str]:
        """The checks behind the verdict (refusals, else differences)."""
        worst = "refused" if self.verdict == REFUSED else "differs"
        return [f"{c.scope}: {c.name}" for c in self.checks if c.verdict == worst]

    @property
    def exit_code(self) -> int:
        return EXIT[self.verdict]

    def verdict_line(self) -> str:
        reasons = self.reasons
        return f"verdict: {self.verdict}" + (f" ({'; '.join(reasons)})" if reasons else "")


__all__ = ["Check", "CheckVerdict", "EXIT", "REFUSED", "VERIFIED", "Verification",
           "WITH_DIFFERENCES"]
