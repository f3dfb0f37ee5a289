"""The shared example schema every loader produces."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(slots=True)
class Example:
    """One labelled verification triple.

    ``label`` is True when the response's final answer is correct against the reference.
    ``split`` is ``construction`` or ``evaluation`` (or a pool-specific name); ``meta`` holds
    source-specific fields (answer_type, original ids, line numbers, ...).
    """

    id: str
    question: str
    reference: str
    response: str
    label: bool
    source: str
    domain: str = ""
    split: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def stable_id(*parts: str) -> str:
    """A short deterministic id from text parts (sha256 prefix)."""
    h = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return h[:16]
