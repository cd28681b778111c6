"""LoCoMo evidence recall: each conversation's questions, scored against the turns their `evidence` names.

A question counts in the row of its category; category 5 (adversarial: the question pins on one speaker what the
other said) is scored by its listed evidence like the others but reported apart, outside "all".
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings

from memoria.datasets.locomo import conversation_data, conversation_name, locomo_episodes
from memoria.errors import InvalidInput
from memoria.evaluation.dense import DenseIndex, Embed, dense_retriever
from memoria.evaluation.floor import FloorInputs
from memoria.evaluation.memory import (
    EPISODE_RECIPE,
    FACT_RECIPE,
    HYBRID_RECIPE,
    TEXT_EPISODE_RECIPE,
    episode_search,
    fact_limit,
    fact_search,
    hybrid_search,
    recipe_described,
)
from memoria.evaluation.reading import items_read
from memoria.evaluation.recall import RecallTable
from memoria.evaluation.records import CATEGORIES, LocomoQuestionRecord, evaluation_record
from memoria.evaluation.report import ReportRow
from memoria.evaluation.runner import Question, retrievers_run
from memoria.evaluation.stored import stored_count
from memoria.ingest.episodes import EpisodeInput

ADVERSARIAL = 5
METHODS: dict[str, str] = {
    "episodes": "episode search",
    "facts": "fact search → episodes",
    "hybrid": "hybrid recipe",
    "episodes_text": "episode search, text only",
    "dense": "dense baseline",
}
BASELINE = "dense"
# The memory's own methods: the cross-validated block picks the best of them on the training folds, the simplest
# first so that a tie keeps it.
CANDIDATES = ("episodes", "facts", "hybrid")
# Evidence entries may hold several ids in one string ("D8:6; D9:17", "D9:1 D4:4 D4:6"), zero-padded turns
# ("D30:05") or a stray colon ("D:11:26"): each id is read as session and turn numbers.
EVIDENCE_ID = re.compile(r"D:?(\d+):(\d+)")


def category_label(category: int) -> str:
    return f"{category} {CATEGORIES[category]}"


REPORT_ROWS: tuple[ReportRow, ...] = (
    *(
        ReportRow(category_label(number), frozenset({category_label(number)}))
        for number in CATEGORIES
        if number != ADVERSARIAL
    ),
    ReportRow(
        f"all but {ADVERSARIAL}",
        frozenset(category_label(number) for number in CATEGORIES if number != ADVERSARIAL),
        rule=True,
    ),
    ReportRow(category_label(ADVERSARIAL), frozenset({category_label(ADVERSARIAL)}), rule=True),
)


@dataclass(frozen=True)
class LocomoQuestion:
    index: int  # position in the file's `qa` list
    question: str
    category: int
    evidence: tuple[str, ...]  # dia_ids as listed, combined entries split


@dataclass(frozen=True)
class LocomoConversation:
    """One file, read and checked: its turns as episodes of `group`, and its questions as scored questions."""

    path: Path
    name: str
    group: str
    episodes: list[EpisodeInput]
    questions: list[Question]
    # Questions the data gives no usable evidence for, and evidence ids that name no turn: counted, not scored.
    without_evidence: list[str] = field(default_factory=list)
    unknown_evidence: list[str] = field(default_factory=list)


def dia_id_key(dia_id: str) -> str:
    """A turn's id as evidence names it, whatever its padding: "D30:05" and "D30:5" are one turn."""
    found = EVIDENCE_ID.fullmatch(dia_id.strip())
    return f"D{int(found.group(1))}:{int(found.group(2))}" if found else dia_id.strip()


def _evidence_ids(raw: list[str]) -> tuple[str, ...]:
    """Every turn id an evidence list names; entries that name none ("D") are kept as they are, to be counted
    as unknown evidence."""
    ids: list[str] = []
    for entry in raw:
        found = [f"D{int(session)}:{int(turn)}" for session, turn in EVIDENCE_ID.findall(entry)]
        ids.extend(found or ([entry.strip()] if entry.strip() else []))
    return tuple(dict.fromkeys(ids))


def _question(item: Any, index: int, where: str, problems: list[str]) -> LocomoQuestion | None:
    record = evaluation_record(LocomoQuestionRecord, item, where, problems)
    if record is None:
        return None
    return LocomoQuestion(index, record.question.strip(), record.category, _evidence_ids(record.evidence))


def locomo_questions(path: Path) -> list[LocomoQuestion]:
    """The file's `qa` list, every item checked; InvalidInput names each bad position."""
    data = conversation_data(path)
    if "qa" not in data:
        raise InvalidInput(f"{path}: has no 'qa' list of questions")
    if not isinstance(data["qa"], list):
        raise InvalidInput(f"{path}: 'qa' must be a list of questions")
    return items_read(
        data["qa"], lambda index, item, problems: _question(item, index, f"{path}: qa[{index}]", problems)
    )


def locomo_conversation(path: Path, *, group: str, limit_questions: int | None = None) -> LocomoConversation:
    """Read one conversation's turns and (the first `limit_questions` of) its questions, evidence mapped to the
    ids of the turns' episodes in `group`.
    """
    episodes = locomo_episodes(path, group=group)
    questions = locomo_questions(path)[:limit_questions]
    episode_ids = {dia_id_key(episode.name or ""): episode.id for episode in episodes}
    conversation = LocomoConversation(path, conversation_name(path), group, episodes, [])
    for item in questions:
        key = f"{path.name} qa[{item.index}]"
        unknown = [dia_id for dia_id in item.evidence if dia_id not in episode_ids]
        conversation.unknown_evidence.extend(f"{key}: {dia_id!r}" for dia_id in unknown)
        relevant = frozenset(episode_ids[dia_id] for dia_id in item.evidence if dia_id in episode_ids)
        if not relevant:
            conversation.without_evidence.append(key)
            continue
        conversation.questions.append(Question(key, item.question, category_label(item.category), relevant))
    return conversation


@dataclass
class LocomoEvaluation:
    table: RecallTable
    conversations: list[LocomoConversation]
    dense_index_seconds: float = 0.0  # embedding every turn for the baseline
    seconds: float = 0.0
    floor: FloorInputs = field(default_factory=FloorInputs)  # the baseline's cosine, for the relevance floor


def locomo_evaluate(
    conversations: Sequence[LocomoConversation],
    *,
    ks: tuple[int, ...],
    embed: Embed,
    progress: Callable[[Question], None] | None = None,
) -> LocomoEvaluation:
    """Score the four retrievers on every question, each conversation searched in its own group."""
    started = time.perf_counter()
    depth = max(ks)
    evaluation = LocomoEvaluation(RecallTable(ks=ks, methods=tuple(METHODS)), list(conversations))
    for conversation in conversations:
        indexing = time.perf_counter()
        index = DenseIndex.build(
            ids=[episode.id for episode in conversation.episodes],
            texts=[episode.content for episode in conversation.episodes],
            embed=embed,
        )
        evaluation.dense_index_seconds += time.perf_counter() - indexing
        retrievers = {
            "episodes": episode_search(group=conversation.group, limit=depth),
            "facts": fact_search(group=conversation.group, limit=depth),
            "hybrid": hybrid_search(group=conversation.group, limit=depth),
            "episodes_text": episode_search(group=conversation.group, limit=depth, name=TEXT_EPISODE_RECIPE),
            "dense": dense_retriever(index, embed=embed, limit=depth),
        }
        retrievers_run(evaluation.table, questions=conversation.questions, retrievers=retrievers, progress=progress)
        evaluation.floor.add(index, conversation.questions, embed=embed, depth=depth)
    evaluation.seconds = time.perf_counter() - started
    return evaluation


def methods_described(*, depth: int, model: str) -> dict[str, dict[str, Any]]:
    """What each method ran, for the output and the JSON: recipes with their settings, and the baseline's model."""
    return {
        "episodes": recipe_described(EPISODE_RECIPE, limit=depth),
        "facts": recipe_described(FACT_RECIPE, limit=fact_limit(depth)) | {"counted": "the episodes of its facts"},
        "hybrid": recipe_described(HYBRID_RECIPE, limit=depth)
        | {"counted": "RRF of its episodes and its facts' episodes"},
        "episodes_text": recipe_described(TEXT_EPISODE_RECIPE, limit=depth),
        "dense": {"model": model, "text": "speaker: text", "similarity": "exact cosine, numpy"},
    }


def default_locomo_dir() -> Path:
    """The shared datasets folder beside the repository (../shared/datasets/locomo)."""
    return Path(settings.BASE_DIR).parent / "shared" / "datasets" / "locomo"


def stored_turns(conversation: LocomoConversation) -> int:
    """How many of the conversation's turns its group holds already."""
    return stored_count(group=conversation.group, ids=[episode.id for episode in conversation.episodes])
