"""`bench explorer` types entity names as a person does: every prefix from two characters, without trailing blanks."""

from __future__ import annotations

from memoria.bench.explorer import typed_prefixes


def test_prefixes_of_the_first_three_words_once_each() -> None:
    assert typed_prefixes(["Stock of SKU-1 in Lyon", "Sto"]) == [
        "St", "Sto", "Stoc", "Stock", "Stock o", "Stock of", "Stock of S", "Stock of SK", "Stock of SKU",
        "Stock of SKU-", "Stock of SKU-1",
    ]  # fmt: skip
