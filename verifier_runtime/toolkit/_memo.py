"""Bounded memoisation for the toolkit's pure one-string parsers.

Verification traffic repeats itself: one reference is checked against many responses, one
question carries many rollouts. The parsers are pure and return frozen values, so their
results are shared safely across calls and threads, together with the hard limits a parse
ran into (``limit:<what>``), which a cache hit reports again. Only short strings are cached
(``max_chars``), and each cache holds at most ``maxsize`` entries (least recently used go).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Any, TypeVar

from verifier_runtime.limits import end_limit_notes, note_limit, start_limit_notes

F = TypeVar("F", bound=Callable[..., Any])


def memoize_text(maxsize: int = 4096, max_chars: int = 2000) -> Callable[[F], F]:
    """For functions of one argument (the wrapper takes exactly one: no argument packing on the
    hot path). Non-strings and strings over ``max_chars`` are passed through uncached."""

    def deco(fn: F) -> F:
        def compute(s: str) -> tuple[Any, tuple[str, ...]]:
            # the hard limits a parse ran into are part of its result: a cache hit reports them again
            token = start_limit_notes()
            try:
                value = fn(s)
            finally:
                notes = end_limit_notes(token)
            return value, tuple(notes)

        cached = lru_cache(maxsize=maxsize)(compute)

        @wraps(fn)
        def wrapper(s: Any) -> Any:
            if type(s) is str and len(s) <= max_chars:
                value, notes = cached(s)
                for code in notes:
                    note_limit(code)
                return value
            return fn(s)

        wrapper.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        wrapper.cache_info = cached.cache_info  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return deco
