"""get_context's latency on a big group: the synthetic memory of `bench search` at 100k facts holds 10,000 episodes
(messages), 20,000 entities and 200 communities; each block is timed whole (query embedding included), beside the
search it starts with, in the same process and over the same queries (the reference the ratio is read against).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memoria.bench.search import SyntheticMemory, _timed
from memoria.context.service import SEARCH_LIMIT, context_build, search_config
from memoria.search.service import search

BUDGETS = (250, 1000, 2000)


def context_benchmark(
    *, group: str, memory: SyntheticMemory, runs: int, warmup: int, budgets: Sequence[int] = BUDGETS
) -> dict[str, dict[str, Any]]:
    """p50 and p95 of the block at each budget, and of the block's own search alone at the same depth; both over
    the search benchmark's questions, then over its questions naming a rare entity (the walk of the episodes
    default runs)."""
    results: dict[str, dict[str, Any]] = {}
    config = search_config(SEARCH_LIMIT)
    for series, texts in (("", memory.queries), (" (naming a rare entity)", memory.walk_queries)):
        if not texts:
            continue
        queries = [texts[index % len(texts)] for index in range(runs + warmup)]
        reference = _timed(queries, warmup, lambda query: search(query=query, groups=[group], config=config).size)
        results[f"the block's search alone{series}"] = reference
        for budget in budgets:
            used: list[int] = []

            def block(query: str, budget: int = budget, used: list[int] = used) -> int:
                built = context_build(group=group, query=query, budget_tokens=budget)
                used.append(built.used_tokens)
                return len(built.items)

            timed = _timed(queries, warmup, block)
            timed["tokens"] = sum(used[warmup:]) / max(1, len(used) - warmup)
            timed["ratio_p95"] = timed["p95_ms"] / reference["p95_ms"]
            results[f"get_context at budget {budget}{series}"] = timed
    return results
