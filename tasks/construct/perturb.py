"""Metamorphic checks of a candidate: rewrites of its support examples whose verdict is known.

For each support example (a cluster example the candidate decides correctly) the generator's own
variant makers (:mod:`tasks.data.variants`) write rewrites into the example's own response, at
its final answer's span (:mod:`tasks.data.carriers`), exactly as the pool's constructed variants
are written:

- **value-preserving** rewrites of an example the candidate PASSes (another number form, LaTeX
  spelling, set order, unit, equal expression, label, alias, ...; correct by their type's rule)
  must not be FAILed;
- value-preserving rewrites of the *wrong* answer of an example it FAILs (the same exact
  rewrites of the response's own value, which stays different from the reference) must not be
  PASSed;
- **must-not-pass** rewrites of the reference (hedges, lists, a restatement of the question,
  a case-flipped symbol, a negation or retraction, and every form-requirement violation under
  the question's own cue or an added cue sentence; incorrect by their type's rule) must not be
  PASSed.

Abstaining is always allowed: a module may decline what it was not learned for. A rewrite that
cannot be written into the support response itself (its answer span not located, or a placement
the response does not fit) is skipped, never replaced by a template. Everything is seeded by the
example's id and the round's seed, so the same pool and seed give the same rewrites.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tasks.data.schema import Example, ResponseText
from verifier_runtime.types import FAIL, PASS

#: rewrites of the reference that keep its value (their label: correct); a PASS must not become a FAIL
PRESERVING = ("equiv.number_form", "equiv.latex_spelling", "equiv.set_order", "equiv.unit_conversion",
              "equiv.expression", "equiv.within_tolerance", "equiv.unreduced_fraction",
              "equiv.unsimplified_radical", "equiv.interval_inequality", "equiv.labelled", "equiv.text_form",
              "equiv.bool_word", "case.ordinary_word", "choice.option_text", "choice.letter_and_text")
#: exact rewrites of a wrong answer's own value (its value, and so its label, stays): a FAIL must not become a PASS
PRESERVING_WRONG = ("equiv.number_form", "equiv.latex_spelling", "equiv.set_order", "equiv.expression",
                    "equiv.labelled")
#: hedged, restated, case-flipped, negated, retracted and form-violating versions (label: incorrect)
MUST_NOT_PASS = ("hedge.alternatives", "hedge.multiple_boxes", "enumeration.list", "enumeration.letters",
                 "restatement.question", "case.symbol", "negation.reference", "retraction.from_reference",
                 "retraction.no_answer_left", "form.fraction_required", "form.decimal_required",
                 "form.lowest_terms", "form.decimal_places", "form.sig_figs", "form.percent_required",
                 "form.interval_notation", "form.expand_factor", "form.exact_required", "form.unit_required",
                 "form.mixed_number", "form.radical_form")


@dataclass(frozen=True)
class Perturbation:
    """One rewrite of a support example and the decision it must not get."""

    index: int  # the support example's position in the pool state
    variant: str  # the variant type that wrote it
    detail: str  # the rewrite's kind
    question: str
    reference: str
    response: str
    written: str  # the rewritten final answer as written into the response
    label: bool  # the rewrite's label (its variant type's rule)
    forbidden: str  # PASS or FAIL

    @property
    def kind(self) -> str:
        return "must_not_pass" if self.variant in MUST_NOT_PASS else "preserving"


def _rng(seed: int, *parts: str) -> random.Random:
    h = hashlib.sha256("\x1f".join((str(seed), *parts)).encode()).digest()
    return random.Random(int.from_bytes(h[:8], "big"))


def _base(ex: Example):
    """The example's question and reference as a generator base (the answer object the example's
    own metadata records, when it records one)."""
    from tasks.data.diagnostics import base_from_example

    b = base_from_example(ex)
    obj = (ex.meta or {}).get("answer_object")
    if obj:
        b.answer_object = str(obj)
    return b


def other_answers(examples: Sequence[Example]) -> dict[tuple[str, str], list[str]]:
    """Answers of the pool's questions by (source, answer object), from what the examples record
    (the generator's hedges and lists of text answers need another question's answer)."""
    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    for e in examples:
        m = e.meta or {}
        aliases = m.get("reference_aliases") or []
        ans = m.get("base_answer") or (aliases[0] if aliases else "") or m.get("final_answer")
        obj = m.get("answer_object") or ("text" if e.source.startswith("evouna") else "")
        if ans and obj:
            out[(e.source, str(obj))].add(str(ans))
    return {k: sorted(v) for k, v in out.items()}


def _carrier_bank(ex: Example, answer: str):
    from tasks.data.diagnostics import CarrierBank

    resp = ResponseText(id=ex.id, question=ex.question, reference=ex.reference, text=ex.response, source=ex.source,
                        answer=answer, domain=ex.domain,
                        meta={"kind": "support_response", "question_key": ex.question_key})
    return CarrierBank([resp])


def _written(made: Example) -> str:
    return str(made.meta.get("written_answer") or "")


def perturbations(ex: Example, index: int, decision: str, answer: str | None, *, seed: int,
                  ctx: dict[str, Any]) -> list[Perturbation]:
    """The rewrites of support example ``ex`` (decided ``decision`` correctly; ``answer``: its
    committed final answer) with the decision each must not get."""
    from tasks.data import answers as A
    from tasks.data.diagnostics import make_variant
    from tasks.data.variants import _no_form_cue, variant_type

    if not answer or decision not in (PASS, FAIL):
        return []
    bank = _carrier_bank(ex, answer)
    b = _base(ex)
    out: list[Perturbation] = []

    def add(names: Sequence[str], base, forbidden: str, label: bool | None, keep=None) -> None:
        for name in names:
            vt = variant_type(name)
            if base.answer_object not in vt.objects:
                continue
            try:
                made = make_variant(base, vt, _rng(seed, ex.id, name, forbidden), ctx, bank)
            except Exception:  # noqa: BLE001 - a maker that cannot handle this answer writes no rewrite
                continue
            if made is None or (made.meta.get("carrier") or {}).get("relation") != "same_question":
                continue  # not written into the support response itself
            if made.response == ex.response and (made.question or ex.question) == ex.question:
                continue
            if "$" in _written(made) and "\\boxed{$" in made.response:
                continue  # math delimiters written inside a box: not a clean rewrite
            if keep is not None and not keep(made):
                continue
            out.append(Perturbation(index, name, str(made.meta.get("variant_detail") or ""), made.question,
                                    ex.reference, made.response, _written(made),
                                    made.label if label is None else label, forbidden))

    if decision == PASS:
        add(PRESERVING, b, FAIL, None)
    elif _no_form_cue(ex.question) and A.different(b.reference, answer):
        # the wrong answer's own value, rewritten exactly: still different from the reference
        wrong = type(b)(b.id, ex.question, answer, answer, A.answer_object(answer, ex.question), b.source, b.domain,
                        {"question_key": b.question_key})
        add(PRESERVING_WRONG, wrong, PASS, False, keep=lambda m: A.different(b.reference, _written(m)))
    add(MUST_NOT_PASS, b, PASS, None)
    return out


def excerpt(text: str, n: int = 160, *, tail: bool = False) -> str:
    """``text`` on one line, at most ``n`` characters (its end when ``tail``)."""
    t = " ".join(str(text or "").split())
    if len(t) <= n:
        return t
    return "..." + t[-(n - 3):] if tail else t[: n - 3] + "..."
