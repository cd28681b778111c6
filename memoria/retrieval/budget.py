"""The budget of one retrieval: a wall-time limit and a limit on graph rows read, so a runaway exploration ends.

The server sets the ceilings (MEMORIA_RETRIEVAL_MAX_SECONDS, MEMORIA_RETRIEVAL_MAX_ROWS, MEMORIA_PPR_MAX_ROWS);
a request may ask for less, never more. The engine reserves the rows a step may read before it reads them (so
concurrent steps together stay within the limit), charges what it read, and asks the clock between steps; once
a limit would be passed it stops, keeps what it has, and reports which limit ended it. Nothing here knows HTTP.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.conf import settings
from pydantic import Field, model_validator

from memoria.requests.vocabulary import Number, RequestModel, WholeNumber, problems_raise

TIME = "time"
ROWS = "rows"
STATUS = "budget_exhausted"  # the status of a retrieval (and of each seed) the budget stopped

DEFAULT_MAX_SECONDS = 30
DEFAULT_MAX_ROWS = 200_000  # activation: candidate edge rows its level queries match
DEFAULT_PPR_MAX_ROWS = 50_000_000  # PPR: transition entries its multiplies read
MIN_SECONDS = 0.001


@dataclass(frozen=True)
class BudgetLimits:
    max_seconds: float
    max_rows: int

    def as_dict(self) -> dict[str, Any]:
        return {"max_seconds": self.max_seconds, "max_rows": self.max_rows}


def server_limits(*, ppr: bool = False) -> BudgetLimits:
    """The server's ceilings, read at each request so a changed setting applies at once."""
    rows_setting, rows_default = (
        ("MEMORIA_PPR_MAX_ROWS", DEFAULT_PPR_MAX_ROWS) if ppr else ("MEMORIA_RETRIEVAL_MAX_ROWS", DEFAULT_MAX_ROWS)
    )
    return BudgetLimits(
        max_seconds=float(getattr(settings, "MEMORIA_RETRIEVAL_MAX_SECONDS", DEFAULT_MAX_SECONDS)),
        max_rows=int(getattr(settings, rows_setting, rows_default)),
    )


class BudgetInput(RequestModel):
    """A caller's lower limits within the server's (activation's ceilings); a field left out keeps the server's."""

    ppr: ClassVar[bool] = False

    max_seconds: Number | None = Field(
        default=None, json_schema_extra={"minimum": MIN_SECONDS}, description="at most the server's maximum"
    )
    max_rows: WholeNumber | None = Field(
        default=None, json_schema_extra={"minimum": 1}, description="at most the server's maximum"
    )

    @model_validator(mode="after")
    def _within_the_server(self) -> BudgetInput:
        ceiling, problems = server_limits(ppr=self.ppr), []
        if self.max_seconds is not None and not MIN_SECONDS <= self.max_seconds <= ceiling.max_seconds:
            problems.append(
                f"max_seconds: {self.max_seconds:g} is outside [{MIN_SECONDS:g}, {ceiling.max_seconds:g}]"
                " (the server's maximum is the upper end)"
            )
        if self.max_rows is not None and not 1 <= self.max_rows <= ceiling.max_rows:
            problems.append(
                f"max_rows: {self.max_rows} is outside [1, {ceiling.max_rows}] (the server's maximum is the upper end)"
            )
        problems_raise("budget", problems)
        return self

    def limits(self) -> BudgetLimits:
        ceiling = server_limits(ppr=self.ppr)
        return BudgetLimits(
            ceiling.max_seconds if self.max_seconds is None else self.max_seconds,
            ceiling.max_rows if self.max_rows is None else self.max_rows,
        )


class PprBudgetInput(BudgetInput):
    """PPR's budget: the same fields within the server's PPR ceilings."""

    ppr: ClassVar[bool] = True


def budget_limits(given: BudgetInput | None, *, ppr: bool = False) -> BudgetLimits:
    """The limits a request runs under: the caller's, or the server's ceilings when it gave none."""
    return given.limits() if given is not None else server_limits(ppr=ppr)


class BudgetExhausted(Exception):
    """Raised inside the engine to leave a step early; the engine catches it and reports a partial result."""

    def __init__(self, limit: str) -> None:
        super().__init__(f"retrieval budget exhausted ({limit})")
        self.limit = limit


@dataclass
class RetrievalBudget:
    """Shared by every part of one retrieval (all its seeds): rows charged add up, and the clock started once.

    `exhausted` names the first limit that actually stopped something; a limit passed on the very last step,
    with nothing left to stop, leaves it None.
    """

    limits: BudgetLimits
    clock: Callable[[], float] = time.monotonic
    rows_read: int = 0
    reserved: int = 0  # rows that steps under way may still read
    exhausted: str | None = None
    started: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def elapsed(self) -> float:
        return self.clock() - self.started

    def remaining_seconds(self) -> float:
        return self.limits.max_seconds - self.elapsed()

    def charge(self, rows: int) -> None:
        self.rows_read += rows

    def reserve(self, rows: int) -> None:
        """Claim the most rows a step may read before it reads them; BudgetExhausted if that would pass the limit."""
        self.check(upcoming=rows)
        self.reserved += rows

    def settle(self, reserved: int, read: int) -> None:
        """A reserved step is over: it read `read` rows (0 when it failed), and the rest of its claim is free."""
        self.reserved -= reserved
        self.rows_read += read

    def over(self, *, upcoming: int = 0) -> str | None:
        """Which limit is passed now, or would be by `upcoming` more rows (rows first: they do not depend on the
        machine's speed)."""
        if self.exhausted:
            return self.exhausted
        if self.rows_read + self.reserved + upcoming > self.limits.max_rows:
            return ROWS
        if self.remaining_seconds() <= 0:
            return TIME
        return None

    def stop(self, limit: str) -> BudgetExhausted:
        """Note that `limit` ended the work (the first one noted wins) and give the error that leaves the step."""
        self.exhausted = self.exhausted or limit
        return BudgetExhausted(self.exhausted)

    def check(self, *, upcoming: int = 0) -> None:
        """Raise BudgetExhausted when a limit is passed (or would be by `upcoming` more rows)."""
        if limit := self.over(upcoming=upcoming):
            raise self.stop(limit)

    def report(self) -> dict[str, Any]:
        return {
            **self.limits.as_dict(),
            "rows_read": self.rows_read,
            "elapsed_seconds": round(self.elapsed(), 6),
            "exhausted": self.exhausted,
        }
