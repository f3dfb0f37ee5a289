"""Core value types shared by the runtime, the construction pipeline and evaluation."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

PASS: Literal["PASS"] = "PASS"
FAIL: Literal["FAIL"] = "FAIL"
ABSTAIN: Literal["ABSTAIN"] = "ABSTAIN"
Label = Literal["PASS", "FAIL", "ABSTAIN"]


@dataclass(frozen=True, slots=True)
class Decision:
    """What one code module says about a triple: ``PASS``, ``FAIL`` or ``ABSTAIN`` with a short reason."""

    label: Label
    reason: str = ""

    @property
    def direct(self) -> bool:
        return self.label != ABSTAIN

    @property
    def correct(self) -> bool | None:
        return True if self.label == PASS else False if self.label == FAIL else None

    @classmethod
    def passed(cls, reason: str = "") -> Decision:
        return cls(PASS, reason)

    @classmethod
    def failed(cls, reason: str = "") -> Decision:
        return cls(FAIL, reason)

    @classmethod
    def abstain(cls, reason: str = "") -> Decision:
        if cls is Decision and type(reason) is str:  # immutable, and modules abstain with a few fixed reasons
            d = _ABSTAINS.get(reason)
            if d is None:
                d = cls(ABSTAIN, reason)
                if len(_ABSTAINS) < 4096:
                    _ABSTAINS[reason] = d
            return d
        return cls(ABSTAIN, reason)


_ABSTAINS: dict[str, Decision] = {}


@dataclass(frozen=True, slots=True)
class FallbackResult:
    """What a fallback judge returns. ``correct is None`` means it could not decide."""

    correct: bool | None
    reason: str = ""
    raw: str | None = None
    cached: bool = False
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Verdict:
    """The verifier's answer for one (question, reference, response) triple.

    ``artifact_warning`` is empty unless the release was loaded under conditions it was not
    validated with (a different answer toolkit): then it says so on every verdict.
    """

    correct: bool | None
    decided_by: str
    reason: str
    fallback_called: bool
    artifact_version: str
    elapsed_ms: float
    trace: tuple[tuple[str, str, str], ...] = field(default=(), compare=False, repr=False)
    artifact_warning: str = field(default="", compare=False)

    def to_dict(self, *, with_trace: bool = False) -> dict[str, Any]:
        d = asdict(self)
        if with_trace:
            d["trace"] = [list(t) for t in self.trace]
        else:
            d.pop("trace")
        return d
