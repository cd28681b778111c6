"""Ask every retriever every question, timing each answer, and record its recall in a RecallTable."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from memoria.evaluation.recall import RecallTable

# A retriever answers a question's text with item ids, best first (the ids its questions' relevant items use).
Retriever = Callable[[str], Sequence[str]]


@dataclass(frozen=True)
class Question:
    """One scored question: `label` is the report row it counts in, `relevant` the items that hold its answer."""

    key: str
    text: str
    label: str
    relevant: frozenset[str]


def retrievers_run(
    table: RecallTable,
    *,
    questions: Sequence[Question],
    retrievers: Mapping[str, Retriever],
    progress: Callable[[Question], None] | None = None,
) -> None:
    """Methods take turns question by question, so a slow spell of the machine falls on all of them alike."""
    missing = [method for method in table.methods if method not in retrievers]
    if missing:
        raise ValueError(f"no retriever for {', '.join(missing)}")
    for question in questions:
        for method in table.methods:
            started = time.perf_counter()
            found = retrievers[method](question.text)
            seconds = time.perf_counter() - started
            table.record(
                key=question.key,
                label=question.label,
                method=method,
                retrieved=found,
                relevant=question.relevant,
                seconds=seconds,
            )
        if progress is not None:
            progress(question)
