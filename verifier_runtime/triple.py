"""The object every code module receives: one triple plus lazily cached parsed views.

Modules call e.g. ``x.answer`` (the response's extracted final answer) or ``x.cues``; each
view is computed once per triple, on first use, so a cascade of many modules pays for
extraction and parsing once. Views never raise: a view that cannot be computed is ``None``.
"""

from __future__ import annotations

from typing import Any

from verifier_runtime.limits import MAX_QUESTION_CHARS, MAX_REFERENCE_CHARS, MAX_RESPONSE_CHARS
from verifier_runtime.toolkit.choices import parse_options
from verifier_runtime.toolkit.commit import commitment_of
from verifier_runtime.toolkit.compare import parse_answer
from verifier_runtime.toolkit.criterion import (
    asked_statement,
    numeric_aliases,
    question_commitment,
    several_allowed,
)
from verifier_runtime.toolkit.cues import question_cues
from verifier_runtime.toolkit.extract import extract_final_answer, extract_reference
from verifier_runtime.toolkit.numbers import parse_number
from verifier_runtime.toolkit.units import parse_quantity

_UNSET = object()  # a view not computed yet (``None`` is a computed value: "cannot be read")


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, int | float | bool):
        return str(value)
    return ""


class Triple:
    """``(question, reference, response)`` with cached views for modules.

    Inputs are coerced to ``str`` (``None`` and non-text become ``""``) and NUL bytes are
    removed. ``oversized`` is set when an input exceeds the hard limits; modules abstain on
    such triples before doing any work.
    """

    __slots__ = ("question", "reference", "response", "oversized", "_cache")

    def __init__(self, question: Any, reference: Any, response: Any) -> None:
        q, r, s = _as_text(question), _as_text(reference), _as_text(response)
        self.oversized = len(q) > MAX_QUESTION_CHARS or len(r) > MAX_REFERENCE_CHARS or len(s) > MAX_RESPONSE_CHARS
        if self.oversized:
            q, r, s = q[:MAX_QUESTION_CHARS], r[:MAX_REFERENCE_CHARS], s[-MAX_RESPONSE_CHARS:]
        # a NUL is rare: ``in`` rules it out with a fast search, where replace() scans character by character
        self.question = q.replace("\x00", "") if "\x00" in q else q
        self.reference = r.replace("\x00", "") if "\x00" in r else r
        self.response = s.replace("\x00", "") if "\x00" in s else s
        self._cache: dict[str, Any] = {}

    def _get(self, key: str, compute):
        try:
            value = compute()
        except Exception:  # a view is best-effort; BudgetExceeded (a BaseException) still propagates
            value = None
        self._cache[key] = value
        return value

    # --- extraction -------------------------------------------------------------------
    @property
    def answer_info(self):
        """The response's :class:`~verifier_runtime.toolkit.extract.Extracted` final answer."""
        value = self._cache.get("answer_info", _UNSET)
        if value is _UNSET:
            value = self._get("answer_info", lambda: extract_final_answer(self.response, self.question))
        return value

    @property
    def commitment(self):
        """The :class:`~verifier_runtime.toolkit.commit.Commitment` of the final answer: what the
        response commits to after retractions and negations, and the candidates it offers."""
        value = self._cache.get("commitment", _UNSET)
        if value is _UNSET:
            info = self.answer_info
            # the readings that need the question ("3 and 1/2", "x=2,3", "42 (6 × 7)", "27 C")
            value = self._get("commitment", lambda: question_commitment(commitment_of(info), self)
                              if info is not None else None)
        return value

    @property
    def answer(self) -> str | None:
        """The final committed answer, or ``None`` when the response commits to none a module may
        compare: no answer, a retracted or only negated one, or several candidates where one value
        is asked (a hedge or a list: ``docs/criterion.md`` R2). Several values where several are
        asked come joined by ``", "``."""
        value = self._cache.get("answer", _UNSET)
        if value is _UNSET:
            value = self._get("answer", self._committed_answer)
        return value

    def _committed_answer(self) -> str | None:
        c = self.commitment
        if c is None or c.answer is None:
            return None
        if not c.several:
            one = c.candidates[0] if c.candidates else c.answer
            # "The perimeter is 12, and the area is 16." for "What is its area?": the asked statement
            return asked_statement(one, self.question) or one
        return c.answer if several_allowed(self) else None

    @property
    def raw_answer(self) -> str | None:
        """The extracted final answer before the commitment is read (for diagnostics)."""
        info = self.answer_info
        return None if info is None else info.answer

    @property
    def reference_info(self):
        value = self._cache.get("reference_info", _UNSET)
        if value is _UNSET:
            value = self._get("reference_info", lambda: extract_reference(self.reference))
        return value

    @property
    def ref(self) -> str | None:
        """The reference's final answer (a worked solution is reduced to its final answer)."""
        value = self._cache.get("ref", _UNSET)  # kept on its own: the view modules read most
        if value is _UNSET:
            info = self.reference_info
            value = self._cache["ref"] = None if info is None else info.answer
        return value

    # --- question ---------------------------------------------------------------------
    @property
    def cues(self):
        value = self._cache.get("cues", _UNSET)
        if value is _UNSET:
            value = self._get("cues", lambda: question_cues(self.question))
        return value

    @property
    def options(self) -> dict[str, str]:
        value = self._cache.get("options", _UNSET)
        if value is _UNSET:
            value = self._get("options", lambda: parse_options(self.question))
        return value or {}

    # --- typed answers ----------------------------------------------------------------
    @property
    def parsed_answer(self):
        """The response's final answer as a typed :class:`~verifier_runtime.toolkit.compare.Answer`."""
        value = self._cache.get("parsed_answer", _UNSET)
        if value is _UNSET:
            value = self._get("parsed_answer", lambda: parse_answer(self.answer) if self.answer else None)
        return value

    @property
    def numeric_alias_ref(self) -> bool:
        """The reference lists whole-number alternatives (``1984/2010`` to "when ..."): no single
        typed value; the typed reference views are ``None`` and the judge tries each alternative."""
        value = self._cache.get("numeric_alias_ref", _UNSET)
        if value is _UNSET:
            ref = self.ref or ""
            value = self._get("numeric_alias_ref", lambda: "/" in ref and bool(numeric_aliases(ref, self.question)))
        return value

    @property
    def parsed_ref(self):
        value = self._cache.get("parsed_ref", _UNSET)
        if value is _UNSET:
            value = self._get("parsed_ref", lambda: parse_answer(self.ref) if self.ref and not self.numeric_alias_ref
                             else None)
        return value

    @property
    def number_answer(self):
        """The response's final answer as a :class:`~verifier_runtime.toolkit.numbers.Number` (or None)."""
        value = self._cache.get("number_answer", _UNSET)
        if value is _UNSET:
            value = self._get("number_answer", lambda: parse_number(self.answer) if self.answer else None)
        return value

    @property
    def number_ref(self):
        value = self._cache.get("number_ref", _UNSET)
        if value is _UNSET:
            value = self._get("number_ref", lambda: parse_number(self.ref) if self.ref and not self.numeric_alias_ref
                             else None)
        return value

    @property
    def quantity_answer(self):
        """The response's final answer as a :class:`~verifier_runtime.toolkit.units.Quantity` (or None)."""
        value = self._cache.get("quantity_answer", _UNSET)
        if value is _UNSET:
            value = self._get("quantity_answer", lambda: parse_quantity(self.answer) if self.answer else None)
        return value

    @property
    def quantity_ref(self):
        value = self._cache.get("quantity_ref", _UNSET)
        if value is _UNSET:
            value = self._get("quantity_ref", lambda: parse_quantity(self.ref) if self.ref else None)
        return value

    def view(self, name: str, compute):
        """A custom cached view: ``x.view("key", lambda: ...)`` for module-specific parsing."""
        key = "custom:" + name
        value = self._cache.get(key, _UNSET)
        if value is _UNSET:
            value = self._get(key, compute)
        return value

    def memo(self, key: tuple, compute):
        """``compute()`` once per triple under ``key``: for the toolkit's rules that several modules
        ask with the same arguments (a module that abstains after its guard, then the next one with
        the same comparison). Unlike a view, an error is not kept: it propagates, and the next call
        computes again, exactly as without the memo."""
        k = ("memo", key)
        value = self._cache.get(k, _UNSET)
        if value is _UNSET:
            value = compute()
            self._cache[k] = value
        return value

    def __repr__(self) -> str:
        return f"Triple(question={self.question[:40]!r}, reference={self.reference[:40]!r}, response={self.response[:40]!r})"
