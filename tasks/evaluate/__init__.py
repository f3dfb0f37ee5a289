"""Evaluation: the runner (verifiers side by side on the benchmarks), the Math-Verify
baseline, metrics and the HTML report."""
