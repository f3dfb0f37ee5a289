"""Closed-choice mapping: compare option letters, or option text mapped to its letter.

The options are read from the question; the reference may be a letter or an option's
text. PASS when both resolve to the same option; FAIL when both resolve to different ones.

``on_guard``: what a matching answer gives when the criterion forbids a PASS anyway (a form the
question asks for, a restatement, meaningful case: ``toolkit.criterion.pass_guard``): ABSTAIN,
or FAIL with the criterion's reason.
"""

from verifier_runtime.toolkit.choices import choice_matches
from verifier_runtime.toolkit.criterion import pass_guard
from verifier_runtime.types import Decision



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
