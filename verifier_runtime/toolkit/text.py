"""Text answers: normalisation, booleans, identifiers and chemical formulas, phrase containment.

Every function here is pure, deterministic and total: bad input (``None``, an ``int``, NUL
bytes, a megabyte of junk) gives ``None`` / ``False`` / ``""`` instead of an exception.

>>> normalize_text("  The \\\\text{Eiffel Tower}. ")
'eiffel tower'
>>> parse_bool("**Yes.**")
True
>>> parse_identifier("\\\\mathrm{H_2O}")
Identifier(text='H2O', kind='chemical_formula')
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from verifier_runtime.limits import MAX_ANSWER_CHARS, RESPONSE_TAIL_CHARS
from verifier_runtime.toolkit._memo import memoize_text

# LaTeX commands whose single braced argument is plain text for our purposes.
_TEXT_WRAPPERS = ("text", "textbf", "textit", "textrm", "texttt", "mathrm", "mathbf", "mathit", "mathsf",
                  "operatorname", "emph", "mbox", "ce")
_WRAPPER_RE = re.compile(r"\\(?:" + "|".join(_TEXT_WRAPPERS) + r")\s*\{([^{}]*)\}")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ARTICLE_RE = re.compile(r"^(?:a|an|the)\s+")
# "x \\neq 3", "x != 3", "x \u2260 3", "x \\notin \\{1, 2\\}": a variable and what it excludes (one pattern for
# the negation reading of commitment and the set reading of structures)
# a belief the response denies holding: "I don't think it's 42", "I doubt the answer is 42", "I'm not
# convinced it is 42", "I wouldn't say 42", "It's unlikely to be 42" (R2.5: the value is not committed to)
NEGATED_BELIEF = (
    r"(?:(?:i|we)\s+(?:(?:really|highly|strongly|seriously|very\s+much)\s+)?doubt"
    r"|(?:i|we)\s+(?:do\s+not|don['\u2019]?t|did\s+not|didn['\u2019]?t)\s+(?:really\s+)?(?:think|believe|suppose|reckon|expect)"
    r"|(?:i['\u2019]?m|i\s+am|we['\u2019]?re|we\s+are)\s+not\s+(?:convinced|persuaded)"
    r"|(?:i|we)\s+(?:wouldn['\u2019]?t|would\s+not|can['\u2019]?t\s+see\s+how)\s+(?:say|agree)"
    r"|(?:it['\u2019]?s|it\s+is)\s+(?:very\s+|highly\s+)?(?:unlikely|doubtful|improbable)(?:\s+(?:to\s+be|that))?)"
)
# the same denial right before an answer marker in its sentence: "I don't think the answer is 42"
# (the marked answer is then read as "not 42")
BELIEF_DENIED_BEFORE_MARKER_RE = re.compile(
    r"(?:^|(?<=[\s,;:(]))" + NEGATED_BELIEF + r"[ \t]++(?:that[ \t]++)?(?:the[ \t]++|my[ \t]++)?(?:(?:final|correct)[ \t]++)?\Z",
    re.IGNORECASE)


NOT_EQUAL_RE = re.compile(r"^\s*+\$?\s*+[A-Za-z](?:_\{?\w{1,3}\}?)?\s*+"
                          r"(?P<op>\\neq?(?![A-Za-z])|\\notin(?![A-Za-z])|!=|\u2260|\u2209)"
                          r"\s*+(?P<v>[^$]+?)\s*+\$?\s*+$")
# Punctuation removed from both ends by normalize_text (see docs/toolkit-extraction.md).
_END_PUNCT = ".,;:!?\"'`*_~\u201c\u201d\u2018\u2019\u00ab\u00bb"
_LEAD_PUNCT = ",;:\"'`*_~\u201c\u201d\u2018\u2019\u00ab\u00bb"
_SPACE = " \t\r\n\f\v"
_PAIRS = {"(": ")", "[": "]", "{": "}"}
_MAX_UNWRAP_ROUNDS = 8


# R4.4: an interval in the French writing, a bracket turned away from its bound for an open end: "]0, 1]" is
# (0, 1], "[0, 1[" is [0, 1), "]-\infty, 2[" is (-\infty, 2); the bounds are plain (numbers, infinity, a letter)
_BOUND = r"[-+\u2212]?(?:\\infty|\u221e|\d++(?:\.\d++)?+|\\d?frac\{\d++\}\{\d++\}|\\pi|[a-z])"
_FRENCH_INTERVAL_RE = re.compile(r"(?<![\w)\]}])(?P<o>[\]\[])\s*+(?P<a>" + _BOUND + r")\s*+(?P<s>[,;])\s*+(?P<b>" + _BOUND
                                 + r")\s*+(?P<c>[\]\[])(?![\w(\[{])")


def french_intervals(s: str) -> str:
    """``s`` with its French-written intervals in the usual brackets (``]0, 1]`` -> ``(0, 1]``); other
    text unchanged (``[0, 1]`` stays, and so does a bracket pair that is not one interval)."""
    if "]" not in s and "[" not in s:
        return s

    def usual(m: re.Match[str]) -> str:
        if m.group("o") == "[" and m.group("c") == "]":
            return m.group(0)
        return (f"{'(' if m.group('o') == ']' else '['}{m.group('a')}{m.group('s')} {m.group('b')}"
                f"{')' if m.group('c') == '[' else ']'}")

    return _FRENCH_INTERVAL_RE.sub(usual, s) if s.count("]") + s.count("[") >= 2 else s


def _as_str(value: object) -> str | None:
    """``value`` as a NUL-free string, or ``None`` when it is not a string."""
    if not isinstance(value, str):
        return None
    return value.replace("\x00", "") if "\x00" in value else value


def _unwrap_text_commands(s: str) -> str:
    """Replace ``\\text{x}``, ``\\mathrm{x}``, ... by ``x`` (innermost first, a bounded number of rounds)."""
    for _ in range(_MAX_UNWRAP_ROUNDS):
        if "\\" not in s:
            break
        new = _WRAPPER_RE.sub(r"\1", s)
        if new == s:
            break
        s = new
    return s


def _wrapped_by_pair(s: str) -> bool:
    """True when ``s`` is ``(..)``/``[..]``/``{..}`` and the outer pair encloses everything."""
    if len(s) < 2 or s[0] not in _PAIRS or s[-1] != _PAIRS[s[0]]:
        return False
    opener, closer = s[0], s[-1]
    depth = 0
    for i, ch in enumerate(s):
        if ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0 and i != len(s) - 1:
                return False
    return depth == 0


def _strip_ends(s: str) -> str:
    """Strip end punctuation and whole-string bracket pairs, keeping a factorial ``5!``.

    Linear in ``len(s)``; bracket pairs are only unwrapped on answer-sized strings.
    """
    for _ in range(_MAX_UNWRAP_ROUNDS):
        old = s
        core = s.rstrip(_END_PUNCT + _SPACE)
        if s[len(core) : len(core) + 1] == "!" and core and (core[-1].isdigit() or core[-1] == ")"):
            core += "!"
        s = core.lstrip(_LEAD_PUNCT + _SPACE)
        if len(s) <= MAX_ANSWER_CHARS and _wrapped_by_pair(s):
            s = s[1:-1]
        if s == old:
            break
    return s



def fold_in_place(text: str) -> str | None:
    """``text`` lower-cased so that every character a case-insensitive pattern takes for an
    ASCII letter *is* that letter, at the same index, and every character keeps its class
    (word, space, digit); ``None`` if the length would change. ``str.lower`` does this except
    for three characters: dotted and dotless I (U+0130, U+0131), which a case-insensitive
    ``i`` matches, and the long s (U+017F). (Checked over every code point by the tests.)"""
    if text.isascii():
        return text.lower()
    low = text.replace("\u0130", "i").lower().replace("\u0131", "i").replace("\u017f", "s")
    return low if len(low) == len(text) else None


class CaseFolded:
    """A case-insensitive pattern of lower-case ASCII words, run case-sensitively on the folded
    text (:func:`fold_in_place`): the same matches at the same places, in about half the time
    (the engine tests each alternative's first letter at once instead of through a case fold)."""

    __slots__ = ("_rx", "_folded", "_needs")

    def __init__(self, rx: re.Pattern[str], needs: tuple[str, ...] = ()) -> None:
        """``needs``: lower-case words one of which every match holds (in the folded text); a text
        without any of them is not searched."""
        letters = re.sub(r"\\.", "", rx.pattern)  # escapes (\b, \s, \w ...) keep their meaning
        if not rx.flags & re.IGNORECASE or any(ch.isupper() for ch in letters) or any(
                ch.isalpha() and not ch.isascii() for ch in letters):
            raise ValueError(f"not a case-insensitive pattern of lower-case ASCII letters: {rx.pattern!r}")
        self._rx = rx
        self._folded = re.compile(rx.pattern, rx.flags & ~re.IGNORECASE)
        self._needs = needs

    def _absent(self, low: str | None) -> bool:
        if not self._needs or low is None:
            return False
        for w in self._needs:
            if w in low:
                return False
        return True

    def search_in(self, text: str, low: str | None) -> bool:
        """Whether the pattern occurs in ``text``, whose :func:`fold_in_place` is ``low``."""
        if self._absent(low):
            return False
        return bool(self._rx.search(text) if low is None else self._folded.search(low))

    def spans_in(self, text: str, low: str | None) -> list[tuple[int, int]]:
        """The spans of ``finditer`` over ``text``, whose :func:`fold_in_place` is ``low``."""
        if self._absent(low):
            return []
        return [m.span() for m in (self._rx.finditer(text) if low is None else self._folded.finditer(low))]

def line_start_matches(regex: re.Pattern[str], led: re.Pattern[str], text: str, pos: int = 0) -> list[re.Match[str]]:
    """``list(regex.finditer(text, pos))`` for a ``^``-anchored multi-line pattern whose matches
    never take in a line break, given ``led``: the same pattern with ``"\\n"`` for its ``^``. Such
    a pattern matches at most once a line, where a line starts; ``led`` finds those lines (its
    first character is a literal the engine scans for at once, where ``^`` is tried at every
    position), and ``regex`` is matched there."""
    first = regex.match(text, pos)
    out = [first] if first is not None else []
    for h in led.finditer(text, pos):
        m = regex.match(text, h.start() + 1)
        if m is not None:
            out.append(m)
    return out


def led_by_newline(regex: re.Pattern[str]) -> re.Pattern[str]:
    """The ``led`` pattern of :func:`line_start_matches` for ``regex``."""
    if not regex.pattern.startswith("^"):
        raise ValueError(f"not a ^-anchored pattern: {regex.pattern!r}")
    return re.compile("\n" + regex.pattern[1:], regex.flags)


def marker_matches(regex: re.Pattern[str], text: str, starts: tuple[str, ...],
                   low: str | None | bool = False) -> list[re.Match[str]]:
    """``list(regex.finditer(text))`` for a pattern whose every match begins with one of the
    lower-case ASCII words ``starts`` (case-insensitively, in the text folded by
    :func:`fold_in_place`; ``low`` is that fold when the caller has it). The regular expression
    engine tries such a pattern at every position of the text; a match can only begin where one
    of the words is written (in the folded text, index for index), so only those places are
    tried: the same matches, found in a fraction of the time on long texts."""
    if low is False:
        low = fold_in_place(text) if starts else None
    if low is None:
        return list(regex.finditer(text))
    at: set[int] = set()
    for word in starts:
        k = low.find(word)
        while k >= 0:
            at.add(k)
            k = low.find(word, k + 1)
    out: list[re.Match[str]] = []
    pos = 0
    for k in sorted(at):
        if k < pos:
            continue  # inside the previous match: finditer resumes after it
        m = regex.match(text, k)
        if m is not None:
            if m.end() == k:  # an empty match (not one of these markers): finditer's own rules
                return list(regex.finditer(text))
            out.append(m)
            pos = m.end()
    return out


@memoize_text()
def normalize_text(s: str) -> str:
    """Canonical form of a short text answer, for equality tests.

    Steps, in order: Unicode NFKC; control characters and NUL removed; ``\\text{}``,
    ``\\mathrm{}`` and similar one-argument LaTeX text wrappers replaced by their content;
    ``$`` removed; end punctuation (``. , ; : ! ? * _ ~`` and quotes) and a bracket pair
    enclosing the whole string stripped; whitespace collapsed to single spaces; casefold;
    one leading article (a / an / the) dropped; end punctuation stripped again. A non-string,
    or a string longer than ``RESPONSE_TAIL_CHARS`` (no answer is that long), gives ``""``.
    """
    text = _as_str(s)
    if not text or len(text) > RESPONSE_TAIL_CHARS:
        return ""
    text = unicodedata.normalize("NFKC", text)
    if not text.isprintable() and _CONTROL_RE.search(text):  # (a control character is never printable)
        text = _CONTROL_RE.sub("", text)
    text = _unwrap_text_commands(text)
    text = text.replace("$", "")
    text = " ".join(_strip_ends(text).split())
    text = text.casefold()
    if text.startswith(("a", "t")):  # what the article pattern starts with
        text = _ARTICLE_RE.sub("", text, count=1)
    return _strip_ends(text).strip()


# British spellings and their American forms, word by word (R6.4): "leukaemia", "oedema", "diarrhoea",
# "colour", "organise", "analyse", "centre", "fibre", "sulphur", "programme", "catalogue", "defence"
_SPELLING_RULES = tuple((re.compile(p), r) for p, r in (
    (r"ae(?=[a-z])", "e"), (r"^oe", "e"), (r"oea", "ea"), (r"^foet", "fet"), (r"(?<=[a-z]{3})our(?=s?$)", "or"),
    (r"(?<=[a-z]{2})([iy])s(?=e$|ed$|es$|ing$|ation$|ations$)", r"\1z"), (r"(?<=[a-z]{2})([tb])re(?=s?$)", r"\1er"),
    (r"^sulph", "sulf"), (r"(?<=[a-z]{4})mme(?=s?$)", "m"), (r"(?<=[a-z]{3})ogue(?=s?$)", "og"),
    (r"^(defen|licen|offen|preten)ce(?=s?$)", r"\1se"),
))
_SPELLING_GATE = ("ae", "oe", "our", "is", "ys", "re", "sulph", "mme", "ogue", "ence")


def spelling_key(s: str) -> str:
    """``normalize_text(s)`` with British spellings in their American form, word by word
    (``"chronic lymphocytic leukemia"`` for "Chronic lymphocytic leukaemia"); a word keeps its
    letters otherwise. Only rules whose two sides are one word's two spellings: never a letter
    doubled or dropped that could make another word ("filled" and "filed" stay apart)."""
    t = normalize_text(s)
    if not any(g in t for g in _SPELLING_GATE):
        return t
    words = []
    for w in t.split(" "):
        for rx, rep in _SPELLING_RULES:
            w = rx.sub(rep, w)
        words.append(w)
    return " ".join(words)


def text_match(a: str, b: str) -> bool:
    """Normalised exact equality; two empty (or non-string) answers never match."""
    na, nb = normalize_text(a), normalize_text(b)
    return bool(na) and na == nb


def contains_answer(haystack: str, needle: str) -> bool:
    """Whether ``needle`` occurs in ``haystack`` as a whole word or phrase, after normalisation.

    Boundaries are non-word characters, so ``"art"`` is not found in ``"party"``. Only the
    last ``RESPONSE_TAIL_CHARS`` characters of ``haystack`` are searched, and a needle longer
    than ``MAX_ANSWER_CHARS`` is not an answer (``False``).

    >>> contains_answer("It was Wilhelm Röntgen in 1901.", "wilhelm röntgen")
    True
    """
    hay_raw, ndl_raw = _as_str(haystack), _as_str(needle)
    if not hay_raw or not ndl_raw or len(ndl_raw) > MAX_ANSWER_CHARS:
        return False
    hay, ndl = normalize_text(hay_raw[-RESPONSE_TAIL_CHARS:]), normalize_text(ndl_raw)
    if not hay or not ndl or ndl not in hay:
        return False
    # Whole-word boundaries where the needle starts or ends with a word character. Searched
    # with str.find rather than a regex compiled per needle (each compile cost more than the search).
    left, right = _is_word_char(ndl[0]), _is_word_char(ndl[-1])
    n, m = len(hay), len(ndl)
    i = hay.find(ndl)
    while i >= 0:
        if (not left or i == 0 or not _is_word_char(hay[i - 1])) and (
            not right or i + m == n or not _is_word_char(hay[i + m])
        ):
            return True
        i = hay.find(ndl, i + 1)
    return False


def _is_word_char(ch: str) -> bool:
    """What ``\\w`` matches in a str pattern: alphanumerics (``str.isalnum``) and the underscore."""
    return ch.isalnum() or ch == "_"


# ---------------------------------------------------------------- names
#: a proper name of one to four capitalised words, lower-case particles between them allowed
#: ("Jupiter", "Newport Beach", "Leonardo da Vinci", "Ludwig van Beethoven"); no comma or semicolon
NAME_PATTERN = (r"(?-i:[A-Z])[^\s,;]*+(?:[ \t]++(?:(?:da|de|di|del|della|van|von|der|den|du|le|la|dos|das|bin|ibn)"
                r"[ \t]++)?(?-i:[A-Z])[^\s,;]*+){0,3}")

#: a plain noun phrase of one to three words ("carbon dioxide", "oxygen")
NOUN_PHRASE_PATTERN = r"[A-Za-z][A-Za-z'-]*+(?:[ \t]++[A-Za-z][A-Za-z'-]*+){0,2}"
#: words that open a clause, a description or a remark after a comma, not a second noun ("water, a
#: liquid", "oxygen, which ...", "CO2, of course")
NOT_NOUN_WORDS = frozenset(
    "a an the which that who whose where when its their his her our my your it this these those also i.e e.g namely "
    "not so since because as from in of for with by to and or but yes no i we you he she they there here is are was "
    "were has have had be being very quite really".split())


def plain_noun_phrase(text: str) -> bool:
    """``text`` is a noun phrase of up to three words that opens no clause or remark (no word of
    :data:`NOT_NOUN_WORDS` first, no adverb in -ly): "oxygen", "carbon dioxide"; not "a gas", "mostly"."""
    words = text.split()
    return (bool(words) and len(words) <= 3 and words[0].lower() not in NOT_NOUN_WORDS
            and not any(w.lower().endswith("ly") for w in words) and bool(re.fullmatch(NOUN_PHRASE_PATTERN, text)))


# ---------------------------------------------------------------- booleans
_TRUE_WORDS = frozenset({"yes", "true", "correct", "right", "y", "yep", "yup", "yeah"})
_FALSE_WORDS = frozenset({"no", "false", "incorrect", "wrong", "n", "nope", "nah"})
_SINGLE_LETTER_BOOL = {"t": True, "f": False}
_TOKEN_RE = re.compile(r"[^\W_]+")
# a whole answer that is a yes or a no in other words
_BOOL_PHRASES = {**dict.fromkeys(("definitely not", "certainly not", "absolutely not", "of course not", "not really",
                                  "not at all", "no way", "surely not"), False),
                 **dict.fromkeys(("definitely", "certainly", "absolutely", "of course", "indeed", "surely"), True)}
_BOOL_PHRASE_FIRST = frozenset(p.split()[0] for p in _BOOL_PHRASES)
_BOOL_HEAD_RE = re.compile(r"[^\W\d_]+")  # the first word, past any markup ("**Yes.**", "\\text{No}")
_BOOL_FIRST = frozenset({"yes", "true", "correct", "right", "y", "no", "false", "incorrect", "wrong", "n", "t", "f",
                         "yep", "yup", "yeah", "nope", "nah", "text", "textbf", "mathrm", "boxed", "the", "a", "an"})


@memoize_text()
def parse_bool(s: str) -> bool | None:
    """A yes/no, true/false or correct/incorrect answer as a bool; ``None`` when absent or mixed.

    The answer must *start* with the boolean word ("Yes, because ..." and "No, 91 is not prime"
    count) and no opposite boolean word may follow ("yes and no" -> ``None``). Single letters ``T``/``F`` (and
    ``Y``/``N``) count only as the whole answer.
    """
    text = _as_str(s)
    if text is None or len(text) > MAX_ANSWER_CHARS:
        return None
    head = _BOOL_HEAD_RE.search(text[:64])
    if head is None or head.group(0).lower() not in _BOOL_FIRST:
        if head is not None and len(text) <= 24 and head.group(0).lower() in _BOOL_PHRASE_FIRST:
            return _BOOL_PHRASES.get(normalize_text(text))  # "Definitely not.", "Not really.", "Of course."
        return None  # the first word decides: most answers are read no further
    norm = normalize_text(text)
    if not norm:
        return None
    if norm in _SINGLE_LETTER_BOOL:
        return _SINGLE_LETTER_BOOL[norm]
    m = _TOKEN_RE.search(norm)
    if m is None or (m.group(0) not in _TRUE_WORDS and m.group(0) not in _FALSE_WORDS):
        return None  # most answers: the first word decides, without reading the rest
    tokens = _TOKEN_RE.findall(norm)
    first = tokens[0]
    if len(first) == 1 and len(tokens) > 1:  # "y"/"n" only as a whole answer
        return None
    if first in _TRUE_WORDS:
        value = True
    elif first in _FALSE_WORDS:
        value = False
    else:
        return None
    opposite = _FALSE_WORDS if value else _TRUE_WORDS
    rest = {t for t in tokens[1:] if len(t) > 1}
    if rest & opposite:
        return None  # "yes and no", "true, or rather false"
    if first in ("yes", "no") and len(tokens) > 2:
        reply = _ELLIPTIC_REPLY_RE.match(text)
        if reply is not None and (reply.group("neg") is None) != value:
            return None  # "Yes, they are not.", "No, it is.": the reply says the opposite of its yes or no
    return value


# R6.3: both booleans offered as items: "Yes, no", "False, True", "Yes and no", "Yes, but also no", "T/F"
_BOTH_BOOLEANS_RE = re.compile(
    r"^[\W_]*+(?P<a>yes|no|true|false|correct|incorrect)[\W_]*?(?:[,;/(]|[ \t](?:and|or|but)\b)[\W_]*+"
    r"(?:(?:but|also|and|or|maybe|possibly|perhaps|then)[ \t]++)*(?P<b>yes|no|true|false|correct|incorrect)[\W_]*+$",
    re.IGNORECASE)


def both_booleans(s: str) -> bool:
    """R6.3: ``s`` offers both answers of a yes-no or true-false question as items of its own ("Yes,
    no", "False, True", "Yes, but also no"); a boolean word inside a clause ("No, it is not true
    that ...") is none."""
    text = _as_str(s)
    if not text or len(text) > 60:
        return False
    m = _BOTH_BOOLEANS_RE.match(text)
    return m is not None and (m.group("a").lower() in _TRUE_WORDS) != (m.group("b").lower() in _TRUE_WORDS)


def contradicting_reply(s: str) -> bool:
    """R6.3: a yes or no answered back the other way by its own reply ("Yes, they are not.", "No,
    it is."): two answers, neither committed."""
    text = _as_str(s)
    if not text or len(text) > 80:
        return False
    m = _ELLIPTIC_REPLY_RE.match(text)
    if m is None:
        return False
    said_yes = text.lstrip("*_ \t([{").lower().startswith("yes")
    return (m.group("neg") is None) != said_yes


# "No, they are not.", "Yes, it is.": yes or no, then the same answer as a pronoun and its verb alone
_ELLIPTIC_REPLY_RE = re.compile(
    r"^[\W_]{0,4}(?:yes|no)\b[ \t,.;:!\u2014-]++(?:it|they|he|she|we|i|you|this|that)[ \t]++"
    r"(?:is|are|was|were|does|do|did|can|will|has|have|am|could|would|should)(?P<neg>n['\u2019]t\b|[ \t]++not\b)?"
    r"[ \t]*+[.!]?[\W_]{0,4}$", re.IGNORECASE)


# ---------------------------------------------------------------- identifiers and formulas
_ELEMENT_ORDER = tuple("""H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr
    Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb
    Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr Rf
    Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og""".split())  # by atomic number
_ELEMENTS = frozenset(_ELEMENT_ORDER)
_MAX_IDENTIFIER_CHARS = 64
# the elements' English names, in the order of atomic number (as the symbols above); a second
# spelling after a slash
_ELEMENT_NAMES = (
    "hydrogen helium lithium beryllium boron carbon nitrogen oxygen fluorine neon sodium magnesium aluminium/aluminum "
    "silicon phosphorus sulfur/sulphur chlorine argon potassium calcium scandium titanium vanadium chromium manganese "
    "iron cobalt nickel copper zinc gallium germanium arsenic selenium bromine krypton rubidium strontium yttrium "
    "zirconium niobium molybdenum technetium ruthenium rhodium palladium silver cadmium indium tin antimony tellurium "
    "iodine xenon caesium/cesium barium lanthanum cerium praseodymium neodymium promethium samarium europium "
    "gadolinium terbium dysprosium holmium erbium thulium ytterbium lutetium hafnium tantalum tungsten rhenium osmium "
    "iridium platinum gold mercury thallium lead bismuth polonium astatine radon francium radium actinium thorium "
    "protactinium uranium neptunium plutonium americium curium berkelium californium einsteinium fermium mendelevium "
    "nobelium lawrencium rutherfordium dubnium seaborgium bohrium hassium meitnerium darmstadtium roentgenium "
    "copernicium nihonium flerovium moscovium livermorium tennessine oganesson"
).split()
_NAMES_OF = dict(zip(_ELEMENT_ORDER, (tuple(n.split("/")) for n in _ELEMENT_NAMES), strict=True))
_SYMBOL_OF = {name: sym for sym, names in _NAMES_OF.items() for name in names}
# a question about chemistry: where a symbol ("In", "No", "I") or a name ("lead", "mercury") is an element
_CHEMISTRY_RE = re.compile(r"\b(?:elements?|atoms?|atomic|metals?|chemical|periodic|symbol|ions?|isotopes?|compounds?|"
                           r"reactions?|electrons?|oxid\w*|gas|halogens?|noble|alkali)\b", re.IGNORECASE)


# common compounds and ions by name and formula (a second name after a slash)
_COMPOUNDS = {
    "water": "H2O", "carbon dioxide": "CO2", "carbon monoxide": "CO", "sodium chloride": "NaCl", "ammonia": "NH3",
    "methane": "CH4", "ozone": "O3", "hydrogen peroxide": "H2O2", "sulfuric acid/sulphuric acid": "H2SO4",
    "hydrochloric acid/hydrogen chloride": "HCl", "nitric acid": "HNO3", "sodium hydroxide": "NaOH",
    "potassium hydroxide": "KOH", "calcium carbonate": "CaCO3", "calcium hydroxide": "Ca(OH)2", "calcium oxide": "CaO",
    "magnesium oxide": "MgO", "potassium chloride": "KCl", "sodium bicarbonate/sodium hydrogen carbonate": "NaHCO3",
    "sodium carbonate": "Na2CO3", "glucose": "C6H12O6", "sucrose": "C12H22O11", "ethane": "C2H6", "propane": "C3H8",
    "butane": "C4H10", "ethene/ethylene": "C2H4", "ethyne/acetylene": "C2H2", "benzene": "C6H6",
    "sulfur dioxide/sulphur dioxide": "SO2", "sulfur trioxide/sulphur trioxide": "SO3", "nitrogen dioxide": "NO2",
    "nitric oxide/nitrogen monoxide": "NO", "nitrous oxide/dinitrogen monoxide": "N2O", "hydrogen sulfide": "H2S",
    "silicon dioxide/silica": "SiO2", "iron(iii) oxide/ferric oxide": "Fe2O3", "aluminium oxide/aluminum oxide": "Al2O3",
    "copper(ii) sulfate/copper sulfate": "CuSO4", "silver nitrate": "AgNO3", "potassium permanganate": "KMnO4",
    "sulfate/sulphate": "SO4^2-", "nitrate": "NO3^-", "carbonate": "CO3^2-", "hydroxide": "OH^-", "ammonium": "NH4^+",
    "phosphate": "PO4^3-", "hydronium": "H3O^+", "chloride": "Cl^-", "bicarbonate/hydrogen carbonate": "HCO3^-",
    "oxygen gas/dioxygen": "O2", "hydrogen gas/dihydrogen": "H2", "nitrogen gas/dinitrogen": "N2", "chlorine gas": "Cl2",
}
_FORMULA_OF = {name: f for names, f in _COMPOUNDS.items() for name in names.split("/")}
@lru_cache(maxsize=1)
def _names_of_formula() -> dict[str, tuple[str, ...]]:
    """Canonical formula text -> names, built whole on first use (a thread sees it complete or not at all)."""
    out = {}
    for names, f in _COMPOUNDS.items():
        ident = parse_identifier(f)
        if ident is not None:
            out[ident.text] = tuple(names.split("/"))
    return out


def _compound_names(formula: str) -> tuple[str, ...]:
    """The names of a common compound or ion written as a formula ("H_2O" -> ("water",))."""
    ident = parse_identifier(formula)
    return _names_of_formula().get(ident.text, ()) if ident is not None and ident.kind == "chemical_formula" else ()


def element_aliases(ref: str, question: str) -> tuple[str, ...]:
    """An element's other writings under a chemistry question (``Na`` -> ("sodium",), "Sodium" ->
    ("Na",), "aluminium" -> ("Al", "aluminum")) and a common compound's under any (``H_2O`` ->
    ("water",), "carbon dioxide" -> ("CO2",)); else ``()``."""
    t = _unwrap_text_commands(ref.strip().strip("$").strip()) if "\\" in ref else ref.strip().strip("$").strip()
    if not t or len(t) > 40:
        return ()
    formula = _FORMULA_OF.get(t.lower())
    if formula is not None:
        return (formula,)  # a compound's name and formula answer each other under any question
    if t not in _NAMES_OF and t.lower() not in _SYMBOL_OF:
        return _compound_names(t) if t not in _ELEMENTS else ()
    if not question or not _CHEMISTRY_RE.search(question):
        return ()  # an element only under a chemistry question: "Mercury" may be a planet, "No" an answer
    if t in _NAMES_OF:
        return _NAMES_OF[t]
    sym = _SYMBOL_OF[t.lower()]
    return (sym, *(n for n in _NAMES_OF[sym] if n != t.lower()))


@dataclass(frozen=True, slots=True)
class Identifier:
    """A single terminal token: ``kind`` is ``"chemical_formula"``, ``"identifier"`` or ``"word"``."""

    text: str
    kind: str


_SUBSCRIPT_RE = re.compile(r"_\{\s*(\d+)\s*\}|_(\d)")
_CHARGE_BRACED_RE = re.compile(r"\^\{ ?([0-9]*) ?([+-]) ?([0-9]*) ?\}")
_CHARGE_BARE_RE = re.compile(r"\^([0-9]*)([+-])([0-9]*)$")
_HYDRATE_RE = re.compile(r"[ \t]{0,3}(?:\\cdot|\\bullet|\u00b7|\u2022|\u22c5)[ \t]{0,3}")
_UNICODE_SUB = str.maketrans("\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089", "0123456789")
_UNICODE_SUP = {"\u2070": "0", "\u00b9": "1", "\u00b2": "2", "\u00b3": "3", "\u2074": "4", "\u2075": "5",
                "\u2076": "6", "\u2077": "7", "\u2078": "8", "\u2079": "9", "\u207a": "+", "\u207b": "-"}
_SUP_TAIL_RE = re.compile("(?<![\u2070\u00b9\u00b2\u00b3\u2074-\u2079])[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]*+[\u207a\u207b]$")
_WORD_RE = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")
_FORMULA_BODY_RE = re.compile(r"[A-Za-z0-9()\[\]\u00b7]+")


def _canonical_charge(digits_before: str, sign: str, digits_after: str) -> str | None:
    if digits_before and digits_after:
        return None
    digits = (digits_before or digits_after).lstrip("0")
    if digits == "1":
        digits = ""
    return f"^{digits}{sign}"


def _split_charge(token: str) -> tuple[str, str] | None:
    """Split ``SO4^{2-}`` into (``SO4``, ``^2-``); ``None`` for a malformed charge."""
    sup = _SUP_TAIL_RE.search(token)
    if sup:
        raw = "".join(_UNICODE_SUP[c] for c in sup.group(0))
        charge = _canonical_charge(raw[:-1], raw[-1], "")
        return (token[: sup.start()], charge) if charge else None
    m = _CHARGE_BRACED_RE.search(token)
    if m and m.end() == len(token):
        charge = _canonical_charge(m.group(1), m.group(2), m.group(3))
        return (token[: m.start()], charge) if charge else None
    m = _CHARGE_BARE_RE.search(token)
    if m:
        charge = _canonical_charge(m.group(1), m.group(2), m.group(3))
        return (token[: m.start()], charge) if charge else None
    if "^" in token:
        return None
    m = _MONATOMIC_ION_RE.match(token)
    if m and m.group("el") in _ELEMENTS:
        return m.group("el"), _canonical_charge("", m.group("sign"), m.group("n"))  # "Fe3+" is Fe^{3+}
    m = _BARE_SIGN_ION_RE.match(token)
    if m and _formula_body_ok(m.group("body")):
        return m.group("body"), "^" + m.group("sign")  # "Cl-", "NH4+": a single charge
    return token, ""


# one element symbol, then a charge without a caret: "Fe3+", "Cu2+" (a polyatomic "NH4+" keeps its 4)
_BARE_SIGN_ION_RE = re.compile(r"^(?P<body>(?:[A-Z][a-z]?\d*)+)(?P<sign>[+-])$")
_MONATOMIC_ION_RE = re.compile(r"^(?P<el>[A-Z][a-z]?)(?P<n>[1-9])(?P<sign>[+-])$")


def _formula_body_ok(body: str) -> bool:
    """Element symbols with counts, balanced ()/[] groups and ``·`` hydrate parts."""
    if not body or not _FORMULA_BODY_RE.fullmatch(body):
        return False
    depth = 0
    elements = 0
    i, n = 0, len(body)
    prev = ""
    while i < n:
        ch = body[i]
        if ch.isupper():
            sym = body[i : i + 2] if i + 1 < n and body[i + 1].islower() else ch
            if sym not in _ELEMENTS:
                return False
            elements += 1
            i += len(sym)
            prev = "el"
            continue
        if ch.isdigit():
            if prev not in ("el", ")", "dot", "digit"):
                return False
            prev = "digit"
        elif ch in "([":
            depth += 1
            prev = "("
        elif ch in ")]":
            depth -= 1
            if depth < 0 or prev in ("(", "dot"):
                return False
            prev = ")"
        elif ch == "\u00b7":
            if prev in ("", "(", "dot"):
                return False
            prev = "dot"
        else:  # a lowercase letter not attached to an element symbol
            return False
        i += 1
    return depth == 0 and elements > 0 and prev != "dot"


def _looks_like_capitalised_word(body: str) -> bool:
    """``Yes``, ``Bin``: a capital then 2+ lowercase letters, which no real formula spells."""
    return len(body) >= 3 and body[0].isupper() and body[1:].isalpha() and body[1:].islower()


_SPACED_CHARGE_RE = re.compile(r"^(?P<body>[A-Z][A-Za-z0-9_{}()\[\]]{0,30}+)[ \t]++(?P<charge>\d{0,2}[+\-\u2212])$")


def _two_words(text: str) -> bool:
    """Two whitespace-separated pieces with letters or digits, and nothing that could remove
    the space between them (a LaTeX space or wrapper, a hydrate dot, a braced subscript):
    the text is not one token, and needs no further reading."""
    if "\\" in text or "_{" in text or "\u00b7" in text or "\u2022" in text or "\u22c5" in text:
        return False
    words = 0
    for piece in text.split():
        if any(ch.isalnum() for ch in piece):
            words += 1
            if words == 2:
                return True
    return False


def _prepare_token(text: str) -> str:
    """Unwrap LaTeX/markdown around a token and flatten ``H_{2}O`` subscripts."""
    t = unicodedata.normalize("NFC", text).strip()
    t = t.replace("$", "").replace("**", "").replace("\\,", "").replace("\\ ", "").replace("\\!", "")
    t = _unwrap_text_commands(t)
    t = t.strip()
    while t and t[-1] in ".,;:":
        t = t[:-1].rstrip()
    if _wrapped_by_pair(t) and t[0] == "{":
        t = t[1:-1].strip()
    return t


def _flatten_subscripts(t: str) -> str:
    """``H_{2}O`` / ``H_2O`` / ``H₂O`` -> ``H2O``; ``\\cdot`` and bullets -> ``·`` (formula candidates only)."""
    t = _HYDRATE_RE.sub("\u00b7", t)
    t = _SUBSCRIPT_RE.sub(lambda m: m.group(1) or m.group(2), t)
    return t.translate(_UNICODE_SUB)


@memoize_text()
def parse_identifier(s: str) -> Identifier | None:
    """A single terminal token as an :class:`Identifier`, or ``None`` (spaces, too long, junk).

    Chemical formulas (element symbols with counts, groups, hydrates, charges) are normalised
    to plain text (``\\mathrm{H_2O}`` -> ``H2O``, ``SO_4^{2-}`` -> ``SO4^2-``); other tokens
    keep their case. ``kind`` is ``"word"`` for purely alphabetic tokens (hyphen or apostrophe
    allowed), ``"identifier"`` for anything else (gene names, variable names, codes).
    """
    text = _as_str(s)
    if text is None or len(text) > 4 * _MAX_IDENTIFIER_CHARS:
        return None
    if _two_words(text):
        spaced = _SPACED_CHARGE_RE.match(text.strip())
        if spaced is None:
            return None
        # "SO4 2-": a formula and its charge, a space between (as SO_4^{2-})
        ion = parse_identifier(f"{spaced.group('body')}^{{{spaced.group('charge')}}}")
        return ion if ion is not None and ion.kind == "chemical_formula" else None
    t = _prepare_token(text)
    if not t or len(t) > _MAX_IDENTIFIER_CHARS:
        return None
    flat = _flatten_subscripts(t)
    if any(c.isspace() or unicodedata.category(c).startswith("C") for c in flat):
        return None
    split = _split_charge(flat)
    if split is not None:
        body, charge = split
        if _formula_body_ok(body) and not _looks_like_capitalised_word(body):
            return Identifier(body + charge, "chemical_formula")
    if any(c.isspace() for c in t):
        return None  # only a hydrate dot may be spaced
    if "\\" in t or "{" in t or "}" in t:
        return None  # leftover LaTeX: not a plain token
    if _WORD_RE.fullmatch(t):
        return Identifier(t, "word")
    return Identifier(t, "identifier")


def _plain_case(text: str) -> bool:
    """All-lower, all-upper or capitalised (``Paris``): case carries no meaning."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return True
    word = "".join(letters)
    return word.islower() or word.isupper() or (word[0].isupper() and word[1:].islower())


def identifiers_equal(a: Identifier, b: Identifier) -> bool | None:
    """Equality of two identifiers; ``None`` when their kinds differ (or input is not an Identifier).

    Chemical formulas and identifiers compare case-sensitively (``NaCl != NACL``,
    ``Co != CO``); words compare case-insensitively when both are plainly cased
    (all-lower, all-upper or capitalised), case-sensitively otherwise (``mRNA != MRNA``).
    """
    if not isinstance(a, Identifier) or not isinstance(b, Identifier):
        return None
    if a.kind != b.kind:
        return None
    if a.kind == "word" and _plain_case(a.text) and _plain_case(b.text):
        return a.text.casefold() == b.text.casefold()
    return a.text == b.text
