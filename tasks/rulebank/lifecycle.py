"""A module's life, like a linter rule's: ``preview`` -> ``active`` -> ``retired`` (and back).

- Construction proposes: every module it accepts is written as ``preview``; a preview module
  is in the source with its evidence, but in no release.
- A reviewed change activates it: ``autoverifier rules activate ID --why ...`` by a person,
  committed and reviewed like code (see ``docs/construction.md``). Only ``active`` modules go
  into a release (``rules build``).
- ``rules retire ID --why ...`` takes a module out of the next release (its folder stays,
  with the reason); ``rules restore ID`` brings it back to the status it had.

Each transition is a pure function from a card to a new card; it appends to the card's
``history`` (status, previous status, why), so the card tells its own story and the commit
that changed it tells who and when.
"""

from __future__ import annotations

import copy
from typing import Any

from tasks.rulebank.source import RuleBankError


def _transition(card: dict[str, Any], status: str, why: str) -> dict[str, Any]:
    why = " ".join(str(why or "").split())
    if not why:
        raise RuleBankError(f"{card.get('id')}: say why (--why)")
    new = copy.deepcopy(card)
    new["history"] = [*new.get("history", []), {"status": status, "from": card.get("status"), "why": why}]
    new["status"] = status
    return new


def activate(card: dict[str, Any], why: str) -> dict[str, Any]:
    """``preview`` -> ``active``: the module goes into the next release."""
    if card.get("status") != "preview":
        raise RuleBankError(f"{card.get('id')} is {card.get('status')}: only a preview module can be activated"
                            + (" (restore a retired one with `rules restore`)" if card.get("status") == "retired" else ""))
    return _transition(card, "active", why)


def retire(card: dict[str, Any], why: str) -> dict[str, Any]:
    """``active`` or ``preview`` -> ``retired``: the module leaves the next release."""
    if card.get("status") not in ("active", "preview"):
        raise RuleBankError(f"{card.get('id')} is already {card.get('status')}")
    new = _transition(card, "retired", why)
    new["retired_why"] = new["history"][-1]["why"]
    return new


def restore(card: dict[str, Any], why: str = "restored") -> dict[str, Any]:
    """``retired`` -> the status it had before it was retired."""
    if card.get("status") != "retired":
        raise RuleBankError(f"{card.get('id')} is {card.get('status')}, not retired")
    before = next((h.get("from") for h in reversed(card.get("history", [])) if h.get("status") == "retired"), None)
    new = _transition(card, before if before in ("active", "preview") else "preview", why)
    new.pop("retired_why", None)
    return new
