"""How each piece of memory reads in the block: one line, compact dates, long parts cut, and the word sets that
tell two pieces apart (near-identical lines are merged, a fact its episode already says is not repeated).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memoria.context.tokens import ELLIPSIS

# Parts of a line cut by characters before any token is counted: a 100,000-character name costs nothing then.
MAX_NAME_CHARACTERS = 80
MAX_TEXT_CHARACTERS = 600
# Two lines are one piece of memory when this share of the smaller one's words is in the other.
SAME_WORDS = 0.9
WORD = re.compile(r"\w+")


def flat(text: str | None, limit: int) -> str:
    """One line: every run of whitespace (line breaks, tabs, U+2028) a single space, cut at `limit` characters."""
    single = " ".join((text or "").split())
    return single if len(single) <= limit else single[: limit - 1].rstrip() + ELLIPSIS


def day(stamp: str | None) -> str:
    return (stamp or "")[:10]


def moment_text(stamp: str | None, timed_days: frozenset[str]) -> str:
    """`2023-08-17`, with `14:05` after it only on a day that other pieces in the block place at another time."""
    if not stamp:
        return ""
    return f"{stamp[:10]} {stamp[11:16]}" if stamp[:10] in timed_days else stamp[:10]


def timed_days(stamps: Iterable[str | None]) -> frozenset[str]:
    """The days on which the candidates hold more than one time of day: there the time tells them apart. Midnight
    is how a date without a time is stored, so it tells nothing apart."""
    times: dict[str, set[str]] = {}
    for stamp in stamps:
        if stamp and stamp[11:16] not in ("", "00:00"):
            times.setdefault(stamp[:10], set()).add(stamp[11:16])
    return frozenset(date for date, clock in times.items() if len(clock) > 1)


def validity(valid_at: str | None, invalid_at: str | None, days: frozenset[str]) -> str:
    start, end = moment_text(valid_at, days), moment_text(invalid_at, days)
    if start and end:
        return f" ({start} to {end})"
    if start:
        return f" (since {start})"
    return f" (until {end})" if end else ""


def fact_text(text: str, valid_at: str | None, invalid_at: str | None, days: frozenset[str]) -> str:
    return f"{flat(text, MAX_TEXT_CHARACTERS)}{validity(valid_at, invalid_at, days)}"


def episode_line(name: str, content: str, stamp: str | None, days: frozenset[str]) -> str:
    """`- 2023-05-08 D1:3: Caroline: …`; a document's title is its name. A name its content starts with is not
    written twice."""
    when = moment_text(stamp, days)
    title = flat(name, MAX_NAME_CHARACTERS)
    body = flat(content, MAX_TEXT_CHARACTERS)
    label = f"{title}: " if title and not body.startswith(title) else ""
    return f"- {when + ' ' if when else ''}{label}{body}"


def entity_line(name: str, summary: str) -> str:
    return f"- {flat(name, MAX_NAME_CHARACTERS)}: {flat(summary, MAX_TEXT_CHARACTERS)}"


def words(text: str) -> frozenset[str]:
    return frozenset(word.lower() for word in WORD.findall(text))


def says(container: frozenset[str], part: frozenset[str]) -> bool:
    """Whether the words of `part` are (nearly all) among those of `container`."""
    return bool(part) and len(part & container) >= SAME_WORDS * len(part)


def same(first: frozenset[str], second: frozenset[str]) -> bool:
    """Near-identical: nearly all the words of the shorter are in the longer, and neither is much longer."""
    small, large = sorted((first, second), key=len)
    return says(large, small) and len(small) >= SAME_WORDS * len(large)
