"""How the benchmarks and the evaluation quote a latency: a percentile of a run's timings, by one rule for both."""

from __future__ import annotations


def percentile(values: list[float], share: float) -> float:
    """The value at `share` of the sorted timings, its place rounded (p50 of four values is the third)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]
