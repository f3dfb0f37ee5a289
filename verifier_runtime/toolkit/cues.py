"""Question cues: what the question asks of the answer's form (rounding, unit, exactness, ...).

>>> c = question_cues("What is the area in square meters? Round to 2 decimal places.")
>>> (c.decimal_places, c.unit)
(2, 'square meters')

Cues are hints for learned modules, not guarantees: "how many" sets ``integer`` even though
a few such questions have fractional answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier_runtime.toolkit._memo import memoize_text
from verifier_runtime.toolkit.choices import parse_options
from verifier_runtime.toolkit.text import _as_str


@dataclass(frozen=True, slots=True)
class Cues:
    """Answer-form requirements read from a question. All defaults mean "no cue found"."""

    decimal_places: int | None = None
    sig_figs: int | None = None
    exact: bool = False
    simplest_form: bool = False
    unit: str | None = None
    percentage: bool = False
    probability: bool = False
    fraction: bool = False
    multiple_choice: bool = False
    integer: bool = False
    boolean: bool = False


_NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10}
_COUNT = r"(?<![\w.])(\d{1,2}|zero|one|two|three|four|five|six|seven|eight|nine|ten)"
_I = re.IGNORECASE

_DP_RE = re.compile(_COUNT + r"[ \t-]*(?:decimal[ \t-]+(?:places?|digits?)|d\.[ \t]?p\.?|dp\b|decimals\b)", _I)
_NEAREST_RE = re.compile(
    r"nearest\s+(tenth|hundredth|thousandth|ten[ -]thousandth|whole\s+number|integer|whole|unit|cent|dollar|percent)",
    _I,
)
_NEAREST_PLACES = {"tenth": 1, "hundredth": 2, "thousandth": 3, "ten thousandth": 4, "ten-thousandth": 4,
                   "whole number": 0, "integer": 0, "whole": 0, "unit": 0, "cent": 2, "dollar": 0, "percent": 0}
_SF_RE = re.compile(
    _COUNT + r"[ \t-]*(?:significant[ \t-]+(?:figures?|digits?)|sig\.?[ \t-]*figs?\b|s\.[ \t]?f\.?|sf\b)", _I
)
_EXACT_RE = re.compile(
    r"\bexact(?:ly)?\s+(?:value|form|answer|expression|result)|\bin\s+terms\s+of\s+\$?\\?(?:pi\b|π)"
    r"|\b(?:simplest\s+)?radical\s+form|\bexact\s+(?:numerical\s+)?value",
    _I,
)
_SIMPLEST_RE = re.compile(
    r"\bsimplest\s+(?:\w+\s+)?form|\bsimplif(?:y|ied)|\blowest\s+terms|\breduced\s+(?:form|fraction)", _I
)
_PERCENT_RE = re.compile(
    r"\bwhat\s+percent(?:age)?\b|\bas\s+a\s+percent(?:age)?\b|\bin\s+percent(?:age)?\b|\bpercent(?:age)?\s+of\b"
    r"|\bhow\s+many\s+percent\b|\bpercentage\b",
    _I,
)
_PROBABILITY_RE = re.compile(r"\bprobabilit(?:y|ies)\b|\bwhat\s+(?:is|are)\s+the\s+(?:chances?|odds)\b|\blikelihood\b", _I)
_FRACTION_RE = re.compile(
    r"\bcommon\s+fraction|\bas\s+a\s+(?:simplified\s+|reduced\s+|proper\s+|improper\s+)?fraction"
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
_UNIT_TOKEN = r"((?:square\s+|cubic\s+|sq\.?\s+|cu\.?\s+)?[A-Za-zµμΩ°%][A-Za-z0-9µμΩ°%/^·*.\-]{0,20})"
_UNIT_RES = (
    re.compile(r"\((?:answer\s+)?in\s+(?:units\s+of\s+)?" + _UNIT_TOKEN + r"\s*\)", _I),
    re.compile(
        r"\b(?:express(?:ed)?|give|write|state|report|provide|answer)\b[^.?\n]{0,40}?\bin\s+(?:units\s+of\s+)?"
        + _UNIT_TOKEN,
        _I,
    ),
    re.compile(r"\b(?:answer|result|value)\s+(?:should\s+be\s+|must\s+be\s+)?in\s+(?:units\s+of\s+)?" + _UNIT_TOKEN, _I),
    re.compile(r"\bin\s+(?:units\s+of\s+)?" + _UNIT_TOKEN + r"\s*[?]", _I),
)
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
    words = t.split()
    if len(words) == 2 and words[0].lower().rstrip(".") in ("square", "cubic", "sq", "cu"):
        return t if _unit_ok(words[1]) else None
    if t.lower() in _UNIT_WORDS:
        return t
    parts = [p for p in _UNIT_SPLIT_RE.split(t) if p]
    if parts and all(_UNIT_PART_RE.fullmatch(p) for p in parts):
        return t
    return None


def _find_unit(text: str) -> str | None:
    for rx in _UNIT_RES:
        found = None
        for m in rx.finditer(text):
            unit = _unit_ok(m.group(1))
            if unit:
                found = unit
        if found:
            return found
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

    A question longer than 12,000 characters is read at its first 4,000 and last 8,000.
    """
    text = _as_str(question)
    if not text:
        return Cues()
    if len(text) > _HEAD_CHARS + _TAIL_CHARS:  # instructions and options sit at the start or the end
        text = text[:_HEAD_CHARS] + "\n" + text[-_TAIL_CHARS:]
    low = text.lower()  # keyword guards: each pattern only runs when its keyword occurs

    def has(*words: str) -> bool:
        return any(w in low for w in words)

    decimal_places = None
    dp = _DP_RE.findall(text) if has("decimal", "d.p", "dp") else []
    if dp:
        decimal_places = _count(dp[-1])
    nearest = _NEAREST_RE.findall(text) if has("nearest") else []
    if decimal_places is None and nearest:
        decimal_places = _NEAREST_PLACES.get(" ".join(nearest[-1].lower().split()))
    sig = _SF_RE.findall(text) if has("sig", "s.f", "sf") else []
    sig_figs = _count(sig[-1]) if sig else None
    if sig_figs == 0:
        sig_figs = None
    options = parse_options(text)
    return Cues(
        decimal_places=decimal_places,
        sig_figs=sig_figs,
        exact=has("exact", "terms of", "radical") and bool(_EXACT_RE.search(text)),
        simplest_form=has("simpl", "lowest", "reduced") and bool(_SIMPLEST_RE.search(text)),
        unit=_find_unit(text) if has("in") else None,
        percentage=has("percent") and bool(_PERCENT_RE.search(text)),
        probability=has("probab", "chance", "odds", "likelihood") and bool(_PROBABILITY_RE.search(text)),
        fraction=has("fraction", "mixed number") and bool(_FRACTION_RE.search(text)),
        multiple_choice=bool(options) or (has("choice", "choose") and bool(_MC_HINT_RE.search(text))),
        integer=(has("how many", "integer", "whole number") and bool(_INTEGER_RE.search(text)))
        or any(n.lower() in ("integer", "whole number") for n in nearest),
        boolean=_is_boolean_question(text, low),
    )
