"""alias match (learned in round 1, cluster c0)

Module m001_alias_match, revision 1, card r01-c0-0; template alias_match 8b77bdb1fe2c.

A reference that lists alternative answers (aliases): any alias found in the answer passes.

References such as ``Chas Chandler/CHAS CHANDLER/Bryan 'Chas' Chandler`` name one answer in
several accepted spellings. PASS when an alias equals the normalised answer or appears in
it as a whole phrase (in an answer of at most ``max_answer_words`` words). Never FAILs.
Abstains on mathematical references (a slash there is a fraction, not a list of aliases).

Why: corrects 318, saves 319 fallback calls, 1 new direct errors (within the allowed 1, listed on the card). Learned in round 1 from cluster c0: 319 examples the verifier got wrong.
"""

from verifier_runtime.toolkit.text import contains_answer, normalize_text, text_match
from verifier_runtime.types import Decision

PARAMS = {'max_answer_words': 12, 'min_alias_chars': 5, 'require_multiple': True, 'separator': '/'}

MATH_CHARS = "\\^=+*[]{}$"


def decide(x):
    a, r = x.answer, x.ref
    if not a or not r or PARAMS["separator"] not in r and PARAMS["require_multiple"]:
        return Decision.abstain("no_aliases")
    if len(a.split()) > PARAMS["max_answer_words"]:
        return Decision.abstain("answer_too_long")
    if x.number_ref is not None or any(ch in r for ch in MATH_CHARS):
        return Decision.abstain("mathematical_reference")
    aliases = [s.strip() for s in r.split(PARAMS["separator"])]
    aliases = [s for s in aliases if len(normalize_text(s)) >= PARAMS["min_alias_chars"]]
    if not aliases:
        return Decision.abstain("no_usable_alias")
    for alias in aliases:
        if text_match(a, alias):
            return Decision.passed("alias:equal")
        if contains_answer(a, alias):
            return Decision.passed("alias:in_answer")
    return Decision.abstain("alias:none_found")


MODULE = {'card_id': 'r01-c0-0',
 'description': 'alias match (learned in round 1, cluster c0)',
 'group': 'verdict_matching',
 'id': 'm001_alias_match',
 'priority': 301,
 'revision': 1,
 'template': 'alias_match'}
