"""The scoring criterion as a decision procedure (``docs/criterion.md``).

:func:`judge` applies the rules in the order of the criterion: invalid answers (R1.3), the
final commitment (R1.2, R2.1-R2.5), restatement (R2.6), multiple choice (R6.2), booleans
(R6.3), typed comparison with the question's requirements (R3-R5), text (R6.4). It reads the
question as an LLM judge would (form requirements, requested unit, options, "find all"),
through the toolkit. The offline fallback judge is this function; code modules use its
parts (:func:`compare_numbers`, :func:`reference_values`, :func:`several_allowed`, ...).

>>> judge("What is 3 + 4?", "7", "The answer is 7. Actually no, it's 6.")
Judgment(correct=False, reason='differ:number')
>>> judge("What is 3 + 4?", "7", "It is either 7 or 8.").reason
'hedge:alternatives'

Deterministic and total: every input gives a :class:`Judgment`; ``correct is None`` only
where no reference answer can be read.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from verifier_runtime.toolkit._memo import memoize_text
from verifier_runtime.toolkit.choices import LETTERS, letter_and_text, parse_choice, parse_options
from verifier_runtime.toolkit.commit import (
    CHEMICAL_SPECIES,
    DOMAIN_NOTE_RE,
    WORK_RESULT,
    Commitment,
    commitment_of,
    option_marker,
    rejected_value,
    split_candidates,
    strip_label,
)
from verifier_runtime.toolkit.compare import Answer, compare_answers, parse_answer, real_value
from verifier_runtime.toolkit.cues import QUANTITY_SYMBOL, Cues, quantity_symbol
from verifier_runtime.toolkit.extract import clean_answer
from verifier_runtime.toolkit.forms import form_violations
from verifier_runtime.toolkit.latex.tokens import GREEK_NAMES
from verifier_runtime.toolkit.numbers import (
    SCALE_WORD_PATTERN,
    Number,
    _exponent10,
    ordinals_in,
    parse_number,
    parse_ordinal,
    round_to_decimals,
    round_to_sig_figs,
    strip_math_delimiters,
)
from verifier_runtime.toolkit.structures import (
    PLUS_MINUS_RE,
    SET_SUBJECT_RE,
    Collection,
    collections_equal,
    elements_equal,
    has_plus_minus,
    interval_sets_equal,
    parse_interval_set,
    reals_with_condition,
    tuple_as_interval,
)
from verifier_runtime.toolkit.text import (
    NAME_PATTERN,
    NOT_NOUN_WORDS,
    NOUN_PHRASE_PATTERN,
    both_booleans,
    contains_answer,
    contradicting_reply,
    element_aliases,
    identifiers_equal,
    normalize_text,
    parse_bool,
    parse_identifier,
    plain_noun_phrase,
    spelling_key,
    text_match,
)
from verifier_runtime.toolkit.units import (
    Quantity,
    convert,
    convert_to_base,
    dimensions_equal,
    glued_exponents,
    in_unit,
    metre_second_reading,
    parse_dimensions,
    parse_quantity,
    requested_unit_string,
)

__all__ = [
    "Judgment",
    "asked_statement",
    "question_commitment",
    "pass_guard",
    "invalid_reason",
    "reference_stated",
    "numeric_aliases",
    "judge",
    "judge_triple",
    "compare_numbers",
    "compare_candidate",
    "reference_values",
    "several_allowed",
    "is_restatement",
]


@dataclass(frozen=True, slots=True)
class Judgment:
    """``correct``: the verdict (``None`` only without a readable reference); ``reason``: the
    rule that decided, as a reason code of ``docs/criterion.md``."""

    correct: bool | None
    reason: str


def judge(question: str, reference: str, response: str) -> Judgment:
    """Judge one triple by the criterion (see the module docstring)."""
    from verifier_runtime.triple import Triple

    return judge_triple(Triple(question, reference, response))


def judge_triple(x: Any) -> Judgment:
    """Judge a :class:`~verifier_runtime.triple.Triple` (its cached views are reused)."""
    try:
        j = _judge(x)
        if j.correct:
            c = x.commitment
            unit = (box_unit_reason(x) or box_words_reason(x)) if c is not None and not c.several else None
            if unit:
                return Judgment(False, unit)  # "\\boxed{5} cm" for 5 m (R5.1)
            plain = text_unwrapped(x.answer or "")
            if plain is not None:  # "\\boxed{\\text{at least } 56}": its words read as in prose (R1.1, R4.1)
                p = judge(x.question or "", x.ref or "", plain)
                if p.correct is False and p.reason.split(":", 1)[0] in _PLAIN_BLOCKS:
                    return p
        return j
    except (ValueError, TypeError, AttributeError, ArithmeticError, RecursionError, IndexError, KeyError) as e:
        return Judgment(False, f"error:{type(e).__name__}")


# ----------------------------------------------------------------------------- guards for modules
def _per_triple(x: Any, key: tuple, compute: Any) -> Any:
    """``compute()``, kept for the triple ``x`` when it has a memo (a
    :class:`~verifier_runtime.triple.Triple`): the rules below are pure functions of the triple
    and their arguments, and several modules of a cascade ask them with the same ones."""
    memo = getattr(x, "memo", None)
    return compute() if memo is None else memo(key, compute)


def pass_guard(x: Any, answer: str | None = None) -> str | None:
    """The criterion's reason why a PASS of ``answer`` (default: the committed answer) would be
    wrong even when its value matches, or ``None``: a restatement of the question (R2.6), a form
    requirement it violates (R3.2), case that carries meaning (R6.1), a cut-off answer (R1.3).
    Learned modules check it before they PASS."""
    if answer is None or type(answer) is str:
        return _per_triple(x, ("pass_guard", answer), lambda: _pass_guard(x, answer))
    return _pass_guard(x, answer)


def _pass_guard(x: Any, answer: Any) -> str | None:
    try:
        a = x.answer if answer is None else answer
        if not a:
            return "invalid:no_final_answer"
        ref = x.ref or ""
        if _dangling(a, ref) or (answer is None and _cut_off(x.answer_info)):
            return "invalid:truncated"
        if _INABILITY_RE.match(a):
            return "invalid:refusal"  # "I am not able to compute 42 from this." (R1.3)
        if has_plus_minus(a) and not has_plus_minus(ref):
            return "hedge:plus_minus"  # two values where the reference is one (R2.3)
        if is_restatement(a, ref, x.question):
            return "restatement:question_expression"
        shape = _not_one_value(a, ref, x.cues, x.question)
        if shape:
            return shape
        if _set_for_value(a, x):
            return "differ:interval"  # "all real numbers except 2" for 2: a set, its excluded point no answer
        factors = _factor_judgment(a, ref, x.question, asked=True)  # a module never PASSes the bare product
        if factors is not None and not factors.correct:
            return factors.reason
        if x.options and _letter_text_disagree(a, x.options, x.cues):
            return "differ:choice_letter_text_disagree"  # a module read the letter alone
        if _rejects_option(a, x) or _rejected(x.answer or a, x) is not None:
            return "negation:only_negated"  # (the whole answer: a module may pass the matched part alone)
        if parse_bool(ref) is not None and both_booleans(x.answer or a):
            return "hedge:alternatives"  # "False, True": both answers of a true-or-false question (R6.3)
        if _both_truth_words(x.answer or a, ref):
            return "ambiguous:both_booleans"  # "It would be false to say so, so True." (R6.3)
        if _second_of_two_names(x.answer or a, ref, x.question or ""):
            return "ambiguous:two_names"  # "Norfolk, Virginia" for Virginia: two peers, or a place and its region
        bare = _TAG_RE.sub(" ", a) if "<" in a else a  # "<answer>42</answer>": tags, no relation
        if _quantity_conflicts(a, x.cues):
            return "differ:label"  # "pH = 3" where the pOH is asked (R4.2)
        if len(a) <= 40 and (_NUMBER_OPERATION_RE.search(bare) or _LABELLED_RE.match(a) or (
                "!" in a and _FACTORIAL_RE.search(a) and getattr(x.answer_info, "method", "") == "boxed")):
            # "5!", "12^2", "\\sqrt{12}" or "x > 12" is a value (or relation) of its own: a module that
            # read the digits compared another (R1.1, R3.3)
            j = compare_candidate(a, ref, x.cues, x)
            if j is not None and not j.correct:
                return j.reason
            if j is None and _INEQ_CHARS_RE.search(bare) and not _INEQ_CHARS_RE.search(ref):
                return "hedge:bound"  # "x > 12" for 12: a relation, not the value (R2.1)
        if _listed_with_others(x, a):
            return "hedge:list_for_single_answer"  # "Joie de vivre, James Ray, 25." for 25
        if _other_number_first(a, ref):
            return "ambiguous:several_numbers"  # "There are 12, more than the 14 we expected." (R1.1)
        worded = word_operation(a)
        if worded is not None:
            # "The answer is 7 squared.": a module that read the digits compared 7, not 49 (R4.1)
            j = compare_candidate(worded, ref, x.cues, x) if worded else None
            if j is None or not j.correct:
                return j.reason if j is not None and j.reason.startswith("differ") else "differ:operation_in_words"
        if ("minus" in a or "egative" in a) and _SIGN_WORD_RE.search(a):
            # "The temperature is minus 7.": a module that read the digits compared 7, not -7 (R4.1)
            said = statement_values(a)
            j = compare_candidate(said[0], ref, x.cues, x) if said else None
            if j is None or not j.correct:
                return j.reason if j is not None and j.reason.startswith("differ") else "differ:sign_word"
        if _symbolic(a):
            # "-x = 2" states x = -2 and "x - 1" is no number 1, whatever number a module compared
            j = compare_candidate(a, ref, x.cues, x)
            if j is not None and not j.correct:
                return j.reason
        if _echoed(x):
            return "invalid:echo"
        if answer is None:
            unit = box_unit_reason(x) or box_words_reason(x)
            if unit:
                return unit  # "\\boxed{5} cm" for 5 m, "\\boxed{55} squared" for 55 (R5.1, R4.1)
        plain = text_unwrapped(a)
        if plain is not None:
            # "\\boxed{\\text{at least } 56}", "\\boxed{56\\text{ million}}": the words inside the
            # math read as the same words in prose would (R1.1, R4.1): a bound, a scale, an operation
            blocked = _pass_guard(x, plain)
            if blocked:
                return blocked
            j = judge(x.question or "", ref, plain)
            if j.correct is False and j.reason.split(":", 1)[0] in _PLAIN_BLOCKS:
                return j.reason
        cues = x.cues
        if cues is not None and cues.form_requirements:
            value, _label = _unlabel(a, False, cues, x.question)
            bad = form_violations(value, cues, reference=ref)
            if bad:
                return bad[0]
        if ref and _case_carrying(ref) and text_match(a, ref) and _flat(ref) not in _flat(a):
            return "differ:case"
        if ref and _sequence_case_differs(a, ref, x.question or ""):
            return "differ:case"
        return None
    except (ValueError, TypeError, AttributeError, ArithmeticError, RecursionError, IndexError):
        return "guard:error"


_RANGE_RE = re.compile(
    r"^\s*+(?P<lead>(?:(?:approximately|approx\.?|about|around|roughly|somewhere|from|between)\s++"
    r"|(?:~|\u2248|\\approx|\\sim)[ \t]*+)*)"  # ("~72-74": a tilde before a range is "about")
    r"(?P<a>[-+]?\d[\d,]*(?:\.\d+)?)\s*+(?:%\s*+)?(?P<sep>to|and|through|\u2013|\u2014|-|~|\uff5e|\\sim(?![A-Za-z])|\\text\{\s*to\s*\})\s*+"
    r"(?P<b>[-+]?\d[\d,]*(?:\.\d+)?)\s*+(?:%|[A-Za-z]{1,12})?\s*\.?\s*$", re.IGNORECASE)


# a range written inside prose: two numbers joined by a range word or sign (not "-": a subtraction)
_RANGE_IN_TEXT_RE = re.compile(
    r"(?<![\w.,/^*+=\\-])(?P<a>[-+]?\d[\d,]*+(?:\.\d+)?)\s*+(?:%\s*+)?(?:to|through|\u2013|\u2014|~|\uff5e|\\sim(?![A-Za-z]))\s*+"
    r"(?P<b>[-+]?\d[\d,]*+(?:\.\d+)?)(?![\d.,]*\d)", re.IGNORECASE)


# R2.1: a quantity restated in parentheses in another unit: "5 km (about 3.1 miles)", "2 kg (2000 g)"
_RESTATED_QTY_RE = re.compile(
    r"(?<![\w.,])(?P<an>\d[\d,]*+(?:\.\d++)?+)\s*+(?P<au>[A-Za-z\u00b0\u00b5\u03bc][A-Za-z/^\d\u00b2\u00b3-]{0,14}+)"
    r"(?:\s++(?:away|long|wide|high|tall|deep|thick|across|in\s+all|in\s+total|total))?\s*+\(\s*+(?:(?P<approx>about|approximately|approx\.?|roughly|around|nearly|almost|\u2248|~)\s*+"
    r"|(?:or|i\.e\.,?|that\s+is|=)\s*+)?"
    r"(?P<bn>\d[\d,]*+(?:\.\d++)?+)\s*+(?P<bu>[A-Za-z\u00b0\u00b5\u03bc][A-Za-z/^\d\u00b2\u00b3-]{0,14}+(?:\s++per\s++[A-Za-z]{1,12})?)\s*+\)",
    re.IGNORECASE)


# words written in a text macro inside math: "\\text{at least } 56", "56\\textrm{ thousand}"
_TEXT_MACRO_RE = re.compile(r"\\(?:text|textrm|textnormal|textit|textbf|mathrm|mbox)\s*+\{([^{}$\\]{0,80}+)\}")
_MACRO_WORD_RE = re.compile(r"[A-Za-z]{2,}+")
_ORDINAL_RE = re.compile(r"^\s*+(?:st|nd|rd|th)\s*+$")  # "56^{\\text{th}}": an ordinal's suffix, no word
_PLAIN_BLOCKS = frozenset({"differ", "hedge", "negation", "ambiguous"})


def text_unwrapped(answer: str) -> str | None:
    """``answer`` with its text macros replaced by their words, where one holds a word of two letters
    or more and the answer is short ("\\text{at least } 56" reads "at least 56"); else ``None``."""
    if not answer or "\\" not in answer or len(answer) > 200:
        return None
    found = False

    def words(m: re.Match[str]) -> str:
        nonlocal found
        found = found or bool(_MACRO_WORD_RE.search(_ORDINAL_RE.sub("", m.group(1))))
        return m.group(1)

    plain = _TEXT_MACRO_RE.sub(words, answer)
    if not found:
        return None
    q = parse_quantity(answer)
    if q is not None and q.dimensionality != "dimensionless":
        return None  # "0.118\\mathrm{nm}", "56\\text{ cm}": a quantity with its unit, read as one
    plain = re.sub(r"\\[,;:! ]|~", " ", plain)
    plain = re.sub(r"\s++", " ", plain).strip()
    return plain if plain and "\\text" not in plain else None


# a unit of measure written right after a box that holds a bare number: "\\boxed{5} cm", "$\\boxed{60}$ mph"
_UNIT_AFTER_BOX_RE = re.compile(
    r"^(?:\$|\\\))?[^\S\n]*+([A-Za-z\u00b0\u00b5\u03bc][A-Za-z\u00b0\u00b5\u03bc/^\d\u00b2\u00b3]{0,15}+"
    r"(?:[ \t]++per[ \t]++[A-Za-z]{1,12}+)?)(?![\w\u00b0])")
# English words that are also unit symbols ("in" inches, "a" years): never read as the box's unit
_NOT_UNIT_WORDS = frozenset({"in", "at", "a", "an", "as", "is", "or", "and", "of", "to", "by", "it", "if", "on",
                             "per", "be", "are", "so", "we", "the", "for", "from", "with", "was", "no", "not",
                             "then", "which", "that", "this", "when", "where", "since", "because", "but"})


def box_unit_reason(x: Any) -> str | None:
    """R5.1: a unit written right after a box of a bare number is the box's unit ("\\boxed{5} cm" states
    5 cm), where the reference has a unit or the question asks for one; the code when that quantity
    does not equal the reference, else ``None``."""
    info = x.answer_info
    a = x.answer
    if info is None or getattr(info, "method", "") != "boxed" or not a or not getattr(info, "tail", ""):
        return None
    m = _UNIT_AFTER_BOX_RE.match(info.tail)
    if m is None or m.group(1).lower() in _NOT_UNIT_WORDS or parse_number(a) is None:
        return None
    ref = x.ref or ""
    rq = parse_quantity(ref)
    if not ((rq is not None and rq.dimensionality != "dimensionless") or (x.cues is not None and x.cues.unit)):
        return None
    q = parse_quantity(f"{a} {m.group(1)}")
    if q is None or q.dimensionality == "dimensionless":
        return None
    j = compare_candidate(f"{a} {m.group(1)}", ref, x.cues, x)
    if j is None:
        return "differ:unit"
    return None if j.correct else j.reason


# words in prose right after or before the box that make its value another one ("$\\boxed{55}$ squared",
# "$\\boxed{55}$ percent", "$\\boxed{55}$ or fewer", "negative $\\boxed{55}$"); "or so" is an approximation
_WORDS_AFTER_BOX_RE = re.compile(
    r"^(?:\$|\\\))?[^\S\n]*+((?:percent|per[ \t]++cent|squared|cubed|factorial|(?:tenth|hundredth|thousandth|millionth)s?"
    r"|(?:minus|plus|times|over)[ \t]++[\w.]++|divided[ \t]++by[ \t]++[\w.]++"
    r"|or[ \t]++(?:fewer|less|more|greater|higher|lower|above|below|over|under|bigger|smaller)"
    r"|and[ \t]++(?:up|above|over|below|under|more|less)|at[ \t]++(?:most|least)"
    # ("Tara has \\boxed{30} marbles at most.": the counted noun, then the bound)
    r"|[a-z]{2,15}[ \t]++(?:or[ \t]++(?:fewer|less|more|greater|higher|lower)|at[ \t]++(?:most|least)))\b)", re.IGNORECASE)
_WORDS_BEFORE_BOX_RE = re.compile(
    r"(?:^|[\s(])((?:negative|minus|not|never|over|under)[^\S\n]*+)(?:\$\$?|\\\(|\\\[)?[^\S\n]*+$", re.IGNORECASE)


def box_words_reason(x: Any) -> str | None:
    """R1.1/R4.1: words in prose right next to the final box that change its value (an operation, a
    sign, a percent, a bound, a negation) are read with it: the code of that reading where it is
    not correct, else ``None``."""
    info = x.answer_info
    a = x.answer
    if info is None or getattr(info, "method", "") != "boxed" or not a or not info.boxes:
        return None
    after = _WORDS_AFTER_BOX_RE.match(getattr(info, "tail", "") or "")
    content, start, end = info.boxes[-1]
    text = x.response or ""
    before = None
    if 0 < start <= len(text) and text[end - 1 : end] == "}" and content in text[start:end]:
        before = _WORDS_BEFORE_BOX_RE.search(text[max(0, start - 30) : start])
    if after is None and before is None:
        return None
    said = f"{before.group(1).strip() + ' ' if before else ''}{a}{' ' + after.group(1) if after else ''}"
    j = judge(x.question or "", x.ref or "", said)
    if j.correct is False and j.reason.split(":", 1)[0] in _PLAIN_BLOCKS:
        return j.reason
    return None


def _half_unit(digits: str, rounded: bool) -> float:
    """Half a unit of the last digit of ``digits`` ("3.1": 0.05; "2000": 0.5), or of its last
    non-zero digit when the number is said to be rounded ("about 2000": 500)."""
    digits = digits.replace(",", "")
    if "." in digits:
        return 0.5 * 10.0 ** -len(digits.split(".", 1)[1])
    zeros = len(digits) - len(digits.rstrip("0")) if rounded else 0
    return 0.5 * 10.0 ** min(zeros, len(digits) - 1)


def restated_quantity_disagrees(answer: str) -> bool:
    """R2.1: the answer restates a quantity in parentheses in another unit of the same dimension
    and the two do not agree within the restatement's written precision ("5 km (about 4 miles)",
    "2 kg (3000 g)"): two values, not one value said twice ("5 km (about 3.1 miles)" is one)."""
    if "(" not in answer or len(answer) > 2000:
        return False
    for m in _RESTATED_QTY_RE.finditer(answer):
        qa = parse_quantity(m.group("an") + " " + m.group("au"))
        qb = parse_quantity(m.group("bn") + " " + m.group("bu"))
        if qa is None or qb is None or qa.dimensionality != qb.dimensionality or qa.dimensionality == "dimensionless":
            continue
        conv = convert(qa, qb.unit) if qa.unit != qb.unit else qa
        if conv is None:
            continue
        b = float(qb.magnitude)
        if abs(float(conv.magnitude) - b) > _half_unit(m.group("bn"), bool(m.group("approx"))) + 1e-9 * max(abs(b), 1.0):
            return True
    return False


_FROM_BEFORE_RE = re.compile(r"\b(?:from|by)\s++(?:\S++\s++)?$", re.IGNORECASE)


def _range_around(answer: str, ref: str) -> bool:
    """R2.1: the reference's number is one end of a range the answer states ("It is 42 to 43 m
    long." for 42), where the reference is a single number."""
    if "~" not in answer and "to" not in answer and "through" not in answer and "\\sim" not in answer and not any(
            ch in answer for ch in "\u2013\u2014\uff5e"):
        return False
    nr = parse_number(ref)
    if nr is None or _RANGE_RE.match(ref):
        return False
    for m in _RANGE_IN_TEXT_RE.finditer(answer[:2000]):
        a, b = parse_number(m.group("a")), parse_number(m.group("b"))
        if a is None or b is None or a.value == b.value or _FROM_BEFORE_RE.search(answer, max(0, m.start() - 40), m.start()):
            continue  # "rises from 20 to 42": a change to the value, not a range
        if nr.value in (a.value, b.value):
            return True
    return False


def _range_for_one_value(answer: str, ref: str, cues: Cues | None) -> bool:
    """R2.1: a range of numbers ("12 to 14", "approximately 3-4") answers no single value, unless
    the question asks for a ratio or the reference is itself a range."""
    if len(answer) > 80 or (cues is not None and (cues.ratio or cues.several)) or ":" in (ref or ""):
        return False
    m = _RANGE_RE.match(answer)
    if m is None or m.group("a") == m.group("b") or _RANGE_RE.match(ref or ""):
        return False
    # "3 - 13x" and "3-4" may be subtractions; "approximately 3-4" and "3\u20134" are ranges
    return m.group("sep") != "-" or bool(m.group("lead").strip())


# R2.1: a bound ("at least 42", "no more than 42", "42 or more", "42 max", "\\geq 42") states an inequality
# about the value, not the value.
_NUM = r"[-+\u2212]?\d[\d,]*+(?:\.\d+)?"
_BOUND_WORDS = (r"nearly|almost|just\s+(?:under|over|below|above)|at\s+least|at\s+most|(?:(?:no|not)\s+)?(?:more|less|fewer|greater|larger|smaller|higher|lower)\s+than"
                r"|(?:no|not)\s+(?:over|under)|upwards\s+of|in\s+excess\s+of|up\s+to|a\s+(?:minimum|maximum)\s+of"
                r"|(?<![\d}]\s)(?:over|under|above|below)")
# (also the "approximately / much / not" relations: `\\gtrsim 2`, `\\geqq 2`, `\\ngtr 2`, `\\gg 2`, `\u2a7e 2`)
_RELATION_SIGN = (r"(?:\\[gl]eq?(?:slant)?(?![A-Za-z])|\\[gl]t(?![A-Za-z])|>=|<=|[\u2265\u2264<>\u2266\u2267\u2272\u2273\u226a\u226b\u2a7d\u2a7e]"
                  r"|\\(?:gtrsim|lesssim|gtrapprox|lessapprox|geqq|leqq|ngtr|nless|ngeq|nleq|gg|ll)(?![A-Za-z]))")
_BOUND_BEFORE_RE = re.compile(r"(?:\b(?:" + _BOUND_WORDS + r")|^\s*+" + _RELATION_SIGN + r")[\s$({~]*+$", re.IGNORECASE)
_TAG_RE = re.compile(r"<[A-Za-z/][^<>\n]{0,30}>")
_TAG_BEFORE_RE = re.compile(_TAG_RE.pattern + r"\s*+$")  # "<answer>42": a tag, no relation
_RELATION_BEFORE_RE = re.compile(_RELATION_SIGN + r"[\s$({~]*+$")
# "2 \\le x", "2 < n \\le 5": the number is a bound on an unknown written after it
_RELATION_AFTER_RE = re.compile(r"^[\s$)}]*+" + _RELATION_SIGN + r"[\s$({]*+[A-Za-z](?![A-Za-z])")
_BOUND_AFTER_RE = re.compile(r"^[\s$)}]*+(?:%\s*+)?(?:[A-Za-z/^\d]{1,12}(?=[\s,]))?[\s,]*+(?:(?:or|if\s+not)\s+(?:even\s+)?(?:more|less|fewer|greater|higher|lower"
                             r"|above|below|over|under|so)|and\s+(?:up|above|over|higher)\b|at\s+(?:the\s+)?(?:least|most)|or\s+(?:above|below|beyond)"
                             r"|max(?:imum)?|minimum|tops)\b",  # ("5 min" is minutes)
                             re.IGNORECASE)
# "(?<![\w.])" + _NUM, with the first character first and the look back after it (the engine scans
# for the characters a number starts with instead of trying every position)
_NUM_RE = re.compile(r"[-+\u2212\d](?<![\w.].)(?:(?<=\d)|(?<=[-+\u2212])\d)[\d,]*+(?:\.\d+)?(?![\d])")
# the question asks for an extreme, which an answer may phrase as a bound ("At least 13 guests")
_EXTREME_RE = re.compile(r"\b(?:minimum|maximum|minimal|maximal|smallest|largest|fewest|at\s+most|the\s+most|upper\s+bound"
                         r"|lower\s+bound|least(?!\s+common)|greatest(?!\s+common))\b", re.IGNORECASE)


def _bound_for_one_value(answer: str, ref: str, question: str) -> bool:
    """R2.1: the answer's last statement of the reference's number is a bound on it, unless the
    question asks for an extreme or the reference is itself a relation."""
    if len(answer) > 300 or not ref or len(ref) > 60 or _INEQ_CHARS_RE.search(ref):
        return False
    last = _last_reference_number(answer, ref)
    if last is None:
        return False
    start = max(0, last.start() - 40)
    before = _BOUND_BEFORE_RE.search(answer[start : last.start()])
    if before is None and _PLAIN_NUMBER_RE.match(ref) and not _TAG_BEFORE_RE.search(answer, start, last.start()):
        before = _RELATION_BEFORE_RE.search(answer[start : last.start()])  # "x > 12" for the number 12
    if before is None and not _BOUND_AFTER_RE.match(answer[last.end() : last.end() + 40]) and not (
            _PLAIN_NUMBER_RE.match(ref) and _RELATION_AFTER_RE.match(answer[last.end() : last.end() + 40])):
        return False
    if _EXTREME_RE.search(question or ""):
        # "At least 13 guests" answers the smallest number; "The minimum is at least 42" bounds it
        head = answer[: start + before.start() if before is not None else last.start()]
        return bool(_BOUNDED_EXTREME_RE.search(head[-80:]))
    return True


_FACTOR_SPLIT_RE = re.compile(r"\\times|\\cdot|[\u00d7\u00b7*]|\bby\b|(?<=\d)\s*+x\s*+(?=\d)")
_FACTOR_RE = re.compile(r"^\s*+(\d{1,9})\s*+(?:\^\s*+\{?\s*+(\d{1,3})\s*+\}?)?\s*+$")
_NUMBER_OPERATION_RE = re.compile(r"\d\}?\s*+\^\s*+\{?\s*+\d|\\sqrt|[<>\u2264\u2265]|\\[gl]eq?(?![A-Za-z])|\\[gl]t(?![A-Za-z])"
                                  r"|\|\s*+[-+]\s*+\d|\\[lr]vert(?![A-Za-z])"  # "|-2|": the absolute value, 2
                                  r"|\\(?:log|ln|lg|exp|sin|cos|tan|sec|csc|cot|arcsin|arccos|arctan|sinh|cosh|tanh"
                                  r"|lfloor|lceil|[dt]?binom)(?![A-Za-z])|(?<![A-Za-z\\])e\s*+\^")  # "\\log_2 4" is 2
# "5!" is a factorial where a box wrote it; "Answer: 42!" in prose is an exclamation
_FACTORIAL_RE = re.compile(r"\d\}?\s*+!(?![=!])")
_BARE_BANG_RE = re.compile(r"\d!\s*+$")  # a number then "!" ending an answer
_MATH_BANG_RE = re.compile(r"\d\s*+!\s*+(?:\$|\\\)|\\\]|\})")  # "$5!$", "\\(5!\\)", "\\boxed{5!}": a factorial


def _exclaimed(x: Any, info: Any) -> bool:
    """The "!" after the answer's number is punctuation: read outside a box, and no "N!" in the
    response sits inside math."""
    return getattr(info, "method", "") != "boxed" and not _MATH_BANG_RE.search(x.response or "")
# "y = 2": a labelled answer, whose label may name another unknown than the one asked (R4.2)
_LABELLED_RE = re.compile(r"^\s*+\$?\s*+(?:[A-Za-z]|\|\s*+[A-Za-z]\s*+\|)\s*+=(?!=)")
# an option the response judges wrong ("Option B is incorrect.", "(B) is false"), and questions that
# ask for the wrong one, where saying so answers them ("Which statement is NOT true?")
_JUDGED_WRONG_RE = re.compile(
    r"^\s*+(?:(?:option|choice|answer|statement)\s++)?\(?[A-Ja-j]\)?\s++(?:is|was|seems|looks)\s++"
    r"(?:incorrect|wrong|false|not\s++(?:correct|right|true)|ruled\s++out|eliminated)\b", re.IGNORECASE)
_REJECTION_GOES_ON_RE = re.compile(r"[,;]|[.!?]\s*+\S|\b(?:but|so|thus|hence|therefore)\b", re.IGNORECASE)
_ASKS_FOR_WRONG_RE = re.compile(r"\b(?:incorrect|wrong|false|not|except|untrue|least)\b|n't\b", re.IGNORECASE)


_TRUTH_WORD_RE = re.compile(r"\b(?:(?P<t>true)|false)\b", re.IGNORECASE)


def _both_truth_words(answer: str, ref: str) -> bool:
    """R6.3: a true-or-false reference, and an answer longer than its one word that writes both "true"
    and "false" ("True that it is false.", "It is false that 7 is odd, so True."): which one it commits
    to is a reading of the sentence, not of the word a module found."""
    if len(answer) > 400 or normalize_text(ref) not in ("true", "false"):
        return False
    said = {m.group("t") is not None for m in _TRUTH_WORD_RE.finditer(answer)}
    return len(said) == 2


def _rejects_option(answer: str, x: Any) -> bool:
    """R2.5: "Option B is incorrect." rejects B where the question has options, unless it asks for
    the wrong one (the cheap test first: the options are parsed only for such an answer)."""
    m = _JUDGED_WRONG_RE.match(answer)
    if m is None or _REJECTION_GOES_ON_RE.search(answer, m.end(), m.end() + 200):
        return False  # "A is wrong, B is right.": the answer goes on to another option
    return bool(x.options and not _ASKS_FOR_WRONG_RE.search(x.question or ""))


def _rejected(answer: str, x: Any) -> str | None:
    """R2.5: the value "Pacific is incorrect." rejects (Pacific), unless the question asks for the
    wrong one ("Which spelling is wrong?"); else ``None``."""
    value = rejected_value(answer)
    return None if value is None or _ASKS_FOR_WRONG_RE.search(x.question or "") else value
_PLAIN_NUMBER_RE = re.compile(r"^\s*+\$?\s*+-?\d[\d,]*(?:\.\d+)?\s*+\$?\s*+\.?\s*$")
# the question asks for the factors themselves: a factorisation, dimensions
_FACTORS_ASKED_RE = re.compile(r"\bfactori[sz]|\bfactors\b|\bdimensions?\b|\bsize\b|\bproduct\s+of\s+primes\b", re.IGNORECASE)


def integer_factors(text: str) -> dict[int, int] | None:
    """R3.3: the factors of a product of whole numbers written out (``3 \\times 4``, ``2^3 \\cdot
    3^2``, ``3 by 4``) as base -> total exponent, or ``None`` for anything else, scientific
    notation (``3 \\times 10^8``) included. A reference kept as such a product asks for the
    factors (a factorisation, dimensions), not the value they multiply to."""
    if not text or len(text) > 80:
        return None
    t = text.replace("$", "").replace("\\,", "").replace("\\ ", " ").strip().rstrip(".")
    if not _FACTOR_SPLIT_RE.search(t):
        return None
    parts = _FACTOR_SPLIT_RE.split(t)
    if len(parts) < 2:
        return None
    out: dict[int, int] = {}
    for p in parts:
        m = _FACTOR_RE.match(p)
        if m is None:
            return None
        base, exp = int(m.group(1)), int(m.group(2) or 1)
        out[base] = out.get(base, 0) + exp
    last = _FACTOR_RE.match(parts[-1])
    if len(parts) == 2 and last is not None and last.group(1) == "10" and last.group(2):
        return None  # 3 \times 10^8: a number in scientific notation
    return out


def _factor_judgment(answer: str, ref: str, question: str, *, asked: bool) -> Judgment | None:
    """R3.3: the same factors are correct whatever their order or spelling ("3 by 4" for ``3 \\times
    4``); the product's value is not, where the question asks for the factors (or ``asked``: the
    guard, which never lets a module PASS the bare product); ``None`` where the rule is silent."""
    want = integer_factors(ref)
    if want is None:
        return None
    got = integer_factors(answer)
    if got is not None:
        return Judgment(got == want, "equal:factors" if got == want else "differ:factors")
    if _PLAIN_NUMBER_RE.match(answer) and (asked or _FACTORS_ASKED_RE.search(question or "")):
        return Judgment(False, "form:product_expected")
    return None


# the extreme itself is the subject of the bound: "the minimum is at least", "the least value is"
_BOUNDED_EXTREME_RE = re.compile(
    r"\b(?:minimum|maximum|minimal|maximal|smallest|largest|fewest|least|greatest|lowest|highest|most)\b[^.;\n]{0,40}?"
    r"(?:\b(?:is|are|was|were|equals?|must\s+be)|=)\s*+$", re.IGNORECASE)


_INEQ_CHARS_RE = re.compile(r"[<>\u2264\u2265\u2266\u2267\u2272\u2273\u226a\u226b\u2a7d\u2a7e]|\\[gl]eq?(?![A-Za-z])|\\[gl]t(?![A-Za-z])"
                            r"|\\(?:gtrsim|lesssim|gtrapprox|lessapprox|geqq|leqq|ngtr|nless|ngeq|nleq|gg|ll)(?![A-Za-z])"
                            r"|\b(?:at\s+(?:least|most)|more\s+than|less\s+than)\b",
                            re.IGNORECASE)


_DIMENSION_HINT_RE = re.compile(r"\d[^\n]{0,40}?(?:\\times|\u00d7|\*|x|\bby\b)")  # "3 cm by", "3 \\times"
_LETTER_AFTER_RE = re.compile(r"^\s*+[A-Za-z]")
_SCALE_AFTER_RE = re.compile(r"^\s*+(?:" + SCALE_WORD_PATTERN + r"|k|bn|mn"
                             r"|(?:tenth|hundredth|thousandth|millionth)s?)\b", re.IGNORECASE)  # "56 hundredths" is 0.56


def _scaled_reference_number(answer: str, ref: str) -> bool:
    """The answer's last statement of the reference's number carries a scale word the reference
    does not ("12 million" or "12 dozen apples" for 12): a module that read the digits alone
    compared another value."""
    if len(answer) > 300 or not ref or len(ref) > 60:
        return False
    rm = _NUM_RE.search(ref)
    if rm is None or _LETTER_AFTER_RE.match(ref[rm.end():]):
        return False  # "50m", "12 km", "3 million": the reference's own scale or unit
    last = _last_reference_number(answer, ref)
    if last is None:
        return False
    scale = _SCALE_AFTER_RE.match(answer[last.end() : last.end() + 16])
    if scale is None:
        return False
    scaled, nr = parse_number(answer[last.start() : last.end() + scale.end()]), parse_number(ref)
    return scaled is None or nr is None or scaled.value != nr.value  # "1.2 billion" is 1.2 \times 10^{9}


_TEMPERATURE_WORD_RE = re.compile(r"temperature|kelvin|\bheat", re.IGNORECASE)


def _kelvin_answer(answer: str, cues: Cues | None, question: str) -> bool:
    """R4.5: "300 K" is 300 kelvin, no thousand, where the question asks for kelvin or speaks of
    a temperature."""
    q = parse_quantity(answer)
    if q is None or q.unit != "kelvin":
        return False
    requested = cues.unit if cues is not None else None
    if requested and requested_unit_string(requested) in ("kelvin", "degC", "degF"):
        return True  # a temperature's unit asked: "27 K" for "in Celsius" is another unit, no thousand
    return in_unit(q, requested) if requested else bool(_TEMPERATURE_WORD_RE.search(question or ""))


def _not_one_value(answer: str, ref: str, cues: Cues | None, question: str) -> str | None:
    """R2.1 / R4.1: the answer states no single value equal to the reference's number, whatever
    its digits: a range, a bound, or the number with a scale word; the code, else ``None``."""
    if _range_for_one_value(answer, ref, cues):
        return "hedge:range"
    if _bound_for_one_value(answer, ref, question):
        return "hedge:bound"
    qualified = _qualified_number(answer, ref, question)
    if qualified:
        return qualified
    if _other_quantity_named(answer, question):
        return "differ:label"  # "The perimeter is 24." for "What is the area?" (R4.2)
    if _scaled_reference_number(answer, ref) and not _kelvin_answer(answer, cues, question):
        return "differ:scale"  # "12 million" or "12 dozen" is not 12
    if ". " in answer and not (cues is not None and cues.several) and _names_as_sentences(answer, ref):
        return "hedge:list_for_single_answer"  # "Jupiter. Saturn.": two names, each a sentence of its own
    return None


_NAME_SENTENCE_RE = re.compile(r"^(?-i:[A-Z])[a-z'-]++(?:[ \t]++(?-i:[A-Z])[a-z'-]++){0,2}$")
# a one-word sentence that is a remark, not a second name ("Jupiter. Definitely.", "Jupiter. Done.")
_REMARK_WORDS = frozenset("done thanks cheers end yes no yep nope correct right true false sure exactly indeed "
                          "certainly absolutely obviously clearly final answer".split())


def _names_as_sentences(answer: str, ref: str) -> bool:
    """R2.3: a short answer of two to four sentences, each a bare capitalised name, one of them the
    reference and another a different name ("Jupiter. Saturn."): a list where one name is asked."""
    if len(answer) > 80:
        return False
    parts = [p.strip() for p in answer.strip().rstrip(".!").split(". ")]
    if not 2 <= len(parts) <= 4 or not all(_NAME_SENTENCE_RE.match(p) for p in parts):
        return False
    names = [p for p in parts if p.lower() not in _REMARK_WORDS and p.lower() not in NOT_NOUN_WORDS
             and not p.lower().endswith("ly")]
    keys = {normalize_text(p) for p in names}
    return normalize_text(ref) in keys and len(keys) > 1


# a clause that states what the question asks as a value: "the capital is Melbourne" (R6.4)
_ASKED_IS_RE = re.compile(r"(?:^|[;.:!?]\s*+|,\s*+(?:but|and|so)\s++|\b(?:but|so)\s++)(?:the|its)\s++(?:[a-z]++\s++){0,2}?"
                          r"(?P<n>[a-z]{3,})\s++(?:is|was)\s++(?!not\b|never\b)(?P<v>[^;.,!?\n]{1,60})", re.IGNORECASE)
_NOT_ASKED_NOUNS = frozenset("one thing question reason point fact case problem word way same".split())


def _asked_thing_is_other(answer: str, ref: str, question: str) -> bool:
    """R6.4: a short answer that has a clause stating the thing the question asks (its noun is a word of
    the question, or "answer") as a value without the reference: "The capital is Sydney; Canberra is the
    largest city.", "Canberra was planned; the capital is Melbourne." The answer is that other value."""
    if len(answer) > 200 or not question:
        return False
    q = set(normalize_text(question).split())
    for m in _ASKED_IS_RE.finditer(answer):
        n = m.group("n").lower()
        if n in _NOT_ASKED_NOUNS or (n not in q and n != "answer"):
            continue
        v = m.group("v").strip()
        if v[:1].isupper() and v.split()[0].lower() not in _NOT_NAME_WORDS and not contains_answer(v, ref):
            return True  # (a name: "the hypotenuse is the side opposite the right angle, AB" describes, names no other)
    return False


_OPENING_WORDS = frozenset("hmm well ok okay easy simple wait so thus hence answer sure great good alright fine".split())


def _name_then_remark(answer: str, ref: str) -> bool:
    """R6.4: a short answer whose first sentence is a bare capitalised name other than the reference, and
    whose later sentence mentions the reference ("Gallium. Mercury is too toxic."): the answer is the
    name; the reference is only what the remark is about."""
    if len(answer) > 100:
        return False
    parts = [p.strip() for p in re.split(r"\.\s|;\s", answer.strip())]  # ("Oxygen; carbon dioxide is released.")
    first = parts[0].rstrip(".!")
    if len(parts) < 2 or not _NAME_SENTENCE_RE.match(first) or contains_answer(first, ref):
        return False
    low = first.lower()
    if low in _REMARK_WORDS or low in NOT_NOUN_WORDS or low in _OPENING_WORDS or low.endswith("ly"):
        return False
    return any(contains_answer(p, ref) for p in parts[1:])


# R4.1: words after the reference's number that make it another quantity than the one asked: a difference
# ("2000 more people than the village"), a rate ("2000 people per square mile"), a time before or after
# ("2000 years ago" for a year), a decade ("the 2000s"); "2000+" and a time bound ("before 2000",
# "since 2000") bound it (R2.1)
_COMPARED_AFTER_RE = re.compile(r"^\s*+(?:[a-z]++\s++){0,3}?(?:more|fewer|less|greater|higher|lower|larger|smaller|older|younger"
                                r"|longer|shorter|bigger|heavier|lighter|taller|faster|slower|cheaper|earlier|later)\s++"
                                r"(?:[a-z]++\s++){0,4}?than\b", re.IGNORECASE)
_COMPARISON_ASKED_RE = re.compile(r"\b(?:more|fewer|less|greater|higher|lower|larger|smaller|older|younger|longer|shorter|bigger"
                                  r"|heavier|lighter|taller|faster|slower|cheaper|earlier|later)\b[^?.]{0,60}?\bthan\b"
                                  r"|\bby\s++how\s++(?:many|much)\b|\bdifference\b|\bexceed", re.IGNORECASE)
_RATE_AFTER_RE = re.compile(r"^\s*+(?:[a-z]++\s++){0,2}?(?:per|each|every|a|an)\s++(?:square\s++|cubic\s++)?"
                            r"(?:mile|kilomet(?:er|re)|km|met(?:er|re)|acre|hectare|day|week|month|year|hour|minute|second"
                            r"|person|capita|household|student|head|unit|litre|liter|gallon|kg|kilogram|pound)s?\b"
                            r"|^\s*+(?:[a-z]++\s++){0,2}?per\b", re.IGNORECASE)
_RATE_ASKED_RE = re.compile(r"\bper\b|\brate\b|\bdensity\b|\beach\b|\bevery\b|\baverage\b|\bspeed\b|\bvelocity\b"
                            r"|\bhow\s++fast\b|/|\ba\s++(?:day|week|month|year|hour|minute)\b|\b(?:hourly|daily|weekly|monthly|yearly|annual(?:ly)?)\b"
                            r"|\bcost\b|\bpays?\b|\bearns?\b|\bcharges?\b", re.IGNORECASE)
_OFFSET_AFTER_RE = re.compile(r"^\s*+(?:years?|months?|weeks?|days?|decades?|centuries|century|millennia|hours?|minutes?)\s++"
                              r"(?:ago|later|earlier|before|after|prior|from\s++now|since|hence)\b", re.IGNORECASE)
_OFFSET_ASKED_RE = re.compile(r"\bago\b|\bhow\s++(?:many|long)\b|\blater\b|\bearlier\b|\bafter\b|\bbefore\b|\belapsed\b",
                              re.IGNORECASE)
_PERCENT_AFTER_RE = re.compile(r"^\s*+(?:%|\\%|percent\b|per\s*+cent\b|pct\b)", re.IGNORECASE)
_PERCENT_ASKED_RE = re.compile(r"%|percent|per\s*+cent|proportion|share|fraction|rate|ratio|probability|chance|likelihood",
                               re.IGNORECASE)
_TURNING_LEAD_RE = re.compile(r"\b(?:before|until|till|shy\s++of)\s++(?:turning|reaching|(?:he|she|they|it)\s++turned)\s*+$",
                              re.IGNORECASE)
# a condition or a past state in the number's own clause: "If Mars had 2 moons", "Mars used to have 2 moons"
_CONDITION_LEAD_RE = re.compile(r"(?:^|[,;.:!?]\s)(?:[^,;.:!?]*?\s)?(?:if|unless|suppose|supposing|used\s++to)\s[^,;.:!?]*$",
                                re.IGNORECASE)
_CONDITION_ASKED_RE = re.compile(r"\b(?:if|unless|suppose|supposing|assuming|used\s++to|originally|formerly|would|were)\b",
                                 re.IGNORECASE)
# a count of groups, not of the things asked: "8 pairs", "4 sets of" ("12 dozen" is a scale: differ:scale)
_GROUP_AFTER_RE = re.compile(r"^\s*+(?P<g>pairs?|couples?|trios?|quartets?|(?:sets?|groups?|packs?|boxes|box|batch(?:es)?)"
                             r"\s++of)\b", re.IGNORECASE)
_DECADE_AFTER_RE = re.compile(r"^(?:['\u2019]?s)\b")
_PLUS_AFTER_RE = re.compile(r"^\+(?!\s*+[\d(\\$]|\s*+[a-zA-Z](?![a-zA-Z]))")  # ("2000 + x" is a sum)
_TIME_BOUND_BEFORE_RE = re.compile(r"\b(?:before|after|since|until|till|by|prior\s++to|no\s++later\s++than|no\s++earlier\s++than"
                                   r"|as\s++(?:early|late)\s++as|by\s++the\s++(?:end|start)\s++of)\s++(?:the\s++year\s++)?$",
                                   re.IGNORECASE)


_YEAR_RE = re.compile(r"^(?:1[0-9]|20|21)\d\d$")  # a number a time bound may be about ("since 14 were broken" is no time)


def _qualified_number(answer: str, ref: str, question: str) -> str | None:
    """R4.1 / R2.1: the answer's last statement of the reference's number is qualified by the words
    around it into another quantity (see :data:`_COMPARED_AFTER_RE`), unless the question asks for
    that quantity ("How many more ... than ...?", "How many per ...?", "How many years ago ...?"):
    the reason, else ``None``."""
    if len(answer) > 300 or not ref or len(ref) > 40 or not _PLAIN_NUMBER_RE.match(ref.strip()):
        return None
    last = _last_reference_number(answer, ref)
    if last is None:
        return None
    end = last.start() + len(last.group().rstrip(","))
    after = answer[end: end + 60]
    q = question or ""
    if _DECADE_AFTER_RE.match(after):
        return "differ:decade"  # "the 2000s", "the 1990's": ten years, not one
    if _PLUS_AFTER_RE.match(after):
        return "hedge:bound"  # "2000+ people": at least 2000
    if after[:1] in (",", ";"):
        after = ""  # "There are 12, more than the 14 we expected.": a clause of its own after the number
    if _COMPARED_AFTER_RE.match(after) and not _COMPARISON_ASKED_RE.search(q):
        return "differ:comparison"
    if _RATE_AFTER_RE.match(after) and not _RATE_ASKED_RE.search(q):
        return "differ:rate"
    if _OFFSET_AFTER_RE.match(after) and not _OFFSET_ASKED_RE.search(q):
        return "differ:time_offset"
    if _PERCENT_AFTER_RE.match(after) and not _PERCENT_ASKED_RE.search(q) and "%" not in ref:
        return "differ:number"  # "It has 2% of Jupiter's moons." for 2 moons: a share, 0.02 of something
    g = _GROUP_AFTER_RE.match(after)
    if g and not re.search(r"\b" + g.group("g")[:4], q, re.IGNORECASE):
        return "differ:group_count"  # "8 pairs" for 8 legs: a count of pairs, 16 legs
    lead = answer[max(0, last.start() - 60): last.start()]
    if _TURNING_LEAD_RE.search(lead):
        return "hedge:bound"  # "He died shortly before turning 35.": an age he did not reach (R2.1)
    if _CONDITION_LEAD_RE.search(lead) and not _CONDITION_ASKED_RE.search(q):
        return "hedge:condition"  # "If Mars had 2 moons, ...", "Mars used to have 2 moons.": no statement of the value now
    if _YEAR_RE.match(last.group().rstrip(",")) and _TIME_BOUND_BEFORE_RE.search(lead[-40:]) \
            and not _NOT_UNTIL_LEAD_RE.search(lead) and not re.search(
            r"\b(?:before|after|since|until|by)\b", q, re.IGNORECASE):
        return "hedge:bound"  # "It happened before 2000.": a bound on the year ("not until 1925" starts it: R2.5)
    return None


def _last_reference_number(answer: str, ref: str) -> re.Match[str] | None:
    """The answer's last statement of the reference's (first) number, as a match, or ``None``."""
    rm = _NUM_RE.search(ref)
    if rm is None:
        return None
    want = _num_key(rm.group())
    last = None
    for m in _NUM_RE.finditer(answer):
        if _num_key(m.group()) == want:
            last = m
    return last


def _num_key(t: str) -> str:
    t = t.replace(",", "").replace("\u2212", "-").lstrip("+")
    return t.rstrip("0").rstrip(".") if "." in t else t


_LABELLED_CANDIDATE_RE = re.compile(r"(?:(?<=[\s:;,])|^)\(?([A-J])\)[ \t]++(?=\S)")
_NUMBERED_CANDIDATE_RE = re.compile(
    r"\b(?:option|candidate|possibility|answer|guess)[ \t]*+#?[ \t]*+(\d)[ \t]*+[:.)\u2014-]"
    r"|\b(first|second|third|other)[ \t]++(?:answer|option|candidate|guess|possibility)[ \t]*+[:\u2014-]", re.IGNORECASE)
_WEIGHTED_RE = re.compile(r"\(\s*+~?\d{1,3}(?:\.\d++)?+\s*+%[^()\n]{0,30}\)")


def _listed_with_others(x: Any, answer: str) -> bool:
    """R2.3: the reference is one item of a comma list of other candidates, where one answer is asked."""
    ref = x.ref
    if not ref or "," not in answer or len(answer) > 300 or several_allowed(x) or parse_bool(ref) is not None:
        return False  # "Yes, zero is even, since ...": a boolean with its reason is no list
    return any(_has_peer(answer, alias, x.question or "") for alias in reference_aliases(ref, x.question or "")[:4])


# R1.1: a sentence that opens with one number, set off by a comma, and names the reference's number after it
# ("There are 12, more than the 14 we expected."): the first is what it answers, the other is context; a
# module that read the later one compared the wrong number. A year or a day of a date opening the sentence
# ("as of 2021, ...", "On July 4, 1960, ...") is context itself.
_PROSE_NUMBER_RE = re.compile(r"(?<![\w.^_{\\])(?:\d{1,3}(?:,\d{3})++(?!\d)|\d++)(?:\.\d++)?+(?![\w^])")
_COMMA_WORD_RE = re.compile(r",\s++[A-Za-z]")
_MONTH_BEFORE_RE = re.compile(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*+$", re.IGNORECASE)


def _other_number_first(answer: str, ref: str) -> bool:
    if len(answer) > 300 or "," not in answer:
        return False
    nr = parse_number(ref)
    if nr is None or (nr.kind == "integer" and 1000 <= nr.value <= 2999 and len(ref.strip()) == 4):
        return False  # a year: a sentence of dates and counts ("in Season 5, which began in 1994") says when
    found = list(_PROSE_NUMBER_RE.finditer(answer))
    if len(found) < 2 or not _COMMA_WORD_RE.match(answer, found[0].end()):
        return False
    first = found[0].group(0).replace(",", "")
    if (len(first) == 4 and first.isdigit() and 1000 <= int(first) <= 2999) \
            or _MONTH_BEFORE_RE.search(answer, max(0, found[0].start() - 12), found[0].start()):
        return False
    n1 = parse_number(first)
    if n1 is None or n1.value == nr.value:
        return False
    return any((n := parse_number(m.group(0).replace(",", ""))) is not None and n.value == nr.value for m in found[1:])


# R1.1: after the reference's number, in its sentence, a step's result or a "then" before another number
# ("We get 12, then add 2 to reach 14.", "12 minus 3 leaves 9", "We get 12, then 14."): the working went on
# past the reference, which is no committed answer however the sentence's last value is read
_RESULT_AFTER_RE = re.compile(r"(?:" + WORK_RESULT + r"|(?<![\w-])then)[ \t]++(?:(?:about|only|just|exactly|a[ \t]++total[ \t]++of)"
                              r"[ \t]++)?\$?(?P<n>[-+\u2212]?(?:\d{1,3}(?:,\d{3})++(?!\d)|\d++)(?:\.\d++)?+)(?![\w^])", re.IGNORECASE)
_SENTENCE_END_RE = re.compile(r"[.!?](?=\s|$)(?<!\d\.)|\n")


def _result_after(answer: str, ref: str) -> bool:
    """The reference's number is in the answer and, later in its sentence, a step of working gives
    another number (see ``_RESULT_AFTER_RE``)."""
    if len(answer) > 400 or not ("then" in answer.lower() or re.search(WORK_RESULT, answer, re.IGNORECASE)):
        return False
    nr = parse_number(ref)
    if nr is None:
        return False
    text = answer.replace("$", "")
    for m in _PROSE_NUMBER_RE.finditer(text):
        n = parse_number(m.group(0).replace(",", ""))
        if n is None or n.value != nr.value:
            continue
        end = _SENTENCE_END_RE.search(text, m.end())
        for r in _RESULT_AFTER_RE.finditer(text, m.end(), end.start() if end else len(text)):
            later = parse_number(r.group("n").replace(",", "").replace("\u2212", "-"))
            if later is not None and later.value != nr.value:
                return True
    return False


_MAX_MENTIONS = 20  # the mentions of a reference these readings look at, each
_RAISED_RE = re.compile(r"[ \t]*+(?:\$[ \t]*+)?(?:\^|!(?!=))")


def _every_mention(answer: str, alias: str, holds: Any) -> bool:
    """Whether ``holds(k)`` is true at every position ``k`` where ``alias`` starts in ``answer``
    (there is at least one); ``False`` for a reference mentioned more than :data:`_MAX_MENTIONS`
    times (not decided by these readings)."""
    k = answer.find(alias)
    if k < 0:
        return False
    for _ in range(_MAX_MENTIONS):
        if k < 0:
            return True
        if not holds(k):
            return False
        k = answer.find(alias, k + 1)
    return k < 0


def _raised_mention(answer: str, alias: str) -> bool:
    """R1.1: every mention of a bracketed or numeric reference in the answer is the base of a power or
    a factorial ("$(1, 2)^2$", "12^3", "5!" for 5): the answer states that operation's value."""
    if not alias or alias[-1:] not in ")]}" and not alias[-1:].isdigit() or len(answer) > 2000:
        return False
    return _every_mention(answer, alias, lambda k: _RAISED_RE.match(answer, k + len(alias)) is not None)


_SET_BUILDER_RE = re.compile(r"\\mid|\\vert|\||:|\\colon")
_SET_OPEN_RE = re.compile(r"\\left\\\{|\\\{|\\right\\\}|\\\}")


def _in_larger_set(answer: str, alias: str) -> bool:
    """R2.4: every mention of ``alias`` in the answer sits inside a set the answer writes (``\\{ ... \\}``)
    that holds more than it: ``\\{\\emptyset, \\{\\emptyset\\}\\}`` holds the text of ``\\{\\emptyset\\}`` and is
    another set, never the reference by containment."""
    if "\\{" not in answer or len(answer) > 2000 or not alias:
        return False

    def inside_larger(k: int) -> bool:
        stack: list[int] = []  # where the sets open before the mention, innermost last
        for m in _SET_OPEN_RE.finditer(answer, 0, k):
            if m.group(0).endswith("{"):
                stack.append(m.end())
            elif stack:
                stack.pop()
        if not stack:
            return False  # a mention outside every set
        start = stack[-1]
        depth, end = 1, -1
        for m in _SET_OPEN_RE.finditer(answer, k + len(alias)):
            depth += 1 if m.group(0).endswith("{") else -1
            if depth == 0:
                end = m.start()
                break
        inner = answer[start:end] if end >= 0 else answer[start:]
        # "\\{ 1, 2 \\}" for "1, 2": the set of the reference's elements; "\\{ r \\mid 0 \\leq r \\}": a
        # set written by its condition, not a list of elements beside the reference
        return not (_squash(inner) == _squash(alias) or "," not in inner.replace(alias, "", 1)
                    or _SET_BUILDER_RE.search(inner))

    return _every_mention(answer, alias, inside_larger)


_TWO_NAMES_RE = re.compile(r"^(?P<a>" + NAME_PATTERN + r")[ \t]*+(?P<sep>[,;])[ \t]++(?P<b>" + NAME_PATTERN
                           + r")[ \t]*+[.!]?$")


_NAME_IN_NAME_RE = re.compile(r"^(?P<a>" + NAME_PATTERN + r")[ \t]++in[ \t]++(?:the[ \t]++)?(?P<b>" + NAME_PATTERN + r")[ \t]*+[.!]?$")


def _second_of_two_names(answer: str, ref: str, question: str) -> bool:
    """R2.3: the answer is two capitalised names joined by a comma, the question asks for a place,
    and the reference is the second name alone: "Norfolk, Virginia" for Virginia names a place and
    its region, or two peers; only a judge can tell them apart, so no module passes it (a reference
    that is the first name, "Paris, France" for Paris, is the usual apposition and stays; where no
    place is asked, two names are a list: ``_two_peer_names``)."""
    if len(answer) > 80 or not _PLACE_ASKED_RE.search(question):
        return False
    m = _TWO_NAMES_RE.match(answer.strip()) if "," in answer else None
    if m is None or m.group("sep") != ",":
        m = _NAME_IN_NAME_RE.match(answer.strip())  # "Belconnen in Canberra": a place and its region the same way
        if m is None:
            return False
    r = normalize_text(ref)
    first, second = normalize_text(m.group("a")), normalize_text(m.group("b").rstrip(".!"))
    return bool(r) and second == r and first not in r


def _symbolic(answer: str) -> bool:
    """The answer is a formula in unknowns (``x - 1``, ``-x = 2``), not a number inside words."""
    if len(answer) > _MAX_RESTATEMENT_CHARS or not _OPERATOR_RE.search(answer):
        return False
    pa = parse_answer(answer)
    if pa is None or pa.kind not in ("expression", "equation"):
        return False
    v = pa.value
    try:
        return bool(v.lhs.free_symbols | v.rhs.free_symbols) if pa.kind == "equation" else bool(v.free_symbols)
    except AttributeError:
        return False


def _cut_off(info: Any) -> bool:
    """R1.3: the response stops mid-way (inside a math span it opened) and its answer was read
    from the text itself, not behind a marker written before the cut."""
    return info is not None and info.truncated and info.method in ("whole", "last_line")


def _echoed(x: Any) -> bool:
    """R2.6: the response only copies the question. The echo test runs only where an echo is
    possible (an answer read from the whole text or its last line, never behind a marker)."""
    info = x.answer_info
    return info is not None and info.method in ("whole", "last_line") and bool(x.question) and info.echo


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH_RE = (r"(?P<{0}>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
             r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_DATE_RE = re.compile(
    r"\b(?P<d1>\d{1,2})(?:st|nd|rd|th)?\s++(?:of\s++)?" + _MONTH_RE.format("m1") + r"\.?,?\s++(?P<y1>\d{3,4})\b"
    r"|\b" + _MONTH_RE.format("m2") + r"\.?\s++(?P<d2>\d{1,2})(?:st|nd|rd|th)?,?\s++(?P<y2>\d{3,4})\b"
    r"|\b(?P<y3>\d{4})-(?P<m3>\d{2})-(?P<d3>\d{2})\b",
    re.IGNORECASE,
)
_DATE_WORDS = tuple(m[:3] for m in _MONTHS)


def full_dates(text: str) -> set[tuple[int, int, int]]:
    """The full dates a text writes, as (year, month, day): "21 July 1979", "July 21, 1979",
    "1979-07-21" (day and month both present; a year alone is no full date)."""
    if not text or not any(ch.isdigit() for ch in text):
        return set()
    low = text.lower()
    if "-" not in text and not any(m in low for m in _DATE_WORDS):
        return set()
    out: set[tuple[int, int, int]] = set()
    for m in _DATE_RE.finditer(text):
        if m.group("y3"):
            y, mo, d = int(m.group("y3")), int(m.group("m3")), int(m.group("d3"))
        else:
            name = (m.group("m1") or m.group("m2")).lower()
            mo = next(k for k, full in enumerate(_MONTHS, 1) if full.startswith(name[:3]))
            y, d = int(m.group("y1") or m.group("y2")), int(m.group("d1") or m.group("d2"))
        if 1 <= mo <= 12 and 1 <= d <= 31:
            out.add((y, mo, d))
    return out


def date_conflicts(answer: str, reference: str) -> bool:
    """R6.4: the reference (or one of its aliases) is a full date and the answer writes full
    dates of that year, none of them the reference's: "July 10, 1979" does not answer
    ``1979/21 July 1979``, although it holds the year. (A date of another year is left to the
    other aliases: ``2018/March 12, 2013`` names two events.)"""
    ref_dates = full_dates(reference)
    if not ref_dates:
        return False
    ans_dates = full_dates(answer)
    years = {y for y, _m, _d in ref_dates}
    same_year = {d for d in ans_dates if d[0] in years}
    return bool(same_year) and same_year.isdisjoint(ref_dates)


def reference_stated(x: Any, phrase: str, answer: str | None = None) -> bool:
    """R6.4: ``phrase`` (a reference or one of its aliases) is the answer the response states:
    in a short answer not negated or offered beside a peer; in a paragraph, in its first or last
    sentence; not merely a phrase the question already holds."""
    a = x.answer if answer is None else answer
    if not a or not phrase or not contains_answer(a, phrase):
        return False
    if len(a.split()) > _SHORT_STATEMENT_WORDS and x.question and contains_answer(x.question, phrase):
        return False
    if _has_peer(a, phrase, x.question or ""):
        return False
    if ". " in a and _names_as_sentences(a, phrase) and not (x.cues is not None and x.cues.several):
        return False  # "Jupiter. Saturn.": a second name in a sentence of its own
    if (". " in a or "; " in a) and _name_then_remark(a, phrase):
        return False  # "Gallium. Mercury is too toxic.": the name first, the phrase in a remark after it
    if phrase[:1].isalpha() and _asked_thing_is_other(a, phrase, x.question or ""):
        return False  # "Canberra was planned; the capital is Melbourne.": the asked thing stated as another
    if name_extended(a, phrase):
        return False
    if date_conflicts(a, x.ref or ""):
        return False
    return bool(_stated_in(a, phrase, x.question or ""))


# words that start a sentence or a statement, not a name ("In Canberra.", "Answer Canberra")
_NOT_NAME_WORDS = frozenset(
    "a an the in at on of to by for from with and or but nor so thus hence therefore it its it's is was are were "
    "this that these those my our your his her their yes no answer final correct i we you he she they as".split())
_NAME_WORD_RE = re.compile(r"^(?:[A-Z][\w'’-]*|[A-Z]\.)$")
_AFTER_NAME_RE = re.compile(r"^(?:\s(?P<w>[A-Z][\w'’-]*)|,\s*(?P<abbr>[A-Z]\.(?:[A-Z]\.?)+))")


_HYPHEN_AFTER_RE = re.compile(r"^-[A-Za-z]")
_HYPHEN_BEFORE_RE = re.compile(r"[A-Za-z]-$")


def _hyphen_compound(answer: str, phrase: str) -> bool:
    """R6.4: the (first) mention of a word phrase is joined by a hyphen to another word ("Canberra-Queanbeyan",
    "non-Euclidean", "great-grandmother"): a compound, another thing than the phrase."""
    span = _find_ignoring_case(answer, phrase)
    if span is None:
        return False
    before, after = answer[: span[0]], answer[span[1]:]
    return bool((_HYPHEN_AFTER_RE.match(after) and phrase[-1:].isalpha())
                or (_HYPHEN_BEFORE_RE.search(before) and phrase[:1].isalpha()))


def name_extended(answer: str, phrase: str) -> bool:
    """R6.4: the phrase is part of a longer name in the answer, so the answer may name another
    thing: "Booker T. Washington" or "Washington, D.C." beside ``Washington``, "New Canberra"
    beside ``Canberra``. A capitalised word (or an initial) right before or after it, or a comma
    and an abbreviation after it, extends it; a word that starts a statement ("In", "The") does not."""
    span = _find_ignoring_case(answer, phrase)
    if span is None:
        return False
    if _hyphen_compound(answer, phrase):
        return True  # "Canberra-Queanbeyan", "Austria-Hungary", "non-Euclidean": a compound of the word, another thing
    before, after = answer[: span[0]], answer[span[1]:]
    if before.endswith(" "):
        words = before.split()
        w = words[-1] if words else ""
        if _NAME_WORD_RE.match(w) and w.lower().rstrip(".") not in _NOT_NAME_WORDS and not w.endswith(("'s", "\u2019s")):
            return True
    m = _AFTER_NAME_RE.match(after)
    return bool(m and (m.group("abbr") or m.group("w").lower() not in _NOT_NAME_WORDS))


def invalid_reason(x: Any) -> str | None:
    """Why the response commits to no answer a module may compare (R1.2, R1.3, R2.1-R2.5), or
    ``None``: no answer, a retraction with nothing after it, only a negation, alternatives or a
    list where one value is asked. The invalid-answer guard FAILs with it."""
    c = x.commitment
    info = x.answer_info
    if c is None or c.answer is None:
        return _no_answer_reason(x, c, info)
    if c.several and not several_allowed(x):
        first = c.candidates[0]
        if all(_values_agree(first, k) or text_match(first, k) for k in c.candidates[1:]):
            return None
        if c.final_answers:
            return "hedge:multiple_final_answers"
        return "hedge:alternatives" if c.joiner == "or" else "hedge:list_for_single_answer"
    return None


# ----------------------------------------------------------------------------- references
_TEXT_ALIAS_RE = re.compile(r"(?<!\s)\s*+(?:/|;|\|)\s*|(?<!\s)\s++or\s+", re.IGNORECASE)


def reference_values(ref: str, cues: Cues | None = None) -> tuple[str, ...]:
    """The values a reference holds: several for ``1, 4``, ``\\{2, 9\\}``-free lists, ``x = 1 or
    x = 4``; one for prose (``Paris, France``) and for any single value."""
    if not ref:
        return ()
    cands, joiner, _ = split_candidates(ref, keep_repeats=True)
    if joiner == "single" or len(cands) < 2:
        return (ref,)
    if joiner == "or" and not _mathy(ref):
        return (ref,)  # "tea or coffee": aliases of one answer, see reference_aliases
    labels = [strip_label(c) for c in cands]
    if len({lab for lab, _ in labels}) == 1 and labels[0][0] is not None:
        cands = tuple(v for _, v in labels)
    return cands


def reference_aliases(ref: str, question: str = "") -> tuple[str, ...]:
    """Accepted spellings of a reference: ``Humble Pie/HUMBLE PIE``, ``7/seven``, ``tea or coffee``.

    A slash is a quotient or a unit, not a list of aliases, when the reference is a number, a
    quantity or LaTeX (``1/2``, ``90 km/h``, ``\\frac{a}{b}``); a part must be words for the
    reference to be read as aliases. Whole numbers joined by slashes are alternatives
    (``1984/2010``) when the question asks a plain-language count or year, not mathematics
    (:func:`numeric_aliases`)."""
    if "/" not in ref and ";" not in ref and "|" not in ref and " or " not in ref.lower():
        element = element_aliases(ref, question) if len(ref) <= 40 else ()
        if element:  # "Na" and "sodium" (R6.1 keeps the symbol's case); not a writing the question gives
            element = tuple(e for e in element if not contains_answer(question, e))
        return (ref, *element) if element else (ref,)
    numeric = numeric_aliases(ref, question)
    if numeric:
        return numeric
    if "\\" in ref or "$" in ref or parse_number(ref) is not None or _is_quantity(ref):
        return (ref,)
    parts = [p.strip() for p in _TEXT_ALIAS_RE.split(ref) if p and p.strip()]
    if len(parts) < 2 or not any(_WORDY_RE.search(p) for p in parts):
        return (ref,)
    return tuple(parts)


_WORDY_RE = re.compile(r"[^\W\d_]{2,}")
_INTEGER_SLASHES_RE = re.compile(r"^\s*\d{1,6}(?:\s*/\s*\d{1,6})+\s*$")
_YEAR_PART = r"\d{3,4}(?:\s*[-\u2013]\s*\d{2,4})?\s*,?"
_YEAR_SLASHES_RE = re.compile(r"^\s*" + _YEAR_PART + r"(?:\s*/\s*" + _YEAR_PART + r")+\s*$")
_PLAIN_COUNT_QUESTION_RE = re.compile(
    r"^\s*(?:when|what\s+year|in\s+what\s+year|which\s+year|in\s+which\s+year|how\s+many|how\s+old|how\s+long|"
    r"what\s+number|how\s+much)\b",
    re.IGNORECASE,
)


def numeric_aliases(ref: str, question: str = "") -> tuple[str, ...]:
    """``("1984", "2010")`` for a reference ``1984/2010`` to "when did the film come out": whole
    numbers joined by slashes list alternatives where the question asks, in plain language, for a
    year or a count (no mathematics in it); three numbers or more are always alternatives. Else
    ``()`` (``3/4`` to "what fraction ..." is a quotient)."""
    if not _INTEGER_SLASHES_RE.match(ref):
        if not _YEAR_SLASHES_RE.match(ref) or not _PLAIN_COUNT_QUESTION_RE.match(question or ""):
            return ()
        # "2015,/2015/2014\u201315/2016" to "when did ...": years and seasons, a stray comma dropped
        return tuple(dict.fromkeys(p.strip().rstrip(",").strip() for p in ref.split("/") if p.strip().rstrip(",")))
    parts = tuple(p.strip() for p in ref.split("/"))
    if len(parts) >= 3:
        return parts
    q = question or ""
    if not q or "$" in q or "\\" in q or re.search(r"\d\s*[-+*/^=]\s*\d|\bfraction|\bratio|\bprobab|\bdivide|\bquotient", q,
                                                 re.IGNORECASE):
        return ()
    return parts if _PLAIN_COUNT_QUESTION_RE.match(q) else ()


def _is_quantity(s: str) -> bool:
    return parse_quantity(s) is not None


_MATHY_RE = re.compile(r"[\d\\^_=<>+*]|(?:^|[\s,(])[a-zA-Z](?:$|[\s,)])")


def _mathy(s: str) -> bool:
    return bool(_MATHY_RE.search(s))


# R1.2: "The perimeter is 12, and the area is 16." for "What is its area?": statements of several
# named quantities, one of them the one asked for
_NAMED_CLAUSE_RE = re.compile(
    r"^(?:(?:so|thus|therefore|hence)\b[ \t,]*+)?(?:the|its|their|his|her)\s++(?P<noun>[a-z]++(?:[ \t]++[a-z]++){0,2}?)"
    r"\s++(?:is|are|was|were|equals|=)\s++(?P<v>\S[^,;]{0,60}?)[ \t]*+\.?$", re.IGNORECASE)
_CLAUSE_SPLIT_ASKED_RE = re.compile(r"[ \t]*+(?:;|,(?:[ \t]*+and\b)?|(?<=[ \t])and(?=[ \t]++(?:the|its|their|his|her)\b))[ \t]*+",
                                    re.IGNORECASE)
_ASKED_NOUN_RE = re.compile(
    r"\b(?:what\s+(?:is|was|are|were|will\s+be|would\s+be)|what'?s|find|compute|calculate|determine|give|state)"
    r"\s++(?:the\s++)?(?:(?:its|their|his|her)\s++)?(?P<noun>[a-z]++(?:[ \t]++[a-z]++){0,2}?)"
    r"(?=[ \t]*+(?:\?|\.|,|$)|[ \t]++(?:of|in|for|to|that|when|if|after|at)\b)", re.IGNORECASE)
_MAX_NAMED_CLAUSES = 4


def asked_statement(answer: str, question: str) -> str | None:
    """R1.2: of a sentence that states several named quantities ("The perimeter is 12, and the
    area is 16."), the one statement that names the quantity the question asks for ("What is its
    area?"): ``"the area is 16"``. ``None`` unless every part is such a statement, their
    quantities differ, and exactly one is the asked one (its last word is the asked noun's last
    word: "total cost" answers "What is the cost?")."""
    if not answer or not question or len(answer) > 300 or "\n" in answer or not (
            " and " in answer or "," in answer or ";" in answer):
        return None
    low = answer.lower()
    if low.count(" is ") + low.count(" are ") + low.count("=") + low.count(" was ") < 2:
        return None
    parts = [p for p in _CLAUSE_SPLIT_ASKED_RE.split(answer.strip().rstrip(".!")) if p]
    if not 2 <= len(parts) <= _MAX_NAMED_CLAUSES:
        return None
    clauses = [_NAMED_CLAUSE_RE.match(p.strip()) for p in parts]
    if not all(clauses):
        return None
    heads = [m.group("noun").lower().split()[-1] for m in clauses]  # type: ignore[union-attr]
    if len(set(heads)) != len(heads):
        return None  # "the area is 12, the area is 16": two values of one quantity, a hedge
    asked = [m.group("noun").lower().split()[-1] for m in _ASKED_NOUN_RE.finditer(question[-400:])]
    if not asked:
        return None
    hits = [k for k, h in enumerate(heads) if h == asked[-1]]
    return parts[hits[0]].strip() if len(hits) == 1 else None


# R4.2: quantities a statement may name ("The perimeter is 24."), each with the words that name the same
# quantity; a statement naming one where the question asks for another gives another quantity's value
_QUANTITY_GROUPS = ("area", "perimeter", "circumference", "radius", "diameter", "volume", "height|altitude", "width|breadth",
                    "length|distance", "depth", "mass|weight", "density", "speed|velocity", "acceleration", "mean|average",
                    "median", "mode", "sum|total", "product", "difference", "quotient", "remainder", "probability|chance",
                    "slope|gradient", "temperature", "pressure", "force", "energy", "power", "frequency", "wavelength",
                    "voltage", "current", "resistance", "age", "cost|price", "profit", "revenue", "discriminant",
                    "determinant", "variance", "deviation", "intercept", "amplitude", "period")
_QUANTITY_GROUP = {w: k for k, g in enumerate(_QUANTITY_GROUPS) for w in g.split("|")}


def _other_quantity_named(answer: str, question: str) -> bool:
    """R4.2: the answer is one statement of a named quantity ("The perimeter is 24.") and the question
    asks for another one ("What is the area of the rectangle?"); both nouns must be quantities of
    :data:`_QUANTITY_GROUPS` (a word of the same group names the same quantity: "the distance" answers
    "What is the length ...?"), so a noun the list does not know decides nothing."""
    if not answer or not question or len(answer) > 120 or " and " in answer or ";" in answer:
        return False
    m = _NAMED_CLAUSE_RE.match(answer.strip().rstrip(".!"))
    if m is None:
        return False
    said = _QUANTITY_GROUP.get(m.group("noun").lower().split()[-1])
    if said is None:
        return False
    asked = [a.group("noun").lower().split() for a in _ASKED_NOUN_RE.finditer(question[-400:])]
    want = _QUANTITY_GROUP.get(asked[-1][-1]) if asked else None
    # ("The total is 1.234 kg." answers "What is the total mass?": a word of the asked phrase)
    return want is not None and want != said and said not in {_QUANTITY_GROUP.get(w) for w in asked[-1]}


def several_allowed(x: Any) -> bool:
    """Whether the question asks for several answers or the reference holds several (R2.4)."""
    cues = x.cues
    if cues is not None and cues.several:
        return True
    ref = x.ref
    if not ref:
        return False
    if len(reference_values(ref, cues)) > 1:
        return True
    pr = x.parsed_ref
    return pr is not None and pr.kind in ("set", "tuple") and len(getattr(pr.value, "items", ())) > 1


# "3 and 1/2": a whole number and a proper fraction joined by "and" (R4.1)
_MIXED_AND_RE = re.compile(r"(?<![\w.,/])(?P<w>\d{1,9})[ \t]++and[ \t]++(?P<p>\d{1,9})[ \t]*+/[ \t]*+(?P<q>\d{1,9})(?![\w.,/])")


def question_commitment(c: Any, x: Any) -> Any:
    """The commitment ``c`` of the triple ``x`` as the question reads it: each reading below in
    turn (a mixed number with "and", a list under one label, a number with its working in
    parentheses, a temperature's scale letter); each returns ``c`` unchanged when it does not apply."""
    for read in _QUESTION_READINGS:
        c = read(c, x)
    return c


def mixed_number_commitment(c: Any, x: Any) -> Any:
    """R4.1: "3 and 1/2" (a whole number, "and", a proper fraction) is the mixed number 3 1/2
    where one value is asked, not the list 3, 1/2; where the question asks for several answers or
    the reference holds several, it stays a list (R2.4). ``c`` unchanged when there is nothing to read."""
    text = getattr(c, "text", None) or getattr(c, "answer", None)
    if not text or " and " not in text or "/" not in text or len(text) > 200 or c.final_answers:
        return c

    def mixed(m: re.Match[str]) -> str:
        p, q = int(m.group("p")), int(m.group("q"))
        return f"{m.group('w')} {p}/{q}" if 0 < p < q else m.group()

    new = _MIXED_AND_RE.sub(mixed, text)
    if new == text or several_allowed(x):
        return c
    cands, joiner, hedged = split_candidates(new)
    if joiner != "single" or len(cands) != 1:
        return c  # "3 and 1/2, or 4": another candidate still
    return replace(c, answer=cands[0], candidates=cands, joiner="single", hedged=c.hedged or hedged, text=new,
                   items=cands)


# "x=2,3": one label over values joined by commas with no space
_LABELLED_COMMA_LIST_RE = re.compile(
    r"^[ \t]*+\$?[ \t]*+(?P<label>[A-Za-z](?:_\{?\w{1,3}\}?)?[ \t]*+=[ \t]*+)?"
    r"(?P<list>[-+\u2212]?\d{1,9}(?:\.\d{1,9})?(?:,[-+\u2212]?\d{1,9}(?:\.\d{1,9})?){1,20})[ \t]*+\$?[ \t]*+\.?[ \t]*+$")


def comma_list_commitment(c: Any, x: Any) -> Any:
    """R2.4 / R4.1: "x=2,3" or "2,3" (commas between digits, no space) is the list 2, 3 where the
    question asks for several answers and the texts write no decimal commas (English text, or
    decimal points elsewhere); a comma before three digits may group thousands (``2,300``) and is
    left to the number reader, and a reference written the same way (``0,1``) is read as the
    answer is. ``c`` unchanged otherwise."""
    if c is None or c.answer is None or c.several or c.final_answers or not c.candidates:
        return c
    one = c.candidates[0]
    if "," not in one or len(one) > 200:
        return c
    m = _LABELLED_COMMA_LIST_RE.match(one)
    if m is None:
        return c
    groups = m.group("list").split(",")
    if any(re.fullmatch(r"\d{3}(?:\.\d+)?", g) for g in groups[1:]):
        return c  # "x = 2,300": thousands, perhaps
    ref = x.ref or ""
    rm = _LABELLED_COMMA_LIST_RE.match(ref) if "," in ref else None
    if rm is not None:
        return c  # the reference writes its values the same way ("0,1"): both are read alike
    cues = x.cues
    if cues is None or not cues.several:
        return c  # one value asked: "2,3" is a number, read by the digit-group rules
    texts = " ".join(t for t in (x.question, x.reference, x.response) if t)
    if _comma_convention(texts, m.group("list")) != "point":
        return c  # decimal commas in use, or no evidence: not read as a list
    new = (m.group("label") or "") + ", ".join(groups)
    cands, joiner, _hedged = split_candidates(new)
    if joiner != "and" or len(cands) < 2:
        return c
    return replace(c, answer=", ".join(cands), candidates=cands, joiner="and", text=new, items=cands)


# "42 (6 × 7)": a number, then its working in parentheses (digits, operators, an equals sign)
_WORKED_PAREN_RE = re.compile(
    r"^[ \t]*+(?P<v>[-+\u2212]?\d{1,12}(?:\.\d{1,12})?)[ \t]*+\([ \t]*+(?P<w>[-+\u2212\d.,*/^()=\u00d7\u00f7\u00b7x \t]{3,80})\)[ \t]*+\.?[ \t]*+$")
_WORKING_OPERATOR_RE = re.compile(r"[+*/^\u00d7\u00f7\u00b7]|(?<=\d)[ \t]*+x[ \t]*+(?=\d)|(?<=[\d)])[ \t]*+[-\u2212][ \t]*+(?=[\d(])")


def _working_value(w: str) -> float | None:
    e = re.sub(r"(?<=\d)[ \t]*+x[ \t]*+(?=\d)", "*", w).replace("\u00d7", "*").replace("\u00b7", "*")
    e = e.replace("\u00f7", "/").replace("\u2212", "-")
    if "," in e:
        return None  # "6,7": a list or a decimal comma, no working
    return real_value(parse_answer(e.strip()))


def worked_parenthesis_commitment(c: Any, x: Any) -> Any:
    """R1.1: a number followed by its working in parentheses ("42 (6 × 7)", "42 (6*7 = 42)")
    answers the number, where every side of the working equals it; other working ("42 (6 × 8)")
    is left as written (no value to read with confidence). ``c`` unchanged otherwise."""
    if c is None or c.answer is None or c.several or not c.candidates or "(" not in c.candidates[0]:
        return c
    one = c.candidates[0]
    m = _WORKED_PAREN_RE.match(one)
    if m is None or not _WORKING_OPERATOR_RE.search(m.group("w")):
        return c
    v = real_value(parse_answer(m.group("v").replace("\u2212", "-")))
    sides = [p for p in m.group("w").split("=")]
    if v is None or not all(p.strip() for p in sides):
        return c
    for side in sides:
        sv = _working_value(side)
        if sv is None or abs(sv - v) > 1e-9 * max(1.0, abs(v)):
            return c
    value = m.group("v")
    return replace(c, answer=value, candidates=(value,), items=(value,))


# "27 C", "300 F": a temperature's scale written by its letter alone
_TEMPERATURE_LETTER_RE = re.compile(r"(?<![\w.])(?P<n>[-+\u2212]?\d{1,9}(?:\.\d{1,9})?)[ \t]*+(?P<u>[CF])(?![\w'\u2019^/])")


def temperature_letter_commitment(c: Any, x: Any) -> Any:
    """R4.5: "27 C" and "300 F" are 27 °C and 300 °F where the question speaks of a temperature
    or asks for a temperature's unit (elsewhere C is a coulomb and F a farad, and neither is read):
    a module that read the digits alone is then stopped by the unit the question asks for."""
    if c is None or c.answer is None or c.several or not c.candidates:
        return c
    one = c.candidates[0]
    if len(one) > 200 or not ("C" in one or "F" in one) or not _TEMPERATURE_LETTER_RE.search(one):
        return c
    question = x.question or ""
    cues = x.cues
    requested = cues.unit if cues is not None else None
    if not (_TEMPERATURE_WORD_RE.search(question) or (requested and requested_unit_string(requested)
                                                         in ("kelvin", "degC", "degF"))):
        return c
    new = _TEMPERATURE_LETTER_RE.sub(lambda m: f"{m.group('n')} \u00b0{m.group('u')}", one)
    return replace(c, answer=new, candidates=(new,), items=(new,))


def place_region_commitment(c: Any, x: Any) -> Any:
    """R2.3: a name list of two read after a box or a bold answer ("**Newport Beach**, California") is
    the place and its region where the question asks for a place (as "Newport Beach, California"
    written plainly is): the answer is the place. ``c`` unchanged otherwise."""
    if c is None or c.joiner != "and" or len(c.candidates) != 2 or x.answer_info is None or x.answer_info.method not in (
            "boxed", "bold") or not _PLACE_ASKED_RE.search(x.question or ""):
        return c
    m = _TWO_NAMES_RE.match(", ".join(c.candidates))
    if m is None or m.group("sep") != "," or (x.cues is not None and x.cues.several):
        return c
    first = c.candidates[0]
    return replace(c, answer=first, candidates=(first,), joiner="single", items=(first,), text=first)


# a negation word, in a reference that holds one itself (the title "Never Let Me Go")
_NEGATION_WORD_RE = re.compile(r"\b(?:not|never|no|neither|nor)\b|n['\u2019]t\b", re.IGNORECASE)
# a question whose own predicate is negated: "How many students did not pass?", "Which team never won?"
_NEGATED_QUESTION_RE = re.compile(r"\b(?:not|never|no\s+longer|neither|nor)\b|n['\u2019]t\b", re.IGNORECASE)


def negated_question_commitment(c: Any, x: Any) -> Any:
    """R2.5: where the question's own predicate is negated, an answer that repeats the negated verb
    states its value ("How many students did not pass?": "12 students did not pass." answers 12);
    the commitment is read again without the verb negation. ``c`` unchanged otherwise."""
    if c is None or not c.reason.startswith("negation") or x.answer_info is None or not x.question:
        return c
    if not _NEGATED_QUESTION_RE.search(x.question) and not _opposite_asked(x.question, x.answer_info.answer or ""):
        return c
    return commitment_of(x.answer_info, verb_negations=False)


# the word a negation in the answer denies ("not defined", "isn't continuous", "does not exist")
_DENIED_WORD_RE = re.compile(r"(?:\bnot|n['\u2019]t|\bnever)\s+(?:be\s+|been\s+)?([a-z]{3,20})\b", re.IGNORECASE)
_OPPOSITE_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non", "non-")


def _opposite_asked(question: str, answer: str) -> bool:
    """The question asks for the opposite the answer's negation states: "Where is $f$ undefined?"
    answered "$f$ is not defined at $x = 2$", "discontinuous" and "not continuous"."""
    if len(answer) > 400:
        return False
    words = {w.lower() for w in _DENIED_WORD_RE.findall(answer)}
    if not words:
        return False
    asked = set(re.findall(r"[a-z-]{4,30}", question.lower()))
    return any(p + w in asked for w in words for p in _OPPOSITE_PREFIXES)


_QUESTION_READINGS = (negated_question_commitment, mixed_number_commitment, comma_list_commitment,
                      worked_parenthesis_commitment, temperature_letter_commitment, place_region_commitment)


# ----------------------------------------------------------------------------- the procedure
# a statement of not being able to answer, whatever number it names ("I cannot determine 42 from this")
_INABILITY_RE = re.compile(
    r"^\s*+i\s++(?:cannot|can'?t|am\s++unable\s++to|am\s++not\s++able\s++to|could\s*+n'?t|couldn'?t|was\s++unable\s++to)\s++"
    r"(?:\w+\s++){0,2}?(?:answer|compute|calculate|determine|solve|find|say|tell|work\s++out|figure|get)\b", re.IGNORECASE)
_REFUSAL_RE = re.compile(
    r"^(?:i\s+(?:cannot|can'?t|am\s+unable\s+to|am\s+not\s+able\s+to|do\s+not\s+know|don'?t\s+know)|sorry|unable\s+to|"
    r"there\s+is\s+not\s+enough\s+information|insufficient\s+information)\b",
    re.IGNORECASE,
)


def _judge(x: Any) -> Judgment:
    if x.oversized:
        return Judgment(False, "invalid:input_too_large")
    ref = x.ref
    if not ref:
        return Judgment(None, "no_reference_answer")
    info = x.answer_info
    c: Commitment | None = x.commitment
    if c is None or c.answer is None:
        excluded = _excluded_points_answer(x, c, info)
        if excluded is not None:
            return excluded
        replied = _negated_boolean(x, c, info)
        if replied is not None:
            return replied
        if (c is not None and c.reason.startswith("negation") and info is not None and info.answer
                and _NEGATION_WORD_RE.search(ref) and text_match(clean_answer(info.answer), ref)):
            return Judgment(True, "equal:text")  # "Never Let Me Go" for the title: its own words, no negation (R2.5)
        return Judgment(False, _no_answer_reason(x, c, info))
    cues = x.cues
    if not c.several and parse_bool(ref) is not None and both_booleans(c.text or c.answer):
        return Judgment(False, "hedge:alternatives")  # "Yes, but also no": both answers offered (R6.3)
    # options matter only where a letter is in play (the reference or the answer names one)
    options = x.options if _is_letter(ref) or _STANDALONE_LETTER_RE.search(c.text or c.answer or "") else {}
    if options and _echoed(x):
        return Judgment(False, "invalid:echo")  # a copy of the question: its last option line is no choice
    if (c.several and (options or _is_letter(ref)) and c.text and not c.hedged
            and not all(option_marker(k) for k in c.candidates)):
        j = _choice(c.text, ref, options, cues)  # "(A) 3 and 5": one option, written with its text
        if j is not None and j.correct:
            return j
    if c.several:
        return _several(x, c, cues, options)
    answer = x.answer or (c.candidates[0] if c.candidates else c.answer)  # the one the modules read (R1.2)
    if answer and answer[-1:] == "!" and _BARE_BANG_RE.search(answer) and _exclaimed(x, info):
        answer = answer.rstrip()[:-1]  # "Answer: 42!": an exclamation in prose, not 42 factorial (R3.3)
    worded = word_operation(answer) if answer else None
    if worded == UNREAD_OPERATION:  # "the square root of 4 times 4": no value to compare with confidence
        return Judgment(False, "differ:operation_in_words")
    if worded is not None:  # "The answer is 7 squared.": the operation, written as math, is the answer (R4.1)
        answer = worded
    relation = worded_relation(answer) if worded is None else None
    if relation is not None:  # "x is greater than 4": the relation x > 4 (R4.4)
        answer = relation
    if _dangling(c.text or answer, ref) or _cut_off(info):
        return Judgment(False, "invalid:truncated")
    if "=" in answer and "=" not in ref and _equation_of(answer, ref):
        return Judgment(False, "differ:equation")  # "0 = x + 1" for x + 1: an equation, not its side's value
    if options and _rejects_option(answer, x):
        return Judgment(False, "negation:only_negated")
    rejected = _rejected(answer, x)
    if rejected is not None:
        ref_rejected = text_match(rejected, ref) or _values_agree(rejected, ref)
        return Judgment(False, "negation:reference_negated" if ref_rejected else "negation:only_negated")
    if options or _is_letter(ref):
        j = _choice(answer, ref, options, cues)
        if (j is None and options and info is not None and info.answer and info.answer != answer and not c.several
                and not c.reason):  # (a retracted or negated answer is not read again)
            # "The coefficient of $x^2.$": an option's text, whole
            j = _choice(strip_math_delimiters(info.answer.strip()), ref, options, cues)
        if j is not None:
            return j
        if options and not (cues is not None and cues.several) and len(_letters_named(answer, options)) > 1:
            return Judgment(False, "hedge:alternatives")
    if is_restatement(answer, ref, x.question):
        return Judgment(False, "restatement:question_expression")
    if _INABILITY_RE.match(answer):
        return Judgment(False, "invalid:refusal")
    shape = _not_one_value(answer, ref, cues, x.question)
    if shape:
        return Judgment(False, shape)
    factors = _factor_judgment(answer, ref, x.question, asked=False)
    if factors is not None:
        return factors
    rb, ab = parse_bool(ref), parse_bool(answer)
    if rb is not None and (contradicting_reply(answer) or (info is not None and contradicting_reply(info.answer or ""))):
        return Judgment(False, "hedge:alternatives")  # "Yes, they are not.": yes and no at once (R6.3)
    if rb is not None and ab is None:
        ab = parse_bool(_CONCLUSION_LEAD_RE.sub("", answer, count=1))  # "So no, 91 is not prime."
    if rb is not None and ab is None:
        m = _STATEMENT_VERDICT_RE.match(answer)  # "This statement is correct." for True
        ab = None if m is None else m.group(1).lower() in ("true", "correct", "right", "valid")
    if rb is not None and ab is None and x.question:
        ab = statement_answers(answer, x.question)  # "7 is prime." for "Is 7 prime?"
    whole = info.answer if info is not None and info.answer and "," in info.answer else answer
    if rb is not None and ab is not None and x.question and "," in whole and parse_bool(whole) == ab:
        # the reply's own clause, as written (a negation inside it is read there, not split off)
        said = statement_answers(whole.split(",", 1)[1].strip(), x.question)
        if said is not None and said != ab:
            return Judgment(False, "hedge:alternatives")  # "No, it is prime." for "Is 91 prime?": no, and yes (R6.3)
    if rb is not None and ab is not None:
        return Judgment(rb == ab, "equal:boolean" if rb == ab else "differ:boolean")
    if rb is None and len(ref) <= 40 and _is_formula(ref):
        return _text(answer, ref, x, cues)  # H2 is not 2H: formulas compare as written (R6.1)
    if not options and _listed_with_others(x, answer):
        return Judgment(False, "hedge:list_for_single_answer")
    if _set_for_value(answer, x):
        return Judgment(False, "differ:interval")  # "all real numbers except 2" for 2 (R4.4)
    ordinal = _ordinal_judgment(answer, ref)
    if ordinal is not None:
        return ordinal
    special = _special_judgment(answer, ref, x.question or "")
    if special is not None:
        return special
    if ("+" in answer or "-" in answer) and "charge" in (x.question or "").lower():
        charges = _charge_judgment(answer, ref)  # "2-" for a charge of -2
        if charges is not None:
            return charges
    # "60/12" for "how many episodes ...?": two alternatives, not the fraction 5 (R6.4)
    alternatives = numeric_aliases(ref, x.question) if "/" in ref else ()
    j = compare_candidate(answer, ref, cues, x) if not alternatives else None
    if j is None or not j.correct:
        aliases = alternatives or reference_aliases(ref, x.question)
        for alias in aliases[1 if len(aliases) == 1 else 0:]:
            ja = compare_candidate(answer, alias, cues, x)
            if ja is not None and ja.correct:
                return Judgment(True, ja.reason)
            if alternatives and j is None:
                j = ja
    if j is not None and j.correct:
        return j
    counted = None if alternatives else counted_number(ref)
    if counted is not None and parse_number(answer) is not None:
        jc = compare_candidate(answer, counted, cues, x)  # "5" for "5 apples": the count, without its noun
        if jc is not None:
            return jc
    if (j is None or alternatives) and _HAS_VALUE_RE.search(answer):  # prose: the value its sentence states
        for sv in statement_values(answer, percent="%" in ref or "percent" in ref.lower()):
            for target in alternatives or (ref,):
                js = compare_candidate(sv, target, cues, x)
                if js is not None and js.correct:
                    return js
                if js is not None and j is None:
                    j = js
    if j is not None:
        return j
    bound = _one_bound(answer, ref, x)
    if bound is not None:
        return bound
    return _text(answer, ref, x, cues)


# one relation on one unknown: "x \\geq \\frac{9}{4}", "\\ge 2.5"
_ONE_BOUND_RE = re.compile(r"^\s*+(?:[A-Za-z]\s*+)?" + _RELATION_SIGN + r"\s*+(?P<v>[^<>=\u2264\u2265]{1,60})$")


def _one_bound(answer: str, ref: str, x: Any) -> Judgment | None:
    """R2.1: an answer that is one relation on one unknown ("x \\geq \\frac{9}{4}") where the reference
    is one number states a bound, not the value (``hedge:bound``); where the question asks for an
    extreme, the bound's value answers it; ``None`` for any other answer."""
    if x.number_ref is None or len(answer) > 80 or "<<" in answer or _INEQ_CHARS_RE.search(ref):
        return None
    m = _ONE_BOUND_RE.match(answer)
    if m is None:
        return None
    if _EXTREME_RE.search(x.question or ""):  # "x \\geq \\frac{9}{4}" for the least x: the bound is the extreme
        j = compare_candidate(m.group("v").strip(), ref, x.cues, x)
        return j if j is not None else None
    return Judgment(False, "hedge:bound")


# a count with its noun ("5 apples", "\text{12 students}"), no unit; not a bound, a range or a number word
_COUNTED_RE = re.compile(r"^(?P<num>\d[\d,]*+(?:\.\d++)?)[ \t]++(?P<noun>[A-Za-z]++(?:[ \t]++[A-Za-z]++){0,2}+)\.?$")
_NOT_A_NOUN_RE = re.compile(r"\b(?:or|and|to|more|less|fewer|than|at|percent|per|of|times|hundred|thousand|million|"
                            r"billion|dozen|half|thirds?|quarters?)\b", re.IGNORECASE)


def counted_number(ref: str) -> str | None:
    """R4.1: the number of a reference that is a count with its noun (``"5"`` for "5 apples"), so a
    bare number answers it; ``None`` for anything else: a quantity with a unit ("5 m"), a bound
    ("5 or more"), a number word that changes the value ("5 hundred"), prose."""
    if len(ref) > 60 or not ref[:1].isdigit() and not ref.startswith("\\"):
        return None
    m = _COUNTED_RE.match(clean_answer(ref).strip())
    if m is None or _NOT_A_NOUN_RE.search(m.group("noun")) or _is_quantity(m.group(0)):
        return None
    return m.group("num")


_COPULA_RE = re.compile(
    r"(?:\b(?:is|are|was|were|equals?|gives?|makes?|comes?\s+to|totals?|yields?|becomes?|remains?|would\s+be|will\s+be|"
    # a limit's statement: "It diverges to infinity", "The sequence tends to 0", "x_n approaches 2"
    r"(?:tends?|goes|diverges?|converges?)\s+to|approaches|"
    r"costs?|weighs?|measures?|takes?|needs?|moves?|lasts?|runs?|sold|has|have|had)\b|=|\u2248|\\approx)\s+",
    re.IGNORECASE,
)
_NUM_WORD = (r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
             r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|"
             r"billion|half|halves|thirds?|quarters?|fourths?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?|dozen)")
_NUMBER_PHRASE_RE = re.compile(
    r"(?P<num>(?:\b(?:minus|negative)[ \t]++(?=\d))?[-+\u2212]?\$?(?:\d+\s+\d+/\d+|\d+/\d+|\.?\d[\d,.]*)(?:\s*(?:\\times|\u00d7|x)\s*10\^\{?-?\d+\}?)?"
    r"|\b(?:(?:minus|negative)\s+|an?\s+(?=(?:dozen|half|third|quarter)\b))?" + _NUM_WORD + r"(?:(?:[\s-]+(?:and\s+|a\s+)?)" + _NUM_WORD + r")*\b)"
    r"(?P<unit>\s*(?:%|\u20ac|percent\b|[A-Za-z\u00b5\u00b0\u00b2\u00b3/^]+(?:-[1-3](?![\d.]))?(?:\s+(?:per|an?)\s+[A-Za-z]+)?))?",
    re.IGNORECASE,
)
_MAX_STATEMENT_WORDS = 20
# a copula negated: "is not 14", "is never 14", "does not give 14", "doesn't make 14", "never equals 14"
_NEGATED_COPULA_AFTER_RE = re.compile(r"(?:not|never|no[ \t]++longer)\b", re.IGNORECASE)
_NEGATED_COPULA_BEFORE_RE = re.compile(r"(?:\bnot|\bnever|n't|n\u2019t)[ \t]*+$", re.IGNORECASE)
# "minus 7", "negative 7": a sign written as a word before digits (R4.1)
_SIGN_WORD_RE = re.compile(r"\b(?:minus|negative)[ \t]++(?=\d)", re.IGNORECASE)
_REAL_SET_START_RE = re.compile(r"(?:the\s+set\s+of\s+)?(?:all|every|any)\s+real\b", re.IGNORECASE)  # a set in words


_HAS_VALUE_RE = re.compile(r"\d|\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
                           r"forty|fifty|hundred|thousand|million|half|quarter|third|dozen|infinity)\b", re.IGNORECASE)
_STATEMENT_CONCLUSION_RE = re.compile(r"\b(?:so|thus|therefore|hence)\b[\s,]*", re.IGNORECASE)


_WN = r"[-+]?\d+(?:\.\d+)?"
# R4.1: an operation written in words on numbers ("7 squared", "the square root of 7", "7 times 3"):
# the value is the operation's, never the number it names. (pattern body, the math it writes)
_WORD_OPERATION_FORMS = (
    (r"(?P<a>" + _WN + r")[ \t]++squared", "{a}^2"),
    (r"(?P<a>" + _WN + r")[ \t]++cubed", "{a}^3"),
    (r"(?P<a>\d+)[ \t]++factorial", "{a}!"),
    (r"(?:the[ \t]++)?(?:positive[ \t]++)?square[ \t]++root[ \t]++of[ \t]++(?P<a>" + _WN + r")", "\\sqrt{{{a}}}"),
    (r"(?:the[ \t]++)?cube[ \t]++root[ \t]++of[ \t]++(?P<a>" + _WN + r")", "\\sqrt[3]{{{a}}}"),
    (r"half[ \t]++of[ \t]++(?P<a>" + _WN + r")", "{a}/2"),
    (r"(?:twice|double)[ \t]++(?P<a>" + _WN + r")", "2*{a}"),
    (r"(?P<a>\d+)[ \t]++and[ \t]++(?:a|one)[ \t]++half", "{a}+1/2"),
    (r"(?P<a>\d+)[ \t]++and[ \t]++a[ \t]++quarter", "{a}+1/4"),
    (r"(?P<a>\d+)[ \t]++and[ \t]++a[ \t]++third", "{a}+1/3"),
    (r"(?P<a>\d+)[ \t]++point[ \t]++(?P<b>\d+)", "{a}.{b}"),
    (r"(?P<a>" + _WN + r")[ \t]++(?:times|multiplied[ \t]++by)[ \t]++(?P<b>" + _WN + r")", "({a})*({b})"),
    (r"(?P<a>" + _WN + r")[ \t]++(?:divided[ \t]++by|over)[ \t]++(?P<b>" + _WN + r")", "({a})/({b})"),
    (r"(?P<a>" + _WN + r")[ \t]++plus[ \t]++(?P<b>" + _WN + r")", "({a})+({b})"),
    (r"(?P<a>" + _WN + r")[ \t]++minus[ \t]++(?P<b>" + _WN + r")", "({a})-({b})"),
    (r"(?P<a>" + _WN + r")[ \t]++to[ \t]++the[ \t]++power[ \t]++of[ \t]++(?P<b>" + _WN + r")", "({a})^({b})"),
)
_WORD_OPERATIONS = tuple((re.compile(r"(?<![\w.])" + body + r"(?![\w.]|[ \t]++(?:times|squared|cubed|plus|minus|over"
                                     r"|divided|multiplied|to[ \t]+the|and[ \t]+a)\b)", re.IGNORECASE), form)
                         for body, form in _WORD_OPERATION_FORMS)
_WORD_OPERATION_HINT_RE = re.compile(r"squared|cubed|factorial|root|half|twice|double|point|times|multiplied|divided"
                                     r"|over|plus|minus|power|quarter|third", re.IGNORECASE)
_DIGITS_RE = re.compile(r"\d+(?:\.\d+)?")
#: what :func:`word_operation` gives for an operation in words it cannot write as math
UNREAD_OPERATION = ""


def word_operation(answer: str) -> str | None:
    """R4.1: the math an operation in words on numbers writes, for the value a short statement
    gives ("The answer is 7 squared." -> ``7^2``; "She swam half of 12." -> ``12/2``; "The trip
    took 3 and a half hours." -> ``3+1/2``; "7 times 3" -> ``(7)*(3)``). ``None`` where the
    statement names no operation; :data:`UNREAD_OPERATION` (empty) where it names one on its
    numbers that cannot be written so ("the square root of 4 times 4"), or where the statement
    holds numbers beside the operation's ("10 minus 3 is 7" states 7: ``None`` then, the
    operation being the working, not the value)."""
    if not answer or len(answer) > 200 or not _WORD_OPERATION_HINT_RE.search(answer):
        return None
    text = answer.replace("$", "").strip().rstrip(".!").strip()
    cops = list(_COPULA_RE.finditer(text))
    v = text[cops[-1].end():].strip() if cops else text
    found = [(m, form) for rx, form in _WORD_OPERATIONS for m in rx.finditer(v)]
    if not found:
        return None
    if len(found) > 1:
        return UNREAD_OPERATION  # "the square root of 4 times 4": several operations, no order to read
    m, form = found[0]
    outside = v[:m.start()] + " " + v[m.end():]
    if _DIGITS_RE.search(outside) or _WORD_OPERATION_HINT_RE.search(outside):
        return UNREAD_OPERATION  # another number or operation beside this one in the stated value
    return form.format(**m.groupdict())


_REL_VALUE = r"[-+\u2212]?(?:\d+(?:\.\d+)?(?:/\d+)?|\\frac\{\d+\}\{\d+\}|\\sqrt\{?\d+\}?)"
_REL_WORDS = (  # (words, the sign they write); "or equal to" first, so that it is not read as the strict sign
    (r"(?:greater|more|larger|bigger)[ \t]++than[ \t]++or[ \t]++equal[ \t]++to|at[ \t]++least|no[ \t]++less[ \t]++than"
     r"|not[ \t]++less[ \t]++than", ">="),
    (r"(?:less|smaller|fewer)[ \t]++than[ \t]++or[ \t]++equal[ \t]++to|at[ \t]++most|no[ \t]++(?:more|greater)[ \t]++than"
     r"|not[ \t]++(?:more|greater)[ \t]++than", "<="),
    (r"(?:strictly[ \t]++)?(?:greater|more|larger|bigger)[ \t]++than", ">"),
    (r"(?:strictly[ \t]++)?(?:less|smaller)[ \t]++than", "<"),
)
_REL_SUBJECT = r"^[ \t]*+\$?(?P<var>[A-Za-z])\$?[ \t]++(?:is|must[ \t]++be|can[ \t]++be)[ \t]++"
_WORDED_RELATIONS = tuple(
    (re.compile(_REL_SUBJECT + r"(?:" + words + r")[ \t]++\$?(?P<v>" + _REL_VALUE + r")\$?[ \t]*+\.?[ \t]*+$", re.IGNORECASE), sign)
    for words, sign in _REL_WORDS)
_WORDED_BETWEEN_RE = re.compile(
    _REL_SUBJECT + r"(?P<strict>strictly[ \t]++)?between[ \t]++\$?(?P<a>" + _REL_VALUE + r")\$?[ \t]++and[ \t]++\$?(?P<b>"
    + _REL_VALUE + r")\$?(?P<incl>[ \t]*+,?[ \t]*+\(?(?:inclusive|inclusively|included)\)?)?[ \t]*+\.?[ \t]*+$", re.IGNORECASE)


def worded_relation(answer: str) -> str | None:
    """R4.4: a relation on one variable written in words, as math: "x is greater than 4" ->
    ``x > 4``, "x is at least 2" -> ``x >= 2``, "x is at most 5" -> ``x <= 5``, "x is between 1
    and 3" -> ``1 < x < 3`` (between excludes its ends unless it says "inclusive":
    ``1 <= x <= 3``); ``None`` for anything else."""
    if not answer or len(answer) > 120 or not (" than" in answer or "at " in answer or "between" in answer):
        return None
    if "between" in answer:
        m = _WORDED_BETWEEN_RE.match(answer)
        if m is None:
            return None
        sign = "<=" if m.group("incl") else "<"
        return f"{m.group('a')} {sign} {m.group('var')} {sign} {m.group('b')}"
    for rx, sign in _WORDED_RELATIONS:
        m = rx.match(answer)
        if m:
            return f"{m.group('var')} {sign} {m.group('v')}"
    return None


def statement_values(answer: str, *, percent: bool = False) -> list[str]:
    """Values a short statement gives, most specific first: what follows its last "is / are /
    = / gives / makes ..." ("So the ratio is 2 : 1", "That makes seven months"), then its only
    number with and without what follows it ("12,345 tickets", "12,345"). The statement is the
    text after the last "so / thus / therefore" when there is one. ``percent``: the reference
    is a percentage, so the one percentage among several numbers is the value ("So 40 is 16%
    of 250"). Empty for longer text."""
    if not answer or "\n" in answer.strip():
        return []
    text = answer.replace("$", "")
    cuts = list(_STATEMENT_CONCLUSION_RE.finditer(text))
    if cuts:
        text = text[cuts[-1].end():]
    if len(text.split()) > _MAX_STATEMENT_WORDS:
        return []
    out: list[str] = []
    cops = list(_COPULA_RE.finditer(text))
    if cops and (_NEGATED_COPULA_AFTER_RE.match(text, cops[-1].end())
                 or _NEGATED_COPULA_BEFORE_RE.search(text, max(0, cops[-1].start() - 16), cops[-1].start())):
        return []  # "12 plus 2 is not 14", "Adding 2 to 12 does not give 14": no value stated (R2.5)
    if cops:
        v = text[cops[-1].end():].strip().rstrip(".!")  # the last statement: "so the ratio is 2 : 1"
        if v and v != text and (len(v.split()) <= 6 or (len(v.split()) <= 12 and _REAL_SET_START_RE.match(v))):
            out.append(v)
            out += _number_spans(v, percent=percent)
    out += _number_spans(text, percent=percent)
    if text.strip().rstrip(".!") != answer.strip().rstrip(".!"):
        out.append(text.strip().rstrip(".!"))
    seen: set[str] = set()
    return [v for v in out if v and v != answer and not (v in seen or seen.add(v))]


def _number_spans(text: str, *, percent: bool = False) -> list[str]:
    """Its only number with what follows it ("12,345 tickets", then "12,345"), or nothing;
    with ``percent``, its only percentage among other numbers."""
    spans = list(_NUMBER_PHRASE_RE.finditer(text))
    if len(spans) > 1 and percent:
        spans = [sp for sp in spans if (sp.group("unit") or "").strip().lower() in ("%", "percent")]
    if len(spans) != 1:
        return []
    num, unit = _SIGN_WORD_RE.sub("-", spans[0].group("num").strip()), (spans[0].group("unit") or "").strip()
    out = [f"{num}{unit}" if unit == "%" else f"{num} {unit}"] if unit else []
    if not unit or (unit.lower() not in ("%", "percent") and parse_quantity(f"{num} {unit}") is None):
        out.append(num)  # "12,345 tickets": the count; "0.5 m" keeps its unit
    return out


def statement_value(answer: str) -> str | None:
    """The first of :func:`statement_values`, or ``None``."""
    vals = statement_values(answer)
    return vals[0] if vals else None


_DANGLING_END = frozenset("=+-*/^\u00d7\u00b7,(")
_DANGLING_RE = re.compile(r"(?:[=+\-*/^\u00d7\u00b7,(]|\\(?:times|cdot|frac|sqrt)?)\s*$")


_FUNCTION_LABEL_RE = re.compile(r"^\s*+\$?\s*+(?:(?P<y>y)|[a-zA-Z]\s*+\(\s*+[a-z]\s*+\))\s*+=(?P<rhs>[^=]{1,300})$")
_GREEK = "|".join(sorted(GREEK_NAMES, key=len, reverse=True))
# a quantity's name, with its argument or without: "x(t) =", "\rho(t) =", "v_{0} ="
_NAMED_VALUE_RE = re.compile(
    r"^\s*+\$?\s*+(?:\\displaystyle\s*+)?(?P<name>(?:[A-Za-z]|\\(?:" + _GREEK + r")(?![A-Za-z]))"
    r"(?:_\{?[A-Za-z0-9]{1,4}\}?)?)\s*+(?P<args>\(\s*+[a-z](?:_\{?[A-Za-z0-9]{1,3}\}?)?\s*+\))?\s*+="
    r"(?P<rhs>[^=]{1,400})$")


_EMPTY_SET_RE = re.compile(r"^\s*+\$?\s*+(?:\\emptyset|\\varnothing|\u2205|\\\{\s*+\\\}|\{\s*+\}|\\left\\\{\s*+\\right\\\})\s*+\$?\s*+$")
# the set whose one element is the empty set: {\emptyset} is not \emptyset (R4.4)
_SET_OF_EMPTY_RE = re.compile(r"^\s*+\$?\s*+(?:\\left)?\\?\{\s*+(?:\\emptyset|\\varnothing|\u2205|\\\{\s*+\\\})\s*+(?:\\right)?\\?\}\s*+\$?\s*+$")
_NO_SOLUTION_RE = re.compile(
    r"^\s*+(?:\\text\{\s*+)?(?:there\s+(?:is|are)\s+)?(?:no\s+(?:real\s+|integer\s+|such\s+)?(?:solutions?|roots?|values?)|none|"
    r"(?:the\s+)?empty\s+set)(?:\s+exists?)?\s*+\}?\s*+\.?\s*+$", re.IGNORECASE)


def _empty_set(text: str) -> bool:
    """The empty set in any writing: ``\\emptyset``, ``\\{\\}``, "no solution", "none", "the empty set"."""
    return len(text) <= 60 and bool(_EMPTY_SET_RE.match(text) or _NO_SOLUTION_RE.match(text))


_LABELLED_SPLIT_RE = re.compile(r"\s*+(?:,|;|\band\b|\\text\{\s*and\s*\})\s*+")


def _label_case_differs(cands: list[str], ref: str) -> bool:
    """A candidate's label is one of the reference's labels in another case only (``A`` for ``a``)."""
    if len(ref) > 300:
        return False
    ref_labels = {lab for lab, _ in (strip_label(p.strip("$ ")) for p in _LABELLED_SPLIT_RE.split(ref.strip().strip("$")))
                  if lab is not None}
    if not ref_labels:
        return False
    folded = {lab.casefold() for lab in ref_labels}
    for cand in cands:
        lab = strip_label(cand.strip("$ "))[0]
        if lab is not None and lab not in ref_labels and lab.casefold() in folded:
            return True
    return False


def _labelled_values(ref: str) -> list[str] | None:
    """The values of a reference that labels two to four unknowns in alphabetical order ("x = 2,
    y = -1", "a = 1 and b = 3"), in that order; ``None`` for anything else."""
    if len(ref) > 200:
        return None
    parts = [strip_label(p.strip("$ ")) for p in _LABELLED_SPLIT_RE.split(ref.strip().strip("$").strip())]
    if not 2 <= len(parts) <= 4 or any(lab is None or len(lab) != 1 or not lab.islower() for lab, _ in parts):
        return None
    labels = [lab for lab, _ in parts]
    if labels != sorted(set(labels)):  # type: ignore[type-var]
        return None  # "y = -1, x = 2": which comes first in a pair the question must say
    return [v for _, v in parts]


_SOLUTION_SPLIT_RE = re.compile(r"\s*+(?:,|;|\bor\b|\band\b|\\text\{\s*(?:or|and)\s*\})\s*+")


def solution_values(text: str) -> list[str] | None:
    """R4.3: the values of several solutions of one unknown, however they are joined and whether
    or not each is labelled ("x = 2 or x = -2", "x=2, x=-2", "2 or -2", "x = \\pm 2": ``["2",
    "-2"]``); one "\\pm" gives its two values. ``None`` for one value, for labels of different
    unknowns (a tuple's "x = 2, y = -1"), or for longer text."""
    if len(text) > 200:
        return None
    values: list[str] = []
    labels = set()
    for part in _SOLUTION_SPLIT_RE.split(text.strip().strip("$").strip()):
        label, value = strip_label(part.strip("$ "))
        labels.add(label)
        if not value:
            return None
        signs = PLUS_MINUS_RE.findall(value)
        if len(signs) > 1:
            return None
        if signs:
            plus = PLUS_MINUS_RE.sub("+", value, count=1).strip()
            values += [plus[1:].strip() if plus.startswith("+") else plus, PLUS_MINUS_RE.sub("-", value, count=1).strip()]
        else:
            values.append(value)
    if len(labels) != 1 or len(values) < 2 or len(values) > 12:
        return None
    return values


def _name_key(name: str) -> str:
    return name.replace("{", "").replace("}", "").replace(" ", "")


_FORMULA_CHARS_RE = re.compile(r"[A-Za-z0-9_{}\\ \u2080-\u2089()]{2,40}")


def _is_formula(ref: str) -> bool:
    """A chemical formula of two or more letters (``H2``, ``NaCl``, ``Fe``); one capital alone is
    more often a choice or a variable."""
    ident = parse_identifier(ref)
    return ident is not None and ident.kind == "chemical_formula" and sum(ch.isalpha() for ch in ident.text) >= 2 \
        and not ident.text.isupper() or (ident is not None and ident.kind == "chemical_formula"
                                         and any(ch.isdigit() for ch in ident.text))


_DANGLING_PHRASE_RE = re.compile(r"(?<![\w\\])(?:which\s+is|equal\s+to|is\s+equal)$", re.IGNORECASE)


def _dangling(text: str, ref: str = "") -> bool:
    """A final answer that ends on an operator ("120 + 24 =") was cut off before its value; a
    charge ("3+") where the reference is one ends on its sign."""
    t = text.strip().rstrip(".")
    if len(t) < 2 or t.endswith("\\\\"):
        return False
    if t[-1] in "+-" and ref and _charge(ref) is not None and _charge(t.split()[-1]) is not None:
        return False
    if "\\boxed" in t and _unclosed_box(t):
        return True  # "The answer is \\boxed{42": cut inside the box (R1.3)
    if t[-1].isalpha() and _DANGLING_PHRASE_RE.search(t[-20:]):
        return True  # "The answer is 12, which is": the answer's own sentence cut off
    if t[-1] in "+-":
        words = t.split()
        for k in (1, 2)[: len(words)]:  # "SO4 2-": the charge may stand apart from its formula
            ion = parse_identifier(" ".join(words[-k:]))
            if ion is not None and ion.kind == "chemical_formula" and "^" in ion.text:
                return False  # "Fe3+", "SO4^2-", "Cl-": an ion's charge, not an operator
    return t[-1] in _DANGLING_END or bool(_DANGLING_RE.search(t[-12:]))



def _unclosed_box(t: str) -> bool:
    """The last ``\\boxed{`` of ``t`` never closes (``\\{`` and ``\\}`` are literal braces)."""
    k = t.rfind("\\boxed")
    brace = t.find("{", k)
    if brace < 0 or t[k + 6 : brace].strip():
        return False
    depth, i = 0, brace
    while i < len(t):
        ch = t[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return False
        i += 1
    return True


_STATEMENT_VERDICT_RE = re.compile(
    r"^\s*+(?:so\s+|thus\s+|therefore\s+|hence\s+)?(?:the|this|that|the\s+given|the\s+above)\s++(?:statement|claim|assertion|"
    r"proposition)\s++is\s++(true|false|correct|incorrect|right|wrong|valid|invalid)\s*+[.!]?\s*+$", re.IGNORECASE)
_CONCLUSION_LEAD_RE = re.compile(r"^\s*(?:so|thus|therefore|hence|then|well|overall|in\s+short)\b[\s,:]*", re.IGNORECASE)


def _no_answer_reason(x: Any, c: Commitment | None, info: Any) -> str:
    if c is not None and c.reason.startswith("negation"):
        ref = x.ref or ""
        if any(text_match(v, ref) or _values_agree(v, ref) for v in c.negated):
            return "negation:reference_negated"
        return "negation:only_negated"
    if c is not None and c.reason.startswith(("retraction", "hedge")):
        return c.reason
    if info is not None and info.truncated:
        return "invalid:truncated"
    return "invalid:no_final_answer"


_LETTER_RUN_RE = re.compile(r"[A-J]{2,10}")


def _letter_run(ref: str, options: dict[str, str]) -> list[str]:
    """R6.2: the option letters of a reference written as one run ("AB" for options A and B), in
    order; empty unless each letter is distinct and names an option (where the options are known)."""
    t = ref.strip()
    if not _LETTER_RUN_RE.fullmatch(t) or len(set(t)) != len(t) or (options and any(ch not in options for ch in t)):
        return []
    return list(t)


def _values_agree(a: str, b: str) -> bool:
    pa, pb = parse_answer(a), parse_answer(b)
    if pa is None or pb is None:
        return False
    return compare_answers(pa, pb).equal is True


# ----------------------------------------------------------------------------- several candidates
def _several(x: Any, c: Commitment, cues: Cues | None, options: dict[str, str]) -> Judgment:
    cands = list(c.candidates)
    ref = x.ref
    pr = x.parsed_ref
    # "x \le 1 or x \ge 3": one answer, a union of intervals
    if c.joiner == "or" and pr is not None and pr.kind == "interval":
        union = parse_interval_set(" \\cup ".join(cands))
        if union is not None:
            r = interval_sets_equal(union, pr.value)
            if r and cues is not None and cues.interval_notation:
                return Judgment(False, "form:interval_notation_required")
            return Judgment(bool(r), "equal:interval" if r else "differ:interval")
    if options or all(_is_letter(k) for k in cands):
        letters = [parse_choice(k, options or None) for k in cands]
        # several letters asked, or held by the reference ("B, C" for "Which two ... are prime?")
        run = _letter_run(ref or "", options)
        wanted = run or (reference_values(ref, cues) if ref else ())
        if all(letters) and (cues is not None and cues.several or (len(wanted) > 1 and all(
                parse_choice(p, options or None) for p in wanted))):
            if c.joiner == "or" and len(set(letters)) > 1:
                return Judgment(False, "hedge:alternatives")  # "B or C": one of them, not both (R2.1)
            want_seq = [parse_choice(p, options or None) for p in (run or reference_values(ref))]
            if len(set(want_seq)) < len(want_seq):  # repeated letters: answers to parts, in order
                got_seq = [parse_choice(k, options or None) for k in c.items]
                return Judgment(got_seq == want_seq, "equal:choices" if got_seq == want_seq else "differ:choices")
            got = set(letters)
            return Judgment(got == set(want_seq), "equal:choices" if got == set(want_seq) else "differ:choices")
        if options and all(letters) and len(set(letters)) == 1 and c.joiner != "or":
            # "C, 4" where option C's text is 4: one option, written as its letter and its text (R6.2)
            want = parse_choice(ref, options)
            if want is not None:
                return Judgment(letters[0] == want, "equal:choice" if letters[0] == want else "differ:choice")
        if len(set(letters)) > 1 or None in letters:
            return Judgment(False, "hedge:alternatives" if c.joiner == "or" else "hedge:list_for_single_answer")
    if several_allowed(x):
        return _compare_lists(list(c.items) or cands, x, cues, ordered_answer=c.joiner == "and")
    # one value asked: several different candidates are a hedge, unless they all agree
    first = cands[0]
    if all(_values_agree(first, k) or text_match(first, k) for k in cands[1:]):
        j = compare_candidate(first, ref, cues, x)
        return j if j is not None else _text(first, ref, x, cues)
    if c.joiner == "and":
        stated = _assignment_asked(cands, cues)
        if stated is not None:  # "\\tan\\theta = 1 and \\theta = \\pi/4": the asked unknown's value
            j = compare_candidate(stated, ref, cues, x)
            return j if j is not None else _text(stated, ref, x, cues)
    if c.final_answers:
        return Judgment(False, "hedge:multiple_final_answers")
    return Judgment(False, "hedge:alternatives" if c.joiner == "or" else "hedge:list_for_single_answer")


_EQ_LHS_RE = re.compile(r"^\s*+(?P<lhs>[^=<>]{1,40}?)\s*=\s*(?P<rhs>[^=<>]+)$")


def _assignment_asked(cands: list[str], cues: Cues | None) -> str | None:
    """Equations joined by "and" that state different things, one of them a plain unknown's value:
    that value (the unknown the question names, else the last plain assignment). ``None`` when
    two plain unknowns are assigned and the question names neither (a pair, not one value)."""
    eqs = [_EQ_LHS_RE.match(k) for k in cands]
    if any(m is None for m in eqs):
        return None
    lhs = [m.group("lhs").strip() for m in eqs]
    if len(set(lhs)) < len(lhs):
        return None
    plain = [k for k, side in enumerate(lhs) if strip_label(f"{side} = 0")[0] is not None]
    unknown = cues.unknown if cues is not None else None
    if unknown:
        hits = [k for k in plain if lhs[k] == unknown]
        return cands[hits[0]] if len(hits) == 1 else None
    return cands[plain[0]] if len(plain) == 1 else None


_QUESTION_TUPLE_RE = re.compile(r"\(\s*+([a-z])\s*+,\s*+([a-z])(?:\s*+,\s*+([a-z]))?+(?:\s*+,\s*+([a-z]))?+\s*+\)")


def _in_question_order(cands: list[str], question: str) -> list[str]:
    """R4.2: labelled values ("b = 5, a = 2") in the order of the tuple the question names ("the
    ordered pair (a, b)"); as written where the question names none or other unknowns."""
    labels = [strip_label(k)[0] for k in cands]
    if "(" not in question or None in labels or len(set(labels)) != len(labels):
        return cands
    for m in _QUESTION_TUPLE_RE.finditer(question):
        order = [g for g in m.groups() if g]
        if sorted(order) == sorted(labels):  # type: ignore[type-var]
            return [cands[labels.index(name)] for name in order]
    return cands


def _compare_lists(cands: list[str], x: Any, cues: Cues | None, *, ordered_answer: bool) -> Judgment:
    """Several answers where several are asked: as a set, or in order where order is asked."""
    if "=" in (x.ref or "") and _label_case_differs(cands, x.ref):
        return Judgment(False, "differ:case")  # "A = 2, a = 3" for "a = 2, a = 3": another unknown (R6.1)
    ref_vals = list(reference_values(x.ref or "", cues))
    pr = x.parsed_ref
    if len(ref_vals) == 1 and pr is not None and pr.kind in ("set", "tuple"):
        items = pr.value.items
        ordered = pr.kind == "tuple" or (cues is not None and cues.ordered)
        if ordered:
            cands = _in_question_order(cands, x.question or "")  # "b = 5, a = 2" for "(a, b)"
        answer_items = [parse_answer(k) for k in cands]
        if any(a is None for a in answer_items):
            return Judgment(False, "differ:unparsed_element")
        coll = Collection(tuple(_element(a) for a in answer_items), ordered, "(" if ordered else "")
        r = collections_equal(coll, pr.value) if not ordered else _in_order([_element(a) for a in answer_items],
                                                                           list(items))
        return _list_verdict(r, len(cands), len(items))
    keys = [_squash(v).lower() for v in ref_vals]
    ordered = (cues is not None and cues.ordered) or len(set(keys)) < len(keys)  # repeats: answers in order
    used = [False] * len(ref_vals)
    matched = 0
    repeats = 0
    for k, cand in enumerate(cands):
        if not ordered and any(_squash(cand) == _squash(prev) for prev in cands[:k]):
            repeats += 1  # the same value written again: a set ignores repetition ("1, 1, 2" for 1, 2)
            continue
        hit = None
        for j, rv in enumerate(ref_vals):
            if used[j] or (ordered and j != k):
                continue
            jd = compare_candidate(cand, rv, _no_form(cues), x, element=True)
            if jd is None:
                jd = _text(cand, rv, x, cues)
            if jd.correct:
                hit = j
                break
        if hit is not None:
            used[hit] = True
            matched += 1
    if repeats and matched == len(ref_vals) == len(cands) - repeats:
        return Judgment(True, "equal:set")
    if matched == len(cands) == len(ref_vals):
        return Judgment(True, "equal:sequence" if ordered else "equal:set")
    if matched < len(ref_vals) and len(cands) < len(ref_vals) and matched == len(cands):
        return Judgment(False, "differ:missing_element")
    if len(cands) > len(ref_vals) and matched == len(ref_vals):
        return Judgment(False, "differ:extra_element")
    return Judgment(False, "differ:order" if ordered and _same_multiset(cands, ref_vals, x) else "differ:set")


def _same_multiset(cands: list[str], refs: list[str], x: Any) -> bool:
    if len(cands) != len(refs):
        return False
    used = [False] * len(refs)
    for cand in cands:
        for j, rv in enumerate(refs):
            if not used[j] and (_values_agree(cand, rv) or text_match(cand, rv)):
                used[j] = True
                break
        else:
            return False
    return True


def _in_order(a: list[Any], b: list[Any]) -> bool | None:
    if len(a) != len(b):
        return False
    results = [elements_equal(p, q) for p, q in zip(a, b, strict=True)]
    if any(r is False for r in results):
        return False
    return None if any(r is None for r in results) else True


def _list_verdict(r: bool | None, n_answer: int, n_ref: int) -> Judgment:
    if r is True:
        return Judgment(True, "equal:set")
    if n_answer < n_ref:
        return Judgment(False, "differ:missing_element")
    if n_answer > n_ref:
        return Judgment(False, "differ:extra_element")
    return Judgment(False, "differ:set")


def _element(a: Answer) -> Any:
    if a.kind == "equation":
        return a.value
    return a.value


def _no_form(cues: Cues | None) -> Cues | None:
    """Element comparison inside a list: the list's form requirements do not apply per element."""
    if cues is None:
        return None
    return Cues(decimal_places=cues.decimal_places, sig_figs=cues.sig_figs, percentage=cues.percentage,
                unit=cues.unit)


# ----------------------------------------------------------------------------- choices
# "B", "(B)", "B.", and a lower-case letter in brackets: "(b)" (inline options: "(a) ... (b) ...")
_LETTER_RE = re.compile(r"^\s*+(?:[(\[]\s*+[A-Ja-j]\s*+[)\]]|[A-J]\s*+\.?)\s*$")


def _is_letter(s: str) -> bool:
    if not s:
        return False
    return bool(_LETTER_RE.match(clean_answer(s) if "\\" in s or "$" in s else s))  # "\text{(E)}", "$B$"


def _letter_text_disagree(answer: str, options: dict[str, str], cues: Cues | None) -> bool:
    """The answer writes an option's letter and then another option's text ("(C) <the text of E>",
    "Option B, i.e. <the text of C>")."""
    lt = letter_and_text(answer)
    if lt is None and len(answer) <= 200:
        m = _NAMED_LETTER_TEXT_RE.match(answer.strip())  # "Option B: Jupiter"
        if m is not None:
            lt = (m.group(1).upper(), m.group(2).strip())
    if lt is None:
        m = _TEXT_THEN_LETTER_RE.match(answer.strip()) if len(answer) <= 200 else None
        if m is None:
            return False
        text = m.group("text").strip()
        k = max(text.rfind(" is "), text.rfind(": "))  # "The answer is Jupiter (B)": the text after the verb
        lt = ((m.group("l1") or m.group("l2")).upper(), text[k + 3:].strip() if k >= 0 else text)
    if lt[0] not in options or not lt[1]:
        return False
    other = parse_choice(lt[1], options) or _option_by_value(lt[1], options, cues) or _option_as_written(lt[1], options)
    return other is not None and other != lt[0]


_NAMED_LETTER_TEXT_RE = re.compile(r"^(?i:option|choice)[ \t]++([A-J])[ \t]*+(?:[.:)\u2014\u2013]|[ \t]-)[ \t]*+(\S[^\n]*)$")
# an option's text, then a letter: "Jupiter (B)", "Jupiter, option B" (R6.2: both must name one option; a
# parenthesis right after a word is its argument: "O(D)")
_TEXT_THEN_LETTER_RE = re.compile(r"^(?P<text>[^()\n]{1,120}?)(?:[ \t]++\([ \t]*+(?:(?i:option|choice)[ \t]++)?(?P<l1>[A-J])[ \t]*+\)"
                                  r"|,[ \t]*+(?i:option|choice)[ \t]++(?P<l2>[A-J]))[ \t]*+[.!]?$")


def _choice(answer: str, ref: str, options: dict[str, str], cues: Cues | None) -> Judgment | None:
    """R6.2: the letter, the option's text, or both when they agree."""
    want = parse_choice(ref, options or None)
    if want is None:
        return None
    if options and _letter_text_disagree(answer, options, cues):
        return Judgment(False, "differ:choice_letter_text_disagree")  # "(C) <the text of E>"
    got = parse_choice(answer, options or None)
    if got is None and options:
        got = _option_by_value(answer, options, cues)
    if got is None:
        if options and _mentions_other_letter(answer, want):
            return Judgment(False, "differ:choice")
        return None  # not a choice: compare by value (an option's value written another way)
    return Judgment(got == want, "equal:choice" if got == want else "differ:choice")


# "+ C" ending an antiderivative or a general solution: the constant of integration
_CONSTANT_END_RE = re.compile(r"(?<=[\s}])(?P<sign>[+-])\s*+(?P<name>C|K|c|C_\{?\d\}?|c_\{?\d\}?)\s*+\$?\s*+\.?\s*$")
_INTEGRATION_RE = re.compile(r"antiderivative|integra|\\int\b|\u222b|general\s+solution|differential\s+equation",
                             re.IGNORECASE)


_UNIT_VECTOR_RE = re.compile(r"\\(?:mathbf|hat|vec|boldsymbol)\s*+\{\s*+([ijk])\s*+\}")


def _unit_vector_tuple(answer: str, ref: str) -> str | None:
    """A vector written with the unit vectors i, j, k (``\\mathbf{i} + 2\\mathbf{j} - \\hat{k}``,
    ``i + 2j``) as the tuple of its components, where the reference is a vector of two or three;
    ``None`` for anything else."""
    if len(answer) > 160:
        return None
    pr = parse_answer(ref)
    if pr is None or pr.kind not in ("tuple", "matrix"):
        return None
    size = len(pr.value.items) if pr.kind == "tuple" else None
    if size not in (2, 3):
        return None
    t = _UNIT_VECTOR_RE.sub(r" \1 ", strip_math_delimiters(answer.strip()))
    if not _letters(t) <= set("ijk"[:size]):
        return None
    from verifier_runtime.toolkit.latex.convert import _sympy, parse_expression

    e = parse_expression(t, imaginary_unit=False)
    if e is None:
        return None
    sp = _sympy()
    units = [sp.Symbol(n) for n in "ijk"[:size]]
    if not e.free_symbols or not e.free_symbols <= set(units):
        return None
    coeffs = [e.coeff(u) for u in units]
    if any(c.free_symbols for c in coeffs) or sp.expand(e - sum(c * u for c, u in zip(coeffs, units, strict=True))) != 0:
        return None  # "i j", "i^2": no linear combination of unit vectors
    return "(" + ", ".join(sp.latex(c) for c in coeffs) + ")"


def _letters(text: str) -> set[str]:
    """The letters of a formula outside LaTeX commands (``\\frac{3}{2} + 3j`` -> {"j"})."""
    return set(_ANY_LETTER_RE.findall(_LATEX_COMMAND_RE.sub(" ", text))) if len(text) <= 80 else {"?"}


_LATEX_COMMAND_RE = re.compile(r"\\[A-Za-z]+")
_ANY_LETTER_RE = re.compile(r"[A-Za-z]")


def _same_constant_name(answer: str, ref: str, question: str) -> str:
    """R3.3: ``\\frac{x^3}{3} + K`` for ``\\frac{x^3}{3} + C``: the constant of integration under
    another name is the same family of functions (the answer's constant renamed to the reference's)."""
    mr, ma = _CONSTANT_END_RE.search(ref), _CONSTANT_END_RE.search(answer)
    if mr is None or ma is None or ma.group("name") == mr.group("name") or not _INTEGRATION_RE.search(question):
        return answer
    if re.search(r"(?<![A-Za-z\\])" + re.escape(ma.group("name")) + r"(?![A-Za-z])", question):
        return answer  # a constant the question itself names is no constant of integration
    return answer[: ma.start("name")] + mr.group("name") + answer[ma.end("name") :]


def _option_as_written(text: str, options: dict[str, str]) -> str | None:
    """The one option written as ``text``, math delimiters and spaces aside (``\\( ... \\)``)."""
    key = _squash(strip_math_delimiters(text.strip()))
    if not key:
        return None
    hits = [k for k, v in options.items() if v and _squash(strip_math_delimiters(v.strip())) == key]
    return hits[0] if len(hits) == 1 else None


def _option_by_value(answer: str, options: dict[str, str], cues: Cues | None) -> str | None:
    """The one option whose text the answer equals in value ("x = 3" picks option "3")."""
    hits = []
    for letter, text in options.items():
        if not text:
            continue
        j = compare_candidate(answer, text, _no_form(cues), None, element=True)
        if j is not None and j.correct:
            hits.append(letter)
    return hits[0] if len(hits) == 1 else None


_STANDALONE_LETTER_RE = re.compile(r"(?<![A-Za-z'\u2019])(?:([B-HJ])|([AI])(?!\s+(?!(?:and|or|nor|is|are|was|were|to|through|vs)\b)[a-z]))"
                                   r"(?![A-Za-z'\u2019])")


def _letters_named(answer: str, options: dict[str, str]) -> set[str]:
    """Option letters standing alone in an answer ("C, though B is also plausible" names two);
    "A" or "I" before a lower-case word is an article or a pronoun ("A reactive metal"), except
    before a joining word or a verb of being ("A and B are correct", "A is right")."""
    return {m.group(1) or m.group(2) for m in _STANDALONE_LETTER_RE.finditer(answer) if (m.group(1) or m.group(2)) in options}


def _mentions_other_letter(answer: str, want: str) -> bool:
    m = re.match(r"^\s*\(?([A-J])\)?[\s.:)]", answer)
    return bool(m) and m.group(1) != want and m.group(1) in LETTERS


# ----------------------------------------------------------------------------- restatement
_OPERATOR_RE = re.compile(r"[+\-*/^<>\u2264\u2265\u2260\u00d7\u00b7\u221a]|\\(?:frac|dfrac|sqrt|cdot|times|sum|prod|int|binom|sin|cos|tan|log|ln"
                          r"|[gl]eq?|neq?|[gl]t)(?![A-Za-z])|!|(?<![A-Za-z])sqrt\s*+\(")
_MATH_SPAN_RE = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)


_RELATION_SPELLINGS = {"\\geq": "\\ge", "\\geqslant": "\\ge", "\\leq": "\\le", "\\leqslant": "\\le", ">=": "\\ge",
                       "<=": "\\le", "\u2265": "\\ge", "\u2264": "\\le", "\\neq": "\\ne", "\u2260": "\\ne", "!=": "\\ne",
                       "\\dfrac": "\\frac", "\\tfrac": "\\frac"}
_RELATION_SPELLING_RE = re.compile(r"\\(?:geqslant|leqslant|geq|leq|neq|dfrac|tfrac)(?![A-Za-z])|>=|<=|!=|[\u2265\u2264\u2260]")


def _squash(s: str) -> str:
    """Math text without spaces and sizing, each relation and fraction in one spelling."""
    t = re.sub(r"\s+|\\[,;!: ]|\\left|\\right|\\displaystyle", "", s)
    if "\\" in t or "=" in t or not t.isascii():
        t = _RELATION_SPELLING_RE.sub(lambda m: _RELATION_SPELLINGS[m.group()], t)
    return t.rstrip(".")


_MAX_RESTATEMENT_CHARS = 200


_PLAIN_MATH_TOKEN_RE = re.compile(r"[\w.+\-*/^()!|<>{}\u00d7\u00f7\u00b7\u2212\u2264\u2265\u00b0]+")  # "sin(30°)" too
_PLAIN_OPERATOR_CHARS = frozenset("+-*/^!<>\u00d7\u00f7\u00b7\u2212\u2264\u2265")


def _plain_expressions(question: str) -> list[str]:
    """The expressions a question without math delimiters writes in its prose: runs of words
    made of digits and operators ("Compute 6 * 7." -> ``6 * 7``) or a function written out
    ("Simplify sqrt(8)." -> ``sqrt(8)``), or single letters between them."""
    runs: list[str] = []
    cur: list[str] = []
    for word in question.split():
        w = word.strip(",;:?").rstrip(".")  # "Simplify sqrt(8)." ends its sentence after the expression
        if w and _PLAIN_MATH_TOKEN_RE.fullmatch(w) and (
                len(w) == 1 or any(ch.isdigit() or ch in _PLAIN_OPERATOR_CHARS for ch in w)):
            cur.append(w)
            continue
        if cur:
            runs.append(" ".join(cur))
            cur = []
    if cur:
        runs.append(" ".join(cur))
    # an operator, or a function written out ("sqrt(8)", "log(100)")
    return [r for r in runs if any(ch in _PLAIN_OPERATOR_CHARS for ch in r) or _PLAIN_FUNCTION_RE.search(r)]


@memoize_text(maxsize=1024, max_chars=20_000)
def _question_spans(question: str) -> tuple[str, ...]:
    """The question's math spans, whitespace removed (the whole question when it has none,
    and then the expressions its prose writes too, unless it lists options)."""
    spans = [next(g for g in m.groups() if g is not None) for m in _MATH_SPAN_RE.finditer(question)]
    worded = _worded_expressions(question)
    if spans:
        return tuple(_squash(sp) for sp in [*spans, *worded])
    if parse_options(question):
        return (_squash(question),)  # the options' texts are the answers offered, not expressions to evaluate
    return tuple(_squash(sp) for sp in [question, *_plain_expressions(question), *worded])


def _worded_expressions(question: str) -> list[str]:
    """The math of the operations in words a question writes on numbers ("What is 8 squared?"
    -> ``8^2``, "Compute 8 times 3." -> ``(8)*(3)``): an expression of the question as much as
    ``8^2`` written out (R2.6)."""
    if len(question) > 2000 or not _WORD_OPERATION_HINT_RE.search(question):
        return []
    q = _SENTENCE_DOT_RE.sub(" ", question.replace("$", ""))  # "... divided by 4." ends a sentence, no decimal
    out = [form.format(**m.groupdict()) for rx, form in _WORD_OPERATIONS for m in rx.finditer(q)]
    return [_BRACKETED_NUMBER_RE.sub(r"\1", e) for e in out]  # "(12)/(4)" is written "12/4"


_BRACKETED_NUMBER_RE = re.compile(r"\((\d+(?:\.\d+)?)\)")
_SENTENCE_DOT_RE = re.compile(r"(?<=\d)\.(?!\d)")


def is_restatement(answer: str, reference: str, question: str) -> bool:
    """R2.6: the answer only repeats an expression of the question (an expression with an
    operator), and the reference is written otherwise."""
    if not answer or not question or len(answer) > _MAX_RESTATEMENT_CHARS:
        return False
    if not _OPERATOR_RE.search(answer) and not _PLAIN_FUNCTION_RE.search(answer):
        worded = word_operation(answer)  # "8 squared" for "What is 8 squared?" restates it as "8^2" does
        return bool(worded) and _OPERATOR_RE.search(worded) is not None and is_restatement(worded, reference, question)
    a = _squash(answer)
    r = _squash(reference)
    if len(a) < 2 or a == r or r.endswith("=" + a):
        return False  # the answer says what the reference says ("-1" for "x=-1", itself in the question)
    spans = _question_spans(question)
    for sq in spans:
        if a == sq or (len(a) >= 5 and _bounded_in(a, sq)) or (len(a) >= 2 and _bounded_in(a, sq) and len(sq) <= 12):
            return True
    # the same expression in another spelling ("(x^2-1)/(x-1)" for "\frac{x^2-1}{x-1}"): the same
    # symbols, and the same tree once parsed (sympy keeps what it is given; nothing is simplified)
    key = _symbols_key(a)
    same = [sq for sq in spans if len(sq) <= _MAX_RESTATEMENT_CHARS and _symbols_key(sq) == key]
    if not same or (len(key) < 2 and not (_COMMAND_RE.search(a) or _PLAIN_FUNCTION_RE.search(a))):
        return False  # one symbol is too little to call a restatement, unless a function applies to it
    from verifier_runtime.toolkit.latex import parse_ast as _pa
    from verifier_runtime.toolkit.latex import parse_expression as _pe

    # the same parse tree, before any evaluation: "3*4+2" for "$3 \\cdot 4 + 2$", "2^10" for "$2^{10}$",
    # "sqrt(16)" for "\\sqrt{16}" (sympy evaluates numbers, so their trees are compared here)
    ta = _pa(answer)
    if ta is not None and ta[0] != (_pa(reference) or (None,))[0] and any(
            (t := _pa(sq)) is not None and t[0] == ta[0] for sq in same):
        return True
    if len(key) < 3:
        return False
    ea = _pe(answer)
    if ea is None or ea == _pe(reference):
        return False
    return any(_pe(sq) == ea for sq in same)


_COMMAND_RE = re.compile(r"\\[A-Za-z]+")
# a function written by its plain name ("sqrt(16)" for "\\sqrt{16}")
_PLAIN_FUNCTION_RE = re.compile(r"(?<![A-Za-z\\])(?:sqrt|cbrt|binom|exp|log|ln|sin|cos|tan)(?=\s*+\()")


def _symbols_key(s: str) -> str:
    """The letters and digits of a math text in order, its LaTeX commands and plain function names dropped."""
    t = _COMMAND_RE.sub("", s)
    if "(" in t:
        t = _PLAIN_FUNCTION_RE.sub("", t)
    return "".join(ch for ch in t if ch.isalnum())


_EXPR_LEFT = "=:,($ "
_EXPR_RIGHT = "=?.,)$ "


def _spaced(s: str) -> str:
    """Whitespace-normalised math text: LaTeX spaces and sizing removed, runs of spaces made one."""
    t = re.sub(r"\\[,;!: ]|\\left|\\right|\\displaystyle", " ", s).replace("\\dfrac", "\\frac")
    return " ".join(t.split())


def _names_question_expression(label: str, question: str) -> bool:
    """The label is an expression the question itself writes (``2x``, ``A + B``, ``x^2 - 5x + 6``)."""
    lab = _spaced(label).strip("$ ")
    if len(lab) < 2 or not re.search(r"[A-Za-z]", lab):
        return False
    q = _spaced(question)
    return _bounded_in(lab, q) or _bounded_in(lab.replace(" ", ""), q.replace(" ", ""))


def _bounded_in(a: str, text: str) -> bool:
    """``a`` occurs in ``text`` as a whole expression: at an end, or next to ``= : , (`` / ``= ? . , )``."""
    i = text.find(a)
    while i >= 0:
        j = i + len(a)
        if (i == 0 or text[i - 1] in _EXPR_LEFT) and (j == len(text) or text[j] in _EXPR_RIGHT):
            return True
        i = text.find(a, i + 1)
    return False


# ----------------------------------------------------------------------------- typed comparison
# ("<=", ">=", "!=" and "==" are relations, no equals sign of a chain: "-3 <= x <= 3" is no label "-3 <")
_CHAIN_RE = re.compile(r"(?<!\s)\s*+(?:(?<![<>!=])=(?!=)|\\approx|\u2248|\\simeq|\\sim)\s*")
_APPROX_RE = re.compile(r"\\approx|\u2248")
_FUNC_LABEL_RE = re.compile(r"^\s*(?:[A-Za-z]'*\s*\(\s*[A-Za-z0-9, ]+\s*\)|\|[A-Za-z]{1,3}\||\\overline\{[A-Z]{1,3}\}|"
                            r"[A-Z]{2,3}|\\text\{[^{}]{1,30}\}|\\mathrm\{[^{}]{1,30}\}|\\angle\s*[A-Z]{1,3}|"
                            r"m\\angle\s*[A-Z]{1,3}|[A-Za-z](?:_\{?[A-Za-z0-9]{1,4}\}?)?\s*:\s*[A-Za-z](?:_\{?[A-Za-z0-9]{1,4}\}?)?|"
                            r"\(\s*[A-Za-z](?:\s*,\s*[A-Za-z]){1,5}\s*\))\s*$")


def _unlabel(text: str, ref_is_equation: bool, cues: Cues | None, question: str = "") -> tuple[str, str | None]:
    """R4.2: ``x = 11`` -> ``11``; ``(p, q) = (3, 2)`` -> ``(3, 2)``; ``x = 2 + 3 = 5`` -> ``5``;
    ``\\pi \\approx 3.14`` -> ``3.14``; ``x \\in \\{2, -2\\}`` -> ``\\{2, -2\\}``. Returns (value, label)."""
    member = _MEMBER_RE.match(text)
    if member:
        return member.group(2).strip(), member.group(1)
    if "=" not in text and "\\approx" not in text and "\u2248" not in text:
        return text, None
    if "eal" in text and reals_with_condition(text):
        return text, None  # "all real numbers except $x = 3$": a set, no label
    parts = [p for p in _CHAIN_RE.split(text) if p.strip()]
    if len(parts) < 2:
        return text, None
    if ref_is_equation and len(parts) == 2 and not _APPROX_RE.search(text):
        return text, None
    label = parts[0].strip()
    value = parts[-1].strip()
    if _exact_then_approximation(parts[-2].strip(), value, text, cues, question):
        # "\\frac{1}{3} \\approx 0.333", "x = \\sqrt{2} \\approx 1.414": the exact value; its decimal restates it
        return parts[-2].strip(), (label if len(parts) > 2 else None)
    if len(parts) == 2 and strip_label(f"{value} = 0")[0] is not None and strip_label(f"{label} = 0")[0] is None:
        label, value = value, label  # "-3 = x": the value written first
    if len(parts) == 2 and question and _names_question_expression(label, question):
        return value, label  # "2x = 1,234" for "compute 2x": the question's own expression names the value
    neg = _NEGATED_LABEL_RE.match(label)
    if neg and len(parts) == 2 and value and not _APPROX_RE.search(text):
        return f"-({value})", neg.group(1)  # "-y = -1/4" states y = 1/4
    simple, _ = strip_label(f"{label} = 0")
    if simple is None and not _FUNC_LABEL_RE.match(label) and len(parts) == 2 and not _APPROX_RE.search(text):
        if _arithmetic(label):
            return value, None  # "617 x 2 = 1,234": a computation and its result
        return text, None  # "2x + 1 = 7" is an equation, not a labelled value
    if not value:
        return text, None
    return value, label


def _exact_then_approximation(exact: str, approx: str, text: str, cues: Cues | None, question: str) -> bool:
    """R4.2: ``exact \\approx approx`` where ``exact`` is a constant written exactly (no decimal
    point: ``\\frac{1}{3}``, ``2\\sqrt{2}``, ``\\pi``) and ``approx`` its decimal value rounded or
    cut at its last digit, and the question asks for no decimal (then the approximation is the
    answer, as before)."""
    if not _APPROX_RE.search(text) or "." in exact or not approx or "." not in approx:
        return False
    if cues is not None and (cues.decimal_places is not None or cues.sig_figs is not None or cues.decimal):
        return False
    if parse_number(exact) is not None and parse_number(exact).kind == "integer":
        return False  # "42 \\approx 42.0": a whole number, nothing exact to prefer
    if question and any(_squash(exact) == sq or _bounded_in(_squash(exact), sq) for sq in _question_spans(question)):
        return False  # "\\sin 60^\\circ \\approx 0.866": the question's expression, then its decimal
    from verifier_runtime.toolkit.commit import _approximates

    return _approximates(exact, approx) is True


_MEMBER_RE = re.compile(r"^\s*+([A-Za-z])\s*+(?:\\in|\u2208)\s*+(\\\{.+|\{.+)$", re.DOTALL)
_NEGATED_LABEL_RE = re.compile(r"^[-\u2212]\s*([A-Za-z])$")
_ARITH_RE = re.compile(r"^[\d\s.,+\-*/^()\u00d7\u00b7\u2212:]+$|\\(?:times|cdot|div|frac)")


_OPERATOR_IN_RE = re.compile(r"[+*/^\u00d7\u00b7]|(?<=\S)\s*-\s*(?=\S)|\\(?:times|cdot|div|frac)|\sx\s")


def _arithmetic(lhs: str) -> bool:
    """A computation with numbers only (no unknown): ``617 \\times 2``, ``4 x 6``, ``\\frac{3}{4} + 1``,
    ``1.234 kg \\times 1000 g/kg`` (units are not unknowns); a bare number is not a computation."""
    from verifier_runtime.toolkit.latex import parse_expression as _pe

    if not re.search(r"\d", lhs) or not _OPERATOR_IN_RE.search(lhs):
        return False
    t = lhs.replace("\u00d7", "*").replace(" x ", " * ")
    e = _pe(t)
    if e is not None and not getattr(e, "free_symbols", {1}):
        return True
    words = re.findall(r"[A-Za-z]+", re.sub(r"\\[A-Za-z]+", " ", lhs))
    return bool(words) and all(parse_quantity(f"1 {w}") is not None for w in words)


_ABS_LABEL_RE = re.compile(r"^\|\s*+([A-Za-z])\s*+\|$")


def _label_conflicts(label: str | None, ref_label: str | None, cues: Cues | None) -> bool:
    """A label naming another unknown than the one asked for (R4.2), or the asked unknown's
    absolute value ("|x| = 5" does not say x = 5)."""
    if label and "|" in label:
        m = _ABS_LABEL_RE.match(label.strip())
        unknown = ref_label or (cues.unknown if cues is not None else None)
        return bool(m) and bool(unknown) and m.group(1) == unknown
    if not label or len(label) != 1 or not label.isalpha():
        return False
    if ref_label and len(ref_label) == 1 and ref_label.isalpha():
        return label != ref_label
    unknown = cues.unknown if cues is not None else None
    return bool(unknown) and label != unknown


_MODULUS_SUFFIX_RE = re.compile(
    r"^(?P<e>[^\n]{1,60}?)\s*+(?:\\pmod\s*+(?:\{\s*+\d+\s*+\}|\d+)|\\(?:bmod|mod)\s*+(?:\{\s*+\d+\s*+\}|\d+)"
    r"|\(\s*+(?:\\bmod|\\mod|\\text\{\s*+mod\s*+\}|\\mathrm\{\s*+mod\s*+\}|mod(?:ulo)?)\s*+\d+\s*+\))\s*+\.?$")
# a residue class: "x \\equiv 3 \\pmod 7", "2x ≡ 6 (mod 7)", "3 \\pmod{7}", "3 (mod 7)", "3 mod 7"
_CONGRUENCE_RE = re.compile(
    r"^\s*+(?:(?P<lhs>[^\n=\u2261]{1,40}?)\s*+(?:\\equiv|\u2261)\s*+)?(?P<r>[-\u2212]?\d{1,12})\s*+"
    r"(?:\\pmod\s*+\{?\s*+(?P<n1>\d{1,12})\s*+\}?|\\(?:bmod|mod)\s*+\{?\s*+(?P<n2>\d{1,12})\s*+\}?"
    r"|\(\s*+(?:\\bmod|\\mod|\\text\{\s*+mod\s*+\}|\\mathrm\{\s*+mod\s*+\}|mod(?:ulo)?)\s*+(?P<n3>\d{1,12})\s*+\)"
    r"|(?:mod(?:ulo)?|\\text\{\s*+mod\s*+\})\s++(?P<n4>\d{1,12}))\s*+\.?\s*+$")
_QUESTION_INTEGER_RE = re.compile(r"(?<![\d.])\d{1,12}(?!\d|\.\d)")


def congruence(text: str) -> tuple[int, int] | None:
    """(residue, modulus) of a residue class written as a congruence ("x \\equiv 3 \\pmod 7",
    "3 (mod 7)", "3 mod 7"), or ``None``; a modulus of 0 or 1 is none."""
    if "mod" not in text or len(text) > 120:
        return None
    m = _CONGRUENCE_RE.match(strip_math_delimiters(text.strip()).replace("$", ""))
    if m is None:
        return None
    n = int(m.group("n1") or m.group("n2") or m.group("n3") or m.group("n4"))
    if n < 2:
        return None
    return int(m.group("r").replace("\u2212", "-")), n


def _congruence_judgment(answer: str, ref: str, question: str) -> Judgment | None:
    """R4.1: residue classes. A class answers a class with the same modulus and a congruent residue
    ("x \\equiv 10 \\pmod 7" for "x \\equiv 3 \\pmod 7"; another modulus is another class), and the least
    residue answers a class ("3"); a class answers a number (a remainder) when its residue is the
    number and its modulus one the question names ("4 \\pmod 7" for 4; "x \\equiv 3 \\pmod 5" where the
    question asks modulo 7 is another statement); ``None`` where neither side is a class."""
    cr, ca = congruence(ref), congruence(answer)
    if cr is not None:
        r, n = cr
        if ca is not None:
            ok = ca[1] == n and (ca[0] - r) % n == 0
            return Judgment(ok, "equal:congruence" if ok else "differ:congruence")
        na = parse_number(answer)
        if na is None or na.value.denominator != 1:
            return None
        v = int(na.value)
        ok = 0 <= v < n and (v - r) % n == 0
        return Judgment(ok, "equal:congruence" if ok else "differ:congruence")
    if ca is None:
        return None
    nr = parse_number(ref)
    if nr is None or nr.value.denominator != 1:
        return None
    if ca[0] != nr.value:
        return Judgment(False, "differ:number")
    if question and str(ca[1]) not in _QUESTION_INTEGER_RE.findall(question[-2000:]):
        return Judgment(False, "differ:modulus")  # "x \\equiv 3 \\pmod 5" where the question works modulo 7
    return Judgment(True, "equal:number")


_RADIAN_SUFFIX_RE = re.compile(
    r"^(?P<e>.+?)(?<![\s~\\])(?:\s|\\[,;: ]|~)*+(?:\\(?:text|mathrm|rm)\s*\{\s*rad(?:ians?)?\s*\}|rad(?:ians?)?)\s*$")


def compare_candidate(answer: str, ref: str, cues: Cues | None, x: Any = None, *,
                      element: bool = False) -> Judgment | None:
    """Typed comparison of one answer with one reference value under the question's cues
    (R3-R5); ``None`` when neither side parses into a comparable value (text decides).
    An option-letter reference with the question's options is a choice (R6.2): "(A) 1" is
    option A written with option E's text, not the product A times 1."""
    if x is not None and type(answer) is str and type(ref) is str and cues is getattr(x, "cues", None):
        return _per_triple(x, ("compare_candidate", answer, ref, element),
                           lambda: _compare_candidate(answer, ref, cues, x, element))
    return _compare_candidate(answer, ref, cues, x, element)


# a quantity named by its symbol in the answer: "pOH = 3", "the pH is 3"
_QUANTITY_LABEL_RE = re.compile(r"(?<![A-Za-z\\])\$?(?P<q>" + QUANTITY_SYMBOL + r")\$?(?:\s*+(?:=|\\approx|\u2248)"
                                r"|\s++(?:is|was|equals|becomes|(?:would|will)\s++be)\b)")


def _quantity_conflicts(answer: str, cues: Cues | None) -> bool:
    """R4.2: the answer gives the value of other named quantities, not the one asked for
    ("pH = 3" where the question asks for the pOH)."""
    asked = cues.quantity if cues is not None else None
    if not asked:
        return False
    named = {quantity_symbol(q) for q in _QUANTITY_LABEL_RE.findall(answer)}
    return bool(named) and asked not in named


# R6.1: a superscript written inline: "sp3" for sp^3, "1s2 2s2 2p4" for 1s^2 2s^2 2p^4
_SCRIPT_MARKUP_RE = re.compile(r"[\^{}$\s]")
_LETTER_POWER_RE = re.compile(r"(?<=[A-Za-z])\^(?:\d++|\{\d++\})")
_ORBITALS_RE = re.compile(r"^(?:\d?+[spdf](?:\^(?:\d++|\{\d++\}))?+[ \t]*+)++$")


def _inline_script(answer: str, ref: str) -> Judgment | None:
    """R6.1: one side writes a letter's numeric superscript with a caret and the other writes the
    same characters without it. In orbital notation (hybridization ``sp^3``, electron
    configurations ``1s^2 2s^2 2p^4``) the inline writing is the usual one, so they are equal; in
    algebra ``x2`` for ``x^2`` may be a power, a subscript or a product, so no module decides it
    (``ambiguous:inline_script``, incorrect for the criterion). ``None`` where the writings differ
    in more than the carets."""
    scripted = ref if "^" in ref else answer
    bare = answer if scripted is ref else ref
    if len(scripted) > 80 or not _LETTER_POWER_RE.search(scripted) or "\\" in scripted or "\\" in bare:
        return None
    if _LETTER_POWER_RE.sub(lambda m: m.group(0).strip("^{}"), scripted).replace(" ", "") != bare.replace(" ", ""):
        return None
    if not _SCRIPT_MARKUP_RE.sub("", scripted) or _is_quantity(scripted) or _is_quantity(bare):
        return None  # "5 cm3" for 5 cm^3: a unit's power, which the quantities compare
    if _ORBITALS_RE.match(scripted.strip()):
        return Judgment(True, "equal:inline_script")
    return Judgment(False, "ambiguous:inline_script")


# R6.1: a chemical equation ("2H_2 + O_2 \rightarrow 2H_2O"): its arrow in any writing
_ARROW_RE = re.compile(r"\\(?:long)?rightarrow|\\to(?![A-Za-z])|\\rightleftharpoons|\\leftrightharpoons|->|\u2192|\u27f6|\u21cc")
_SPECIES_RE = re.compile(r"^(?P<coef>\d*+)(?P<formula>" + CHEMICAL_SPECIES.removeprefix(r"\d*+") + r")$")
_REACTION_MARKUP_RE = re.compile(r"\\(?:mathrm|text|ce)\s*+|[_{}$\s]")


def _reaction(text: str) -> tuple[tuple[tuple[int, str], ...], ...] | None:
    """The two sides of a chemical equation as sorted (coefficient, formula) lists, or ``None``
    when ``text`` is no such equation (charges, states and conditions are not read)."""
    if len(text) > 200 or "^" in text:
        return None
    parts = _ARROW_RE.split(_REACTION_MARKUP_RE.sub("", text.replace("\\,", "")))
    if len(parts) != 2:
        return None
    sides = []
    for side in parts:
        species = []
        for item in side.split("+"):
            m = _SPECIES_RE.match(item)
            if m is None:
                return None
            species.append((int(m.group("coef") or 1), m.group("formula")))
        sides.append(tuple(sorted(species)))
    return tuple(sides)


def _reaction_judgment(answer: str, ref: str) -> Judgment | None:
    """R6.1: chemical equations compare by their species and coefficients on each side, in any
    order, with any arrow and any subscript writing (``2H2 + O2 -> 2H2O`` for
    ``2H_2 + O_2 \rightarrow 2H_2O``); ``None`` when either is no such equation."""
    rr = _reaction(ref)
    ra = _reaction(answer) if rr is not None else None
    if ra is None:
        return None
    return Judgment(True, "equal:reaction") if ra == rr else Judgment(False, "differ:reaction")


# a logarithm written without its base: "\log 100" is 2 to one grader (base 10) and 4.605 to another (base e)
_BARE_LOG_RE = re.compile(r"(?<![A-Za-z])\\?log(?![A-Za-z_])(?!\s*+_)")
# the question fixes the base: "\log_{10}", "common logarithm", "log base 10"; "\ln", "natural logarithm"
_LOG_BASE_CUE_RE = re.compile(r"\\log\s*+_|\\ln(?![A-Za-z])|\b(?:common|natural|decimal)\s++log|\blog(?:arithm)?\s++(?:to\s++)?base\b",
                              re.IGNORECASE)


def _compare_candidate(answer: str, ref: str, cues: Cues | None, x: Any, element: bool) -> Judgment | None:
    j = _compare_core(answer, ref, cues, x, element)
    if ("log" in answer or "log" in ref) and (_BARE_LOG_RE.search(answer) or _BARE_LOG_RE.search(ref)):
        question = x.question if x is not None and isinstance(getattr(x, "question", None), str) else ""
        if not _LOG_BASE_CUE_RE.search(question):
            # R4.1: a logarithm with no base and no base in the question is read both ways; where the two
            # readings disagree, neither is the answer's meaning for certain
            ten = _compare_core(_BARE_LOG_RE.sub(r"\\log_{10}", answer), _BARE_LOG_RE.sub(r"\\log_{10}", ref), cues, x,
                                element)
            if (j is not None and j.correct) != (ten is not None and ten.correct):
                return Judgment(False, "ambiguous:log_base")
    return j


def _compare_core(answer: str, ref: str, cues: Cues | None, x: Any, element: bool) -> Judgment | None:
    if _quantity_conflicts(answer, cues):
        return Judgment(False, "differ:label")
    if ref[-1:] in "CKc" and x is not None and x.question:
        answer = _same_constant_name(answer, ref, x.question)
    if ("j" in answer and "i" in ref) or ("j" in ref and "i" in answer):
        label = _LABELLED_RE.match(answer)  # ("Z = 3 + 4i": the label is no letter of the value, and stays)
        head = answer[: label.end()] if label else ""
        bare = answer[len(head) :]
        if "j" in bare and _letters(bare) == {"j"} and _letters(ref) == {"i"}:
            answer = head + bare.replace("j", "i")  # R4.1: "2 + 3j" writes the imaginary unit as engineers do
        elif "i" in bare and _letters(ref) == {"j"} and _letters(bare) == {"i"}:
            ref = ref.replace("j", "i")  # and a reference "3 + 4j" is answered by "3 + 4i"
    if ("j" in answer or "k" in answer) and ("," in ref or "begin" in ref):
        vector = _unit_vector_tuple(answer, ref)
        if vector is not None:
            answer = vector  # R4.4: "i + 2j + 3k" is the vector (1, 2, 3)
    if x is not None and not element and _is_letter(ref):
        options = x.options
        if options:
            return _choice(answer, ref, options, cues)
    if len(ref) <= 120 and _DIMENSION_HINT_RE.search(ref) and _DIMENSION_HINT_RE.search(answer):
        dr = parse_dimensions(ref)
        da = parse_dimensions(answer) if dr is not None else None
        if da is not None and dr is not None:
            same = dimensions_equal(da, dr)
            if same is not None:  # "3 cm by 5 cm" for 3 \times 5 cm: the same factors, a unit on each (R4.5)
                return Judgment(same, "equal:factors" if same else "differ:factors")
    if ref[:1].isdigit() and _FACTOR_SPLIT_RE.search(ref):
        factors = _factor_judgment(answer, ref, x.question if x is not None else "", asked=False)
        if factors is not None:
            return factors  # "5 x 3" for 3 \times 5: the same factors, never the product 15x (R3.3)
    if has_plus_minus(answer) != has_plus_minus(ref):
        # "x = \pm 2" for "x = 2 or x = -2": the two values of the sign against the listed solutions
        va, vr = solution_values(answer), solution_values(ref)
        if va is not None and vr is not None:
            return _compare_candidate(", ".join(va), ", ".join(vr), cues, x, element)
    if ("^" in ref) != ("^" in answer):
        script = _inline_script(answer, ref)
        if script is not None:
            return script
    if _ARROW_RE.search(ref):
        reaction = _reaction_judgment(answer, ref)
        if reaction is not None:
            return reaction
    if _FORMULA_CHARS_RE.fullmatch(ref.strip()) and _is_formula(ref):
        # R6.1: a chemical formula compares as written, never as a product of unknowns (H2O is
        # not 2HO); its LaTeX and Unicode subscripts are the same formula (H_2O, H_{2}O, H₂O)
        ia, ir = parse_identifier(answer), parse_identifier(ref)
        if ia is None or ia.kind != "chemical_formula" or ir is None:
            return None  # the text rules decide
        return Judgment(ia.text == ir.text, "equal:formula" if ia.text == ir.text else "differ:formula")
    if "=" in answer and "=" in ref:
        fa, fr = _FUNCTION_LABEL_RE.match(answer), _FUNCTION_LABEL_RE.match(ref)
        if fa and fr and (fa.group("y") is None) != (fr.group("y") is None):
            # R4.2: "y = x + 1" and "f(x) = x + 1" name one function's value two ways: the right-hand sides decide
            return _compare_candidate(fa.group("rhs"), fr.group("rhs"), cues, x, element)
        na, nr = _NAMED_VALUE_RE.match(answer), _NAMED_VALUE_RE.match(ref)
        if (na and nr and (na.group("args") is None) != (nr.group("args") is None)
                and _name_key(na.group("name")) == _name_key(nr.group("name"))):
            # R4.2: "\rho(t) = ..." and "\rho = ..." name one quantity, once with its argument
            return _compare_candidate(na.group("rhs"), nr.group("rhs"), cues, x, element)
    if "=" in ref and "=" not in answer:
        fr = _FUNCTION_LABEL_RE.match(ref)
        if fr and fr.group("y") is None:
            # R4.2: "x^2 + 1" for "f(x) = x^2 + 1": the function's value, its name left out
            return _compare_candidate(answer, fr.group("rhs"), cues, x, element)
    if _empty_set(answer) and _empty_set(ref):
        return Judgment(True, "equal:empty_set")  # "no solution" for \emptyset (R4.4)
    if "{" in answer and _SET_OF_EMPTY_RE.match(answer) and (_empty_set(ref) or _SET_OF_EMPTY_RE.match(ref)):
        return Judgment(_SET_OF_EMPTY_RE.match(ref) is not None, "equal:set" if _SET_OF_EMPTY_RE.match(ref) else "differ:set")
    if "=" in ref and "=" not in answer and answer.lstrip().startswith(("(", "\\left(", "\\langle")):
        values = _labelled_values(ref)
        if values is not None:  # "x = 2, y = -1" read as the pair (2, -1) for "(2, -1)" (R4.2)
            return _compare_candidate(answer, "(" + ", ".join(values) + ")", cues, x, element)
    pr0 = parse_answer(ref)
    ref_is_eq = pr0 is not None and pr0.kind == "equation"
    a_text, a_label = _unlabel(answer, ref_is_eq, cues, x.question if x is not None else "")
    r_text, r_label = _unlabel(ref, False, None) if not ref_is_eq else (ref, None)
    if _label_conflicts(a_label, r_label, cues):
        return Judgment(False, "differ:label")
    if "for" in a_text or "where" in a_text or "," in a_text or "(" in a_text:
        dom = DOMAIN_NOTE_RE.match(a_text)
        if dom:
            a_text = dom.group("e")  # "x + 1 for $x \\neq 1$": the value, with the points it excludes noted
    if " in " in a_text or " out of " in a_text:
        share = _K_OF_N_RE.match(strip_math_delimiters(a_text))
        nr = parse_number(r_text) if share else None
        if share and nr is not None:
            # R4.1: "1 in 6", "25 out of 30": a share where the reference is one (1/6), the count where it
            # is a whole number (25); the count's total is never the answer
            k, n = int(share.group("k")), int(share.group("n"))
            if nr.kind in ("integer", "words") and nr.value.denominator == 1:
                return Judgment(Fraction(k) == nr.value, "equal:number" if Fraction(k) == nr.value else "differ:number")
            if n:
                a_text = f"{k}/{n}"
    rad = _RADIAN_SUFFIX_RE.match(a_text)
    if rad and parse_number(rad.group("e")) is None:
        a_text = rad.group("e")  # "\\frac{2\\pi}{3}\\ \\text{rad}": an exact radian measure
    if "mod" in a_text or "mod" in r_text:
        congruent = _congruence_judgment(a_text, r_text, x.question if x is not None else "")
        if congruent is not None:
            return congruent
    mod = _MODULUS_SUFFIX_RE.match(a_text) if "mod" in a_text else None
    if mod and "mod" not in r_text:
        a_text = mod.group("e")  # "4 \\pmod 7" for the remainder 4: the residue, its modulus named (R4.1)
    pr = parse_answer(r_text)
    if pr is not None and pr.kind in ("text", "expression") and ("2" in r_text or "3" in r_text):
        glued = glued_exponents(r_text)  # a reference "5 cm3" is 5 cm^3 (R4.5), not the product 5*c*m*3
        pg = parse_answer(glued) if glued != r_text else None
        if pg is not None and pg.kind == "quantity":
            pr, r_text = pg, glued
    if pr is None or pr.kind == "text":
        return None  # a text reference: the text rules decide (no answer parse needed)
    if pr.kind == "quantity" and ("2" in a_text or "3" in a_text):
        a_text = glued_exponents(a_text)  # "5 cm3" for 5 cm^3: the exponent glued to its unit (R4.5)
    pa = parse_answer(a_text)
    if pa is None:
        return None
    if pa.kind == "text" or pr.kind == "text":
        if pa.kind == "text" and pr.kind != "text" and _mathy(pr.text):
            return None  # prose around a value: the text rules look for it
        return None
    j = _typed(pa, pr, a_text, r_text, cues, x)
    if j is None:
        return None
    if j.correct and not element and cues is not None and cues.form_requirements:
        bad = form_violations(a_text, cues, reference=r_text)
        if bad:
            return Judgment(False, bad[0])
    return j


def _typed(pa: Answer, pr: Answer, a_text: str, r_text: str, cues: Cues | None, x: Any) -> Judgment | None:
    ka, kr = pa.kind, pr.kind
    if ka == "number" and kr == "number":
        return compare_numbers(pa.value, pr.value, cues, x)
    if "ratio" in (ka, kr) and ka != kr:
        return _ratio_vs_value(pa, pr, cues)
    if ka == kr == "expression":
        j = _coefficient_times_symbol(pa, pr, a_text, r_text, cues, x)
        if j is not None:
            return j
    if "quantity" in (ka, kr):
        return _quantities(pa, pr, cues, x)
    if {ka, kr} <= {"number", "expression"}:
        j = _number_expression(pa, pr, cues)
        if j is not None and j.reason == "differ:expression" and ka == kr == "expression" and x is not None \
                and _symbol_of_its_own(pa.value, pr.value, x.question or ""):
            return Judgment(False, "ambiguous:own_symbol")
        return j
    if {ka, kr} == {"matrix", "tuple"}:
        vec = _vector_of(pa if ka == "matrix" else pr)
        if vec is not None:  # a column (or row) vector is the ordered tuple of its entries
            comp = compare_answers(vec, pr if ka == "matrix" else pa)
            if comp.equal is not None:
                return Judgment(comp.equal, "equal:tuple" if comp.equal else "differ:tuple")
    if kr == "set" and ka != "set" and len(getattr(pr.value, "items", ())) > 1:
        return Judgment(False, "differ:missing_element")
    if ka in ("set", "tuple") and kr not in ("set", "tuple", "interval") and len(getattr(pa.value, "items", ())) > 1:
        if kr in ("number", "expression") and has_plus_minus(a_text):
            return Judgment(False, "hedge:plus_minus")
        return Judgment(False, "hedge:list_for_single_answer")
    if ka == "tuple" and kr == "interval" or ka == "interval" and kr == "tuple":
        want_interval = cues is not None and cues.interval
        tup = pa.value if ka == "tuple" else pr.value
        iv = tuple_as_interval(tup)
        other = pr.value if ka == "tuple" else pa.value
        if iv is not None and (want_interval or True):
            r = interval_sets_equal(iv, other)
            return Judgment(bool(r), "equal:interval" if r else "differ:interval")
    if ka == "tuple" and kr == "tuple" and cues is not None and cues.interval:
        ia, ir = tuple_as_interval(pa.value), tuple_as_interval(pr.value)
        if ia is not None and ir is not None:
            r = interval_sets_equal(ia, ir)
            return Judgment(bool(r), "equal:interval" if r else "differ:interval")
    comp = compare_answers(pa, pr)
    if comp.equal is None:
        if comp.detail == "tuple:bracket_ambiguous":
            return Judgment(False, "differ:bracket")
        if comp.detail in ("kind_mismatch", "undecidable", "unparsed", "error", "invalid_answer"):
            return None
        return Judgment(False, f"undecided:{comp.detail}")
    return Judgment(comp.equal, ("equal:" if comp.equal else "differ:") + comp.kind)


def _vector_of(m: Answer) -> Answer | None:
    """A one-column or one-row matrix as a tuple (``\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}`` = ``(1, 2)``)."""
    from verifier_runtime.toolkit.structures import Collection

    mat = m.value
    if getattr(mat, "is_determinant", True) or not mat.rows:
        return None
    if all(len(r) == 1 for r in mat.rows) and len(mat.rows) > 1:
        items = tuple(r[0] for r in mat.rows)
    elif len(mat.rows) == 1 and len(mat.rows[0]) > 1:
        items = tuple(mat.rows[0])
    else:
        return None
    return Answer("tuple", Collection(items, True, "(", m.text), m.text)


_LEADING_NUMBER_RE = re.compile(
    r"^\s*+\$?\s*+([-+\u2212]?(?:\d[\d,]*\.?\d*|\.\d+)(?:\s*(?:\\times|\\cdot|\u00d7)\s*10\s*\^\s*\{?\s*[-+\u2212]?\d+\s*\}?|[eE][-+]?\d+)?)")


def _coefficient_times_symbol(pa: Answer, pr: Answer, a_text: str, r_text: str, cues: Cues | None,
                              x: Any) -> Judgment | None:
    """``1.602 \\times 10^{-19} C`` against ``1.6 \\times 10^{-19} C``: the same symbol (a unit letter
    the unit registry does not take alone, or a variable) times written numbers, compared as numbers."""
    try:
        ca, ra = pa.value.as_coeff_Mul()
        cb, rb = pr.value.as_coeff_Mul()
    except AttributeError:
        return None
    if ra != rb or ra == 1 or not (ca.is_Number and cb.is_Number):
        return None
    ma, mb = _LEADING_NUMBER_RE.match(a_text), _LEADING_NUMBER_RE.match(r_text)
    na = parse_number(ma.group(1)) if ma else None
    nb = parse_number(mb.group(1)) if mb else None
    if na is None or nb is None or float(na.value) != float(ca) or float(nb.value) != float(cb):
        return None
    j = compare_numbers(na, nb, _no_form(cues), x)
    return Judgment(j.correct, j.reason.replace("number", "expression") if not j.correct else j.reason)


def _ratio_vs_value(pa: Answer, pr: Answer, cues: Cues | None) -> Judgment | None:
    """R4.4: ``3:2`` and ``3/2`` agree where the question asks for a ratio."""
    ratio, other = (pa.value, pr) if pa.kind == "ratio" else (pr.value, pa)
    if len(ratio.terms) != 2 or ratio.terms[1] == 0 or other.kind != "number":
        return None
    if cues is None or not cues.ratio:
        return Judgment(False, "differ:ratio_form")
    ok = ratio.terms[0] / ratio.terms[1] == other.value.value
    return Judgment(ok, "equal:ratio" if ok else "differ:ratio")


# ----------------------------------------------------------------------------- numbers
def _percent_value(n: Number, cues: Cues | None) -> Fraction:
    """Under a percentage cue a bare number is a percent figure (``45`` means 45 %)."""
    if cues is not None and cues.percentage and not n.is_percent:
        return n.value / 100
    return n.value


_BASE_OF_RE = re.compile(r"_\{?\(?(\d{1,2})\)?\}?\s*$")
_BASE_WORDS = {2: "binary", 3: "ternary", 8: "octal", 16: "hexadecimal"}


def _in_asked_base(na: Number, nr: Number, question: str) -> Number | None | bool:
    """R4.1: the question asks for base ``b`` ("in base 6", "base-2 representation", "in binary")
    and the reference is written in it (``113_6``): a plain digit string answers in base ``b``
    (``113`` is 45, and ``45`` is not); ``False`` when its digits are no base-``b`` numeral."""
    m = _BASE_OF_RE.search(nr.text.strip())
    if m is None:
        return None
    b = int(m.group(1))
    if b == 10 or not re.search(r"\bbase[\s\-$~{]*" + str(b) + r"(?!\d)" + (r"|\b" + _BASE_WORDS[b] + r"\b" if b in _BASE_WORDS
                                                                             else ""), question, re.IGNORECASE):
        return None
    digits = na.text.strip().strip("$").strip()
    if not digits.isdigit():
        return None
    try:
        return Number(Fraction(int(digits, b)), na.text, "based")
    except ValueError:  # a digit the base does not have ("45" in base 4)
        return False


_BULLET_SIGN_RE = re.compile(r"^[ \t]*+-[ \t]++\d")


def compare_numbers(na: Number, nr: Number, cues: Cues | None = None, x: Any = None) -> Judgment:
    """R5.3: what the question asks (decimal places, significant figures), else the
    reference's stated precision (half a unit of its last digit); integers and fractions exact."""
    if na.comma_ambiguous and x is not None:
        reading = _comma_reading(na, x)
        if reading is None:
            return Judgment(False, "ambiguous:comma")
        na = reading
    if nr.comma_ambiguous and x is not None:
        nr = _comma_reading(nr, x) or nr  # the reference is read by the same convention
    if na.value and na.value == -nr.value and _BULLET_SIGN_RE.match(na.text):
        # "- 72" for 72: a Markdown bullet or a minus sign set apart; the writing cannot tell (R4.1)
        return Judgment(False, "ambiguous:bullet_or_sign")
    if nr.kind == "based" and na.kind == "integer" and x is not None:
        based = _in_asked_base(na, nr, x.question or "")
        if based is False:
            return Judgment(False, "differ:base")
        na = based or na
    a, r = _percent_value(na, cues), _percent_value(nr, cues)
    if nr.is_percent and not na.is_percent and a != r and na.value / 100 == r and na.value:
        return Judgment(True, "equal:percent_figure")  # "10" for 10 %: read in the reference's unit (R5.2)
    if cues is not None and cues.percentage and a != r and na.value == r and not na.is_percent:
        return Judgment(False, "form:percent_required")
    if cues is not None and cues.decimal_places is not None:
        d = cues.decimal_places + (2 if cues.percentage else 0)
        if a == round_to_decimals(r, d) or a == r:
            return Judgment(True, "equal:rounded_as_asked")
        ref_places = nr.decimals
        if ref_places is not None and ref_places < cues.decimal_places and round_to_decimals(a, ref_places) == r:
            return Judgment(True, "equal:within_reference_precision")
        return Judgment(False, "differ:rounding")
    if cues is not None and cues.sig_figs is not None:
        n = cues.sig_figs
        if a == r or a == round_to_sig_figs(r, n):
            return Judgment(True, "equal:rounded_as_asked")
        return Judgment(False, "differ:rounding")
    if a == r:
        return Judgment(True, "equal:number")
    tol = reference_tolerance(nr)
    if tol and abs(a - r) <= tol * (Fraction(1, 100) if (cues is not None and cues.percentage and not nr.is_percent)
                                      else 1):
        return Judgment(True, "equal:within_reference_precision")
    return Judgment(False, ambiguous_miss(na, nr) or "differ:number")


#: the fewest significant figures a coarser rounding keeps to count as one (``0.002`` for 0.00214 does not)
COARSER_MIN_SIG_FIGS = 2


#: how close a value must be to a reference stated to three or more figures to be a near value (R5.3)
CLOSE_REL = Fraction(1, 100)


def ambiguous_miss(na: Number, nr: Number) -> str | None:
    """R5.3: the ``ambiguous:`` reason of a number that misses the reference's stated precision
    in a way graders part over (a coarser rounding, a near value), else ``None`` (``differ``)."""
    if coarser_rounding(na, nr):
        return "ambiguous:coarser_rounding"
    if near_value(na, nr):
        return "ambiguous:near_value"
    return None


def finer_value(na: Number, nr: Number) -> bool:
    """R5.3: a measured quantity's whole-number reference (``18 g/mol``) answered by a decimal that
    rounds to it (``18.015``). An integer reference is exact for the criterion, so it is
    incorrect; but a quantity with a unit is a measurement written to whole units, and graders
    accept the finer value, so no module decides it. Only called for quantities: a bare integer
    reference (a count, an exact result) stays exact (``42.3`` for 42 is ``differ``)."""
    if na.kind != "decimal" or nr.kind != "integer" or not nr.value or na.is_percent or nr.is_percent:
        return False
    return (na.value < 0) == (nr.value < 0) and round_to_decimals(na.value, 0) == nr.value


def near_value(na: Number, nr: Number) -> bool:
    """R5.3: ``na`` and a reference with a stated precision of three or more significant figures
    differ by at most :data:`CLOSE_REL` of the reference, and ``na`` is itself written to three or
    more (``1.42 x 10^6`` for 1.43 x 10^6, ``0.4653`` for 0.466). The difference sits in the last
    stated digits, where a constant's value or an intermediate rounding moves a computed result;
    the criterion judges it incorrect, and no module decides it."""
    if not _precise_pair(na, nr) or na.sig_figs < 3 or nr.sig_figs < 3:
        return False
    return abs(na.value - nr.value) <= abs(nr.value) * CLOSE_REL


def _precise_pair(na: Number, nr: Number) -> bool:
    """Both are written numbers with significant figures, the reference a decimal or in scientific
    notation without a comma (``2500,7500`` may be a list), of one sign, neither zero nor a percent."""
    if na.is_percent or nr.is_percent or na.value == 0 or nr.value == 0 or nr.comma_ambiguous or "," in nr.text:
        return False
    if nr.kind not in ("decimal", "scientific") or na.kind not in ("integer", "decimal", "scientific"):
        return False
    return bool(na.sig_figs and nr.sig_figs) and (na.value < 0) == (nr.value < 0)


def coarser_rounding(na: Number, nr: Number) -> bool:
    """R5.3: ``na`` is the reference rounded to fewer digits than the reference states (``3.53``
    for 3.528, ``3600`` for 3.61 x 10^3, ``82.8`` for 82.75), keeping at least
    :data:`COARSER_MIN_SIG_FIGS` significant figures. The criterion judges it incorrect (looser
    than stated), and it is also where graders part ways most (many accept a reasonable rounding),
    so no module decides it: it is ``ambiguous:coarser_rounding``, left to the judge.

    Only a reference with a stated precision counts: a decimal or one in scientific notation,
    written without a comma (``2500,7500`` may be a list). An integer reference is exact (``140``
    for 144, ``160^\\circ`` for 156 degrees stay ``differ``), and percents and fractions are left alone."""
    if not _precise_pair(na, nr) or na.sig_figs < COARSER_MIN_SIG_FIGS:
        return False
    last_a = _exponent10(na.value) - na.sig_figs + 1  # the place of each one's last significant digit
    last_r = _exponent10(nr.value) - nr.sig_figs + 1
    return last_a > last_r and round_to_decimals(nr.value, -last_a) == na.value


def reference_tolerance(nr: Number) -> Fraction:
    """Half a unit of the reference's last written digit; 0 for integers, fractions, words."""
    if nr.kind == "scientific" and nr.sig_figs:
        v = abs(nr.value)
        if v == 0:
            return Fraction(0)
        e = math.floor(math.log10(float(v)))
        return Fraction(10) ** (e - nr.sig_figs + 1) / 2
    if nr.kind in ("decimal", "percent") and nr.decimals:
        scale = Fraction(1, 100) if nr.is_percent else Fraction(1)
        return Fraction(1, 10**nr.decimals) / 2 * scale
    return Fraction(0)


_DECIMAL_COMMA_EVIDENCE_RE = re.compile(r"\d,\d{1,2}(?!\d)|\d,\d{4,}|(?<![\d,.])0,\d")
_POINT_EVIDENCE_RE = re.compile(r"\d\.\d|\d{1,3}(?:,\d{3}){2,}|\d,\d{3}\.\d")


def _comma_reading(na: Number, x: Any) -> Number | None:
    """R4.1: ``1,234`` read by the convention of the rest of the text; English text (no decimal
    commas) reads thousands; no evidence in a non-English text: undecided."""
    texts = " ".join(t for t in (x.question, x.reference, x.response) if t)
    reading = _comma_convention(texts, na.text)
    if reading == "point":
        return na
    if reading == "comma":
        return parse_number(na.text.replace(",", "."))
    return None


def _comma_convention(texts: str, number_text: str) -> str | None:
    """R4.1: what a comma between digits is in these texts, ``number_text`` left out: ``"comma"``
    (decimal commas are evidenced, no decimal points), ``"point"`` (decimal points, or English
    text, which writes no decimal commas) or ``None`` (no evidence)."""
    text = texts.replace(number_text, " ")
    comma = bool(_DECIMAL_COMMA_EVIDENCE_RE.search(text))
    point = bool(_POINT_EVIDENCE_RE.search(text))
    if point and not comma:
        return "point"
    if comma and not point:
        return "comma"
    words = {w.lower() for w in re.findall(r"[^\W\d_]+", texts)}
    known = len(words & _ENGLISH_WORDS)
    # a short English instruction ("Compute.", "Evaluate the sum.") is evidence enough
    english = (known >= 2 or (known == 1 and len(words) <= 6)) and all(w.isascii() for w in words)
    return "point" if english and not comma else None


# Function words of English text (an English text writes no decimal commas: R4.1)
_ENGLISH_WORDS = frozenset(
    "the a an is are was were of to in on for and or what how many much which who with by from that this it be "
    "does do did has have total answer find give compute evaluate calculate simplify solve determine express "
    "write round estimate".split())


# ----------------------------------------------------------------------------- numbers and expressions
def _identity_of_number(e: Any, n: Answer) -> bool:
    """An expression with free symbols that equals the written number at every point (an identity)."""
    if n.kind != "number":
        return False
    from verifier_runtime.toolkit.latex.convert import _sympy
    from verifier_runtime.toolkit.latex.equality import expressions_equal

    v = n.value.value
    return expressions_equal(e, _sympy().Rational(v.numerator, v.denominator)) is True


def _symbol_of_its_own(ea: Any, er: Any, question: str) -> bool:
    r"""R3.1: the answer is written through a symbol that neither the reference nor the question
    has (``kq/r^2`` for ``q / (4\pi\epsilon_0 r^2)``: a constant the response named in its working).
    Its value is then not comparable with the reference's, so no module decides it: graders read
    the working (the criterion judges it incorrect, ``ambiguous:own_symbol``)."""
    try:
        if ea.is_Symbol or er.is_Symbol:
            return False  # a letter for a letter ("M" for the choice B, "P" for K): another answer
        ref_names = {s.name.casefold() for s in er.free_symbols}
        own = {s.name for s in ea.free_symbols if s.name.casefold() not in ref_names}
    except AttributeError:
        return False
    for name in own:  # (a symbol in the other case, X for x, is the reference's symbol miswritten: R6.1)
        base = name.split("_", 1)[0]
        if not re.search(r"(?<![A-Za-z])\\?" + re.escape(base) + r"(?![A-Za-z])", question, re.IGNORECASE):
            return True
    return False


_TIMES_C_RE = re.compile(r"^\s*+\$?\s*+(?P<n>[-+]?\d*+\.?\d++)\s*+(?:\\[,;:! ]\s*+)?(?:\\cdot\s*+)?c\s*+\$?\s*+$")


def _light_speed_figure(pa: Answer, pr: Answer, cues: Cues | None) -> Judgment | None:
    """R5.2: a bare number for a speed written as a multiple of c ("0.939" for 0.939c, or the
    other way round), where the question writes speeds in units of c (``Cues.light_speed``): the
    number is read in the other side's unit and compared with its precision; else ``None``."""
    if cues is None or not cues.light_speed:
        return None
    num, mul = (pa, pr) if pa.kind == "number" else (pr, pa)
    if num.kind != "number" or mul.kind != "expression":
        return None
    m = _TIMES_C_RE.match(mul.text)
    coef = parse_number(m.group("n")) if m else None
    if coef is None:
        return None
    j = compare_numbers(num.value, coef, cues) if num is pa else compare_numbers(coef, num.value, cues)
    return Judgment(j.correct, "equal:figure_in_c" if j.correct else j.reason)


def _number_expression(pa: Answer, pr: Answer, cues: Cues | None) -> Judgment | None:
    ea = pa.value if pa.kind == "expression" else None
    er = pr.value if pr.kind == "expression" else None
    if (ea is not None and not _constant(ea)) or (er is not None and not _constant(er)):
        if pa.kind == "expression" and pr.kind == "expression":
            comp = compare_answers(pa, pr)
            if comp.equal is None:
                return None
            return Judgment(comp.equal, "equal:expression" if comp.equal else "differ:expression")
        if _identity_of_number(ea if ea is not None else er, pr if ea is not None else pa):
            return Judgment(True, "equal:expression")  # sin^2 x + cos^2 x for 1: the same value everywhere
        in_c = _light_speed_figure(pa, pr, cues)
        if in_c is not None:
            return in_c
        return Judgment(False, "differ:expression")
    va = real_value(pa)
    vr = real_value(pr)
    if va is None or vr is None:
        comp = compare_answers(pa, pr)
        if comp.equal is None:
            return None
        return Judgment(comp.equal, "equal:expression" if comp.equal else "differ:expression")
    if pa.kind == "expression" and pr.kind == "expression":
        comp = compare_answers(pa, pr)
        if comp.equal is not None:
            return Judgment(comp.equal, "equal:expression" if comp.equal else "differ:expression")
    # one side a written number, the other an exact expression (pi, sqrt 2, 1/3 written as \frac)
    if pr.kind == "number":
        exact = compare_answers(pa, pr)
        if exact.equal:
            return Judgment(True, "equal:number")
        tol = reference_tolerance(pr.value)
        if tol and abs(va - float(pr.value.value)) <= float(tol) * (1 + 1e-12):
            return Judgment(True, "equal:within_reference_precision")
        return Judgment(False, "differ:number")
    # the reference is exact, the answer a written decimal
    na: Number = pa.value
    exact = compare_answers(pa, pr)
    if exact.equal:
        return Judgment(True, "equal:number")
    if cues is not None and cues.decimal_places is not None:
        d = cues.decimal_places
        ok = abs(float(na.value) - round(vr, d)) < 10 ** (-(d + 6)) if abs(vr) < 1e15 else False
        return Judgment(ok, "equal:rounded_as_asked" if ok else "differ:rounding")
    if cues is not None and cues.sig_figs is not None:
        target = _round_sig(vr, cues.sig_figs)
        ok = target is not None and abs(float(na.value) - target) <= abs(target) * 1e-12
        return Judgment(ok, "equal:rounded_as_asked" if ok else "differ:rounding")
    if cues is not None and cues.decimal and na.decimals and na.decimals >= 2:
        ok = abs(float(na.value) - round(vr, na.decimals)) < 10 ** (-(na.decimals + 6))
        return Judgment(ok, "equal:rounded_as_asked" if ok else "differ:rounding")
    return Judgment(False, "differ:exact_value_required" if abs(float(na.value) - vr) < 1e-2 * max(1, abs(vr))
                    else "differ:number")


def _round_sig(v: float, n: int) -> float | None:
    if v == 0 or not math.isfinite(v):
        return None
    e = math.floor(math.log10(abs(v)))
    return round(v, n - 1 - e)


def _constant(e: Any) -> bool:
    try:
        return not e.free_symbols
    except AttributeError:
        return False


# ----------------------------------------------------------------------------- quantities
def _quantities(pa: Answer, pr: Answer, cues: Cues | None, x: Any) -> Judgment | None:
    requested = cues.unit if cues is not None else None
    qa = pa.value if pa.kind == "quantity" else None
    qr = pr.value if pr.kind == "quantity" else None
    if qa is not None and qr is not None:
        if qa.dimensionality != qr.dimensionality:
            # "5 ms^-1" for 5 m/s: metres per second, unless the millisecond reading matches
            qa = (metre_second_reading(qa) if qr.dimensionality == "[length] / [time]" or "[time] ** 2" in qr.dimensionality
                  else None) or qa
            qr = (metre_second_reading(qr) if "[length]" in qa.dimensionality else None) or qr
            if qa.dimensionality != qr.dimensionality:
                return Judgment(False, "differ:dimension")
        return _quantity_match(qa, qr, _magnitude_number(qr), cues)
    if qr is not None and pa.kind == "number":
        # R5.2: a bare number is read in the requested unit, else in the reference's unit
        if requested:
            target = convert(qr, requested)
            if target is not None:
                nr = _magnitude_number(qr)
                j = _magnitudes(float(pa.value.value), float(target.magnitude), nr, qr, target)
                miss = ambiguous_miss(pa.value, nr) if not j.correct and target.unit == qr.unit and nr else None
                return Judgment(False, miss) if miss else j
        na = pa.value
        nr = _magnitude_number(qr)
        if nr is None:
            return None
        j = compare_numbers(na, nr, _no_form(cues), x)
        if not j.correct and j.reason == "differ:number" and _in_other_unit(float(na.value), qr, nr):
            return Judgment(False, "ambiguous:unstated_unit")
        if not j.correct and j.reason == "differ:number" and finer_value(na, nr):
            return Judgment(False, "ambiguous:finer_value")
        return j
    if qr is not None and pa.kind == "expression" and qr.is_angle:
        # R4.1: an exact radian measure (a multiple of pi) is the same angle in degrees (pi/3 = 60 degrees);
        # another bare value is read in the reference's unit (R5.2)
        va = real_value(pa)
        if va is None:
            return None
        if _has_pi(pa.value) and requested and requested.lower().startswith("degree"):
            return Judgment(False, "form:unit_required")  # pi/6 where the question asks for degrees (R3.2)
        target = convert(qr, "radian") if _has_pi(pa.value) else qr
        if target is None:
            return None
        ok = math.isclose(va, float(target.magnitude), rel_tol=1e-9, abs_tol=1e-12)
        return Judgment(ok, "equal:angle" if ok else "differ:angle")
    if qa is not None and pr.kind == "number":
        nr: Number = pr.value
        if requested:
            conv = convert(qa, requested)
            if conv is not None:
                return _magnitudes(float(conv.magnitude), float(nr.value), nr, None, None)
        if qa.is_angle and qa.unit == "degree":
            na_deg = _magnitude_number(qa)
            if na_deg is not None:
                return compare_numbers(na_deg, nr, _no_form(cues), x)
        na_w = _magnitude_number(qa)
        if na_w is not None:
            j = compare_numbers(na_w, nr, _no_form(cues), x)
            return j if j.correct else Judgment(False, "differ:unit" if j.reason == "differ:number" else j.reason)
        return None
    if qa is not None and pr.kind == "expression" and qa.is_angle:
        vr = real_value(pr)
        rad = convert(qa, "radian")
        if vr is None or rad is None:
            return None
        ok = math.isclose(vr, float(rad.magnitude), rel_tol=1e-9, abs_tol=1e-12)
        return Judgment(ok, "equal:angle" if ok else "differ:angle")
    return None


def _has_pi(e: Any) -> bool:
    try:
        from verifier_runtime.toolkit.latex.convert import _sympy

        return bool(e.has(_sympy().pi))
    except (AttributeError, TypeError):
        return False


def _magnitude_number(q: Quantity) -> Number | None:
    """The reference magnitude as written (its precision sets the tolerance)."""
    from verifier_runtime.toolkit.units import _split

    split = _split(q.text) if q.text else None
    if split is None and q.unit == "degree" and q.text and ("'" in q.text or "\u2032" in q.text or "prime" in q.text):
        # 30°15': degrees, minutes and seconds, an exact value (R4.5)
        return Number(Fraction(q.magnitude), q.text, "fraction")
    return split[0] if split is not None else None


def _quantity_match(qa: Quantity, qr: Quantity, nr: Number | None, cues: Cues | None) -> Judgment:
    conv = convert(qa, qr.unit)
    if conv is None:
        return Judgment(False, "differ:unit")
    a = float(conv.magnitude)
    r = float(qr.magnitude)
    if cues is not None and cues.decimal_places is not None and qa.unit == qr.unit:
        d = cues.decimal_places
        ok = abs(a - round(r, d)) < 10 ** (-(d + 6)) or math.isclose(a, r, rel_tol=1e-12)
        return Judgment(ok, "equal:rounded_as_asked" if ok else "differ:rounding")
    if cues is not None and cues.sig_figs is not None:
        target = _round_sig(r, cues.sig_figs)
        t_conv = None if target is None else target
        ok = t_conv is not None and (math.isclose(a, t_conv, rel_tol=1e-9) or math.isclose(a, r, rel_tol=1e-12))
        return Judgment(ok, "equal:rounded_as_asked" if ok else "differ:rounding")
    j = _magnitudes(a, r, nr, None, None)
    if not j.correct and qa.unit != qr.unit and (r == 0 or a == 0):
        # a zero on one side has no relative precision (32 degF is 0 degC up to float noise of
        # the offset conversion): compare in the other side's unit, where the value is not zero
        back = convert(qr, qa.unit)
        if back is not None and float(back.magnitude) != 0:
            j2 = _magnitudes(float(qa.magnitude), float(back.magnitude), nr, qr, back)
            if j2.correct:
                return j2
    if not j.correct and qa.unit == qr.unit and nr is not None:
        na = _magnitude_number(qa)
        miss = (ambiguous_miss(na, nr) or ("ambiguous:finer_value" if finer_value(na, nr) else None)) \
            if na is not None else None
        if miss:
            return Judgment(False, miss)
    if not j.correct and qa.unit != qr.unit and nr is not None and not reference_tolerance(nr):
        # R5.3: an exact reference in another unit cannot be written exactly after conversion
        # (25 degC is 298.15 K, 45 degrees 0.7854 rad): the answer is correct when the converted
        # reference, rounded as the answer is written, is the answer, at 3 significant figures or more
        na = _magnitude_number(qa)
        back = convert(qr, qa.unit)
        # a whole number's trailing zeros may be significant ("760 mmHg", "300 K"): its digits count
        sf = na.sig_figs if na is not None else None
        if na is not None and not na.decimals and na.value.denominator == 1 and na.value:
            sf = max(sf or 0, len(str(abs(na.value.numerator))))
        if na is not None and back is not None and sf and math.isfinite(float(back.magnitude)):
            target = Fraction(float(back.magnitude)).limit_denominator(10**12)
            rounded = round_to_decimals(target, na.decimals) if na.decimals is not None \
                else round_to_sig_figs(target, sf)
            if rounded == na.value:
                # under three figures ("27 °C" for 300 K, "1600 m" for a mile) the rounding is too
                # coarse for the criterion, and graders part over it: no module decides it
                return Judgment(True, "equal:rounded_conversion") if sf >= 3 else \
                    Judgment(False, "ambiguous:rounded_conversion")
    return j


#: SI prefixes a bare number may have been meant in (R5.2): the reference's unit with one of them
_OTHER_PREFIXES = ("", "kilo", "mega", "giga", "milli", "micro", "nano", "centi")
_PREFIX_RE = re.compile(r"^(?:yotta|zetta|exa|peta|tera|giga|mega|kilo|hecto|deca|deci|centi|milli|micro|nano|pico"
                        r"|femto|atto|zepto|yocto)(?=[a-z])")


#: The power of ten of each SI prefix (pint defines every one as exactly that power)
_PREFIX_EXPONENTS = {"": 0, "yotta": 24, "zetta": 21, "exa": 18, "peta": 15, "tera": 12, "giga": 9, "mega": 6,
                     "kilo": 3, "hecto": 2, "deca": 1, "deci": -1, "centi": -2, "milli": -3, "micro": -6, "nano": -9,
                     "pico": -12, "femto": -15, "atto": -18, "zepto": -21, "yocto": -24}
#: Units pint converts by a factor alone (no offset, no logarithm), so that the reference in a
#: prefixed relative is its magnitude times a power of ten: ``_in_other_unit`` can tell which
#: relatives are too far from the answer to match without asking pint (a cold conversion is
#: 0.15-0.3 ms, and the check asks seven). Any other unit is converted by pint for every prefix.
_LINEAR_STEMS = frozenset(("meter", "gram", "second", "liter", "electron_volt", "joule", "watt", "newton", "pascal",
                           "volt", "ampere", "kelvin", "mole", "hertz", "coulomb", "farad", "ohm", "tesla", "henry",
                           "weber", "becquerel", "gray", "sievert", "candela"))


def _in_other_unit(a: float, qr: Quantity, nr: Number) -> bool:
    """R5.2: the bare number ``a`` is the reference written in another unit of its dimension, the
    SI base unit or the reference's unit with another SI prefix (``3300`` for 3.3 GeV, in MeV;
    ``2.9 x 10^-4`` for 0.3 mm, in metres), within the reference's precision carried over. The
    criterion reads a bare number in the reference's unit, so it is incorrect; but the response
    may have stated its unit in its working, so no module decides it (``ambiguous:unstated_unit``)."""
    if not math.isfinite(a) or not a or not float(qr.magnitude):
        return False
    units = set()
    stem, exponent = qr.unit, None
    if " " not in qr.unit:  # one unit, not a product or quotient: its prefixed relatives
        m = _PREFIX_RE.match(qr.unit)
        stem = qr.unit[m.end():] if m else qr.unit
        units.update(p + stem for p in _OTHER_PREFIXES)
        if stem in _LINEAR_STEMS:
            exponent = _PREFIX_EXPONENTS[m.group(0) if m else ""]
    units.discard(qr.unit)
    tol = float(reference_tolerance(nr)) if nr is not None else 0.0
    targets = [convert(qr, u) for u in sorted(units) if exponent is None or
               _may_match(a, float(qr.magnitude), 10.0 ** (exponent - _PREFIX_EXPONENTS[u[:-len(stem)]]), tol)]
    targets.append(convert_to_base(qr))
    for t in targets:
        if t is None or not float(t.magnitude) or t.unit == qr.unit:
            continue
        if _magnitudes(a, float(t.magnitude), nr, qr, t).correct:
            return True
    return False


def _may_match(a: float, q: float, factor: float, tol: float) -> bool:
    """Whether ``a`` may match (``_magnitudes``) the magnitude ``q`` converted by ``factor``, the
    exact ratio of two prefixes. Pint's converted magnitude ``r`` is ``x = q * factor`` within a
    few rounding errors (relative 1e-14 at most); a match needs ``|a - r|`` within the larger of
    1e-9 of the larger magnitude and the reference's tolerance scaled by ``r / q``. This bound
    doubles both and adds 1e-12 of ``x``, so it is ``False`` only where no match is possible."""
    x = q * factor
    bound = max(1e-9 * max(abs(a), abs(x)), tol * abs(factor)) * 1.000001
    return abs(a - x) <= 2 * bound + 1e-12 * abs(x)


def _magnitudes(a: float, r: float, nr: Number | None, q_from: Quantity | None, q_to: Quantity | None) -> Judgment:
    """Compare magnitudes in one unit: exact (up to float noise), or within the reference's
    stated precision (scaled by the conversion when the reference was converted)."""
    if not (math.isfinite(a) and math.isfinite(r)):
        return Judgment(False, "differ:quantity")
    if a == r or math.isclose(a, r, rel_tol=1e-9):
        return Judgment(True, "equal:quantity")
    tol = float(reference_tolerance(nr)) if nr is not None else 0.0
    if tol and q_from is not None and q_to is not None and float(q_from.magnitude):
        tol *= abs(float(q_to.magnitude) / float(q_from.magnitude))
    if tol and abs(a - r) <= tol * (1 + 1e-9):
        return Judgment(True, "equal:within_reference_precision")
    return Judgment(False, "differ:quantity")


# ----------------------------------------------------------------------------- text
# Peers are joined by "and", "or", "&", a spaced bar or slash ("Fleming / Florey"; a comma alone is more often an
# apposition: "Paris, France")
_PEER_SPLIT_RE = re.compile(r"(?<!\s)\s*+(?:,\s*+and\s+|,\s*+or\s+|(?<=\s)and\s+|(?<=\s)or\s+|&|(?<=\s)[|/](?=\s))\s*",
                            re.IGNORECASE)
# "Top candidates: 12, 14": a label before a list is no item of it
_LIST_LABEL_RE = re.compile(r"^[A-Za-z][A-Za-z ]{0,30}:\s++(?=\S)")
_LIST_COMMA_SPLIT_RE = re.compile(r"(?<!\s)\s*+[,;]\s++")
_MAX_SHORT_ANSWER_WORDS = 400


_NAME_LIST_SPLIT_RE = re.compile(r"\s*+[,;]\s*+(?:and\s++)?|\s++(?:and|&)\s++")
_MAX_NAME_WORDS = 6
_NAME_RE = re.compile(r"[A-Z][A-Za-z'\u2019.!-]*+(?:\s++(?:[A-Za-z][A-Za-z'\u2019.!-]*+))*+")
_NAME_LIST_LEAD_RE = re.compile(r"^[^,:;\n]{0,60}?(?:\s(?:are|were|is|was)\s++|:\s*+)")


def _name_items(text: str) -> list[str] | None:
    """The names of a list written out ("Washington, Jefferson, Roosevelt and Lincoln"), normalised;
    ``None`` unless every item is a short name."""
    if len(text) > 400 or "/" in text or "\\" in text or not any(c in text for c in ",;&") and " and " not in text:
        return None
    raw = _NAME_LIST_SPLIT_RE.split(text.strip().rstrip("."))
    if not 2 <= len(raw) <= 12 or not all(_NAME_RE.fullmatch(t.strip()) for t in raw):
        return None  # every item a name: capitalised words ("New York", "Yahoo!"), no number, no formula
    items = [normalize_text(t) for t in raw]
    if not all(items) or any(len(t.split()) > _MAX_NAME_WORDS for t in items):
        return None
    return items


def _name_lists(answer: str, ref: str, cues: Cues | None) -> Judgment | None:
    """R2.4 for names: a reference listing names ("George Washington, Abraham Lincoln, Theodore
    Roosevelt and Thomas Jefferson") and an answer listing names compare as sets, where the
    question asks for several or the reference lists three or more (a pair such as "Love,
    Actually" may be one title). ``None`` where either is no such list."""
    want = _name_items(ref)
    if want is None or len(want) < 3 and not (cues is not None and cues.several):
        return None
    got = _name_items(answer)
    if got is None or set(got) != set(want):
        lead = _NAME_LIST_LEAD_RE.match(answer)  # "The four presidents are ...", "Presidents: ..."
        if lead:
            got = _name_items(answer[lead.end():]) or got
    if got is None:
        return None
    if set(got) == set(want):
        if cues is not None and cues.ordered and got != want:
            return Judgment(False, "differ:order")
        return Judgment(True, "equal:set")
    return Judgment(False, "differ:missing_element" if set(got) < set(want) else "differ:set")



# R4.1: answers that are no number but say what the value is
_DNE_RE = re.compile(r"^(?:so\s+|thus\s+|hence\s+|therefore\s+)?(?:the\s+)?(?:[a-z]+\s+){0,3}?(?:dne|does\s+not\s+exist|"
                     r"doesn'?t\s+exist|do(?:es)?\s+not\s+exist)$|^dne$|^no\s+limit$", re.IGNORECASE)
# "There is no maximum.", "No such triangle exists.": a reference that does not exist, in other words
_NONE_EXISTS_RE = re.compile(r"^(?:so\s+|thus\s+|hence\s+|therefore\s+)?(?:there\s+(?:is|are|exists?)\s+no(?:\s+[a-z]+){1,3}"
                             r"|no(?:\s+[a-z]+){1,3}\s+exists?)$", re.IGNORECASE)
_INFINITE_RE = re.compile(r"^(?:so\s+|thus\s+|hence\s+|therefore\s+)?(?:the\s+)?(?:[a-z]+\s+){0,3}?(?:is|are)\s+"
                          r"(?:positive\s+)?infinite$|^there\s+(?:are|is)\s+infinitely\s+many(?:\s+[a-z]+){0,3}$"
                          r"|^infinitely\s+many(?:\s+[a-z]+){0,3}$", re.IGNORECASE)
_NONE_COUNT_RE = re.compile(r"^(?:there\s+(?:are|is|exist)\s+)?no\s+(?:real\s+|such\s+|possible\s+|integer\s+)?"
                            r"(?:solutions?|roots?|values?|ways?|numbers?|integers?|pairs?|triangles?|points?)"
                            r"(?:\s+[a-z]+){0,3}$", re.IGNORECASE)
_COUNT_ASKED_RE = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\b", re.IGNORECASE)


# R4.1: a time of day, on the 24-hour clock or the 12-hour one ("15:30", "3:30 p.m.", "3 pm", "noon")
_CLOCK = (r"(?:(?P<h>[01]?\d|2[0-3])(?::|\s*h\s*)(?P<m>[0-5]\d)(?::[0-5]\d)?|(?P<h2>1[0-2]|0?[1-9])(?=\s*+[ap]\.?\s*m\b))"
          r"(?:\s*+(?P<ap>[ap])\.?\s*m\b\.?)?")
_CLOCK_RE = re.compile(r"(?<![\w.:,])" + _CLOCK + r"(?![\w:]|[.,]\d)", re.IGNORECASE)
_CLOCK_REF_RE = re.compile(r"^\s*+" + _CLOCK + r"\s*+$", re.IGNORECASE)
_TIME_ASKED_RE = re.compile(r"\bwhat\s+time\b|\bwhen\b|\bo'?clock\b|\btime\s+of\s+(?:day|arrival|departure)\b|\bat\s+what\s+hour\b"
                            r"|\bclock\b", re.IGNORECASE)


def _clock_time(m: re.Match[str]) -> tuple[int, int, bool]:
    """(hour 0-23, minute, whether the half of the day is known) of a clock-time match."""
    ap = (m.group("ap") or "").lower()
    if m.group("h") is None:  # "3 pm": an hour with its half of the day
        return int(m.group("h2")) % 12 + (12 if ap == "p" else 0), 0, True
    hour, minute = int(m.group("h")), int(m.group("m"))
    if ap:
        return hour % 12 + (12 if ap == "p" else 0), minute, True
    # the 24-hour clock shows itself by an hour past 12, hour 0 or a leading zero ("09:00")
    return hour, minute, hour == 0 or hour > 12 or m.group("h").startswith("0")


def _time_of_day_judgment(answer: str, ref: str, question: str) -> Judgment | None:
    """R4.1: a reference that is a time of day (with "a.m."/"p.m.", or where the question asks
    when or at what time) is compared as one: "15:30" and "3:30 p.m." are the same time, "3:30
    a.m." is not; a time without its half of the day matches either half ("3:30" for 15:30). An
    answer with no time, or with several, is not that time (it is not a ratio 15:30 = 1:2)."""
    rm = _CLOCK_REF_RE.match(ref)
    if rm is None or not (rm.group("ap") or _TIME_ASKED_RE.search(question)):
        return None
    found = list(_CLOCK_RE.finditer(answer[:400]))
    if len({mm.group(0).strip().lower() for mm in found}) != 1:
        return Judgment(False, "differ:time_of_day")
    rh, rmin, rknown = _clock_time(rm)
    ah, amin, aknown = _clock_time(found[0])
    same = amin == rmin and (ah == rh if (rknown and aknown) else ah % 12 == rh % 12)
    return Judgment(same, "equal:time_of_day" if same else "differ:time_of_day")


def _special_judgment(answer: str, ref: str, question: str) -> Judgment | None:
    """"The limit does not exist." for DNE, "There are infinitely many solutions." for \\infty,
    "There are no solutions." for a count of 0 (a count asked); ``None`` where neither side is such
    an answer."""
    if len(answer) > 120 or len(ref) > 60:
        return None
    a, r = clean_answer(answer), clean_answer(ref)
    if ":" in r or "m" in r.lower():
        clock = _time_of_day_judgment(a, r, question)
        if clock is not None:
            return clock
    if _DNE_RE.match(r):
        cuts = list(_STATEMENT_CONCLUSION_RE.finditer(a))  # "It grows without bound, so there is no maximum."
        said = a[cuts[-1].end():] if cuts else a
        return Judgment(True, "equal:text") if _DNE_RE.match(a) or _NONE_EXISTS_RE.match(said) else None
    if _DNE_RE.match(a):
        return Judgment(False, "differ:text") if parse_number(r) is not None or r in ("\\infty", "+\\infty", "\u221e") else None
    if _INFINITE_RE.match(a):
        if r in ("\\infty", "+\\infty", "\u221e"):
            return Judgment(True, "equal:infinity")
        return Judgment(False, "differ:infinity") if parse_number(r) is not None else None
    if _NONE_COUNT_RE.match(a) and _COUNT_ASKED_RE.search(question):
        n = parse_number(r)
        return Judgment(n.value == 0, "equal:number" if n.value == 0 else "differ:number") if n is not None else None
    return None


_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10, "xi": 11,
          "xii": 12, "xiii": 13, "xiv": 14, "xv": 15, "xvi": 16, "xvii": 17, "xviii": 18, "xix": 19, "xx": 20}
_ABBREVIATED = {"st": "saint", "mt": "mount", "ft": "fort"}
_HONORIFICS = frozenset({"dr", "mr", "mrs", "ms", "sir", "prof", "professor", "the"})
_KEY_WORD_RE = re.compile(r"[^\W_]+")
_WAR_NAMES = ((re.compile(r"\bww\s*(?:ii|2)\b|\b(?:the\s+)?second\s+world\s+war\b"), "world war 2"),
              (re.compile(r"\bww\s*(?:i|1)\b|\b(?:the\s+)?first\s+world\s+war\b"), "world war 1"))
_SHORT_NAMES = {name: key for key, names in (
    ("united states", ("usa", "us", "u s", "u s a", "united states", "united states of america", "america")),
    ("united kingdom", ("uk", "u k", "united kingdom", "united kingdom of great britain and northern ireland")),
    ("soviet union", ("ussr", "soviet union", "union of soviet socialist republics")),
    ("united arab emirates", ("uae", "united arab emirates")),
    ("new york city", ("nyc", "new york city")), ("los angeles", ("la", "los angeles")),
    ("washington dc", ("dc", "d c", "washington dc", "washington d c")),
) for name in names}
_US_SPELLING = {"grey": "gray", "colour": "color", "colours": "colors", "centre": "center", "metre": "meter",
                "metres": "meters", "litre": "liter", "litres": "liters", "theatre": "theater",
                "favourite": "favorite", "organisation": "organization", "programme": "program"}
_HAS_NAME_WORD_RE = re.compile(r"[A-Za-z]{3,}")  # a name has a word: "|x|" and "x" are mathematics


def _name_key_words(text: str) -> str | None:
    """R6.4: a name's words with its numbering as numbers and its abbreviations spelt out: "World
    War II", "World War 2" -> ``world war 2``; "Henry the Eighth" -> ``henry 8``; "St. Petersburg"
    -> ``saint petersburg``; "Dr. Martin Luther King, Jr." -> ``martin luther king jr``. ``None``
    for text with no letters or more than twelve words. Also the usual short names of a few
    countries and cities ("USA", "UK", "NYC"), the world wars ("WWII", "the Second World War")
    and British spellings of a few words ("grey", "colour", "centre")."""
    low = text.lower()
    if "war" in low or "ww" in low:
        for rx, repl in _WAR_NAMES:
            low = rx.sub(repl, low)
    words = _KEY_WORD_RE.findall(low)
    if not words or len(words) > 12 or not any(ch.isalpha() for w in words for ch in w):
        return None
    whole = " ".join(w for w in words if w != "the")
    if whole in _SHORT_NAMES:
        return _SHORT_NAMES[whole]
    words = [_US_SPELLING.get(w, w) for w in words]
    out = []
    for k, w in enumerate(words):
        if k == 0 and w in _HONORIFICS and len(words) > 1:
            continue  # "Dr. ...", "The ..."
        if w in _ABBREVIATED:
            w = _ABBREVIATED[w]
        elif k > 0 and w in _ROMAN and (w != "i" or k == len(words) - 1):
            w = str(_ROMAN[w])  # a numbering after a name ("Henry VIII", "World War I")
        elif k > 0 and out and out[-1] == "the" and parse_ordinal(w) is not None:
            out.pop()
            w = str(parse_ordinal(w))  # "Henry the Eighth"
        elif w[:1].isdigit() and parse_ordinal(w) is not None:
            w = str(parse_ordinal(w))  # "19th century"
        elif k == 1 and words[0] == "the" and parse_ordinal(w) is not None:
            w = str(parse_ordinal(w))  # "the nineteenth century"
        out.append(w)
    return " ".join(out)


def _ordinal_judgment(answer: str, ref: str) -> Judgment | None:
    """R4.1: an ordinal reference ("3rd", "third") against the one ordinal the answer states, in
    words or as a numeral ("She finished third."); ``None`` where the reference is no ordinal or
    the answer states none or several."""
    ro = parse_ordinal(ref) if len(ref) <= 40 and ref[-1:] in "dthDTH" else None
    if ro is None:
        return None
    stated = set(ordinals_in(answer))
    if len(stated) != 1:
        return None
    return Judgment(True, "equal:ordinal") if ro in stated else Judgment(False, "differ:ordinal")


# "Is 7 prime?", "Are the lines parallel?": a yes-no question, its verb first
_YES_NO_QUESTION_RE = re.compile(r"(?:^|(?<=[.!?:\n]))[ \t]*+(?P<verb>is|are|was|were|does|do|did|can|could|will|would|has|have)\s+"
                                 r"(?P<rest>[^?.!\n]{1,120})\?"
                                 # an instruction may follow ("Answer yes or no.", "Justify your answer.")
                                 r"(?:[ \t]*+(?:answer|respond|reply|please|give|state|explain|justify|show)\b[^?\n]{0,80}?[.!])?\s*$",
                                 re.IGNORECASE)
# "Indeed it is.", "Yes, they are.", "It is not.", "No, it isn't."
_PRONOUN_REPLY_RE = re.compile(r"^(?:(?:indeed|yes|yeah|sure|certainly|of\s+course|no|nope),?\s+)?(?:it|they|he|she|that|this)\s+"
                               r"(?P<verb>is|are|was|were)(?P<neg>\s+not|n't)?\s*[.!]?$", re.IGNORECASE)
_REPLY_WORD_RE = re.compile(r"[\w'\u2019]+")
_REASON_CLAUSE_RE = re.compile(r",?[ \t]++(?:since|because)\b")


def statement_answers(answer: str, question: str) -> bool | None:
    """R6.3: a yes-no question ("Is 7 prime?") answered by a statement: its own words with the verb
    put back ("7 is prime." yes; "7 is not prime.", "7 isn't prime." no) or a pronoun reply ("Indeed
    it is.", "No, it isn't."); ``None`` for anything else."""
    if len(answer) > 160 or len(question) > 2000:
        return None
    if "since" in answer or "because" in answer:
        answer = _REASON_CLAUSE_RE.split(answer, maxsplit=1)[0]  # "221 is not prime, since 221 = 13 * 17."
    q = _YES_NO_QUESTION_RE.search(question[-400:])
    if q is None:
        return None
    verb = q.group("verb").lower()
    reply = _PRONOUN_REPLY_RE.match(answer.strip())
    if reply is not None:
        if reply.group("verb").lower() != verb:
            return None
        lead = answer.strip().lower()
        negative = bool(reply.group("neg"))
        if lead.startswith(("no", "nope")) != negative:
            return None  # "No, it is." and "Yes, it isn't." contradict themselves
        return not negative
    want = [w.lower() for w in _REPLY_WORD_RE.findall(q.group("rest"))]
    got = [w.lower() for w in _REPLY_WORD_RE.findall(answer)]
    if not want or len(got) > len(want) + 3:
        return None
    if got[:1] == ["not"] and len(got) > 1:  # "Not prime." for "Is 91 prime?"
        return False if any(got[1:] == want[k:] for k in range(1, len(want))) else None
    negs = ([verb, "not"], [verb + "n't"], [verb + "n\u2019t"], [_CONTRACTED.get(verb, verb + "n't")],
            [_CONTRACTED.get(verb, verb + "n't").replace("'", "\u2019")])
    if verb == "can":
        negs += (["cannot"],)
    forms = [([verb], True)] + [(w, False) for w in negs]
    for k in range(1, len(want)):
        subjects = [want[:k]]
        if got[:1] and got[0] in _PRONOUN_SUBJECTS:
            subjects.append(got[:1])  # "It is not continuous everywhere." for "Is f continuous everywhere?"
        for subject in subjects:
            if got[: len(subject)] != subject:
                continue
            rest = got[len(subject):]
            for words, value in forms:  # the verb put back after the subject
                if rest[: len(words)] == words and rest[len(words):] == want[k:]:
                    return value
            if verb in ("does", "do", "did") and rest and rest[1:] == want[k + 1:] and _inflected(want[k], rest[0]):
                return True  # "The series converges." for "Does the series converge?"
    return _antonym_reply(got, want)


# predicates whose opposite is their negation: "diverges" says "does not converge"
_ANTONYMS = (
    (frozenset({"converge", "converges", "converged", "convergent", "converging"}),
     frozenset({"diverge", "diverges", "diverged", "divergent", "diverging"})),
    (frozenset({"continuous"}), frozenset({"discontinuous"})),
    (frozenset({"bounded"}), frozenset({"unbounded"})),
    (frozenset({"finite"}), frozenset({"infinite"})),
    (frozenset({"rational"}), frozenset({"irrational"})),
    (frozenset({"consistent"}), frozenset({"inconsistent"})),
    (frozenset({"possible"}), frozenset({"impossible"})),
    (frozenset({"defined"}), frozenset({"undefined"})),
    (frozenset({"dependent"}), frozenset({"independent"})),
)
_ANTONYM_FILLER = frozenset({"it", "they", "this", "that", "it's", "it\u2019s", "is", "are", "was", "were", "the", "a", "an", "so", "hence",
                             "thus", "therefore", "absolutely", "conditionally"})
_ANTONYM_BLOCKERS = frozenset({"not", "no", "never", "neither", "nor", "or", "and", "but", "if", "unless", "when",
                               "except", "yes", "both", "either"})


def _antonym_reply(got: list[str], want: list[str]) -> bool | None:
    """R6.3: a yes-no question about a predicate answered by it or by its opposite, in the
    question's own words ("It diverges.", "Divergent.", "The series is divergent." for "Does the
    series converge?": no; "Convergent." yes); ``None`` when the answer says anything else."""
    if not got or len(got) > len(want) + 3 or any(w in _ANTONYM_BLOCKERS or "n't" in w or "n\u2019t" in w for w in got):
        return None
    asked = set(want)
    for same, other in _ANTONYMS:
        for side, opposite in ((same, other), (other, same)):
            if len(asked & side) != 1 or asked & opposite:
                continue
            said = [w for w in got if w in side or w in opposite]
            if len(said) != 1 or any(w not in asked and w not in _ANTONYM_FILLER for w in got if w != said[0]):
                return None
            return said[0] in side
    return None


_PRONOUN_SUBJECTS = frozenset({"it", "they", "he", "she", "this", "that"})
_CONTRACTED = {"will": "won't", "can": "can't", "do": "don't", "does": "doesn't", "did": "didn't"}


def _inflected(base: str, word: str) -> bool:
    """``word`` is ``base`` as the verb of a statement: "converge" -> "converges", "converged"."""
    return word in (base, base + "s", base + "es", base + "d", base + "ed") or (
        base.endswith("y") and word in (base[:-1] + "ies", base[:-1] + "ied"))


_K_OF_N_RE = re.compile(r"^\s*+(?P<k>\d{1,9})\s++(?:in|out\s+of)\s++(?P<n>\d{1,9})\s*+\.?\s*+$", re.IGNORECASE)


def _set_for_value(answer: str, x: Any) -> bool:
    """R4.4: the answer states a set of reals ("all real numbers except 2") where the reference is
    one number: the number it names is excluded or a bound, not the answer."""
    return ("eal" in answer or "\\mathbb" in answer or "\u2208" in answer or ("\\in" in answer and _IN_SIGN_RE.search(answer) is not None)
            ) and x.number_ref is not None and _stated_set(answer) is not None


_IN_SIGN_RE = re.compile(r"\\in(?![A-Za-z])")  # "x \\in [2, 3]": a set of values (not \\infty, \\int)


def _stated_set(answer: str) -> Any:
    """The set of reals an answer states, itself or after its subject ("The domain is all real x
    with $x \\neq 2$"), or ``None``."""
    got = parse_interval_set(answer)
    if got is None:
        lead = SET_SUBJECT_RE.match(answer)
        got = parse_interval_set(answer[lead.end() :]) if lead else None
    return got


_NEGATED_VERDICT_RE = re.compile(
    r"^\s*+(?:(?:so|thus|therefore|hence|no),?\s+)?(?:(?:the\s+(?:given\s+)?(?:statement|claim|assertion|proposition)|it|this|that)"
    r"\s+(?:is|was)\s+)?not\s+(?P<v>true|false|correct|incorrect|right|wrong|valid|invalid)\s*+[.!]?\s*+$", re.IGNORECASE)


def _negated_boolean(x: Any, c: Commitment | None, info: Any) -> Judgment | None:
    """R6.3: a true/false or yes-no reference answered by a negated statement: "The statement is
    not true.", "Not true." (false); "It is not prime.", "Not prime." for "Is 91 prime?" (no). The
    negation reader finds no value in them; they answer the question all the same."""
    if c is None or c.reason != "negation:only_negated" or info is None or not info.answer:
        return None
    rb = parse_bool(x.ref or "")
    if rb is None:
        return None
    said = info.answer.strip()
    m = _NEGATED_VERDICT_RE.match(said)
    ab = (m.group("v").lower() not in ("true", "correct", "right", "valid")) if m is not None else None
    if ab is None and x.question:
        ab = statement_answers(said, x.question)
    if ab is None:
        return None
    return Judgment(rb == ab, "equal:boolean" if rb == ab else "differ:boolean")


def _excluded_points_answer(x: Any, c: Commitment | None, info: Any) -> Judgment | None:
    """R4.4: ``x \\neq 0`` answers a set question (a domain) as the reals without the point; it
    negates a value only where the reference is one value (R2.5)."""
    if c is None or c.reason != "negation:only_negated" or info is None or not info.answer:
        return None
    pr = x.parsed_ref
    if pr is None or pr.kind != "interval":
        return None
    got = _stated_set(info.answer)
    if got is None:
        return None
    same = interval_sets_equal(got, pr.value)
    return Judgment(bool(same), "equal:interval" if same else "differ:interval")


def _copied_question(answer: str, question: str) -> bool:
    """R2.6: the answer is a verbatim stretch of the question, most of it (spaces aside)."""
    a, q = _squash(answer), _squash(question)
    return len(a) >= 0.8 * len(q) and a in q


_NUMBER_SIDE_RE = re.compile(r"^\s*+(?:(?P<a>[^=]+?)\s*=\s*[-+]?\d+(?:\.\d+)?|[-+]?\d+(?:\.\d+)?\s*=\s*(?P<b>[^=]+?))\s*+[.]?\s*+$")


def _equation_of(answer: str, expression: str) -> bool:
    """The answer sets an expression holding ``expression`` equal to a number ("x + 1 = 0"): an
    equation in its unknowns, not the expression's value (a number reference has no unknowns)."""
    m = _NUMBER_SIDE_RE.match(clean_answer(answer))
    if m is None or not re.search(r"[A-Za-z]", expression):
        return False
    side = m.group("a") or m.group("b") or ""
    return _squash(side) == _squash(expression) or contains_answer(side, expression)


_CHARGE_WHOLE_RE = re.compile(r"^\s*+(?:\^?\{?(?P<n1>\d*+)(?P<s1>[+-])\}?|(?P<s2>[+-])(?P<n2>\d*+))\s*+$")


def _charge_judgment(answer: str, ref: str) -> Judgment | None:
    """Two charges written alone compare by sign and size; ``None`` unless both are charges."""
    qa, qr = _charge(answer), _charge(ref)
    if qa is None or qr is None:
        return None
    return Judgment(qa == qr, "equal:charge" if qa == qr else "differ:charge")


def _charge(s: str) -> tuple[str, int] | None:
    """An ionic charge written alone, sign after or before ("3+", "+3", "2-", "+"): (sign, size)."""
    m = _CHARGE_WHOLE_RE.match(clean_answer(s).replace("\u2212", "-")) if len(s) <= 12 else None
    if m is None:
        return None
    n = m.group("n1") if m.group("s1") else m.group("n2")
    return (m.group("s1") or m.group("s2"), int(n) if n else 1)


def _text(answer: str, ref: str, x: Any, cues: Cues | None) -> Judgment:
    """R6.4 (and R6.1 for case): normalised text, aliases, the reference phrase in a short answer."""
    charges = _charge_judgment(answer, ref)  # "+3" for 3+
    if charges is not None:
        return charges
    ia, ir = parse_identifier(answer), parse_identifier(ref)
    if ia is not None and ir is not None and (ia.kind != "word" or ir.kind != "word"):
        if identifiers_equal(ia, ir):
            return Judgment(True, "equal:identifier")
        if ia.text != ir.text and ia.text.casefold() == ir.text.casefold() and any(ch.isalpha() for ch in ia.text):
            return Judgment(False, "differ:case")  # C1CCCCC1 is not c1ccccc1; Co is not CO
    if _sequence_case_differs(answer, ref, x.question if x is not None else ""):
        return Judgment(False, "differ:case")  # "atgc" for the strand ATGC: the letters are residues
    if date_conflicts(answer, ref):
        return Judgment(False, "differ:date")  # "July 10, 1979" for 21 July 1979, whatever year they share
    ref_dates = full_dates(ref) if len(ref) <= 60 else set()
    if len(ref_dates) == 1 and len(answer.split()) <= _SHORT_STATEMENT_WORDS and full_dates(answer) == ref_dates:
        return Judgment(True, "equal:date")  # "4 July 1776", "1776-07-04" for July 4, 1776
    aliases = reference_aliases(ref, x.question if x is not None else "")
    case_miss = False
    for alias in aliases:
        if text_match(answer, alias):
            if _case_carrying(alias) and _strip_case(answer) != _strip_case(alias):
                case_miss = True  # another accepted spelling may still match
                continue
            return Judgment(True, "equal:text" if len(aliases) == 1 else "equal:alias")
    key = (_name_key_words(ref) if len(ref) <= 60 and not _case_carrying(ref) and "\\" not in ref
           and _HAS_NAME_WORD_RE.search(ref) else None)
    if key and key == _name_key_words(answer) and _loose_safe(ref) and _loose_safe(answer):
        return Judgment(True, "equal:text")  # "World War 2" for World War II, "St. Petersburg" for Saint Petersburg
    if len(ref) <= 80 and len(answer) <= 80 and not _case_carrying(ref) and "\\" not in ref \
            and spelling_key(answer) == spelling_key(ref) and any(ch.isalpha() for ch in ref):
        return Judgment(True, "equal:spelling")  # "leukaemia" for leukemia, "colour" for color (R6.4)
    if case_miss:
        return Judgment(False, "differ:case")
    named = _name_lists(answer, ref, cues)
    if named is not None:
        return named
    if len(answer) <= 200:
        loose = _loose(answer)
        for alias in aliases:
            if loose and abs(len(alias) - len(answer)) <= 8 and loose == _loose(alias):
                return Judgment(True, "equal:text")  # "Washington DC" for "Washington, D.C."
        if x is not None and x.question and _without_asked_class(answer, ref, x.question):
            return Judgment(True, "equal:text")  # "the Pacific" for Pacific Ocean, the question asking which ocean
    words = len(answer.split())
    question = x.question if x is not None else ""
    if words <= _MAX_SHORT_ANSWER_WORDS:
        for alias in aliases:
            if len(normalize_text(alias)) < 1 or not contains_answer(answer, alias):
                continue
            if words > _SHORT_STATEMENT_WORDS and question and contains_answer(question, alias):
                continue  # in a paragraph, a phrase the question already holds is no evidence of an answer
            if _case_carrying(alias) and _flat(alias) not in _flat(answer):
                return Judgment(False, "differ:case")
            if _has_peer(answer, alias, x.question if x is not None else ""):
                return Judgment(False, "hedge:list_for_single_answer")
            if _TORN_BETWEEN_RE.search(answer):
                return Judgment(False, "hedge:alternatives")  # "I am torn between 5 and 6."
            if len({m.group(1) for m in _LABELLED_CANDIDATE_RE.finditer(answer)}) > 1 and not (x is not None and x.options):
                return Judgment(False, "hedge:alternatives")  # "A) 42 B) 43": candidates labelled like options
            if len({(m.group(1) or m.group(2)).lower() for m in _NUMBERED_CANDIDATE_RE.finditer(answer)}) > 1 \
                    or len(_WEIGHTED_RE.findall(answer)) > 1:
                # "Option 1: 42. Option 2: 43.", "42 (60% confident), 43 (40%)": candidates numbered or weighed
                return Judgment(False, "hedge:alternatives")
            if _range_around(answer, alias):
                return Judgment(False, "hedge:range")  # "It is 42 to 43 m long." for 42
            if has_plus_minus(answer) and not has_plus_minus(ref):
                return Judgment(False, "hedge:plus_minus")  # "3 m ± 0.1 m" for 3 m: a spread, not the value (R2.3)
            if question and len(answer) >= 20 and _copied_question(answer, question):
                return Judgment(False, "invalid:echo")  # the question copied: its matrix is no answer
            if "=" in answer and "=" not in ref and _equation_of(answer, alias):
                return Judgment(False, "differ:equation")  # "x + 1 = 0" for x + 1: an equation, not the expression
            if _NUMERIC_START_RE.match(alias) and _other_number_first(answer, alias):
                return Judgment(False, "ambiguous:several_numbers")  # "There are 12, more than the 14 we expected."
            if _raised_mention(answer, alias):
                return Judgment(False, "differ:expression")  # "$(1, 2)^2$" for (1, 2): the power, not the tuple (R1.1)
            if _in_larger_set(answer, alias):
                return Judgment(False, "differ:set")  # "\{\emptyset, \{\emptyset\}\}" for \{\emptyset\}: a larger set (R2.4)
            if _NUMERIC_START_RE.match(alias) and _result_after(answer, alias):
                return Judgment(False, "differ:reference_not_committed")  # "We get 12, then add 2 to reach 14." for 12
            if restated_quantity_disagrees(answer):
                return Judgment(False, "hedge:restated_differently")  # "5 km (about 4 miles)": two values
            q_text = (x.question or "") if x is not None else ""
            if _both_truth_words(answer, ref):
                return Judgment(False, "ambiguous:both_booleans")  # "It would be false to say so, so True." (R6.3)
            if (". " in answer or "; " in answer) and _name_then_remark(answer, alias) or (
                    alias[:1].isalpha() and _asked_thing_is_other(answer, alias, q_text)) or _hyphen_compound(answer, alias):
                # "Gallium. Mercury is too toxic.", "Canberra was planned; the capital is Melbourne.", "Non-Euclidean" (R6.4)
                return Judgment(False, "differ:reference_not_committed")
            stated = _stated_in(answer, alias, q_text)
            if stated is not None:
                return Judgment(stated, "equal:reference_in_answer" if stated else "differ:reference_not_committed")
    if x is not None and x.question and _surname_answer(answer, ref, x.question):
        if _has_peer(answer, ref.split()[-1], x.question) or _BETWEEN_NAMES_RE.search(answer) \
                or _TORN_BETWEEN_RE.search(answer):
            return Judgment(False, "hedge:list_for_single_answer")  # "Shakespeare and Marlowe co-wrote it."
        if _stated_in(answer, ref.split()[-1], x.question) is False:
            return Judgment(False, "differ:reference_not_committed")  # "a contemporary of Shakespeare"
        return Judgment(True, "equal:surname")
    if _REFUSAL_RE.match(answer.strip()):
        return Judgment(False, "invalid:refusal")
    if x is not None and x.question and len(answer) >= len(x.question) // 2 and _echoed(x):
        return Judgment(False, "invalid:echo")
    if _mathy(ref) and not _mathy(answer):
        return Judgment(False, "differ:answer_not_comparable")  # a value asked, prose given
    return Judgment(False, "differ:text")


# R6.4: a person asked for ("Who wrote Hamlet?", "Which scientist ...?"), named by a reference of a
# given name (or initials) and a surname, with name particles ("Leonardo da Vinci")
_PERSON_ASKED_RE = re.compile(r"\bwho(?:m|se)?\b|\bwhich[ \t]++(?:person|man|woman|scientist|author|writer|painter|"
                              r"composer|president|king|queen|emperor|mathematician|physicist|chemist|philosopher|poet|"
                              r"artist|inventor|explorer|leader|general|pope|ruler|saint|actor|actress|singer)\b",
                              re.IGNORECASE)
def _person_word(t: str) -> bool:
    """A capitalised name word in any script ("René", "O'Brien", "Saint-Saëns") or an initial ("W.")."""
    if len(t) == 2 and t[1] == "." and t[0].isupper():
        return True
    return len(t) > 1 and t[0].isupper() and t.replace("'", "").replace("\u2019", "").replace("-", "").isalpha() \
        and not t.isupper()
_NAME_PARTICLES = frozenset({"da", "de", "di", "del", "della", "van", "von", "der", "den", "du", "la", "le", "bin", "ibn"})
_NAME_SUFFIXES = frozenset({"Jr.", "Sr.", "II", "III", "IV"})
_MAX_SURNAME_ANSWER_WORDS = 12


# "a mix of Shakespeare and Fletcher", "both Shakespeare and Marlowe": two people named together
_BETWEEN_NAMES_RE = re.compile(r"\b(?:mix\s+of|both)\s+[A-Z][\w'-]*+(?:\s+[A-Z][\w'-]*+)?\s+and\s+[A-Z]")
# "I am torn between 5 and 6", "undecided between Paris and Lyon": candidates the response cannot choose from
_TORN_BETWEEN_RE = re.compile(r"\b(?:torn|undecided|hesitating|wavering|choosing|deciding|split)\s+between\b", re.IGNORECASE)


def _surname_answer(answer: str, ref: str, question: str) -> bool:
    """R6.4: the answer names the person of the reference by surname alone or with the given name's
    initial ("Shakespeare", "W. Shakespeare", "It was written by Shakespeare." for William
    Shakespeare; "da Vinci" for Leonardo da Vinci) where the question asks for a person, and no
    other given name stands before it ("Edmund Shakespeare" is another person). Judged, never a
    module's alias: a surname can be shared (the Wright brothers), which a judge weighs."""
    if not _PERSON_ASKED_RE.search(question) or len(answer.split()) > _MAX_SURNAME_ANSWER_WORDS or len(ref) > 60:
        return False
    words = [w for w in ref.strip().rstrip(".").split() if w not in _NAME_SUFFIXES]
    if not 2 <= len(words) <= 4 or not all(_person_word(w) or w in _NAME_PARTICLES for w in words):
        return False
    k = len(words) - 1
    while k > 1 and words[k - 1] in _NAME_PARTICLES:
        k -= 1  # "Leonardo da Vinci": the surname is "da Vinci"
    surname, given = words[k:], words[:k]
    if not given or not _person_word(given[0]):
        return False
    toks = answer.replace(",", " ").replace(";", " ").split()
    want = [w.lower() if w in _NAME_PARTICLES else w for w in surname]
    n = len(surname)
    for i in range(len(toks) - n + 1):
        got = [t.rstrip(".!?") for t in toks[i:i + n]]
        if [g.lower() if g.lower() in _NAME_PARTICLES else g for g in got] != want:
            continue
        j = i  # the name words written right before it: none, the given names, or their initials
        while j > 0 and _person_word(toks[j - 1]):
            j -= 1
        named = [t for t in toks[j:i] if t not in given]
        if all(len(t) == 2 and t.endswith(".") and any(g.startswith(t[0]) for g in given) for t in named):
            return True
    return False


# a sign or a decimal point, which the loose form keeps: "-x" and "from -5" are not "x" and "from 5"
# (the hyphen of "Apollo-11" and "2-methylpropane" joins words and goes)
_SIGN_OR_POINT_RE = re.compile(r"(?:^|(?<=[\s(\[{,=&]))[-\u2212](?=[ \t]*+[\w(\\])|(?<=\d)\.(?=\d)")


def _loose_safe(s: str) -> bool:
    """``s`` holds no minus sign and no decimal point, which a name key would drop."""
    return not (("-" in s or "\u2212" in s or "." in s) and _SIGN_OR_POINT_RE.search(s))


def _loose(s: str) -> str:
    """Normalised text without inner punctuation: "Washington, D.C." and "Washington DC" agree (a minus
    sign and a decimal point stay: "-x" is not "x", "3.5" not "35")."""
    t = normalize_text(s)
    if "-" in t or "\u2212" in t or "." in t:
        t = _SIGN_OR_POINT_RE.sub(lambda m: "\u2296" if m.group() != "." else "\u2219", t)
    return " ".join(re.sub(r"[.,'\u2019\u2018\"!?;:()\-]", " ", t).split()).replace(" ", "")


def _flat(s: str) -> str:
    """Case-preserving normal form for containment: Unicode subscripts and LaTeX subscripts flattened."""
    import unicodedata

    t = unicodedata.normalize("NFKC", s)
    return re.sub(r"_\{?(\d+)\}?", r"\1", t).replace("$", "").replace("\\mathrm{", "").replace("\\text{", "")


def _strip_case(s: str) -> str:
    return re.sub(r"[\s$*_`]|\\text\{|\\mathrm\{|[{}]", "", s).rstrip(".")


_SEQUENCE_QUESTION_RE = re.compile(r"\b(?:dna|rna|mrna|sequences?|strands?|codons?|anticodons?|nucleotides?|bases|"
                                   r"peptides?|polypeptides?|proteins?|amino\s+acids?|residues?|primers?)\b", re.IGNORECASE)
_SEQUENCE_RE = re.compile(r"^[ACDEFGHIKLMNPQRSTUVWY]{2,200}$")  # nucleotide and amino-acid one-letter codes


def _sequence_case_differs(answer: str, ref: str, question: str) -> bool:
    """R6.1: a sequence of one-letter residue codes (``ATGC``, ``MKV``), under a question about
    sequences, written in another case."""
    a, r = answer.strip().rstrip("."), ref.strip().rstrip(".")
    if len(r) < 2 or a == r or a.casefold() != r.casefold() or not _SEQUENCE_RE.match(r):
        return False
    return bool(question) and bool(_SEQUENCE_QUESTION_RE.search(question))


def _case_carrying(s: str) -> bool:
    """R6.1: a chemical formula (``Co``, ``CO``, ``NaCl``), a token of letters and digits
    (``c1ccccc1``, ``BRCA1``) or a token with case inside it (``mRNA``, ``pH``, ``mW``); ordinary
    words, acronyms and numbers carry no case."""
    t = _strip_case(s)
    if not t or len(t) > 64 or " " in s.strip():
        return False
    letters = "".join(ch for ch in t if ch.isalpha())
    if not letters:
        return False
    ident = parse_identifier(s)
    if ident is not None and ident.kind == "chemical_formula":
        return True
    if any(ch.isdigit() for ch in t):
        return True  # letters with digits: a code, a gene, a SMILES string (c1ccccc1), not a word
    return not (letters.islower() or letters.isupper() or (letters[0].isupper() and letters[1:].islower()))


_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])|\n+")
_NOT_COMMITTED_RE = re.compile(
    r"\b(?:not|no(?!\.?\s*\d)|never|unlikely|less\s+likely|rule[sd]?\s+out|ruled\s+out|excluded?|rather\s+than|instead\s+of|versus|vs|"
    r"differentials?|maybe|might|possibly|perhaps|could\s+be|or|either|neither|nor|isn'?t|wasn'?t|aren'?t|cannot"
    r"|allegedly|supposedly|reportedly|purportedly|hardly|scarcely)\b"
    r"|(?<=\w)n['\u2019]t\b",  # "Jane Austen didn’t write it", "doesn't", "won't": any verb negated
    re.IGNORECASE,
)
_SHORT_STATEMENT_WORDS = 12
# a belief reported about others is not the response's answer ("Many people think it was X")
_REPORTED_RE = re.compile(
    r"\b(?:many|some|most|people|others|they|critics|historians|sources|textbooks?|books|rumou?rs?|legend|tradition|experts"
    r"|it\s+is\s+(?:often|commonly|widely))\b"
    r"(?:\s+\w+){0,3}?\s+(?:think|thinks|believe|believes|say|says|claim|claims|assume|assumes|thought|believed|said|"
    r"claimed|suggest|suggests)\b",
    re.IGNORECASE,
)
# a belief the response held before and gave up ("43, though I initially thought 42")
_SUPERSEDED_RE = re.compile(
    r"\b(?:i|we)\s++(?:had\s++|first\s++|initially\s++|originally\s++|mistakenly\s++|wrongly\s++)?"
    r"(?:thought|guessed|assumed|believed|expected)\b"
    r"|\b(?:my|our)\s++(?:first|initial|original|earlier)\s++(?:guess|answer|thought|estimate)\b",
    re.IGNORECASE,
)
_CONTRAST_RE = re.compile(r"\b(?:but|however|whereas|although|though)\b[^.]{0,300}?\b(?:in\s+fact|actually|really|was|is"
                          r"|it['\u2019]s)\b",
                          re.IGNORECASE)


def _stated_in(answer: str, alias: str, question: str = "") -> bool | None:
    """R6.4: the reference phrase is the answer a short reply states, or in a longer reply the
    answer its first or last sentence states; not negated or offered beside another candidate
    (the words just before and after it decide); a phrase mentioned in passing inside a
    paragraph is not a committed answer. ``None``: the phrase is not there at all."""
    if len(answer.split()) <= _SHORT_STATEMENT_WORDS:
        return _committed_near(answer, alias, question)
    sentences = [t for t in _SENTENCE_RE.split(answer.strip()) if t.strip()]
    ends = sentences[:1] + sentences[-1:] if len(sentences) > 1 else sentences
    found = False
    for sent in ends:
        if contains_answer(sent, alias):
            found = True
            if _committed_near(sent, alias, question):
                return True
    return False if found or sentences else None


_WINDOW_BEFORE, _WINDOW_AFTER = 6, 3


def _find_ignoring_case(text: str, needle: str) -> tuple[int, int] | None:
    """The span of the first case-insensitive occurrence of ``needle`` in ``text`` (what
    ``re.search(re.escape(needle), text, re.IGNORECASE)`` finds), or ``None``. ASCII text is
    searched without building a pattern (compiling one costs about half a millisecond, and
    every needle is new); other text keeps the regular expression's Unicode case rules."""
    if text.isascii() and needle.isascii():
        k = text.lower().find(needle.lower())
        return None if k < 0 else (k, k + len(needle))
    m = re.search(re.escape(needle), text, flags=re.IGNORECASE)
    return None if m is None else m.span()


_ASIDE_NOT_RE = re.compile(r"\s*+(?:\(\s*+not\s++[^()\n]{1,30}\)|[,;\u2014\u2013-]\s*+not\s++[^,.;()\n]{1,30}"
                           r"|,?\s*+(?:rather\s++than|instead\s++of|as\s++opposed\s++to|in\s++(?:place|lieu)\s++of)\s++[^,.;()\n]{1,30})",
                           re.IGNORECASE)  # ("Canberra rather than Sydney": another set aside after the answer)


def _committed_near(text: str, alias: str, question: str = "") -> bool:
    """No negation or alternative among the few words around the (first) mention of ``alias``."""
    span = _find_ignoring_case(text, alias)
    if span is None:
        norm, nalias = normalize_text(text), normalize_text(alias)
        k = norm.find(nalias)
        if k < 0:
            return not _NOT_COMMITTED_RE.search(text)
        before, after = norm[:k], norm[k + len(nalias):]
    else:
        before, after = text[: span[0]], text[span[1]:]
    aside = _ASIDE_NOT_RE.match(after)
    if aside and alias.lower() not in aside.group(0).lower():
        after = after[aside.end():]  # "42 (not 43)": another value excluded beside the answer
    words = before.split()[-_WINDOW_BEFORE:]
    for k in range(len(words) - 1, -1, -1):
        if words[k].lower().strip(",;:") in _TURN_WORDS and not (
                k + 1 < len(words) and words[k + 1].lower() == "of"):  # "Many think Raphael, but it was Leonardo"
            # ("Sydney instead of Canberra" sets the phrase aside: no turn to it)
            words = words[k + 1:]
            break
        if k and words[k] in _OWN_VIEW_WORDS and words[k - 1][-1:] in ".;!":  # "Some say 6. I say 5."
            words = words[k:]
            break
    lead = " ".join(words)
    if _NOT_UNTIL_LEAD_RE.search(lead):  # "It wasn't released until July 2011": from then on, no negation
        words = _NOT_UNTIL_LEAD_RE.sub("until", lead).split()
        lead = " ".join(words)
    window = " ".join(words + after.split()[:_WINDOW_AFTER])
    if _NOT_COMMITTED_RE.search(window) or _REPORTED_RE.search(lead) or _SUPERSEDED_RE.search(lead):
        return False
    if _mentioned_only(before, after, question) or _described_by_other(before, after, alias, question):
        return False
    near = (_PLACE_RELATION_BEFORE_RE.search(before[-40:])
            if alias[:1].isalpha() and not any(ch.isdigit() for ch in alias) and not _NOT_UNTIL_LEAD_RE.search(before)
            else None)  # ("wasn't open until May 1958": a start in time, R2.5; a date is bounded elsewhere, R2.1)
    if near and not re.search(r"\b" + re.escape(near.group("w").split()[0]), question, re.IGNORECASE):
        return False  # "North of Canberra", "Melbourne until Canberra was built": a place beside it, a time clause
    # "..., but it was in fact Petra": a contrast after the mention moves the answer elsewhere
    return not _CONTRAST_RE.search(" ".join(after.split()[:12]))


# R6.4: the phrase named as something other than the answer. Excluded: "anyone but X", "everyone except X",
# "other than X"; the other term of a relation: "a contemporary of X", "the son of X", and after it, "X's
# brother" (a possessive before a noun; "X's the one" is "X is"); the second of a ranking: "China, followed
# by X", "China, then X"; called a wrong answer: "X is a common wrong answer", "X is a myth" (not "Statement
# B is false", which answers "Which statement is false?")
_EXCLUDED_BEFORE_RE = re.compile(
    r"(?:\b(?:any|every|no|some)(?:one|body|thing)\s++but|\ball\s++but|\bexcept(?:\s++for)?|\bexcluding|\bother\s++than"
    r"|\bwith\s++the\s++exception\s++of|\bsave\s++for|\bapart\s++from|\baside\s++from"
    r"|\bas\s++opposed\s++to|\bin\s++(?:place|lieu)\s++of|\bin\s++preference\s++to|\bunlike|\b(?:similar|akin|analogous)\s++to"
    r"|\bcompared\s++(?:to|with)|\bconfused\s++with|\bmistaken\s++for"
    r"|\balongside|\balong\s++with|\btogether\s++with|\bas\s++well\s++as|\bin\s++addition\s++to)\s*+(?:the\s++)?[\"'\u201c]?$",
    re.IGNORECASE)
_RELATION_NOUNS = (r"contemporary|contemporaries|son|daughter|wife|husband|widow|brother|sister|father|mother|parent|child"
                   r"|grandson|granddaughter|nephew|niece|cousin|uncle|aunt|student|pupil|teacher|tutor|mentor|rival|friend"
                   r"|successor|predecessor|colleague|assistant|apprentice|disciple|follower|imitator|descendant|ancestor"
                   r"|biographer|critic|opponent|partner|protégé|protege"
                   r"|tributary|tributaries|distributary|moon|moons|satellite|suburb|suburbs|neighbou?r|colony|ally"
                   r"|subsidiary|alloy|ore|rival\s+city")
_RELATED_TERM_BEFORE_RE = re.compile(r"\b(?:an?|the|his|her|their)\s++(?:[a-z]+\s++)?(?:" + _RELATION_NOUNS + r")\s++of(?:\s++the)?\s*+$",
                                     re.IGNORECASE)
_RELATION_ASKED_RE = re.compile(r"\b(?:" + _RELATION_NOUNS + r")s?\b", re.IGNORECASE)
_POSSESSIVE_AFTER_RE = re.compile(r"^['\u2019]s\s++(?P<w>[a-z]++)\b")
_CONTRACTION_WORDS = frozenset("the a an is was not also definitely probably surely clearly certainly right correct "
                               "my our your his her their it that this been being".split())
_RANKED_AFTER_RE = re.compile(r"(?:,|;)\s*+(?:and\s++)?(?:followed\s++by|then|next\s++(?:is|comes))\s*+$", re.IGNORECASE)
_CALLED_WRONG_RE = re.compile(
    r"^[\"'\u201d]?\s*+(?:is|was|would\s++be)\s++(?:a\s++|an\s++|the\s++)?(?:common(?:ly\s++given)?\s++|popular\s++"
    r"|frequent\s++|typical\s++|tempting\s++|classic\s++)?(?:(?:wrong|incorrect|false|mistaken)\s++(?:answer|choice|option|guess)"
    r"|misconception|myth|trap|distractor|mistake)\b", re.IGNORECASE)


_THAN_BEFORE_RE = re.compile(r"\bthan\s++(?:the\s++)?[\"'\u201c]?$", re.IGNORECASE)
_THAN_RE = re.compile(r"\bthan\b", re.IGNORECASE)
# R6.4: a place beside the phrase or a time clause about it, not the phrase: "north of Canberra", "near Canberra",
# "outside Canberra", "Melbourne until Canberra was built" (a word the question holds leaves it: "Which city is
# north of ...?")
_PLACE_RELATION_BEFORE_RE = re.compile(
    r"\b(?P<w>(?:north|south|east|west|north-?east|north-?west|south-?east|south-?west)(?:ern)?\s++of|near|nearby|outside"
    r"(?:\s++of)?|beyond|close\s++to|next\s++to|across\s++from|opposite|until|till|unless|whereas)\s++(?:the\s++)?$",
    re.IGNORECASE)
# a kind of thing named before the phrase, which the question does not ask for ("the planet Mercury", "the film Titanic")
_KIND_BEFORE_RE = re.compile(
    r"(?:^|\b(?:the|a|an)\s++)(?P<k>planet|god|goddess|band|film|movie|song|album|novel|book|ship|car|brand|company"
    r"|team|club|horse|magazine|newspaper|restaurant|hotel|racehorse"
    r"|play|opera|painting|poem|tv\s++series|series|show|game|video\s++game|cartoon|comic|robot)\s++$",
    re.IGNORECASE)
# R6.4: a short answer that opens with another name, then describes it: "K2, which is second only to Everest",
# "Francis Bacon (often confused with Shakespeare)", "John Adams, vice president under George Washington"
_HEAD_NAME_RE = re.compile(r"^\s*+(?P<head>" + NAME_PATTERN + r")[ \t]*+(?P<sep>,|\(|[\u2014\u2013]|(?<=[ \t])-[ \t])(?P<rest>[^()]*+)$")
# the same for a plain lower-case noun of one to three words, with no article ("oxygen, which replaces carbon
# dioxide"; "the gas, carbon dioxide" names the answer by its kind)
_HEAD_NOUN_RE = re.compile(r"^\s*+[*_\"']*+(?P<head>(?!(?:the|a|an)\b)[a-z][a-z'-]*+(?:[ \t]++[a-z][a-z'-]*+){0,2})[*_\"']*+[ \t]*+"
                           r"(?P<sep>,|\(|[\u2014\u2013]|(?<=[ \t])-[ \t])(?P<rest>[^()]*+)$")
# words between the head and the phrase that name the head again or correct it ("Bombay, now Mumbai",
# "Sagarmatha (also known as Everest)", "Sydney, no wait, Canberra"), or place it in a region ("Paris, in France")
_RENAMING_RE = re.compile(
    r"^\s*+(?:(?:also\s++|better\s++|commonly\s++)?(?:known|called|named)(?:\s++as)?|a\.?k\.?a\.?|i\.e\.?,?|that\s++is,?|namely"
    r"|now(?:\s++called)?|today|formerly|or|in\s++english|(?:(?:which|that)\s++is\s++|located\s++|situated\s++)?in(?:\s++the)?)\s*+$"
    r"|\b(?:no|not|nope|wait|actually|sorry|mean|meant|rather|correction|oops|scratch|instead|answer|correct|right"
    r"|definitely|really)\b",
    re.IGNORECASE)
# capitalised words that open a reply without naming anything ("Well, Canberra", "Definitely, Canberra")
_LEAD_WORDS = frozenset("well hmm ok okay sure so yes no yep nope true false correct right indeed hence thus therefore "
                        "answer result solution final ah oh alright overall ultimately finally obviously of however "
                        "also according after before here there now then".split())


def _described_by_other(before: str, after: str, alias: str, question: str) -> bool:
    """R6.4: the phrase sits in a description of another name the answer opens with: a comma, a dash or
    a parenthesis after the head, then words that describe it ("Saturn, the planet after Jupiter",
    "Mumbai, formerly the capital before Delhi"), or a parenthesis that says more than the phrase ("K2
    (Everest is higher)"). A head the question or the phrase holds, a lead word ("Well, ..."), a
    renaming ("Bombay, now Mumbai", "Peking (Beijing)"), a correction ("Sydney, no, Canberra") or a
    region ("Paris, in France") leave the phrase the answer."""
    if len(before) > 120 or not before.strip() or len(before.split()) > 10:
        return False
    m = _HEAD_NAME_RE.match(before) or _HEAD_NOUN_RE.match(before)
    if m is None or any(ch in m.group("rest") for ch in ",;:"):
        return False  # ("Eden Gardens, the largest ground, is in Kolkata": the head is the subject of a clause)
    head = normalize_text(m.group("head"))
    words = head.split()
    q = set(normalize_text(question).split())
    if (not words or words[0] in _LEAD_WORDS or words[0] in _NOT_NAME_WORDS or words[0].endswith("ly")
            or all(w in q for w in words)):
        return False
    na = normalize_text(alias)
    if na in head or head in na:
        return False
    rest = m.group("rest")
    if _RENAMING_RE.search(rest):
        return False
    if rest.strip():
        return True
    tail = after.lstrip()
    # nothing between: an apposition of two names ("Sagarmatha, Everest", "Peking (Beijing)") unless the
    # phrase opens a statement of its own ("K2 (Everest is higher)")
    return bool(tail) and tail[0] not in ").,;!?" and not (m.group("sep") == "," and tail[0] == ",")


def _mentioned_only(before: str, after: str, question: str = "") -> bool:
    """R6.4: the phrase is excluded, a relation's other term, second in a ranking, or called wrong:
    named, but not as the answer (:data:`_EXCLUDED_BEFORE_RE` and the patterns after it). Where the
    question asks about a relation ("Who is Daryl's brother?" answered "Daryl is the brother of Merle";
    "Who taught Alexander?" answered "Alexander was a student of Aristotle"), either term may be the
    answer, so a relation sets no term aside there."""
    tail = before[-60:]
    if _EXCLUDED_BEFORE_RE.search(tail) or _RANKED_AFTER_RE.search(tail):
        return True
    if _THAN_BEFORE_RE.search(tail) and not _THAN_RE.search(question):
        return True  # "Saturn is larger than Jupiter": the other term of a comparison
    kind = _KIND_BEFORE_RE.search(tail)
    if kind and not re.search(r"\b" + kind.group("k")[:4], question, re.IGNORECASE):
        return True  # "The planet Mercury" where an element is asked: the word in another sense
    if _RELATION_ASKED_RE.search(question):
        return _CALLED_WRONG_RE.match(after.lstrip()) is not None  # (a relation asked: either term may answer)
    if _RELATED_TERM_BEFORE_RE.search(tail):
        return True
    m = _POSSESSIVE_AFTER_RE.match(after)
    if m and m.group("w").lower() not in _CONTRACTION_WORDS and m.group("w").lower() not in question.lower():
        return True
    return _CALLED_WRONG_RE.match(after.lstrip()) is not None or _GIVEN_UP_AFTER_RE.match(after) is not None


# after the phrase: a guess given up ("X was my first guess", "X? Wrong: Y")
_GIVEN_UP_AFTER_RE = re.compile(
    r"^[\"'\u201d]?\s*+(?:(?:is|was)\s++(?:just\s++|only\s++)?(?:my|our)\s++(?:first|initial|original|earlier)\s++"
    r"(?:guess|answer|thought|instinct|idea|choice)\b|\?\s*+(?:no|nope|wrong|incorrect|not\s++quite)\b"
    r"|\s*+[:=\u2014\u2013-]\s*+(?:false|wrong|incorrect)\b"
    r"|\?\s*+(?!(?i:yes|yep|correct|right|exactly|indeed|definitely|absolutely|certainly|sure|that|it|this|final)\b)"
    r"(?-i:[A-Z])[\w'\u2019-]*+\s*+[?.!])",  # ("Canberra? Sydney? Sydney.": another candidate asked after it)
    re.IGNORECASE)


# a negation that "until" right before the phrase turns into a starting time ("not ... until 1932")
_NOT_UNTIL_LEAD_RE = re.compile(r"(?:\bnot|\bnever|n['\u2019]t)\b[^,;.]{0,40}?\b(?:until|till)\s*$", re.IGNORECASE)
# a turn from what others think or what it is not to what the response says it is
_TURN_WORDS = frozenset({"but", "however", "yet", "actually", "instead"})
# the response's own view after a sentence of others' ("Some say 6. I say 5.")
_OWN_VIEW_WORDS = frozenset({"I", "We"})


_REF_TOKEN = "\u2063REF\u2063"  # stands for the reference inside an answer split into items


_NUMERIC_START_RE = re.compile(r"[-+\u2212]?\$?\d")


# a sentence's predicate after a comma clause: "Jupiter, the fifth planet, is the largest"
_PREDICATE_RE = re.compile(r"^(?:is|are|was|were|has|have|had|remains|became|becomes)\b")
# R2.3: the question asks for a place that lies in a larger one, so a second name after a comma may be
# its region ("Paris, France"); where it asks for a state or a country, a second name is as often a peer
# ("Alaska, Texas" to "Which state is largest?") and the two are a list
_PLACE_ASKED_RE = re.compile(r"\bwhere\b|\b(?:city|cities|towns?|villages?|capital|count(?:y|ies)|provinces?|regions?"
                             r"|islands?|parish|borough|locat(?:ed|ion)|birthplace|hometown|born|headquarter(?:ed|s)?"
                             r"|venue|district|municipality|suburb|neighbou?rhood|address)\b", re.IGNORECASE)


# two plain noun phrases of up to three words joined by one comma or semicolon ("carbon dioxide, oxygen")
_TWO_NOUNS_RE = re.compile(r"^(?P<a>" + NOUN_PHRASE_PATTERN + r")[ \t]*+(?P<sep>[,;])[ \t]++(?P<b>" + NOUN_PHRASE_PATTERN
                           + r")[ \t]*+[.!]?$")


def _common_noun(text: str) -> bool:
    """A plain noun phrase whose words after the first are lower case ("carbon dioxide", "Oxygen"); a name
    ("Alexander Fleming") is none, so "Alexander Fleming, Scottish physician" names and describes one man."""
    return plain_noun_phrase(text) and all(w.islower() for w in text.split()[1:])


def _two_peer_names(text: str, question: str) -> bool:
    """R2.3: two capitalised names joined by one comma ("Jupiter, Saturn") where the question asks
    for no place: two peers, not a place and its region ("Paris, France" answers "What is the
    capital of France?"). A symbol or an abbreviation beside a name ("Iron, Fe") names it again; a
    semicolon joins two peers whatever is asked. Two lower-case nouns ("carbon dioxide, oxygen") are
    peers the same way, unless the second opens a description or a remark ("water, a liquid",
    "oxygen, mostly")."""
    t = text.strip()
    m = _TWO_NAMES_RE.match(t)
    if m is None:
        m = _TWO_NOUNS_RE.match(t)
        if m is None or not all(_common_noun(g.strip()) for g in (m.group("a"), m.group("b"))):
            return False
    if m.group("sep") == "," and _PLACE_ASKED_RE.search(question):
        return False  # (a semicolon is never an apposition: "Jupiter; Saturn")
    lead = m.group("a").strip().lower()
    if m.group("sep") == "," and (lead in _LEAD_WORDS or lead in _OPENING_WORDS or lead in _REMARK_WORDS):
        return False  # "Well, Michelangelo.", "Sure, Michelangelo.": a word that opens the reply, no second name
    # a symbol or an abbreviation names the other again ("Iron, Fe", "Alaska, USA"); "red" is a word
    return not any(len(g) <= 3 and not g.islower() for g in (m.group("a").strip(), m.group("b").strip().rstrip(".!")))


def _without_asked_class(answer: str, ref: str, question: str) -> bool:
    """R6.4: the answer is the reference's name without its class word, where the question names the
    class: "the Pacific" for Pacific Ocean to "Which ocean is largest?", "Superior" for Lake Superior
    to "Which lake ...". The name left must be a capitalised word of four letters or more."""
    words = ref.split()
    if not 2 <= len(words) <= 4 or len(answer) > 60 or len(ref) > 60:
        return False
    q = normalize_text(question).split()
    for kept, dropped in ((words[:-1], words[-1]), (words[1:], words[0])):
        name = " ".join(kept)
        if (dropped.lower() in q and dropped[:1].isupper() and name[:1].isupper() and len(name) >= 4
                and text_match(answer, name)):
            return True
    return False


def _has_peer(answer: str, alias: str, question: str) -> bool:
    """R2.3 for prose: "Paris and Lyon" offers a second answer beside the reference."""
    text = answer.strip().rstrip(".")
    # the reference stays one item, however many words it has or an "and" or comma of its own
    # ("between 1881 and 1885", "All I Want for Christmas Is My 2 Front Teeth")
    at = text.lower().find(alias.lower()) if len(alias) >= 2 else -1
    if at >= 0 and (at == 0 or not text[at - 1].isalnum()) and (
            at + len(alias) == len(text) or not text[at + len(alias)].isalnum()):
        text = text[:at] + _REF_TOKEN + text[at + len(alias):]
    if len(text.split()) > 12:
        return False
    label = _LIST_LABEL_RE.match(text)
    if label is not None and _REF_TOKEN not in label.group():
        text = text[label.end():]
    joined = [p for p in _PEER_SPLIT_RE.split(text) if p and p.strip()]
    parts = [q for p in joined for q in _LIST_COMMA_SPLIT_RE.split(p) if q and q.strip()]
    if len(parts) > 2 and _PREDICATE_RE.match(parts[-1]):
        parts = parts[:-1]  # "Jupiter, the fifth planet, is the largest": a sentence, its predicate no item
    # one comma is an apposition ("Paris, France"); "and"/"or", or three items in a row, make a
    # list, and so do two quantities ("42 apples, 43 pears" for the number 42) and two names where
    # no place is asked ("Jupiter, Saturn" for "Which planet is largest?", R2.3)
    if len(joined) < 2 and len(parts) < 3 and not (len(parts) == 2 and "(" not in text and (
            _NUMERIC_START_RE.match(alias)
            and all(_NUMERIC_START_RE.match(p.strip().replace(_REF_TOKEN, alias)) for p in parts)
            or _two_peer_names(answer.strip().rstrip("."), question))):
        return False
    na = normalize_text(alias)
    # the reference is one item ("Smell" in "ISO 3166-1, Smell (disambiguation), Bill Haley")
    own = [p for p in parts if _REF_TOKEN in p or normalize_text(p) == na
           or (len(p.split()) <= 4 and contains_answer(p, alias))]
    if len(own) != 1:
        return False
    q = normalize_text(question)
    for p in parts:
        np_ = normalize_text(p)
        if not np_ or p is own[0] or np_ == na or na in np_ or np_ in na:
            continue
        if len(p.split()) <= 4 and np_ not in q:
            return True
    return False
