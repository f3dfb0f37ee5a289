"""Timing guards for hostile inputs that measure the call's own work.

A bound such as "a megabyte of option markers is parsed in 0.25 s" is a guard against
super-linear paths, not a speed target (those live in ``benchmarks/``). Wall-clock time in a
long test session also counts a cyclic-garbage collection of everything earlier tests left on
the heap (whichever allocation happens to trigger it pays for the whole heap) and the time the
machine gives to other processes. Neither says anything about the function, so the guard
measures the calling thread's CPU time with the collector paused for the call.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any


def cpu_seconds(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """``(fn(*args, **kwargs), CPU seconds of this thread spent in the call)``."""
    paused = gc.isenabled()
    gc.disable()
    try:
        start = time.thread_time()
        result = fn(*args, **kwargs)
        return result, time.thread_time() - start
    finally:
        if paused:
            gc.enable()
