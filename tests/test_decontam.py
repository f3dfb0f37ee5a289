"""Decontamination: planted exact and fuzzy duplicates are found, unrelated items are not."""

from __future__ import annotations

import random
import time

import pytest

from tasks.data.decontam import ContaminationError, audit, enforce, normalize_text
from tasks.data.schema import Example, stable_id

WORDS = ("alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega river mountain city "
         "number train apple orange violet copper silver engine window garden").split()


def _ex(q: str, ref: str = "1", resp: str = "1", src: str = "pool") -> Example:
    return Example(stable_id(src, q, resp, ref), q, ref, resp, True, src)


def _random_questions(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20))) + f" {rng.randint(0, 10**9)}?"
            for _ in range(n)]


def test_planted_matches() -> None:
    pool = [_ex(q) for q in _random_questions(300, 1)]
    base = pool[5].question
    pool_extra = [
        _ex("What is the boiling point of ethanol at sea level in degrees Celsius?", "78.37", "78 C"),
        _ex("Who wrote the opera The Magic Flute, first staged in Vienna in 1791?", "Mozart", "Mozart"),
    ]
    pool += pool_extra
    ev = [
        _ex(base.upper() + "  ", "1", "1", "ev"),  # exact triple after normalisation
        _ex("what is the boiling point of ethanol at sea level, in degrees celsius", "78.37", "other", "ev"),
        _ex("Who wrote the opera 'The Magic Flute', first staged in Vienna in the year 1791?", "x", "y", "ev"),
        _ex("How many moons does Mars have, according to current astronomy?", "2", "2", "ev"),
    ]
    rep = audit(pool, {"bench": ev}, fuzzy_threshold=0.8)
    s = rep.sets["bench"]
    assert (s.exact_triple, s.exact_question_reference, s.exact_question, s.fuzzy_question) == (1, 2, 2, 1)
    kinds = {(m[0], m[1]) for m in s.matches}
    assert ("triple", ev[0].id) in kinds and ("fuzzy_question", ev[2].id) in kinds
    assert ev[3].id not in {m[1] for m in s.matches}  # unrelated item is not flagged
    assert rep.decisive_pool_ids == {pool[5].id, pool_extra[0].id, pool_extra[1].id}
    kept = enforce(rep, "drop")
    assert len(kept) == len(pool) - 3 and pool[5] not in kept
    with pytest.raises(ContaminationError, match="3 pool examples"):
        enforce(rep, "fail")
    assert len(enforce(rep, "report")) == len(pool)
    d = rep.to_dict()
    assert d["sets"]["bench"]["fuzzy_question"] == 1 and d["contaminated_pool_examples"] == 3
    assert "| bench | 4 | 1 | 2 | 2 | 1 |" in rep.to_markdown()


def test_clean_pool_passes_and_ngram_stats() -> None:
    pool = [_ex("the quick brown fox jumps over the lazy dog near the river bank")]
    ev = [_ex("a quick brown fox jumps over the lazy cat", src="ev"), _ex("completely different words here", src="ev")]
    rep = audit(pool, {"b": ev})
    s = rep.sets["b"]
    assert not s.matches and enforce(rep, "fail") == pool
    assert s.ngram_share == pytest.approx(0.5)  # "quick brown fox jumps over" is shared
    assert 0 < s.ngram_mean_overlap < 0.5


def test_bad_settings() -> None:
    with pytest.raises(ValueError):
        audit([], {}, fuzzy_threshold=0)
    with pytest.raises(ValueError):
        enforce(audit([], {}), "maybe")  # type: ignore[arg-type]


def test_normalize_text() -> None:
    assert normalize_text("  Hello,   WORLD!! ") == "hello world"
    assert normalize_text("ｆｕｌｌ－width") == "full width"


def test_speed_5000_by_3000() -> None:
    pool = [_ex(q) for q in _random_questions(5000, 2)]
    ev = [_ex(q, src="ev") for q in _random_questions(3000, 3)]
    ev[17] = _ex(pool[99].question + " please", src="ev")  # near duplicate
    t0 = time.perf_counter()
    rep = audit(pool, {"b": ev})
    elapsed = time.perf_counter() - t0
    assert rep.sets["b"].fuzzy_question == 1
    assert elapsed < 15, f"audit took {elapsed:.1f}s"
