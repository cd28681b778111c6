"""The relevance floor of cosine search, chosen by cross-validation: the highest similarity below which dropping
candidates costs the shared questions no recall on the training folds, scored on the held-out fold.

Cosine always answers: the nearest vectors of a nonsense query are still the nearest. BM25 answers nothing when no
word matches. So whether a search can say "nothing relevant" rests on a floor under cosine similarity
(ScopeConfig.sim_min_score), and a floor is only worth setting if real questions' answers sit above it while
nonsense sits below.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from memoria.evaluation.crossval import DEFAULT_FOLDS, SEED, CrossValidation, Difference, cross_validate
from memoria.evaluation.crossval import paired_bootstrap as bootstrap
from memoria.evaluation.dense import DenseIndex, Embed
from memoria.evaluation.runner import Question

# Candidate floors, highest first: on equal training recall the highest wins, which is the point of a floor.
FLOORS: tuple[float, ...] = tuple(round(0.05 * step, 2) for step in range(12, -1, -1))  # 0.60 … 0.00
# Queries no memory can answer; their best similarity must fall at or under the floor for the answer to be empty.
NONSENSE: tuple[str, ...] = ("zzqqxxyy", "qwpoeiruty", "asdfghjkl", "xkcd zzz qqq vvv", "blorf snarp quibble")


@dataclass(frozen=True)
class Ranked:
    """A question's best items by cosine, best first, with their similarities and whether each answers it."""

    similarities: tuple[float, ...]
    hits: tuple[bool, ...]
    relevant: int  # how many items answer the question, found or not


def ranked(index: DenseIndex, vector: Sequence[float], relevant: frozenset[str], depth: int) -> Ranked:
    found = index.scored(vector, depth)
    return Ranked(tuple(score for _, score in found), tuple(item in relevant for item, _ in found), len(relevant))


def recall_at_floor(question: Ranked, *, k: int, floor: float) -> float:
    """Recall@k once candidates at or under `floor` are dropped, as search drops them (strictly above is kept)."""
    kept = sum(hit for score, hit in zip(question.similarities[:k], question.hits[:k], strict=True) if score > floor)
    return kept / question.relevant


@dataclass(frozen=True)
class FloorChoice:
    k: int
    validation: CrossValidation  # settings named by the floor, "0.35"
    loss: Difference  # held-out recall minus recall without a floor, paired over the questions
    nonsense: dict[str, float]  # each nonsense query's best similarity in the collection

    def floors(self) -> list[float]:
        return [float(fold.chosen) for fold in self.validation.folds]

    def empty_for(self, floor: float) -> list[str]:
        """The nonsense queries that a cosine search with this floor answers with nothing."""
        return [query for query, best in self.nonsense.items() if best <= floor]


def floor_choose(
    questions: Sequence[Ranked],
    *,
    k: int,
    nonsense: dict[str, float],
    floors: Sequence[float] = FLOORS,
    folds: int = DEFAULT_FOLDS,
    seed: int = SEED,
) -> FloorChoice:
    """Cross-validate the floor at recall@k: each fold gets the highest floor with the best training recall."""
    ordered = sorted(set(floors), reverse=True)
    scores = {f"{floor:.2f}": [recall_at_floor(q, k=k, floor=floor) for q in questions] for floor in ordered}
    validation = cross_validate(scores, folds=min(folds, len(questions)), seed=seed)
    unfloored = [recall_at_floor(q, k=k, floor=-1.0) for q in questions]
    return FloorChoice(k, validation, bootstrap(validation.held_out, unfloored), nonsense)


def nonsense_best(index: DenseIndex, vectors: Sequence[Sequence[float]], queries: Sequence[str]) -> dict[str, float]:
    """Each query's highest similarity to any item: above the floor, its search still answers."""
    return {
        query: index.scored(vector, 1)[0][1] if len(index) else float(np.nan)
        for query, vector in zip(queries, vectors, strict=True)
    }


@dataclass
class FloorInputs:
    """What the floor is chosen from, gathered over one or more collections (a LoCoMo group each)."""

    questions: list[Ranked] = field(default_factory=list)
    nonsense: dict[str, float] = field(default_factory=dict)  # the best similarity over every collection

    def add(self, index: DenseIndex, questions: Iterable[Question], *, embed: Embed, depth: int) -> None:
        """The questions ranked by cosine over this collection, and the nonsense queries' best similarity in it."""
        chosen = list(questions)
        if chosen:
            vectors = embed([question.text for question in chosen])
            self.questions.extend(
                ranked(index, vector, question.relevant, depth)
                for question, vector in zip(chosen, vectors, strict=True)
            )
        for query, best in nonsense_best(index, embed(list(NONSENSE)), NONSENSE).items():
            self.nonsense[query] = max(best, self.nonsense.get(query, best))


def floor_lines(choice: FloorChoice) -> list[str]:
    """The chosen floor per fold with its held-out recall, the loss against no floor, and what nonsense gets."""
    folds = choice.validation.folds
    lowest = min(choice.floors())
    lines = [
        f"cosine relevance floor at recall@{choice.k} (baseline's cosine, {choice.loss.questions} questions, "
        f"{len(folds)} folds, seed {SEED}; candidates {max(FLOORS):.2f} … {min(FLOORS):.2f}, "
        "each fold takes the highest with the best training recall):",
        "  " + "  ".join(f"fold {f.fold}: floor {f.chosen}, held-out recall {f.test:.3f}" for f in folds),
    ]
    interval = "n/a" if choice.loss.low is None else f"[{choice.loss.low:+.3f}, {choice.loss.high:+.3f}]"
    lines.append(f"  held-out recall − recall without a floor: {choice.loss.mean:+.4f} {interval}")
    best = ", ".join(f"{query!r} {value:.3f}" for query, value in choice.nonsense.items())
    lines.append(f"  nonsense queries' best similarity: {best}")
    lines.append(
        f"  answered with nothing under the lowest chosen floor ({lowest:.2f}): "
        f"{len(choice.empty_for(lowest))} of {len(choice.nonsense)}"
    )
    return lines


def floor_json(choice: FloorChoice) -> dict:
    return {
        "k": choice.k,
        "folds": [
            {"fold": f.fold, "floor": float(f.chosen), "train": f.train, "test": f.test, "questions": f.questions}
            for f in choice.validation.folds
        ],
        "held_out_recall": choice.validation.mean,
        "minus_no_floor": {"mean": choice.loss.mean, "low": choice.loss.low, "high": choice.loss.high},
        "nonsense_best": choice.nonsense,
        "nonsense_empty_at_lowest": choice.empty_for(min(choice.floors())),
    }
