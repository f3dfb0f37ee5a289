"""Answer objects and answer rewrites: the raw material of the constructed variants.

:func:`answer_object` names what a reference answer is (``ANSWER_OBJECTS``); the source's
own label wins where it has one (a person's label for MATH, OlympiadBench's and TheoremQA's
answer types), this module's reading of the answer otherwise.

The rewrite functions take an answer string and return other strings: value-equal forms
(other number forms, LaTeX spellings, set orders, unit conversions, equivalent expressions)
and near misses (off by one, sign, rounding, unit, missing/extra element, swapped order).
They do not decide labels: a variant type (:mod:`tasks.data.variants`) names the rule that
labels it, and :func:`equivalent` / :func:`different` ask the toolkit's comparator to confirm
that a rewrite really is (or is not) equal to the reference before it is used.
"""

from __future__ import annotations

import random
import re
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from math import gcd
from typing import Any

__all__ = [
    "ANSWER_OBJECTS",
    "answer_object",
    "different",
    "equivalent",
    "tolerance",
]

#: What an answer is. ``number``: a real value (integer, decimal, fraction, radical, pi...);
#: ``quantity``: a number with a unit; ``tuple``: ordered (vectors, pairs, lists);
#: ``set``: unordered (solution sets, several answers); ``text``: words and names.
ANSWER_OBJECTS = ("number", "quantity", "expression", "equation", "function", "complex", "tuple", "set",
                  "interval", "inequality", "matrix", "bool", "choice", "text")

#: MATH's human answer types (``math/answer_types.json``) in this vocabulary.
MATH_HUMAN_TYPES = {"Real": "number", "Expression": "expression", "Vector": "tuple", "Set": "set",
                    "Matrix": "matrix", "Interval": "interval", "Complex": "complex", "Equation": "equation",
                    "Function": "function", "Inequality": "inequality", "Others": "text"}

_PARSE_KINDS = {"number": "number", "quantity": "quantity", "expression": "expression", "equation": "equation",
                "set": "set", "tuple": "tuple", "interval": "interval", "matrix": "matrix", "text": "text",
                "ratio": "number"}


def answer_object(answer: str, question: str = "") -> str:
    """What ``answer`` is, read from the answer itself (for sources without a label)."""
    return _answer_object(answer, bool(question) and _has_options(question))


def _has_options(question: str) -> bool:
    from verifier_runtime.toolkit.choices import parse_options

    return bool(parse_options(question))


@lru_cache(maxsize=1 << 15)
def _answer_object(answer: str, has_options: bool) -> str:
    from verifier_runtime.toolkit.compare import parse_answer
    from verifier_runtime.toolkit.text import parse_bool

    a = answer.strip()
    if not a:
        return "text"
    if re.fullmatch(r"\(?[A-Ja-j]\)?", a) and has_options:
        return "choice"
    if parse_bool(a) is not None:
        return "bool"
    p = parse_answer(a)
    if p is None:
        return "text"
    kind = _PARSE_KINDS.get(p.kind, "text")
    if kind == "expression" and re.search(r"(?<![a-zA-Z\\])i(?![a-zA-Z])", a) and not re.search(r"[a-hj-zA-Z]", a.replace("\\frac", "").replace("\\sqrt", "")):
        return "complex"
    if kind == "expression" and not re.search(r"[a-zA-Z]", re.sub(r"\\[a-zA-Z]+", "", a)):
        return "number"  # a constant: \sqrt{2}, 3\pi
    return kind


# --------------------------------------------------------------------------- the toolkit's comparator


def tolerance(reference: str) -> float:
    """The relative tolerance of a reference (R5.3): half a unit of its last written digit for a
    decimal (or a scientific mantissa), 0 for integers, fractions and exact values."""
    from verifier_runtime.toolkit.numbers import parse_number
    from verifier_runtime.toolkit.units import parse_quantity

    n = parse_number(reference)
    if n is None:
        q = parse_quantity(reference)
        if q is None:
            return 0.0
        n = parse_number(_magnitude_text(reference))
        if n is None:
            return 0.0
    if n.value == 0:
        return 0.0
    if n.kind == "decimal" and n.decimals:
        return float(Fraction(1, 2 * 10**n.decimals) / abs(n.value))
    if n.kind == "scientific" and n.sig_figs:
        mant = abs(n.value) / Fraction(10) ** _exp10(n.value)
        return float(Fraction(1, 2 * 10 ** (n.sig_figs - 1)) / mant)
    return 0.0


def _exp10(v: Fraction) -> int:
    v = abs(v)
    e = 0
    while v >= 10:
        v /= 10
        e += 1
    while v < 1:
        v *= 10
        e -= 1
    return e


def equivalent(reference: str, answer: str, rel_tol: float | None = None) -> bool:
    """The toolkit's comparator says equal (within the reference's own tolerance)."""
    from verifier_runtime.toolkit.compare import answers_equivalent

    tol = tolerance(reference) if rel_tol is None else rel_tol
    return answers_equivalent(reference, answer, rel_tol=tol).equal is True


def different(reference: str, answer: str, rel_tol: float | None = None, *, dimension_ok: bool = False) -> bool:
    """The toolkit's comparator says different (``dimension_ok``: a dimension mismatch counts)."""
    from verifier_runtime.toolkit.compare import answers_equivalent

    tol = tolerance(reference) if rel_tol is None else rel_tol
    c = answers_equivalent(reference, answer, rel_tol=tol)
    if c.equal is False:
        return True
    return dimension_ok and c.equal is None and "dimension" in c.detail


# --------------------------------------------------------------------------- numbers


def number(text: str) -> Any:
    """The toolkit's exact number of ``text`` (a :class:`Number`), or ``None``."""
    from verifier_runtime.toolkit.numbers import parse_number

    return parse_number(text.strip().strip("$").strip())


def exact_decimal(v: Fraction) -> str | None:
    """The terminating decimal text of ``v`` (``None`` when it does not terminate)."""
    den = v.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    if den != 1:
        return None
    s = format((Decimal(v.numerator) / Decimal(v.denominator)).normalize(), "f")
    return s if "." in s or v.denominator == 1 else s


def fixed(v: Fraction, places: int) -> str:
    """``v`` rounded half-up to ``places`` decimals (``places`` >= 0)."""
    q = Decimal(1).scaleb(-places)
    d = (Decimal(v.numerator) / Decimal(v.denominator)).quantize(q, rounding="ROUND_HALF_UP")
    s = format(d, "f")
    return "0" if s in ("-0", "-0.0") else s


def frac_latex(v: Fraction, style: str = "frac") -> str:
    """``v`` as ``\\frac{a}{b}`` (``style`` ``dfrac``, ``slash``: ``a/b``)."""
    sign = "-" if v < 0 else ""
    a, b = abs(v.numerator), v.denominator
    if style == "slash":
        return f"{sign}{a}/{b}"
    return f"{sign}\\{style}{{{a}}}{{{b}}}"


def mixed_latex(v: Fraction) -> str | None:
    """An improper fraction as a mixed number ``2\\frac{1}{2}`` (``None`` if |v| < 1 or integer)."""
    if v.denominator == 1 or abs(v) < 1:
        return None
    sign = "-" if v < 0 else ""
    w, r = divmod(abs(v.numerator), v.denominator)
    return f"{sign}{w}\\frac{{{r}}}{{{v.denominator}}}"


def scientific(v: Fraction, digits: int | None = None) -> str | None:
    """``v`` as ``m \\times 10^{e}`` with the mantissa exact (``digits``: significant digits kept)."""
    if v == 0:
        return None
    e = _exp10(v)
    mant = v / Fraction(10) ** e
    if digits is not None:
        text = fixed(mant, max(0, digits - 1))
    else:
        text = exact_decimal(mant)
        if text is None:
            return None
    return f"{text} \\times 10^{{{e}}}"


def sig_text(v: float, sig: int) -> str:
    """A float with ``sig`` significant digits, plain where short, else scientific LaTeX."""
    if v == 0:
        return "0"
    d = Decimal(repr(v))
    e = d.adjusted()
    if -3 <= e < 7:
        places = max(0, sig - 1 - e)
        return format(d.quantize(Decimal(1).scaleb(-places)), "f")
    mant = d.scaleb(-e).quantize(Decimal(1).scaleb(-(sig - 1)))
    return f"{format(mant, 'f')} \\times 10^{{{e}}}"


# --------------------------------------------------------------------------- quantities

#: unit alternatives by pint dimensionality, written as a response would write them
_UNIT_CHOICES = {
    "[length]": ("m", "cm", "mm", "km", "nm", "\\mu m", "pm"),
    "[mass]": ("kg", "g", "mg"),
    "[time]": ("s", "ms", "min", "h"),
    "[mass] * [length] ** 2 / [time] ** 2": ("J", "kJ", "eV", "cal"),
    "[mass] / [length] / [time] ** 2": ("Pa", "kPa", "atm", "bar", "Torr"),
    "[mass] * [length] / [time] ** 2": ("N", "kN"),
    "[mass] * [length] ** 2 / [time] ** 3": ("W", "kW"),
    "[length] / [time]": ("m/s", "km/h", "cm/s"),
    "[length] / [time] ** 2": ("m/s^2", "cm/s^2"),
    "[length] ** 3": ("L", "mL", "m^3", "cm^3"),
    "[length] ** 2": ("m^2", "cm^2", "mm^2"),
    "[substance]": ("mol", "mmol"),
    "[mass] * [length] ** 2 / [time] ** 2 / [substance]": ("J/mol", "kJ/mol"),
    "[substance] / [length] ** 3": ("mol/L", "mmol/L", "mol/m^3"),
    "1 / [time]": ("Hz", "kHz", "s^{-1}"),
    "[current] * [time]": ("C", "mC"),
    "[length] ** 2 * [mass] / [current] / [time] ** 3": ("V", "mV", "kV"),
    "[current]": ("A", "mA"),
    "[mass] / [length] ** 3": ("kg/m^3", "g/cm^3", "g/L"),
}
#: one unit of another dimension per dimension, for a wrong-dimension near miss
_OTHER_DIMENSION = {"[length]": "s", "[mass]": "N", "[time]": "m", "[mass] * [length] ** 2 / [time] ** 2": "N",
                    "[mass] / [length] / [time] ** 2": "J", "[mass] * [length] / [time] ** 2": "kg",
                    "[length] / [time]": "m/s^2", "[length] ** 3": "m^2", "[length] ** 2": "m^3",
                    "[substance]": "g", "[mass] * [length] ** 2 / [time] ** 3": "J"}


def quantity(text: str) -> Any:
    """The quantity a reference or answer writes, with one magnitude: a compound ("1 hour 30
    minutes") is no base for the generator's rewrites, which rewrite one magnitude and its unit."""
    from verifier_runtime.toolkit.units import parse_quantity

    m = _MAG_RE.match(text)
    if m is not None and any(ch.isdigit() for ch in text[m.end():]) and _COMPOUND_TAIL_RE.search(text[m.end():]):
        return None
    return parse_quantity(text)


_COMPOUND_TAIL_RE = re.compile(r"[A-Za-z]\.?,?\s++(?:and\s+)?\d")  # "... hours and 15 minutes", "... ft 6 in"


_MAG_RE = re.compile(r"^\s*\$?\s*([-+\u2212]?\s*(?:\d[\d,]*\.?\d*|\.\d+)(?:\s*(?:\\times|\\cdot|\u00d7)\s*10\s*\^\s*\{?[-+\u2212]?\d+\}?)?)")


def _magnitude_text(answer: str) -> str:
    m = _MAG_RE.match(answer)
    return m.group(1).replace(" ", "") if m else answer


def split_quantity(answer: str) -> tuple[str, str] | None:
    """(magnitude text, unit text) of a quantity answer, or ``None``."""
    if quantity(answer) is None:
        return None
    m = _MAG_RE.match(answer)
    if not m:
        return None
    return m.group(1).strip(), answer[m.end():].strip()


def converted_units(answer: str, rng: random.Random) -> list[tuple[str, str]]:
    """(rewrite, target unit) of a quantity in other units of its dimension, with enough digits
    to keep the reference's precision (R5.1)."""
    from verifier_runtime.toolkit.units import convert

    q = quantity(answer)
    sp = split_quantity(answer)
    if q is None or sp is None or "degree" in q.unit or "kelvin" in q.unit:
        return []  # temperatures convert with an offset; angles are written in many ways
    n = number(sp[0])
    sig = (n.sig_figs or 3) + 2 if n is not None else 6
    out = []
    for unit in _UNIT_CHOICES.get(q.dimensionality, ()):
        c = convert(q, unit)
        if c is None or _same_unit(q.unit, c.unit) or (q.magnitude and abs(float(c.magnitude) / float(q.magnitude) - 1)
                                                       < 1e-9):
            continue  # the same unit under another name (W for J/s) is no conversion
        out.append((f"{sig_text(float(c.magnitude), sig)} \\mathrm{{{unit}}}" if "^" not in unit and "\\" not in unit
                    else f"{sig_text(float(c.magnitude), sig)} {unit}", unit))
    rng.shuffle(out)
    return out


def _same_unit(a: str, b: str) -> bool:
    return a.replace(" ", "") == b.replace(" ", "")


def wrong_units(answer: str, rng: random.Random) -> list[tuple[str, str]]:
    """(rewrite, kind) with the same magnitude in another unit: ``same_dimension`` (a different
    value after conversion) or ``other_dimension``."""
    q = quantity(answer)
    sp = split_quantity(answer)
    if q is None or sp is None:
        return []
    from verifier_runtime.toolkit.units import convert

    out = []
    for unit in _UNIT_CHOICES.get(q.dimensionality, ()):
        c = convert(q, unit)
        if c is None or _same_unit(q.unit, c.unit) or abs(float(c.magnitude) - float(q.magnitude)) < 1e-12 * max(1.0, abs(float(q.magnitude))):
            continue
        out.append((f"{sp[0]} \\mathrm{{{unit}}}" if "^" not in unit and "\\" not in unit else f"{sp[0]} {unit}",
                    "same_dimension"))
    rng.shuffle(out)
    other = _OTHER_DIMENSION.get(q.dimensionality)
    if other:
        out.append((f"{sp[0]} \\mathrm{{{other}}}" if "^" not in other else f"{sp[0]} {other}", "other_dimension"))
    return out


# --------------------------------------------------------------------------- number forms


def number_forms(answer: str) -> list[tuple[str, str]]:
    """(rewrite, kind) of a plain number in other exact forms: ``fraction_as_decimal``,
    ``decimal_as_fraction``, ``integer_as_decimal``, ``mixed_number``, ``improper_fraction``,
    ``scientific``, ``thousands``."""
    n = number(answer)
    if n is None or n.is_percent or n.kind in ("words", "based"):
        return []
    v: Fraction = n.value
    out: list[tuple[str, str]] = []
    if n.kind in ("fraction", "mixed"):
        dec = exact_decimal(v)
        if dec is not None:
            out.append((dec, "fraction_as_decimal"))
        if n.kind == "mixed":
            out.append((frac_latex(v), "improper_fraction"))
        else:
            mixed = mixed_latex(v)
            if mixed:
                out.append((mixed, "mixed_number"))
    elif n.kind == "decimal" and v.denominator != 1:
        out.append((frac_latex(v), "decimal_as_fraction"))
    elif n.kind == "integer":
        out.append((f"{v.numerator}.0", "integer_as_decimal"))
        if abs(v) >= 1_000_000:
            out.append((f"{v.numerator:,}", "thousands"))  # several digit groups: only the thousands reading
        elif abs(v) >= 1000:
            # a lone group after a comma also reads as a decimal comma (R4.1); a thin space does not
            out.append((f"{v.numerator:,}".replace(",", "\\,"), "thousands"))
        if abs(v) >= 100 and v.numerator % 10 == 0:
            sci = scientific(v)
            if sci:
                out.append((sci, "scientific"))
    return out


def unreduced_fraction(answer: str, rng: random.Random) -> str | None:
    """A fraction in lowest terms written unreduced (``3/4`` -> ``\\frac{6}{8}``)."""
    n = number(answer)
    if n is None or n.kind != "fraction" or n.value.denominator == 1:
        return None
    k = rng.choice((2, 3, 4, 5))
    v = n.value
    sign = "-" if v < 0 else ""
    return f"{sign}\\frac{{{abs(v.numerator) * k}}}{{{v.denominator * k}}}"


def is_lowest_terms_fraction(answer: str) -> bool:
    t = answer.strip().strip("$")
    m = re.fullmatch(r"-?\\[dt]?frac\{(\d+)\}\{(\d+)\}|-?(\d+)\s*/\s*(\d+)", t)
    if not m:
        return False
    a, b = (int(x) for x in (m.group(1) or m.group(3), m.group(2) or m.group(4)))
    return b > 1 and gcd(a, b) == 1


def more_digits(answer: str, rng: random.Random) -> str | None:
    """A decimal with one digit more that still rounds to it (within R5.3's half unit)."""
    n = number(answer)
    if n is None or n.kind != "decimal" or not n.decimals:
        return None
    t = n.text.strip().lstrip("+")
    digit = rng.choice("1234")  # rounds back down to the written value
    return t + digit


def fewer_digits(answer: str) -> str | None:
    """A decimal rounded to one place fewer, outside the reference's half-unit tolerance."""
    n = number(answer)
    if n is None or n.kind != "decimal" or not n.decimals:
        return None
    out = fixed(n.value, n.decimals - 1)
    return out if abs(Fraction(out) - n.value) > Fraction(1, 2 * 10**n.decimals) else None


def rounded_integer(answer: str) -> str | None:
    """An integer rounded to tens (``123`` -> ``120``)."""
    n = number(answer)
    if n is None or n.kind != "integer" or abs(n.value) < 10 or n.value.numerator % 10 == 0:
        return None
    return str(int(round(n.value, -1)))


def sig_figs_text(answer: str, extra: int) -> str | None:
    """A decimal's value written with ``extra`` more significant digits (digits appended)."""
    n = number(answer)
    if n is None or n.kind != "decimal" or not n.sig_figs:
        return None
    return n.text.strip().lstrip("+") + "2" * extra


def off_by_one(answer: str, rng: random.Random) -> str | None:
    n = number(answer)
    if n is None or n.kind not in ("integer",) or n.is_percent:
        return None
    return str(n.value.numerator + rng.choice((1, -1)))


def negated(answer: str) -> str | None:
    """The answer with its sign flipped (numbers, quantities, expressions)."""
    t = answer.strip()
    n = number(t)
    if n is not None:
        if n.value == 0 or n.kind in ("words", "based"):
            return None
        return t[1:].lstrip() if t.startswith("-") else ("-" + t.lstrip("+"))
    if t.startswith("-") and not re.search(r"[+\-]", t[1:].replace("\\pm", "")):
        return t[1:]
    if re.search(r"(?<!^)[+\-]", t) or "\\pm" in t:
        return f"-\\left({t}\\right)" if "\\pm" not in t else None
    return "-" + t


def decimal_approximation(answer: str, places: int = 4) -> str | None:
    """A decimal approximation of an exact irrational value (``\\sqrt{2}`` -> ``1.4142``)."""
    from verifier_runtime.toolkit.latex import parse_expression

    expr = parse_expression(answer)
    if expr is None or getattr(expr, "free_symbols", None) or getattr(expr, "is_Rational", False):
        return None
    try:
        val = complex(expr.evalf(20))
    except (TypeError, ValueError):
        return None
    if abs(val.imag) > 1e-12:
        return None
    return format(Decimal(repr(val.real)).quantize(Decimal(1).scaleb(-places)), "f")


def simplified_radical_unsimplified(answer: str) -> str | None:
    """``a\\sqrt{b}`` written as ``\\sqrt{a^2 b}`` (an unsimplified radical)."""
    m = re.fullmatch(r"\s*(\d+)\s*\\sqrt\s*\{(\d+)\}\s*", answer)
    if not m:
        return None
    a, b = int(m.group(1)), int(m.group(2))
    return f"\\sqrt{{{a * a * b}}}" if a > 1 else None


# --------------------------------------------------------------------------- LaTeX spellings

def _lit(text: str):
    return lambda _m: text


_SPELLINGS = (
    (re.compile(r"\\frac(?=\{)"), _lit("\\dfrac")),
    (re.compile(r"\\dfrac(?=\{)"), _lit("\\frac")),
    (re.compile(r"\\tfrac(?=\{)"), _lit("\\frac")),
    (re.compile(r"\\sqrt\{(\d)\}"), lambda m: f"\\sqrt {m.group(1)}"),
    (re.compile(r"\^\{(\d)\}"), lambda m: f"^{m.group(1)}"),
    (re.compile(r"\^(\d)(?![\d}])"), lambda m: f"^{{{m.group(1)}}}"),
    (re.compile(r"\\cdot"), _lit("\\times")),
    (re.compile(r"\\left\(|\\right\)"), lambda m: "(" if "(" in m.group(0) else ")"),
    (re.compile(r"\\begin\{pmatrix\}(.*)\\end\{pmatrix\}", re.S),
     lambda m: f"\\begin{{bmatrix}}{m.group(1)}\\end{{bmatrix}}"),
)


def latex_spellings(answer: str) -> list[str]:
    """Other LaTeX spellings of the same answer (``\\frac`` vs ``\\dfrac``, ``^{2}`` vs ``^2``,
    ``\\left( \\right)``, ``pmatrix`` vs ``bmatrix``, comma spacing, ``$..$`` wrapped)."""
    t = answer.strip()
    out: list[str] = []
    for rx, rep in _SPELLINGS:
        s = rx.sub(rep, t).strip()
        if s != t and s and s not in out:
            out.append(s)
    if re.search(r",(?=\S)", t):
        out.append(re.sub(r",(?=\S)", ", ", t))
    elif ", " in t:
        out.append(t.replace(", ", ","))
    out.append(f"${t}$")
    return out


# --------------------------------------------------------------------------- collections


def _split_items(answer: str) -> tuple[str, list[str], str] | None:
    """(open bracket, items, close bracket) of a set/tuple/list answer, or ``None``."""
    from verifier_runtime.toolkit.structures import split_top_level

    t = answer.strip().strip("$").strip()
    for op, cl in (("\\{", "\\}"), ("\\left\\{", "\\right\\}"), ("(", ")"), ("[", "]"), ("\\langle", "\\rangle"),
                   ("\\left(", "\\right)")):
        if t.startswith(op) and t.endswith(cl) and len(t) > len(op) + len(cl):
            inner = t[len(op):-len(cl)]
            parts = split_top_level(inner, ",")
            if parts and len(parts) >= 2 and _balanced(inner):
                return op, [p.strip() for p in parts], cl
    parts = split_top_level(t, ",")
    if parts and len(parts) >= 2 and all(p.strip() for p in parts):
        return "", [p.strip() for p in parts], ""
    return None


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def items_of(answer: str) -> list[str] | None:
    sp = _split_items(answer)
    return sp[1] if sp else None


def _join(op: str, items: list[str], cl: str) -> str:
    return f"{op}{', '.join(items)}{cl}"


def reordered(answer: str, rng: random.Random) -> str | None:
    """The elements of a set or list in another order."""
    sp = _split_items(answer)
    if sp is None or len(set(sp[1])) < 2:
        return None
    items = list(sp[1])
    for _ in range(6):
        rng.shuffle(items)
        if items != sp[1]:
            return _join(sp[0], items, sp[2])
    items = list(reversed(sp[1]))
    return _join(sp[0], items, sp[2]) if items != sp[1] else None


def swapped(answer: str, rng: random.Random) -> str | None:
    """Two distinct elements of a tuple swapped."""
    sp = _split_items(answer)
    if sp is None:
        return None
    items = list(sp[1])
    pairs = [(i, j) for i in range(len(items)) for j in range(i + 1, len(items)) if items[i] != items[j]]
    if not pairs:
        return None
    i, j = rng.choice(pairs)
    items[i], items[j] = items[j], items[i]
    return _join(sp[0], items, sp[2])


def missing_element(answer: str, rng: random.Random) -> str | None:
    sp = _split_items(answer)
    if sp is None or len(sp[1]) < 2:
        return None
    items = list(sp[1])
    items.pop(rng.randrange(len(items)))
    if len(items) == 1 and sp[0] in ("(", "[", "\\langle", "\\left("):
        return items[0]
    return _join(sp[0], items, sp[2])


def extra_element(answer: str, rng: random.Random) -> str | None:
    sp = _split_items(answer)
    if sp is None:
        return None
    items = list(sp[1])
    nums = [number(x) for x in items]
    if all(n is not None for n in nums):
        new = str(max(n.value for n in nums).numerator + 1) if all(n.value.denominator == 1 for n in nums) \
            else str(int(max(n.value for n in nums)) + 1)
    else:
        new = "0" if "0" not in items else "1"
    if new in items:
        return None
    items.insert(rng.randrange(len(items) + 1), new)
    return _join(sp[0], items, sp[2])


# --------------------------------------------------------------------------- intervals


_INTERVAL_RE = re.compile(r"^\s*(\(|\[)\s*([^,\[\]()]+?)\s*,\s*([^,\[\]()]+?)\s*(\)|\])\s*$")


def interval_as_inequality(answer: str, var: str = "x") -> str | None:
    """``(1, 2]`` as ``1 < x \\le 2`` (one interval; unbounded ends dropped)."""
    m = _INTERVAL_RE.match(answer.strip().strip("$"))
    if not m:
        return None
    lo_b, lo, hi, hi_b = m.groups()
    lo_inf = "infty" in lo
    hi_inf = "infty" in hi
    if lo_inf and hi_inf:
        return None
    lo_op = "\\le" if lo_b == "[" else "<"
    hi_op = "\\le" if hi_b == "]" else "<"
    if lo_inf:
        return f"{var} {hi_op} {hi}"
    if hi_inf:
        ge = "\\ge" if lo_b == "[" else ">"
        return f"{var} {ge} {lo}"
    return f"{lo} {lo_op} {var} {hi_op} {hi}"


def flipped_endpoint(answer: str, rng: random.Random) -> str | None:
    """An interval with one finite end switched between open and closed."""
    m = _INTERVAL_RE.match(answer.strip().strip("$"))
    if not m:
        return None
    lo_b, lo, hi, hi_b = m.groups()
    ends = [k for k, v in (("lo", lo), ("hi", hi)) if "infty" not in v]
    if not ends:
        return None
    if rng.choice(ends) == "lo":
        lo_b = "(" if lo_b == "[" else "["
    else:
        hi_b = ")" if hi_b == "]" else "]"
    return f"{lo_b}{lo}, {hi}{hi_b}"


# --------------------------------------------------------------------------- expressions


@lru_cache(maxsize=4096)
def _sympy(answer: str) -> Any:
    from verifier_runtime.toolkit.latex import parse_expression

    return parse_expression(answer)


def expression_rewrites(answer: str) -> list[tuple[str, str]]:
    """(rewrite, kind) of an expression: ``expanded``, ``factored``, ``sympy_form`` (sympy's
    own LaTeX, often another term order or a rationalised form), ``terms_reordered``."""
    import sympy

    expr = _sympy(answer)
    if expr is None:
        return []
    out: list[tuple[str, str]] = []
    try:
        if expr.free_symbols:
            e = sympy.expand(expr)
            if e != expr:
                out.append((sympy.latex(e), "expanded"))
            f = sympy.factor(expr)
            if f != expr and f != e:
                out.append((sympy.latex(f), "factored"))
        out.append((sympy.latex(expr), "sympy_form"))
        if isinstance(expr, sympy.Add) and len(expr.args) >= 2:
            terms = list(expr.args)
            terms.reverse()
            text = " + ".join(sympy.latex(t) for t in terms).replace("+ -", "- ")
            out.append((text, "terms_reordered"))
    except Exception:  # noqa: BLE001 - sympy printing or algebra can fail on odd input; no rewrite then
        return out
    t = re.sub(r"\s+", "", answer)
    return [(s, k) for s, k in out if re.sub(r"\s+", "", s) != t]


def changed_constant(answer: str, rng: random.Random) -> str | None:
    """One integer constant of the answer changed by one (``x^2+2x+1`` -> ``x^2+3x+1``)."""
    spots = [m for m in re.finditer(r"(?<![\\a-zA-Z^_{])\d+(?![\d.])", answer)]
    spots = [m for m in spots if not answer[max(0, m.start() - 1):m.start()] == "^"]
    if not spots:
        return None
    m = rng.choice(spots)
    return answer[:m.start()] + str(int(m.group(0)) + 1) + answer[m.end():]


def case_flipped_symbol(answer: str) -> str | None:
    """One single-letter variable of a math answer in the other case (``2x+1`` -> ``2X+1``):
    not a function name (``f(x)``), not the label before an equation's ``=``."""
    if re.search(r"[a-zA-Z]\s*\(", re.sub(r"\\[a-zA-Z]+", "", answer)):
        return None  # function notation f(x): which letter names what is not clear
    body = re.sub(r"\\[a-zA-Z]+", lambda m: "\x00" * len(m.group(0)), answer)
    start = body.index("=") + 1 if body.count("=") == 1 else 0
    for m in re.finditer(r"(?<![a-zA-Z\x00])([a-zA-Z])(?![a-zA-Z\x00(])", body[start:]):
        ch = m.group(1)
        if ch in "ieE":
            continue  # the imaginary unit and Euler's number
        k = start + m.start()
        return answer[:k] + ch.swapcase() + answer[k + 1:]
    return None


def swapped_equation(answer: str) -> str | None:
    t = answer.strip()
    if t.count("=") != 1 or any(op in t for op in ("<", ">", "\\le", "\\ge", "\\ne")):
        return None
    lhs, rhs = (s.strip() for s in t.split("="))
    return f"{rhs} = {lhs}" if lhs and rhs else None


# --------------------------------------------------------------------------- text

ORDINARY_WORD_RE = re.compile(r"^[A-Za-z][a-z]+(?:[ '\-][A-Za-z][a-z]+)*$")


def ordinary_words(answer: str) -> bool:
    """Only ordinary capitalised or lower-case words (no acronyms, symbols, formulas or digits):
    case carries no meaning (R6.1)."""
    t = re.sub(r"^\\text\{(.*)\}$", r"\1", answer.strip())
    return bool(ORDINARY_WORD_RE.match(t)) and len(t) >= 3


def case_changed(answer: str, rng: random.Random) -> str:
    t = re.sub(r"^\\text\{(.*)\}$", r"\1", answer.strip())
    return rng.choice((t.lower(), t.upper())) if t.lower() != t else t.upper()
