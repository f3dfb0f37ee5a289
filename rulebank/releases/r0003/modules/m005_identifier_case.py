"""identifier case (learned in round 2, cluster cov3)

Template: identifier_case (group verdict_matching). Whole terminal identifiers (chemical formulas, symbols, codes) compared with case rules.

Why: corrects 0, saves 2 fallback calls, no new direct error; cluster cov3 of 37 coverage examples: {"answer_object": "number", "extraction": "answer_is"}
Card: r02-cov3-1; revision 1.
"""

from verifier_runtime.toolkit.text import identifiers_equal, parse_identifier
from verifier_runtime.types import Decision

PARAMS = {'kinds': ['chemical_formula', 'identifier'], 'on_mismatch': 'ABSTAIN'}


def decide(x):
    if not x.answer or not x.ref:
        return Decision.abstain("no_answer")
    a, r = parse_identifier(x.answer), parse_identifier(x.ref)
    if a is None or r is None or r.kind not in PARAMS["kinds"]:
        return Decision.abstain("not_identifiers")
    same = identifiers_equal(a, r)
    if same is True:
        return Decision.passed(f"identifier:{r.kind}_equal")
    if same is False and PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed(f"identifier:{r.kind}_different")
    return Decision.abstain("identifier:undecided")


MODULE = {'card_id': 'r02-cov3-1',
 'description': 'identifier case (learned in round 2, cluster cov3)',
 'group': 'verdict_matching',
 'id': 'm005_identifier_case',
 'priority': 305,
 'revision': 1,
 'template': 'identifier_case'}

SUPPORT = [{'expected': 'PASS',
  'question': 'One notebook costs $15. How much in dollars do 4 notebooks cost?',
  'reference': '60',
  'response': 'The answer is $60.'},
 {'expected': 'PASS',
  'question': 'One notebook costs $34. How much in dollars do 28 notebooks cost?',
  'reference': '952',
  'response': 'The answer is $952.'},
 {'expected': 'PASS',
  'question': 'Catherine goes to the grocery store. She buys 1 kilo of apples for $4, 2 kilos of '
              'bananas for $2 per kilo, and 2 kilos of oranges for $3 per kilo. How many dollars '
              'does she pay in total?',
  'reference': '1 kilo of apples costs $<<1*4=4>>4.\n'
               '2 kilos of bananas costs 2 * 2 = $<<2*2=4>>4.\n'
               '2 kilos of oranges costs 2 * 3 = $<<2*3=6>>6.\n'
               'She pays 4 + 4 + 6= $<<4+4+6=14>>14 in total.\n'
               'A: 14',
  'response': 'The answer is $14.'},
 {'expected': 'PASS',
  'question': 'A dance studio offers lessons to students. It costs $25 per session to rent the '
              'studio plus $1.50 per student per session. At present, the dance studio has 10 '
              'students and is rented 3 days a week. How much are the expected earnings of the '
              'dance studio in a month?',
  'reference': 'The total earnings from 10 students is $1.50 x 10 = $<<1.50*10=15>>15 per '
               'session.\n'
               'So the total earnings per session is $15 + $25 = $<<15+25=40>>40.\n'
               'Thus, every week the dance studio earns $40 x 3 = $<<40*3=120>>120.\n'
               'Therefore, it will earn $120 x 4 = $<<120*4=480>>480 in a month.\n'
               'A: 480',
  'response': 'The answer is $480.'}]

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
