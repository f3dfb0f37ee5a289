"""Quantities with units: parsing (plain, LaTeX, siunitx), conversion and comparison with pint.

One pint ``UnitRegistry`` is shared by the process, created lazily under a lock (creating it
costs about a second, so a long-running caller may call :func:`preload_units` once at start).
A unit is only handed to pint after a cheap lexical check: every word must be a unit pint
knows, and single letters are accepted only from a short list (``m``, ``g``, ``s``, ``K``...),
so ``3x`` or ``2a`` never read as quantities. Every public function returns ``None`` instead
of raising.

Offset temperatures: ``25 °C`` is an absolute temperature (equal to ``298.15 K``). A
temperature *difference* written in degrees Celsius is compared with
``quantities_equal(..., temperature_difference=True)``, which reads °C/°F as kelvin-sized
(Rankine-sized) steps.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from verifier_runtime.limits import MAX_ANSWER_CHARS
from verifier_runtime.toolkit._memo import memoize_text
from verifier_runtime.toolkit.numbers import ANY_DIGIT_RE, Number, parse_number, strip_math_delimiters

# Patterns of the parsing hot path, compiled once (re's own cache lookup costs per call).
_LATEX_SPACE_RE = re.compile(r"\\(?:,|;|:|!| |quad|qquad)|~")
_DEG_C_RE = re.compile(r"(?:\^\s*\{?\s*\\circ\s*\}?|\\degree|\u00b0|\u2103)\s*C\b")
_DEG_F_RE = re.compile(r"(?:\^\s*\{?\s*\\circ\s*\}?|\\degree|\u00b0)\s*F\b")
_DEGREE_RE = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|\\degree|\u00b0")
_MICRO_RE = re.compile(r"\\(?:mu|micro)\s*|\u00b5|\u03bc")
_OHM_RE = re.compile(r"\\Omega|\u03a9|\u2126")
_ANGSTROM_RE = re.compile(r"\\AA|\u00c5|\u212b")
_TIMES_RE = re.compile(r"\\(?:cdot|times)|\u00b7|\u22c5|\u00d7")
_BRACED_EXPONENT_RE = re.compile(r"\^\s*\{\s*([-+\u2212]?\s*\d+)\s*\}")
_BRACES_RE = re.compile(r"\{([^{}]*)\}")
_LATEX_WORD_RE = re.compile(r"\\([A-Za-z]+)\s*")
_PREFIX_GAP_RE = re.compile(r"\b([kmunpcMG])\s+(?=[A-Za-z])")
_CARET_SPACE_RE = re.compile(r"(?<!\s)\s*+\^(\d)")
_OP_SPACES_RE = re.compile(r"(?<!\s)\s*+([*/^()])\s*")
_IMPLICIT_PRODUCT_RE = re.compile(r"(?<=[A-Za-z0-9)])\s+(?=[A-Za-z(])")
_UNIT_EXPONENT_RE = re.compile(r"\^\(?(-?\d+(?:\.\d+)?)")
_SYMBOL_ASSIGN_RE = re.compile(r"^[A-Za-z](?:_\{?\w+\}?)?\s*=\s*")
_LATEX_THIN_SPACE_RE = re.compile(r"\\(?:,|;|:|!| )|~")

__all__ = [
    "Quantity",
    "preload_units",
    "parse_quantity",
    "convert_to_base",
    "quantities_equal",
    "convert",
    "compare_quantity_to_number",
    "has_unit",
    "parse_dimensions",
    "dimensions_equal",
]

_LOCK = threading.Lock()
_UREG: Any = None
_FAILED = False

#: Single-letter units accepted; other single letters (a=year, c=speed of light, C, F...) are too ambiguous.
SINGLE_LETTER_UNITS = frozenset("mgshKALNJWVTM")
_MAX_UNIT_EXPONENT = 6


@dataclass(frozen=True)
class Quantity:
    """A magnitude with a unit. ``unit`` is pint's canonical unit string (``"kilometer / hour"``)."""

    magnitude: Fraction | float
    unit: str
    dimensionality: str
    text: str = ""

    @property
    def is_angle(self) -> bool:
        return self.unit in ("degree", "radian", "arcminute", "arcsecond", "gradian", "turn")


def _registry() -> Any:
    """The shared pint registry (created once, thread-safe); ``None`` if pint is unavailable."""
    global _UREG, _FAILED
    if _UREG is not None or _FAILED:
        return _UREG
    with _LOCK:
        if _UREG is None and not _FAILED:
            try:
                import pint

                _UREG = pint.UnitRegistry()
            except Exception:  # noqa: BLE001 - a broken optional dependency must not crash the runtime
                _FAILED = True
    return _UREG


def preload_units() -> bool:
    """Create the shared registry now (about a second); returns whether pint is available."""
    return _registry() is not None


# --- normalisation -------------------------------------------------------------------------------

_WRAP = re.compile(r"\\(?:mathrm|text|textrm|mathit|operatorname|rm|unit)\s*\{([^{}]*)\}")
_SI = re.compile(r"\\(?:SI|qty|SIrange)\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SI_UNIT = re.compile(r"\\si\s*\{([^{}]*)\}")
_SIUNITX = {
    "meter": "m", "metre": "m", "gram": "g", "kilogram": "kg", "second": "s", "kelvin": "K",
    "ampere": "A", "mole": "mol", "candela": "cd", "newton": "N", "joule": "J", "watt": "W",
    "pascal": "Pa", "hertz": "Hz", "volt": "V", "ohm": "ohm", "coulomb": "coulomb", "farad": "farad",
    "tesla": "T", "liter": "L", "litre": "L", "degreeCelsius": "degC", "celsius": "degC", "electronvolt": "eV",
    "kilo": "k", "milli": "m", "micro": "u", "nano": "n", "centi": "c", "mega": "M", "giga": "G", "pico": "p",
    "minute": "min", "hour": "h", "day": "day", "degree": "degree", "radian": "rad", "percent": "%",
    "per": "/", "squared": "^2", "cubed": "^3", "cubic": "", "square": "",
}
_NUM_PREFIX = re.compile(
    r"^\s*(?P<num>[-+\u2212]?\s*(?:\d+,\d{1,2}(?!\d)|\d+,\d{4,}|\d{1,3}(?:[, \u2009]\d{3})+|\d+)?(?:\.\d+)?"
    r"(?:[eE][-+\u2212]?\d+|[ \t]+E[ \t]*+[-+\u2212]\d+|[ \t]+e[-+\u2212]\d+)?"  # "3.2E-4", "3.2 E-4", "3.2 e-4" (numbers.py)
    r"(?:\s*(?:\\times|\\cdot|\u00d7|\*|x)\s*10\s*\^\s*(?:\{\s*[-+\u2212]?\d+\s*\}|[-+\u2212]?\d+))?)"
    r"(?P<rest>.*)$",
    re.S,
)
_FRAC_PREFIX = re.compile(r"^\s*+(?P<num>-?\s*\\[dt]?frac\s*\{[^{}]*\}\s*\{[^{}]*\}|-?\d+\s*/\s*\d+)(?P<rest>.*)$", re.S)
_UNIT_CHARS = re.compile(r"^[A-Za-z0-9_ */^().%\-]+$")
_IDENT = re.compile(r"[A-Za-z_]+")


_SUPERSCRIPT_DIGITS = str.maketrans("\u207b\u207a\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079",
                                    "-+0123456789")
_SUPERSCRIPT_RE = re.compile(r"[\u207b\u207a]?[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]++")
# unit abbreviations pint reads otherwise or not at all: "kmph" is km/h (pint: kilo-mph), "kmh" km/h
_UNIT_ALIAS_RE = re.compile(r"(?<![A-Za-z_])(?i:kmph|kmh|kmhr)(?![A-Za-z0-9_])")


def _unit_aliases(u: str) -> str:
    return _UNIT_ALIAS_RE.sub("km/h", u)


def _braced_exponents(u: str) -> str:
    return _BRACED_EXPONENT_RE.sub(lambda m: "^" + m.group(1).replace(" ", ""), u) if "^" in u else u


def _latex_units(u: str) -> str:
    if u.isascii() and "\\" not in u and "~" not in u:
        # no command, no tilde, no symbol outside ASCII: of the steps below only the exponents and
        # the braces can match, and what they write adds none of these
        u = _braced_exponents(_braced_exponents(u))
        return (_BRACES_RE.sub(r"(\1)", u) if "{" in u else u).strip()
    u = _braced_exponents(u)  # before unwrapping: m\,s^{-1}
    for _ in range(3):
        u = _WRAP.sub(r"\1", u)
    u = _LATEX_SPACE_RE.sub(" ", u)
    u = _DEG_C_RE.sub(" degC ", u)
    u = u.replace("\u2103", " degC ")
    u = _DEG_F_RE.sub(" degF ", u)
    u = _DEGREE_RE.sub(" degree ", u)
    u = _MICRO_RE.sub("u", u)
    u = _OHM_RE.sub("ohm", u)
    u = _ANGSTROM_RE.sub("angstrom", u)
    u = _TIMES_RE.sub("*", u)
    u = u.replace("\\%", "%").replace("\\left", "").replace("\\right", "")
    u = _braced_exponents(u)
    u = u.replace("\u2212", "-")
    if _SUPERSCRIPT_RE.search(u):  # "m\u00b2", "h\u207b\u00b9": superscript exponents
        u = _SUPERSCRIPT_RE.sub(lambda m: "^" + m.group().translate(_SUPERSCRIPT_DIGITS), u)
    u = _BRACES_RE.sub(r"(\1)", u)
    return u.strip()


def _siunitx(m: re.Match[str]) -> str:
    return f"{m.group(1)} {_si_words(m.group(2))}"


def _si_words(u: str) -> str:
    def word(w: re.Match[str]) -> str:
        return _SIUNITX.get(w.group(1), w.group(1)) + " "

    u = _LATEX_WORD_RE.sub(word, u)
    u = _PREFIX_GAP_RE.sub(r"\1", u)  # prefix words glue to their unit
    u = _CARET_SPACE_RE.sub(r"^\1", u)
    return u.strip()


_WORD_UNIT_RES = (
    (re.compile(r"\bdegrees?\s+(?:celsius|centigrade)\b", re.I), "degC"),
    (re.compile(r"\bdegrees?\s+fahrenheit\b", re.I), "degF"),
    (re.compile(r"\b(?:square|sq\.?)\s+([A-Za-z]+)", re.I), r"\1^2"),
    (re.compile(r"\b(?:cubic|cu\.?)\s+([A-Za-z]+)", re.I), r"\1^3"),
    (re.compile(r"\b([A-Za-z]+)\s+squared\b", re.I), r"\1^2"),
    (re.compile(r"\b([A-Za-z]+)\s+cubed\b", re.I), r"\1^3"),
    (re.compile(r"\s+(?:per|an?)\s+(?=[A-Za-z])", re.I), "/"),
    (re.compile(r"\s+each\s*$", re.I), ""),
)


def _word_units(u: str) -> str:
    """Units written in words: "kilometres per hour" -> "kilometres/hour", "square meters" -> "meters^2"."""
    for rx, rep in _WORD_UNIT_RES:
        u = rx.sub(rep, u)
    return u.strip()


_EV_PER_C_RE = re.compile(r"eV/c(?![A-Za-z_])")
# a length or time symbol with a square or cube glued to it: "cm3", "m2", "s2" (R4.5)
_GLUED_EXPONENT_RE = re.compile(r"(?<![A-Za-z_0-9^.])(?P<u>(?:[kcmdun]|mu)?m|s|ft|yd|mi|in)(?P<e>[23])(?![A-Za-z_0-9.^])")


_HYPHEN_EXPONENT_RE = re.compile(r"(?<=[A-Za-z])-(?=[1-3](?![\d.]))")
#: names the unit registry defines that a math answer means as constants ("4 pi" is 4*pi, not 4 "pi units")
_MATH_CONSTANT_NAMES = frozenset({"pi", "Pi", "PI"})


def _unit_string(u: str) -> str | None:
    """A unit text as a pint expression, or ``None`` when it does not look like units."""
    u = u.strip().rstrip(".").strip()
    if not u or len(u) > 80 or not _UNIT_CHARS.match(u):
        return None
    if "km" in u or "KM" in u or "Km" in u:
        u = _unit_aliases(u)
    if "ms" in u and " " not in u:
        glued = _GLUED_METRE_SECOND_RE.fullmatch(u)
        if glued is not None:
            # "ms-1" is "ms^-1" (the comparison may read it as metres per second); "kms^-1", "kms-1" can only
            # be kilometres per second: no unit is called "kms"
            power = glued.group("e").translate(_SUPERSCRIPT_DIGITS).strip("^{}()")
            u = ("km*s" if glued.group("m") == "km" else "ms") + "^" + power
    if "-" in u and " " in u:
        # "m s-1", "kg m-3": a negative power written without its caret, in a product of units ("N-1"
        # alone is the mathematics N - 1)
        u = _HYPHEN_EXPONENT_RE.sub("^-", u)
    u = _OP_SPACES_RE.sub(r"\1", u)
    u = _IMPLICIT_PRODUCT_RE.sub("*", u)
    u = u.replace("**", "^")
    if " " in u or "--" in u:
        return None
    for e in _UNIT_EXPONENT_RE.findall(u):
        if abs(float(e)) > _MAX_UNIT_EXPONENT:
            return None
    if "eV/c" in u:  # "GeV/c" (a momentum), "MeV/c^2" (a mass): c is the speed of light
        u = _EV_PER_C_RE.sub("eV/speed_of_light", u)
    idents = _IDENT.findall(u)
    if not idents:
        return "%" if u == "%" else None
    for ident in idents:
        if len(ident) == 1 and ident not in SINGLE_LETTER_UNITS:
            return None
        if ident in _MATH_CONSTANT_NAMES:
            return None  # "4 pi", "2pi": the number pi, which the registry also defines as a unit
    return u.replace("^", "**")


def glued_exponents(s: str) -> str:
    """R4.5: an answer's square or cube glued to a length or time symbol, written as a power:
    "5 cm3" -> ``5 cm^3``, "9.8 m/s2" -> ``9.8 m/s^2``. Used on the answer's side of a comparison
    only (a reference, and the construction data read from references, keep their parse)."""
    if len(s) > 200 or not ("2" in s or "3" in s):
        return s
    split = _split(s)
    if split is None:
        return s
    unit = _GLUED_EXPONENT_RE.sub(r"\g<u>^\g<e>", split[1])
    if unit == split[1]:
        return s
    return f"{split[0].text} {unit}"


# "5 ms^-1", "5 ms⁻¹", "9.8 ms-2", "3 kms^-1": metres (or kilometres) and a negative power of seconds
# written without a space, as physics texts write m s⁻¹ (pint reads "ms" as the millisecond)
_GLUED_METRE_SECOND_RE = re.compile(r"(?<![A-Za-z_])(?P<m>k?m)s(?P<e>\^\{?-[1-3]\}?|\^\(-[1-3]\)|\u207b[\u00b9\u00b2\u00b3]|-[1-3])"
                                    r"(?![\d.])")


def metre_second_reading(q: Quantity) -> Quantity | None:
    """R4.5: ``q`` read with a glued "ms" before a negative power as metres times seconds ("5 ms^-1"
    -> 5 m/s), or ``None`` where its text has no such unit. The comparison uses it only where the
    millisecond reading gives the other side's dimension no match."""
    if len(q.text) > 200 or "ms" not in q.text:
        return None
    t = _GLUED_METRE_SECOND_RE.sub(lambda m: f"{m.group('m')} s{m.group('e')}", q.text)
    return parse_quantity(t) if t != q.text else None


def has_unit(s: object) -> bool:
    """Cheap check (no pint): does ``s`` look like a number followed by a unit?"""
    split = _split(s) if isinstance(s, str) and len(s) <= MAX_ANSWER_CHARS else None
    if split is None and isinstance(s, str) and len(s) <= 80 and ("'" in s or "\u2032" in s or "prime" in s) \
            and _degrees_minutes_seconds(s) is not None:
        return True  # 30°15'
    return split is not None or (isinstance(s, str) and len(s) <= 80 and bool(_COMPOUND_RE.match(s.strip()))
                                 and _compound(s) is not None)


_WORDY_RE = re.compile(r"[A-Za-z]{3,}")
_WHOLE_TEXT_RE = re.compile(r"^\\(?:text|textbf|textrm|mathrm|mathbf)\s*\{([^{}]*)\}$")


# digits followed at once by an ordinal suffix ("19th"), or a year ending in 0 by "s" ("1920s", "1800's")
_NOT_A_UNIT_RE = re.compile(r"(?:st|nd|rd|th)\b|(?<=\d\d\d0)'?s\b")


# has_unit, parse_quantity and the form checks all split the same answer: it is split once
@memoize_text()
def _split(s: str) -> tuple[Number, str] | None:
    if "\x00" in s or not ANY_DIGIT_RE.search(s):
        return None  # the magnitude is read by parse_number, which needs a digit from the text itself
    t = strip_math_delimiters(s.strip())
    whole = _WHOLE_TEXT_RE.match(t)
    if whole:
        t = whole.group(1).strip()
    if "$" in t:
        t = t.replace("$", " ").strip()  # "$3.0 \times 10^8$ km/s": math delimiters around the magnitude
    if "\\" in t:  # siunitx commands
        t = _SI.sub(_siunitx, t)
        t = _SI_UNIT.sub(lambda m: " " + _si_words(m.group(1)), t)
    t = _SYMBOL_ASSIGN_RE.sub("", t)  # "v = 3 m/s"
    if "\\" in t or "~" in t:
        t = _LATEX_THIN_SPACE_RE.sub(" ", t)
    m = _FRAC_PREFIX.match(t) or _NUM_PREFIX.match(t)
    if not m or not m.group("num").strip() or not m.group("rest").strip():
        return None
    if _NOT_A_UNIT_RE.match(t, m.start("rest")) and t[m.start("rest") - 1 : m.start("rest")].isdigit():
        return None  # "19th century" is an ordinal, "1920s" a decade: no thou, no seconds
    num = parse_number(m.group("num").strip())
    if num is None:
        return None
    rest = _latex_units(m.group("rest"))
    if _WORDY_RE.search(rest):
        rest = _word_units(rest)
    unit = _unit_string(rest)
    if unit is None or unit == "%":
        return None
    return num, unit


# --- public API ----------------------------------------------------------------------------------


def _make(magnitude: Fraction | float, q: Any, text: str) -> Quantity:
    return Quantity(magnitude, str(q.units), _dimension_text(q.dimensionality), text)


@lru_cache(maxsize=256)
def _dimension_text(dims: Any) -> str:
    """pint's dimensionality as one spelling per dimension: pint prints the base dimensions in the
    order a unit's definition met them ("[length] ** 2 * [mass] / [time] ** 3" for horsepower,
    "[mass] * [length] ** 2 / [time] ** 3" for the watt), so the text is printed sorted. Once
    per dimensionality (pint's container is hashable); cleared with the parse caches."""
    from pint.util import UnitsContainer

    return str(UnitsContainer(dict(sorted(dims.items()))))


@lru_cache(maxsize=1024)
def _unit_names(unit: str) -> tuple[str, str]:
    """pint's spelling of a unit text and of its dimensionality (what :func:`_make` keeps), once per
    unit text: answers repeat their units ("5 cm", "12 cm"), and pint's parse of the unit and its
    printing of the two are most of what a quantity costs. A pure function of the text (one
    registry for the process); an error is not kept. Cleared with the parse caches."""
    ureg = _registry()
    q = ureg.Quantity(1, ureg.parse_units(unit))
    return str(q.units), _dimension_text(q.dimensionality)


@memoize_text()
def parse_quantity(s: object) -> Quantity | None:
    """``"12 cm"``, ``"9.8\\,\\mathrm{m/s^2}"``, ``"\\SI{5}{\\meter}"``, ``"25 °C"`` ... as a Quantity, else ``None``.

    A bare number (no unit) is not a quantity. The magnitude stays an exact Fraction.
    """
    if not isinstance(s, str) or not s.strip() or len(s) > MAX_ANSWER_CHARS:
        return None
    try:
        if ("'" in s or "\u2032" in s or "prime" in s) and ANY_DIGIT_RE.search(s):
            dms = _degrees_minutes_seconds(s)
            if dms is not None:
                return dms
        split = _split(s)
        if split is None:
            return _compound(s) if _COMPOUND_RE.match(s.strip()) else None
        num, unit = split
        ureg = _registry()
        if ureg is None:
            return None
        name, dimensionality = _unit_names(unit)
        return Quantity(num.value, name, dimensionality, s)
    except Exception:  # noqa: BLE001 - pint raises many error types on odd unit text
        return None


# R4.5: dimensions, factors of numbers joined by "by", "x", "\\times", "×" or "*", a unit on each factor or
# one unit after the last ("3 cm by 5 cm", "3 cm x 5 cm", "3 \\times 5 cm", "2 x 3 x 4 m")
_DIM_SPLIT_RE = re.compile(r"[ \t]*+(?:\\times(?![A-Za-z])|\u00d7|\*|(?<=[\s\d}])x(?=[\s\d\\])|(?<=\s)by(?=\s))[ \t]*+")
_DIM_LEAD_RE = re.compile(r"^[-+\u2212]?\d")
_MAX_DIMENSION_FACTORS = 4


def parse_dimensions(s: object) -> tuple[Quantity, ...] | None:
    """R4.5: the factors of dimensions written with a unit, each factor a quantity: "3 cm by 5 cm",
    "3 cm x 5 cm", "3 cm \\times 5 cm" and "3 \\times 5 cm" (the one unit after the last factor is
    each factor's) are (3 cm, 5 cm). ``None`` for anything else: no unit at all ("3 by 5": the
    factors of R3.3), a factor that is not a number with or without a unit, a bare number after a
    factor with a unit ("3 cm x 5": which unit it has is not written), a unit on a factor that
    differs in dimension from the others, more than four factors, or scientific notation
    ("3 \\times 10^8 m" is one number)."""
    if not isinstance(s, str) or not s.strip() or len(s) > 120:
        return None
    try:
        t = strip_math_delimiters(s.strip()).replace("$", " ").strip().rstrip(".").strip()
        t = _LATEX_THIN_SPACE_RE.sub(" ", t) if ("\\" in t or "~" in t) else t
        if not _DIM_SPLIT_RE.search(t):
            return None
        parts = [p.strip() for p in _DIM_SPLIT_RE.split(t)]
        if not 2 <= len(parts) <= _MAX_DIMENSION_FACTORS or not all(_DIM_LEAD_RE.match(p) for p in parts):
            return None
        last = parse_quantity(parts[-1])
        if last is None:
            return None
        m = _NUM_PREFIX.match(parts[-1])
        unit_text = m.group("rest").strip() if m else ""
        if not unit_text or parts[-1].startswith("10"):
            return None
        out: list[Quantity] = []
        seen_unit = False
        for p in parts[:-1]:
            n = parse_number(p)
            if n is not None:
                if seen_unit:
                    return None  # "3 cm x 5 x 2 cm": a bare factor after one with its unit
                if p.lstrip("+-\u2212") == "10" or "^" in p:
                    return None
                q = parse_quantity(f"{p} {unit_text}")
            else:
                q = parse_quantity(p)
                seen_unit = True
            if q is None or q.dimensionality != last.dimensionality:
                return None
            out.append(q)
        out.append(last)
        return tuple(out)
    except Exception:  # noqa: BLE001 - pint raises many error types on odd unit text
        return None


def dimensions_equal(a: tuple[Quantity, ...], b: tuple[Quantity, ...]) -> bool | None:
    """The same factors in any order, each pair equal after conversion ("30 mm by 5 cm" is "3 cm
    \\times 5 cm"); ``None`` where a pair cannot be compared."""
    if len(a) != len(b):
        return False
    left = list(b)
    for qa in a:
        for k, qb in enumerate(left):
            if quantities_equal(qa, qb, rel_tol=1e-9) is True:
                del left[k]
                break
        else:
            return False
    return True


# an angle in degrees, minutes and seconds: 30°15', 30^\\circ 15' 36'', 30° 15′ 36″, 30^{\\circ}15^{\\prime}
_DEG_MARK = r"(?:\^\s*+\{?\s*+\\circ\s*+\}?|\\degree|\u00b0)"
_MINUTE_MARK = r"(?:'(?!')|\u2032|\^\s*+\{?\s*+\\prime\s*+\}?|\\prime)"
_SECOND_MARK = r"(?:''|\"|\u2033|\^\s*+\{?\s*+\\prime\s*+\\prime\s*+\}?|\\prime\s*+\\prime|\^\s*+\{?\s*+\\dprime\s*+\}?)"
_DMS_RE = re.compile(r"^(?P<sign>[-\u2212])?\s*+(?P<d>\d{1,3})\s*+" + _DEG_MARK + r"\s*+(?:\\,|\\;|\\ |~)?\s*+(?P<m>\d{1,2}(?:\.\d{1,6})?)\s*+"
                     + _MINUTE_MARK + r"(?:\s*+(?:\\,|\\;|\\ |~)?\s*+(?P<s>\d{1,2}(?:\.\d{1,6})?)\s*+" + _SECOND_MARK + r")?$")


def _degrees_minutes_seconds(s: str) -> Quantity | None:
    """R4.5: an angle in degrees, minutes and seconds (``30°15'`` = 30.25°) as a Quantity in degrees,
    else ``None``; minutes and seconds must be below 60."""
    t = strip_math_delimiters(s.strip()).replace("$", "").strip().rstrip(".")
    m = _DMS_RE.match(t)
    if m is None:
        return None
    minutes = Fraction(m.group("m"))
    seconds = Fraction(m.group("s")) if m.group("s") else Fraction(0)
    if minutes >= 60 or seconds >= 60:
        return None
    value = Fraction(int(m.group("d"))) + minutes / 60 + seconds / 3600
    if m.group("sign"):
        value = -value
    name, dimensionality = _unit_names("degree")
    return Quantity(value, name, dimensionality, s)


# a sentence's one number and the words after it ("It will take 6 weeks.", "He ran 5 km."); a word
# that is ordinary English before it is a unit symbol ("6 in total", "at 5 pm") ends the unit
_SENTENCE_NUMBER_RE = re.compile(r"(?<![\w.,^/])(?<![A-Za-z^]-)\d+(?:[.,]\d+)*(?![\w.,]*\d)")
_SENTENCE_UNIT_WORDS_RE = re.compile(r"\s++((?:square\s+|cubic\s+)?[A-Za-z\u00b5\u03bc](?:[A-Za-z/^\d]|-(?=\d)){0,15})"
                                     r"(?:\s++(per\s+[A-Za-z]{1,15}))?")
_ENGLISH_NOT_UNIT = frozenset("in at a an as is it or on by to of am pm and the per".split())


def quantity_in_sentence(text: object) -> Quantity | None:
    """The quantity a short sentence states with its one number and the unit word after it
    ("It will take 6 weeks." is 6 week, "He ran 5 km." 5 km), else ``None`` (no number, two
    numbers, or no unit right after it: "There are 6 apples.", "15 more minutes")."""
    if not isinstance(text, str) or len(text) > 300:
        return None
    found = _SENTENCE_NUMBER_RE.findall(text)
    if len(found) != 1:
        return None
    m = _SENTENCE_NUMBER_RE.search(text)
    w = _SENTENCE_UNIT_WORDS_RE.match(text, m.end())
    if w is None or w.group(1).lower() in _ENGLISH_NOT_UNIT:
        return None
    for unit in ((w.group(1) + " " + w.group(2)) if w.group(2) else None, w.group(1)):
        if unit:
            q = parse_quantity(m.group(0) + " " + unit)
            if q is not None:
                return q
    return None


# "1 hour 30 minutes", "1 h 30 min", "5 ft 6 in", "2 hours and 15 minutes": one quantity in two or three
# units of one dimension, each smaller than the one before
_COMPOUND_PART = r"\d+(?:\.\d+)?\s*+[A-Za-z]{1,12}\.?"
_COMPOUND_RE = re.compile(r"^" + _COMPOUND_PART + r"(?:,?\s++(?:and\s+)?" + _COMPOUND_PART + r"){1,2}$")
_COMPOUND_SPLIT_RE = re.compile(r"(?<![\d.])(\d++(?:\.\d++)?+)\s*+([A-Za-z]{1,12})\.?")  # linear: never starts inside a number


def _compound(s: str) -> Quantity | None:
    parts = [parse_quantity(f"{n} {u}") for n, u in _COMPOUND_SPLIT_RE.findall(s)]
    if len(parts) < 2 or any(q is None or q.is_angle or "degree" in q.unit for q in parts):
        return None
    last = parts[-1]
    total = Fraction(0)
    previous: Fraction | None = None
    for q in parts:
        if q.dimensionality != last.dimensionality:
            return None
        one = convert(Quantity(1, q.unit, q.dimensionality), last.unit)
        if one is None:
            return None
        factor = Fraction(one.magnitude).limit_denominator(10**6)
        if previous is not None and factor >= previous:
            return None  # "30 minutes 1 hour": not a quantity written largest unit first
        previous = factor
        total += Fraction(q.magnitude) * factor
    return Quantity(total, last.unit, last.dimensionality, s)


def _pint(q: Quantity, *, difference: bool = False) -> Any:
    ureg = _registry()
    unit = q.unit
    if difference:
        unit = unit.replace("degree_Celsius", "delta_degree_Celsius").replace(
            "degree_Fahrenheit", "delta_degree_Fahrenheit"
        )
    mag = float(q.magnitude)
    return ureg.Quantity(mag, ureg.parse_units(unit))


def requested_unit_string(unit: str) -> str:
    """A requested unit's text as a pint expression, read as a quantity's unit is (LaTeX, then
    words: "meters per second" -> ``meters/second``); the text itself where it is not read."""
    rest = _latex_units(unit)
    if _WORDY_RE.search(rest):
        named = _TEMPERATURE_NAMES.get(" ".join(rest.lower().split()))
        if named:
            return named  # "Kelvin", "Celsius", "degrees Fahrenheit"
        if " " in rest.strip():
            rest = _word_units(rest)
        elif rest[:1].isupper() and rest.lower().rstrip("s") in _CAPITALISED_UNIT_NAMES:
            rest = rest.lower()  # "Newtons", "Joules": an SI unit's name, capitalised after its namesake
    return _unit_string(rest) or unit


# SI units named after people, often capitalised in questions ("in Newtons"); "Torr" and the symbols
# ("Pa", "Hz") are read as written
_CAPITALISED_UNIT_NAMES = frozenset(("newton", "joule", "watt", "pascal", "volt", "ampere", "coulomb", "farad", "ohm",
                                     "hertz", "tesla", "henry", "weber", "becquerel", "gray", "sievert"))
_TEMPERATURE_NAMES = {"kelvin": "kelvin", "kelvins": "kelvin", "degrees kelvin": "kelvin", "celsius": "degC",
                      "degrees celsius": "degC", "degree celsius": "degC", "centigrade": "degC",
                      "degrees centigrade": "degC", "fahrenheit": "degF", "degrees fahrenheit": "degF",
                      "degree fahrenheit": "degF"}


def in_unit(q: Quantity, requested: str) -> bool:
    """Whether the quantity ``q`` is written in the requested unit (``False`` when either is unknown)."""
    try:
        ureg = _registry()
        if ureg is None or not isinstance(q, Quantity):
            return False
        return str(ureg.parse_units(q.unit)) == str(ureg.parse_units(requested_unit_string(requested)))
    except Exception:  # noqa: BLE001
        return False


def convert(q: Quantity, unit: str) -> Quantity | None:
    """``q`` expressed in ``unit`` (``None`` if the unit is unknown or dimensions differ)."""
    try:
        ureg = _registry()
        if ureg is None or not isinstance(q, Quantity):
            return None
        target = requested_unit_string(unit)
        out = _pint(q).to(ureg.parse_units(target))
        return _make(float(out.magnitude), out, f"{out.magnitude} {out.units}")
    except Exception:  # noqa: BLE001
        return None


def convert_to_base(q: Quantity) -> Quantity | None:
    """``q`` in SI base units (``0.3 mm`` -> ``0.0003 meter``); ``None`` if it cannot be reduced."""
    try:
        if _registry() is None or not isinstance(q, Quantity):
            return None
        out = _pint(q).to_base_units()
        return _make(float(out.magnitude), out, f"{out.magnitude} {out.units}")
    except Exception:  # noqa: BLE001
        return None


def _close(x: float, y: float, rel_tol: float, abs_tol: float) -> bool:
    if not (math.isfinite(x) and math.isfinite(y)):
        return False
    return math.isclose(x, y, rel_tol=max(rel_tol, 1e-12), abs_tol=abs_tol)


def quantities_equal(
    a: Quantity, b: Quantity, *, rel_tol: float = 1e-6, abs_tol: float = 0.0, temperature_difference: bool = False
) -> bool | None:
    """Equal after converting both to base units, within ``rel_tol`` (floor 1e-12).

    ``None`` when the dimensionalities differ (``5 N`` vs ``5 kg``: not the same kind of
    quantity; the caller decides), or when either side is not a Quantity.
    """
    try:
        if not isinstance(a, Quantity) or not isinstance(b, Quantity):
            return None
        if a.dimensionality != b.dimensionality:
            return None
        if a.unit == b.unit:
            return _close(float(a.magnitude), float(b.magnitude), rel_tol, abs_tol) or a.magnitude == b.magnitude
        qa = _pint(a, difference=temperature_difference).to_base_units()
        qb = _pint(b, difference=temperature_difference).to_base_units()
        return _close(float(qa.magnitude), float(qb.magnitude), rel_tol, abs_tol)
    except Exception:  # noqa: BLE001
        return None


def compare_quantity_to_number(
    q: Quantity, n: Number, requested_unit: str | None = None, *, rel_tol: float = 1e-6
) -> bool | None:
    """Compare a quantity with a bare number.

    With ``requested_unit`` (the unit the question asks for), ``q`` is converted to it and its
    magnitude compared with ``n``. Without it, only dimensionless non-angle quantities compare
    (``50 %`` is 0.5); anything else is ``None``: a bare number has no unit to compare.
    """
    try:
        if not isinstance(q, Quantity) or not isinstance(n, Number):
            return None
        if requested_unit:
            c = convert(q, requested_unit)
            return None if c is None else _close(float(c.magnitude), float(n.value), rel_tol, 0.0)
        if q.dimensionality != "dimensionless" or q.is_angle:
            return None
        base = _pint(q).to_base_units()
        return _close(float(base.magnitude), float(n.value), rel_tol, 0.0)
    except Exception:  # noqa: BLE001
        return None
