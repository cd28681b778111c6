"""The name index of search-as-you-type: whole words and prefixes of case-folded words, kept as names change."""

from __future__ import annotations

from memoria.readmodel.name_index import NameIndex, name_words


def test_words_are_case_folded_runs_of_letters_and_digits() -> None:
    assert name_words("Stockout of SKU-1042 in Lyon!") == ["stockout", "of", "sku", "1042", "in", "lyon"]


def test_whole_words_prefixes_and_changes() -> None:
    index = NameIndex()
    index.put("a", "Lyon warehouse")
    index.put("b", "Lyons depot")
    index.put("c", "Warehouse Lyon")
    assert index.with_word("lyon") == {"a", "c"}
    assert index.with_prefix("ly") == {"a", "b", "c"}
    assert index.with_prefix("lyons") == {"b"}
    assert index.with_prefix("z") == set()
    before = index.nbytes
    index.remove("b", "Lyons depot")
    assert index.with_prefix("ly") == {"a", "c"} and index.with_prefix("dep") == set()
    assert index.nbytes < before
    index.put("a", "Lyon warehouse")  # put again: nothing counted twice
    index.remove("a", "Lyon warehouse")
    index.remove("c", "Warehouse Lyon")
    assert index.nbytes == 0 and index.with_prefix("") == set()
