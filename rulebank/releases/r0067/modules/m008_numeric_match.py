"""numeric match (learned in round 5, cluster cov0)

Module m008_numeric_match, revision 1, card r05-cov0-0; template numeric_match 838d25f7f88b.

Numbers compared by value with the criterion's tolerance, whatever their written form.

Both final answers must parse as plain numbers (integers, decimals, fractions, mixed
numbers, scientific notation). The comparison is the criterion's (``docs/criterion.md`` R5.3):
integers and fractions exactly, a decimal reference within half a unit of its last digit, the
question's rounding where it asks for one. ``reference_kinds`` restricts the reference's
written kind. With ``on_mismatch`` FAIL it also rejects a different number (mismatch detection).

``on_guard``: what a matching answer gives when the criterion forbids a PASS anyway (a form the
question asks for, a restatement, meaningful case: ``toolkit.criterion.pass_guard``): ABSTAIN,
or FAIL with the criterion's reason.

Why: corrects 0, saves 1974 fallback calls, no new direct error. Learned in round 5 from cluster cov0: 1765 examples the judge decided correctly, which a module can take over without a judge call (answer_object number, extraction answer_colon).
"""

from verifier_runtime.toolkit.criterion import compare_numbers, pass_guard
from verifier_runtime.types import Decision

PARAMS = {'on_guard': 'ABSTAIN', 'on_mismatch': 'FAIL', 'reference_kinds': [], 'skip_cued': False}


def decide(x):
    if not x.answer or not x.ref:
        return Decision.abstain("no_answer")
    a, r = x.number_answer, x.number_ref
    if a is None or r is None:
        return Decision.abstain("not_numbers")
    cues = x.cues
    if PARAMS["skip_cued"] and cues is not None and (cues.decimal_places is not None or cues.sig_figs is not None
                                                     or cues.percentage or cues.unit):
        return Decision.abstain("cued_question")
    if PARAMS["reference_kinds"] and r.kind not in PARAMS["reference_kinds"]:
        return Decision.abstain("reference_kind")
    if a.is_percent != r.is_percent:
        return Decision.abstain("percent_mismatch")
    j = compare_numbers(a, r, cues, x)
    if j.correct:
        blocked = pass_guard(x)
        if blocked:
            return Decision.failed(blocked) if PARAMS["on_guard"] == "FAIL" else Decision.abstain(blocked)
        return Decision.passed("number:equal")
    if PARAMS["on_mismatch"] == "FAIL" and j.reason.startswith("differ"):
        return Decision.failed("number:different")
    return Decision.abstain("number:different")


MODULE = {'card_id': 'r05-cov0-0',
 'description': 'numeric match (learned in round 5, cluster cov0)',
 'group': 'numeric_unit',
 'id': 'm008_numeric_match',
 'priority': 408,
 'revision': 1,
 'template': 'numeric_match'}
