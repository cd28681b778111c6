"""get_context's latency on a big group: the synthetic memory of `bench search` at 100k facts holds 10,000 episodes
(messages), 20,000 entities and 200 communities; each block is timed whole (query embedding included), beside the
search it starts with, in the same process and over the same queries (the reference the ratio is read against).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memoria.bench.search import SyntheticMemory, _timed
from memoria.context.service import context_build, search_config, search_limit
from memoria.search.service import search

BUDGETS = (250, 1000, 2000)


def context_benchmark(
    *, group: str, memory: SyntheticMemory, runs: int, warmup: int, budgets: Sequence[int] = BUDGETS
) -> dict[str, dict[str, Any]]:
    """p50 and p95 of the block at each budget, and of the block's own search alone at the same depth; both over
    the search benchmark's questions, then over its questions naming a rare entity (the walk of the episodes
    default runs)."""
    results: dict[str, dict[str, Any]] = {}
    for series, texts in (("", memory.queries), (" (naming a rare entity)", memory.walk_queries)):
        if not texts:
            continue
        queries = [texts[index % len(texts)] for index in range(runs + warmup)]
        for budget in budgets:
            config = search_config(search_limit(budget))
            results[f"search at budget {budget}'s depth{series}"] = _timed(
                queries, warmup, lambda query, config=config: search(query=query, groups=[group], config=config).size
            )
            used: list[int] = []

            def block(query: str, budget: int = budget, used: list[int] = used) -> int:
                built = context_build(group=group, query=query, budget_tokens=budget)
                used.append(built.used_tokens)
                return len(built.items)

            timed = _timed(queries, warmup, block)
            timed["tokens"] = sum(used[warmup:]) / max(1, len(used) - warmup)
            timed["ratio_p95"] = timed["p95_ms"] / results[f"search at budget {budget}'s depth{series}"]["p95_ms"]
            results[f"get_context at budget {budget}{series}"] = timed
    return results
