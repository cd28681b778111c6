"""Recall@k: the share of a question's relevant items among the first k distinct items a retriever returned.

Kept free of any dataset: LoCoMo counts evidence turns with it, MuSiQue supporting passages.
"""

from __future__ import annotations

import statistics
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from memoria.errors import InvalidInput
from memoria.evaluation.timing import percentile

MAX_K = 100


def distinct(items: Iterable[str]) -> list[str]:
    """First occurrences in order: an item returned twice must not take two of the k places."""
    return list(dict.fromkeys(items))


def recall_at(retrieved: Sequence[str], relevant: Collection[str], k: int) -> float:
    """|relevant ∩ first k distinct retrieved| / |relevant|; a question with nothing relevant cannot be scored."""
    wanted = set(relevant)
    if not wanted:
        raise ValueError("recall needs at least one relevant item")
    if k < 1:
        raise ValueError(f"k={k} must be at least 1")
    return len(wanted.intersection(distinct(retrieved)[:k])) / len(wanted)


def parse_ks(text: str, *, where: str = "--ks") -> tuple[int, ...]:
    """ "5,10,20" → (5, 10, 20): whole numbers in [1, MAX_K], sorted, each once."""
    parts = [part.strip() for part in text.split(",")]
    if not all(part.isdigit() for part in parts):
        raise InvalidInput(f"{where}: {text!r} must be comma-separated whole numbers, e.g. 5,10,20")
    ks = sorted({int(part) for part in parts})
    if ks[0] < 1 or ks[-1] > MAX_K:
        raise InvalidInput(f"{where}: every k must be in [1, {MAX_K}] (got {text!r})")
    return tuple(ks)


@dataclass(frozen=True)
class QuestionScore:
    """One question's recall at each k for one method, and how long the method took to answer it."""

    key: str
    label: str
    method: str
    recalls: tuple[float, ...]
    seconds: float
    retrieved: int  # distinct items the method returned, so a short list can be told from a wrong one


@dataclass
class RecallTable:
    """Every question's scores, method by method; averages are taken over any set of row labels."""

    ks: tuple[int, ...]
    methods: tuple[str, ...]
    scores: list[QuestionScore] = field(default_factory=list)

    def record(
        self, *, key: str, label: str, method: str, retrieved: Sequence[str], relevant: Collection[str], seconds: float
    ) -> QuestionScore:
        if method not in self.methods:
            raise ValueError(f"method {method!r} is not one of {', '.join(self.methods)}")
        score = QuestionScore(
            key=key,
            label=label,
            method=method,
            recalls=tuple(recall_at(retrieved, relevant, k) for k in self.ks),
            seconds=seconds,
            retrieved=len(distinct(retrieved)),
        )
        self.scores.append(score)
        return score

    def _selected(self, method: str, labels: Collection[str]) -> list[QuestionScore]:
        return [score for score in self.scores if score.method == method and score.label in labels]

    def count(self, labels: Collection[str]) -> int:
        """Questions scored under these labels (every method scores the same questions)."""
        return len(self._selected(self.methods[0], labels)) if self.methods else 0

    def mean_recall(self, method: str, labels: Collection[str], k: int) -> float | None:
        """The mean over the questions (macro), None when no question has these labels."""
        chosen = self._selected(method, labels)
        if not chosen:
            return None
        column = self.ks.index(k)
        return statistics.fmean(score.recalls[column] for score in chosen)

    def column(self, method: str, labels: Collection[str], k: int) -> tuple[list[str], list[float]]:
        """The keys and recall@k of the method's questions under these labels, in the order they were asked, which
        is the same for every method (retrievers_run asks each question of all of them in turn)."""
        chosen = self._selected(method, labels)
        column = self.ks.index(k)
        return [score.key for score in chosen], [score.recalls[column] for score in chosen]

    def mean_retrieved(self, method: str) -> float | None:
        chosen = [score.retrieved for score in self.scores if score.method == method]
        return statistics.fmean(chosen) if chosen else None

    def latency(self, method: str) -> dict[str, float]:
        """p50/p95 in milliseconds and the total in seconds of the method's answers."""
        seconds = [score.seconds for score in self.scores if score.method == method]
        if not seconds:
            return {"questions": 0, "p50_ms": 0.0, "p95_ms": 0.0, "total_s": 0.0}
        return {
            "questions": len(seconds),
            "p50_ms": statistics.median(seconds) * 1000,
            "p95_ms": percentile(seconds, 0.95) * 1000,
            "total_s": sum(seconds),
        }
