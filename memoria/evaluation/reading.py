"""Reading the items of an evaluation file: every bad one is named (up to MAX_PROBLEMS), and none is half-used."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from memoria.errors import InvalidInput

T = TypeVar("T")

MAX_PROBLEMS = 50


def items_read(raw: Iterable[Any], read: Callable[[int, Any, list[str]], T | None]) -> list[T]:
    """Each item through `read(index, item, problems)`, which names what is wrong in `problems` and answers None
    for a bad item. Stops after MAX_PROBLEMS, and raises InvalidInput with them if there were any."""
    problems: list[str] = []
    found: list[T] = []
    for index, item in enumerate(raw):
        value = read(index, item, problems)
        if value is not None:
            found.append(value)
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise InvalidInput(problems)
    return found
