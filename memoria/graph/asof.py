"""When a RELATES fact counts: the one definition every graph retrieval applies (valid time and transaction time).

A fact carries two intervals, as Graphiti/Zep's do: valid time (`valid_at`, `invalid_at`: when it held in the
world) and transaction time (`created_at`: when the memory learned it; `expired_at`: when the memory learned that
it ended, i.e. when `invalid_at` was written — ingestion's contradiction step and the curator's "invalidate" set
both at once). A retrieval asks at a moment of the world (`as_of`) as the memory knew it at `known_at`:

    counts(t = as_of, k = known_at) =
        (created_at is unknown or created_at ≤ k)                  the memory knew the fact at k
        and (valid_at is unknown or valid_at ≤ t)                  it had begun by t
        and (invalid_at is none or t < invalid_at                  it had not ended by t ...
             or (expired_at is known and k < expired_at))          ... or, at k, its end was not yet known

With `known_at` = now (the default) this is plain valid time: valid_at ≤ t < invalid_at. An earlier `known_at`
replays what the memory knew then: facts learned later are left out, and an end learned later is not yet seen.
`include_invalidated` makes every fact count (what retrieval did before this module). Why `expired_at` is read
as "the end became known" and not as "the record was withdrawn": docs/retrieval.md, "Time".

The definition exists three times in Python, which are held to each other by tests/graph/test_asof.py: `counts` here on
Python values, `counts_cypher` as a parameterised Cypher predicate (`moment_cypher` wraps it for queries written
once for every moment), and `FactIntervals.mask` over the interval arrays the projection keeps
(memoria/projection/projection.py). Search applies the same two forms to its `valid_at` (`valid_time`): on the
server's indexes through `moment_cypher`, on the group's view through `counts`. The explorer's drawing keeps a
fourth form in JavaScript (`holdsAt` in graph_view.js, at known_at = now) to hide loaded facts when its moment
moves without asking the server; tests/e2e/test_as_of.py holds it to `counts` in Chromium on random times.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from memoria.graph.rules import TIMESTAMP_FORMAT, normalise_timestamp

STORED_WIDTH = len("2026-01-01T00:00:00Z")
STORED_SEPARATORS = [4, 7, 10, 13, 16, 19]
STORED_DIGITS = [i for i in range(STORED_WIDTH) if i not in STORED_SEPARATORS]
# Stored timestamps as int64 seconds: an unknown start reads as always, an unknown end as never.
EARLIEST = np.iinfo(np.int64).min
LATEST = np.iinfo(np.int64).max


def seconds(stamp: str) -> int:
    """A stored or requested timestamp as whole seconds since the epoch (the stored form is fixed-width UTC)."""
    try:  # the stored form by its digits: strptime costs several times more, twice per request
        if len(stamp) != STORED_WIDTH or stamp[19] != "Z" or stamp[10] != "T" or not stamp[:4].isdigit():
            raise ValueError(stamp)
        moment = datetime(
            int(stamp[:4]), int(stamp[5:7]), int(stamp[8:10]), int(stamp[11:13]), int(stamp[14:16]), int(stamp[17:19])
        )
    except ValueError:  # not the stored form: read it as any ISO 8601 date-time with a zone
        moment = datetime.strptime(normalise_timestamp(stamp), TIMESTAMP_FORMAT)
    return int(moment.replace(tzinfo=UTC).timestamp())


@dataclass(frozen=True)
class AsOf:
    """A resolved moment: both times set, or neither (every fact counts)."""

    as_of: str | None
    known_at: str | None

    @property
    def every_fact(self) -> bool:
        return self.as_of is None

    def as_dict(self) -> dict[str, Any]:
        """As events and answers report it."""
        return {"as_of": self.as_of, "known_at": self.known_at, "include_invalidated": self.every_fact}

    def parameters(self) -> dict[str, str]:
        """The Cypher parameters `counts_cypher` names (none when every fact counts)."""
        return {} if self.every_fact else {"as_of": self.as_of, "known_at": self.known_at}  # type: ignore[dict-item]

    def nullable_parameters(self) -> dict[str, str | None]:
        """The parameters `moment_cypher` names: nulls when every fact counts."""
        return {"as_of": self.as_of, "known_at": self.known_at}

    def counts(
        self,
        valid_at: str | None,
        invalid_at: str | None,
        created_at: str | None,
        expired_at: str | None,
    ) -> bool:
        """The definition on one fact's stored values: the reference the other two forms are tested against."""
        if self.every_fact:
            return True
        t, k = self.as_of, self.known_at
        assert t is not None and k is not None
        known = created_at is None or created_at <= k
        begun = valid_at is None or valid_at <= t
        ongoing = invalid_at is None or t < invalid_at or (expired_at is not None and k < expired_at)
        return known and begun and ongoing


EVERY_FACT = AsOf(as_of=None, known_at=None)


def valid_time(valid_at: str | None) -> AsOf:
    """Search's `valid_at` (a checked timestamp, or None) as a moment: the world's time asked about, as the memory
    knows it now; None means every fact, search's default. With known_at = now the definition is plain valid time,
    which is what search has always filtered by."""
    if valid_at is None:
        return EVERY_FACT
    return AsOf(as_of=normalise_timestamp(valid_at), known_at=datetime.now(UTC).strftime(TIMESTAMP_FORMAT))


def counts_cypher(fact: str) -> str:
    """The definition as a Cypher predicate on the relationship variable `fact`, with `$as_of` and `$known_at`.

    Stored timestamps are fixed-width UTC strings, so comparing them as strings is comparing them in time. A
    query for `EVERY_FACT` leaves the predicate out rather than passing nulls, so today's queries stay as they were.
    """
    return (
        f"(({fact}.created_at IS NULL OR {fact}.created_at <= $known_at)"
        f" AND ({fact}.valid_at IS NULL OR {fact}.valid_at <= $as_of)"
        f" AND ({fact}.invalid_at IS NULL OR $as_of < {fact}.invalid_at"
        f" OR ({fact}.expired_at IS NOT NULL AND $known_at < {fact}.expired_at)))"
    )


def moment_cypher(fact: str) -> str:
    """`counts_cypher` for a query text shared by every moment (the browse reads, paths, traversals, BFS search):
    a null `$as_of` (`AsOf.nullable_parameters` of EVERY_FACT) lets every fact through."""
    return f"($as_of IS NULL OR {counts_cypher(fact)})"


def _stored_seconds(stamps: list[str]) -> np.ndarray | None:
    """Seconds of stamps all in the stored form (YYYY-MM-DDTHH:MM:SSZ), from their digits in a few vector steps
    (strptime per stamp cost about a second per 100k distinct stamps); None if any is in another form."""
    if not stamps:
        return np.zeros(0, dtype=np.int64)
    if any(len(stamp) != STORED_WIDTH or not stamp.isascii() for stamp in stamps):
        return None
    chars = np.frombuffer("".join(stamps).encode("ascii"), dtype=np.uint8).reshape(-1, STORED_WIDTH)
    if not (chars[:, STORED_SEPARATORS] == np.frombuffer(b"--T::Z", dtype=np.uint8)).all():
        return None
    digits = chars[:, STORED_DIGITS].astype(np.int64) - ord("0")
    if digits.min() < 0 or digits.max() > 9:
        return None
    year, month, day, hour, minute, second = (
        (digits[:, start : start + width] * 10 ** np.arange(width - 1, -1, -1)).sum(axis=1)
        for start, width in ((0, 4), (4, 2), (6, 2), (8, 2), (10, 2), (12, 2))
    )
    if ((month < 1) | (month > 12) | (day < 1) | (day > 31) | (hour > 23) | (minute > 59) | (second > 59)).any():
        return None
    # Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
    year = year - (month <= 2)
    era = year // 400
    of_era = year - era * 400
    of_year = (153 * (month + np.where(month > 2, -3, 9)) + 2) // 5 + day - 1
    days = era * 146097 + of_era * 365 + of_era // 4 - of_era // 100 + of_year - 719468
    return days * 86400 + hour * 3600 + minute * 60 + second


def _column(values: list[str | None], missing: int) -> np.ndarray:
    """Seconds of each stamp, `missing` for None; stamps not in the stored form are read one by one."""
    column = np.full(len(values), missing, dtype=np.int64)
    present = [index for index, value in enumerate(values) if value is not None]
    stamps: list[str] = [values[index] for index in present]  # type: ignore[misc]
    parsed = _stored_seconds(stamps)
    if parsed is None:
        parsed = np.fromiter((seconds(stamp) for stamp in stamps), np.int64, len(stamps))
    column[present] = parsed
    return column


@dataclass(frozen=True)
class FactIntervals:
    """Each fact's four timestamps as int64 seconds, aligned with the projection's edges.

    Missing values are stored where they make the comparison say what the definition says: an unknown
    `valid_at` or `created_at` as EARLIEST (begun, known), no `invalid_at` as LATEST (never ends), no
    `expired_at` as EARLIEST (its end, if any, known from the start).
    """

    valid_at: np.ndarray
    invalid_at: np.ndarray
    created_at: np.ndarray
    expired_at: np.ndarray
    _breaks: list[np.ndarray] = field(default_factory=list, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def from_interned(cls, columns: dict[str, tuple[tuple[str | None, ...], np.ndarray]]) -> FactIntervals:
        """From interned columns (name → (vocabulary, per-edge codes)): each distinct stamp is parsed once."""
        missing = {"valid_at": EARLIEST, "invalid_at": LATEST, "created_at": EARLIEST, "expired_at": EARLIEST}
        return cls(
            **{name: _column(list(vocabulary), missing[name])[codes] for name, (vocabulary, codes) in columns.items()}
        )

    def mask(self, moment: AsOf, edges: np.ndarray | slice = slice(None)) -> np.ndarray | None:
        """Which of these edges count at `moment`; None when every fact counts (no array is made)."""
        if moment.every_fact:
            return None
        t, k = seconds(moment.as_of), seconds(moment.known_at)  # type: ignore[arg-type]
        ongoing = (t < self.invalid_at[edges]) | (k < self.expired_at[edges])
        return ongoing & (self.created_at[edges] <= k) & (self.valid_at[edges] <= t)

    def key(self, moment: AsOf) -> tuple[int, int] | None:
        """Moments with the same key give the same mask: where as_of falls among the stored valid times and
        known_at among the transaction times (the mask only changes when one of them passes a stored stamp).
        None for every fact."""
        if moment.every_fact:
            return None
        with self._lock:
            if not self._breaks:
                self._breaks.append(np.unique(np.concatenate([self.valid_at, self.invalid_at])))
                self._breaks.append(np.unique(np.concatenate([self.created_at, self.expired_at])))
        t, k = seconds(moment.as_of), seconds(moment.known_at)  # type: ignore[arg-type]
        return int(np.searchsorted(self._breaks[0], t, "right")), int(np.searchsorted(self._breaks[1], k, "right"))

    def memory_bytes(self) -> int:
        return sum(a.nbytes for a in (self.valid_at, self.invalid_at, self.created_at, self.expired_at))
