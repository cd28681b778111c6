"""Query tags derived from the query text: the group's own tag vocabulary, matched word by word.

A tag such as `safety_stock` matches when every one of its parts appears among
the query's words (case-folded, a plural `s` dropped), so "Why do stockouts
follow late safety stock updates?" yields `stockout` and `safety_stock`.
The vocabulary is read once per group and cached for a minute.
"""

from __future__ import annotations

import re
import threading
import time

from memoria.graph import driver

GROUP_TAG_VOCABULARY = """
MATCH (n:Memory {group_id: $group})-[r:RELATES]->()
UNWIND coalesce(r.tags, []) AS tag
RETURN DISTINCT tag
"""
CACHE_SECONDS = 60.0
MAX_DERIVED_TAGS = 12
WORD = re.compile(r"[a-z0-9]+")

_cache: dict[str, tuple[float, frozenset[str]]] = {}
_lock = threading.Lock()


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def query_words(text: str) -> set[str]:
    return {_stem(word) for word in WORD.findall(text.lower())}


def group_tag_vocabulary(*, group: str) -> frozenset[str]:
    now = time.monotonic()
    with _lock:
        cached = _cache.get(group)
        if cached and now - cached[0] < CACHE_SECONDS:
            return cached[1]
    vocabulary = frozenset(row["tag"] for row in driver.read(GROUP_TAG_VOCABULARY, group=group) if row["tag"])
    with _lock:
        _cache[group] = (now, vocabulary)
    return vocabulary


def forget_group_vocabulary(*, group: str) -> None:
    """Called after writes that may add tags, so the next query sees them."""
    with _lock:
        _cache.pop(group, None)


def tags_for_query(*, text: str, vocabulary: frozenset[str]) -> list[str]:
    words = query_words(text)
    matched = [tag for tag in vocabulary if all(_stem(part) in words for part in tag.split("_") if part)]
    # Longer tags are more specific; keep the most specific ones when a query matches many.
    return sorted(sorted(matched, key=lambda tag: (-tag.count("_"), tag))[:MAX_DERIVED_TAGS])


def derive_query_tags(*, group: str, text: str) -> list[str]:
    return tags_for_query(text=text, vocabulary=group_tag_vocabulary(group=group))
