"""Plain numbers: exact parsing into :class:`fractions.Fraction`, tolerant comparison, rounding.

Standard library only (no sympy): plain numeric answers are the common case and must parse and
compare in tens of microseconds. Every public function returns a value or ``None`` and never
raises, whatever it is given.

>>> parse_number("\\\\frac{3}{4}").value
Fraction(3, 4)
>>> parse_number("45%").value, parse_number("45%").is_percent
(Fraction(9, 20), True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from verifier_runtime.limits import MAX_ANSWER_CHARS, MAX_EXPONENT, MAX_LITERAL_DIGITS
from verifier_runtime.toolkit._memo import memoize_text

# Patterns of the parsing hot path, compiled once (re's own cache lookup costs per call).
_SPACE_RUN_RE = re.compile(r"\s+")
_PLAIN_DECIMAL_RE = re.compile(r"\d+(?:\.\d*)?|\.\d+")
# the Unicode vulgar fractions ("\u00bd", "\u00be"), as the fractions they write
VULGAR_FRACTIONS = {"\u00bd": "1/2", "\u2153": "1/3", "\u2154": "2/3", "\u00bc": "1/4", "\u00be": "3/4", "\u2155": "1/5",
                    "\u2156": "2/5", "\u2157": "3/5", "\u2158": "4/5", "\u2159": "1/6", "\u215a": "5/6", "\u2150": "1/7",
                    "\u215b": "1/8", "\u215c": "3/8", "\u215d": "5/8", "\u215e": "7/8", "\u2151": "1/9", "\u2152": "1/10"}
# a vulgar fraction and the whole number before it, if any ("2\u00bd" is the mixed number 2 1/2)
VULGAR_FRACTION_RE = re.compile(r"(\d*+)([" + "".join(VULGAR_FRACTIONS) + r"])")

__all__ = [
    "Number",
    "parse_number",
    "numbers_close",
    "round_to_decimals",
    "round_to_sig_figs",
    "matches_with_rounding",
    "to_fraction",
]


@dataclass(frozen=True, slots=True)
class Number:
    """An exactly parsed number.

    ``value`` is the number meant: ``"45%"`` has ``value == 9/20`` and ``is_percent`` set, so
    ``45%`` and ``0.45`` are exactly equal; :attr:`as_written` gives ``45`` back. ``decimals``
    and ``sig_figs`` describe the precision as written (``None`` where it does not apply,
    e.g. fractions).
    """

    value: Fraction
    text: str
    kind: str  # "integer", "decimal", "fraction", "mixed", "percent", "scientific", "words", "based"
    decimals: int | None = None
    sig_figs: int | None = None
    is_percent: bool = False
    #: written like ``1,234``: thousands (the reading given) or a decimal comma (1.234); see docs/criterion.md R4.1
    comma_ambiguous: bool = False

    @property
    def as_written(self) -> Fraction:
        """The number as written: the percent figure for percentages (``45%`` -> 45)."""
        return self.value * 100 if self.is_percent else self.value


# --- normalisation -----------------------------------------------------------------------------

_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))


def strip_math_delimiters(t: str) -> str:
    """``t`` (already stripped) without ``$$..$$``, ``$..$``, ``\\(..\\)``, ``\\[..\\]``, tried once each
    in that order. Every delimiter starts with ``$`` or a backslash: other texts are returned as
    they are without trying them."""
    if t[:1] not in ("$", "\\"):
        return t
    for left, right in _WRAPPERS:
        if len(t) >= len(left) + len(right) and t.startswith(left) and t.endswith(right):
            t = t[len(left) : len(t) - len(right)].strip()
    return t


def collapse_spaces(s: str) -> str:
    """Every run of whitespace in ``s`` as one space. A text whose whitespace characters are all
    lone ASCII spaces (any other whitespace character is not printable) is returned as it is."""
    return s if "  " not in s and s.isprintable() else _SPACE_RUN_RE.sub(" ", s)


_SPACES = re.compile(r"\\[,;:! ]|\\quad|\\qquad|~|\\thinspace|\\enspace|[\u2009\u202f\u00a0]")
_LATEX_MINUS = re.compile(r"^(?:\u2212|\u2013|\\minus)")
_ASSIGN = re.compile(r"^[A-Za-z](?:_\{?[A-Za-z0-9]{1,4}\}?)?\s*=\s*(?P<rhs>[^=<>]+)$")
_TEXT_WRAP = re.compile(r"^\\(?:text|mathrm|textbf|mathbf|boxed)\{(?P<body>[^{}]*)\}$")

_INT = r"\d+"
_GROUPED = r"\d{1,3}(?:,\d{3})+|\d{1,3}(?: \d{3})+"
_DEC = rf"(?:{_GROUPED}|\d+)(?:\.\d*)?|\.\d+"
_PLAIN = re.compile(rf"^(?P<sign>[-+]?)(?P<num>{_DEC})$")
_GROUPED_RE = re.compile(_GROUPED)
# "3.2e-4", "3.2E4"; a space before the mark only with a signed exponent ("3.2 E-4", "3.2 E -4", "3.2 e-4"):
# "3.2 E" alone or "2 E. coli" is a number and a word, "3.2 e - 4" an expression in Euler's e
_E_SCI = re.compile(rf"^(?P<sign>[-+]?)(?P<num>{_DEC})(?:[eE]|[ \t]+E[ \t]*+(?=[-+\u2212]\d)|[ \t]+e(?=[-+\u2212]\d))(?P<exp>[-+\u2212]?\d+)$")
_TIMES = r"(?:\\times|\\cdot|×|·|\*|x)"
_POW_SCI = re.compile(
    rf"^(?P<sign>[-+]?)(?:(?P<num>{_DEC})\s*{_TIMES}\s*)?10\s*(?:\^|\*\*)\s*(?:\{{\s*(?P<exp1>[-+]?\s*\d+)\s*\}}|(?P<exp2>[-+]?\d+))$"
)
_SLASH = re.compile(rf"^(?P<sign>[-+]?)(?P<n>{_DEC})\s*/\s*(?P<d>{_DEC})$")
_FRAC = re.compile(
    r"^(?P<sign>[-+]?)(?P<whole>\d+\s*)?\\[dtc]?frac\s*(?:\{\s*(?P<n>[-+]?[\d.]+)\s*\}|(?P<n1>\d))\s*"
    r"(?:\{\s*(?P<d>[-+]?[\d.]+)\s*\}|(?P<d1>\d))$"
)
_MIXED = re.compile(r"^(?P<sign>[-+]?)(?P<whole>\d+)\s+(?P<n>\d+)\s*/\s*(?P<d>\d+)$")
_FAST_INT = re.compile(r"^-?\d{1,18}$")
_FAST_DEC = re.compile(r"^(-?)(\d{1,18})\.(\d{1,18})$")


def _strip(s: str) -> str:
    s = s.strip()
    for _ in range(3):
        unwrapped = strip_math_delimiters(s)
        changed = unwrapped != s  # a delimiter taken off always shortens the text
        s = unwrapped
        m = _TEXT_WRAP.match(s) if s[:1] == "\\" else None
        if m:
            s = m.group("body").strip()
            changed = True
        if s.endswith(".") and not s.endswith(".."):
            s = s[:-1].rstrip()
            changed = True
        if not changed:
            break
    return s


def _digits_ok(*parts: str | None) -> bool:
    return sum(sum(c.isdigit() for c in p) for p in parts if p) <= MAX_LITERAL_DIGITS


def _decimal_fraction(num: str) -> Fraction:
    num = num.replace(",", "").replace(" ", "")
    if "." in num:
        whole, frac = num.split(".", 1)
        whole = whole or "0"
        if not frac:
            return Fraction(int(whole))
        return Fraction(int(whole + frac), 10 ** len(frac))
    return Fraction(int(num))


def _precision(num: str) -> tuple[int, int]:
    """Decimal places and significant figures of a written decimal (trailing integer zeros not significant)."""
    num = num.replace(",", "").replace(" ", "")
    whole, _, frac = num.partition(".")
    decimals = len(frac)
    digits = (whole + frac).lstrip("0")
    if not digits:
        return decimals, max(1, decimals) if decimals else 1
    if "." not in num:
        digits = digits.rstrip("0") or "0"
    return decimals, len(digits)


# Every number form is written with digits (``\d``: what the number patterns read as digits, and the
# vulgar fractions, which the normalisation writes with digits).
ANY_DIGIT_RE = re.compile(r"[\d" + "".join(VULGAR_FRACTIONS) + "]")  # a vulgar fraction ("\u00bd") is a digit too


# LaTeX thousands separators written after a comma (``12,\\!345``, ``12{,}345``) join the groups.
_LATEX_GROUP_RE = re.compile(r"(?<=\d)(?:\{,\}|,\s*\\[!,;: ]\s*|,\s*\{\s*\}\s*)(?=\d{3}(?!\d))")
_PERCENT_WORD_RE = re.compile(r"(?<!\s)\s*+(?:per\s*cent|percent|pct\.?|percentage\s+points?)\s*$", re.IGNORECASE)
_SUPERSCRIPTS = str.maketrans("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b\u207a", "0123456789-+")
_SUP_EXP_RE = re.compile(r"10([\u2070\u00b9\u00b2\u00b3\u2074-\u2079\u207b\u207a]+)$")


# Currency marks around an amount ("$1,200", "3,75 €", "12 dollars"): the amount is the number.
_CURRENCY_LEAD_RE = re.compile(r"^(?:US\$|\\\$|\$|\u20ac|\u00a3|\u00a5|\u20b9)\s*(?=[-+\u2212]?\.?\d)")
_CURRENCY_TAIL_RE = re.compile(r"(?<=\d)\s*(?:\u20ac|\$|\\\$|\u00a3|\u00a5|\u20b9|dollars?|euros?|USD|EUR|GBP)\.?$")


# "12 dollars and 50 cents", "$12 and 5 cents": an amount in dollars and cents is the decimal 12.50, 12.05
_DOLLARS_CENTS_RE = re.compile(r"^(?:\\?\$\s*+)?(?P<d>\d{1,3}(?:,\d{3})*+|\d++)\s*+(?P<w>dollars?\s*+)?,?\s*+(?:and\s++)?"
                               r"(?P<c>\d{1,2})\s*+cents?\.?$", re.IGNORECASE)


def _dollars_and_cents(s: str) -> str:
    m = _DOLLARS_CENTS_RE.match(s)
    if m is None or not (m.group("w") or "$" in s[: m.start("d")]):
        return s  # "12 and 50 cents" names no dollars
    return f"{m.group('d')}.{int(m.group('c')):02d}"


def _normalise(s: str) -> str:
    s = _strip(s)
    if s[-1:] in "st." and "ent" in s:
        s = _dollars_and_cents(s)
    if s[:1] in "$\\\u20ac\u00a3\u00a5\u20b9U":
        s = _CURRENCY_LEAD_RE.sub("", s)
    if s[-1:] in "$\u20ac\u00a3\u00a5\u20b9sDRPoP." or s[-3:] in ("USD", "EUR", "GBP"):
        s = _CURRENCY_TAIL_RE.sub("", s)
    if "," in s:
        s = _LATEX_GROUP_RE.sub(",", s)
    if s and s[-1] in "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079":
        s = _SUP_EXP_RE.sub(lambda m: "10^{" + m.group(1).translate(_SUPERSCRIPTS) + "}", s)
    if not s.isascii():
        s = VULGAR_FRACTION_RE.sub(lambda m: f"{m.group(1)} {VULGAR_FRACTIONS[m.group(2)]}" if m.group(1)
                           else VULGAR_FRACTIONS[m.group(2)], s).replace("\u2044", "/")  # "2\u00bd": 2 1/2
    if not s.isascii() or "\\" in s or "~" in s:  # every _SPACES match is one of these
        s = _SPACES.sub(" ", s)
    s = s.replace("{,}", ",").replace("\\%", "%").replace("\\left", "").replace("\\right", "")
    s = _LATEX_MINUS.sub("-", s)
    return collapse_spaces(s).strip()


_SIGN_WORD_RE = re.compile(r"^(?:minus|negative)\s++(?=\.?\d)", re.IGNORECASE)


@memoize_text()
def parse_number(s: object) -> Number | None:
    """Parse ``s`` as a plain number (integer, decimal, fraction, mixed, percent, scientific).

    Returns ``None`` for anything else (``"3x"``, ``"1/0"``, lists), for inputs longer than
    ``MAX_ANSWER_CHARS``, literals over ``MAX_LITERAL_DIGITS`` digits and exponents over
    ``MAX_EXPONENT``. A single assignment ``"x = 5"`` reads as its right-hand side.
    """
    if not isinstance(s, str) or not s or len(s) > MAX_ANSWER_CHARS:
        return None
    if _FAST_INT.match(s):
        v = int(s)
        digits = s.lstrip("-").lstrip("0")
        return Number(Fraction(v), s, "integer", 0, max(1, len(digits.rstrip("0"))) if digits else 1)
    m = _FAST_DEC.match(s)
    if m:
        sign, whole, frac = m.groups()
        v = Fraction(int(whole + frac), 10 ** len(frac))
        digits = (whole + frac).lstrip("0")
        return Number(-v if sign else v, s, "decimal", len(frac), len(digits) if digits else max(1, len(frac)))
    if not ANY_DIGIT_RE.search(s):
        return parse_number_words(s)  # words: only number words are read ("twenty-five")
    if s[0] in "mMnN":
        m = _SIGN_WORD_RE.match(s)
        if m:  # "minus 3", "negative 2.5": the sign in words
            n = parse_number(s[m.end() :])
            if n is None:
                return None
            return Number(-n.value, s, n.kind, n.decimals, n.sig_figs, n.is_percent, n.comma_ambiguous)
    try:
        return _parse(s)
    except (ValueError, ZeroDivisionError, OverflowError, RecursionError):
        return None


def _parse(raw: str) -> Number | None:
    if "\x00" in raw:
        return None
    s = _normalise(raw)
    if not s:
        return None
    m = _ASSIGN.match(s)
    if m:
        s = m.group("rhs").strip()
    percent = False
    if s.endswith("%"):
        percent = True
        s = s[:-1].rstrip()
    elif s[-1:].isalpha() and _PERCENT_WORD_RE.search(s):
        percent = True
        s = _PERCENT_WORD_RE.sub("", s)
    sign = 1
    if s.startswith("-") and s[1:2] != "-":
        sign, s = -1, s[1:].lstrip()
    elif s.startswith("+"):
        s = s[1:].lstrip()
    if not s or s[0] in "+-":
        return None
    scaled = _SCALED_RE.match(s) if s[-1:].isalpha() else None
    if scaled:  # "12 million", "1.5 thousand", "3 dozen": digits times a scale word
        inner = _parse_unsigned(scaled.group("n"), raw)
        if inner is None or inner.kind not in ("integer", "decimal"):
            return None
        factor = 12 if scaled.group("w").lower() == "dozen" else _SCALE_WORDS[scaled.group("w").lower()]
        return Number(inner.value * factor * sign, raw, "words", None, None, percent, False) if not percent else None
    n = _parse_unsigned(s, raw)
    if n is None:
        return None
    if n.comma_ambiguous and ("{,}" in raw or ",\\" in raw):
        n = Number(n.value, n.text, n.kind, n.decimals, n.sig_figs, n.is_percent, False)  # LaTeX groups: thousands
    value = n.value * sign
    if percent:
        return Number(
            value / 100, raw, "percent", n.decimals, n.sig_figs, True, n.comma_ambiguous
        ) if n.kind in ("integer", "decimal") else None
    return Number(value, raw, n.kind, n.decimals, n.sig_figs, False, n.comma_ambiguous)


_DECIMAL_COMMA_RE = re.compile(r"^(?P<int>\d+),(?P<frac>\d+)$")
_GROUPED_DECIMAL_COMMA_RE = re.compile(r"^(?P<int>\d{1,3}(?:(?:\.\d{3})++|(?: \d{3})++)),(?P<frac>\d++)$")
_AMBIGUOUS_COMMA_RE = re.compile(r"^[1-9]\d{0,2},\d{3}$")
_BASED_RE = re.compile(r"^(?P<digits>[0-9A-Za-z]{1,64})_\{?\(?(?P<base>\d{1,2})\)?\}?$")


# Repeating decimals: 0.\overline{3}, 0.1\overline{6}, 0.\bar{3}, 0.\dot{3}, 0.(3), 0.1(6), and a block written
# out at least three times then "..." (0.333..., 0.142857142857142857...)
_REPEAT_MARK_RE = re.compile(
    r"^(?P<int>\d+)\.(?P<pre>\d*)(?:\\(?:overline|bar)\s*\{(?P<a>\d{1,12})\}|\\(?:dot|bar|overline)\s*\{?(?P<b>\d)\}?"
    r"|\((?P<c>\d{1,12})\))$")
# "0.3 recurring", "0.66 repeating": every written decimal the same digit, which repeats ("0.16 recurring" says
# not which digits repeat: no reading)
_REPEAT_WORD_RE = re.compile(r"^(?P<int>\d+)\.(?P<digits>(?P<d>\d)(?P=d){0,5})\s++(?:recurring|repeating)$", re.IGNORECASE)
_REPEAT_DOTS_RE = re.compile(r"^(?P<int>\d+)\.(?P<digits>\d{3,40})\s*(?:\.\.\.|\\ldots|\\cdots|\u2026|\\dots)$")


def _repeating(pre: str, rep: str, whole: str, raw: str) -> Number:
    num = int(pre + rep) - (int(pre) if pre else 0)
    value = Fraction(int(whole)) + Fraction(num, 10 ** len(pre) * (10 ** len(rep) - 1))
    return Number(value, raw, "repeating")


def _repeating_decimal(s: str, raw: str) -> Number | None:
    m = _REPEAT_MARK_RE.match(s)
    if m:
        return _repeating(m.group("pre"), m.group("a") or m.group("b") or m.group("c"), m.group("int"), raw)
    m = _REPEAT_WORD_RE.match(s)
    if m:
        return _repeating("", m.group("d"), m.group("int"), raw)
    m = _REPEAT_DOTS_RE.match(s)
    if m:
        d = m.group("digits")
        for start in range(len(d)):  # the shortest block that repeats at least three times to the end
            tail = d[start:]
            for size in range(1, len(tail) // 3 + 1):
                block = tail[:size]
                if (block * (len(tail) // size + 1)).startswith(tail) and len(tail) >= 3 * size:
                    return _repeating(d[:start], block, m.group("int"), raw)
    return None


def _parse_unsigned(s: str, raw: str) -> Number | None:
    if "." in s and ("\\" in s or "(" in s or s.endswith(("...", "\u2026", "ing", "ING"))):
        r = _repeating_decimal(s, raw)
        if r is not None:
            return r
    m = _GROUPED_DECIMAL_COMMA_RE.match(s) if "," in s else None
    if m:  # "1.234,5", "1 234,5": thousands grouped by dots or spaces, then a decimal comma
        s = m.group("int").replace(".", "").replace(" ", "") + "," + m.group("frac")
    m = _DECIMAL_COMMA_RE.match(s)
    if m and not _AMBIGUOUS_COMMA_RE.match(s) and (not _GROUPED_RE.fullmatch(s) or s.startswith("0")):
        # "3,75", "0,5", "12,3456": a comma that cannot separate thousands is a decimal comma
        whole, frac = m.group("int"), m.group("frac")
        if not _digits_ok(whole, frac):
            return None
        value = Fraction(int(whole + frac), 10 ** len(frac))
        digits = (whole + frac).lstrip("0")
        return Number(value, raw, "decimal", len(frac), len(digits) if digits else max(1, len(frac)))
    m = _BASED_RE.match(s)
    if m:
        base = int(m.group("base"))
        if not 2 <= base <= 36:
            return None
        try:
            return Number(Fraction(int(m.group("digits"), base)), raw, "based")
        except ValueError:
            return None
    m = _PLAIN.match(s)
    if m:
        num = m.group("num")
        if not _digits_ok(num):
            return None
        decimals, sig = _precision(num)
        kind = "decimal" if "." in num else "integer"
        return Number(_decimal_fraction(num), raw, kind, decimals, sig,
                      comma_ambiguous=bool(_AMBIGUOUS_COMMA_RE.match(num)))
    m = _E_SCI.match(s) or _POW_SCI.match(s)
    if m:
        num = m.group("num")
        exp_txt = (m.groupdict().get("exp") or m.groupdict().get("exp1") or m.groupdict().get("exp2") or "")
        exp_txt = exp_txt.replace(" ", "").replace("\u2212", "-")
        if not _digits_ok(num) or len(exp_txt.lstrip("+-").lstrip("0")) > 6:
            return None
        exp = int(exp_txt)
        if abs(exp) > MAX_EXPONENT:
            return None
        mant = _decimal_fraction(num) if num else Fraction(1)
        decimals, sig = _precision(num) if num else (0, 1)
        value = mant * (Fraction(10) ** exp)
        return Number(value, raw, "scientific", None, sig)
    m = _SLASH.match(s)
    if m:
        if not _digits_ok(m.group("n"), m.group("d")):
            return None
        d = _decimal_fraction(m.group("d"))
        if d == 0:
            return None
        return Number(_decimal_fraction(m.group("n")) / d, raw, "fraction")
    m = _MIXED.match(s)
    if m:
        if not _digits_ok(m.group("whole"), m.group("n"), m.group("d")):
            return None
        d, n = int(m.group("d")), int(m.group("n"))
        if d == 0 or n >= d:
            return None
        return Number(int(m.group("whole")) + Fraction(n, d), raw, "mixed")
    m = _FRAC.match(s)
    if m:
        n_txt = m.group("n") or m.group("n1")
        d_txt = m.group("d") or m.group("d1")
        whole = (m.group("whole") or "").strip()
        if not _digits_ok(n_txt, d_txt, whole) or m.group("sign"):
            return None
        try:
            n_val = _signed_decimal(n_txt)
            d_val = _signed_decimal(d_txt)
        except ValueError:
            return None
        if d_val == 0:
            return None
        frac = n_val / d_val
        if whole:
            if frac < 0 or frac >= 1:
                return None
            return Number(int(whole) + frac, raw, "mixed")
        return Number(frac, raw, "fraction")
    return None


def _signed_decimal(t: str) -> Fraction:
    t = t.strip()
    sign = -1 if t.startswith("-") else 1
    t = t.lstrip("+-")
    if not _PLAIN_DECIMAL_RE.fullmatch(t):
        raise ValueError(t)
    return sign * _decimal_fraction(t)


# --- comparison and rounding ---------------------------------------------------------------------


def to_fraction(x: object) -> Fraction | None:
    """``x`` (Number, Fraction, int, float, decimal string) as a Fraction, or ``None``."""
    try:
        if isinstance(x, Number):
            return x.value
        if isinstance(x, Fraction):
            return x
        if isinstance(x, bool):
            return None
        if isinstance(x, int):
            return Fraction(x)
        if isinstance(x, float):
            if x != x or x in (float("inf"), float("-inf")):
                return None
            return Fraction(repr(x))
        if isinstance(x, str):
            n = parse_number(x)
            return n.value if n else None
    except (ValueError, OverflowError, ZeroDivisionError):
        return None
    return None


def _tol(t: float) -> Fraction:
    f = to_fraction(float(t))
    return abs(f) if f is not None else Fraction(0)


def numbers_close(a: Number, b: Number, *, rel_tol: float = 0.0, abs_tol: float = 0.0) -> bool:
    """``|a - b| <= max(rel_tol * max(|a|, |b|), abs_tol)``, computed exactly (tolerances read as decimals)."""
    x, y = to_fraction(a), to_fraction(b)
    if x is None or y is None:
        return False
    if x == y:
        return True
    try:
        bound = max(_tol(rel_tol) * max(abs(x), abs(y)), _tol(abs_tol))
    except (TypeError, ValueError):
        return False
    return abs(x - y) <= bound


def round_to_decimals(x: Fraction, d: int) -> Fraction:
    """Round ``x`` to ``d`` decimal places, halves away from zero (``d`` may be negative: tens, hundreds)."""
    if not isinstance(d, int) or abs(d) > MAX_EXPONENT:
        return x
    scale = Fraction(10) ** d
    y = abs(x) * scale
    q = (y + Fraction(1, 2)).__floor__()
    r = Fraction(q) / scale
    return -r if x < 0 else r


def _exponent10(x: Fraction) -> int:
    """``floor(log10(|x|))`` for ``x != 0``, exactly."""
    ax = abs(x)
    e = len(str(ax.numerator)) - len(str(ax.denominator))
    while Fraction(10) ** e > ax:
        e -= 1
    while Fraction(10) ** (e + 1) <= ax:
        e += 1
    return e


def round_to_sig_figs(x: Fraction, n: int) -> Fraction:
    """Round ``x`` to ``n`` significant figures (halves away from zero)."""
    if x == 0 or not isinstance(n, int) or n < 1 or n > MAX_LITERAL_DIGITS:
        return x
    return round_to_decimals(x, n - 1 - _exponent10(x))


def matches_with_rounding(
    candidate: Number, reference: Number, *, decimals: int | None = None, sig_figs: int | None = None
) -> bool:
    """Whether one side equals the other rounded as required.

    With ``decimals`` (places of the *value*, e.g. 2 for 0.45) or ``sig_figs`` given, true when
    the candidate equals the reference rounded that way, or the reference equals the candidate
    rounded that way (either side may be the rounded one). With neither, each side is rounded
    to the precision the *other* side was written with (decimal places, or significant figures
    for scientific notation), so ``3.14`` matches ``3.14159`` but ``3.15`` does not. Exact
    equality always matches.
    """
    try:
        c, r = candidate.value, reference.value
        if c == r:
            return True
        if decimals is not None:
            return round_to_decimals(r, decimals) == c or round_to_decimals(c, decimals) == r
        if sig_figs is not None:
            return round_to_sig_figs(r, sig_figs) == c or round_to_sig_figs(c, sig_figs) == r
        return _rounds_to(r, candidate) or _rounds_to(c, reference)
    except (AttributeError, TypeError, ValueError, OverflowError):
        return False


def _rounds_to(x: Fraction, written: Number) -> bool:
    """Whether ``x`` rounded to ``written``'s precision equals ``written``."""
    if written.kind == "scientific" and written.sig_figs:
        return round_to_sig_figs(x, written.sig_figs) == written.value
    if written.decimals is None:
        return False
    d = written.decimals + (2 if written.is_percent else 0)
    return round_to_decimals(x, d) == written.value


# --- numbers in words --------------------------------------------------------------------------

_UNITS_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "a": 1, "an": 1,
}
_SCALE_WORDS = {"hundred": 100, "thousand": 1_000, "million": 10**6, "billion": 10**9, "trillion": 10**12}
SCALE_WORD_PATTERN = "|".join([*_SCALE_WORDS, "dozen"])  # digits with one of these are one number
_SCALED_RE = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\s*+(?P<w>" + SCALE_WORD_PATTERN + r")$", re.IGNORECASE)
_FRACTION_WORDS = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4, "fourths": 4,
    "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7, "eighth": 8, "eighths": 8,
    "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10, "hundredth": 100, "hundredths": 100,
}
_ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
    "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
    "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40,
    "fiftieth": 50, "sixtieth": 60, "seventieth": 70, "eightieth": 80, "ninetieth": 90, "hundredth": 100,
    "thousandth": 1000,
}
_ORDINAL_NUMERAL_RE = re.compile(r"^(?P<n>\d{1,9})(?:\^\{?)?(?:\\text\{|\\mathrm\{)?(?P<s>st|nd|rd|th)\}*$", re.IGNORECASE)
_WORD_SPLIT_RE = re.compile(r"[\s-]+")
_HALF_DOZEN = frozenset({"half a dozen", "half-a-dozen", "half of a dozen"})
_NUMBER_WORD_START = frozenset({*_UNITS_WORDS, *_SCALE_WORDS, "minus", "negative"}) - {"a", "an"}


def _words_integer(words: list[str]) -> int | None:
    """``["one", "thousand", "six", "hundred", "twenty", "five"]`` -> 1625; ``None`` if not a number."""
    if not words:
        return None
    total = current = 0
    seen = False
    last_scale = None
    for w in words:
        if w == "and":
            continue
        if w in _UNITS_WORDS:
            v = _UNITS_WORDS[w]
            if current % 10 and v < 10 or (current % 100 and 10 <= v < 20) or (current % 100 >= 10 and v >= 10 and v < 100):
                return None  # "five three", "twenty twelve": not one number
            current += v
            seen = True
        elif w in _SCALE_WORDS:
            scale = _SCALE_WORDS[w]
            if not seen:
                return None
            if scale == 100:
                if current == 0 or current >= 100:
                    return None
                current *= 100
            else:
                if last_scale is not None and scale >= last_scale:
                    return None
                total += (current or 1) * scale
                current = 0
                last_scale = scale
        else:
            return None
    return total + current if seen else None


def parse_ordinal(s: object) -> int | None:
    """An ordinal: "3rd", "21st", "3^{\\text{rd}}", "third", "twenty-first", "one hundredth"; else
    ``None`` (a numeral whose suffix does not fit it, "3th", reads as none)."""
    if not isinstance(s, str) or not s or len(s) > 60:
        return None
    t = s.strip().rstrip(".").strip().lower()
    m = _ORDINAL_NUMERAL_RE.match(t)
    if m:
        n = int(m.group("n"))
        suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return n if m.group("s") == suffix else None
    words = [w for w in _WORD_SPLIT_RE.split(t) if w]
    if not words or words[-1] not in _ORDINAL_WORDS:
        return None
    last = _ORDINAL_WORDS[words[-1]]
    if len(words) == 1:
        return last
    head = _words_integer(words[:-1])
    if head is None:
        return None
    if last >= 100:
        return head * last  # "one hundredth", "two thousandth"
    if head % 10 or (head % 100 and last >= 10):
        return None  # "three first": not one ordinal
    return head + last  # "twenty-first", "one hundred and third"


_ORDINAL_SPAN_RE = re.compile(
    r"\b(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[-\s])?(?:" + "|".join(_ORDINAL_WORDS) + r")\b"
    r"|\b\d{1,9}(?:st|nd|rd|th)\b", re.IGNORECASE)


def ordinals_in(text: str) -> list[int]:
    """The ordinals a short text states, in order ("She finished third." -> [3])."""
    if len(text) > 300:
        return []
    out = []
    for m in _ORDINAL_SPAN_RE.finditer(text):
        if _FRACTION_HEAD_RE.search(text, 0, m.start()):
            continue  # "one third", "a fifth": a fraction
        n = parse_ordinal(m.group(0))
        if n is not None:
            out.append(n)
    return out


_FRACTION_HEAD_RE = re.compile(r"(?:\b(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten)|\d)[\s-]++$", re.IGNORECASE)


@memoize_text()
def parse_number_words(s: object) -> Number | None:
    """A number written in words: "one thousand six hundred twenty-five", "three fourths",
    "two and a half", "minus seven", "forty-five percent", "three point five"; else ``None``."""
    if not isinstance(s, str) or not s or len(s) > 200:
        return None
    t = s.strip().rstrip(".").strip().lower()
    if t == "half":
        return Number(Fraction(1, 2), s, "words")  # "half" alone: no ordinal reading, unlike "third"
    first = _WORD_SPLIT_RE.split(t, maxsplit=1)[0]
    if first not in _NUMBER_WORD_START and (first not in ("a", "an") or t == first) and t not in _HALF_DOZEN:
        return None  # a lone "a" is a letter (a choice, a variable), not one
    percent = False
    m = _PERCENT_WORD_RE.search(t)
    if m:
        percent, t = True, t[: m.start()].strip()
    words = [w for w in _WORD_SPLIT_RE.split(t) if w]
    sign = 1
    if words and words[0] in ("minus", "negative"):
        sign, words = -1, words[1:]
    if not words:
        return None
    value: Fraction | None = None
    if "point" in words:
        k = words.index("point")
        whole = _words_integer(words[:k]) if k else 0
        digits = [_UNITS_WORDS.get(w) for w in words[k + 1 :]]
        if whole is None or not digits or any(d is None or d > 9 for d in digits):
            return None
        value = whole + Fraction(int("".join(str(d) for d in digits)), 10 ** len(digits))
    elif words[-1] == "dozen" and len(words) > 1:  # "a dozen", "two dozen", "half a dozen"
        head = words[:-1]
        if t in _HALF_DOZEN:
            value = Fraction(6)
        else:
            n = _words_integer(head)
            if n is None:
                return None
            value = Fraction(n * 12)
    elif words[-1] in _FRACTION_WORDS:
        den = _FRACTION_WORDS[words[-1]]
        head = words[:-1]
        whole = 0
        if "and" in head:  # "two and a half"
            k = head.index("and")
            w = _words_integer(head[:k])
            if w is None:
                return None
            whole, head = w, head[k + 1 :]
        num = _words_integer(head) if head else 1
        if num is None:
            return None
        value = whole + Fraction(num, den)
    else:
        n = _words_integer(words)
        if n is None:
            return None
        value = Fraction(n)
    value *= sign
    if percent:
        return Number(value / 100, s, "percent", None, None, True)
    return Number(value, s, "words")
