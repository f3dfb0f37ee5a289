"""Form checks: does an answer have the form the question asks for (docs/criterion.md R3.2)?

The value of an answer is judged elsewhere; these checks look at how it is *written*:
lowest terms, decimal places, significant figures, decimal / fraction / mixed-number form,
exact and radical form, interval notation, expanded or factored form, a rationalised
denominator, scientific notation and a requested unit. Each check reads the written form
(the guarded expression tree of :mod:`.latex`, which keeps ``2(x+1)`` a product and
``\\frac{6}{8}`` a quotient, unlike sympy) and returns the violated requirement's reason code.

>>> from verifier_runtime.toolkit.cues import question_cues
>>> form_violations("\\\\frac{6}{8}", question_cues("Give the answer in lowest terms."))
('form:not_lowest_terms',)
>>> form_violations("x(x^2-1)", question_cues("Factor completely: x^3 - x."))
('form:not_fully_factored',)

Every function is total: unparseable input gives no violation (the comparison decides).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

from verifier_runtime.toolkit._memo import memoize_text
from verifier_runtime.toolkit.cues import Cues
from verifier_runtime.toolkit.latex import parse_ast
from verifier_runtime.toolkit.latex.convert import _sympy, _to_sympy
from verifier_runtime.toolkit.numbers import Number, parse_number
from verifier_runtime.toolkit.structures import parse_interval_set
from verifier_runtime.toolkit.units import parse_quantity, quantity_in_sentence

__all__ = [
    "form_violations",
    "in_lowest_terms",
    "is_expanded",
    "is_factored",
    "fully_factored",
    "denominator_rationalized",
    "radicals_simplified",
    "decimal_places_of",
]

_FRACTION_TEXT_RE = re.compile(
    r"\\[dtc]?frac\s*\{\s*(-?\d+)\s*\}\s*\{\s*(-?\d+)\s*\}|\\[dtc]?frac\s*(\d)(\d)|(?<![\d.])(\d+)\s*/\s*(\d+)(?![\d.])"
)


def in_lowest_terms(answer: str) -> bool:
    """Every numeric fraction written in ``answer`` has coprime numerator and denominator
    (``\\frac{6}{8}`` and ``6/8`` do not; ``\\frac{3}{4}`` does). Coefficient fractions of a
    monomial (``\\frac{6x}{8}``) are read from the expression tree."""
    for m in _FRACTION_TEXT_RE.finditer(answer):
        g = [x for x in m.groups() if x is not None]
        if len(g) == 2:
            a, b = abs(int(g[0])), abs(int(g[1]))
            if b and math.gcd(a, b) > 1:
                return False
    tree = _tree(answer)
    if tree is None:
        return True
    for num, den in _quotients(tree):
        a, b = _integer_content(num), _integer_content(den)
        if a and b and math.gcd(a, b) > 1:
            return False
        if len(answer) <= 200 and _common_polynomial_factor(num, den):
            return False  # "\\frac{(x-1)(x+1)}{x-1}": x - 1 divides both
    return True


def _common_polynomial_factor(num: Any, den: Any) -> bool:
    """Numerator and denominator (as written) share a factor that is a polynomial of positive degree."""
    from verifier_runtime.toolkit.latex.convert import _to_sympy

    try:
        n, d = _to_sympy(num), _to_sympy(den)
        symbols = getattr(d, "free_symbols", set()) & getattr(n, "free_symbols", set())
        if not symbols or len(symbols) > 3:
            return False
        import sympy

        g = sympy.gcd(sympy.expand(n), sympy.expand(d))
        return bool(getattr(g, "free_symbols", None))
    except Exception:  # noqa: BLE001 - a form check never takes the verdict down with it
        return False


def _tree(answer: str) -> Any:
    parsed = parse_ast(answer)
    return None if parsed is None else parsed[0]


def _walk(n: Any):
    yield n
    tag = n[0]
    if tag in ("neg", "inv", "deg", "fact"):
        yield from _walk(n[1])
    elif tag in ("add", "mul"):
        for c in n[1]:
            yield from _walk(c)
    elif tag in ("pow", "binom", "root"):
        yield from _walk(n[1])
        yield from _walk(n[2])
    elif tag == "log":
        if n[1] is not None:
            yield from _walk(n[1])
        yield from _walk(n[2])
    elif tag == "func":
        for c in n[2]:
            yield from _walk(c)


def _quotients(tree: Any):
    """(numerator factors, denominator) for every product holding an ``inv`` factor."""
    for n in _walk(tree):
        if n[0] == "mul":
            invs = [c[1] for c in n[1] if c[0] == "inv"]
            rest = [c for c in n[1] if c[0] != "inv"]
            for d in invs:
                yield (("mul", tuple(rest)) if len(rest) != 1 else rest[0]), d


def _integer_content(n: Any) -> int | None:
    """The integer coefficient of a monomial tree (``6x`` -> 6, ``8`` -> 8), else ``None``."""
    if n[0] == "num":
        v: Fraction = n[1]
        return abs(v.numerator) if v.denominator == 1 else None
    if n[0] == "neg":
        return _integer_content(n[1])
    if n[0] == "mul":
        coeff = 1
        for c in n[1]:
            if c[0] == "num":
                if c[1].denominator != 1:
                    return None
                coeff *= abs(c[1].numerator)
            elif c[0] in ("sym", "const", "pow") and not _has_tag(c, "add"):
                continue
            else:
                return None
        return coeff
    if n[0] in ("sym", "const"):
        return 1
    return None


def _has_tag(n: Any, tag: str) -> bool:
    return any(m[0] == tag for m in _walk(n))


def _has_variable(n: Any) -> bool:
    return any(m[0] == "sym" for m in _walk(n))


def is_expanded(answer: str) -> bool | None:
    """No product of sums and no power of a sum with a variable (``x^2+2x+1`` yes,
    ``(x+1)^2`` and ``2(x+1)`` no); ``None`` when the answer is not an expression."""
    tree = _tree(answer)
    if tree is None:
        return None
    for n in _walk(tree):
        if n[0] == "mul":
            if sum(1 for c in n[1] if _sum_with_variable(c)) >= 1 and len(n[1]) > 1:
                return False
        elif n[0] == "pow" and _sum_with_variable(n[1]) and n[2][0] == "num":
            return False
    return True


def _sum_with_variable(n: Any) -> bool:
    if n[0] == "neg":
        return _sum_with_variable(n[1])
    return n[0] == "add" and _has_variable(n)


def is_factored(answer: str) -> bool | None:
    """Written as a product (or power) with at least one non-monomial factor, or as a single
    irreducible polynomial; ``None`` when it is not a polynomial expression."""
    tree = _tree(answer)
    if tree is None:
        return None
    top = tree[1] if tree[0] == "neg" else tree
    if top[0] in ("mul", "pow"):
        return True
    if top[0] == "add":
        try:
            expr = _to_sympy(tree)
            sp = _sympy()
            symbols = sorted(expr.free_symbols, key=lambda s: s.name)
            if not symbols:
                return None
            _, factors = sp.factor_list(expr)
            return sum(m for _, m in factors) <= 1
        except Exception:  # noqa: BLE001 - sympy raises many types on odd input
            return None
    return True


def fully_factored(answer: str) -> bool | None:
    """Every factor of the written product is irreducible over the rationals, and no factor
    other than a number has a common integer factor (``x(x-1)(x+1)`` yes, ``x(x^2-1)`` and
    ``(2x+2)(x-1)`` no)."""
    tree = _tree(answer)
    if tree is None:
        return None
    top = tree[1] if tree[0] == "neg" else tree
    factors = list(top[1]) if top[0] == "mul" else [top]
    try:
        sp = _sympy()
        for f in factors:
            base = f[1] if f[0] == "pow" else f
            if base[0] in ("num", "sym", "const", "inv"):
                continue
            expr = _to_sympy(base)
            if not expr.free_symbols:
                continue
            content, parts = sp.factor_list(expr)
            if sum(m for _, m in parts) > 1 or abs(content) != 1:
                return False
        return True
    except Exception:  # noqa: BLE001
        return None


def denominator_rationalized(answer: str) -> bool | None:
    """No radical (``\\sqrt``, a root, a fractional power) in any denominator."""
    tree = _tree(answer)
    if tree is None:
        return None
    for n in _walk(tree):
        if n[0] == "inv" and any(_is_radical(m) for m in _walk(n[1])):
            return False
        if n[0] == "pow" and n[2][0] == "neg" and any(_is_radical(m) for m in _walk(n[1])):
            return False
    return True


def _is_radical(n: Any) -> bool:
    if n[0] == "func" and n[1] == "sqrt":
        return True
    if n[0] == "root":
        return True
    return n[0] == "pow" and n[2][0] == "num" and n[2][1].denominator != 1


def radicals_simplified(answer: str) -> bool | None:
    """Every square root of an integer has a square-free radicand (``2\\sqrt2`` yes, ``\\sqrt8`` no)
    and no radical is left in a denominator."""
    tree = _tree(answer)
    if tree is None:
        return None
    for n in _walk(tree):
        if n[0] == "func" and n[1] == "sqrt" and n[2][0][0] == "num":
            v: Fraction = n[2][0][1]
            if v.denominator != 1:
                return False
            k = abs(v.numerator)
            if k > 10**12:
                return None
            d = 2
            while d * d <= k:
                if k % (d * d) == 0:
                    return False
                d += 1
    return denominator_rationalized(answer)


def decimal_places_of(n: Number) -> int | None:
    """Decimal places as written (``3.10`` -> 2, ``7`` -> 0); ``None`` for fractions and words."""
    if n.kind in ("integer", "decimal", "percent"):
        return n.decimals or 0
    return None


@memoize_text(maxsize=2048)
def _number(answer: str) -> Number | None:
    return parse_number(answer)


def form_violations(answer: str, cues: Cues, *, reference: str | None = None,
                    requested_unit: str | None = None) -> tuple[str, ...]:
    """The reason codes of the question's form requirements that ``answer`` violates.

    ``reference``: the reference answer (an exact decimal that equals it satisfies "exact").
    A requirement binds the answer even where the reference's own writing is looser (R3.2).
    ``requested_unit``: the unit the question asks for (defaults to ``cues.unit``).
    """
    if not isinstance(answer, str) or not answer.strip() or not isinstance(cues, Cues):
        return ()
    try:
        return tuple(_violations(answer, cues, reference, requested_unit or cues.unit))
    except Exception:  # noqa: BLE001 - a form check never takes the verdict down with it
        return ()


def _violations(answer: str, cues: Cues, reference: str | None, unit: str | None) -> list[str]:
    out: list[str] = []
    n = _number(answer)
    q = parse_quantity(answer) if n is None else None
    mag = _number(_magnitude_text(answer)) if q is not None else n
    if cues.simplest_form and not in_lowest_terms(answer):
        out.append("form:not_lowest_terms")
    elif (cues.simplest_form and not cues.fraction and not cues.decimal and mag is not None
          and mag.kind in ("decimal", "scientific", "percent", "repeating") and mag.value.denominator != 1 and reference):
        ref_n = _number(_reference_value(reference))
        if ref_n is not None and ref_n.kind == "fraction":
            out.append("form:fraction_required")  # lowest terms of a fraction asks for the fraction: 0.75, 75% are none
    if cues.decimal_places is not None:
        if mag is None:
            if _tree(answer) is not None and not _tree_is_integer(answer):
                out.append("form:decimal_places")
        else:
            dp = decimal_places_of(mag)
            if dp is None or dp > cues.decimal_places:
                out.append("form:decimal_places")
    if cues.sig_figs is not None and mag is not None and mag.kind in ("decimal", "scientific", "integer"):
        if not _sig_figs_match(mag, cues.sig_figs):
            out.append("form:sig_figs")
    if cues.percentage and mag is not None and not mag.is_percent and reference:
        ref_n = _number(_reference_value(reference))
        if ref_n is not None:
            share = ref_n.value if ref_n.is_percent else ref_n.value / 100  # a bare reference is a percent figure
            if mag.value == share and share != 0 and mag.value * 100 != mag.value:
                out.append("form:percent_required")  # 0.45 (or 9/20) where 45% is asked
    if cues.decimal and not cues.decimal_places:
        if mag is not None and mag.kind in ("fraction", "mixed"):
            out.append("form:decimal_required")
        elif mag is None and _tree(answer) is not None and not _tree_is_integer(answer):
            out.append("form:decimal_required")
    if cues.fraction and mag is not None:
        if mag.kind in ("decimal", "scientific", "percent", "repeating") and mag.value.denominator != 1:
            out.append("form:fraction_required")  # 0.\\overline{3} keeps a decimal form
        elif mag.kind == "mixed" and not cues.mixed_number:
            out.append("form:fraction_required")
    if cues.mixed_number and mag is not None and abs(mag.value) > 1 and mag.value.denominator != 1:
        if mag.kind != "mixed":
            out.append("form:mixed_number_required")
    if cues.radical_form and radicals_simplified(answer) is False:
        out.append("form:radical_not_simplified")
    if (cues.exact or cues.radical_form) and mag is not None and mag.kind in ("decimal", "scientific"):
        ref_n = _number(reference) if reference else None
        if ref_n is None or ref_n.value != mag.value:
            out.append("form:exact_required")
    if cues.interval_notation and not _interval_notation(answer):
        out.append("form:interval_notation_required")
    if cues.expand and is_expanded(answer) is False:
        out.append("form:not_expanded")
    if cues.factor and not cues.expand:
        f = is_factored(answer)
        if f is False:
            out.append("form:not_factored")
        elif f and fully_factored(answer) is False:
            out.append("form:not_fully_factored")
    if cues.rationalize and denominator_rationalized(answer) is False:
        out.append("form:denominator_not_rationalized")
    if cues.scientific and mag is not None and not _scientific(mag):
        out.append("form:scientific_notation_required")
    if cues.line_form and _LINE_EQUATION_RE.match(answer) and not _in_line_form(answer, cues.line_form):
        out.append("form:slope_intercept_required" if cues.line_form == "slope_intercept" else "form:standard_form_required")
    if cues.complex_form:
        shape = complex_shape(answer)
        if shape is not None and shape != cues.complex_form:
            out.append("form:rectangular_required" if cues.complex_form == "rectangular" else "form:polar_required")
    if unit and q is None and n is None:
        q = quantity_in_sentence(answer)  # "It will take 6 weeks." where days are asked
    if unit and q is not None and not _same_unit(q.unit, unit):
        out.append("form:unit_required")
    return out


def _has_i(n: Any) -> bool:
    return any(m[0] == "const" and m[1] == "I" for m in _walk(n))


def _real_factor(n: Any) -> bool:
    """A factor with no imaginary unit, no exponential and no cis in it."""
    for m in _walk(n):
        if m[0] == "const" and m[1] == "I" or m[0] == "func" and m[1] in ("cis", "exp"):
            return False
        if m[0] == "pow" and m[1] == ("const", "E"):
            return False
    return True


_TRIG = frozenset(("sin", "cos", "tan", "sec", "csc", "cot"))


def _plain_real(n: Any) -> bool:
    """A real factor with no trigonometric function in it (a part of a + bi, not of a polar form)."""
    return _real_factor(n) and not any(m[0] == "func" and m[1] in _TRIG for m in _walk(n))


def _rectangular_term(t: Any) -> bool:
    while t[0] == "neg":
        t = t[1]
    if _plain_real(t) or t == ("const", "I"):
        return True
    if t[0] != "mul":
        return False
    units = [f for f in t[1] if f == ("const", "I")]
    return len(units) == 1 and all(f == ("const", "I") or _plain_real(f) for f in t[1])


def _rectangular(tree: Any) -> bool:
    terms = tree[1] if tree[0] == "add" else (tree,)
    return all(_rectangular_term(t) for t in terms)


def complex_shape(answer: str) -> str | None:
    """R3.2: how a complex number is written: ``"rectangular"`` (a sum of a real part and a real
    multiple of i: ``3 - 4i``, ``\\frac{1}{2} + \\frac{\\sqrt{3}}{2}i``, and such a sum times a real
    number, ``\\frac{1 + i}{2}``), ``"polar"`` (``r e^{i\\theta}``, ``r(\\cos\\theta + i\\sin\\theta)``,
    ``r\\operatorname{cis}\\theta``); ``None`` for an answer with no imaginary unit, or written
    otherwise (``\\frac{1}{1 - i}``, ``(1 + i)^2``): no form to hold against it."""
    tree = _tree(answer)
    if tree is None or not _has_i(tree) and not any(m[0] == "func" and m[1] == "cis" for m in _walk(tree)):
        return None
    if _rectangular(tree):
        return "rectangular"
    if tree[0] == "mul" and sum(1 for f in tree[1] if not _plain_real(f)) == 1:
        inner = next(f for f in tree[1] if not _plain_real(f))
        if inner[0] == "add" and _rectangular(inner):
            return "rectangular"  # (1 + i)/2
    if _polar(tree):
        return "polar"
    return None


def _polar(tree: Any) -> bool:
    factors = tree[1] if tree[0] == "mul" else (tree,)
    odd = [f for f in factors if not _real_factor(f) or _trig_pair(f)]
    if len(odd) != 1 or not all(_real_factor(f) for f in factors if f is not odd[0]):
        return False
    f = odd[0]
    if f[0] == "pow" and f[1] == ("const", "E"):
        return _has_i(f[2])
    if f[0] == "func" and f[1] in ("cis", "exp"):
        return True
    return _trig_pair(f)


def _trig_pair(n: Any) -> bool:
    """``\\cos\\theta + i \\sin\\theta``."""
    if n[0] != "add" or len(n[1]) != 2:
        return False
    a, b = n[1]
    if a[0] == "func" and a[1] == "cos" and b[0] == "mul" and ("const", "I") in b[1]:
        rest = [f for f in b[1] if f != ("const", "I")]
        return len(rest) == 1 and rest[0][0] == "func" and rest[0][1] == "sin" and rest[0][2] == a[2]
    return False


# an equation of a line in x and y (one "=", both letters), the only answers a line's form binds
_LINE_EQUATION_RE = re.compile(r"^(?=[^=]*+=[^=]*+$)(?=[^x]*+x)(?=[^y]*+y)[^\n]{3,120}$")
_CONSTANT_TERM_RE = re.compile(r"(?:^|[-+])\s*+\d++(?:\.\d++)?+\s*+(?=[-+]|$)")
_SLOPE_INTERCEPT_FORM_RE = re.compile(r"^\s*+\$?\s*+y\s*+=(?P<rhs>[^=y]++)$")


def _in_line_form(answer: str, form: str) -> bool:
    """R3.2: ``y = mx + b`` ("slope_intercept": y alone on the left, no y on the right) or
    ``Ax + By = C`` ("standard": the unknowns on the left, a number alone on the right)."""
    text = answer.replace("$", "").strip()
    if form == "slope_intercept":
        return _SLOPE_INTERCEPT_FORM_RE.match(text) is not None
    lhs, _, rhs = text.partition("=")
    return (_number(rhs.strip()) is not None and "x" in lhs and "y" in lhs
            and _CONSTANT_TERM_RE.search(lhs) is None)  # "3x - y + 5 = 0" keeps a constant on the left


_MAGNITUDE_RE = re.compile(r"^\s*+([-+\u2212]?\s*+[\d.,]+(?:\s*(?:\\times|\\cdot|\u00d7|x|\*)\s*10\s*\^\s*\{?[-+\u2212]?\d+\}?)?)")


def _reference_value(reference: str) -> str:
    from verifier_runtime.toolkit.extract import extract_reference

    return extract_reference(reference).answer or reference


def _magnitude_text(answer: str) -> str:
    from verifier_runtime.toolkit.units import _split

    split = _split(answer)
    if split is not None:
        return split[0].text if split[0].text else answer
    m = _MAGNITUDE_RE.match(answer)
    return m.group(1) if m else answer


def _tree_is_integer(answer: str) -> bool:
    tree = _tree(answer)
    return tree is not None and tree[0] == "num" and tree[1].denominator == 1


def _sig_figs_match(n: Number, want: int) -> bool:
    if n.sig_figs is None:
        return True
    if n.kind == "integer":
        digits = n.text.strip().lstrip("-+").replace(",", "")
        total = len(digits.lstrip("0")) or 1
        return n.sig_figs <= want <= total  # trailing zeros of an integer may or may not be significant
    return n.sig_figs == want


def _scientific(n: Number) -> bool:
    if n.kind != "scientific":
        return False
    text = n.text
    m = re.match(r"^\s*[-+\u2212]?\s*(\d+(?:\.\d*)?)", text)
    if not m:
        return True  # "10^{5}" alone
    mant = float(m.group(1))
    return 1 <= mant < 10


def _interval_notation(answer: str) -> bool:
    t = answer.strip().strip("$")
    # (a relation command whole: "\\left[0, 4\\right)" is an interval, its "\\le" no relation)
    if re.search(r"<|>|\\(?:le|ge|lt|gt)(?:q|qq|slant)?(?![A-Za-z])|\\(?:leqslant|geqslant)|\u2264|\u2265|\\mid|:", t):
        return False
    return parse_interval_set(answer) is not None or t in ("\\emptyset", "\\varnothing", "\u2205")


def _same_unit(a: str, requested: str) -> bool:
    from verifier_runtime.toolkit.units import _registry, requested_unit_string

    ureg = _registry()
    if ureg is None:
        return True
    try:
        target = requested_unit_string(requested)
        word = _UNIT_WORD_ALIASES.get(target.lower().rstrip("s"), None) or target
        return str(ureg.parse_units(a)) == str(ureg.parse_units(word))
    except Exception:  # noqa: BLE001 - an unknown requested unit enforces nothing
        return True


_UNIT_WORD_ALIASES = {
    "meter": "meter", "metre": "meter", "centimeter": "centimeter", "centimetre": "centimeter",
    "kilometer": "kilometer", "kilometre": "kilometer", "millimeter": "millimeter", "millimetre": "millimeter",
    "second": "second", "minute": "minute", "hour": "hour", "gram": "gram", "kilogram": "kilogram",
    "liter": "liter", "litre": "liter", "joule": "joule", "newton": "newton", "watt": "watt",
    "degree": "degree", "radian": "radian", "inche": "inch", "foot": "foot", "feet": "foot", "mile": "mile",
}
