"""The final committed answer: retractions, negations, alternatives, lists and several boxes.

Extraction (:mod:`.extract`) finds *where* the final answer is; this module reads *what the
response commits to* there, by the rules of ``docs/criterion.md`` (R1.2, R2.1-R2.5):

- a correction after the answer ("Actually no, it's 6") replaces it; a correction with
  nothing after it leaves no answer;
- "not X" is not an answer X ("It is not Paris; it is Lyon" answers Lyon);
- several candidates joined by "or"/"either" are alternatives, joined by "and", commas or
  written as side-by-side boxes they are one answer with several values; whether that is a
  hedge, a list for a single answer, or a correct set depends on what the question asks, so
  the caller decides (it knows the question and the reference).

>>> c = commitment_of(extract_final_answer("The answer is 7. Actually no, it's 6."))
>>> c.answer, c.reason
('6', 'retraction:last_answer')
>>> c = commitment_of(extract_final_answer("It is either 12 or 14 or 16."))
>>> c.candidates, c.joiner
(('12', '14', '16'), 'or')
>>> commitment_of(extract_final_answer("The answer is not 81.")).negated
('81',)

Pure, bounded (the tail after the answer is at most ``extract.TAIL_CHARS``) and total: any
input gives a :class:`Commitment`, never an exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier_runtime.toolkit.extract import (
    MARKER_METHODS,
    RUN_METHODS,
    Extracted,
    clean_answer,
    extract_final_answer,
    find_boxed,
)
from verifier_runtime.toolkit.text import (
    NAME_PATTERN,
    NEGATED_BELIEF,
    NOT_EQUAL_RE,
    CaseFolded,
    fold_in_place,
    french_intervals,
    marker_matches,
    parse_bool,
    plain_noun_phrase,
)

__all__ = ["Commitment", "commitment_of", "final_commitment", "final_statement", "option_marker", "split_candidates",
           "strip_label", "WORK_RESULT", "working_result"]


@dataclass(frozen=True, slots=True)
class Commitment:
    """What a response commits to as its final answer.

    ``answer``: the committed answer text (several values joined by ``", "``), or ``None``
    when nothing is committed (no answer, only a negation, a retraction with nothing after
    it). ``candidates``: the distinct values offered (one for a single answer). ``joiner``:
    how several candidates are joined: ``"single"``, ``"or"`` (alternatives), ``"and"``
    (a list: commas, semicolons, "and", side-by-side boxes). ``hedged``: an explicit hedge
    word ("either", "maybe", "possibly", "could be") joins them. ``reason``: the rule that
    changed the extracted answer (``retraction:last_answer``, ``retraction:no_answer_left``,
    ``negation:only_negated``, ``negation:affirmed_after``), or ``""``. ``negated`` and
    ``retracted``: the values negated, and the answers given then withdrawn.
    """

    answer: str | None
    candidates: tuple[str, ...]
    joiner: str = "single"
    hedged: bool = False
    reason: str = ""
    negated: tuple[str, ...] = ()
    retracted: tuple[str, ...] = ()
    method: str = "none"
    #: the committed answer's text before it was split into candidates
    text: str | None = None
    #: the candidates in order with repeats kept (``C, C, B``): for comparison with a sequence
    items: tuple[str, ...] = ()
    #: the candidates are final answers of their own (boxes offered as alternatives, several
    #: ``<answer>`` tags, answer lines one right after another), not the values of one answer
    final_answers: bool = False

    @property
    def several(self) -> bool:
        return len(self.candidates) > 1


_EMPTY = Commitment(None, ())

# ---------------------------------------------------------------- retractions
# A strong marker withdraws what came before it; the answer after it (if any) is committed.
_STRONG_RE = re.compile(
    r"\b(?:wait|hold\s+on|hmm+|oh|oops|actually|sorry|eh|uh|um+|er+|no)[\s,.!:;\u2014\u2013-]*no\b(?!\s+(?:doubt|problem|need))"
    r"|\bno[\s,.!:;\u2014\u2013-]+wait\b"
    r"|\bno(?<![:=]\sno)(?<![:=*]no)(?<!\bis\sno)(?<!\bwas\sno)[,.!:;]\s*(?=(?:it'?s|it\s+is|the\s+(?:correct\s+|right\s+|final\s+)?answer)\b)"
    # "The answer is 6. No, 5.": "no" and a bare number that ends the text, the value corrected to
    # (its "\b" adds nothing to the look-behinds, a space or the start before "no", but lets the engine
    # test the word boundary once for every alternative: without it each position of a text tried them all)
    r"|\b(?:(?<=[.!?]\s)|(?<=^\s)|^)no(?<![:=]\sno)[,:;]\s*+(?=[-+\u2212]?\$?\d[\d.,/]*+\$?\s*+[.!]?\s*+$)"
    r"|\bthat(?:'s|\s+is|\s+was)\s+(?:wrong|incorrect|not\s+(?:right|correct))"
    r"|\bthat\s+(?:can'?t|cannot|can\s+not)\s+be\s+(?:right|correct)"
    r"|\bi\s+made\s+(?:a|an)\s+(?:\w+\s+)?(?:mistake|error)\b|\b(?:correction|erratum)\s*:|\bscratch\s+that\b"
    r"|\bsorry\s*[,:;\u2014\u2013-]|\bon\s+second\s+thought\b|\blet\s+me\s+(?:correct|recompute|redo|recalculate|reconsider)\b"
    r"|\bmy\s+(?:mistake|bad|error)\b|\bi\s+was\s+wrong\b|\bor\s+rather\b|\bmake\s+that\b|\bi\s+mean\b"
    # "Paris. Just kidding, Lyon.", "I take that back", "Disregard that.", "Oops, 43", "Nope: 43"
    r"|\b(?:just|only)\s+kidding\b|\bj/?k\b|\bi\s+take\s+(?:that|it)\s+back\b|\bnever\s*mind(?=\s*+[,.;:!\u2014\u2013-])|\bi\s+misspoke\b"
    r"|\b(?:disregard|ignore|strike|forget)\s+(?:that|this|the\s+above|my\s+(?:previous|last|earlier)\s+answer)"
    r"(?=\s*+(?:[.!,;:\u2014\u2013-]|$))|\boops\b|\bnope\b|\bcorrection\s*[\u2014\u2013-]|\bnot\s+quite\s*[,.;:!\u2014]"
    r"|\b(?:revised|corrected|updated)\s+answer\s*[:\u2014\u2013-]",
    re.IGNORECASE,
)
# "12 apples? No.": a candidate put as a question, then turned down (not "Is 91 prime? No."). Its own
# pattern: a branch that does not start at a word boundary would slow every scan of the one above tenfold
_TURNED_DOWN_RE = re.compile(r"\?\s*+no\b(?![\s,]+(?:doubt|problem|need))")
# the words a real question starts with: "Is 91 prime? No." answers it, withdraws nothing
_ASKED_RE = re.compile(r"(?:is|are|was|were|does|do|did|can|could|will|would|should|has|have|"
                       r"what|which|who|whom|whose|when|where|why|how)\b", re.IGNORECASE)


# "Is it 5?", "Is the answer 5?", "Could it be 5?": a question about a candidate value, which "No" turns down
_CANDIDATE_ASKED_RE = re.compile(r"(?:is|could|might|would)\s+(?:it|this|that|the\s+(?:final\s+|correct\s+)?answer)"
                                 r"\s+(?:be\s+)?(?:equal\s+to\s+)?[^\s?]", re.IGNORECASE)


def _asked_before(text: str, end: int) -> bool:
    """The sentence that ends at ``end`` (a question mark) is a question the text asks, not one about
    a candidate value ("Is 91 prime? No." answers; "Is it 5? No." turns 5 down)."""
    start = max(text.rfind(c, 0, end) for c in ".!?\n:") + 1
    asked = text[start:end].lstrip()
    return bool(_ASKED_RE.match(asked)) and not _CANDIDATE_ASKED_RE.match(asked)
# A soft marker ("actually", "wait") changes the answer only when a new one follows at once.
_SOFT_RE = re.compile(r"\b(?:actually|wait|hmm+|instead(?!\s++of\b)|rather(?!\s++than\b)|hold\s+on|on\s+(?:further\s+)?reflection|"
                      r"thinking\s+(?:about\s+it\s+)?again|(?:on\s+)?second\s+thoughts?)\b", re.IGNORECASE)
# One scan for the words every correction starts with; text without them has no correction.
_ANY_MARKER_RE = re.compile(
    r"\b(?:wait|actually|sorry|no|that|i\s+made|correction|scratch|on\s+second|let\s+me|my\s+(?:mistake|bad|error)|"
    r"i\s+was\s+wrong|or\s+rather|make\s+that|i\s+mean|instead|rather|hmm+|oh|oops|hold\s+on|eh|uh|um+|er+|"
    r"just|only|j/?k|i\s+take|never|i\s+misspoke|disregard|ignore|strike|forget|nope|not\s+quite|on|thinking|second|"
    r"revised|corrected|updated|erratum)\b",
    re.IGNORECASE,
)
_STRONG, _SOFT, _ANY_MARKER = CaseFolded(_STRONG_RE), CaseFolded(_SOFT_RE), CaseFolded(_ANY_MARKER_RE)
_VALUE_END_RE = re.compile(r"(?:\.(?=\s|$)(?<!\d\.)|[\n;!?]|(?<!\s)\s++(?:because|since|as|so|which|but)\b)", re.IGNORECASE)
_NEW_ANSWER_RES = (
    re.compile(r"\\boxed\s*\{"),
    re.compile(r"\b(?:the\s+)?(?:correct\s+|right\s+|final\s+|actual\s+|true\s+)?answer\s+(?:is|should\s+be|would\s+be|"
               r"must\s+be|=)\s*[:=]?\s*", re.IGNORECASE),
    re.compile(r"\b(?:it'?s|it\s+is|it\s+should\s+be|that\s+should\s+be|this\s+should\s+be|should\s+be|is\s+actually|"
               r"it\s+must\s+be|it\s+equals|make\s+(?:it|that)|change\s+(?:it|that)\s+to|i\s+mean|or\s+rather|"
               r"instead(?!\s++of\b)\s*,?\s*(?:it'?s|it\s+is)?|rather(?!\s++than\b)|i\s+meant)\s*[:=]?\s*", re.IGNORECASE),
    # "so the area is 24", "the capital is Canberra": a statement of the asked quantity
    re.compile(r"\b(?:so|thus|therefore|hence)?\s*(?:the\s+)(?:[a-z]+\s+){0,3}?(?:is|are|equals|=)\s+(?!not\b)", re.IGNORECASE),
    # "Wait, let me recheck: 6*7 = 43. So 43.": a conclusion word, then a value
    re.compile(r"\b(?:so|thus|therefore|hence)\b\s*+[,:]?\s*+(?=[-+\u2212]?\$?(?:\d|\\(?:frac|dfrac|sqrt|boxed)\b))",
               re.IGNORECASE),
)
# for each pattern above, the words every match of it begins with where they are few (marker_matches)
_NEW_ANSWER_STARTS = ((), ("the", "correct", "right", "final", "actual", "true", "answer"), (), (),
                      ("so", "thus", "therefore", "hence"))
_BARE_VALUE_RE = re.compile(r"^[\s,:;\u2014\u2013-]*(?:no[\s,:;\u2014\u2013-]+)?(?P<v>[^\s][^\n]{0,80}?)\s*[.!]?\s*$")
_NOT_A_VALUE = frozenset({
    "correct", "right", "fine", "ok", "okay", "true", "wrong", "incorrect", "that", "this", "it", "so", "not right",
    "not correct", "the case", "confirmed", "consistent", "good", "done", "not", "no", "yes", "possible", "impossible",
})
_MAX_VALUE_WORDS = 8
_HAS_MATH_RE = re.compile(r"[\d\\$^_=]")


_BOOLEAN_VALUES = frozenset({"true", "false", "yes", "no", "correct", "incorrect"})


def _value_after(segment: str, *, bare: bool, boolean: bool = False) -> str | None:
    """The answer a correction states right after itself, or ``None``. ``bare``: a value standing
    alone after the correction ("Wait, no: 6.") counts too (strong corrections only)."""
    seg = segment[:400]
    best: tuple[int, str] | None = None
    for k, rx in enumerate(_NEW_ANSWER_RES):
        starts = _NEW_ANSWER_STARTS[k]
        found = marker_matches(rx, seg, starts) if starts else list(rx.finditer(seg))
        if not found:
            continue
        m = found[-1]  # the last statement in the correction is the one it lands on
        if k == 0:  # a new box
            boxed = find_boxed(seg[m.start():])
            value = clean_answer(boxed[0]) if boxed else ""
        else:
            rest = seg[m.end():]
            end = _VALUE_END_RE.search(rest)
            value = clean_answer(rest[: end.start()] if end else rest)
        if value and (best is None or m.start() > best[0]):
            best = (m.start(), value)
    if best is None and bare:
        m = _BARE_VALUE_RE.match(seg)
        value = clean_answer(m.group("v")) if m else ""
        if value and (_HAS_MATH_RE.search(value) or len(value.split()) <= 3):
            best = (0, value)
    if best is None:
        return None
    value = best[1]
    word = value.lower().strip(" .,!")
    if word in _NOT_A_VALUE and not (boolean and word in _BOOLEAN_VALUES):
        return None  # "that's right" confirms; "it is True" answers where the answer was a boolean
    if len(value.split()) > _MAX_VALUE_WORDS and not _HAS_MATH_RE.search(value):
        return None
    return value


_STATEMENT_WORDS = frozenset({
    "is", "are", "was", "were", "be", "been", "am", "seems", "looks", "holds", "works", "right", "correct", "wrong",
    "fine", "true", "false", "sure", "not", "no", "yes", "i", "i'm", "we", "it", "it's", "that", "that's", "this",
    "they", "you", "there", "let", "let's", "check", "nice", "good", "great", "interesting",
})
_OPTION_LETTER_ONLY_RE = re.compile(r"^\(?[A-J]\)?$")
_BOOLEAN_WORDS = frozenset({"true", "false", "yes", "no"})


def _soft_bare_value(segment: str, original: str | None, before: str = "") -> str | None:
    """After a soft correction, a short value standing alone to the end of its line ("B.
    Actually, D.", "75 km/h. Actually 80 km/h."): the new answer, when it is of the original's
    kind (a letter for a letter, a number for a number, words for words) and no statement."""
    m = _BARE_VALUE_RE.match(segment[:120])
    value = clean_answer(m.group("v")) if m else ""
    words = value.lower().split()
    if value.lower() in _BOOLEAN_WORDS and (clean_answer(before).lower() in _BOOLEAN_WORDS
                                            or clean_answer(original or "").lower() in _BOOLEAN_WORDS):
        return value  # "True. Wait, false.": one truth value for another
    if not value or len(words) > 3 or any(w.strip(",.!;:") in _STATEMENT_WORDS for w in words):
        return None
    if original:
        if bool(_OPTION_LETTER_ONLY_RE.match(original.strip())) != bool(_OPTION_LETTER_ONLY_RE.match(value)):
            return None
        if bool(_HAS_MATH_RE.search(value)) != bool(_HAS_MATH_RE.search(original)):
            return None
    return value


def _like(value: str, original: str | None) -> bool:
    """A replacement of the same broad kind as the original (a number for a number, words for words)."""
    if not original:
        return True
    return bool(_HAS_MATH_RE.search(value)) == bool(_HAS_MATH_RE.search(original)) or len(value.split()) <= 3


def _apply_corrections(answer: str | None, text: str) -> tuple[str | None, list[str], str]:
    """Walk the corrections in ``text`` (the answer's own sentence and what follows it)."""
    low = fold_in_place(text)
    if not _ANY_MARKER.search_in(text, low):
        return answer, [], ""
    marks: list[tuple[int, int, bool]] = [(s, e, True) for s, e in _STRONG.spans_in(text, low)]
    if "?" in text:
        marks += [m.span() + (True,) for m in _TURNED_DOWN_RE.finditer(low) if not _asked_before(text, m.start())]
    marks += [(m0, m1, False) for m0, m1 in _SOFT.spans_in(text, low)
              if not any(s <= m0 < e for s, e, _ in marks)]
    if not marks:
        return answer, [], ""
    marks.sort()
    current, retracted, reason = answer, [], ""
    for k, (_start, end, strong) in enumerate(marks):
        nxt = marks[k + 1][0] if k + 1 < len(marks) else len(text)
        if _start == 0 and answer is None and k == 0 and _REPLY_LEAD_RE.match(text):
            continue  # "No, it is composite.", "Nope.": a reply that opens the answer withdraws nothing
        segment = text[end:nxt] if strong else text[end : min(nxt, end + 120)]
        value = _value_after(segment, bare=strong,
                             boolean=parse_bool(current or answer or "") is not None if (current or answer) else False)
        if value is None and not strong:
            value = _soft_bare_value(segment, current or answer, text[:_start])
        if value is not None and value.lower().startswith("not "):
            value = None
        if value is not None and "?" in value:
            value = _self_answered(value) or value
        if value is not None and _like(value, current or answer):
            asked = _asked_value(segment, value)
            if asked:  # "Actually no, it's 7?": the correction lands on a value only asked (R2.1)
                value = value.partition("?")[0].strip()
            if current is not None and _key(value) != _key(current):
                retracted.append(current)
            if current is None or _key(value) != _key(current):
                current, reason = value, "retraction:last_answer"
            if asked:
                current, reason = None, "hedge:asked"
        elif strong and not (_start == 0 and text[:3].lower() in ("no,", "no.", "no!", "no:", "no;")):
            # ("No, it is not prime." as the answer's own text: the "No" is the answer, nothing is withdrawn)
            if current is not None:
                retracted.append(current)
            current, reason = None, "retraction:no_answer_left"
    return current, retracted, reason


# "is it 72? Yes, 72": a question the response asks itself, answered with the value it asked about
_SELF_ANSWERED_RE = re.compile(r"^(?:so\s+|then\s+)?(?:is\s+it|could\s+it\s+be|might\s+it\s+be|is\s+the\s+answer)"
                               r"\s++(?P<v>[^?]{1,80}?)[ \t]*+\?[ \t]*+(?:yes|yep|indeed|right|correct)\b[\s,.:;!-]*+"
                               r"(?P<w>[^?]{1,80})$", re.IGNORECASE)


def _self_answered(text: str) -> str | None:
    """The value of "is it 72? Yes, 72" (a question the response asks itself, then answers with
    the same value): that value is stated. ``None`` for anything else, and where the reply names
    another value or none ("Is it prime? Yes." answers a yes-no question, not with "prime")."""
    m = _SELF_ANSWERED_RE.match(text.strip())
    if m is None:
        return None
    v, w = m.group("v").strip(), m.group("w").strip().rstrip(".!").strip()
    return w if w and _key(w) == _key(v) else None


# "42, I'm fairly sure", "Paris, I believe", "12, if I'm not mistaken", "42, I'm not sure", "42, maybe":
# the answer's confidence, after a comma (a doubt about the one value offers no second one)
_CONFIDENCE_TAIL_RE = re.compile(
    r"(?<=\S),[ \t]*+(?:(?:(?:i'?m|i\u2019m|i[ \t]++am|we'?re)[ \t]++)?(?:not[ \t]++)?(?:(?:fairly|quite|pretty|very|"
    r"reasonably|almost|totally|absolutely|completely|entirely|100%)[ \t]++)?(?:sure|certain|confident|positive)"
    r"|(?:i'?m|i\u2019m|i[ \t]++am)[ \t]++(?:unsure|uncertain|guessing)|i[ \t]++(?:think|believe|reckon|guess|suppose)|"
    r"if[ \t]++i'?m[ \t]++not[ \t]++mistaken|if[ \t]++i[ \t]++recall[ \t]++correctly|for[ \t]++sure"
    r"|(?:most[ \t]++)?likely|maybe|perhaps|probably|possibly|hopefully|i[ \t]++hope)[ \t]*+[.!]?[ \t]*+$",
    re.IGNORECASE)
# "42ish", "42-ish": the value, approximately (as "42 or so")
_ISH_RE = re.compile(r"(?<=\d)-?ish\b", re.IGNORECASE)


# "6 * 7 -> 42", "6*7 => 42", "12 + 30 \u2192 42": a computation, an arrow, and what it gives
_ARROW_RESULT_RE = re.compile(r"^(?P<lhs>[^\n]{1,200}?)[ \t]*+(?:->|=>|\u2192|\u21d2|\\Rightarrow\b|\\implies\b)"
                              r"[ \t]*+(?P<v>[^\s=<>\u2192\u21d2][^=<>\u2192\u21d2\n]{0,40}?)[ \t]*+[.!]?$")
# a chemical species: a coefficient and element symbols with their counts ("2H2O", "Ca(OH)2")
CHEMICAL_SPECIES = r"\d*+(?:[A-Z][a-z]?+\d*+|\((?:[A-Z][a-z]?+\d*+)++\)\d*+)++"
# the left side of a chemical equation ("2H2 + O2 -> 2H2O"): species joined by "+", no working
_CHEMICAL_SIDE_RE = re.compile(r"^" + CHEMICAL_SPECIES + r"(?:[ \t]*+\+[ \t]*+" + CHEMICAL_SPECIES + r")++$")
# the left side worked something out: digits and an operator ("6 * 7", "12+30", "\frac{84}{2}")
_WORKED_RE = re.compile(r"\d[ \t]*+(?:[-+*/^\u00d7\u00b7]|\\times|\\cdot|\\div)[ \t]*+[\d(\\]|\\frac\{\d")


# R1.1: a chain of working in one sentence that ends on what its last step gives ("We get 12, then add 2 to
# reach 14.", "12 minus 3 leaves 9", "Start with 5, double it to get 10, so 10"): the last result is the
# answer, the values before it are the working. The last step must name an operation on a value stated
# before it; values offered side by side ("12, or maybe 14", "12 and 14") are no chain.
_WORK_VALUE = (r"[-+\u2212]?(?:\d[\d,]*+(?:\.\d++)?+|\.\d++|\\[dt]?frac\{[^{}]{1,20}\}\{[^{}]{1,20}\}|\\sqrt\{?[\w.]{1,8}\}?)"
               r"(?:[ \t]*+(?:%|\\%|[A-Za-z\u00b0][\w/^\u00b0\u00b2\u00b3-]{0,12}+)){0,2}")
# what a step gives: "to reach", "leaves", "gives", "making", "and you get"
WORK_RESULT = (r"(?<![\w-])(?:to[ \t]++(?:get|reach|give|make|obtain|arrive[ \t]++at)|leaves|leaving|left[ \t]++with|gives|"
               r"giving|yields|yielding|makes|making|reaching|results?[ \t]++in|resulting[ \t]++in|for[ \t]++a[ \t]++total[ \t]++of|"
               r"(?:and[ \t]++)?(?:we|you|i)[ \t]++(?:get|reach|obtain|have|end[ \t]++up[ \t]++with))(?![\w-])")
_WORKING_END_RE = re.compile(
    WORK_RESULT + r"[ \t]++(?P<v>" + _WORK_VALUE + r")"
    r"(?:[ \t]*+,?[ \t]*+(?:so|thus|hence|therefore)[ \t,]++(?P<w>" + _WORK_VALUE + r"))?[ \t]*+[.!]?[ \t]*+$",
    re.IGNORECASE)
_WORK_STEP_RE = re.compile(
    r"(?<![\w-])(?:add(?:s|ed|ing)?|plus|subtract(?:s|ed|ing)?|minus|take[ \t]++away|taking[ \t]++away|remov(?:e|es|ed|ing)|"
    r"multipl(?:y|ies|ied|ying)|times|divid(?:e|es|ed|ing)|doubl(?:e|es|ed|ing)|tripl(?:e|es|ed|ing)|halv(?:e|es|ed|ing)|"
    r"squar(?:e|es|ed|ing)|cub(?:e|es|ed|ing)|increas(?:e|es|ed|ing)|decreas(?:e|es|ed|ing)|more|fewer|extra)(?![\w-])"
    r"|\d[ \t]*+(?:[-+*/\u00d7\u00b7\u2212]|\\times|\\cdot|\\div)[ \t]*+\d",
    re.IGNORECASE)
_WORK_NUMBER_RE = re.compile(r"(?<![\w.])\d")
# words that make a chain no commitment: an alternative, a doubt, a negation, a question
_WORK_DOUBT_RE = re.compile(r"(?<![\w-])(?:or|either|maybe|perhaps|possibly|probably|might|could|not|never|no|if|unless|"
                            r"\w+n't|instead|actually|wait)(?![\w-])|\?", re.IGNORECASE)
_WORK_CLAUSE_RE = re.compile(r"[,;:]")
_WORK_CONNECTIVE_RE = re.compile(r"^[ \t]*+(?:(?:which|this|that|and|then|so|thus)[ \t]*+)*+$", re.IGNORECASE)
_WORK_SENTENCE_RE = re.compile(r"(?<=[.!?])[ \t]++(?=[A-Z])|\n")


def working_result(answer: str) -> str | None:
    """R1.1: the result a chain of working in the answer's last sentence ends on, or ``None``:
    "We get 12, then add 2 to reach 14." -> ``14``; "12 minus 3 leaves 9" -> ``9``; "Start with
    5, double it to get 10, so 10" -> ``10``. The last step ("then add 2 to reach", "minus 3
    leaves", "double it to get") names an operation and a value comes before it; a sentence with
    an alternative, a doubt or a negation in it ("12, or maybe add 2 to get 14") is no chain, nor
    is one of values side by side ("We get 12, then 14.")."""
    if not answer or len(answer) > 400 or not _WORK_NUMBER_RE.search(answer):
        return None
    parts = [t for t in _WORK_SENTENCE_RE.split(answer.strip()) if t.strip()]
    last = (parts[-1] if parts else answer).replace("$", "").strip()
    if len(last) > 200:
        return None
    m = _WORKING_END_RE.search(last)
    if m is None or _WORK_DOUBT_RE.search(last):
        return None
    head = last[:m.start()]
    if not _WORK_NUMBER_RE.search(head):
        return None  # "Double it to get 10": the one value, read as it is
    clauses = [c for c in _WORK_CLAUSE_RE.split(head) if c.strip()]
    while len(clauses) > 1 and _WORK_CONNECTIVE_RE.match(clauses[-1]):
        clauses.pop()  # "12 + 2, which gives 14": the step is the clause before "which"
    if not clauses or not _WORK_STEP_RE.search(clauses[-1]):
        return None
    return (m.group("w") or m.group("v")).strip().rstrip(".,")


# a reply opening the answer's own text: "No" or "Nope" alone, or before a clause of its reason
# ("No, it is composite.", "Nope, it has a factor 7."); not before a bare value ("No, 7.": a correction)
_REPLY_LEAD_RE = re.compile(r"^(?:no|nope)(?:[ \t]*+[.!]?[ \t]*+$|[ \t]*+,[ \t]*+(?:it|they|this|that|he|she|there)"
                            r"(?:[ \t]++(?:is|are|was|were|has|have|does|do|did|can|cannot|isn'?t|aren'?t|doesn'?t)\b|'s\b)"
                            # not a bare value after it ("No, it's 7." corrects to 7)
                            r"(?![ \t]*+[-+\u2212]?\$?[\d.,/]++\$?[ \t]*+[.!]?[ \t]*+$))", re.IGNORECASE)


def _asked_value(segment: str, value: str) -> bool:
    """The value a correction lands on is put as a question and left so ("Actually no, it's 7?",
    "No wait, 7? I am not sure."): asked, not committed (R2.1). A question mark followed by an
    answer ("it's 7? Yes, 7.") asks the response's own question and answers it."""
    if "?" in value:
        rest = value.partition("?")[2].strip()
    else:
        i = segment.find(value)
        after = segment[i + len(value):] if i >= 0 else ""
        m = _ASKED_AFTER_RE.match(after)  # anchored at the start of its string
        if m is None:
            return False
        rest = after[m.end():].strip()
    return not rest or bool(_DOUBT_TAIL_RE.match(rest))


# ---------------------------------------------------------------- negations
_NEGATED_RE = re.compile(
    r"^(?:(?:the\s+(?:final\s+|correct\s+)?answer|it|this|that)\s*)?(?:(?:is|'s|was)\s+(?:(?:certainly|definitely|surely|clearly)\s+)?not|"
    r"isn'?t|wasn'?t|is\s+never|not(?!\s+(?:counting|including|to\s+mention|considering|accounting\s+for)\b)|never|"
    r"certainly\s+not|definitely\s+not|neither|"
    # "Anything but 5.", "anything other than 5": every value except the one named
    r"(?:anything|everything|any\s+(?:value|number|answer))\s+(?:but|except|other\s+than)|"
    r"(?:can'?t|cannot|can\s+not|could\s*n'?t|could\s+not|must\s*n'?t|must\s+not)\s+be)\s+(?P<v>.+)$",
    re.IGNORECASE,
)
# "The precipitate is not NaCl": a short subject, then the negated value (short, one clause)
_SUBJECT_NEGATED_RE = re.compile(
    r"^(?:the\s+)?(?:[A-Za-z'\u2019-]+\s+){1,4}?(?:is\s+not|isn'?t|was\s+not|wasn'?t|are\s+not|aren'?t"
    r"|(?:is|are|was|were)\s+(?:no\s+longer|never)"
    r"|(?:is|are|was)\s+(?:anything|everything)\s+(?:except|other\s+than))\s+"
    r"(?P<v>[^,;]+)$",
    re.IGNORECASE,
)
_MAX_NEGATED_WORDS = 4
_UNTIL_RE = re.compile(r"\b(?:until|till)\b", re.IGNORECASE)
# "not ... until 1932", "Not until 1932": the time from which it holds, no negated value
_NOT_UNTIL_RE = re.compile(r"(?:\bnot|n't|\bnever)\b[^,;:]{0,60}?\b(?:until|till)\s+\S", re.IGNORECASE)
# R2.5: the verb of the clause holding a value negated: "The town does not have 2000 people.", "It hasn't
# 14 moons.", "The war did not end in 1945.", "There won't be 11 players.", "The club no longer has 40
# members.", "It has never had 14 moons." (the negation written in lower case after a subject of one to six
# words: "Do Not Disturb ran for 3 seasons." is a title; quoted titles are masked before, ``_masked``)
_NEG_AUX = r"(?:do|does|did|has|have|had|will|would|shall|should|could|may|might|must|is|are|was|were)"
_VERB_NEGATED_RE = re.compile(
    r"^(?!(?i:i|we)\s)(?P<s>(?:(?!(?i:that|which|who|whom|whose|where|when|while|if|unless|because|since|as|although|"
    r"though|whether|once|after|before|until|is|are|was|were|so|thus|hence|therefore|but|or)\s)[^\s,;:]+\s+){1,6}?)"
    r"(?P<n>" + _NEG_AUX + r"(?:\s+(?:definitely|certainly|surely|clearly|actually|really|obviously))?\s+(?:not|never|no\s+longer)"
    r"|(?:do|does|did|has|have|had|wo|would|shall|should|ca|could|might|must|is|are|was|were)n't|cannot|can\s+not"
    r"|(?:" + _NEG_AUX + r"\s+)?(?:never|no\s+longer|neither)"
    r"|(?:has|have|had|is|are|was|were)\s+no(?=\s+[-+\u2212]?\d))\s+"  # "The town has no 2000 people."
    # (not a bound: "does not have more than 2000" is R2.1's to read)
    r"(?!(?:[a-z]+\s+){0,2}(?i:more|fewer|less|greater|smaller|larger|higher|lower|over|under|above|below|beyond|"
    r"earlier|later|sooner|until|till)\b)"
    r"(?P<v>(?:[^,;:]|,(?=\d{3}))+?)\s*(?:,(?!\d{3})\s*(?P<rest>[\s\S]*))?$")
# a value in the negated clause (a digit: a number, a date, a quantity)
_CLAUSE_DIGIT_RE = re.compile(r"\d")
# a conclusion after the negated verb: its value is not the negated one ("... does not matter, so 12")
# nor a time from which it holds ("not assigned at birth until 1986": from 1986 on)
_VERB_NEGATED_REST_RE = re.compile(r"\b(?:because|since|so|thus|hence|therefore|which|whereas|while|answer|is|are|was|"
                                   r"were|equals?|until|till|unless|except|without)\b", re.IGNORECASE)
# a reason or condition after the negated part, no clause of its own
_REASON_LEAD_RE = re.compile(r"(?:since|because|as|for|given|if|unless|when|whereas|while|which|who|where|although|though|"
                             r"even|i\.?e\.?|e\.?g\.?|that\s+is|according)\b", re.IGNORECASE)
_HAS_NO_VALUE_RE = re.compile(r"\b(?:has|have|had|is|are|was|were)\s+no\s+[-+\u2212]?\d")
_QUOTED_RE = re.compile(r"\"[^\"\n]{1,80}\"|\u201c[^\u201d\n]{1,80}\u201d|\u2018[^\u2019\n]{1,80}\u2019(?!\w)")
_VALUE_NUMBER_RE = re.compile(r"[-+\u2212]?\d[\d,]*(?:\.\d+)?(?:\s*%)?")


def _masked(clause: str) -> str:
    """``clause`` with the letters of its quoted titles masked (same length): '"Don't Look Now" has 12
    chapters' holds no negation of its own."""
    if '"' not in clause and "\u201c" not in clause and "\u2018" not in clause:
        return clause
    return _QUOTED_RE.sub(lambda m: m.group()[0] + re.sub(r"\S", "x", m.group()[1:-1]) + m.group()[-1], clause)


def _verb_negated(clause: str) -> tuple[list[str], str] | None:
    """R2.5: the values a clause whose verb is negated denies ("The town does not have 2000
    people." -> ["have 2000 people", "The town", "2000"]) and the text after a comma that ends the
    negated part ("He didn't score 3 goals, he scored 2." -> "he scored 2", read as a clause of its
    own), or ``None`` where its verb is not negated or the negated part holds no value (a digit)."""
    if len(clause) > 200 or not _CLAUSE_DIGIT_RE.search(clause):
        return None
    m = _VERB_NEGATED_RE.match(_masked(clause))
    if m is None:
        return None
    after = m.group("v").partition(" ")[2]
    if _VERB_NEGATED_REST_RE.search(after):  # (the negated verb itself may be "equal": "does not equal 4")
        return None
    subject, value = clause[: m.end("s")].strip(), clean_answer(clause[m.start("v"): m.end("v")])
    if not _CLAUSE_DIGIT_RE.search(subject + " " + value):
        return None
    out = [v for v in (value, clean_answer(subject)) if v]
    out += [n.group().strip() for n in _VALUE_NUMBER_RE.finditer(subject + " " + value)]
    rest = clause[m.start("rest"):].strip() if m.group("rest") else ""
    return out, "" if _REASON_LEAD_RE.match(rest) else rest  # ("221 is not prime, since 221 = 13 * 17": a reason)


# "n = 5 is not a solution", "x = 3 is not a root": a value the answer rules out
_NOT_A_SOLUTION_RE = re.compile(r"^(?P<v>[^\s,;](?:[^,;]{0,38}[^\s,;])?)\s+(?:is|are)\s+not\s+(?:a\s+|an\s+|the\s+)?"
                                r"(?:valid\s+|real\s+|possible\s+)?(?:solution|root|answer|zero)s?$", re.IGNORECASE)
# "6 was ruled out", "although 7 is excluded", "x = 2 has been eliminated": another value set aside
_CONCESSION_LEAD_RE = re.compile(r"^(?:although|though|whereas|while)\s++", re.IGNORECASE)
_RULED_OUT_RE = re.compile(r"^(?!(?:it|that|this|the\s+answer)\b)"
                           r"(?P<v>[^\s,;](?:[^,;]{0,38}[^\s,;])?)\s++(?:is|are|was|were|has\s+been|have\s+been|had\s+been|"
                           r"can\s+be)\s++(?:already\s++|also\s++)?(?:ruled\s+out|excluded|eliminated|rejected|discarded)(?:\s++(?:early|earlier|first|already|at\s+once))?$",
                           re.IGNORECASE)
_DOUBTED_PRONOUNS = frozenset({"it", "that", "this", "so", "it though", "that though"})
# "Paris is incorrect; it is Lyon", "43 would be wrong. 42.", "I doubt it is Paris": a value put forward to be rejected
_REJECTED_RE = re.compile(
    r"^(?!(?:(?:so|thus|hence|therefore),?\s+)?(?:the\s+)?(?:claim|statement|assertion|proposition|conjecture|premise|"
    r"argument|hypothesis|reasoning|above|it|this|that)\b)"  # "the claim is wrong" answers a true-or-false question
    r"(?P<v>(?:[^\s]+\s+){0,3}?[^\s]+)\s+(?:is|was|would\s+be|seems|looks|'s)\s+(?:(?:clearly|definitely|certainly|"
    r"probably|plainly)\s+)?(?:wrong|incorrect|not\s+(?:correct|right|the\s+answer))$"
    r"|^" + NEGATED_BELIEF + r"\s+(?:that\s+)?(?:it'?s\s+|it\s+is\s+|it\s+(?:would|will|could)\s+be\s+|"
    r"(?:the\s+)?(?:final\s+|correct\s+)?answer\s+is\s+)?(?P<d>.+?)"
    r"(?:(?:\s+is|['\u2019]s)\s+(?:(?:the\s+)?(?:right|correct)(?:\s+answer)?|the\s+answer))?$",
    re.IGNORECASE,
)
# "B is right", "Lyon is the correct one": a value called right beside others called wrong
_CALLED_RIGHT_RE = re.compile(
    r"^(?!(?:(?:so|thus|hence|therefore),?\s+)?(?:the\s+)?(?:claim|statement|assertion|proposition|conjecture|premise|"
    r"argument|hypothesis|reasoning|above|it|this|that)\b)"
    r"(?P<v>(?:[^\s]+\s+){0,3}?[^\s]+)\s+(?:is|'s)\s+(?:the\s+)?(?:right|correct|true)(?:\s+(?:one|answer|option|choice))?$",
    re.IGNORECASE)
_AFFIRM_LEAD_RE = re.compile(
    r"^(?:but\s+|rather\s+|instead\s+|so\s+|thus\s+|hence\s+|therefore\s+)?(?:(?:the\s+(?:final\s+|correct\s+)?answer|it|this|that)\s*"
    r"(?:is|'s|was|must\s+be|should\s+be)\s+|it'?s\s+)?",
    re.IGNORECASE,
)
# a full stop ends a clause, but not an initial before a lower-case word ("not A. tennyson")
_CLAUSE_SPLIT_RE = re.compile(r"(?<!\s)\s*+(?:;|\?\s++(?=(?-i:[A-Z]))|\.\s++(?!(?-i:[a-z]))|(?<!(?<!(?-i:[A-Za-z]))(?-i:[A-Z]))\.\s++|,?\s*+(?<=\s)but\s+|(?<=\s)[\u2014\u2013]\s+|\u2014|,\s++(?=(?:(?:definitely|certainly|surely|clearly)\s+)?not\b|it\b|it'?s\b|but\b|so\b|thus\b|hence\b|therefore\b|although\b|though\b|whereas\b))\s*",
                              re.IGNORECASE)
# "C (not D)." ending the answer: D negated; not "(not sure ...)", a doubt
_PAREN_NOT_RE = re.compile(r"(?<=[^\s(])\s*+\(\s*+((?:(?:definitely|certainly|surely)\s+)?not\s+"
                           r"(?!(?:(?:fully|entirely|completely|totally|quite|100%|very)\s+)?(?:sure|certain|confident)\b)"
                           r"[^();]{1,40}?)\s*+\)(?=\s*+[.!]?\s*+$)", re.IGNORECASE)
_ANYTHING_BUT_RE = re.compile(r"\b(anything|everything|any\s+(?:value|number|answer))\s+but\b", re.IGNORECASE)
_NOR_RE = re.compile(r"(?<!\s)\s++nor\s+", re.IGNORECASE)
_MAX_NEGATION_WORDS = 40
# a value, then a relation that excludes another: "x = 72 \\neq 74", "72 ≠ 74" (numbers and plain fractions)
_NE_VALUE = r"[-+\u2212]?(?:\d[\d.,]*+|\\d?frac\{\d++\}\{\d++\})"
_VALUE_NOT_EQUAL_RE = re.compile(r"^\s*+\$?\s*+(?:[A-Za-z](?:_\{?\w{1,3}\}?)?\s*+=\s*+)?(?P<a>" + _NE_VALUE
                                 + r")\s*+(?:\\neq?(?![A-Za-z])|!=|\u2260)\s*+(?P<v>" + _NE_VALUE + r")\s*+\$?\s*+\.?\s*+$")


def _negations(answer: str, verbs: bool = True) -> tuple[str | None, list[str], str]:
    """(the affirmed answer, the negated values, reason) of a short final answer; ``verbs``: read
    a clause whose verb is negated (``_verb_negated``) as well."""
    if "\u2019" in answer:
        answer = answer.replace("\u2019", "'")  # "doesn’t", "it’s": a curly apostrophe is an apostrophe
    low = answer.lower()
    if "\\n" in answer or "!=" in answer or "\u2260" in answer or "\u2209" in answer:
        m = NOT_EQUAL_RE.match(answer)
        if m:
            return None, [clean_answer(m.group("v"))], "negation:only_negated"
        m = _VALUE_NOT_EQUAL_RE.match(answer)
        if m:  # "x = 72 \\neq 74", "72 ≠ 74": the value stated, the other excluded (R2.5)
            return clean_answer(m.group("a")), [clean_answer(m.group("v"))], "negation:affirmed_after"
    if ("not" not in low and "n't" not in low and "never" not in low and "neither" not in low and "longer" not in low and not _HAS_NO_VALUE_RE.search(low) and "wrong" not in low
            and "incorrect" not in low and "doubt" not in low and "n\u2019t" not in low and "unlikely" not in low
            and "improbable" not in low and "thing" not in low and "any " not in low and "ruled out" not in low
            and "exclud" not in low and "eliminat" not in low and "reject" not in low and "discard" not in low):
        return answer, [], ""
    if len(answer.split()) > _MAX_NEGATION_WORDS:
        return answer, [], ""
    if len(answer) <= 24 and parse_bool(answer) is False:
        return answer, [], ""  # "Not really.", "Definitely not.": a no in other words, no value negated
    # LaTeX values are negated as well ("not $\frac{1}{2}$"); a thin space "\;" is a space, not a clause end
    text = answer.replace("\\;", "\\ ") if "\\;" in answer else answer
    if "(" in text:
        text = _PAREN_NOT_RE.sub(r"; \1", text)  # "C (not D)": D negated in a clause of its own
    if "but" in low:
        text = _ANYTHING_BUT_RE.sub(r"\1 except", text)  # "anything but 5": no clause break at its "but"
    clauses = [c for c in _CLAUSE_SPLIT_RE.split(text.strip().rstrip(".")) if c and c.strip()]
    affirmed: list[str] = []
    negated: list[str] = []
    rejected: list[str] = []
    i = 0
    while i < len(clauses) and i < 60:
        clause = clauses[i]
        i += 1
        if _NOT_UNTIL_RE.search(clause):
            body = clean_answer(_AFFIRM_LEAD_RE.sub("", clause.strip(), count=1))
            if body:  # "It wasn't released until 2011.": from 2011 on, no negation of the value
                affirmed.append(body)
            continue
        conceded = _CONCESSION_LEAD_RE.sub("", clause.strip(), count=1) if clause[:1] in "aAtTwW" else clause.strip()
        ruled_out = _NOT_A_SOLUTION_RE.match(conceded) or _RULED_OUT_RE.match(conceded)
        if ruled_out is not None:  # "n = 5 is not a solution", "6 was ruled out": the value ruled out
            value = clean_answer(ruled_out.group("v"))
            if value:
                negated.append(value)
            continue
        m = _NEGATED_RE.match(clause.strip())
        if m is None:
            r = _REJECTED_RE.match(clause.strip())
            if r is not None:
                value = clean_answer(r.group("v") or r.group("d") or "")
                if r.group("d") and value.lower() in _DOUBTED_PRONOUNS:
                    if affirmed:  # "42? I doubt it.": the value just put forward is doubted
                        negated.append(affirmed.pop())
                    continue
                if value:
                    (negated if r.group("d") else rejected).append(value)
                continue
            m = _SUBJECT_NEGATED_RE.match(clause.strip())
            if m is not None and (len(m.group("v").split()) > _MAX_NEGATED_WORDS or _UNTIL_RE.search(m.group("v"))):
                m = None  # "5 is not prime, so ...": a reason, not a negated answer; "wasn't opened until 1932": from 1932 on
            if m is None and verbs:
                denied = _verb_negated(clause.strip())
                if denied:  # "The town does not have 2000 people.": the clause's value denied
                    negated.extend(denied[0])
                    if denied[1]:  # "..., he scored 2": what follows the comma is a clause of its own
                        clauses.insert(i, denied[1])
                    continue
        if m:
            value = clean_answer(m.group("v"))
            if ": " in value:  # "not Lyon, not Marseille: Paris": the value after the colon stands
                value, stands = (clean_answer(v) for v in value.split(": ", 1))
                if stands:
                    affirmed.append(stands)
            parts = _NOR_RE.split(value) if low.lstrip().startswith("neither") or " nor " in value.lower() else [value]
            negated.extend(clean_answer(p) for p in parts if clean_answer(p))
            continue
        right = _CALLED_RIGHT_RE.match(clause.strip())
        body = clean_answer(right.group("v") if right else _AFFIRM_LEAD_RE.sub("", clause.strip(), count=1))
        if body:
            affirmed.append(body)
    if rejected and affirmed:
        negated += rejected  # "Pacific is incorrect; it is the Atlantic." (a value called wrong alone is the
        # criterion's to read with the question: "Which spelling is wrong?" is answered by the one called wrong)
    if not negated:
        return answer, [], ""
    if not affirmed:
        return None, negated, "negation:only_negated"
    return affirmed[-1], negated, "negation:affirmed_after"


def rejected_value(answer: str) -> str | None:
    """The value a final answer only calls wrong ("Pacific is incorrect.", "43 would be wrong"), or
    ``None``. Whether that states nothing or answers the question (one asking for the wrong one)
    the question decides (``toolkit.criterion``)."""
    if "wrong" not in answer and "incorrect" not in answer and "not" not in answer or len(answer) > 120:
        return None
    m = _REJECTED_RE.match(answer.strip().rstrip(".!").strip())
    return clean_answer(m.group("v")) or None if m is not None and m.group("v") else None


# ---------------------------------------------------------------- alternatives and lists
_OR_WORDS_RE = re.compile(
    r"(?<!\s)\s*+,?\s*+(?:\\(?:text|mathrm|textrm)\s*\{\s*or\s*\}|\\quad\s*\\text\s*\{\s*or\s*\}\s*\\quad|\bor\s+(?:else\s+|maybe\s+|"
    r"possibly\s+|perhaps\s+|alternatively\s+|even\s+)?|\\lor(?![A-Za-z])|\\vee(?![A-Za-z])|\u2228)\s*",
    re.IGNORECASE,
)
_AND_WORDS_RE = re.compile(r"(?<!\s)\s*+,?\s*+(?:\\(?:text|mathrm|textrm)\s*\{\s*and\s*\}|\band\b|&|\\&)\s*", re.IGNORECASE)
_HEDGE_WORDS_RE = re.compile(
    r"\b(?:either|maybe|perhaps|possibly|probably|could\s+be|might\s+be|may\s+be|or\s+maybe|or\s+possibly|"
    r"alternatively|not\s+sure|unsure|one\s+of)\b",
    re.IGNORECASE,
)
# (a word of every match: "or maybe" holds "maybe", "not sure" and "unsure" hold "sure", ...)
_HEDGE_WORDS = CaseFolded(_HEDGE_WORDS_RE, needs=("either", "maybe", "perhaps", "possibly", "probably", "could", "might",
                                                  "may", "alternatively", "sure", "one"))
_EITHER_RE = re.compile(r"^(?:it\s+(?:is|'s|could\s+be|might\s+be)\s+|the\s+answer\s+(?:is|could\s+be)\s+|(?:it\s+)?(?:could|"
                        r"might|may)\s+be\s+)?(?:either|one\s+of)\s+", re.IGNORECASE)
_MATHY_RE = re.compile(r"[\d\\$^_=<>()\[\]{}|+*/]|(?:^|\s)[A-Za-z](?:$|[\s,;])")
_LATEX_WORD_RE = re.compile(r"\\[A-Za-z]+")
_LONG_WORD_RE = re.compile(r"[A-Za-z]{3,}")
_MATH_WORDS = frozenset({
    "and", "or", "either", "maybe", "possibly", "perhaps", "sin", "cos", "tan", "cot", "sec", "csc", "log", "exp",
    "sqrt", "frac", "pi", "inf", "infty", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "deg", "mod", "gcd",
    "lcm", "max", "min", "det", "else",
})
_ANSWER_LEAD_RE = re.compile(
    r"^(?:so|thus|therefore|hence)?[\s,]*(?:the\s+)?(?:(?:final|possible|only|two|real|correct)\s+)*(?:answers?|solutions?|"
    r"roots?|zeros?|values?|results?|options?|choices?)"
    r"(?:\s+(?:is|are|would\s+be)|\s*+[=:])\s*|^(?:it\s+is|it'?s|they\s+are|these\s+are|both)\s+",
    re.IGNORECASE,
)


def _is_mathy(body: str) -> bool:
    """Mathematical writing: digits, LaTeX or operators, and no prose word ("December 14, 2016"
    is prose; ``x = 1, y = 2`` and ``B, C, D`` are not)."""
    if not _MATHY_RE.search(body):
        return False
    words = _LONG_WORD_RE.findall(_LATEX_WORD_RE.sub(" ", re.sub(r"\\text\s*\{[^{}]*\}", " ", body)))
    return all(w.lower() in _MATH_WORDS for w in words)
# A list comma: not a thousands separator (``1,234``, ``12,\!345``, ``12{,}345``); a comma and a space always split.
# (a comma after no digit always splits: "45^\\circ,105^\\circ" is two angles)
_LIST_COMMA_RE = re.compile(r"(?<![{\d]),\s*|(?<!\{),(?!\s*(?:\\[!,;: ])?\s*\d{3}(?:\D|$))\s*|,\s+(?!\\[!,])")
_HEDGE_LEAD_RE = re.compile(
    r"^(?:(?:i\s+think|i\s+believe|i\s+guess|probably|maybe|perhaps|possibly|likely|most\s+likely|presumably|"
    r"apparently)[\s,]+)+",
    re.IGNORECASE,
)
_PAREN_ALT_RE = re.compile(r"^(?P<a>.+?)(?<!\s)\s*+\(\s*(?:(?:or(?![\s,]*+(?:equivalently|in\s+other\s+words|i\.?e\.?|that\s+is)\b)"
                           r"|maybe|possibly|perhaps|alternatively)\b[\s,]*(?P<b>[^()]+)"
                           r"|(?P<c>[-+\u2212$]?\d[^()]{0,40}?)\s+(?:if|when|unless|assuming|including|counting|excluding|with|without|"
                           r"not\s+counting|(?:by|on|via|during|through|along|over|under|at)(?![ \t]*+[-+\u2212]?\d))\b[^()]*)\)\s*$",
                           re.IGNORECASE)  # "12 (or 13)", "12 apples (13 if you count the rotten one)", "12 (14 including pears)",
# "5 km (6 km by road)": a value under a condition a preposition states; "12 (3 by 4)" is working
# "42 (2, 3)", "42 cm (43)", "5 km (6 km)": a number (and its unit), then only other numbers (and their units) in
# parentheses (no working, no word): values offered beside it (R2.1); the same value again ("42 (42.0)", "5 km
# (5000 m)") is one candidate
_PAREN_UNIT = r"(?:[ \t]*+(?:[A-Za-z]{1,6}|%|\u00b0))?"
_PAREN_NUMBERS_RE = re.compile(r"^(?P<a>[-+\u2212]?\d[\d.,]*+" + _PAREN_UNIT + r")[ \t]*+\([ \t]*+(?P<b>[-+\u2212]?\d[\d.]*+"
                               + _PAREN_UNIT + r"(?:[ \t]*+[,;][ \t]*+[-+\u2212]?\d[\d.]*+" + _PAREN_UNIT
                               + r"){0,8})[ \t]*+\)[ \t]*+\.?[ \t]*+$")
# "carbon dioxide (and oxygen)", "42 (plus 43)": a second item added in parentheses (R2.3)
_PAREN_ADDED_RE = re.compile(r"^(?P<a>[^()\n]{1,80}?)[ \t]*+\([ \t]*+(?:and|plus|as[ \t]++well[ \t]++as)[ \t]++(?:also[ \t]++)?"
                             r"(?P<b>[^()\n]{1,40}?)[ \t]*+\)[ \t]*+\.?[ \t]*+$", re.IGNORECASE)
_SLASH_HEDGE_RE = re.compile(r"^\s*(?P<a>[A-Za-z][A-Za-z]{0,14})\s*/\s*(?P<b>[A-Za-z][A-Za-z]{0,14})\s*$")


_FIRST_NUMBER_RE = re.compile(r"[-+\u2212]?\d[\d.,]*")


def _first_number(s: str) -> str | None:
    m = _FIRST_NUMBER_RE.search(s)
    return m.group(0).rstrip(".,") if m else None


def _slash_alternatives(a: str, b: str) -> bool:
    """``A/B``, ``Fe/Cu``, ``Paris/Lyon`` offer two answers; ``x/y`` is a quotient, ``km/h`` a unit."""
    if {a.lower(), b.lower()} & _UNIT_SLASH_WORDS:
        return False
    return all(t[0].isupper() or len(t) >= 3 for t in (a, b))
_UNIT_SLASH_WORDS = frozenset({"km", "h", "s", "m", "min", "hr", "mol", "kg", "g", "l", "ml", "mi", "ft", "day", "yr"})
_OPEN, _CLOSE = "([{\u27e8", ")]}\u27e9"


_BRACKET_CHARS_RE = re.compile("[([{\u27e8)\\]}\u27e9]")


def _spans_between(s: str, rx: re.Pattern[str]) -> list[tuple[int, int]]:
    out, last = [], 0
    for m in rx.finditer(s):
        out.append((last, m.start()))
        last = m.end()
    out.append((last, len(s)))
    return out


def _top_level_split(s: str, rx: re.Pattern[str]) -> list[str]:
    """Split ``s`` at matches of ``rx`` that lie outside brackets, braces and ``\\text{..}``."""
    if not _BRACKET_CHARS_RE.search(s):
        return rx.split(s) if rx.groups == 0 else [s[m0:m1] for m0, m1 in _spans_between(s, rx)]
    depth = 0
    level: list[int] = []
    for ch in s:
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
        level.append(depth)
    parts, last = [], 0
    for m in rx.finditer(s):
        at = m.start() if m.start() < len(s) else len(s) - 1
        # a separator inside \text{ or } raises the depth at its brace: judge by the first character
        inner = s[m.start() : m.end()]
        probe = m.start() + (len(inner) - len(inner.lstrip())) if inner.strip() else at
        if probe < len(level) and (level[probe] > 0 and not inner.lstrip().startswith("\\")):
            continue
        if probe < len(level) and inner.lstrip().startswith("\\") and (probe == 0 or level[probe - 1] > 0):
            continue
        parts.append(s[last : m.start()])
        last = m.end()
    parts.append(s[last:])
    return parts


def _digit_commas_are_numbers(s: str) -> bool:
    """``1,234``, ``3,75``, ``0,25 ... 1,25`` are numbers; ``1,2,3`` (short groups, two commas
    or more) is a list: commas between digits with no space."""
    runs = re.findall(r"\d+(?:,\d+)+", s)
    if not runs:
        return False
    return not all(len(r.split(",")) >= 3 and all(len(g) <= 2 for g in r.split(",")) for r in runs)


# a LaTeX space not escaped, or "~" (the backslash first, then its look back: scanned for at once)
_LATEX_SPACE_RE = re.compile(r"\\(?<!\\\\)(?:quad|qquad|[,;:! ])|~")
_MAX_PROSE_ALTERNATIVE_WORDS = 5


# a word of four letters or more, not a command's name: "(?<![\\A-Za-z])[A-Za-z]{4,}" with the look
# back after the first letter, so the engine scans for letters instead of trying every position
_PROSE_WORD_RE = re.compile(r"[A-Za-z](?<![\\A-Za-z].)[A-Za-z]{3,}")
_VALUE_WORDS = frozenset({"sqrt", "frac", "dfrac", "tfrac", "text", "mathrm", "infty", "cdot", "times", "left", "right",
                          "sin", "cos", "tan", "log", "pi", "exp", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
                          "mathbf", "boxed", "circ", "degree", "degrees", "percent"})


def _has_prose_word(text: str) -> bool:
    return any(w.lower() not in _VALUE_WORDS for w in _PROSE_WORD_RE.findall(text))


def _value_like(part: str) -> bool:
    """A list item must be a value: a number, quantity, expression, equation, set, interval or
    a choice letter; prose ("December 14") is not, so "December 14, 2016" stays one answer.
    Decided from the writing, without parsing: a prose word (four letters or more that is no
    math command or unit-free function name) makes the part prose."""
    t = part.strip()
    if not t:
        return False
    for w in _PROSE_WORD_RE.findall(t):
        if w.lower() not in _VALUE_WORDS:
            return False
    return True


_MAX_ASKED = 8
_ASKED_OR_RE = re.compile(r"^or\s+", re.IGNORECASE)
# "it is not", "it isn't", "it does": a reply with a pronoun and a verb ("No, it is not."), no value of a list
_PRONOUN_CLAUSE_RE = re.compile(r"^(?:it|he|she|we|i|you)[ \t]++(?:is|was|does|did|can|will|has|am|are|do)"
                               r"(?:n't|n\u2019t|[ \t]++not)?[ \t]*+[.!]?$", re.IGNORECASE)
_OR_EQUAL_RE = re.compile(r"\bthan[ \t]++or[ \t]++equal[ \t]++to\b")


# a closing remark that commits to nothing: "42? 43? I'm not sure.", "5 km? Maybe."
_DOUBT_TAIL_RE = re.compile(r"^(?:(?:i'?m|i\s+am|we'?re)\s+)?(?:not\s+(?:sure|certain)|unsure|uncertain)\b"
                            r"|^(?:it'?s\s+)?hard\s+to\s+(?:say|tell)\b|^(?:i\s+)?(?:don'?t|do\s+not)\s+know\b|^no\s+idea\b"
                            r"|^who\s+knows\b|^(?:i\s+)?can'?t\s+(?:decide|tell)\b|^(?:maybe|perhaps|possibly)[.!]*+$", re.IGNORECASE)


# R2.1: the one answer put as a question ("The final answer is 14?", "\\boxed{14}?", "False?"): asked, not
# committed. The question mark ends the answer's own text or follows its span at once; after it comes
# nothing, or a closing remark that commits to nothing ("I'm not sure").
_ASKED_AT_END_RE = re.compile(r"\?[\s$*_)\]}]*+$")
# (a reason in parentheses or a clause after a comma may stand between the answer and its question mark:
# "\boxed{42} (since 6 x 7 = 42)?", "**Silver**, probably?", "\boxed{12}, which is correct?")
_ASKED_AFTER_RE = re.compile(r"^[\s$*_)\]}]*+(?:\([^()\n]{0,80}\)[\s$*_)\]}]*+|,[^\n?.!;:]{1,80}+)?\?(?!\?)")
# a full stop after an initial or a title ("G. Bizet?", "St. Petersburg?", "Dr. Who?") ends no sentence
_SENTENCE_BREAK_RE = re.compile(r"(?<!\b(?-i:[A-Z]))(?<!\b(?:St|Dr|Mr|Ms|Jr|Sr|Mt|vs))(?<!\bMrs)\.(?=\s)|[!;:](?=\s)|\n")
_ASKED_CHARS = 200
# a question about the answer itself: "Is it 42?", "Could it be 42?", "Is the answer 42?"
_ASKED_CANDIDATE_RE = re.compile(r"(?:is|could|would|might|can|should|will|must)\s++(?:it|that|this|the\s++(?:final\s++)?"
                                 r"(?:answer|result|value|number|total|solution))\b", re.IGNORECASE)


def _asked_only(ex: Extracted) -> bool:
    """The extracted answer is one candidate asked back, not stated (see above)."""
    a = ex.answer or ""
    if "?" in a:
        at = a.find("?") + 1
        if a.count("?") != 1 or len(a) > _ASKED_CHARS or not _ASKED_AT_END_RE.search(a, 0, at):
            return False
        if at < len(a) and not _DOUBT_TAIL_RE.match(a[at:].strip()):
            return False  # "false? I'm not sure" asks; "Is it 5? Yes, 5" answers
        a = a[:at]
        if ex.method in ("whole", "last_line"):
            # the whole response: a remark put as a question after a stated answer ("6 x 7 = 42. Right?")
            # asks nothing about it; the asked sentence must be all of it, or hold the value
            last = _SENTENCE_BREAK_RE.split(a)[-1]
            if last is not a and not _HAS_MATH_RE.search(last):
                return False
            if (_ASKED_RE.match(last.lstrip()) and not (last is a and _ASKED_CANDIDATE_RE.match(last.lstrip()))) or ex.echo:
                return False  # "... Is 91 prime?": a question the response asks itself, or the question repeated
            # ("Is it 42?", "Could the answer be 42?" as the whole answer: a candidate asked back)
        rest = ex.tail or ""
    else:
        m = _ASKED_AFTER_RE.match(ex.tail or "")
        if m is None:
            return False
        rest = ex.tail[m.end():]
    rest = rest.strip()
    return not rest or bool(_DOUBT_TAIL_RE.match(rest))


def _asked_candidates(text: str) -> tuple[str, ...]:
    """"Canberra? Sydney?", "42? 43? 44?": two to eight different candidates, each only asked
    (a question mark, then white space before the next one), none committed."""
    pieces = text.strip().split("?")
    tail = pieces[-1].strip()
    if tail and not _DOUBT_TAIL_RE.match(tail):
        return ()  # "42? 43? I'm not sure." asks still; "42? 43? It is 42." commits
    if not 2 < len(pieces) <= _MAX_ASKED + 1:
        return ()
    if any(not p[:1].isspace() for p in pieces[1:-1]):
        return ()  # "42?43?" is no list of questions
    items = [clean_answer(_ASKED_OR_RE.sub("", p.strip(), count=1)) for p in pieces[:-1]]
    if any(not it or len(it) > 40 or "\n" in it for it in items):
        return ()
    distinct = _distinct(tuple(items))
    return distinct if len(distinct) > 1 else ()


# an expression, then the points it excludes: "x + 1 for $x \\neq 1$", "x + 1, x \\neq 1", "x + 1 (x \\neq 1)" (R4.4);
# not a set written with them ("x \\in \\mathbb{R}, x \\neq 2" is one set of its own)
DOMAIN_NOTE_RE = re.compile(
    r"^(?![^,\n]*(?:\\in\b|\u2208|\\mathbb))(?P<e>[^\n]{1,120}?)\$?\s*+(?:,?\s*+(?:\\text\{\s*+)?(?:for|where|when)(?:\s+all)?\s*+\}?|,|(?P<p>\())\s*+\$?\s*+[a-z]\s*+"
    r"(?:\\neq?|\\ne\b|\u2260|!=)\s*+[-\d\s,.\\{}a-z]{1,20}?\$?\s*+(?(p)\)\s*+)\.?$")


def split_candidates(answer: str, *, keep_repeats: bool = False) -> tuple[tuple[str, ...], str, bool]:
    """``(candidates, joiner, hedged)`` of one final answer text.

    Several values split at top-level "or", "and", commas and semicolons when every part is
    a value (a number, an expression, an equation, a letter ...); prose splits only at a short
    "or" ("Fe or Cu", "either Paris or Lyon") and at ``A/B`` between two short words.
    Brackets keep their content together: ``(1, 5)`` and ``\\{2, 9\\}`` are one candidate.
    Repeated values are dropped unless ``keep_repeats`` (a reference ``C, C, B`` is a sequence).
    A leading "whether A or B," clause and a closing "or so" / "or thereabouts" offer no candidate.
    """
    text = answer.strip()
    if "]" in text or "[" in text:
        text = french_intervals(text)  # "]0, 1]": one interval, not the two items "]0" and "1]"
    if "hether" in text or "way" in text or "case" in text or "egardless" in text:
        text = _without_whether_clause(text)  # "whether n is 5 or 8, ...": the cases of a condition
    if " or " in text:
        text = _OR_SO_RE.sub("", text)  # "42 or thereabouts": an approximation, no second candidate
    if not text:
        return (), "single", False
    if "?" in text:
        asked = _asked_candidates(text)
        if asked:
            return asked, "or", True
    low = text.lower()
    if len(text) > _MAX_LIST_CHARS and not _has_hedge_lead(low):
        return (text,), "single", False  # a paragraph is not a list of values
    if not (not _JOINING_CHARS.isdisjoint(text) or " or " in low or " and " in low or "\\lor" in text or "\\vee" in text
            or "{or}" in low or "{and}" in low) and not _has_hedge_lead(low):
        return (text,), "single", False  # most answers: nothing that could join two candidates
    from verifier_runtime.toolkit.numbers import parse_number

    if parse_number(text) is not None:
        return (text,), "single", False  # "one thousand six hundred and twenty-five", "1,234"
    if "\\in" in text or "\u2208" in text or "eal" in text:
        from verifier_runtime.toolkit.structures import reals_with_condition

        if reals_with_condition(text):
            return (text,), "single", False  # "x \\in \\mathbb{R}, x \\neq 2", "all reals except 2 and 3": one set
    if ("\\ne" in text or "\u2260" in text or "!=" in text) and "," in text and DOMAIN_NOTE_RE.match(text):
        return (text,), "single", False  # "x + 1, x \\neq 1": an expression and the point it excludes (R4.4)
    if " or " in low and "equal" in low and _OR_EQUAL_RE.search(low) and " or " not in _OR_EQUAL_RE.sub(" ", low):
        return (text,), "single", False  # "x is greater than or equal to 2": one relation, in words (R4.4)
    if (" and " in text or "\\land" in text or "\\wedge" in text) and ("<" in text or ">" in text or "\\" in text):
        from verifier_runtime.toolkit.structures import is_both_bounds

        if is_both_bounds(text):
            return (text,), "single", False  # "x > 1 and x < 2": one interval
    hedged = _HEDGE_WORDS.search_in(text, fold_in_place(text))
    either = bool(_EITHER_RE.match(text))
    body = _HEDGE_LEAD_RE.sub("", _EITHER_RE.sub("", text, count=1), count=1) or text
    core = body  # without hedge words ("probably 12" is the value 12); a single candidate as written
    led = _ANSWER_LEAD_RE.sub("", body, count=1)
    if led and led != body and _is_mathy(led):
        body = led
    paren = _PAREN_ALT_RE.match(body) if body.rstrip().endswith(")") else None  # what its end needs
    if paren and paren.group("c") and _first_number(paren.group("c")) == _first_number(paren.group("a")):
        paren = None  # "72 pens (72 if every box is full)": the same value under a condition
    if paren:
        body = f"{paren.group('a')} or {paren.group('b') or paren.group('c')}"
        hedged = True
    elif "(" in body and body[:1] in "-+\u22120123456789" and (numbers := _PAREN_NUMBERS_RE.match(body)):
        body = f"{numbers.group('a')} or {numbers.group('b')}"
    elif body.rstrip().endswith(")") and ("and" in body or "plus" in body or "as well" in body):
        added = _PAREN_ADDED_RE.match(body)
        if added and (plain_noun_phrase(added.group("b")) or _value_like(added.group("b"))):
            a, b = clean_answer(added.group("a")), clean_answer(added.group("b"))
            if a and b and _key(a) != _key(b):
                return (a, b), "and", hedged  # "carbon dioxide (and oxygen)": a second item added
    if "\\" in body:
        body = _LATEX_SPACE_RE.sub(" ", _protect_groups(body)).replace("\\langle", "\u27e8").replace("\\rangle", "\u27e9")
    low = body.lower()
    parts = [body]
    joiner = "single"
    if " or " in low or "\\lor" in body or "\\vee" in body or "\u2228" in body or "{or}" in low.replace(" ", ""):
        pieces = [p for p in (clean_answer(x) for x in _top_level_split(body, _OR_WORDS_RE)) if p]
        if len(pieces) > 1:
            prose = not all(_value_like(p) for p in pieces)
            short = all(len(p.split()) <= _MAX_PROSE_ALTERNATIVE_WORDS for p in pieces)
            if not prose or short or (either and all(len(p.split()) <= 2 * _MAX_PROSE_ALTERNATIVE_WORDS for p in pieces)):
                parts, joiner = pieces, "or"
    # A list splits only into values: text with a prose word anywhere cannot be one (some part holds it).
    if joiner == "single" and not _has_prose_word(body) and (
            "," in body or ";" in body or " and " in low or "&" in body or "{and}" in low.replace(" ", "")):
        pieces = [body]
        if " and " in low or "&" in body or "{and}" in low.replace(" ", ""):
            pieces = [p for p in (clean_answer(x) for x in _top_level_split(body, _AND_WORDS_RE)) if p]
        out: list[str] = []
        for piece in pieces:
            for q in _top_level_split(piece, _SEMICOLON_RE):
                if "," in q and not _digit_commas_are_numbers(q.replace(" ", "")) or ", " in q:
                    out.extend(x for x in _top_level_split(q, _LIST_COMMA_RE) if x.strip())
                else:
                    out.append(q)
        out = [c for c in (clean_answer(o) for o in out) if c]
        if len(out) > 1 and all(_value_like(o) for o in out) and not any(_PRONOUN_CLAUSE_RE.match(o) for o in out):
            parts, joiner = out, "and"
    if joiner == "single":
        m = _SLASH_HEDGE_RE.match(body) or (_SLASH_HEDGE_RE.match(clean_answer(led)) if "/" in led else None)
        if m and _slash_alternatives(m.group("a"), m.group("b")):
            parts, joiner = [m.group("a"), m.group("b")], "or"
    if joiner == "or":
        parts = [clean_answer(_HEDGE_LEAD_RE.sub("", _EITHER_RE.sub("", p, count=1), count=1)) for p in parts]
        parts = [p for p in parts if p]
    if joiner == "and":
        parts = [p for p in (clean_answer(_RESTATE_LEAD_RE.sub("", p, count=1)) for p in parts) if p]
        affirmed = [p for p in parts if not _NOT_PART_RE.match(p)]
        if affirmed:
            parts = affirmed  # "42 and not 43", "42, not 43": the value excluded is no second candidate
    kept: list[str] = []
    seen: set[str] = set()
    for p in parts:
        k = _key(p)
        if keep_repeats or k not in seen:
            seen.add(k)
            kept.append(p)
    if len(seen) <= 1 and not (keep_repeats and len(kept) > 1):
        return ((kept[0] if kept else core) if joiner != "single" else core,), "single", hedged
    return tuple(kept), joiner, hedged


_SEMICOLON_RE = re.compile(r"(?<!\s)\s*+;\s*")
_NOT_PART_RE = re.compile(r"^(?:but\s+|and\s+)?not\s", re.IGNORECASE)
# "24, i.e. 24.0": the same value again, said another way (the candidates must then agree)
_RESTATE_LEAD_RE = re.compile(r"^(?:i\.?\s?e\.?|that\s+is|namely|equivalently|or\s+equivalently|which\s+is)[\s,:]*",
                              re.IGNORECASE)
# Words that qualify a single candidate ("probably 12"); text with neither these nor a separator
# is one candidate as it stands.
_MAX_LIST_CHARS = 400
_HEDGE_LEADS = ("probabl", "maybe", "perhaps", "possibl", "likely", "i think", "i believe", "i guess", "presumabl",
                "apparentl", "either", "one of")
# (each branch starts with its own character, then looks back for the digit before it)
_JOINING_CHARS = frozenset(",;&/(\u2228")  # characters that may join two candidates


def _has_hedge_lead(low: str) -> bool:
    """``any(w in low for w in _HEDGE_LEADS)``, without a generator (asked for most answers)."""
    for w in _HEDGE_LEADS:
        if w in low:
            return True
    return False


_DIGIT_GROUP_RE = re.compile(r"(?:,(?<=\d,)\s*\\[!,;: ]\s*|\{(?<=\d\{),\})(?=\d{3}(?!\d))")


def _protect_groups(s: str) -> str:
    """``12,\\!345`` and ``12{,}345`` keep their digit groups (a thousands separator, not a list)."""
    return _DIGIT_GROUP_RE.sub(",", s)


_LABEL_RE = re.compile(
    r"^\s*(?P<label>[A-Za-z](?:_\{?[A-Za-z0-9]{1,4}\}?)?|\\[A-Za-z]+|[A-Za-z]\s*\(\s*[A-Za-z]\s*\))\s*(?:=|\\approx|\u2248)\s*"
    r"(?P<value>[^=<>]+)$"
)


def strip_label(candidate: str) -> tuple[str | None, str]:
    """``("x", "11")`` for ``"x = 11"``; ``(None, text)`` when there is no single-symbol label."""
    m = _LABEL_RE.match(candidate)
    if not m:
        return None, candidate
    return m.group("label").replace(" ", ""), m.group("value").strip()


def _key(s: str) -> str:
    return "".join(s.split()).lower().rstrip(".")


# ---------------------------------------------------------------- several boxes
_GAP_STRIP_RE = re.compile(r"\\(?:quad|qquad|,|;|!|\s)|\\text\s*\{([^{}]*)\}|\\mathrm\s*\{([^{}]*)\}|[$\s]+|"
                           r"(?<![A-Za-z])[A-Za-z](?:_\{?\w{1,3}\}?)?\s*=")
_GAP_CONNECTIVE_RE = re.compile(r"^(?:[,;&]|and|or|\\&)*$", re.IGNORECASE)
_GAP_ALTERNATIVE_RE = re.compile(r"\b(?:or|either|maybe|perhaps|possibly|alternatively|otherwise)\b", re.IGNORECASE)
_GAP_CONNECTIVE_CHARS = 16
_GAP_ALTERNATIVE_CHARS = 60


def _box_group(ex: Extracted) -> tuple[list[str], str, bool]:
    """The last group of boxes: (contents, joiner, hedged). Boxes separated by a short
    connective are one group; a box after further working starts a new one."""
    boxes = ex.boxes
    if not boxes:
        return [], "single", False
    group = [clean_answer(boxes[-1][0])]
    joiner, hedged = "single", False
    for k in range(len(boxes) - 2, -1, -1):
        gap = ex.gaps[k] if k < len(ex.gaps) else ""
        flat = _GAP_STRIP_RE.sub(lambda m: (m.group(1) or m.group(2) or "").strip(), gap).strip()
        if len(flat) <= _GAP_CONNECTIVE_CHARS and _GAP_CONNECTIVE_RE.match(flat.replace(" ", "")):
            if "or" in flat.lower():
                joiner = "or"
            elif joiner == "single":
                joiner = "and"
        elif len(gap) <= _GAP_ALTERNATIVE_CHARS and _GAP_ALTERNATIVE_RE.search(gap) and not _STRONG_RE.search(gap):
            joiner, hedged = "or", True
        else:
            break
        group.insert(0, clean_answer(boxes[k][0]))
    return [g for g in group if g], joiner, hedged


# ---------------------------------------------------------------- the final statement of prose
_INLINE_MATH_RE = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
_CONCLUSION_RE = re.compile(
    r"\b(?:so|thus|therefore|hence|i\.e\.|that\s+is|which\s+gives|giving|we\s+get|this\s+gives|gives)\b\s*,?\s*|:\s+",
    re.IGNORECASE,
)
_SINCE_RE = re.compile(r"^\s*(?:since|because|as|given\s+that)\b", re.IGNORECASE)
_CONNECTIVE_RE = re.compile(r"^[\s,;]*+(?:(?:or|and)[\s,;]*+)?$", re.IGNORECASE)
_LAST_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z$\\])")


def final_statement(answer: str) -> str:
    """In prose that writes its values in math (``$...$``), the value its last statement gives:
    "Subtract 3: $-y < 2$." -> ``-y < 2``; "so $x = -3$ or $x = 2$" -> ``x = -3 or x = 2``;
    "so the greater one is $2^{10}$" -> ``2^{10}``. Anything else is returned unchanged."""
    if "$" not in answer and "\\(" not in answer and "\\[" not in answer:
        return answer
    sentences = [t for t in _LAST_SENTENCE_RE.split(answer.strip()) if t.strip()]
    last = sentences[-1] if sentences else answer
    spans = list(_INLINE_MATH_RE.finditer(last))
    if not spans:
        return answer
    # the text after the last conclusion word that lies outside every math span
    cut = 0
    lead = _SINCE_RE.match(last)
    if lead:  # "Since $2^5 = 32$, $\\log_2 32 = 5$": the reason clause is not the answer
        for m in re.finditer(r",\s*", last):
            if not any(sp.start() <= m.start() < sp.end() for sp in spans):
                cut = m.end()
                break
    for m in _CONCLUSION_RE.finditer(last):
        if not any(sp.start() <= m.start() < sp.end() for sp in spans):
            cut = m.end()
    spans = [sp for sp in spans if sp.start() >= cut]
    if not spans:
        return answer
    outside = last[cut : spans[0].start()] + "".join(
        last[spans[k].end() : spans[k + 1].start()] for k in range(len(spans) - 1))
    after = last[spans[-1].end():].strip().rstrip(".!")
    if re.search(r"\d", outside + after):
        return answer  # "so $\\sqrt{50}$ is closest to 7": a value outside the math too
    values = [next(g for g in sp.groups() if g is not None).strip() for sp in spans]
    if after and len(after) <= 12 and " " not in after:
        values[-1] = f"{values[-1]} {after}"  # "$3.0 \\times 10^8$ km/s": the unit written after the math
    gaps = [last[spans[k].end() : spans[k + 1].start()] for k in range(len(spans) - 1)]
    if len(values) == 1:
        return values[0]
    if all(_CONNECTIVE_RE.match(g) for g in gaps):
        out = values[0]
        for g, v in zip(gaps, values[1:], strict=True):
            out += (" or " if "or" in g.lower() else ", ") + v
        return out
    return answer


# ---------------------------------------------------------------- the whole reading
# a box whose content negates: "\\boxed{\\text{not } 12}" reads "not 12"; "\\boxed{\\neq 12}" excludes 12
_BOX_NOT_RE = re.compile(r"^\s*+\\(?:text|mathrm|textrm|textbf|mbox)\s*+\{\s*+(?:not|never)\s*+\}\s*+", re.IGNORECASE)
_BOX_NEQ_RE = re.compile(r"^\s*+(?:\\neq?(?![A-Za-z])|\u2260|!=|\\not\s*+=)\s*+")
# the box judged by the text right after it: "\\boxed{12} is wrong", "\\boxed{12} is not the answer"
_BOX_VERDICT_RE = re.compile(
    r"^[\s$.,]*+(?:\\\]|\\\))?[\s$.,]*+(?:(?:which|this|that|it)\s+)?(?:is|was|would\s+be|seems)\s+"
    r"(?:(?:definitely|clearly|actually|surely)\s+)?(?:wrong|incorrect|not\s+(?:right|correct|the\s+(?:right\s+|correct\s+)?answer))\b",
    re.IGNORECASE)


def commitment_of(ex: Extracted, *, verb_negations: bool = True) -> Commitment:
    """Read the final commitment from an extraction (see the module docstring). ``verb_negations``:
    a clause whose verb is negated denies its value ("The town does not have 2000 people."); the
    criterion turns it off where the question's own predicate is negated ("How many students did
    not pass?": "12 students did not pass." answers 12)."""
    try:
        return _commitment(ex, verb_negations)
    except (ValueError, TypeError, IndexError, AttributeError, re.error, RecursionError):
        return Commitment(ex.answer, (ex.answer,) if ex.answer else (), method=ex.method)


def final_commitment(response: str, question: str | None = None) -> Commitment:
    """:func:`commitment_of` the response's extracted final answer."""
    return commitment_of(extract_final_answer(response, question))


def _commitment(ex: Extracted, verbs: bool = True) -> Commitment:
    if ex.answer is None:
        return Commitment(None, (), method=ex.method)
    if "?" in ex.answer or "?" in ex.tail[:100]:
        if _asked_only(ex):
            return Commitment(None, (), reason="hedge:asked", method=ex.method)
    if ex.method == "boxed" and ex.tail:
        verdict = _BOX_VERDICT_RE.match(ex.tail)
        if verdict is not None:  # the box declared wrong: its value is negated; a marked answer after it counts
            later = extract_final_answer(ex.tail[verdict.end():])
            if later.answer is None or later.method not in MARKER_METHODS:
                return Commitment(None, (), reason="negation:only_negated", negated=(clean_answer(ex.answer),),
                                  method=ex.method)
            inner = commitment_of(later, verb_negations=verbs)
            return Commitment(inner.answer, inner.candidates, inner.joiner, inner.hedged,
                              inner.reason or "negation:affirmed_after", (clean_answer(ex.answer),) + inner.negated,
                              inner.retracted, ex.method, inner.text, inner.items, inner.final_answers)
    answer: str | None = ex.answer
    if "?" in answer and ex.method != "boxed":
        answer = _self_answered(answer) or answer  # "Is it 7? Yes, 7." states 7
    joiner, hedged, finals = "single", False, False
    candidates: tuple[str, ...] = ()
    if ex.method == "boxed" and len(ex.boxes) > 1:
        group, joiner, hedged = _box_group(ex)
        seen: list[str] = []
        for g in group:
            if _key(g) not in {_key(x) for x in seen}:
                seen.append(g)
        if len(seen) > 1:
            candidates = tuple(seen)
        else:
            joiner = "single"
    elif ex.conflicting and ex.method != "boxed":
        # R2.2: several <answer> tags, or answer lines one right after another, with different values
        candidates = _distinct(tuple(clean_answer(c) for c in ex.candidates))
        joiner, hedged, finals = "or", True, True
    # corrections: inside the answer's own text (one-line answers) and in the text after it
    retracted: list[str] = []
    reason = ""
    if not candidates:
        own = ex.answer if ex.method != "boxed" else ""
        if own:
            head, r1, why1 = _apply_corrections(None, own)
            if why1:
                answer, retracted, reason = head, r1, why1
                if head is None and why1 == "retraction:no_answer_left":
                    # the correction came after an answer written in the same line
                    first = _STRONG_RE.split(own, maxsplit=1)[0]
                    retracted = [clean_answer(first)] if clean_answer(first) else []
        if ex.tail:
            new, r2, why2 = _apply_corrections(answer, ex.tail)
            if why2:
                answer, reason = new, why2
                retracted += r2
    else:
        new, r2, why2 = _apply_corrections(None, ex.tail) if ex.tail else (None, [], "")
        if why2 == "retraction:last_answer" and new is not None:
            candidates, joiner, answer, reason, retracted = (), "single", new, why2, list(candidates)
            finals = False
        elif why2 == "retraction:no_answer_left":
            return Commitment(None, (), reason=why2, retracted=candidates, method=ex.method)
    if answer is None:
        return Commitment(None, (), reason=reason or "no_answer", retracted=tuple(retracted), method=ex.method)
    negated: list[str] = []
    if not candidates and ex.method != "boxed" and "," in answer:
        # "It's 42, I'm fairly sure.": a remark on the confidence, no second item (R1.1)
        answer = _CONFIDENCE_TAIL_RE.sub("", answer) or answer
    if not candidates and ex.method != "boxed" and "ish" in answer:
        answer = _ISH_RE.sub("", answer)
    if not candidates and ex.method != "boxed" and ("->" in answer or "=>" in answer or "\u2192" in answer
                                                   or "\u21d2" in answer or "\\Rightarrow" in answer):
        arrow = _ARROW_RESULT_RE.match(answer.strip())
        if (arrow is not None and (_WORKED_RE.search(arrow.group("lhs")) or _FIRST_NUMBER_RE.fullmatch(arrow.group("lhs").strip()))
                and not _CHEMICAL_SIDE_RE.match(arrow.group("lhs").strip())):
            # "6 * 7 -> 42": the working, then what it gives; "72 -> 74": a value, then what it became (R1.1);
            # not the left side of a chemical equation ("2H2 + O2 -> 2H2O")
            answer = arrow.group("v").strip()
    if not candidates and ex.method != "boxed":
        answer = working_result(answer) or answer  # "We get 12, then add 2 to reach 14.": 14 (R1.1)
    if not candidates:
        stated = final_statement(answer) if ex.method != "boxed" else _BOX_NOT_RE.sub("not ", answer, count=1)
        if ex.method == "boxed" and _BOX_NEQ_RE.match(stated):
            # "\\boxed{\\neq 12}": a relation that excludes the value, no value (R2.5)
            return Commitment(None, (), reason="negation:only_negated", negated=(clean_answer(_BOX_NEQ_RE.sub("", stated)),),
                              retracted=tuple(retracted), method=ex.method)
        if stated != answer and ("eal" in answer or "\\in" in answer or "\u2208" in answer or " and " in answer):
            from verifier_runtime.toolkit.structures import real_set_statement

            stated = real_set_statement(answer) or stated  # "all real numbers except $x = 3$": the set, not x = 3
        affirmed, negated, why = _negations(stated, verbs)
        if not why and stated != answer:
            # the negation may sit outside the statement's value: "not $\frac{1}{2}$" reads as "\frac{1}{2}"
            affirmed, negated, why = _negations(answer, verbs)
            if why and affirmed is not None:
                affirmed = final_statement(affirmed)
        answer = stated
        if why:
            reason = why if not reason else reason
            if affirmed is None:
                return Commitment(None, (), reason=why, negated=tuple(negated), retracted=tuple(retracted),
                                  method=ex.method)
            answer = affirmed
        text = answer
        listed = _option_list(answer, ex.tail) if ex.method != "boxed" and not why else ()
        if not listed and not why and ex.method in RUN_METHODS and ex.tail:
            listed = _value_lines(answer, ex.tail)
        if listed:
            items, joiner, hedged, text = listed, "and", False, ", ".join(listed)
        else:
            items, joiner, hedged = split_candidates(answer, keep_repeats=True)
        candidates = _distinct(items)
        if len(candidates) == 1 and not reason and not listed:
            first = candidates[0]
            own = answer[answer.find(first) + len(first):] if first in answer else ""
            alt = (alternative_offered(first, own) or alternative_offered(first, first)
                   or (alternative_offered(first, ex.tail) if ex.tail else None)
                   or (_marked_after_box(first, ex.tail) if ex.method in _MARKED_METHODS and ex.tail else None))
            others, after = (_after_mark_others(first, ex.tail) if alt is None and ex.tail and ex.method in ("boxed", "bold")
                             else ((), ""))
            if alt is not None:
                items, candidates, joiner, hedged = (first, alt), (first, alt), "or", True
            elif others:
                items = candidates = (first, *others)
                joiner, hedged = after, after == "or"
                text = (" or " if hedged else ", ").join(items)  # ("**B**, C": the letters, not the bold one alone)
            else:
                other = restated_other_value(first)
                if other is not None:  # "42 (about 43)": the restatement gives another value
                    items = candidates = other
                    joiner, hedged = "or", True
        elif len(candidates) == 1 and reason in _LANDED and ex.tail and ex.method in _MARKED_METHODS:
            # "The answer is 6. Actually no, it's 7.\n\nAnswer: 9": the corrected answer, then another mark
            why = _later_answer(candidates, ex.tail)
            if why:
                return Commitment(None, (), reason=why, retracted=tuple(retracted), method=ex.method)
    else:
        text = ", ".join(candidates)
        items = candidates
        hedged = hedged or any(_HEDGE_WORDS.search_in(c, fold_in_place(c)) for c in candidates)
    if len(candidates) > 1 and not reason and ex.tail and ex.method in _MARKED_METHODS:
        why = _later_answer(candidates, ex.tail)  # "\\boxed{1, 4}\n\nAnswer: 5", "\\boxed{1, 4} Or maybe 5."
        if why:
            return Commitment(None, (), reason=why, method=ex.method)
    if len(candidates) > 1:
        labels = [strip_label(c) for c in items]
        names = {lab for lab, _ in labels}
        if len(names) == 1 and None not in names:
            items = tuple(v for _, v in labels)  # "y = 1 or y = 4": the values of one unknown
            candidates = _distinct(items)
        answer = ", ".join(items) if joiner != "or" else " or ".join(candidates)
    elif candidates:
        answer = candidates[0]
    return Commitment(answer, candidates, joiner, hedged, reason, tuple(negated), tuple(retracted), ex.method,
                      text, items, len(candidates) > 1 and (finals or (ex.method == "boxed" and joiner == "or")))


_OPTION_LETTER_RE = re.compile(r"\(?[A-J]\)?\.?")


_FINAL_LINE_RE = re.compile(r"(?:^|(?<=[.!?])[ \t]++|(?<=\n))[ \t*]*+(?:final|result)(?:[ \t]++(?:result|value))?[ \t*]*+[:=][ \t*]*+"
                            r"(?P<v>[^\n]{1,60}?)[ \t*]*+[.!]?[ \t]*+$", re.IGNORECASE | re.MULTILINE)


# a correction or negation that leaves one answer: a later mark with another value still makes two
_LANDED = frozenset({"retraction:last_answer", "negation:affirmed_after"})
# the answers marked as final: a later mark with another value makes two final answers
_MARKED_METHODS = frozenset({"boxed", "final_answer", "answer_is", "answer_colon", "bold", "tag"})
_PICKS = ("answer", "go with", "going with", "stick with", "settle on")


# R2.1, R2.3: what goes on right after a box or a bold span closes: a list ("\boxed{72}, 74", "**Jupiter**,
# Saturn"), another value after a slash ("\boxed{72} / 74") or other numbers in parentheses ("\boxed{72} (74)")
_AFTER_MARK_ITEMS_RE = re.compile(r"^[ \t$*_)\]}]*+(?:(?P<sep>[,;/])[ \t]*+(?P<rest>[^\n]{1,120}?)|\((?P<paren>[^()\n]{1,60})\))"
                                  r"[ \t]*+[.!]?[ \t]*+(?:\n|$)")
_AFTER_MARK_SPLIT_RE = re.compile(r"(?:[ \t]*+[,;]|[ \t]++(?:and|or)(?=[ \t]))[ \t]*+")
_NUMBER_ITEM_RE = re.compile(r"^[-+\u2212]?\$?\d[\d.,]*+(?:[ \t]*+(?:[A-Za-z%\u00b0]{1,8}|\\%|\^\{?\\circ\}?))?$")
_LABELLED_ITEM_RE = re.compile(r"^[A-Za-z](?:_\{?\w{1,3}\}?)?[ \t]*+=[ \t]*+[-+\u2212]?[\w.\\{}/^]{1,30}$")  # "x = 4"
_TUPLE_ITEM_RE = re.compile(r"^\([^()\n]{1,40}\)$")  # "(2, 1)"
_AFTER_TUPLE_SPLIT_RE = re.compile(r"(?:(?<=\))|(?<=\)\$))[ \t]*+(?:[,;]|and|or)[ \t]*+")  # (a tuple's own commas stay)
_NAME_ITEM_RE = re.compile(r"^" + NAME_PATTERN + r"$")
_LETTER_ITEM_RE = re.compile(r"^\(?[A-J]\)?$")  # an option letter: "\\boxed{B} (C)" offers option C too
# a short formula: single-letter unknowns, digits, operators and LaTeX commands ("x-1", "\\frac{x}{2}"), with an
# operator, and no relation ("x \\neq 1" after a box is a condition, no second answer) and no word
_MATH_ITEM_RE = re.compile(r"^(?=[^=<>\u2260\u2264\u2265]*+$)(?!.*\\(?:neq|ne|le|ge|leq|geq|lt|gt|in|notin)(?![A-Za-z]))"
                           r"(?=.*[-+*/^\\])(?:\\[A-Za-z]++|[A-Za-z](?![A-Za-z])|[\d+\-*/^().{}_ \t])++$")


def _boolean_item(text: str) -> bool:
    return len(text) <= 12 and parse_bool(text) is not None  # "**Yes**, no": a bare yes or no, no reason


# (is the answer of this kind, is an item of this kind, may the items stand in parentheses), in the order
# they are tried: numbers (angles, percentages) after a number, option letters after a letter, labelled values
# after a labelled value, points after a point, booleans after a boolean, names after a name, nouns after a
# noun, formulas after a formula
_ITEM_KINDS = ((_FIRST_NUMBER_RE.match, _NUMBER_ITEM_RE.match, True), (_LETTER_ITEM_RE.match, _LETTER_ITEM_RE.match, True),
               (_LABELLED_ITEM_RE.match, _LABELLED_ITEM_RE.match, False), (_TUPLE_ITEM_RE.match, _TUPLE_ITEM_RE.match, False),
               (_boolean_item, _boolean_item, True), (_NAME_ITEM_RE.match, _NAME_ITEM_RE.match, False),
               (plain_noun_phrase, plain_noun_phrase, False), (_MATH_ITEM_RE.match, _MATH_ITEM_RE.match, False))


def _after_mark_others(first: str, tail: str) -> tuple[tuple[str, ...], str]:
    """(the further values offered right after a box or a bold answer closes, each of the answer's
    kind (``_ITEM_KINDS``); their joiner: ``"and"`` for a list, ``"or"`` after a slash or in
    parentheses), or ``((), "")``: a remark ("\\boxed{72}, since 8 x 9 = 72", "**Jupiter**, the gas
    giant", "\\boxed{72} (8 x 9)") offers nothing; only numbers, letters and booleans count in
    parentheses (a name there is a gloss: "**Jupiter** (Zeus)")."""
    m = _AFTER_MARK_ITEMS_RE.match(tail)
    if m is None:
        return (), ""
    kind = next(((item, paren) for is_kind, item, paren in _ITEM_KINDS if is_kind(first)), None)
    if kind is None or (m.group("paren") is not None and not kind[1]):
        return (), ""
    item = kind[0]
    split = _AFTER_TUPLE_SPLIT_RE if item == _TUPLE_ITEM_RE.match else _AFTER_MARK_SPLIT_RE
    items = [clean_answer(p) for p in split.split(m.group("rest") or m.group("paren"))]
    if not items or not all(it and item(it) for it in items):
        return (), ""
    others = tuple(it for it in items if _key(it) != _key(first))
    return others, ("and" if m.group("sep") in (",", ";") else "or") if others else ""


def _marked_after_box(first: str, tail: str) -> str | None:
    """R2.2: after the box (or another marked answer), a final-answer marker ("Answer: 24", "the final
    answer is 24", "I'll go with 24") states another value: two final answers, one for each reader.
    ``None`` when it states the first one's."""
    low = tail.lower()
    if any(w in low for w in _PICKS):
        for _ in range(_MAX_MARKS):  # "The final answer is 42.\n\nAnswer: 43": each mark after the last one read
            ex = extract_final_answer(tail)
            if ex.method not in ("final_answer", "answer_is", "answer_colon") or not ex.answer:
                return None
            other = _other_mark(first, clean_answer(ex.answer))
            if other is not None or not ex.tail:
                return other
            tail = ex.tail
        return None
    if "final" in low or "result" in low:
        lines = [m for m in _FINAL_LINE_RE.finditer(tail)]  # "Final: 48", "**Result:** 48"
        if not lines:
            return None
        return _other_mark(first, clean_answer(lines[-1].group("v")))
    return None


_MAX_MARKS = 3


def _other_mark(first: str, other: str) -> str | None:
    """``other`` (a marked answer after ``first``) when it states another value."""
    if not other or _key(other) == _key(first) or _OPTION_LETTER_RE.fullmatch(other):
        return None  # a letter may name the box's option: the question decides, not this reader
    for a, b in ((first, other), (other, first)):  # "x = 5" and "5"; "4321_5 - 1234_5 = 13413_5" and "13413_5"
        if re.search(r"(?<![\w.])" + re.escape(a) + r"(?![\w.])", b):
            return None
    from verifier_runtime.toolkit.compare import answers_equivalent

    return None if answers_equivalent(first, other).equal else other


def _later_answer(candidates: tuple[str, ...], tail: str) -> str:
    """The reason a committed answer (one value or several) is not the only one, from the text after
    it: a final-answer marker with other values (R2.2), or another value offered (R2.1); ``""``."""
    joined = ", ".join(candidates)
    other = _marked_after_box(joined, tail)
    if other is not None:
        theirs = {_key(strip_label(c)[1]) for c in split_candidates(other)[0]}
        if theirs != {_key(strip_label(c)[1]) for c in candidates}:  # "Answer: 1 and 4" restates "1, 4"
            return "hedge:multiple_final_answers"
    return "hedge:alternatives" if alternative_offered(joined, tail) is not None else ""


# ---------------------------------------------------------------- an alternative offered beside the answer
# "Alternatively, 4.", "D is also plausible.", "13 also possible", "or it could be 4", "If zero counts,
# it would be 4": a second candidate offered next to the committed one (R2.1).
_ALT_VALUE = (r"(?-i:\\boxed\{[^{}\n]{1,40}\}|\$[^$\n]{1,40}\$|\(?[A-J]\)(?![\w'])|\b[A-J]\b(?!['\u2019]\w)"
              r"|(?<![\d.,/])[-+\u2212]?\d[\d.,/]*+(?:\s*+%)?|(?<![A-Za-z])[A-Z][a-z]++(?:\s++[A-Z][a-z]++){0,2})")
_ALT_BEFORE_RE = re.compile(
    r"(?P<v>" + _ALT_VALUE + r")\s++(?:(?:is|are|would\s+be|seems|looks)\s+)?(?:also|equally)\s+"
    r"(?:(?:quite|very|a)\s+)?(?:plausible|possible|correct|valid|likely|acceptable|an?\s+(?:option|possibility)|works)\b"
    r"|(?P<w>" + _ALT_VALUE + r")\s++(?:would|could|might|may|will|does|should)\s+(?:also|equally)\s+"
    r"(?:work|do|fit|be\s+(?:plausible|possible|correct|valid|right|acceptable|argued|defended|justified|the\s+answer))\b",
    re.IGNORECASE)
# Every branch of _ALT_AFTER_RE starts at a word start with one of the letters in the look ahead, at
# "(", or at white space after ";", "," or "(" (or at the start): the look ahead turns away every
# other position at once, where the engine tried each branch in turn (the same matches, three times
# faster; case-insensitive like the branches, so its letters match as theirs do)
_ALT_AFTER_RE = re.compile(
    r"(?=\b[abcfimnoprstuw]|\(|(?:^|(?<=[;,(]))\s)(?:"
    r"\b(?:alternatively|otherwise)\b[\s,:]*(?:(?:it|the\s+answer|this)\s+(?:is|could\s+be|might\s+be|may\s+be|would\s+be)\s+)?"
    r"(?P<a>" + _ALT_VALUE + r")"
    r"|(?:\b(?:or|it|this)\s+(?:it\s+)?|(?:^|(?<=[;,(]))\s*+)(?:could|might|may)\s+(?:also|equally)\s+be\s+(?P<b>"
    + _ALT_VALUE + r")"
    r"|\bif\b[^.\n]{0,80}?,?\s+(?:then\s+)?(?:it|the\s+answer|this|that)\s+(?:would|will|could|might)\s+be\s+(?P<c>"
    + _ALT_VALUE + r")"
    r"|\bif\b[^.\n]{0,80}?,\s*(?P<d>\\boxed\{[^{}\n]{1,40}\})"
    r"|\b(?:but|though|although|or)\s+(?:(?:it|the\s+answer|this)\s+)?(?:could|might|may)\s+(?:instead\s+|also\s+)?be\s+(?P<e>"
    + _ALT_VALUE + r")"
    r"|\b(?:second|other|another|backup|alternative|alternate|next)\s+(?:best\s+|possible\s+|plausible\s+|valid\s+)?"
    r"(?:guess|answer|candidate|choice|opinion|possibility)\b"
    r"[\s:,\u2014\u2013-]*(?:(?:is|would\s+be)\s+)?(?P<f>" + _ALT_VALUE + r")"
    r"|\bin\s+(?:which|that)\s+case\b[\s,:]*(?:(?:it|the\s+answer)\s+(?:is|would\s+be|will\s+be)\s+)?(?P<g>"
    + _ALT_VALUE + r")"
    # "1945 (some sources say 1946)", "; some attribute it to Salai", "Others might say 43": a second
    # value beside the answer, put in others' mouths (the response still offers both)
    r"|\b(?:some|many|several|other)\s+(?:(?:sources|people|historians|scholars|accounts|authors|texts|books|"
    r"references|experts)\s+)?(?:(?:might|may|would|could)\s+)?(?:say|claim|suggest|give|list|argue|think|believe|attribute\s+it\s+to)\s+"
    r"(?:that\s+)?(?:it\s+(?:is|was)\s+)?(?P<j>" + _ALT_VALUE + r")"
    r"|\bothers\s+(?:might\s+|may\s+|would\s+|could\s+)?(?:say|claim|argue|think|suggest)\s+(?:that\s+)?"
    r"(?:it\s+(?:is|was)\s+)?(?P<k>" + _ALT_VALUE + r")"
    # "**Alternative:** 3", "Alternate: 3": a labelled second answer
    r"|\b(?:alternative|alternate|backup|fallback|second\s+choice|runner[\s-]up)(?:\s++(?:solution|result|value|answer))?\s*+(?:\*\*|__)?\s*+[:\u2014\u2013]\s*+(?:\*\*|__)?\s*+(?P<l>"
    + _ALT_VALUE + r")"
    # "12. (If the question meant inclusive, 14.)": another value under a condition, in parentheses
    r"|\(\s*+if\b[^().\n]{0,80}?,\s*+(?:then\s+)?(?:(?:it'?s|it\s+is|the\s+answer\s+is|it\s+would\s+be)\s+)?(?P<m>"
    + _ALT_VALUE + r")\s*+[.!]?\s*+\)"
    # "12 (if inclusive) / 14 (if exclusive)": a value for each condition, each in parentheses
    r"|\(\s*+(?:if|when|for)\b[^()\n]{0,60}\)\s*+(?:/|,|;|\bor\b|\band\b)\s*+(?P<q>" + _ALT_VALUE
    + r")\s*+\(\s*+(?:if|when|for)\b"
    # "Note: if the last term is excluded, the sum is 40.": another value under a condition
    r"|\bif\b[^.\n]{0,80}?,\s*+(?:then\s+)?(?:the\s+(?:[a-z]+\s+){0,2}?(?:sum|total|answer|result|value|count|number|"
    r"product|difference|area|length|probability|remainder)|it)\s+(?:is|would\s+be|becomes|will\s+be)\s+(?P<p>"
    + _ALT_VALUE + r")(?=\s*+(?:[.!?;,)]|$))"
    # "42. If you meant the other box, 43.": another value under a condition, alone after the comma
    # (the "if" opening a sentence: not "Catch Me If You Can", a title; the value ending it)
    r"|(?:^\s*+|(?<=[.!?;:\n])|(?<=[.!?;:\n]\s))if\b[^.\n()]{0,80}?,\s*+(?:then\s+)?(?P<x2>" + _ALT_VALUE + r")(?=\s*+(?:[.!?;]|$))"
    # "12 if n is even, and 14 if n is odd": a value for each case
    r"|\b(?:if|when)\b[^.;\n]{1,60}?[,;]\s*+(?:(?:and|or|but|while)\s+)?(?P<o>" + _ALT_VALUE + r")\s+(?:if|when|otherwise)\b"
    # "12 (though 14 is defensible)": a second value conceded
    r"|\b(?:though|although|but|while)\s+(?P<n>" + _ALT_VALUE + r")\s+(?:is|would\s+be|seems|looks)\s+(?:also\s+)?"
    r"(?:(?:quite|very|equally)\s+)?(?:defensible|arguable|plausible|possible|reasonable|acceptable)\b"
    # "5, although 6 can't be ruled out": a second value not excluded
    r"|\b(?:though|although|but|while)\s+(?P<v2>" + _ALT_VALUE
    + r"|(?-i:(?!(?:it|this|that|they|he|she|we|i|one)\b)[a-z]{2,}+(?:\s++[a-z]{2,}+)?))\s+(?:can(?:'|\u2019|no)?t|cannot|can\s+not)\s+"
    r"(?:yet\s+|entirely\s+|fully\s+|completely\s+)?be\s+(?:ruled\s+out|excluded|dismissed)\b"
    # "42 (alt. 43)", "42 (43?)": a second value in parentheses, marked as an alternative or asked
    r"|\(\s*+alt(?:\.|ernatively|ernative)?[\s:.,]*+(?P<t>" + _ALT_VALUE + r")\s*+\)"
    r"|\(\s*+(?P<u>(?-i:\$[^$\n]{1,40}\$|\b[A-J]\b|(?<![\d.,/])[-+\u2212]?\d[\d.,/]*+(?:\s*+%)?))\s*+\?\s*+\)"
    # "42. If not, 43.", "42 (if not, 43)": the other value should the answer be wrong
    r"|\bif\s+not\b[\s,:]*+(?:(?:then\s+)?(?:it'?s|it\s+is|it\s+would\s+be|the\s+answer\s+is|then)\s+)?(?P<s>"
    + _ALT_VALUE + r")"
    # "42, unless it's 43": the other value under a condition
    r"|\bunless\s+(?:it'?s|it\s+is|the\s+answer\s+is|it\s+turns\s+out\s+to\s+be)\s+(?P<i>" + _ALT_VALUE + r")"
    # "...; it might be 48.": a second value put as a possibility, ending its sentence
    r"|\b(?:it|the\s+answer|this)\s+(?:could|might|may)\s+(?:also\s+|instead\s+)?be\s+(?P<h>"
    + _ALT_VALUE + r")(?=\s*+(?:[.!?;,]|$))"
    # "... Or maybe it is 48.", "Perhaps 48.": a sentence that offers another value as a possibility
    r"|(?:^|(?<=[\s.!?;:,)$\]]))(?:or\s+)?(?:maybe|perhaps|possibly)\b[\s,]*+(?:(?:it|that|this|the\s+answer)"
    r"(?:'s|\s+is|\s+(?:could|might|would)\s+be)\s++)?(?P<r>" + _ALT_VALUE + r")(?=\s*+(?:[.!?;]|$)))",
    re.IGNORECASE)
_TAIL_OR_RE = re.compile(r"(?<![\s$%*,;\\>{])(?:[\s$%*,;]|\\(?:quad|qquad|[,;: ])|\\(?:text|mathrm|textrm)\s*+\{|<\s*+/\s*+answer\s*+>)*+\(?\s*+(?:or|maybe|perhaps|possibly)\b(?:\s++(?:maybe|perhaps|possibly|even))?"
                         r"[\s,:]*+(?:(?:it|that|this|the\s+answer)(?:'s|\s+is|\s+(?:could|might|may|would)\s+be)\s++)?"
                         r"(?P<v>" + _ALT_VALUE + r")", re.IGNORECASE)
_CLAUSE_START_RE = re.compile(r"(?:^|[.;:,!?])\s*+$")  # "...; it might be 48.": the possibility opens a clause
_ALT_WINDOW = 300
_ALT_WORDS = ("also", "equally", "alt", "?", "otherwise", "could", "might", "may", "if", "guess", "case", "second",
              "backup", "other", "unless", "opinion", "possib", "some", "many", "several", "fallback", "runner", "maybe", "perhaps",
              "defensib", "arguab", "plausib", "reasonab", "acceptab", "ruled out", "exclud", "dismiss")  # one in every offer


def _has_alt_word(low: str) -> bool:
    """``any(w in low for w in _ALT_WORDS)``, without a generator (asked once a triple)."""
    for w in _ALT_WORDS:
        if w in low:
            return True
    return False


def _after_offer_possible(fold: str) -> bool:
    """Whether the folded text (:func:`fold_in_place`) holds the words one branch of
    :data:`_ALT_AFTER_RE` at least needs: "alternatively"/"otherwise" (a); a modal "could",
    "might" or "may" (b, e, h); "if" with "would"/"will" (c; its other verbs are modals) or with a
    box (d); one of "second, other, ..." and one of "guess, answer, ..." (f); "case" (g). The
    pattern is run only then: without them it matches nowhere, and it costs more than all
    these tests together."""
    if "alternat" in fold or "otherwise" in fold or "case" in fold or "unless" in fold or "if not" in fold:
        return True
    if "(" in fold and ("alt" in fold or "?" in fold):  # "42 (alt. 43)", "42 (43?)"
        return True
    if "backup" in fold or "fallback" in fold or "runner" in fold or "choice" in fold:
        return True  # "Backup: 14", "second choice: 14"
    if ("though" in fold or "but" in fold or "while" in fold) and any(
            w in fold for w in ("defensib", "arguab", "plausib", "possib", "reasonab", "acceptab", "ruled out", "exclud",
                                "dismiss")):
        return True
    if ("some" in fold or "other" in fold or "many" in fold or "several" in fold) and any(
            w in fold for w in ("say", "claim", "suggest", "give", "list", "argue", "think", "believe", "attribut")):
        return True
    if "could" in fold or "might" in fold or "may" in fold or "perhaps" in fold or "possibly" in fold:
        return True  # ("maybe" holds "may")
    if "if" in fold and ("would" in fold or "will" in fold or "\\boxed{" in fold or "(" in fold or fold.count("if") > 1
                         or "," in fold):
        return True
    if "when" in fold and ("when" in fold[fold.find("when") + 4:] or "otherwise" in fold):
        return True
    return any(w in fold for w in ("guess", "answer", "candidate", "choice", "opinion", "possibility")) and any(
        w in fold for w in ("second", "other", "backup", "alternat", "next"))


def alternative_offered(answer: str, text: str) -> str | None:
    """A second candidate ``text`` offers beside ``answer`` (in the answer's own line or right after
    it), or ``None``; a value the same as the answer is no alternative."""
    window = text[:_ALT_WINDOW]
    if not window:
        return None
    tail_or = _TAIL_OR_RE.match(window) if text is not answer else None  # "\boxed{42} or 43": right after the answer
    if tail_or is None and not _has_alt_word(window.lower()):
        return None
    fold = fold_in_place(window)
    found = [(m.start(), m.group("v") or m.group("w")) for m in _ALT_BEFORE_RE.finditer(window)] if (
        fold is None or "also" in fold or "equally" in fold) else []
    if fold is None or _after_offer_possible(fold):
        found += [(m.start(), next(g for g in m.group("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p",
                                                                  "q", "r", "s", "t", "u", "v2", "x2")
                                   if g))
                  for m in _ALT_AFTER_RE.finditer(window)
                  if not m.group("h") or _CLAUSE_START_RE.search(window, 0, m.start())]
    if tail_or is not None:
        found.append((tail_or.start(), tail_or.group("v")))
    inside = text is answer  # the answer's own text: what comes before the alternative is the answer
    for at, v in sorted(found):
        value = clean_answer(v.strip())
        mine = _key(clean_answer(answer[:at] if inside else answer))
        if value and mine and _key(value) != mine and _key(value) not in mine:
            return value
    return None


# "Whether n is 5 or 8, the remainder is 2": the cases of a condition, then the one answer for all
_WHETHER_RE = re.compile(r"^\W*+(?:regardless\s+of\s+|no\s+matter\s+)?whether\b[^,;.\n]{1,120}?\bor\b[^,;.\n]{1,80},\s*+"
                         r"(?=\S)", re.IGNORECASE)


_OR_SO_RE = re.compile(r"(?<=\S)\s++or\s+(?:thereabouts|so)(?=\s*+[.!]?\s*+$)", re.IGNORECASE)


# "Either way, it's 42", "In any case, 42": the answer holds whatever was weighed before it
_REGARDLESS_RE = re.compile(r"^\W*+(?:either\s+way|(?:in\s+)?either\s+case|in\s+(?:any|both|each)\s+cases?|regardless|"
                            r"(?:both|all)\s+ways)\s*+,\s*+(?=\S)", re.IGNORECASE)


def _without_whether_clause(answer: str) -> str:
    """``answer`` without a leading "whether A or B," clause or "either way," (R2.1: they offer no
    candidates)."""
    m = _WHETHER_RE.match(answer) or _REGARDLESS_RE.match(answer)
    return answer[m.end():] if m else answer


# "42 (about 43)", "$\\frac{1}{3}$ (approximately 0.5)", "7 (i.e., 8)": the answer restated in
# parentheses as an approximate or equal value; a restatement that is no rounding of the value
# offers a second value (R2.1).
_RESTATED_RE = re.compile(
    r"\(\s*+(?:approximately|approx\.?|about|roughly|around|nearly|almost|close\s+to|i\.\s?e\.,?|that\s+is,?"
    r"|which\s+is|or\s+about|\u2248|\\approx|~)\s*+\$?(?P<v>[-+\u2212]?\d[\d,]*+(?:\.\d+)?)\$?\s*+\)\s*+[.!]?\s*+$"
    # "4 (four)", "4 (five)": the value again in words
    r"|\(\s*+(?:(?:i\.\s?e\.,?|that\s+is,?)\s*+)?(?P<w>[a-z]+(?:[\s-][a-z]+){0,5})\s*+\)\s*+[.!]?\s*+$",
    re.IGNORECASE)


# the value a statement ends with: a math span, or a number with at most one word after it ("9 sides")
_LEAD_VALUE_RE = re.compile(r"(?:\$(?P<m>[^$\n]{1,60})\$|(?<![\w.,])(?P<n>[-+\u2212]?\d[\d,]*+(?:\.\d+)?))"
                            r"(?:\s++[A-Za-z%]{1,15})?\s*+$")


def restated_other_value(answer: str) -> tuple[str, str] | None:
    """``(value, restated)`` where ``answer`` ends with a parenthesised restatement of its value
    ("42 (about 43)") whose number is no rounding or truncation of the value; ``None`` where the
    restatement agrees ("1/3 (approximately 0.333)", "41.7 (about 42)") or either side cannot be
    read as a number."""
    if "(" not in answer or len(answer) > 200:
        return None
    m = _RESTATED_RE.search(answer)
    if m is None:
        return None
    lead = clean_answer(answer[: m.start()].strip())
    restated = m.group("v")
    if restated is None:
        from verifier_runtime.toolkit.numbers import parse_number

        restated = m.group("w")
        if parse_number(restated) is None:
            return None  # "12 (dozen eggs)", "4 (see above)": no number in words
    if not lead:
        return None
    agree = _approximates(lead, restated)
    if agree is None:  # "The polygon has 9 sides (about 10)", "The mean is $\\frac{7}{3}$ (approximately 2.5)"
        end = _LEAD_VALUE_RE.search(lead)
        if end is None:
            return None
        lead = end.group("m") or end.group("n")
        agree = _approximates(lead, restated)
    return (lead, restated) if agree is False else None


def _approximates(value: str, approx: str) -> bool | None:
    """Whether the written number ``approx`` is ``value`` rounded or cut at its last digit;
    ``None`` where either is no number this can evaluate."""
    from fractions import Fraction

    from verifier_runtime.toolkit.compare import parse_answer, real_value
    from verifier_runtime.toolkit.numbers import parse_number

    n = parse_number(approx)
    v = real_value(parse_answer(value)) if n is not None else None
    if n is None or v is None:
        return None
    from verifier_runtime.toolkit.criterion import reference_tolerance

    target = n.value
    half = reference_tolerance(n)  # half a unit of the last written digit, as for a reference
    if half == 0:
        if v == int(v):
            return Fraction(int(v)) == target  # an integer restated by an integer: the same one
        half = Fraction(1, 2)
    diff = abs(Fraction(v) - target)
    if diff <= half * Fraction(1001, 1000):
        return True  # rounded
    return diff < 2 * half and abs(target) <= abs(Fraction(v))  # cut at its last digit


# ---------------------------------------------------------------- several options listed
# An answer that starts with an option marker ("(B): ...", "B. ...", "**C)** ...") and goes on
# with more marked options, on its own line or on the lines right after it, lists options.
_OPTION_MARK_RE = re.compile(r"^[ \t*]*+(?:\(([A-J])\)|([A-J])[.:)])(?=[ \t:*]|$)")
_INLINE_MARK_RE = re.compile(r"(?<=[.;,])[ \t]++(?=\([A-J]\)[ \t:])|(?<=\S)[ \t]++(?=\([A-J]\)[ \t]*+:)")
_MAX_OPTION_LINES = 12


def option_marker(line: str) -> str | None:
    """The option letter a line starts with ("(B): ...", "B. ...", "C) ..."), or ``None``."""
    m = _OPTION_MARK_RE.match(line)
    return (m.group(1) or m.group(2)) if m else None


_MAX_LISTED_OPTION_WORDS = 6


def _option_list(answer: str, tail: str) -> tuple[str, ...]:
    """The options an answer lists, each with its text (``("(B): x", "(D): y")``), when it lists
    more than one; else ``()``. The lines after the answer count while each starts with another
    option marker (the rest of the answer's own line may only close the sentence)."""
    first = option_marker(answer)
    if first is None:
        bare = answer.strip("() ")
        if len(bare) == 1 and "A" <= bare <= "J" and tail.startswith("\n"):
            # "The answer is B.\nC. green": another option written on the very next line
            nxt = tail.split("\n", 2)[1]
            letter = option_marker(nxt)
            if letter is not None and letter != bare and len(nxt.split()) <= _MAX_LISTED_OPTION_WORDS:
                return (answer, nxt.strip().rstrip(".;, "))
        return ()
    parts = [p.strip() for p in _INLINE_MARK_RE.split(answer)]
    letters = [option_marker(p) for p in parts]
    if len(parts) > 1 and None not in letters and len(set(letters)) == len(letters):
        return tuple(p.rstrip(".;, ") for p in parts)
    items, seen = [answer], {first}
    lines = tail.split("\n")
    if len(lines) < 2 or lines[0].strip(" \t.;,*") or len(items) >= _MAX_OPTION_LINES:
        return ()
    for line in lines[1:_MAX_OPTION_LINES + 1]:
        if not line.strip():
            if len(items) > 1:
                break
            continue
        letter = option_marker(line)
        if letter is None or letter in seen:
            break
        seen.add(letter)
        items.append(line.strip().rstrip(".;, "))
    return tuple(items) if len(items) > 1 else ()


_LIST_BULLET_RE = re.compile(r"^\s*+(?:[-*\u2022]|\(?\d{1,2}[.)])\s++")
_MAX_VALUE_LINES = 8
_MAX_VALUE_LINE_CHARS = 24


def _bare_value(line: str) -> str | None:
    """A line that holds one number and nothing else (a list bullet and math delimiters aside)."""
    from verifier_runtime.toolkit.numbers import parse_number

    v = clean_answer(_LIST_BULLET_RE.sub("", line, count=1))
    if not v or len(v) > _MAX_VALUE_LINE_CHARS or parse_number(v) is None:
        return None
    return v


def _value_lines(answer: str, tail: str) -> tuple[str, ...]:
    """R2.3: numbers one per line right under a marked answer ("Answer:\n42\n43", "The answer
    is:\n1. 42\n2. 43"): each line a value of the answer, when there are several; else ``()``.
    The answer must close its own line, and a blank line ends the list."""
    first = _bare_value(answer)
    lines = tail.split("\n", _MAX_VALUE_LINES + 1)
    if first is None or len(lines) < 2 or lines[0].strip(" \t.;,*"):
        return ()
    items = [first]
    for line in lines[1:_MAX_VALUE_LINES + 1]:
        v = _bare_value(line) if line.strip() else None
        if v is None:
            break
        items.append(v)
    return tuple(items) if len(items) > 1 else ()


def _distinct(items: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    seen: set[str] = set()
    for it in items:
        k = _key(it)
        if k not in seen:
            seen.add(k)
            out.append(it)
    return tuple(out)
