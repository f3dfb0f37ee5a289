"""Constructed diagnostic examples: labelled boundary and format variants.

From a base (question, reference) taken from the construction data or the built-in seed set,
:func:`variants` writes responses whose label is known by construction: the same value in
another form (correct), near misses (incorrect), invalid responses (incorrect), text variants
and closed-choice mappings. :func:`generate_diagnostics` picks a deterministic, balanced set.

Every constructed example has ``source="constructed"`` and records in ``meta`` what it was
made from (``made_from``: the base example id, ``base_source``) and the ``variant`` type.

Answer forms (:func:`answer_form`) are a cheap regex signature of a reference:
``integer | decimal | fraction | latex | choice | short_text | long_text``.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

from tasks.data.schema import Example, stable_id

__all__ = [
    "SEED_FILE",
    "Base",
    "answer_form",
    "base_from_example",
    "final_answer_text",
    "generate_diagnostics",
    "load_seed_examples",
    "variants",
]

SEED_FILE = Path(__file__).resolve().parent / "seed_examples.jsonl"

_INT = re.compile(r"^[-+]?\d{1,3}(,\d{3})+$|^[-+]?\d+$")
_DEC = re.compile(r"^[-+]?(\d+\.\d*|\.\d+)$|^[-+]?\d+(\.\d+)?[eE][-+]?\d+$")
_FRAC = re.compile(r"^[-+]?\d+\s*/\s*\d+$|^[-+]?\\[dt]?frac\{\d+\}\{\d+\}$")
_CHOICE = re.compile(r"^\(?[A-J]\)?\.?$")
_LATEX = re.compile(r"\\[a-zA-Z]+|[\^_{}]|\d[a-rt-z]\b|[=<>≤≥]")
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")


def final_answer_text(reference: str) -> str:
    """The final answer inside a reference: the last ``\\boxed{}``, a ``#### N`` / ``A: N``
    last line, else the whole stripped text."""
    boxes = _BOXED.findall(reference)
    if boxes:
        return boxes[-1].strip()
    m = re.search(r"(?:####|(?:^|\n)A:)\s*([^\n]+?)\s*$", reference.strip())
    if m:
        return m.group(1).strip()
    return reference.strip()


def answer_form(reference: str) -> str:
    """A cheap answer-form signature of a reference (see module docstring)."""
    t = final_answer_text(reference).strip().strip("$").strip()
    if _CHOICE.match(t):
        return "choice"
    if _INT.match(t):
        return "integer"
    if _DEC.match(t):
        return "decimal"
    if _FRAC.match(t):
        return "fraction"
    if _LATEX.search(t):
        return "latex"
    return "short_text" if len(t.split()) <= 6 and len(t) <= 60 else "long_text"


def _parse_number(t: str) -> Fraction | None:
    t = t.strip().strip("$").replace(",", "").strip()
    m = re.fullmatch(r"([-+]?)\\[dt]?frac\{(\d+)\}\{(\d+)\}", t)
    if m:
        return Fraction(int(m.group(2)), int(m.group(3))) * (-1 if m.group(1) == "-" else 1) if int(m.group(3)) else None
    m = re.fullmatch(r"([-+]?\d+)\s*/\s*(\d+)", t)
    if m:
        return Fraction(int(m.group(1)), int(m.group(2))) if int(m.group(2)) else None
    try:
        d = Decimal(t)
    except InvalidOperation:
        return None
    return Fraction(d) if d.is_finite() else None


def _fmt_decimal(v: Fraction, places: int | None = None) -> str | None:
    """Exact decimal text of v (None when it does not terminate), or v rounded to ``places``."""
    if places is not None:
        return f"{Decimal(v.numerator) / Decimal(v.denominator):.{places}f}"
    den = v.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    if den != 1:
        return None
    d = Decimal(v.numerator) / Decimal(v.denominator)
    s = format(d.normalize(), "f")
    return s


def _places(t: str) -> int:
    m = re.search(r"\.(\d+)$", t.strip().replace(",", ""))
    return len(m.group(1)) if m else 0


_UNIT_SWAP = {
    "cm": "m", "m": "cm", "mm": "cm", "km": "m", "kg": "g", "g": "kg", "s": "min", "min": "s", "h": "min",
    "l": "ml", "ml": "l", "dollars": "cents", "cents": "dollars", "meters": "centimeters",
    "centimeters": "meters", "kilometers": "meters", "seconds": "minutes", "minutes": "seconds",
    "hours": "minutes", "grams": "kilograms", "kilograms": "grams", "degrees": "radians",
    "feet": "inches", "inches": "feet", "miles": "kilometers", "j": "kj", "kj": "j", "n": "kn", "w": "kw",
}
_NUM_UNIT = re.compile(r"^\$?([-+]?[\d,]*\.?\d+(?:/\d+)?)\s*([A-Za-z]+)?\.?$")
_ARTICLES = re.compile(r"^(the|a|an)\s+", re.I)
_OPTION = re.compile(r"(?:^|\n)\s*\(?([A-J])[\).:]\s+([^\n]+)")


@dataclass(slots=True)
class Base:
    """What a diagnostic is made from: a question and reference, and the answer to vary."""

    id: str
    question: str
    reference: str
    answer: str  # the bare final answer the variants are built around
    domain: str
    source: str


def base_from_example(ex: Example) -> Base:
    """A diagnostic base from a pool example (GSM8K's ``final_answer``, EVOUNA's first alias)."""
    ans = ex.meta.get("final_answer") or ex.meta.get("answer") or ex.meta.get("base_answer")
    if not ans:
        aliases = ex.meta.get("reference_aliases")
        ans = aliases[0] if aliases else final_answer_text(ex.reference)
    return Base(ex.id, ex.question, ex.reference, str(ans), ex.domain, ex.source)


_ASKS_PERCENT = re.compile(r"what (?:percent|percentage)|how many percent|in percent|as a percent(?:age)?|"
                           r"percentage of|what is the percent", re.I)
_ASKS_DOLLARS = re.compile(r"how many dollars|in dollars|how much money|how much (?:does|did|will|do|would|is|are)"
                           r"\b[^?.]{0,60}\b(?:cost|pay|paid|earn|make|spend|save|charge|worth)", re.I)


def _unit_from_question(q: str) -> str | None:
    """The counted noun of the question's last "how many X" (None for "how many more", ...)."""
    found = re.findall(r"\bhow many ([a-z]+)", q, re.I)
    if found and found[-1].lower() not in ("more", "times", "of", "different", "ways", "total", "are", "were",
                                           "is", "fewer", "less", "dollars", "percent"):
        return found[-1].lower()
    return None


def _numeric_variants(b: Base) -> list[tuple[str, str, bool]]:
    """(variant, response, label) for a numeric answer."""
    m = _NUM_UNIT.match(b.answer.strip())
    if not m:
        return []
    num_txt, unit = m.group(1), m.group(2)
    v = _parse_number(num_txt)
    if v is None:
        return []
    out: list[tuple[str, str, bool]] = []
    plain = _fmt_decimal(v) or num_txt
    unit_sfx = f" {unit}" if unit else ""
    out.append(("numeric.answer_is", f"The answer is {plain}{unit_sfx}.", True))
    out.append(("numeric.boxed", f"Working through the problem step by step gives \\boxed{{{plain}}}.", True))
    qa_like = b.domain == "open_qa"  # years and counts in trivia: no thousands/scientific forms
    if v.denominator == 1 and abs(v) >= 1000 and not qa_like:
        out.append(("numeric.thousands_sep", f"So the result is {int(v):,}{unit_sfx}.", True))
    if v.denominator == 1 and v != 0 and not qa_like:
        n = abs(v.numerator)
        k = len(str(n)) - 1
        mant = (Decimal(v.numerator) / (Decimal(10) ** k)).normalize()
        out.append(("numeric.scientific", f"The value is {format(mant, 'f')} \\times 10^{{{k}}}.", True))
        out.append(("numeric.trailing_zero", f"Final answer: {int(v)}.0", True))
    if v.denominator != 1:
        dec = _fmt_decimal(v)
        if re.search(r"\bfraction|lowest terms|\bdecimal", b.question, re.I):
            pass  # the question fixes the form; a value-equal other form is not a clean variant
        elif "/" in num_txt or "frac" in num_txt:
            if dec is not None:
                out.append(("numeric.fraction_as_decimal", f"The answer is {dec}.", True))
        else:
            out.append(("numeric.decimal_as_fraction", f"The answer is \\frac{{{v.numerator}}}{{{v.denominator}}}.", True))
    if _ASKS_PERCENT.search(b.question) and "%" not in b.answer:
        out.append(("numeric.percent", f"The answer is {plain}%.", True))
    if unit:
        swap = _UNIT_SWAP.get(unit.lower())
        if swap:
            out.append(("numeric.wrong_unit", f"The answer is {plain} {swap}.", False))
    else:
        qunit = _unit_from_question(b.question)
        if _ASKS_DOLLARS.search(b.question) and v >= 0:
            out.append(("numeric.trailing_unit", f"The answer is ${plain}.", True))
        elif qunit:
            out.append(("numeric.trailing_unit", f"The answer is {plain} {qunit}.", True))
    # Near misses.
    if v.denominator == 1:
        out.append(("numeric.off_by_one", f"The answer is {int(v) + 1}{unit_sfx}.", False))
        if abs(v) >= 10 and v.numerator % 10:
            out.append(("numeric.wrong_rounding", f"The answer is about {int(round(v, -1))}{unit_sfx}.", False))
    else:
        places = _places(num_txt)
        if places >= 2:
            wrong = _fmt_decimal(v, places - 1)
            if wrong is not None and _parse_number(wrong) != v:
                out.append(("numeric.wrong_rounding", f"The answer is {wrong}{unit_sfx}.", False))
    if v != 0:
        out.append(("numeric.wrong_sign", f"The answer is {_fmt_decimal(-v) or f'-{num_txt}'}{unit_sfx}.", False))
    other = v + 1 if v.denominator == 1 else v * 2
    out.append(("numeric.box_text_mismatch",
                f"The answer is {plain}.\n\nFinal answer: \\boxed{{{_fmt_decimal(other) or other}}}", False))
    return out


def _options(question: str) -> dict[str, str]:
    return {k: v.strip() for k, v in _OPTION.findall(question)}


def _choice_variants(b: Base) -> list[tuple[str, str, bool]]:
    letter = b.answer.strip().strip("().").upper()
    opts = _options(b.question)
    if len(letter) != 1 or letter not in opts or len(opts) < 2:
        return []
    wrong = sorted(k for k in opts if k != letter)[0]
    return [
        ("choice.letter_paren", f"The correct option is ({letter}).", True),
        ("choice.letter_and_text", f"{letter}) {opts[letter]}", True),
        ("choice.option_text", f"The answer is {opts[letter]}.", True),
        ("choice.wrong_letter", f"The answer is ({wrong}).", False),
        ("choice.wrong_option_text", f"The answer is {opts[wrong]}.", False),
    ]


def _text_variants(b: Base, other: str | None) -> list[tuple[str, str, bool]]:
    a = b.answer.strip()
    if not a or len(a) > 80:
        return []
    out = [
        ("text.lowercase", a.lower(), True),
        ("text.uppercase", a.upper(), True),
        ("text.punctuation", f'"{a}."', True),
        ("text.answer_is", f"The answer is {a}.", True),
    ]
    if _ARTICLES.match(a):
        out.append(("text.article_dropped", _ARTICLES.sub("", a), True))
    else:
        out.append(("text.article_added", f"the {a}", True))
    if other:
        out.append(("text.different_entity", f"The answer is {other}.", False))
    return out


def _invalid_variants(b: Base) -> list[tuple[str, str, bool]]:
    a = b.answer.strip()
    q = b.question.strip()
    half = " ".join(q.split()[: max(3, len(q.split()) // 3)])
    out = [
        ("invalid.empty", "", False),
        ("invalid.truncated", f"Let us work through this carefully. First, {half[:120]} ... so the answer is",
         False),
        ("invalid.echo_question", q[:1500], False),
        ("invalid.refusal", "I cannot answer this question.", False),
    ]
    v = _parse_number(a)
    if v is not None:
        out.append(("invalid.conflicting_boxes",
                    f"It could be \\boxed{{{a}}} or \\boxed{{{_fmt_decimal(v + 1) or v + 1}}}.", False))
    else:
        out.append(("invalid.conflicting_boxes", f"Either \\boxed{{{a}}} or \\boxed{{unknown}}.", False))
    return out


def _norm(t: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", t.lower()).strip()


def variants(b: Base, other_answer: str | None = None) -> list[Example]:
    """All labelled variants of one base; ``other_answer`` feeds the different-entity case."""
    form = answer_form(b.answer)
    if form == "choice":
        rows = _choice_variants(b)
    elif form in ("integer", "decimal", "fraction") or _NUM_UNIT.match(b.answer.strip()):
        rows = _numeric_variants(b)
    elif form == "short_text":
        rows = _text_variants(b, other_answer)
    else:
        rows = []
    rows += _invalid_variants(b)
    out = []
    for variant, resp, label in rows:
        meta = {"made_from": b.id, "base_source": b.source, "variant": variant, "base_answer": b.answer}
        out.append(Example(
            id=stable_id("constructed", b.question, resp, b.reference),
            question=b.question, reference=b.reference, response=resp, label=label,
            source="constructed", domain=b.domain, meta=meta,
        ))
    return out


def load_seed_examples(path: str | Path = SEED_FILE) -> list[Example]:
    """The built-in seed triples shipped with the repo (our own questions, not benchmark items)."""
    from tasks.data.loaders import read_jsonl

    out = []
    for lineno, r in enumerate(read_jsonl(path), start=1):
        try:
            out.append(Example(
                id=stable_id("seed", r["question"], r["response"], r["reference"]),
                question=r["question"], reference=r["reference"], response=r["response"], label=bool(r["label"]),
                source="seed", domain=r.get("domain", "general"),
                meta={"answer": r.get("answer", final_answer_text(r["reference"])), "origin": f"seed:{lineno}"},
            ))
        except KeyError as exc:
            raise ValueError(f"{path}: record {lineno} lacks field {exc}") from exc
    return out


def generate_diagnostics(bases: Iterable[Base | Example], count: int, seed: int = 0) -> list[Example]:
    """A deterministic, variant-balanced set of about ``count`` constructed examples.

    Bases are examples (turned into :class:`Base`) or bases. Candidates are grouped by variant
    type and drawn round-robin so every type is represented; within a type the order is a
    seeded shuffle. Duplicate responses to the same question are made once.
    """
    rng = random.Random(seed)
    blist = [x if isinstance(x, Base) else base_from_example(x) for x in bases]
    # One base per question (the first seen), in a deterministic order.
    by_q: dict[str, Base] = {}
    for b in sorted(blist, key=lambda b: b.id):
        by_q.setdefault(_norm(b.question), b)
    uniq = list(by_q.values())
    rng.shuffle(uniq)
    texts = [b.answer.strip() for b in uniq if answer_form(b.answer) == "short_text" and b.answer.strip()]
    groups: dict[str, list[Example]] = defaultdict(list)
    # Limit the work: every seed base (they carry the rare forms: choices, units, fractions)
    # plus enough other bases for the count, drawn evenly across answer forms.
    budget = max(60, count // 2)
    seeds = [b for b in uniq if b.source == "seed"]
    by_form: dict[str, list[Base]] = defaultdict(list)
    for b in uniq:
        if b.source != "seed":
            by_form[answer_form(b.answer)].append(b)
    others: list[Base] = []
    forms = sorted(by_form)
    while len(others) < budget and any(by_form[f] for f in forms):
        for f in forms:
            if by_form[f] and len(others) < budget:
                others.append(by_form[f].pop(0))
    for i, b in enumerate(seeds + others):
        other = None
        if texts:
            for k in range(len(texts)):
                cand = texts[(i * 7 + k + 1) % len(texts)]
                na, nc = _norm(b.answer), _norm(cand)
                if na and nc and na not in nc and nc not in na:
                    other = cand
                    break
        for ex in variants(b, other):
            groups[ex.meta["variant"]].append(ex)
    order = sorted(groups)
    for k in order:
        rng.shuffle(groups[k])
    picked: list[Example] = []
    seen: set[str] = set()
    idx = dict.fromkeys(order, 0)
    while len(picked) < count and any(idx[k] < len(groups[k]) for k in order):
        for k in order:
            if len(picked) >= count:
                break
            while idx[k] < len(groups[k]):
                ex = groups[k][idx[k]]
                idx[k] += 1
                if ex.id not in seen:
                    seen.add(ex.id)
                    picked.append(ex)
                    break
    for ex in picked:
        ex.split = ""
    return picked
