"""choice letter (learned in round 9, cluster cov0)

Module m013_choice_letter, revision 1, card r09-cov0-0; template choice_letter 256e4778490c.

Closed-choice mapping: compare option letters, or option text mapped to its letter.

The options are read from the question; the reference may be a letter or an option's
text. PASS when both resolve to the same option; FAIL when both resolve to different ones.

``on_guard``: what a matching answer gives when the criterion forbids a PASS anyway (a form the
question asks for, a restatement, meaningful case: ``toolkit.criterion.pass_guard``): ABSTAIN,
or FAIL with the criterion's reason.

Why: corrects 0, saves 515 fallback calls, no new direct error; on the validation split 290 new direct decisions, 0 corrections. Learned in round 9 from cluster cov0: 661 examples the judge decided correctly, which a module can take over without a judge call (answer_object choice, extraction answer_is).
"""

from verifier_runtime.toolkit.choices import choice_matches
from verifier_runtime.toolkit.criterion import pass_guard
from verifier_runtime.types import Decision

PARAMS = {'min_options': 2, 'on_guard': 'ABSTAIN', 'on_mismatch': 'FAIL'}


def decide(x):
    options = x.options
    if len(options) < PARAMS["min_options"] or not x.answer or not x.ref:
        return Decision.abstain("no_options")
    same = choice_matches(x.answer, x.ref, options)
    if same is True:
        blocked = pass_guard(x)
        if blocked:
            return Decision.failed(blocked) if PARAMS["on_guard"] == "FAIL" else Decision.abstain(blocked)
        return Decision.passed("choice:same_option")
    if same is False and PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed("choice:different_option")
    return Decision.abstain("choice:unresolved")


MODULE = {'card_id': 'r09-cov0-0',
 'description': 'choice letter (learned in round 9, cluster cov0)',
 'group': 'closed_choice',
 'id': 'm013_choice_letter',
 'priority': 213,
 'revision': 1,
 'template': 'choice_letter'}
