"""Question cues: what the question asks of the answer's form (rounding, unit, exactness, ...).

>>> c = question_cues("What is the area in square meters? Round to 2 decimal places.")
>>> (c.decimal_places, c.unit)
(2, 'square meters')

Cues are hints for learned modules, not guarantees: "how many" sets ``integer`` even though
a few such questions have fractional answers.
"""

from __future__ import annotations

import re

from verifier_runtime.toolkit._memo import memoize_text
from verifier_runtime.toolkit.choices import parse_options
from verifier_runtime.toolkit.text import _as_str, fold_in_place, marker_matches

_FIELD_DEFAULTS: dict[str, object] = {
    "decimal_places": None, "sig_figs": None, "exact": False, "simplest_form": False, "unit": None,
    "percentage": False, "probability": False, "fraction": False, "multiple_choice": False, "integer": False,
    "boolean": False,
    # What the question asks for (docs/criterion.md R2.4, R3.2, R4.2-R4.4).
    "several": False,  # several answers asked: "find all", "the solutions", "separated by commas"
    "ordered": False,  # their order asked: "in increasing order", "ordered pair", "coordinates"
    "interval": False,  # an interval asked: "interval", "domain", "range", "solve the inequality"
    "ratio": False, "decimal": False, "mixed_number": False, "interval_notation": False, "expand": False,
    "factor": False, "factor_completely": False, "rationalize": False, "scientific": False, "radical_form": False,
    "line_form": None,  # the form of a line's equation asked: "slope_intercept" (y = mx + b) or "standard" (Ax + By = C)
    "complex_form": None,  # the form of a complex number asked: "rectangular" (a + bi) or "polar" (r e^{i theta})
    "unknown": None,  # the symbol asked for: "find x", "solve for y", "value of k"
    "quantity": None,  # the named quantity asked for by its symbol: "what is the pOH" (see QUANTITY_SYMBOL)
    "light_speed": False,  # speeds written as multiples of c, the speed of light: "moving at 0.25 c"
}
_FORM_FIELDS = ("simplest_form", "percentage", "decimal", "fraction", "mixed_number", "exact", "radical_form",
                "interval_notation", "expand", "factor", "rationalize", "scientific", "line_form", "complex_form")


# Every form requirement (and a requested unit) is written with one of these words (substring
# tests: one regex alternation over a long question costs more than all of them together).
_FORM_WORDS = ("simpl", "lowest", "reduced", "percent", "decimal", "fraction", "mixed", "exact", "terms of",
               "radical", "interval notation", "expand", "multiply out", "distribute", "factor", "rationali",
               "scientific", "standard form", "nearest", "places", "d.p", "dp", "sig", "s.f", "sf", " in ", " in\n",
               "(in ", "\nin ", "how many", "how much", "onvert", "intercept", "mx", "by", "bi", "ib", "polar",
               "exponential form", "rectangular")


#: where :attr:`Cues.form_requirements` is kept among a Cues' values (no field's name: a space leads it)
_FORM_REQUIREMENTS_KEY = " form_requirements"


class _Cue:
    """A cue field, read from the question on first use and kept (a question is read once per
    field, and most readers need a few fields only)."""

    __slots__ = ("name",)

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Cues | None, owner: type) -> object:
        if obj is None:
            return self
        values = obj._values
        try:
            return values[self.name]
        except KeyError:
            value = _READERS[self.name](obj) if obj._text else _FIELD_DEFAULTS[self.name]
            values[self.name] = value
            return value


class Cues:
    """Answer-form requirements read from a question. All defaults mean "no cue found".

    ``Cues(decimal_places=2, ...)`` builds fixed cues; :func:`question_cues` builds them from a
    question, each field read on first access. Immutable to its readers.
    """

    __slots__ = ("_text", "_low", "_values", "_folded")

    decimal_places = _Cue()
    sig_figs = _Cue()
    exact = _Cue()
    simplest_form = _Cue()
    unit = _Cue()
    percentage = _Cue()
    probability = _Cue()
    fraction = _Cue()
    multiple_choice = _Cue()
    integer = _Cue()
    boolean = _Cue()
    several = _Cue()
    ordered = _Cue()
    interval = _Cue()
    ratio = _Cue()
    decimal = _Cue()
    mixed_number = _Cue()
    interval_notation = _Cue()
    expand = _Cue()
    factor = _Cue()
    factor_completely = _Cue()
    rationalize = _Cue()
    scientific = _Cue()
    radical_form = _Cue()
    line_form = _Cue()
    complex_form = _Cue()
    unknown = _Cue()
    quantity = _Cue()
    light_speed = _Cue()

    def __init__(self, _text: str = "", **values: object) -> None:
        if values:  # (question_cues passes none: no sets to build for every question)
            unknown = set(values) - set(_FIELD_DEFAULTS)
            if unknown:
                raise TypeError(f"unknown cue fields: {sorted(unknown)}")
        self._text = _text
        self._low = _text.lower()
        self._folded: str | None | bool = False  # not folded yet
        self._values = dict(values) if not _text else {}
        if not _text:
            for k, v in _FIELD_DEFAULTS.items():
                self._values.setdefault(k, v)

    def as_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in _FIELD_DEFAULTS}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Cues) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(tuple(self.as_dict().items()))

    def __repr__(self) -> str:
        found = {k: v for k, v in self.as_dict().items() if v != _FIELD_DEFAULTS[k]}
        return "Cues(" + ", ".join(f"{k}={v!r}" for k, v in found.items()) + ")"

    @property
    def _fold(self) -> str | None:
        """The question folded by :func:`~verifier_runtime.toolkit.text.fold_in_place` (``None``
        where folding would move an index), worked out once."""
        f = self._folded
        if f is False:
            f = self._folded = self._low if self._text.isascii() else fold_in_place(self._text)
        return f

    def has(self, *words: str) -> bool:
        low = self._low
        for w in words:  # (a loop: the reader asked most often, where a generator costs more than the tests)
            if w in low:
                return True
        return False

    @property
    def form_requirements(self) -> tuple[str, ...]:
        """The form requirements the question states, by name (empty when it states none); worked
        out once (the fields it reads never change), where the criterion's guards ask it per module."""
        values = self._values
        found = values.get(_FORM_REQUIREMENTS_KEY)
        if found is None:
            found = values[_FORM_REQUIREMENTS_KEY] = self._form_requirements()
        return found  # type: ignore[return-value]

    def _form_requirements(self) -> tuple[str, ...]:
        if self._text and not self.has(*_FORM_WORDS):
            return ()  # none of the words any form requirement is written with
        names = [name for name in _FORM_FIELDS if getattr(self, name)]
        if self.decimal_places is not None:
            names.append("decimal_places")
        if self.sig_figs is not None:
            names.append("sig_figs")
        if self.unit:
            names.append("unit")
        return tuple(names)


# A look ahead first (here and in _PERCENT_RE): every branch starts at a word start with one of the
# letters it lists, so it turns away every other position at once, where the engine tried each branch
# in turn (the same matches; case-insensitive like the branches, so its letters match as theirs do)
_SEVERAL_RE = re.compile(
    r"(?=\b[acdefgilnrswz])(?:"
    r"\b(?:find|list|enter|give|determine|compute|name|identify|state|select|choose|write)\s+(?:down\s+)?(?:all|every|each|"
    r"both|the\s+(?:two|three|four)|two|three|four)\b"
    r"|\ball\s+(?:the\s+)?(?:possible\s+|real\s+|integer\s+|positive\s+|negative\s+|complex\s+)*(?:values?|solutions?|roots?|"
    r"zeros?|zeroes|numbers|integers|pairs|points|x|y|answers)\b"
    r"|\bseparated\s+by\s+commas?\b|\bcomma[- ]separated\b|\bsolutions\s+(?:to|of|for)\b|\bwhat\s+are\s+the\s+(?:solutions|roots|"
    r"zeros|values|possible)|\broots\s+of\b|\bzeros\s+of\b|\bwhich\s+of\s+the\s+following(?:\s+\w+){0,3}\s+are\b|\bselect\s+all\b|"
    r"\ball\s+that\s+apply\b|\bsolve\b.{0,80}\bfor\s+all\b"
    r"|\b(?:as|in)\s+a\s+list\s+of\b|\blist\s+of\s+(?:those|the)\s+(?:options|letters|choices|statements)\b)",
    re.IGNORECASE | re.DOTALL,
)
_ORDERED_RE = re.compile(
    r"\bin\s+(?:increasing|decreasing|ascending|descending|numerical|alphabetical)\s+order\b|\bin\s+(?:that|the\s+same|this)\s+order\b"
    r"|\bin\s+the\s+order\b|\bordered\s+(?:pair|triple|tuple|list)s?\b|\bcoordinates?\b|\bas\s+an?\s+(?:pair|triple|tuple|vector|"
    r"point)\b|\bin\s+the\s+form\s+\(|\bvector\b|\bsequence\b|\bfrom\s+(?:smallest|least|largest|greatest)\s+to\b|\bin\s+order\b",
    re.IGNORECASE,
)
_INTERVAL_RE = re.compile(
    r"\binterval\b|\bdomain\b|\brange\b|\bsolve\s+(?:the\s+)?inequalit|\bfor\s+what\s+values\b|\bfor\s+which\s+(?:real\s+)?"
    r"values\b|\bsolution\s+set\b|\bset\s+of\s+(?:all\s+)?(?:real\s+)?(?:values|numbers)\b|\bwhere\s+is\s+the\s+function\s+"
    r"(?:increasing|decreasing|positive|negative)\b",
    re.IGNORECASE,
)
_RATIO_RE = re.compile(r"\bratio\b|\bproportion\s+of\b", re.IGNORECASE)
_DECIMAL_RE = re.compile(
    r"\b(?:as|in|into)\s+(?:a\s+)?decimal(?:\s+(?:form|number|notation))?\b|\bdecimal\s+(?:approximation|value|form|answer|"
    r"equivalent|representation)\b|\bexpress(?:ed)?\s+(?:it\s+|your\s+answer\s+)?(?:as\s+)?(?:a\s+)?decimal\b",
    re.IGNORECASE,
)
_MIXED_RE = re.compile(r"\bmixed\s+(?:number|numeral|fraction)\b", re.IGNORECASE)
_INTERVAL_NOTATION_RE = re.compile(r"\binterval\s+notation\b", re.IGNORECASE)
_EXPAND_RE = re.compile(
    r"^[^\S\n]*+expand\b|\bexpand\s+(?:and\s+simplify\s+)?(?:the\s+)?(?:product|expression|\$|\\\(|\()|\b(?:in|as\s+an?)\s+expanded\s+"
    r"(?:form|polynomial)|\bmultiply\s+out\b|\b(?:expand|distribute)\s+and\s+simplify\b",
    re.IGNORECASE | re.MULTILINE,
)
_FACTOR_RE = re.compile(
    r"^[^\S\n]*+factor(?:ize|ise)?\b|\bfactor(?:ize|ise)?\s+(?:completely\s+|fully\s+)?(?:the\s+)?(?:expression|polynomial|each|"
    r"following|\$|\\\(|\()|\b(?:in|as\s+a)\s+factored\s+form\b|\bfactor\s+(?:completely|fully)\b|\bcompletely\s+factor",
    re.IGNORECASE | re.MULTILINE,
)
_FACTOR_COMPLETELY_RE = re.compile(r"\bfactor(?:ize|ise)?\s+(?:\S+\s+){0,6}?(?:completely|fully)\b|\b(?:completely|fully)\s+factor",
                                   re.IGNORECASE)
_RATIONALIZE_RE = re.compile(r"\brationali[sz]e\s+the\s+denominator\b|\brationali[sz]ed\s+denominator\b", re.IGNORECASE)
_SCIENTIFIC_RE = re.compile(r"\bscientific\s+notation\b|\bstandard\s+form\s+\(\s*a\s*\\?times", re.IGNORECASE)
# the form of a line's equation: "in slope-intercept form", "in the form y = mx + b"; "in standard
# form Ax + By = C", "in the form ax + by = c"
_SLOPE_INTERCEPT_RE = re.compile(r"\bslope[\s-]*+intercept\s++form\b|\bin\s++the\s++form\s*+\$?\s*+y\s*+=\s*+mx\s*+\+\s*+[bc]\b", re.I)
_STANDARD_LINE_RE = re.compile(r"\b(?:standard\s++form|in\s++the\s++form)\b[^.?!\n]{0,30}?\b[a]\s*+x\s*+\+\s*+b\s*+y\s*+=\s*+c\b",
                               re.I)


def _line_form(c: Cues) -> str | None:
    if c.has("intercept", "mx") and _SLOPE_INTERCEPT_RE.search(c._text):
        return "slope_intercept"
    if c.has("by") and _STANDARD_LINE_RE.search(c._text):
        return "standard"
    return None


# the form of a complex number: "in the form a + bi" ("a+ib", "$a + b i$", "where a and b are real" after it),
# "in rectangular form"; "in polar form", "in exponential form", "in the form re^{i\theta}"
_RECTANGULAR_RE = re.compile(r"\bform\b[^.?!\n]{0,25}?(?<![A-Za-z])a\s*+\+\s*+(?:b\s*+(?:\\[,;!]\s*+)?i|i\s*+b)(?![A-Za-z])"
                             r"|(?<![A-Za-z])a\s*+\+\s*+(?:b\s*+i|i\s*+b)\s*+\$?\s*+form\b|\brectangular\s++form\b", re.I)
_POLAR_RE = re.compile(r"\b(?:polar|exponential)\s++form\b|\bform\b[^.?!\n]{0,25}?(?<![A-Za-z])r\s*+(?:\\,\s*+)?e\s*+\^", re.I)


def _complex_form(c: Cues) -> str | None:
    if c.has("polar", "exponential form", "re^", "r e^", "r\\,e^") and _POLAR_RE.search(c._text):
        return "polar"
    if c.has("bi", "ib", "b i", "i b", "rectangular") and _RECTANGULAR_RE.search(c._text):
        return "rectangular"
    return None


_RADICAL_RE = re.compile(r"\bsimplest\s+radical\s+form\b|\bsimplified\s+radical\s+form\b|\bsimplify\s+the\s+radical\b",
                         re.IGNORECASE)
_UNKNOWN_RE = re.compile(
    r"\b(?:find|solve\s+for|determine|compute|calculate|what\s+is|evaluate)\s+(?:the\s+(?:value|values)\s+of\s+)?\$?"
    r"(?P<v>[a-zA-Z])\$?(?=[\s,.?:;]|$)|\bvalue\s+of\s+\$?(?P<w>[a-zA-Z])\$?(?=[\s,.?:;]|$)"
    r"|\bsolve\b[^.?\n]{1,80}?\s(?:for|in)\s+\$?(?P<u>[a-zA-Z])\$?(?=[\s,.?:;]|$)",  # "Solve $x + 1 = 3$ for $x$."
    re.IGNORECASE,
)

_NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10}
_COUNT = r"(?<![\w.])(\d{1,2}|zero|one|two|three|four|five|six|seven|eight|nine|ten)"
_I = re.IGNORECASE

# _COUNT for text folded by fold_in_place, matched case-sensitively, with its first character
# first and the look back after it: the engine then scans for the characters a count starts with
# instead of trying the whole pattern at every position (the same matches, group 1 the count)
_COUNT_FOLDED = (r"([\dzotfsen](?<![\w.].)(?:(?<=\d)\d?|(?<=z)ero|(?<=o)ne|(?<=t)(?:wo|hree|en)|(?<=f)(?:our|ive)"
                 r"|(?<=s)(?:ix|even)|(?<=e)ight|(?<=n)ine))")
_DP_WORDS = r"[ \t-]*(?:decimal[ \t-]+(?:places?|digits?)|d\.[ \t]?p\.?(?:s\b|'s\b)?|dps?\b|decimals\b)"
_DP_ROUNDED = r"to\s+" + _COUNT + r"\s+places\b"  # "rounded to 3 places", "pi to five places", "correct to two places"
_DP_RE = re.compile(_COUNT + _DP_WORDS + r"|\b" + _DP_ROUNDED, _I)
# _DP_RE's two branches on the folded text, each starting with its first character: their matches
# never overlap (a count followed by a decimal word holds no "to ... places", and the reverse),
# so the matches of the two, merged in order, are _DP_RE's
_DP_COUNT_FOLDED_RE = re.compile(_COUNT_FOLDED + _DP_WORDS)
_DP_ROUNDED_FOLDED_RE = re.compile(r"t(?<!\w.)o\s+" + _COUNT_FOLDED + r"\s+places\b")
_NEAREST_RE = re.compile(
    r"nearest\s+(tenth|hundredth|thousandth|ten[ -]thousandth|whole\s+number|integer|whole|unit|cent|dollar|percent)",
    _I,
)
_NEAREST_PLACES = {"tenth": 1, "hundredth": 2, "thousandth": 3, "ten thousandth": 4, "ten-thousandth": 4,
                   "whole number": 0, "integer": 0, "whole": 0, "unit": 0, "cent": 2, "dollar": 0, "percent": 0}
_SF_WORDS = r"[ \t-]*(?:significant[ \t-]+(?:figures?|digits?)|sig\.?[ \t-]*figs?\b|s\.[ \t]?f\.?(?:s\b)?|sfs?\b)"
_SF_RE = re.compile(_COUNT + _SF_WORDS, _I)
_SF_NEEDS = ("significant", "fig", "s.f", "s. f", "s.\tf", "sf")  # one is in every match (folded)
_SF_FOLDED_RE = re.compile(_COUNT_FOLDED + _SF_WORDS)  # _SF_RE on the folded text (see _COUNT_FOLDED)
_EXACT_RE = re.compile(
    r"\bexact(?:ly)?\s+(?:value|form|answer|expression|result)|\bin\s+terms\s+of\s+\$?\\?(?:pi\b|π)"
    r"|\b(?:simplest\s+)?radical\s+form|\bexact\s+(?:numerical\s+)?value",
    _I,
)
_SIMPLEST_RE = re.compile(
    r"\bsimplest\s+(?:\w+\s+)?form|\bsimplif(?:y|ied)|\blowest\s+terms|\breduced\s+(?:form|fraction)", _I
)
_PERCENT_RE = re.compile(
    r"(?=\b[waiph])(?:\bwhat\s+percent(?:age)?\b|\bas\s+a\s+percent(?:age)?\b|\bin\s+percent(?:age)?\b"
    r"|\bpercent(?:age)?\s+of\b|\bhow\s+many\s+percent\b|\bpercentage\b)",
    _I,
)
_PROBABILITY_RE = re.compile(r"\bprobabilit(?:y|ies)\b|\bwhat\s+(?:is|are)\s+the\s+(?:chances?|odds)\b|\blikelihood\b", _I)
_FRACTION_RE = re.compile(
    r"\bcommon\s+fraction|\bas\s+an?\s+(?:simplified\s+|reduced\s+|proper\s+|improper\s+)?fraction"
    r"|\bin\s+fraction(?:al)?\s+form|\bmixed\s+number",
    _I,
)
_INTEGER_RE = re.compile(r"\bhow\s+many\b|\bnearest\s+(?:integer|whole\s+number)\b|\bwhat\s+integer\b", _I)
_MC_HINT_RE = re.compile(r"\banswer\s+choices\b|\bchoose\s+(?:the\s+)?(?:correct\s+)?(?:one|option|answer)\b", _I)
_BOOL_MARK_RE = re.compile(
    r"\btrue\s+or\s+false\b|\btrue\s*/\s*false\b|\byes\s+or\s+no\b|\byes\s*/\s*no\b|\(\s*yes\s*/\s*no\s*\)", _I
)
_AUX_START_RE = re.compile(
    r"^(?:is|are|was|were|does|do|did|can|could|will|would|should|shall|has|have|had|must|may|might|isn't|aren't"
    r"|doesn't|don't|didn't|can't|won't)\b",
    _I,
)
_OR_RE = re.compile(r"\bor\b(?!\s+not\b)", _I)
_SENTENCE_SPLIT_RE = re.compile(r"[.!?\n:]\s*")

# Requested unit. The captured token is kept only when it looks like a unit (see _unit_ok).
_UNIT_TOKEN = (r"((?:square\s+|cubic\s+|sq\.?\s+|cu\.?\s+)?[A-Za-zµμΩ°%][A-Za-z0-9µμΩ°%/^·*.\-]{0,20}"
               # a unit in words over another: "meters per second", "metres per second squared"
               r"(?:[ \t]++per[ \t]++(?:square[ \t]++|cubic[ \t]++)?[A-Za-z]{1,20}(?:[ \t]++(?:squared|cubed)\b)?"
               r"|(?<=degrees)[ \t]++(?:celsius|centigrade|fahrenheit|kelvin)\b)?)")
_UNIT_WORDS = frozenset(
    """meter meters metre metres centimeter centimeters centimetre centimetres millimeter millimeters millimetre
    millimetres kilometer kilometers kilometre kilometres inch inches foot feet yard yards mile miles
    gram grams kilogram kilograms milligram milligrams pound pounds ounce ounces ton tons tonne tonnes
    second seconds minute minutes hour hours day days week weeks month months year years
    liter liters litre litres milliliter milliliters millilitre millilitres gallon gallons
    joule joules kilojoule kilojoules calorie calories kilocalorie kilocalories newton newtons watt watts
    kilowatt kilowatts volt volts ampere amperes amp amps ohm ohms coulomb coulombs farad farads
    kelvin celsius fahrenheit degree degrees radian radians pascal pascals kilopascal kilopascals
    atmosphere atmospheres bar bars mole moles molar hertz kilohertz megahertz electronvolt electronvolts
    dollar dollars cent cents euro euros percent units unit""".split()
)
_PREFIX = r"(?:Y|Z|E|P|T|G|M|k|h|da|d|c|m|u|µ|μ|n|p|f|a)?"
_BASE = (r"(?:m|g|s|L|l|J|N|W|V|A|K|Pa|Hz|mol|M|eV|C|F|T|Ω|ohm|cal|atm|bar|min|h|hr|hrs|yr|mi|ft|in|lb|lbs|oz"
         r"|°C|°F|°|rad|sr|Da|Bq|Gy|Sv|S|H|Wb|lx|lm|cd|ppm|ppb|mmHg|torr|Torr|psi|%)")
_UNIT_PART_RE = re.compile(_PREFIX + _BASE + r"(?:\^?\{?-?\d\}?)?")
_UNIT_SPLIT_RE = re.compile(r"[/·*.]|\^\{?-1\}?")


def _count(word: str) -> int | None:
    word = word.lower()
    if word.isdigit():
        return int(word)
    return _NUMBER_WORDS.get(word)


def _unit_ok(token: str) -> str | None:
    """The token trimmed to a plausible unit, or ``None``."""
    t = token.strip().rstrip(".,;:")
    if not t:
        return None
    if t.lower().startswith("degrees ") and t.lower().split()[1:] in (["celsius"], ["centigrade"], ["fahrenheit"], ["kelvin"]):
        return t  # "degrees Celsius": a temperature's unit, not the angle's degrees
    if " per " in t:
        # "meters per second (squared)": each side a unit, or the whole is no unit (then the first word alone)
        left, _, right = t.partition(" per ")
        right_unit = right.removesuffix(" squared").removesuffix(" cubed")
        if _unit_ok(left) and _unit_ok(right_unit) and right_unit.lower() in _UNIT_WORDS:
            return t
        return _unit_ok(left)
    words = t.split()
    if len(words) == 2 and words[0].lower().rstrip(".") in ("square", "cubic", "sq", "cu"):
        return t if _unit_ok(words[1]) else None
    if t.lower() in _UNIT_WORDS:
        return t
    parts = [p for p in _UNIT_SPLIT_RE.split(t) if p]
    if parts and all(_UNIT_PART_RE.fullmatch(p) for p in parts):
        return t
    return None


_UNIT_AFTER_IN_RE = re.compile(r"in\s+(?:units\s+of\s+)?" + _UNIT_TOKEN, _I)
_ASK_VERB_RE = re.compile(r"\b(?:express(?:ed)?|give|write|state|report|provide|answer|find|compute|calculate|determine"
                          r"|convert|estimate|evaluate)\b[^.?\n]{0,40}?$", _I)
_ANSWER_IN_RE = re.compile(r"\b(?:answer|result|value)\s+(?:should\s+be\s+|must\s+be\s+)?$", _I)


# "Convert 45° to radians.": the unit converted to is the unit asked for
_CONVERT_TO_RE = re.compile(r"\bconvert\b[^.?!\n]{0,80}?[ \t]to[ \t]++" + _UNIT_TOKEN + r"[ \t]*+(?:[.?!,;)]|$)", _I)


def _convert_unit(text: str) -> str | None:
    """The unit a "convert ... to <unit>" sentence converts to, or ``None``."""
    units = [u for u in (_unit_ok(m.group(1)) for m in _CONVERT_TO_RE.finditer(text)) if u]
    return units[-1] if units else None


def _find_unit(text: str) -> str | None:
    """The requested unit, from the places where "in <unit>" is written (found with a substring
    search, then read in order of how explicit the request is): "(in X)", "express/give/write
    ... in X", "answer should be in X", "in X?", ", in X,"; within one kind the last wins."""
    low = text.lower()
    best: dict[int, str] = {}
    i = low.find("in")
    while i >= 0:
        if (i == 0 or not low[i - 1].isalnum()) and low[i + 2 : i + 3].isspace():
            m = _UNIT_AFTER_IN_RE.match(text, i)
            unit = _unit_ok(m.group(1)) if m else None
            if unit:
                kind = _request_kind(text, i, m.end())
                if kind is not None:
                    best[kind] = unit
        i = low.find("in", i + 2)
    return best[min(best)] if best else None


# "How many days ...?": the counted word is the unit asked for when it is a unit's name (not "units",
# which counts things, "percent", a form, nor "degrees", of an angle or of heat)
_HOW_MANY_UNIT_RE = re.compile(
    r"\bhow\s+(?:many|much)\s+(?:more\s+|fewer\s+|less\s+|additional\s+|extra\s+|total\s+)?"
    r"((?:square\s+|cubic\s+)?[a-z]+)\b(?!\s+(?:of|per)\b)", _I)
_NOT_HOW_MANY_UNITS = frozenset(("unit", "units", "percent", "degree", "degrees"))


def _how_many_unit(text: str) -> str | None:
    """The unit a "how many <unit>" question counts in ("How many hours does it take?"), the last
    one asked; ``None`` where the counted word is no unit's name ("how many apples")."""
    found = None
    for m in _HOW_MANY_UNIT_RE.finditer(text):
        word = m.group(1)
        last = word.split()[-1].lower()
        if last not in _NOT_HOW_MANY_UNITS and last in _UNIT_WORDS:
            found = word
    return found


def _request_kind(text: str, start: int, end: int) -> int | None:
    """How explicitly "in <unit>" at ``start..end`` is a request (0 most), or ``None``."""
    before = text[max(0, start - 64) : start]
    after = text[end : end + 8].lstrip()
    stripped = before.rstrip()
    if stripped.endswith("(") or stripped.lower().endswith("(answer"):
        if after.startswith(")"):
            return 0
    if _ASK_VERB_RE.search(before):
        return 1
    if _ANSWER_IN_RE.search(before):
        return 2
    if after.startswith("?"):
        return 3
    if (not stripped or stripped[-1] in ",;(") and (not after or after[0] in ",;)?."):
        return 4
    return None


def _is_boolean_question(text: str, low: str) -> bool:
    if ("true" in low or "yes" in low) and _BOOL_MARK_RE.search(text):
        return True
    q_end = text.rfind("?")
    if q_end < 0:
        return False
    head = text[max(0, q_end - 600) : q_end]
    parts = _SENTENCE_SPLIT_RE.split(head)
    sentence = parts[-1].strip() if parts else ""
    return bool(_AUX_START_RE.match(sentence)) and not _OR_RE.search(sentence)


_HEAD_CHARS = 4_000
_TAIL_CHARS = 8_000


@memoize_text(maxsize=1024, max_chars=8000)
def question_cues(question: str) -> Cues:
    """Read the answer-form cues of ``question``; all defaults for junk or non-string input.

    A question longer than 12,000 characters is read at its first 4,000 and last 8,000. Each
    field is read when first asked for (:class:`Cues`).
    """
    text = _as_str(question)
    if not text or not text.strip(" \t\r\n\x00\x01\x02\x03\x04\x05\x06\x07\x08"):
        return Cues()
    if len(text) > _HEAD_CHARS + _TAIL_CHARS:  # instructions and options sit at the start or the end
        text = text[:_HEAD_CHARS] + "\n" + text[-_TAIL_CHARS:]
    return Cues(text)


# --- the field readers (each runs its pattern only when its keyword occurs) ----------------------

def _dp_counts(c: Cues) -> list[str]:
    """The counts of ``_DP_RE.finditer`` over the question, in order."""
    fold = c._fold
    if fold is None:
        return [m.group(1) or m.group(2) for m in _DP_RE.finditer(c._text)]
    found = sorted([(m.start(), m.span(1)) for m in _DP_COUNT_FOLDED_RE.finditer(fold)]
                   + [(m.start(), m.span(1)) for m in _DP_ROUNDED_FOLDED_RE.finditer(fold)])
    return [c._text[g0:g1] for _m0, (g0, g1) in found]  # as written: the fold is index for index


def _decimal_places(c: Cues) -> int | None:
    if c.has("decimal", "d.p", "dp", "places"):
        dp = _dp_counts(c)
        if dp:
            return _count(dp[-1])
    nearest = _nearest(c)
    return _NEAREST_PLACES.get(" ".join(nearest[-1].lower().split())) if nearest else None


def _nearest(c: Cues) -> list[str]:
    return _NEAREST_RE.findall(c._text) if c.has("nearest") else []


def _sig_figs(c: Cues) -> int | None:
    if not c.has("sig", "s.f", "sf"):
        return None
    fold = c._fold
    if fold is not None and not any(w in fold for w in _SF_NEEDS):
        return None
    sig = _SF_RE.findall(c._text) if fold is None else [c._text[m.start(1) : m.end(1)] for m in _SF_FOLDED_RE.finditer(fold)]
    n = _count(sig[-1]) if sig else None
    return n or None


def _unknown(c: Cues) -> str | None:
    unknown = None
    if c.has("find", "solve", "determine", "compute", "calculate", "what is", "evaluate", "value of"):
        for m in _UNKNOWN_RE.finditer(c._text):
            v = m.group("v") or m.group("w") or m.group("u")
            if v and v.lower() not in ("a", "i"):
                unknown = v
    return unknown


# Quantities written as a case-carrying symbol of a few letters, where a neighbouring symbol names
# another quantity of the same problem: pH / pOH, pKa / pKb, Ka / Kb / Kw / Ksp / Keq / Kc / Kp.
QUANTITY_SYMBOL = r"p(?:H|OH)|p?K_?\{?(?:\\mathrm\{)?(?:a|b|w|sp|eq|c|p)\}?\}?"
_QUANTITY_WORDS = ("ph", "poh", "pk", "ka", "kb", "kw", "ksp", "keq", "kc", "kp", "k_")
_QUANTITY_ASKED_RE = re.compile(
    r"(?i:\b(?:find|calculate|compute|determine|estimate|what\s+is|what's|what\s+(?:will|would)\s+be)"
    r"\s+(?:the\s+)?(?:(?:value|values)\s+of\s+(?:the\s+)?)?(?:(?:new|final|resulting)\s+)?)"
    r"\$?(?P<q>" + QUANTITY_SYMBOL + r")\$?(?![A-Za-z])"
)


_QUANTITY_ASK_STARTS = ("find", "calculate", "compute", "determine", "estimate", "what")  # every match begins so


def quantity_symbol(symbol: str) -> str:
    """``K_{\\mathrm{a}}``, ``K_a``, ``Ka`` -> ``Ka``: one spelling per quantity symbol."""
    return symbol.replace("\\mathrm", "").replace("_", "").replace("{", "").replace("}", "")


def _quantity(c: Cues) -> str | None:
    if not c.has(*_QUANTITY_WORDS):
        return None
    found = [m.group("q") for m in marker_matches(_QUANTITY_ASKED_RE, c._text, _QUANTITY_ASK_STARTS, c._fold)]
    return quantity_symbol(found[-1]) if found else None


def _factor_completely(c: Cues) -> bool:
    return c.has("factor") and bool(_FACTOR_COMPLETELY_RE.search(c._text))


# R5.2: a speed or velocity asked where the question writes speeds as multiples of c ("0.25 c", "0.9c")
# or names the speed of light: c is then the unit the reference's "0.939c" is written in
_LIGHT_SPEED_RE = re.compile(r"(?<![\w.])\d*\.?\d+\s?c\b(?![-\w])|\bspeed\s+of\s+light\b|\bunits?\s+of\s+\$?c\b",
                             re.IGNORECASE)
_SPEED_WORD_RE = re.compile(r"\b(?:speed|velocit(?:y|ies)|moving|moves|travels?)\b", re.IGNORECASE)


def _light_speed(c: Cues) -> bool:
    return c.has("speed", "velocit", "moving", "moves", "travel") and bool(_SPEED_WORD_RE.search(c._text)) \
        and bool(_LIGHT_SPEED_RE.search(c._text))


def _rx(keywords: tuple[str, ...], rx: re.Pattern[str]):
    return lambda c: c.has(*keywords) and bool(rx.search(c._text))


_READERS = {
    "light_speed": _light_speed,
    "decimal_places": _decimal_places,
    "sig_figs": _sig_figs,
    "exact": _rx(("exact", "terms of", "radical"), _EXACT_RE),
    "simplest_form": _rx(("simpl", "lowest", "reduced"), _SIMPLEST_RE),
    "unit": lambda c: (_find_unit(c._text) if c.has(" in", "(in") else None) or (
        _how_many_unit(c._text) if c.has("how many", "how much") else None) or (
        _convert_unit(c._text) if c.has("onvert") else None),
    "percentage": _rx(("percent",), _PERCENT_RE),
    "probability": _rx(("probab", "chance", "odds", "likelihood"), _PROBABILITY_RE),
    "fraction": lambda c: c.has("fraction") and bool(_FRACTION_RE.search(c._text)) and not c.mixed_number,
    "multiple_choice": lambda c: bool(parse_options(c._text)) or (c.has("choice", "choose")
                                                                  and bool(_MC_HINT_RE.search(c._text))),
    "integer": lambda c: (c.has("how many", "integer", "whole number") and bool(_INTEGER_RE.search(c._text)))
    or any(n.lower() in ("integer", "whole number") for n in _nearest(c)),
    "boolean": lambda c: _is_boolean_question(c._text, c._low),
    "several": _rx(("all", "both", "two", "three", "four", "comma", "solutions", "roots", "zeros", "values",
                    "following", "apply", "list"), _SEVERAL_RE),
    "ordered": _rx(("order", "pair", "triple", "tuple", "coordinate", "vector", "point", "form (", "sequence",
                    "smallest", "least", "largest", "greatest"), _ORDERED_RE),
    "interval": _rx(("interval", "domain", "range", "inequal", "values", "solution set", "set of", "function"),
                    _INTERVAL_RE),
    "ratio": _rx(("ratio", "proportion"), _RATIO_RE),
    "decimal": _rx(("decimal",), _DECIMAL_RE),
    "mixed_number": _rx(("mixed",), _MIXED_RE),
    "interval_notation": _rx(("interval notation",), _INTERVAL_NOTATION_RE),
    "expand": _rx(("expand", "multiply out", "distribute"), _EXPAND_RE),
    "factor": lambda c: c.factor_completely or (c.has("factor") and bool(_FACTOR_RE.search(c._text))),
    "factor_completely": _factor_completely,
    "rationalize": _rx(("rationali",), _RATIONALIZE_RE),
    "scientific": _rx(("scientific", "standard form"), _SCIENTIFIC_RE),
    "radical_form": _rx(("radical",), _RADICAL_RE),
    "line_form": _line_form,
    "complex_form": _complex_form,
    "unknown": _unknown,
    "quantity": _quantity,
}
