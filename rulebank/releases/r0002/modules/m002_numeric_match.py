"""numeric match (learned in round 1, cluster cov0)

Template: numeric_match (group numeric_unit). Numbers compared by exact value (or a relative tolerance), whatever their written form.

Why: corrects 0, saves 1979 fallback calls, 7 new direct errors (within the allowed 9, listed on the card); cluster cov0 of 1765 coverage examples: {"answer_object": "number", "extraction": "answer_colon"}
Card: r01-cov0-0; revision 1.
"""

from verifier_runtime.toolkit.numbers import numbers_close
from verifier_runtime.types import Decision

PARAMS = {'on_mismatch': 'FAIL', 'reference_kinds': [], 'rel_tol': 0.0, 'skip_cued': False}


def decide(x):
    if not x.answer or not x.ref:
        return Decision.abstain("no_answer")
    a, r = x.number_answer, x.number_ref
    if a is None or r is None:
        return Decision.abstain("not_numbers")
    if PARAMS["skip_cued"]:
        cues = x.cues
        if cues is not None and (cues.decimal_places is not None or cues.sig_figs is not None
                                 or cues.percentage or cues.unit):
            return Decision.abstain("cued_question")
    if PARAMS["reference_kinds"] and r.kind not in PARAMS["reference_kinds"]:
        return Decision.abstain("reference_kind")
    if a.is_percent != r.is_percent:
        return Decision.abstain("percent_mismatch")
    if numbers_close(a, r, rel_tol=PARAMS["rel_tol"]):
        return Decision.passed("number:equal")
    if PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed("number:different")
    return Decision.abstain("number:different")


MODULE = {'card_id': 'r01-cov0-0',
 'description': 'numeric match (learned in round 1, cluster cov0)',
 'group': 'numeric_unit',
 'id': 'm002_numeric_match',
 'priority': 402,
 'revision': 1,
 'template': 'numeric_match'}

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
  'question': 'One notebook costs $17. How much in dollars do 23 notebooks cost?',
  'reference': '391',
  'response': ''},
 {'expected': 'ABSTAIN',
  'question': 'when did little polveir win the grand national',
  'reference': '1989',
  'response': 'The answer is about 1990.'},
 {'expected': 'ABSTAIN',
  'question': 'A warehouse ships 22473 parcels a week. How many parcels does it ship in 3 weeks?',
  'reference': '67419',
  'response': ''},
 {'expected': 'ABSTAIN',
  'question': 'What is the sum of the interior angles of a hexagon, in degrees?',
  'reference': '720',
  'response': 'I cannot answer this question.'}]
