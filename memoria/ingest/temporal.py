"""Dates and quantities in text, dates resolved against the episode's reference time ("last Saturday" → a day).

A fact's valid_at comes from the date its sentence names; without one, from the episode's reference time.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from memoria.graph.rules import TIMESTAMP_FORMAT

MONTHS = {name.lower(): index for index, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): index for index, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
WEEKDAYS = {name.lower(): index for index, name in enumerate(calendar.day_name)}
NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        re.findall(r"\w+", "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen")
    )
}
NUMBER_WORDS.update({"a": 1, "an": 1, "a couple of": 2, "a few": 3, "several": 3})
UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30, "year": 365}

_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAY = r"(?P<weekday>" + "|".join(WEEKDAYS) + r")"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d{2})"
_AMOUNT = r"(?P<amount>\d+|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"
_UNIT = r"(?P<unit>day|week|fortnight|month|year)s?"

# Tried in order; a span taken by an earlier pattern is not matched again.
DATE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        ("iso", r"\b(?P<year>(?:19|20)\d{2})-(?P<month>[01]\d)-(?P<day>[0-3]\d)(?:[T ][\d:.]+(?:Z|[+-][\d:]+)?)?\b"),
        ("day_month_year", rf"\b{_DAY}(?:\s+of)?\s+{_MONTH},?\s+{_YEAR}\b"),
        ("month_day_year", rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b"),
        ("day_month", rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}\b"),
        ("month_day", rf"\b{_MONTH}\s+{_DAY}\b(?!\s*(?:%|,\d))"),
        ("month_year", rf"\b{_MONTH},?\s+{_YEAR}\b"),
        ("ago", rf"\b{_AMOUNT}\s+{_UNIT}\s+ago\b"),
        ("ahead", rf"\bin\s+{_AMOUNT}\s+{_UNIT}\b"),
        ("last_next_unit", rf"\b(?P<direction>last|next|this|past)\s+{_UNIT}\b"),
        ("last_next_weekday", rf"\b(?P<direction>last|next|this|on)\s+{_WEEKDAY}\b"),
        ("last_weekend", r"\b(?P<direction>last|next|this)\s+weekend\b"),
        (
            "relative_day",
            r"\b(?P<word>today|tonight|yesterday|tomorrow|last night|this morning|this afternoon|"
            r"this evening|the other day)\b",
        ),
        ("in_month", rf"\b(?:in|since|during|until|by)\s+{_MONTH}\b(?!\s+\d)"),
        ("in_year", rf"\b(?:in|since|during|until|by|from|of|before|after)\s+{_YEAR}\b"),
    )
)
RELATIVE_DAYS = {
    "today": 0, "tonight": 0, "this morning": 0, "this afternoon": 0, "this evening": 0,
    "yesterday": -1, "last night": -1, "tomorrow": 1, "the other day": -2,
}  # fmt: skip
QUANTITY = re.compile(
    r"(?P<value>[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|bn|million|billion|thousand))?"
    r"|\d[\d,]*(?:\.\d+)?\s?(?:%|(?:percent|k|kg|g|lbs?|km|mi|miles|cm|mm|m|l|ml|hours?|hrs?|minutes?|mins?|"
    r"units?|pieces?|items?|boxes?|pallets?|cases?|orders?|dollars?|euros?|pounds?|people|times|"
    r"kids|children|copies|pages|points)\b))",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DateMention:
    """A date named in text, resolved to a UTC timestamp (midnight for day-precision dates)."""

    text: str
    start: int
    end: int
    value: str


@dataclass(frozen=True)
class QuantityMention:
    text: str
    start: int
    end: int


def parse_timestamp(value: str) -> datetime:
    return datetime.strptime(value, TIMESTAMP_FORMAT).replace(tzinfo=UTC)


def format_timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(TIMESTAMP_FORMAT)


def _amount(text: str) -> int:
    lowered = text.lower()
    return int(lowered) if lowered.isdigit() else NUMBER_WORDS[lowered]


def _day(year: int, month: int, day: int) -> datetime | None:
    if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year, month)[1]:
        return None
    return datetime(year, month, day, tzinfo=UTC)


def _nearest_year(today: datetime, month: int, day: int) -> datetime | None:
    """A date given without a year: in whichever year puts it nearest the reference time."""
    candidates = [moment for year in (today.year - 1, today.year, today.year + 1) if (moment := _day(year, month, day))]
    return min(candidates, key=lambda moment: abs(moment - today), default=None)


def _shift_months(moment: datetime, months: int) -> datetime:
    index = moment.year * 12 + moment.month - 1 + months
    year, month = divmod(index, 12)
    return datetime(year, month + 1, min(moment.day, calendar.monthrange(year, month + 1)[1]), tzinfo=UTC)


def _resolve(kind: str, parts: dict[str, str], reference: datetime) -> datetime | None:
    today = reference.replace(hour=0, minute=0, second=0, microsecond=0)
    month = parts.get("month")
    month_number = (int(month) if month.isdigit() else MONTHS[month.lower()]) if month else None
    if kind in ("iso", "day_month_year", "month_day_year"):
        return _day(int(parts["year"]), month_number, int(parts["day"]))
    if kind in ("day_month", "month_day"):
        return _nearest_year(today, month_number, int(parts["day"]))
    if kind == "month_year":
        return _day(int(parts["year"]), month_number, 1)
    if kind == "in_month":
        return _nearest_year(today, month_number, 1)
    if kind == "in_year":
        return _day(int(parts["year"]), 1, 1)
    if kind in ("ago", "ahead"):
        sign = -1 if kind == "ago" else 1
        amount, unit = _amount(parts["amount"]), parts["unit"].lower()
        if unit in ("month", "year"):
            return _shift_months(today, sign * amount * (12 if unit == "year" else 1))
        return today + timedelta(days=sign * amount * UNIT_DAYS[unit])
    if kind == "last_next_unit":
        direction, unit = parts["direction"].lower(), parts["unit"].lower()
        sign = {"last": -1, "past": -1, "next": 1, "this": 0}[direction]
        if unit in ("month", "year"):
            return _shift_months(today, sign * (12 if unit == "year" else 1))
        return today + timedelta(days=sign * UNIT_DAYS[unit])
    if kind == "last_next_weekday":
        weekday, direction = WEEKDAYS[parts["weekday"].lower()], parts["direction"].lower()
        back = (today.weekday() - weekday) % 7
        if direction == "next":
            return today + timedelta(days=(weekday - today.weekday()) % 7 or 7)
        return today - timedelta(days=back or (7 if direction == "last" else 0))
    if kind == "last_weekend":
        saturday = today - timedelta(days=(today.weekday() - 5) % 7 or 7)
        return saturday + timedelta(days=7) if parts["direction"].lower() == "next" else saturday
    if kind == "relative_day":
        return today + timedelta(days=RELATIVE_DAYS[parts["word"].lower()])
    return None


def dates_in(text: str, *, reference: datetime) -> list[DateMention]:
    """Every date the text names, in text order; spans never overlap."""
    found: list[DateMention] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in DATE_PATTERNS:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            # Taken even when it names no real day ("31 February"): a shorter pattern must not reread it.
            taken.append((match.start(), match.end()))
            try:
                moment = _resolve(kind, {k: v for k, v in match.groupdict().items() if v}, reference)
            except (ValueError, OverflowError):
                moment = None
            if moment is None:
                continue
            found.append(DateMention(match.group(), match.start(), match.end(), format_timestamp(moment)))
    return sorted(found, key=lambda mention: mention.start)


def quantities_in(text: str) -> list[QuantityMention]:
    return [QuantityMention(match.group(), match.start(), match.end()) for match in QUANTITY.finditer(text)]
