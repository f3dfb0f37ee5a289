"""alias match (learned in round 5, cluster cov1)

Module m010_alias_match, revision 1, card r05-cov1-1; template alias_match 3300db542dbd.

A reference that lists alternative answers (aliases): any alias found in the answer passes.

References such as ``Chas Chandler/CHAS CHANDLER/Bryan 'Chas' Chandler`` name one answer in
several accepted spellings. PASS when an alias equals the normalised answer or appears in
it as a whole phrase (in an answer of at most ``max_answer_words`` words). Never FAILs.
Abstains on mathematical references (a slash there is a fraction, not a list of aliases).
``stated_only``: an alias inside a longer answer counts only where the answer states it as its
answer (``toolkit.criterion.reference_stated``: not negated, not a belief reported, not beside
another candidate, in the first or last sentence of a paragraph).

Why: corrects 2, saves 448 fallback calls, 1 new direct errors (within the allowed 2, listed on the card). Learned in round 5 from cluster cov1: 1050 examples the judge decided correctly, which a module can take over without a judge call (answer_object short_text, extraction whole).
"""

from verifier_runtime.toolkit.criterion import pass_guard, reference_stated
from verifier_runtime.toolkit.text import contains_answer, normalize_text, text_match
from verifier_runtime.types import Decision

PARAMS = {'max_answer_words': 12,
 'min_alias_chars': 5,
 'require_multiple': False,
 'separator': '/',
 'stated_only': True}

MATH_CHARS = "\\^=+*[]{}$"


def alias_answer(answer, alias):
    """The answer as checked by the criterion's guard: the alias it names, in the answer's own case."""
    k = answer.lower().find(alias.lower())
    return answer[k : k + len(alias)] if k >= 0 else answer


def decide(x):
    a, r = x.answer, x.ref
    if not a or not r or PARAMS["separator"] not in r and PARAMS["require_multiple"]:
        return Decision.abstain("no_aliases")
    if len(a.split()) > PARAMS["max_answer_words"]:
        return Decision.abstain("answer_too_long")
    if any(ch in r for ch in MATH_CHARS):
        return Decision.abstain("mathematical_reference")
    pr = x.parsed_ref  # a number, a quantity or a structure ("1/2", "90 km/h", "(-1, 3)"): not a list of aliases
    if pr is None or pr.kind != "text" or x.numeric_alias_ref:
        return Decision.abstain("mathematical_reference")
    aliases = [s.strip() for s in r.split(PARAMS["separator"])]
    aliases = [s for s in aliases if len(normalize_text(s)) >= PARAMS["min_alias_chars"]]
    if not aliases:
        return Decision.abstain("no_usable_alias")
    for alias in aliases:
        if text_match(a, alias) or (contains_answer(a, alias)
                                    and (not PARAMS["stated_only"] or reference_stated(x, alias))):
            blocked = pass_guard(x, alias_answer(a, alias))
            if blocked:
                return Decision.abstain(blocked)
            return Decision.passed("alias:equal" if text_match(a, alias) else "alias:in_answer")
    return Decision.abstain("alias:none_found")


MODULE = {'card_id': 'r05-cov1-1',
 'description': 'alias match (learned in round 5, cluster cov1)',
 'group': 'verdict_matching',
 'id': 'm010_alias_match',
 'priority': 310,
 'revision': 1,
 'template': 'alias_match'}
