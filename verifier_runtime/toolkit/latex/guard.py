"""The size guard: bound every constant sub-expression of an AST before any symbolic work.

Powers, factorials, binomials and ``exp`` are bounded from the parse tree, so no huge integer
is ever built: a single C-level big-integer operation cannot be interrupted by the time budget.
"""

from __future__ import annotations

import math
from fractions import Fraction

from verifier_runtime.limits import MAX_EXPONENT, MAX_EXPR_DEPTH, MAX_EXPR_NODES, MAX_FACTORIAL_ARG
from verifier_runtime.toolkit.latex.tokens import Node, ParseRefused

#: Largest constant a guarded expression may denote, as log10 of its magnitude (digits).
MAX_CONSTANT_DIGITS = 4_000  # also keeps every integer printable (Python refuses str() past 4,300 digits)
#: Largest exact number (integer or rational, in digits) sympy may build while constructing an
#: expression, symbolic ones included: ``(x/C)^k`` makes ``C^k``; ``c^{p/q}`` factors ``c`` and
#: raises its prime factors to powers up to ``q``.
MAX_INTEGER_DIGITS = MAX_CONSTANT_DIGITS

_LOG10_E = math.log10(math.e)


class LimitRefused(ParseRefused):
    """A size estimate over a hard limit; ``code`` is the reason, ``limit:<what>``."""

    def __init__(self, what: str) -> None:
        super().__init__(f"limit:{what}")
        self.code = f"limit:{what}"


def _guard(node: Node) -> tuple[float | None, int]:
    """Bound the size of ``node``: (log10 bound of |value| for constants or None, node count).

    Two estimates per node, from the parse tree alone: the magnitude of a constant (both
    directions, huge and tiny) and the size of the largest exact number sympy may build on the
    way, symbolic expressions included. Raises :class:`LimitRefused` when a power, factorial,
    binomial, root or rational exponent could exceed the limits.
    """
    count = [0]

    def walk(n: Node, depth: int) -> tuple[float | None, float]:
        count[0] += 1
        if count[0] > MAX_EXPR_NODES:
            raise LimitRefused("expression_nodes")
        if depth > MAX_EXPR_DEPTH * 2:
            raise LimitRefused("expression_depth")
        tag = n[0]
        if tag == "num":
            v: Fraction = n[1]
            size = 0.0 if v == 0 else math.log10(max(abs(v.numerator), v.denominator))
            return size, size
        if tag == "const":
            return (None if n[1] == "oo" else 1.0), 0.0
        if tag == "sym":
            return None, 0.0
        if tag in ("neg", "inv"):
            return walk(n[1], depth + 1)
        if tag in ("add", "mul"):
            parts = [walk(c, depth + 1) for c in n[1]]
            # exact parts are collected: a sum of rationals can need the product of the denominators
            coef = _work(sum(c for _, c in parts) + math.log10(len(parts)))
            sizes = [s for s, _ in parts]
            if any(s is None for s in sizes):
                return None, coef
            total = sum(sizes) + (math.log10(len(sizes)) if tag == "add" else 0.0)  # type: ignore[arg-type]
            return _cap(total), coef
        if tag == "pow":
            (b, bc), (e, ec) = walk(n[1], depth + 1), walk(n[2], depth + 1)
            return _cap(_pow_size(b, e, n[2])), _work(_pow_work(bc, e, ec, n[2]))
        if tag == "deg":
            s, c = walk(n[1], depth + 1)
            return s, _work(c + 3.0)
        if tag == "fact":
            a, c = walk(n[1], depth + 1)
            if a is None:
                return None, c
            bound = 10.0**a if a < 300 else math.inf
            if bound > MAX_FACTORIAL_ARG + 1:
                raise LimitRefused("factorial")
            size = _cap(bound * math.log10(bound + 1) + 1)
            return size, _work(max(c, size or 0.0))
        if tag == "binom":
            (a, ac), (b, bc) = walk(n[1], depth + 1), walk(n[2], depth + 1)
            if a is None or b is None:
                return None, _work(ac + bc)
            na = 10.0**a if a < 300 else math.inf
            nb = 10.0**b if b < 300 else math.inf
            if min(na, nb) > MAX_FACTORIAL_ARG + 1:
                raise LimitRefused("binomial")
            size = _cap(min(na, nb) * (a + 1))
            return size, _work(max(ac + bc, size or 0.0))
        if tag == "root":
            (x, xc), (idx, ic) = walk(n[1], depth + 1), walk(n[2], depth + 1)
            if idx is not None and idx > math.log10(MAX_EXPONENT) + 0.01:
                raise LimitRefused("root_index")
            q = _exact(n[2])
            # sympy factors the radicand and raises its primes to powers below the index
            reach = float(abs(q)) if q is not None else (10.0**idx if idx is not None else 1.0)
            return x, _work(xc * max(1.0, reach) + ic)
        if tag == "log":
            parts = [walk(c, depth + 1) for c in ((n[1], n[2]) if n[1] is not None else (n[2],))]
            return None, _work(sum(c for _, c in parts))
        if tag == "func":
            parts = [walk(c, depth + 1) for c in n[2]]
            coef = _work(sum(c for _, c in parts))
            a = parts[0][0] if parts else None
            if n[1] == "exp":
                return _cap(_pow_size(1.0, a, n[2][0])), coef
            if n[1] in ("sin", "cos", "tan", "sec", "csc", "cot", "sinh", "cosh", "tanh") and a is not None:
                if a > 60:
                    raise LimitRefused("trig_argument")
                if n[1] in ("sinh", "cosh", "tanh"):
                    return _cap(_pow_size(1.0, a, n[2][0])), coef
            if n[1] in ("sqrt", "abs", "floor", "ceiling"):
                return a, coef
            return (None if a is None else a + 2.0), coef
        raise ParseRefused(f"unknown node {tag}")

    size, _ = walk(node, 0)
    return size, count[0]


def _cap(size: float | None) -> float | None:
    if size is not None and size > MAX_CONSTANT_DIGITS:
        raise LimitRefused("constant_size")
    return size


def _work(digits: float) -> float:
    if digits > MAX_INTEGER_DIGITS:
        raise LimitRefused("integer_size")
    return digits


def _pow_size(base: float | None, exp: float | None, exp_node: Node) -> float | None:
    if exp is None:
        # symbolic exponent: only evaluated numerically at small points; a constant huge base is still fine
        return None
    # exp is a log10 bound of the exponent's magnitude: the exponent may be as large as 10**exp
    if exp > math.log10(MAX_EXPONENT) + 1e-9:
        # allow exactly-known small exponents whose magnitude bound is loose (e.g. 10000)
        val = _exact(exp_node)
        if val is None or abs(val) > MAX_EXPONENT:
            raise LimitRefused("exponent")
        e_bound = float(abs(val))
    else:
        e_bound = 10.0**exp
    if base is None:
        return None
    return base * e_bound


def _pow_work(base_work: float, exp_size: float | None, exp_work: float, exp_node: Node) -> float:
    """Digits of the largest exact number sympy may build for ``base ^ exponent``.

    An integer exponent ``k`` distributes over products (``(2x)^k`` makes ``2^k``); a rational
    one ``p/q`` makes sympy factor the base and raise its primes to powers up to ``q`` plus the
    whole part ``p/q`` (a long decimal exponent such as 0.999...9 has a huge ``q``).
    """
    if base_work == 0.0:
        return exp_work
    val = _exact(exp_node)
    if val is None:
        if exp_size is None:
            return base_work + exp_work  # a symbolic exponent stays an unevaluated power
        # a constant exponent of unknown exact form (it passed the magnitude check, so it is
        # below 10**4 with denominators below 10**4): assume the worst rational it could be
        return base_work * 10.0 ** min(exp_size, 5.0) + exp_work
    if val.denominator == 1:
        reach = float(abs(val.numerator))
    else:
        if val.denominator > MAX_EXPONENT:
            raise LimitRefused("rational_power")
        reach = (val.denominator - 1) + float(abs(val))
    return base_work * max(1.0, reach) + exp_work


def _exact(n: Node, depth: int = 0) -> Fraction | None:
    """Exact value of a small rational constant (numbers under ``neg``, ``inv``, ``add``,
    ``mul``), else None. Called on guarded subtrees only, so the values stay small."""
    tag = n[0]
    if depth > 8:
        return None
    if tag == "num":
        return n[1]
    if tag == "neg":
        v = _exact(n[1], depth + 1)
        return None if v is None else -v
    if tag == "inv":
        v = _exact(n[1], depth + 1)
        return None if v is None or v == 0 else 1 / v
    if tag in ("add", "mul"):
        vals = [_exact(c, depth + 1) for c in n[1]]
        if any(v is None for v in vals) or any(max(abs(v.numerator), v.denominator) > 10**12 for v in vals):  # type: ignore[union-attr]
            return None
        out = Fraction(0) if tag == "add" else Fraction(1)
        for v in vals:
            out = out + v if tag == "add" else out * v  # type: ignore[operator]
        return out
    return None
