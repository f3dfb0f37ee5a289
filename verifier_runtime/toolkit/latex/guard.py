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

_LOG10_E = math.log10(math.e)


def _guard(node: Node) -> tuple[float | None, int]:
    """Bound the size of ``node``: (log10 bound of |value| for constants or None, node count).

    The bound covers both directions (huge and tiny values). Raises :class:`ParseRefused`
    when a power, factorial or binomial could exceed the limits.
    """
    count = [0]

    def walk(n: Node, depth: int) -> float | None:
        count[0] += 1
        if count[0] > MAX_EXPR_NODES:
            raise ParseRefused("too many nodes")
        if depth > MAX_EXPR_DEPTH * 2:
            raise ParseRefused("nesting too deep")
        tag = n[0]
        if tag == "num":
            v: Fraction = n[1]
            if v == 0:
                return 0.0
            return math.log10(max(abs(v.numerator), v.denominator))
        if tag == "const":
            return None if n[1] == "oo" else 1.0
        if tag == "sym":
            return None
        if tag in ("neg", "inv"):
            return walk(n[1], depth + 1)
        if tag in ("add", "mul"):
            sizes = [walk(c, depth + 1) for c in n[1]]
            if any(s is None for s in sizes):
                return None
            # a sum can cancel down to 1/(product of denominators): bound it by the sum of sizes too
            total = sum(sizes) + (math.log10(len(sizes)) if tag == "add" else 0.0)
            return _cap(total)
        if tag == "pow":
            b = walk(n[1], depth + 1)
            e = walk(n[2], depth + 1)
            return _cap(_pow_size(b, e, n[2]))
        if tag == "deg":
            return walk(n[1], depth + 1)
        if tag == "fact":
            a = walk(n[1], depth + 1)
            if a is None:
                return None
            bound = 10.0**a if a < 300 else math.inf
            if bound > MAX_FACTORIAL_ARG + 1:
                raise ParseRefused("factorial argument too large")
            return _cap(bound * math.log10(bound + 1) + 1)
        if tag == "binom":
            a, b = walk(n[1], depth + 1), walk(n[2], depth + 1)
            if a is None or b is None:
                return None
            na = 10.0**a if a < 300 else math.inf
            nb = 10.0**b if b < 300 else math.inf
            if min(na, nb) > MAX_FACTORIAL_ARG + 1:
                raise ParseRefused("binomial too large")
            return _cap(min(na, nb) * (a + 1))
        if tag == "root":
            x, idx = walk(n[1], depth + 1), walk(n[2], depth + 1)
            if idx is not None and idx > math.log10(MAX_EXPONENT) + 0.01:
                raise ParseRefused("root index too large")
            return x
        if tag == "log":
            if n[1] is not None:
                walk(n[1], depth + 1)
            walk(n[2], depth + 1)
            return None
        if tag == "func":
            sizes = [walk(c, depth + 1) for c in n[2]]
            a = sizes[0] if sizes else None
            if n[1] == "exp":
                return _cap(_pow_size(1.0, a, n[2][0]))
            if n[1] in ("sin", "cos", "tan", "sec", "csc", "cot", "sinh", "cosh", "tanh") and a is not None:
                if a > 60:
                    raise ParseRefused("trigonometric argument too large")
                if n[1] in ("sinh", "cosh", "tanh"):
                    return _cap(_pow_size(1.0, a, n[2][0]))
            if n[1] in ("sqrt", "abs", "floor", "ceiling"):
                return a
            return None if a is None else a + 2.0
        raise ParseRefused(f"unknown node {tag}")

    size = walk(node, 0)
    return size, count[0]


def _cap(size: float | None) -> float | None:
    if size is not None and size > MAX_CONSTANT_DIGITS:
        raise ParseRefused("constant too large")
    return size


def _pow_size(base: float | None, exp: float | None, exp_node: Node) -> float | None:
    if exp is None:
        # symbolic exponent: only evaluated numerically at small points; a constant huge base is still fine
        return None
    # exp is a log10 bound of the exponent's magnitude: the exponent may be as large as 10**exp
    if exp > math.log10(MAX_EXPONENT) + 1e-9:
        # allow exactly-known small exponents whose magnitude bound is loose (e.g. 10000)
        val = _exact_small(exp_node)
        if val is None or abs(val) > MAX_EXPONENT:
            raise ParseRefused("exponent too large")
        e_bound = float(abs(val))
    else:
        e_bound = 10.0**exp
    if base is None:
        return None
    return base * e_bound


def _exact_small(n: Node) -> Fraction | None:
    """Exact value of a small literal exponent (number or negated number), else None."""
    if n[0] == "num":
        return n[1]
    if n[0] == "neg" and n[1][0] == "num":
        return -n[1][1]
    return None

