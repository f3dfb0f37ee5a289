"""Bounded numeric evaluation of sympy expressions with a private mpmath context per thread."""

from __future__ import annotations

import random
import threading
from typing import Any

from verifier_runtime.limits import MAX_EXPR_NODES, check_deadline
from verifier_runtime.toolkit.latex.convert import _sympy

#: Points at which expressions with free symbols are compared.
EVAL_POINTS = 6

_TLS = threading.local()
#: Working precision of numeric checks, in bits (about 36 significant digits).
EVAL_PREC_BITS = 120
#: Relative noise margin of numeric checks (values agreeing this closely are equal).
NOISE = 1e-22
_MAX_TRIG_ARG_LOG2 = 4_000  # |argument| below 2**4000: reduction modulo pi stays cheap
_MAX_EXP_ARG = 1e12
_MAX_INT_POWER = 10**6


class _Unevaluable(Exception):
    """Internal: the expression cannot be evaluated numerically within bounds."""


def _ctx() -> Any:
    """A private mpmath context per thread (mpmath's global context is shared and mutable)."""
    ctx = getattr(_TLS, "ctx", None)
    if ctx is None:
        import mpmath

        ctx = mpmath.MPContext()
        ctx.prec = EVAL_PREC_BITS
        _TLS.ctx = ctx
    return ctx


def _point_values(n: int) -> list[tuple[Any, ...]]:
    """The fixed pseudo-random coordinates for ``n`` symbols, made once per thread and count."""
    cache = getattr(_TLS, "points", None)
    if cache is None:
        cache = _TLS.points = {}
    values = cache.get(n)
    if values is None:
        ctx = _ctx()
        rng = random.Random(20240611 + n)
        values = [tuple(ctx.mpf(repr(rng.uniform(0.2, 1.8))) for _ in range(n)) for _ in range(EVAL_POINTS)]
        if len(cache) < 64:
            cache[n] = values
    return values


def _points(symbols: list[Any]) -> list[dict[Any, Any]]:
    return [dict(zip(symbols, row, strict=True)) for row in _point_values(len(symbols))]


def _tick(budget: list[int]) -> None:
    """One node of an evaluation: refuse past the node budget, check the time budget now and then."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _Unevaluable("too many nodes")
    if budget[0] % 64 == 0:
        check_deadline()


def _mp_eval(expr: Any, subs: dict[Any, Any], ctx: Any, budget: list[int]) -> Any:
    """Evaluate a sympy expression with mpmath at fixed precision, refusing unbounded work."""
    _tick(budget)
    sp = _sympy()
    if expr.is_Integer:
        return ctx.mpf(int(expr))
    if expr.is_Rational:
        return ctx.mpf(int(expr.p)) / int(expr.q)
    if expr.is_Float:
        return ctx.mpf(str(expr))
    if expr.is_Symbol:
        if expr not in subs:
            raise _Unevaluable("free symbol")
        return subs[expr]
    if expr is sp.pi:
        return +ctx.pi
    if expr is sp.E:
        return +ctx.e
    if expr is sp.I:
        return ctx.mpc(0, 1)
    if expr.is_Add:
        total = ctx.mpf(0)
        for a in expr.args:
            total += _mp_eval(a, subs, ctx, budget)
        return total
    if expr.is_Mul:
        prod = ctx.mpf(1)
        for a in expr.args:
            prod *= _mp_eval(a, subs, ctx, budget)
        return prod
    if expr.is_Pow:
        base = _mp_eval(expr.base, subs, ctx, budget)
        if expr.exp.is_Integer and abs(int(expr.exp)) <= _MAX_INT_POWER:
            e = int(expr.exp)
            if e < 0 and base == 0:
                raise _Unevaluable("division by zero")
            return base**e
        ev = _mp_eval(expr.exp, subs, ctx, budget)
        if abs(ev) > _MAX_EXP_ARG:
            raise _Unevaluable("exponent too large")
        if base == 0:
            raise _Unevaluable("zero base")
        return ctx.power(base, ev)
    name = type(expr).__name__
    fn = _MP_FUNCS.get(name)
    if fn is None or len(expr.args) != 1:
        if name == "binomial" and len(expr.args) == 2:
            n, k = (_mp_eval(a, subs, ctx, budget) for a in expr.args)
            if abs(n) > 10**6 or abs(k) > 10**6:
                raise _Unevaluable("binomial too large")
            return ctx.binomial(n, k)
        raise _Unevaluable(f"no numeric rule for {name}")
    arg = _mp_eval(expr.args[0], subs, ctx, budget)
    if name in _TRIG:
        if arg != 0 and ctx.mag(arg) > _MAX_TRIG_ARG_LOG2:
            raise _Unevaluable("argument too large")
    elif name == "exp":
        if ctx.re(arg) > _MAX_EXP_ARG:
            raise _Unevaluable("exp overflow")
    elif name in ("factorial", "gamma") and abs(arg) > 10**6:
        raise _Unevaluable("factorial too large")
    elif name in ("floor", "ceiling") and ctx.im(arg) != 0:
        raise _Unevaluable("complex floor")
    return fn(ctx, arg)


_TRIG = {"sin", "cos", "tan", "sec", "csc", "cot", "sinh", "cosh", "tanh"}
_MP_FUNCS = {
    "sin": lambda c, x: c.sin(x), "cos": lambda c, x: c.cos(x), "tan": lambda c, x: c.tan(x),
    "sec": lambda c, x: c.sec(x), "csc": lambda c, x: c.csc(x), "cot": lambda c, x: c.cot(x),
    "asin": lambda c, x: c.asin(x), "acos": lambda c, x: c.acos(x), "atan": lambda c, x: c.atan(x),
    "asec": lambda c, x: c.asec(x), "acsc": lambda c, x: c.acsc(x), "acot": lambda c, x: c.acot(x),
    "sinh": lambda c, x: c.sinh(x), "cosh": lambda c, x: c.cosh(x), "tanh": lambda c, x: c.tanh(x),
    "exp": lambda c, x: c.exp(x), "log": lambda c, x: c.log(x), "Abs": lambda c, x: abs(x),
    "factorial": lambda c, x: c.factorial(x), "gamma": lambda c, x: c.gamma(x),
    "floor": lambda c, x: c.floor(c.re(x)), "ceiling": lambda c, x: c.ceil(c.re(x)),
}


def _finite(ctx: Any, v: Any) -> bool:
    return bool(ctx.isfinite(ctx.re(v)) and ctx.isfinite(ctx.im(v)))


def numeric_value(expr: Any, subs: dict[Any, Any] | None = None) -> Any | None:
    """``expr`` (at ``subs``) as a finite mpmath number at ``EVAL_PREC_BITS``, or ``None``.

    Bounded: huge trigonometric arguments, exponents or factorials make it ``None`` instead of
    running an unbounded reduction.
    """
    ctx = _ctx()
    try:
        v = _mp_eval(expr, subs or {}, ctx, [MAX_EXPR_NODES * 4])
    except (_Unevaluable, ValueError, TypeError, ZeroDivisionError, OverflowError, ArithmeticError,
            AttributeError, RecursionError):
        return None
    return v if _finite(ctx, v) else None


def _numeric(expr: Any, subs: dict[Any, Any]) -> Any | None:
    return numeric_value(expr, subs)


def _close(va: Any, vb: Any, rel_tol: float, abs_tol: float) -> bool:
    ctx = _ctx()
    scale = max(abs(va), abs(vb), ctx.mpf(1))
    bound = max(_constant(ctx, NOISE) * scale, _constant(ctx, rel_tol) * scale, _constant(ctx, abs_tol))
    return bool(abs(va - vb) <= bound)


def _constant(ctx: Any, x: float) -> Any:
    """``ctx.mpf(repr(float(x)))``, kept per thread for the few tolerances in use (mpf values are immutable)."""
    kept = getattr(_TLS, "constants", None)
    if kept is None:
        kept = _TLS.constants = {}
    key = float(x)
    v = kept.get(key)
    if v is None:
        v = ctx.mpf(repr(key))
        if len(kept) < 64:
            kept[key] = v
    return v


# --- rigorous enclosures ------------------------------------------------------------------------

#: Interval bounds beyond this magnitude end an enclosure (it proves nothing useful, and keeps the work small).
_IV_LIMIT = 1e30
_IV_TRIG = frozenset({"sin", "cos", "tan", "cot", "sec", "csc"})
#: largest |argument| of exp, the hyperbolic and the trigonometric functions in an enclosure
_IV_ARG = 64.0
_IV_BOUNDS: dict[str, Any] = {}


def _iv_ctx() -> Any:
    """A private mpmath interval context per thread (mpmath's ``iv`` is shared and mutable)."""
    ctx = getattr(_TLS, "iv", None)
    if ctx is None:
        from mpmath.ctx_iv import MPIntervalContext

        ctx = MPIntervalContext()
        ctx.prec = EVAL_PREC_BITS
        if not _IV_BOUNDS:
            from mpmath.libmp import from_float, fzero, mpf_lt

            _IV_BOUNDS.update(lt=mpf_lt, zero=fzero, low=from_float(-_IV_LIMIT), high=from_float(_IV_LIMIT),
                              arg_low=from_float(-_IV_ARG), arg_high=from_float(_IV_ARG))
        _TLS.iv = ctx
    return ctx


def interval_value(expr: Any, subs: dict[Any, Any]) -> Any | None:
    """A rigorous enclosure (an mpmath interval) of the real value of ``expr`` for every choice of
    its symbols in the intervals ``subs``, or ``None``.

    ``None`` unless ``expr`` is built from rationals, ``pi``, ``e``, symbols, sums, products,
    integer powers, rational powers of a positive base, ``exp``, ``log`` of a positive argument,
    the trigonometric and the hyperbolic sine, cosine and tangent, and every sub-expression is
    finite over the whole box: no denominator, pole, logarithm or root argument reaches zero or a
    branch cut there, so ``expr`` is real-analytic on a neighbourhood of the box.
    """
    ctx = _iv_ctx()
    try:
        return _iv_eval(expr, subs, ctx, [MAX_EXPR_NODES * 4])
    except Exception:  # noqa: BLE001 - no enclosure proves nothing; the time budget (a BaseException) still ends it
        return None


def _iv_eval(expr: Any, subs: dict[Any, Any], ctx: Any, budget: list[int]) -> Any:
    _tick(budget)
    v = _iv_node(expr, subs, ctx, budget)
    if not _within(v, "low", "high"):
        raise _Unevaluable("unbounded")
    return v


def _within(v: Any, low: str, high: str) -> bool:
    """Every point of the interval ``v`` lies strictly between the named bounds."""
    a, b = v._mpi_
    lt = _IV_BOUNDS["lt"]
    return bool(lt(_IV_BOUNDS[low], a) and lt(b, _IV_BOUNDS[high]))


def _positive(v: Any) -> bool:
    """Every point of the interval ``v`` is above zero."""
    return bool(_IV_BOUNDS["lt"](_IV_BOUNDS["zero"], v._mpi_[0]))


def _iv_node(expr: Any, subs: dict[Any, Any], ctx: Any, budget: list[int]) -> Any:
    sp = _sympy()
    if expr.is_Rational:
        return ctx.mpf(int(expr.p)) / int(expr.q)
    if expr.is_Symbol:
        if expr not in subs:
            raise _Unevaluable("free symbol")
        return subs[expr]
    if expr is sp.pi:
        return ctx.pi
    if expr is sp.E:
        return ctx.e
    if expr.is_Add or expr.is_Mul:
        parts = [_iv_eval(a, subs, ctx, budget) for a in expr.args]
        out = parts[0]
        for p in parts[1:]:
            out = out + p if expr.is_Add else out * p
        return out
    if expr.is_Pow:
        base = _iv_eval(expr.base, subs, ctx, budget)
        e = expr.exp
        if e.is_Integer and abs(int(e)) <= 64:
            if e < 0 and 0 in base:
                raise _Unevaluable("pole")
            return base ** int(e)
        if e.is_Rational and _positive(base):
            return base ** (ctx.mpf(int(e.p)) / int(e.q))
        raise _Unevaluable("power")
    name = type(expr).__name__
    if len(expr.args) != 1:
        raise _Unevaluable(f"no interval rule for {name}")
    arg = _iv_eval(expr.args[0], subs, ctx, budget)
    if name == "exp" or name in ("sinh", "cosh", "tanh"):
        if not _within(arg, "arg_low", "arg_high"):
            raise _Unevaluable("exp range")
        if name == "exp":
            return ctx.exp(arg)
        up, down = ctx.exp(arg), ctx.exp(-arg)
        if name == "sinh":
            return (up - down) / 2
        if name == "cosh":
            return (up + down) / 2
        return (up - down) / (up + down)
    if name == "log":
        if not _positive(arg):
            raise _Unevaluable("log of a non-positive range")
        return ctx.log(arg)
    if name in _IV_TRIG:
        if not _within(arg, "arg_low", "arg_high"):
            raise _Unevaluable("trig range")
        return getattr(ctx, name)(arg)
    raise _Unevaluable(f"no interval rule for {name}")
