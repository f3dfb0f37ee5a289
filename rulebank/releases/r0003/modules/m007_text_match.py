"""text match (learned in round 3, cluster cov4)

Template: text_match (group verdict_matching). Short text answers: normalised equality, or the reference phrase inside a short answer.

Why: corrects 1, saves 102 fallback calls, no new direct error; cluster cov4 of 29 coverage examples: {"answer_object": "short_text", "extraction": "answer_is"}
Card: r03-cov4-0; revision 1.
"""

from verifier_runtime.toolkit.text import contains_answer, normalize_text, text_match
from verifier_runtime.types import Decision

PARAMS = {'max_answer_words': 4, 'max_reference_words': 6, 'mode': 'exact'}


def decide(x):
    a, r = x.answer, x.ref
    if not a or not r:
        return Decision.abstain("no_answer")
    na, nr = normalize_text(a), normalize_text(r)
    if not na or not nr or any(ch.isdigit() for ch in nr):
        return Decision.abstain("not_text")
    if len(nr.split()) > PARAMS["max_reference_words"] or len(na.split()) > PARAMS["max_answer_words"]:
        return Decision.abstain("too_long")
    if text_match(a, r):
        return Decision.passed("text:equal")
    if PARAMS["mode"] == "contains" and " or " not in f" {na} " and contains_answer(a, r):
        return Decision.passed("text:reference_phrase_in_answer")
    return Decision.abstain("text:different")


MODULE = {'card_id': 'r03-cov4-0',
 'description': 'text match (learned in round 3, cluster cov4)',
 'group': 'verdict_matching',
 'id': 'm007_text_match',
 'priority': 307,
 'revision': 1,
 'template': 'text_match'}

SUPPORT = [{'expected': 'PASS',
  'question': 'What is the capital of Canada?',
  'reference': 'Ottawa',
  'response': 'The answer is Ottawa.'},
 {'expected': 'PASS',
  'question': 'In which country is the city of Kyoto?',
  'reference': 'Japan',
  'response': 'The answer is Japan.'},
 {'expected': 'PASS',
  'question': 'how many winnie the pooh books are there',
  'reference': 'four',
  'response': 'The answer is four.'},
 {'expected': 'PASS',
  'question': "Who wrote the novel 'Pride and Prejudice'?",
  'reference': 'Jane Austen',
  'response': 'The answer is Jane Austen.'}]

COUNTEREXAMPLES = [{'expected': 'ABSTAIN',
  'question': 'how many episodes of greys anatomy season 14',
  'reference': '24/24 episodes/21',
  'response': '24'},
 {'expected': 'ABSTAIN',
  'question': 'when does zay come to girl meets world',
  'reference': 'May\xa013,\xa02015',
  'response': '"May\xa013,\xa02015."'},
 {'expected': 'ABSTAIN',
  'question': 'iupac name of element with atomic number 107',
  'reference': 'Bohrium/bohrium',
  'response': 'bohrium'},
 {'expected': 'ABSTAIN',
  'question': "when does jo come in grey's anatomy",
  'reference': 'season 9/2012/July 2012',
  'response': 'July 2012'}]
