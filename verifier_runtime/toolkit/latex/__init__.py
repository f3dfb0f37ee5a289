"""LaTeX and plain math to sympy, with hard limits enforced before any symbolic work.

A small tokenizer and recursive-descent parser build a tuple AST; a guard pass checks depth,
node count, literal digits and bounds the size of every constant sub-expression (powers,
factorials, binomials, ``exp``) so no huge integer is ever built; only then is sympy imported
(lazily) and the AST converted. Equality is decided by (1) structural comparison, (2) numeric
evaluation at fixed pseudo-random points at bounded precision, (3) a bounded ``simplify`` on
small expressions only. Every public function returns ``None`` instead of raising.

Conventions (documented in ``docs/toolkit-math.md``): ``e`` is Euler's number; ``i`` is the
imaginary unit unless it appears in a subscript (``x_i``) or ``imaginary_unit=False``; runs of
letters are products of single-letter symbols (``xy``) except known names (``sin``, ``pi``);
plain ``2^10`` is 1024 while LaTeX ``2^{10}`` is required for multi-token exponents;
``60^\\circ`` is ``60*pi/180``.
"""

from verifier_runtime.toolkit.latex.convert import (
    is_constant,
    number_to_expr,
    parse_ast,
    parse_equation,
    parse_expression,
)
from verifier_runtime.toolkit.latex.equality import equations_equal, expressions_equal, values_equal
from verifier_runtime.toolkit.latex.guard import MAX_CONSTANT_DIGITS
from verifier_runtime.toolkit.latex.numeric import EVAL_POINTS, EVAL_PREC_BITS, NOISE, numeric_value
from verifier_runtime.toolkit.latex.tokens import ParseRefused

__all__ = [
    "EVAL_POINTS",
    "EVAL_PREC_BITS",
    "MAX_CONSTANT_DIGITS",
    "NOISE",
    "ParseRefused",
    "parse_ast",
    "parse_expression",
    "expressions_equal",
    "parse_equation",
    "equations_equal",
    "number_to_expr",
    "values_equal",
    "is_constant",
    "numeric_value",
]
