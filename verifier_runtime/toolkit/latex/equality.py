"""Equality of expressions and equations: structural, exact, numeric at fixed points, bounded simplify."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from verifier_runtime.limits import check_deadline
from verifier_runtime.toolkit.latex.convert import _sympy, number_to_expr, parse_equation, parse_expression
from verifier_runtime.toolkit.latex.numeric import NOISE, _close, _iv_ctx, _numeric, _points, interval_value
from verifier_runtime.toolkit.latex.tokens import ParseRefused
from verifier_runtime.toolkit.numbers import Number

#: Expressions up to this many AST nodes may reach ``sympy.simplify`` as a last resort.
SIMPLIFY_MAX_NODES = 40

def _as_expr(x: Any) -> Any:
    if isinstance(x, Number):
        return number_to_expr(x)
    if isinstance(x, str):
        return parse_expression(x)
    if isinstance(x, Fraction):
        return _sympy().Rational(x.numerator, x.denominator)
    if isinstance(x, int) and not isinstance(x, bool):
        return _sympy().Integer(x)
    try:
        if hasattr(x, "free_symbols") and hasattr(x, "evalf"):
            return x
    except Exception:  # noqa: BLE001 - foreign objects with odd attribute access
        return None
    return None



def values_equal(a: Any, b: Any, *, rel_tol: float = 0.0, abs_tol: float = 0.0) -> bool | None:
    """Equality of two scalars (Number, sympy expression, Fraction or text).

    Two Numbers compare exactly (with tolerances when given) without sympy. A constant that is
    not rational never equals a finite decimal at ``rel_tol=0`` (``\\sqrt{2}`` vs 1.414), and is
    compared numerically when a tolerance is given. Expressions with symbols are compared by
    :func:`expressions_equal`.
    """
    from verifier_runtime.toolkit.numbers import numbers_close

    try:
        if isinstance(a, Number) and isinstance(b, Number):
            return numbers_close(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
        return expressions_equal(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
    except RecursionError:
        return None


def expressions_equal(a: Any, b: Any, *, rel_tol: float = 1e-9, abs_tol: float = 0.0) -> bool | None:
    """Whether two expressions (strings or sympy expressions) are equal; ``None`` if undecided.

    Order: structural equality, then exact comparison of rational constants, then numeric
    evaluation at ``EVAL_POINTS`` fixed pseudo-random points at ``EVAL_PREC_BITS`` bits (a
    difference beyond ``rel_tol``/``abs_tol`` or numeric noise at any point decides ``False``;
    agreement at every point decides ``True``), then a bounded ``simplify`` for small inputs.
    The tolerances apply to constant expressions; expressions with free symbols are compared
    at numeric-noise tolerance (their literals are exact).
    """
    try:
        return _expressions_equal(a, b, rel_tol, abs_tol)
    except (ParseRefused, ValueError, TypeError, RecursionError, ArithmeticError, AttributeError):
        return None


def _expressions_equal(a: Any, b: Any, rel_tol: float, abs_tol: float) -> bool | None:
    ea, eb = _as_expr(a), _as_expr(b)
    if ea is None or eb is None:
        return None
    sp = _sympy()
    if ea == eb:
        return True
    if ea.has(sp.oo, -sp.oo, sp.zoo) or eb.has(sp.oo, -sp.oo, sp.zoo):
        return False if (ea.is_number and eb.is_number) else None
    if ea.is_Rational and eb.is_Rational:
        if rel_tol == 0 and abs_tol == 0:
            return False
        fa = Fraction(int(ea.p), int(ea.q))
        fb = Fraction(int(eb.p), int(eb.q))
        from verifier_runtime.toolkit.numbers import numbers_close

        return numbers_close(Number(fa, "", "fraction"), Number(fb, "", "fraction"), rel_tol=rel_tol, abs_tol=abs_tol)
    exact_tol = rel_tol == 0 and abs_tol == 0
    if exact_tol and ea.is_number and eb.is_number and (ea.is_Rational or eb.is_Rational):
        other = eb if ea.is_Rational else ea
        if _irrational(other):
            return False
    if ea.free_symbols != eb.free_symbols:
        ea, eb = _same_constants(ea, eb, sp)
    symbols = sorted(ea.free_symbols | eb.free_symbols, key=lambda s: s.name)
    points = _points(symbols) if symbols else [{}]
    if symbols:
        # literals are exact, so symbolic forms are compared at numeric-noise tolerance only: a
        # relative tolerance would accept (x+1)^50 + 1 for (x+1)^50 where the values are large
        rel_tol = abs_tol = 0.0
    agree = 0
    for subs in points:
        check_deadline()
        va, vb = _numeric(ea, subs), _numeric(eb, subs)
        if va is None or vb is None:
            continue
        if not _close(va, vb, rel_tol, abs_tol):
            return False
        agree += 1
    if agree >= (1 if not symbols else 3):
        return None if symbols and _differ_below_zero(ea, eb, points) else True
    if _small(ea) and _small(eb):
        check_deadline()
        try:
            d = sp.simplify(ea - eb)
        except (ValueError, TypeError, ArithmeticError, RecursionError, AttributeError, NotImplementedError):
            return None
        if d == 0:
            return True
    return None


def _same_constants(ea: Any, eb: Any, sp: Any) -> tuple[Any, Any]:
    r"""Both sides with the reduced Planck constant written through Planck's, where one side
    writes one and the other the other (``\hbar \omega`` and ``h \omega / 2\pi``): one physical
    constant, two symbols. No other symbol is read as a constant (``k`` may be a spring's)."""
    names_a = {s.name: s for s in ea.free_symbols}
    names_b = {s.name: s for s in eb.free_symbols}
    hbar = names_a.get("hbar") or names_b.get("hbar")
    h = names_a.get("h") or names_b.get("h")
    if hbar is None or h is None or ("hbar" in names_a and "hbar" in names_b):
        return ea, eb
    subs = {hbar: h / (2 * sp.pi)}
    return ea.xreplace(subs), eb.xreplace(subs)


#: how many of the fixed points are also tried with every coordinate negated
NEGATED_POINTS = 2


def _differ_below_zero(ea: Any, eb: Any, points: list[dict[Any, Any]]) -> bool:
    """Whether two expressions that agree at the fixed (positive) points differ where the unknowns
    are negative: ``\\sqrt{x^2}`` and ``x``, ``\\ln(x^2)`` and ``2\\ln x``. They are equal only on part
    of the domain, which the question may or may not assume, so equality stays undecided."""
    for subs in points[:NEGATED_POINTS]:
        check_deadline()
        neg = {s: -v for s, v in subs.items()}
        va, vb = _numeric(ea, neg), _numeric(eb, neg)
        if va is not None and vb is not None and not _close(va, vb, 0.0, 0.0):
            return True
    return False


def _irrational(expr: Any) -> bool:
    """Conservative: sympy proves ``expr`` is not rational (e.g. sqrt(2), pi)."""
    try:
        return expr.is_rational is False
    except (TypeError, ValueError, AttributeError, RecursionError):
        return False


def _small(expr: Any) -> bool:
    try:
        if sum(1 for _ in _sympy().preorder_traversal(expr)) > SIMPLIFY_MAX_NODES:
            return False
        for p in expr.atoms(_sympy().Pow):
            if p.exp.is_Number and abs(p.exp) > 12:
                return False
        return True
    except (TypeError, ValueError, AttributeError, RecursionError):
        return False



def equations_equal(a: Any, b: Any) -> bool | None:
    """Whether two equations are the same up to a non-zero constant factor (sides may swap).

    ``y = 2x + 1`` equals ``2x - y + 1 = 0``; ``x = 3`` equals ``3 = x``. Equations with the
    same solutions but not proportional (``x^2 = 1`` vs ``x = 1``) are not equal. ``None``
    when a side cannot be parsed or evaluated.
    """
    try:
        return _equations_equal(a, b)
    except (ParseRefused, ValueError, TypeError, RecursionError, ArithmeticError, AttributeError):
        return None


def _equations_equal(a: Any, b: Any) -> bool | None:
    pa = parse_equation(a) if isinstance(a, str) else a
    pb = parse_equation(b) if isinstance(b, str) else b
    if not pa or not pb:
        return None
    da, db = pa[0] - pa[1], pb[0] - pb[1]
    if da == db or da == -db:
        return True
    symbols = sorted(da.free_symbols | db.free_symbols, key=lambda s: s.name)
    if not symbols:
        return None
    r = _proportional(da, db, symbols)
    if r is False and _same_linear_solution(da, db, symbols):
        return True  # "d = 7a" and "d/a = 7": one relation, rearranged by a factor in the unknowns
    return r


def _same_linear_solution(da: Any, db: Any, symbols: list[Any]) -> bool:
    """Both relations are linear in a shared unknown and give it the same value (``d = 7a``)."""
    if not (_small(da) and _small(db)):
        return False
    for s in symbols:
        if s not in da.free_symbols or s not in db.free_symbols:
            continue
        check_deadline()
        ma, mb = _monomials(da, s), _monomials(db, s)
        if (ma is not None and ma[1] is None) or (mb is not None and mb[1] is None):
            continue  # its derivative keeps ``s``: not linear in ``s`` (what diff finds, at far less cost)
        if ma is not None and mb is not None:
            (_, ka, ca), (_, kb, cb) = ma, mb  # linear: the derivative and the rest, read off the terms
        else:
            if (ma is None and _bends(da, s)) or (mb is None and _bends(db, s)):
                continue  # proven not linear in ``s``: its derivative keeps ``s`` (what diff finds, at far more cost)
            ka, kb = da.diff(s), db.diff(s)
            ca = cb = None
        if ka == 0 or kb == 0 or ka.has(s) or kb.has(s):
            continue
        sa = -(da.subs(s, 0) if ca is None else ca) / ka
        sb = -(db.subs(s, 0) if cb is None else cb) / kb
        return expressions_equal(sa, sb) is True
    return False


def _monomials(expr: Any, s: Any) -> tuple[bool, Any, Any] | None:
    """``expr`` as a sum of monomials ``c * s**n`` (``c`` free of ``s``, ``n`` a non-zero integer)
    and terms free of ``s``: ``(True, d expr/ds, expr at s = 0)`` when every ``n`` is 1,
    ``(False, None, None)`` when some ``n`` is not; ``None`` for any other form.

    What sympy's ``diff`` and ``subs`` give, built from the terms: the derivative of ``c * s`` is
    ``c`` and of a term free of ``s`` is 0, and at ``s = 0`` the terms in ``s`` vanish. With some
    ``n`` other than 1 the derivative keeps ``s``: the terms of a canonical sum differ in their
    non-numeric parts, so those of the derivative ``n c s**(n-1)`` do too, and none cancels."""
    sp = _sympy()
    if expr.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
        return None  # an infinite coefficient: the derivative or the value at s = 0 may be nan
    linear = True
    slopes: list[Any] = []
    rest: list[Any] = []
    for term in expr.args if expr.is_Add else (expr,):
        if not term.has(s):
            rest.append(term)
            continue
        power = None
        others = []
        for factor in term.args if term.is_Mul else (term,):
            if factor == s:
                n = 1
            elif factor.is_Pow and factor.base == s and factor.exp.is_Integer and factor.exp != 0:
                n = int(factor.exp)
            elif not factor.has(s):
                others.append(factor)
                continue
            else:
                return None
            if power is not None:
                return None  # s twice in one product: not a canonical monomial
            power = n
        linear = linear and power == 1
        slopes.append(sp.Mul(*others))
    if not linear:
        return False, None, None
    return True, sp.Add(*slopes), sp.Add(*rest)


#: where :func:`_bends` probes: the unknown at three equally spaced exact points, the others at
#: fixed exact points (binary fractions, so every probe is an exact real number)
_BEND_POINTS = (0.625, 0.875, 1.125)
_BEND_OTHERS = tuple((13 + (k * 37) % 83) / 64 for k in range(32))  # distinct, in [0.2, 1.5]


def _bends(expr: Any, s: Any) -> bool:
    """Proven: ``expr`` is not ``a + b s`` with ``a`` and ``b`` free of ``s``, so the derivative
    sympy's ``diff`` gives keeps ``s`` (it is not zero and not free of ``s``). ``False`` when
    nothing is proven.

    The proof: :func:`~verifier_runtime.toolkit.latex.numeric.interval_value` encloses ``expr`` with
    the other unknowns at fixed points and ``s`` over the whole segment of the three probes, which
    holds only when ``expr`` is real-analytic around that segment. Were its derivative ``D`` free of
    ``s``, ``expr`` would be affine in ``s`` on the segment (``D`` is its derivative there), and its
    second difference at three equally spaced points would be exactly zero; a rigorous enclosure
    of that difference without zero rules it out."""
    others = sorted(expr.free_symbols - {s}, key=lambda v: v.name)
    if len(others) > len(_BEND_OTHERS):
        return False
    ctx = _iv_ctx()
    subs = {v: ctx.mpf(x) for v, x in zip(others, _BEND_OTHERS, strict=False)}
    lo, mid, hi = (ctx.mpf(x) for x in _BEND_POINTS)
    subs[s] = ctx.mpf([_BEND_POINTS[0], _BEND_POINTS[2]])
    if interval_value(expr, subs) is None:
        return False  # not enclosed on the segment: nothing is proven
    values = []
    for x in (lo, mid, hi):
        subs[s] = x
        v = interval_value(expr, subs)
        if v is None:
            return False
        values.append(v)
    second = values[0] - 2 * values[1] + values[2]
    return 0 not in second


def _proportional(da: Any, db: Any, symbols: list[Any]) -> bool | None:
    """``da = c * db`` for one nonzero constant ``c`` at every probe point."""
    ratio = None
    agree = 0
    for subs in _points(symbols):
        check_deadline()
        va, vb = _numeric(da, subs), _numeric(db, subs)
        if va is None or vb is None:
            continue
        za = abs(va) < NOISE
        zb = abs(vb) < NOISE
        if za or zb:
            if za != zb:
                return False
            continue
        r = va / vb
        if ratio is None:
            ratio = r
        elif not _close(r, ratio, 0.0, 0.0):
            return False
        agree += 1
    return True if agree >= 3 else None
