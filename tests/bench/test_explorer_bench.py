"""`bench explorer` types entity names as a person does: every prefix from two characters, without trailing blanks."""

from __future__ import annotations

import pytest

from memoria.bench.explorer import explorer_benchmark, typed_prefixes
from tests.curation.memory import store_curation_memory


def test_prefixes_of_the_first_three_words_once_each() -> None:
    assert typed_prefixes(["Stock of SKU-1 in Lyon", "Sto"]) == [
        "St", "Sto", "Stoc", "Stock", "Stock o", "Stock of", "Stock of S", "Stock of SK", "Stock of SKU",
        "Stock of SKU-", "Stock of SKU-1",
    ]  # fmt: skip


@pytest.mark.django_db
def test_the_bench_times_the_home_page_suggestions_and_the_search_page(group: str) -> None:
    store_curation_memory(group)
    said: list[str] = []
    timings = explorer_benchmark(group=group, runs=2, names=3, say=said.append)
    assert [timing.label.split()[0] for timing in timings] == ["home", "search-as-you-type", "search"]
    home, suggest, searches = (timing.milliseconds for timing in timings)
    assert len(home) == 2 and len(searches) == 3 and suggest and said
    assert all(ms > 0 for ms in home + suggest + searches)
