"""Variant types: constructed responses whose label a rule of the criterion sets.

Each :class:`VariantType` names its family, the label it gives, the rule of
``docs/criterion.md`` that sets that label, and a maker that writes the variant's final answer
from a :class:`Base` (a question with its reference). The maker uses the toolkit to confirm
what it built (an "equivalent rewrite" must compare equal to the reference, a "near miss" must
compare different, a question cue must be read as the form requirement it states), never to
decide the label. ``docs/criterion.md`` ("Constructed variants: the rule behind each label")
lists every type with its rule; ``tests/test_variants.py`` tests each.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tasks.data import answers as A
from tasks.data.schema import QuestionItem

__all__ = ["VARIANT_TYPES", "Base", "Made", "VariantType", "variant_type"]


#: What variants are made from: a question with its reference and the bare answer to vary
#: (``meta["question_key"]`` ties it to its question across sources).
Base = QuestionItem


@dataclass(slots=True)
class Made:
    """A variant's final answer (or whole response) and how it must be written.

    ``placement``: ``span`` (``answer`` at the carrier's final answer span), ``prose`` (the
    same, on a carrier whose answer is marked by words, not a box), ``boxes`` (``boxes`` in
    place of the carrier's final box), ``truncate`` (the carrier cut before its answer),
    ``whole`` (``response`` is the whole response).
    """

    label: bool
    answer: str = ""
    placement: str = "span"
    after: str = ""
    boxes: list[str] | None = None
    response: str | None = None
    question: str | None = None  # the question with an added cue sentence
    cue: str = ""  # "question" (the question's own cue) or "added: <sentence>"
    detail: str = ""  # the rewrite's kind
    check: str = ""  # what the toolkit confirmed


@dataclass(frozen=True, slots=True)
class VariantType:
    """``label``: the label every variant of this type gets; ``rule``: the criterion rule that
    sets it; ``code``: the criterion's reason code for an incorrect label."""

    name: str
    family: str
    label: bool
    rule: str
    doc: str
    objects: frozenset[str]
    make: Callable[[Base, random.Random, dict[str, Any]], Made | None]
    code: str = ""


# --------------------------------------------------------------------------- helpers


@lru_cache(maxsize=8192)
def cues(question: str):
    from verifier_runtime.toolkit.cues import question_cues

    return question_cues(question)


def _reqs(question: str) -> tuple[str, ...]:
    return tuple(cues(question).form_requirements)


def _no_form_cue(question: str) -> bool:
    """The question states no form requirement at all (R3.2: none is imposed then)."""
    c = cues(question)
    return not c.form_requirements and not c.simplest_form and not re.search(
        r"simplif|lowest terms|common fraction|reduced|exact|decimal|percent|rounded|nearest|significant|notation|"
        r"in terms of|radical|factor|expand|mixed number|express", question, re.I)


def _violations(answer: str, question: str, reference: str) -> tuple[str, ...]:
    from verifier_runtime.toolkit.forms import form_violations

    return form_violations(answer, cues(question), reference=reference)


def _single(b: Base) -> bool:
    """One value is asked and given (R2.3 applies to lists)."""
    if b.answer_object in ("set", "tuple", "matrix", "interval"):
        return False
    if A.items_of(b.answer) is not None:
        return False
    return not cues(b.question).several


def _with_cue(b: Base, present: bool, sentence: str) -> tuple[str, str]:
    """(question, cue note): the question itself when it states the cue, else with ``sentence`` added."""
    if present:
        return b.question, "question"
    q = b.question.rstrip()
    return f"{q}{'' if q.endswith(('.', '?', '!', ':')) else '.'} {sentence}", f"added: {sentence}"


def _number(b: Base):
    return A.number(b.answer)


def _quantity_parts(b: Base) -> tuple[str, str] | None:
    return A.split_quantity(b.reference) if b.answer_object == "quantity" else None


def _replace_magnitude(reference: str, new_mag: str) -> str | None:
    sp = A.split_quantity(reference)
    if sp is None:
        return None
    return f"{new_mag} {sp[1]}".strip() if not sp[1].startswith("^") else f"{new_mag}{sp[1]}"


def _value_target(b: Base) -> str:
    """The text the numeric near misses work on: the magnitude of a quantity, else the answer."""
    sp = _quantity_parts(b)
    return sp[0] if sp else b.answer


def _rewrap(b: Base, value: str) -> str:
    """A changed magnitude put back with the reference's unit."""
    if _quantity_parts(b):
        return _replace_magnitude(b.reference, value) or value
    return value


_TRAILING_ASK_RE = re.compile(r"(?:[.;,]\s*|\s+)(?:which|what)\b[^.?]*\?\s*$", re.I)
_MARKERS_RE = re.compile(r"(?:^|\s)\(?[a-jA-J]\)\s|\$\$|\$\s+\$")


def _options(b: Base) -> dict[str, str]:
    """The question's options, their texts cleaned (a trailing "Which option is correct?" cut);
    an option whose text holds option markers of its own or broken math is left out."""
    opts = b.meta.get("options")
    if isinstance(opts, list):
        raw = {"ABCDEFGHIJ"[i]: o for i, o in enumerate(opts)}
    else:
        from verifier_runtime.toolkit.choices import parse_options

        raw = parse_options(b.question)
    out = {}
    for k, v in raw.items():
        t = _TRAILING_ASK_RE.sub("", v.strip()).strip().rstrip(".;,").strip()
        if t and not _MARKERS_RE.search(f" {t} "):
            out[k] = t
    return out


def _letter(b: Base) -> str:
    t = re.sub(r"^\\text\{(.*)\}$", r"\1", b.answer.strip())
    return t.strip("().").upper()


def _letter_style(b: Base, letter: str) -> str:
    """A letter written as the reference writes it (``(c)`` for TheoremQA, ``(C)`` otherwise)."""
    raw = re.sub(r"^\\text\{(.*)\}$", r"\1", b.answer.strip())
    return f"({letter.lower()})" if raw[:2].strip("(").islower() else f"({letter})"


def _val(b: Base) -> str:
    """The reference value a composed answer repeats: a quantity with its unit, an option letter
    in the question's style, else the answer."""
    if b.answer_object == "choice":
        return _letter_style(b, _letter(b))
    return b.reference if b.answer_object == "quantity" and A.split_quantity(b.reference) else b.answer


def _labelled_object(b: Base) -> bool:
    """The answer object comes from the source (a person's or the dataset's label), not from
    this project's reading of the answer."""
    return b.meta.get("answer_object_from", "") not in ("parsed", "")


def wrong_value(b: Base, rng: random.Random, ctx: dict[str, Any]) -> str | None:
    """A near miss of the reference, confirmed different by the toolkit (for hedges, lists and
    retractions)."""
    obj = b.answer_object
    if obj == "choice":
        opts = _options(b)
        others = sorted(k for k in opts if k != _letter(b))
        return _letter_style(b, rng.choice(others)) if others else None
    if obj == "bool":
        return "False" if b.answer.strip().lower() in ("true", "yes") else "True"
    if obj == "text":
        return _other_entity(b, rng, ctx)
    target = _value_target(b)
    for cand in (A.off_by_one(target, rng), A.negated(target), A.changed_constant(target, rng),
                 A.fewer_digits(target)):
        if cand and cand.strip() != target.strip():
            full = _rewrap(b, cand)
            if A.different(b.reference, full):
                return full
    return None


def _other_entity(b: Base, rng: random.Random, ctx: dict[str, Any]) -> str | None:
    pool: list[str] = ctx.get("other_answers", {}).get((b.source, b.answer_object), [])
    if not pool:
        return None
    na = _plain(b.answer)
    aliases = {_plain(a) for a in b.meta.get("reference_aliases") or [b.answer]}
    start = rng.randrange(len(pool))
    for k in range(min(40, len(pool))):
        cand = pool[(start + k) % len(pool)]
        nc = _plain(cand)
        if nc and na and nc not in na and na not in nc and nc not in aliases and len(cand) <= 60:
            return cand
    return None


def _plain(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", re.sub(r"\\text\{([^}]*)\}", r"\1", s).lower()).strip()


def _eq(b: Base, cand: str | None, detail: str, question: str | None = None) -> Made | None:
    """An equivalent rewrite: the toolkit must say equal, and the question (as asked) must not
    state a form the rewrite violates."""
    if not cand or cand.strip() == b.answer.strip():
        return None
    if not A.equivalent(b.reference, cand):
        return None
    q = question or b.question
    if _violations(cand, q, b.reference):
        return None
    return Made(True, cand, detail=detail, check="toolkit: equal")


def _near(b: Base, cand: str | None, detail: str, *, dimension_ok: bool = False) -> Made | None:
    """A near miss: the toolkit must say different."""
    if not cand or cand.strip() == b.answer.strip():
        return None
    if not A.different(b.reference, cand, dimension_ok=dimension_ok):
        return None
    return Made(False, cand, detail=detail, check="toolkit: different")


def _form(b: Base, cand: str | None, present: bool, sentence: str, code: str, detail: str) -> Made | None:
    """A value-equal rewrite under a question that states a form it violates (R3.2)."""
    if not cand or not A.equivalent(b.reference, cand):
        return None
    q, note = _with_cue(b, present, sentence)
    c = cues(q)
    if not c.form_requirements:
        return None  # the toolkit does not read the cue: not a clean case
    if _violations(b.reference, q, b.reference) and note != "question":
        return None  # the reference itself would break the added requirement
    seen = _violations(cand, q, b.reference)
    check = f"toolkit: equal; form check {'flags ' + ','.join(seen) if seen else 'does not flag it'}"
    return Made(False, cand, question=q if note != "question" else None, cue=note, detail=detail, check=check)


# --------------------------------------------------------------------------- equivalent rewrites


def _equiv_number_form(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if not _no_form_cue(b.question):
        return None
    forms = A.number_forms(_value_target(b))
    rng.shuffle(forms)
    for cand, kind in forms:
        if kind == "thousands" and b.domain == "open_qa":
            continue
        made = _eq(b, _rewrap(b, cand), kind)
        if made:
            return made
    return None


def _equiv_latex(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    cands = A.latex_spellings(b.answer)
    rng.shuffle(cands)
    for cand in cands:
        made = _eq(b, cand, "latex_spelling")
        if made:
            return made
    return None


def _equiv_set_order(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if b.answer_object != "set" or cues(b.question).ordered or not _labelled_object(b):
        return None
    items = A.items_of(b.answer)
    if items is None or len(set(items)) != len(items):
        return None  # repeated elements: a multiset or a sequence, not cleanly a set
    return _eq(b, A.reordered(b.answer, rng), "reordered")


def _equiv_unit(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if cues(b.question).unit:
        return None
    for cand, unit in A.converted_units(b.reference, rng):
        made = _eq(b, cand, f"to {unit}")
        if made:
            return made
    return None


def _equiv_expression(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if not _no_form_cue(b.question):
        return None
    if b.answer_object == "equation":
        made = _eq(b, A.swapped_equation(b.answer), "sides_swapped")
        if made:
            return made
    rewrites = A.expression_rewrites(b.answer)
    rng.shuffle(rewrites)
    for cand, kind in rewrites:
        made = _eq(b, cand, kind)
        if made:
            return made
    return None


def _equiv_tolerance(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    c = cues(b.question)
    if c.decimal_places is not None or c.sig_figs is not None or re.search(r"nearest|round", b.question, re.I):
        return None
    cand = A.more_digits(_value_target(b), rng)
    return _eq(b, _rewrap(b, cand) if cand else None, "one_more_digit")


def _equiv_unreduced(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if not _no_form_cue(b.question) or not A.is_lowest_terms_fraction(b.answer):
        return None
    return _eq(b, A.unreduced_fraction(b.answer, rng), "unreduced_fraction")


def _equiv_radical(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if not _no_form_cue(b.question):
        return None
    return _eq(b, A.simplified_radical_unsimplified(b.answer), "unsimplified_radical")


def _equiv_interval(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if cues(b.question).interval_notation or re.search(r"interval notation", b.question, re.I):
        return None
    var = cues(b.question).unknown or "x"
    return _eq(b, A.interval_as_inequality(b.answer, var), "as_inequality")


def _equiv_labelled(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    var = cues(b.question).unknown
    if not var or b.answer_object not in ("number", "expression", "complex") or "=" in b.answer:
        return None
    if re.search(rf"(?<![A-Za-z\\]){re.escape(var)}(?![A-Za-z])", b.answer):
        return None
    return _eq(b, f"{var} = {b.answer}", "labelled")


def _equiv_text(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    aliases = [a for a in b.meta.get("reference_aliases") or [] if a.strip() and a.strip() != b.answer.strip()]
    if aliases:
        return Made(True, rng.choice(aliases), detail="other_alias", check="reference alias")
    t = b.answer.strip()
    m = re.fullmatch(r"\\text\{([^{}]+)\}", t)
    if m:
        return Made(True, m.group(1), detail="text_wrapper_dropped", check="same text")
    if re.match(r"(?i)the\s+\w", t):
        return Made(True, t[4:].strip(), detail="article_dropped", check="same text")
    if A.ordinary_words(t):
        return Made(True, f"{t}.", detail="punctuation", check="same text")
    return None


def _case_ordinary(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if not A.ordinary_words(b.answer):
        return None
    return Made(True, A.case_changed(b.answer, rng), detail="ordinary_word_case", check="ordinary words only")


def _equiv_bool(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    v = b.answer.strip().lower()
    if v not in ("true", "false"):
        return None
    if re.match(r"(?i)\s*(is|are|does|do|did|can|could|will|would|should|has|have|was|were)\b", b.question):
        return Made(True, "Yes" if v == "true" else "No", detail="yes_no", check="boolean question")
    return Made(True, v, detail="lower_case", check="boolean word")


def _choice_text(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    opts = _options(b)
    letter = _letter(b)
    text = opts.get(letter, "").strip()
    if not text or len(text) > 150 or sum(o.strip() == text for o in opts.values()) > 1:
        return None
    return Made(True, text, detail="option_text", check="option text of the reference letter")


def _choice_letter_text(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    opts = _options(b)
    letter = _letter(b)
    text = opts.get(letter, "").strip()
    if not text or len(text) > 150:
        return None
    return Made(True, f"{_letter_style(b, letter)} {text}", detail="letter_and_text", check="letter and its text")


# --------------------------------------------------------------------------- form requirements violated


def _form_fraction(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    n = _number(b)
    if n is None or n.kind != "fraction" or n.value.denominator == 1:
        return None
    dec = A.exact_decimal(n.value)
    return _form(b, dec, bool(cues(b.question).fraction), "Express your answer as a common fraction.",
                 "form:fraction_required", "fraction_as_decimal")


def _form_decimal(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    n = _number(b)
    if n is None or n.kind != "decimal" or n.value.denominator == 1:
        return None
    c = cues(b.question)
    return _form(b, A.frac_latex(n.value), bool(c.decimal) and c.decimal_places is None,
                 "Express your answer as a decimal.", "form:decimal_required", "decimal_as_fraction")


def _form_lowest(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if not A.is_lowest_terms_fraction(b.answer):
        return None
    return _form(b, A.unreduced_fraction(b.answer, rng), bool(cues(b.question).simplest_form),
                 "Express your answer as a fraction in lowest terms.", "form:not_lowest_terms", "unreduced_fraction")


def _form_places(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    target = _value_target(b)
    n = A.number(target)
    if n is None or n.kind != "decimal" or not n.decimals:
        return None
    k = n.decimals
    present = cues(b.question).decimal_places == k
    if cues(b.question).decimal_places not in (None, k):
        return None
    more = A.more_digits(target, rng)
    sentence = f"Round your answer to {k} decimal place{'s' if k > 1 else ''}."
    return _form(b, _rewrap(b, more) if more else None, present, sentence, "form:decimal_places", "one_more_digit")


def _form_sig(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    target = _value_target(b)
    n = A.number(target)
    if n is None or n.kind != "decimal" or not n.sig_figs or n.sig_figs < 2:
        return None
    c = cues(b.question)
    if c.decimal_places is not None or c.sig_figs not in (None, n.sig_figs):
        return None
    more = A.more_digits(target, rng)
    sentence = f"Give your answer to {n.sig_figs} significant figures."
    return _form(b, _rewrap(b, more) if more else None, c.sig_figs == n.sig_figs, sentence, "form:sig_figs",
                 "one_more_digit")


def _form_percent(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    n = _number(b)
    if n is None or not n.is_percent or n.value == 0:
        return None  # 0 % is 0 as a decimal too: under a percentage cue the bare 0 reads as 0 % (R3.2)
    dec = A.exact_decimal(n.value)
    return _form(b, dec, bool(cues(b.question).percentage), "Express your answer as a percentage.",
                 "form:percent_required", "percent_as_decimal")


def _form_interval(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    var = cues(b.question).unknown or "x"
    ineq = A.interval_as_inequality(b.answer, var)
    return _form(b, ineq, bool(cues(b.question).interval_notation), "Express your answer in interval notation.",
                 "form:interval_notation_required", "as_inequality")


def _polynomial_forms(answer: str) -> tuple[str, str] | None:
    """(``expanded``, ``factored``) LaTeX of a polynomial answer whose two forms differ, when the
    answer is one of them: a sum of monomials that factors, or a product of non-constant factors."""
    import sympy

    expr = A._sympy(answer)
    if expr is None or not expr.free_symbols:
        return None
    try:
        if not expr.is_polynomial():
            return None
        e, f = sympy.expand(expr), sympy.factor(expr)
        factors = [a for a in sympy.Mul.make_args(f) if a.free_symbols]
        if e == f or len(factors) < 2 and not isinstance(f, sympy.Pow):
            return None
        if expr == e or expr == f:
            return sympy.latex(e), sympy.latex(f)
    except Exception:  # noqa: BLE001 - sympy algebra on odd input: no variant
        return None
    return None


def _form_expand_factor(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    import sympy

    forms = _polynomial_forms(b.answer)
    if forms is None:
        return None
    expanded, factored = forms
    c = cues(b.question)
    is_expanded = A._sympy(b.answer) == sympy.expand(A._sympy(b.answer))
    if is_expanded and not c.factor:
        return _form(b, factored, bool(c.expand), "Give your answer in expanded form.", "form:not_expanded",
                     "factored")
    if not is_expanded and not c.expand:
        return _form(b, expanded, bool(c.factor), "Give your answer in factored form.", "form:not_factored",
                     "expanded")
    return None


def _form_exact(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if b.answer_object != "number" or A.number(b.answer) is not None:
        return None
    approx = A.decimal_approximation(b.answer)
    if approx is None:
        return None
    c = cues(b.question)
    q, note = _with_cue(b, bool(c.exact or c.radical_form), "Give the exact value.")
    if not cues(q).exact and not cues(q).radical_form:
        return None
    if not A.different(b.reference, approx):
        return None
    return Made(False, approx, question=q if note != "question" else None, cue=note, detail="decimal_approximation",
                check="toolkit: different (exact reference)")


def _form_unit(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    sp = _quantity_parts(b)
    if sp is None:
        return None
    unit_text = re.sub(r"\\mathrm\{([^}]*)\}|\\text\{([^}]*)\}", lambda m: m.group(1) or m.group(2), sp[1])
    unit_text = re.sub(r"\s+", " ", unit_text.replace("~", " ")).strip()
    if not unit_text or "\\" in unit_text:
        return None
    c = cues(b.question)
    present = bool(c.unit)
    for cand, unit in A.converted_units(b.reference, rng):
        made = _form(b, cand, present, f"Express your answer in {unit_text}.", "form:unit_required", f"to {unit}")
        if made is None:
            continue
        q = made.question or b.question
        # the requested unit must be the reference's and not the rewrite's (W is J/s): the
        # toolkit's form check must see the rewrite, and not the reference, break it
        if cues(q).unit and "form:unit_required" in _violations(cand, q, b.reference) \
                and not _violations(b.reference, q, b.reference):
            return made
    return None


def _form_mixed(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    n = _number(b)
    if n is None or n.kind != "mixed":
        return None
    return _form(b, A.frac_latex(n.value), bool(cues(b.question).mixed_number), "Express your answer as a mixed number.",
                 "form:mixed_number_required", "improper_fraction")


def _form_radical(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    cand = A.simplified_radical_unsimplified(b.answer)
    return _form(b, cand, bool(cues(b.question).radical_form), "Express your answer in simplest radical form.",
                 "form:radical_not_simplified", "unsimplified_radical")


# --------------------------------------------------------------------------- near misses


def _near_off_by_one(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    cand = A.off_by_one(_value_target(b), rng)
    return _near(b, _rewrap(b, cand) if cand else None, "off_by_one")


def _near_sign(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if b.answer_object == "complex":
        cand = re.sub(r"([+-])(?=[^+-]*i\b)", lambda m: "-" if m.group(1) == "+" else "+", b.answer, count=1)
        return _near(b, cand if cand != b.answer else None, "conjugate")
    cand = A.negated(_value_target(b))
    return _near(b, _rewrap(b, cand) if cand else None, "sign")


def _near_rounding(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    target = _value_target(b)
    cand = A.fewer_digits(target) or A.rounded_integer(target)
    return _near(b, _rewrap(b, cand) if cand else None, "rounded_beyond_precision")


def _near_approximation(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if b.answer_object != "number" or A.number(b.answer) is not None:
        return None
    c = cues(b.question)
    if c.decimal or c.decimal_places is not None or c.sig_figs is not None or re.search(r"nearest|decimal|approx",
                                                                                        b.question, re.I):
        return None
    return _near(b, A.decimal_approximation(b.answer), "decimal_for_exact")


def _near_unit(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    for cand, kind in A.wrong_units(b.reference, rng):
        made = _near(b, cand, kind, dimension_ok=kind == "other_dimension")
        if made:
            return made
    return None


def _near_missing(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if b.answer_object not in ("set", "tuple"):
        return None
    return _near(b, A.missing_element(b.answer, rng), "missing_element")


def _near_extra(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if b.answer_object not in ("set", "tuple"):
        return None
    return _near(b, A.extra_element(b.answer, rng), "extra_element")


def _near_swapped(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if not _labelled_object(b) or (b.answer_object != "tuple"
                                   and not (b.answer_object == "set" and cues(b.question).ordered)):
        return None
    return _near(b, A.swapped(b.answer, rng), "swapped_order")


def _near_expression(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if b.answer_object not in ("expression", "equation", "function", "complex", "matrix", "inequality"):
        return None
    return _near(b, A.changed_constant(b.answer, rng), "changed_constant")


def _near_endpoint(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    return _near(b, A.flipped_endpoint(b.answer, rng), "endpoint_open_closed")


def _near_choice(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    opts = _options(b)
    letter = _letter(b)
    others = sorted(k for k in opts if k != letter and opts[k].strip() != opts.get(letter, "").strip())
    if not others or letter not in opts:
        return None
    return Made(False, _letter_style(b, rng.choice(others)), detail="other_letter", check="another option")


def _choice_mismatch(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    opts = _options(b)
    letter = _letter(b)
    others = sorted(k for k in opts if k != letter and opts[k].strip() != opts.get(letter, "").strip())
    if not others or letter not in opts or len(opts[others[0]]) > 150:
        return None
    other = rng.choice(others)
    return Made(False, f"{_letter_style(b, letter)} {opts[other].strip()}", detail="letter_with_other_text",
                check="letter and text disagree")


def _near_bool(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    v = b.answer.strip().lower()
    if v not in ("true", "false"):
        return None
    return Made(False, "False" if v == "true" else "True", detail="flipped", check="the other boolean")


def _case_symbol(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if b.answer_object not in ("expression", "equation", "function", "inequality", "tuple", "set") \
            or not _labelled_object(b):
        return None
    cand = A.case_flipped_symbol(b.answer)
    return _near(b, cand, "variable_case")


def _near_entity(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if b.answer_object != "text":
        return None
    other = _other_entity(b, rng, ctx)
    return Made(False, other, detail="other_entity", check="another question's answer") if other else None


# --------------------------------------------------------------------------- commitment


_CORRECTIONS = ("Wait, that's wrong: it is {x}.", "Actually no, it's {x}.", "Sorry, correction: the answer is {x}.",
                "On second thought, it is {x}.", "No wait, I made a mistake: the answer is {x}.")
_EMPTY_RETRACTIONS = ("Hmm, no, that can't be right.", "Wait, that's wrong.", "Actually no, scratch that.")


def _prose(x: str) -> str:
    return f"${x}$" if re.search(r"[\\^_{}]", x) else x


def _short(b: Base) -> bool:
    return len(b.answer) <= 80


def _hedge_pair(b: Base, rng: random.Random, ctx: dict[str, Any]) -> list[str] | None:
    """The reference and a near miss in a seeded order, for a base where one value is asked."""
    if not _single(b) or not _short(b):
        return None
    wrong = wrong_value(b, rng, ctx)
    if not wrong:
        return None
    pair = [_val(b), wrong]
    rng.shuffle(pair)
    return pair


def _hedge(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    pair = _hedge_pair(b, rng, ctx)
    if pair is None:
        return None
    joiner = rng.choice((" or ", " or possibly "))
    return Made(False, f"{_prose(pair[0])}{joiner}{_prose(pair[1])}", placement="prose", detail="alternatives",
                check="second candidate differs")


def _hedge_boxes(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    pair = _hedge_pair(b, rng, ctx)
    if pair is None:
        return None
    return Made(False, "", placement="boxes", boxes=pair, detail="boxes_as_alternatives",
                check="second box differs")


def _enumeration(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    if not _single(b) or b.answer_object in ("choice", "bool") or not _short(b):
        return None
    others = []
    for _ in range(4):
        w = wrong_value(b, random.Random(rng.random()), ctx)
        if w and w not in others and w != b.answer:
            others.append(w)
        if len(others) == 2:
            break
    if len(others) < 2:
        return None
    items = [others[0], _val(b), others[1]]
    rng.shuffle(items)
    return Made(False, ", ".join(_prose(x) for x in items), placement="prose", detail="list_for_single", check="list of distinct values")


def _choice_enumeration(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    opts = _options(b)
    letter = _letter(b)
    others = sorted(k for k in opts if k != letter)
    if len(others) < 2 or letter not in opts:
        return None
    picked = sorted([letter, *rng.sample(others, 2)])
    return Made(False, ", ".join(_letter_style(b, x) for x in picked), placement="prose", detail="several_letters",
                check="several letters")


def _retraction_to(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    wrong = wrong_value(b, rng, ctx)
    if not wrong:
        return None
    return Made(True, wrong, after=rng.choice(_CORRECTIONS).format(x=_prose(_val(b))), detail="lands_on_reference",
                check="first answer differs")


def _retraction_from(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    wrong = wrong_value(b, rng, ctx)
    if not wrong:
        return None
    return Made(False, _val(b), after=rng.choice(_CORRECTIONS).format(x=_prose(wrong)), detail="leaves_reference",
                check="last answer differs")


def _retraction_empty(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    return Made(False, _val(b), after=rng.choice(_EMPTY_RETRACTIONS), detail="no_answer_left", check="")


def _negation(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    return Made(False, f"not {_prose(_val(b))}", placement="prose", detail="reference_negated", check="")


# Math spans in order, paired from the start (a length limit inside the pattern would pair the
# closing "$" of one span with the opening "$" of the next: "$f(1,2)$ is 3. Find $f(2,5)$")
_MATH_SEG_RE = re.compile(r"\$\$([^$]+)\$\$|\$([^$]+)\$|\\\((.+?)\\\)", re.DOTALL)
_ASY_RE = re.compile(r"\[asy\].*?\[/asy\]", re.DOTALL | re.IGNORECASE)


def _restatement(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    text = _ASY_RE.sub(" ", b.question)  # figure code ("label("$W$", ...)") holds no expression of the question
    segs = [m.group(1) or m.group(2) or m.group(3) for m in _MATH_SEG_RE.finditer(text)]
    na = re.sub(r"\s+", "", b.answer)
    segs = [s.strip() for s in segs if 3 <= len(s.strip()) <= 60 and "\n" not in s
            and re.sub(r"\s+", "", s) != na and re.search(r"[\d\\^+\-*/=]", s)]
    if not segs:
        return None
    seg = rng.choice(segs).rstrip(".,;: ")
    equal = A.equivalent(b.reference, seg)
    return Made(False, seg, detail="question_expression", check="toolkit: " + ("equal in value" if equal else "differs"))


def _truncated(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    return Made(False, "", placement="truncate", detail="cut_before_answer", check="no answer marker left")


def _empty(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    return Made(False, "", placement="whole", response=rng.choice(("", " ", "\n")), detail="empty", check="")


def _echo(b: Base, rng: random.Random, ctx: dict[str, Any]) -> Made | None:
    q = b.question.strip()
    if len(q) > 1500 or len(q.split()) < 5:
        return None
    return Made(False, "", placement="whole", response=q, detail="question_repeated", check="")


# --------------------------------------------------------------------------- the registry

_NUM = frozenset({"number", "quantity"})
_MATHY = frozenset({"number", "quantity", "expression", "equation", "function", "complex", "tuple", "set",
                    "interval", "inequality", "matrix"})
_ALL = frozenset(A.ANSWER_OBJECTS)
_VALUED = _ALL - {"choice", "bool"}

_T = VariantType
VARIANT_TYPES: tuple[VariantType, ...] = (
    # equivalent rewrites: correct (R3.1)
    _T("equiv.number_form", "equivalent", True, "R3.1", "the reference's value in another exact number form "
       "(fraction/decimal, mixed/improper, n.0, thousands separators, scientific notation); the question states no form",
       _NUM, _equiv_number_form),
    _T("equiv.latex_spelling", "equivalent", True, "R3.1", "the reference in another LaTeX spelling "
       "(\\frac/\\dfrac, ^{2}/^2, \\left( \\right), pmatrix/bmatrix, comma spacing, $..$)", _MATHY, _equiv_latex),
    _T("equiv.set_order", "equivalent", True, "R2.4", "the elements of a set answer in another order (no order asked)",
       frozenset({"set"}), _equiv_set_order),
    _T("equiv.unit_conversion", "equivalent", True, "R5.1", "the reference quantity converted to another unit of "
       "the same dimension, to the reference's precision; the question asks for no unit", frozenset({"quantity"}),
       _equiv_unit),
    _T("equiv.expression", "equivalent", True, "R3.1", "an algebraically equal expression (expanded, factored, "
       "terms reordered, sides of an equation swapped); the question states no form", frozenset({"expression",
       "equation", "function", "complex", "number"}), _equiv_expression),
    _T("equiv.within_tolerance", "equivalent", True, "R5.3", "a decimal reference with one more digit that still "
       "rounds to it (within half a unit of its last digit); the question asks no precision", _NUM, _equiv_tolerance),
    _T("equiv.unreduced_fraction", "equivalent", True, "R3.2", "a lowest-terms fraction written unreduced when the "
       "question states no form (none is imposed)", frozenset({"number"}), _equiv_unreduced),
    _T("equiv.unsimplified_radical", "equivalent", True, "R3.1", "a\\sqrt{b} written \\sqrt{a^2 b} when the question "
       "states no form", frozenset({"number", "expression"}), _equiv_radical),
    _T("equiv.interval_inequality", "equivalent", True, "R3.3", "an interval written as the inequality it stands "
       "for; the question does not ask for interval notation", frozenset({"interval"}), _equiv_interval),
    _T("equiv.labelled", "equivalent", True, "R4.2", "the reference after a label naming the question's unknown "
       "(x = 5)", frozenset({"number", "expression", "complex"}), _equiv_labelled),
    _T("equiv.text_form", "equivalent", True, "R6.4", "another alias of the reference, or its text without a "
       "LaTeX text wrapper, a leading article or with end punctuation", frozenset({"text"}), _equiv_text),
    _T("equiv.bool_word", "equivalent", True, "R6.3", "the reference boolean as yes/no (for a yes/no question) or "
       "in lower case", frozenset({"bool"}), _equiv_bool),
    _T("case.ordinary_word", "case", True, "R6.1", "an answer of ordinary words in another letter case",
       frozenset({"text"}), _case_ordinary),
    _T("choice.option_text", "choice", True, "R6.2", "the reference option's text instead of its letter",
       frozenset({"choice"}), _choice_text),
    _T("choice.letter_and_text", "choice", True, "R6.2", "the reference letter with its own option text",
       frozenset({"choice"}), _choice_letter_text),
    # the same rewrites under a question that states a form they violate: incorrect (R3.2)
    _T("form.fraction_required", "form", False, "R3.2", "a fraction reference as a decimal, under a question "
       "asking for a (common) fraction", frozenset({"number"}), _form_fraction, code="form:fraction_required"),
    _T("form.decimal_required", "form", False, "R3.2", "a decimal reference as a fraction, under a question "
       "asking for a decimal", frozenset({"number"}), _form_decimal, code="form:decimal_required"),
    _T("form.lowest_terms", "form", False, "R3.2", "a lowest-terms fraction written unreduced, under a question "
       "asking for lowest terms", frozenset({"number"}), _form_lowest, code="form:not_lowest_terms"),
    _T("form.decimal_places", "form", False, "R3.2", "the reference with one more decimal place than the question "
       "asks", _NUM, _form_places, code="form:decimal_places"),
    _T("form.sig_figs", "form", False, "R3.2", "the reference with one more significant figure than the question "
       "asks", _NUM, _form_sig, code="form:sig_figs"),
    _T("form.percent_required", "form", False, "R3.2", "a percentage reference as a decimal, under a question "
       "asking for a percentage", frozenset({"number"}), _form_percent, code="form:percent_required"),
    _T("form.interval_notation", "form", False, "R3.2", "an interval written as an inequality, under a question "
       "asking for interval notation", frozenset({"interval"}), _form_interval, code="form:interval_notation_required"),
    _T("form.expand_factor", "form", False, "R3.2", "an expanded reference factored (or a factored one expanded), "
       "under a question asking for the expanded (factored) form", frozenset({"expression", "function"}),
       _form_expand_factor, code="form:not_expanded|form:not_factored"),
    _T("form.exact_required", "form", False, "R3.2", "a decimal approximation of an exact reference, under a "
       "question asking for the exact value", frozenset({"number"}), _form_exact, code="form:exact_required"),
    _T("form.unit_required", "form", False, "R3.2", "the reference converted to another unit, under a question "
       "asking for the reference's unit", frozenset({"quantity"}), _form_unit, code="form:unit_required"),
    _T("form.mixed_number", "form", False, "R3.2", "a mixed-number reference as an improper fraction, under a "
       "question asking for a mixed number", frozenset({"number"}), _form_mixed, code="form:mixed_number_required"),
    _T("form.radical_form", "form", False, "R3.2", "a\\sqrt{b} written \\sqrt{a^2 b}, under a question asking for "
       "simplest radical form", frozenset({"number", "expression"}), _form_radical, code="form:radical_not_simplified"),
    # near misses: incorrect
    _T("near.off_by_one", "near_miss", False, "R5.3", "an integer reference plus or minus one (an integer is exact)",
       _NUM, _near_off_by_one, code="differ:number"),
    _T("near.sign", "near_miss", False, "R3.1", "the reference with its sign flipped (a complex number conjugated)",
       frozenset({"number", "quantity", "expression", "complex", "function"}), _near_sign, code="differ:number"),
    _T("near.rounding", "near_miss", False, "R5.3", "the reference rounded beyond its stated precision",
       _NUM, _near_rounding, code="ambiguous:coarser_rounding"),
    _T("near.approximation", "near_miss", False, "R3.1", "a decimal approximation of an exact irrational reference "
       "(the question asks no approximation)", frozenset({"number"}), _near_approximation, code="differ:exact_value_required"),
    _T("near.wrong_unit", "near_miss", False, "R5.1", "the reference magnitude with another unit (of the same "
       "dimension: a different value; of another dimension: differ:dimension)", frozenset({"quantity"}), _near_unit, code="differ:quantity|differ:dimension"),
    _T("near.missing_element", "near_miss", False, "R2.4", "a set or list answer with one element left out",
       frozenset({"set", "tuple"}), _near_missing, code="differ:missing_element"),
    _T("near.extra_element", "near_miss", False, "R2.4", "a set or list answer with one element added",
       frozenset({"set", "tuple"}), _near_extra, code="differ:extra_element"),
    _T("near.swapped_order", "near_miss", False, "R2.4", "an ordered answer (tuple, vector, ordered list) with two "
       "elements swapped", frozenset({"tuple", "set"}), _near_swapped, code="differ:order"),
    _T("near.expression", "near_miss", False, "R3.1", "an expression, equation or matrix with one constant changed",
       frozenset({"expression", "equation", "function", "complex", "matrix", "inequality"}), _near_expression, code="differ:expression"),
    _T("near.interval_endpoint", "near_miss", False, "R4.4", "an interval with one end switched open/closed",
       frozenset({"interval"}), _near_endpoint, code="differ:interval"),
    _T("near.wrong_choice", "near_miss", False, "R6.2", "another option's letter", frozenset({"choice"}),
       _near_choice, code="differ:choice"),
    _T("choice.letter_text_mismatch", "choice", False, "R6.2", "the reference letter with another option's text",
       frozenset({"choice"}), _choice_mismatch, code="differ:choice"),
    _T("near.bool_flip", "near_miss", False, "R6.3", "the other boolean", frozenset({"bool"}), _near_bool, code="differ:boolean"),
    _T("case.symbol", "case", False, "R6.1", "a variable of a math answer in the other letter case (x vs X)",
       frozenset({"expression", "equation", "function", "inequality", "tuple", "set"}), _case_symbol, code="differ:case"),
    _T("near.other_entity", "near_miss", False, "R6.4", "another question's text answer (no alias or substring of "
       "the reference)", frozenset({"text"}), _near_entity, code="differ:text"),
    # commitment: hedges, lists, retractions, negations, restatements
    _T("hedge.alternatives", "commitment", False, "R2.1", "the reference and a near miss offered as alternatives "
       "(\"A or B\") when one value is asked", _ALL - {"set", "tuple", "matrix", "interval"}, _hedge, code="hedge:alternatives"),
    _T("hedge.multiple_boxes", "commitment", False, "R2.2", "two boxes offered as alternatives, one the reference",
       _ALL - {"set", "tuple", "matrix", "interval"}, _hedge_boxes, code="hedge:multiple_final_answers"),
    _T("enumeration.list", "commitment", False, "R2.3", "a list of three values, one the reference, when one value "
       "is asked", _VALUED - {"set", "tuple", "matrix", "interval"}, _enumeration, code="hedge:list_for_single_answer"),
    _T("enumeration.letters", "commitment", False, "R6.2", "several option letters, one the reference",
       frozenset({"choice"}), _choice_enumeration, code="hedge:list_for_single_answer"),
    _T("retraction.to_reference", "commitment", True, "R1.2", "a near miss, then a correction that lands on the "
       "reference (the answer after the correction is committed)", _ALL, _retraction_to),
    _T("retraction.from_reference", "commitment", False, "R1.2", "the reference, then a correction to a near miss",
       _ALL, _retraction_from, code="retraction:last_answer"),
    _T("retraction.no_answer_left", "commitment", False, "R1.2", "the reference, then a retraction with nothing "
       "after it", _ALL, _retraction_empty, code="retraction:no_answer_left"),
    _T("negation.reference", "commitment", False, "R2.5", "\"the answer is not <reference>\"", _ALL, _negation, code="negation:reference_negated"),
    _T("restatement.question", "commitment", False, "R2.6", "an expression copied from the question (not written "
       "as the reference) as the final answer", _MATHY, _restatement, code="restatement:question_expression"),
    _T("invalid.truncated", "invalid", False, "R1.3", "the response cut off mid-sentence before its final answer",
       _ALL, _truncated, code="invalid:truncated"),
    _T("invalid.empty", "invalid", False, "R1.3", "an empty response", _ALL, _empty, code="invalid:no_final_answer"),
    _T("invalid.echo", "invalid", False, "R2.6", "the question repeated as the response", _ALL, _echo, code="invalid:echo"),
)

_BY_NAME = {v.name: v for v in VARIANT_TYPES}


def variant_type(name: str) -> VariantType:
    return _BY_NAME[name]
