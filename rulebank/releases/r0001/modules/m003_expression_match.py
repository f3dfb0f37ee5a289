"""expression match (learned in round 1, cluster cov0)

Template: expression_match (group verdict_matching). Symbolic expressions and equations compared by value (numeric probing, bounded).

Why: corrects 0, saves 12 fallback calls, 1 new direct errors (within the allowed 5, listed on the card); cluster cov0 of 1765 coverage examples: {"answer_object": "number", "extraction": "answer_colon"}
Card: r01-cov0-2; revision 1.
"""

from verifier_runtime.toolkit.compare import compare_answers
from verifier_runtime.types import Decision

PARAMS = {'exact_cue_fails_decimal': False,
 'kinds': ['expression', 'number'],
 'on_mismatch': 'ABSTAIN',
 'rel_tol': 1e-09}


def decide(x):
    r = x.parsed_ref
    if r is None or r.kind not in PARAMS["kinds"]:
        return Decision.abstain("not_expressions")
    a = x.parsed_answer
    if a is None or a.kind not in PARAMS["kinds"] + ["number"]:
        return Decision.abstain("not_expressions")
    if PARAMS["exact_cue_fails_decimal"] and a.kind == "number" and r.kind == "expression" and "." in a.text:
        cues = x.cues
        if cues is not None and cues.exact:
            return Decision.failed("expr:decimal_for_exact")
    c = compare_answers(a, r, rel_tol=PARAMS["rel_tol"])
    if c.equal is True:
        return Decision.passed(f"expr:{c.detail}")
    if c.equal is False and PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed(f"expr:{c.detail}")
    return Decision.abstain("expr:undecided")


MODULE = {'card_id': 'r01-cov0-2',
 'description': 'expression match (learned in round 1, cluster cov0)',
 'group': 'verdict_matching',
 'id': 'm003_expression_match',
 'priority': 303,
 'revision': 1,
 'template': 'expression_match'}

SUPPORT = [{'expected': 'PASS',
  'question': 'John arm wrestles 20 people.  He beats 80%.  How many people did he lose to?',
  'reference': 'He beats 20*.8=<<20*.8=16>>16 people\n'
               'So he loses to 20-16=<<20-16=4>>4 people\n'
               'A: 4',
  'response': 'He beat 20 * 80% = <<20*80*.01=16.0>>16 people\n'
              'So he lost 20 - 16 = <<20-16=4>>4 people\n'
              'A: 4'},
 {'expected': 'PASS',
  'question': 'Ali had $21. Leila gave him half of her $100. How much does Ali have now?',
  'reference': 'Leila gave 100/2 = $<<100/2=50>>50 to Ali.\n'
               'Ali now has $21+ $50 = $<<21+50=71>>71.\n'
               'A: 71',
  'response': 'Leila gave Ali $100 / 2 = $<<100/2=50.0>>50.\n'
              'Ali now has $21 + $50 = $<<21+50=71>>71.\n'
              'A: 71'},
 {'expected': 'PASS',
  'question': 'Ali had $21. Leila gave him half of her $100. How much does Ali have now?',
  'reference': 'Leila gave 100/2 = $<<100/2=50>>50 to Ali.\n'
               'Ali now has $21+ $50 = $<<21+50=71>>71.\n'
               'A: 71',
  'response': 'Leila gave Ali 100 / 2 = $<<100/2=50.0>>50.\n'
              'So, Ali now has 21 + 50 = $<<21+50=71>>71.\n'
              'A: 71'},
 {'expected': 'PASS',
  'question': 'John buys 2 pairs of shoes for each of his 3 children.  They cost $60 each.  How '
              'much did he pay?',
  'reference': 'He bought 3*2=<<3*2=6>>6 pairs of shoes\nSo he spent 60*6=$<<60*6=360>>360\nA: 360',
  'response': 'He bought 2*3=<<2*3=6>>6 pairs of shoes\nSo it cost 6*60=$<<6*60=360>>360\nA: 360'}]

COUNTEREXAMPLES = [{'expected': 'ABSTAIN',
  'question': 'the secret of crickley hall how many episodes',
  'reference': '3',
  'response': '13'},
 {'expected': 'ABSTAIN',
  'question': 'when did scotland last qualify for world cup',
  'reference': '1998',
  'response': '2018'},
 {'expected': 'ABSTAIN',
  'question': 'when did michigan last win a national championship',
  'reference': '1989',
  'response': '1997'},
 {'expected': 'ABSTAIN',
  'question': 'One notebook costs $17. How much in dollars do 23 notebooks cost?',
  'reference': '391',
  'response': ''}]
