"""The words of a scope's names, for search-as-you-type: which items' names hold a word, or a word a typed prefix
starts.

BM25 matches whole (stemmed) words and a half-typed word's embedding is near nothing in particular, so "Lyo" found
no Lyon at all (issue 32). Names are split into case-folded words (runs of letters and digits, as the text index
splits them, unstemmed); a prefix is looked up by bisection in the sorted words, which are sorted again only after
a change.
"""

from __future__ import annotations

import bisect
import re

_WORD = re.compile(r"[^\W_]+")
# Estimates: a word's key, string and set, and a set entry a holder (the ids themselves belong to the items).
WORD_BYTES = 280
HOLDER_BYTES = 40


def name_words(text: str) -> list[str]:
    """The words of a name or of typed text, case-folded, in order."""
    return [match.group(0) for match in _WORD.finditer(text.casefold())]


class NameIndex:
    """Not thread-safe by itself: the scope's group view guards reads against changes."""

    def __init__(self) -> None:
        self._ids_by_word: dict[str, set[str]] = {}
        self._sorted: list[str] | None = None  # the words in order, made again after a change
        self._bytes = 0  # kept as words and holders come and go: the view's size is read on every request

    def put(self, item_id: str, name: str) -> None:
        for word in name_words(name):
            holders = self._ids_by_word.get(word)
            if holders is None:
                holders = self._ids_by_word[word] = set()
                self._bytes += WORD_BYTES + len(word)
                self._sorted = None
            if item_id not in holders:
                holders.add(item_id)
                self._bytes += HOLDER_BYTES

    def remove(self, item_id: str, name: str) -> None:
        for word in name_words(name):
            holders = self._ids_by_word.get(word)
            if holders is not None and item_id in holders:
                holders.discard(item_id)
                self._bytes -= HOLDER_BYTES
                if not holders:
                    del self._ids_by_word[word]
                    self._bytes -= WORD_BYTES + len(word)
                    self._sorted = None

    def with_word(self, word: str) -> set[str]:
        """Items whose name holds this (case-folded) word whole."""
        return set(self._ids_by_word.get(word, ()))

    def with_prefix(self, prefix: str) -> set[str]:
        """Items whose name holds a word starting with this (case-folded) prefix."""
        if self._sorted is None:
            self._sorted = sorted(self._ids_by_word)
        words = self._sorted
        found: set[str] = set()
        for position in range(bisect.bisect_left(words, prefix), len(words)):
            if not words[position].startswith(prefix):
                break
            found |= self._ids_by_word[words[position]]
        return found

    @property
    def nbytes(self) -> int:
        return self._bytes
