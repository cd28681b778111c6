"""MuSiQue passage recall (HippoRAG's metric): each question's supporting passages among the top k passages of
dense retrieval, PPR, relation-aware PPR and the episodes recipes (the default one and the graph-fused one) over
the group that `load_musique` filled.

A question's gold passages are found in its own `paragraphs` list (`is_supporting: true`) and matched to the
corpus by title and text, so a score counts the same episode `mq:<group>:p<i>` that the loader wrote for passage i.
Rows are by the number of supporting passages, which is the question's number of hops in MuSiQue.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings

from memoria.datasets.musique import CORPUS_FILE, EPISODE_ID, read_list
from memoria.errors import InvalidInput
from memoria.evaluation.dense import DenseIndex, Embed, dense_retriever
from memoria.evaluation.floor import FloorInputs
from memoria.evaluation.memory import EPISODE_RECIPE, TEXT_EPISODE_RECIPE, episode_search, recipe_described
from memoria.evaluation.reading import items_read
from memoria.evaluation.recall import RecallTable
from memoria.evaluation.records import (
    MusiqueParagraph,
    MusiquePassageRecord,
    MusiqueQuestionRecord,
    evaluation_record,
)
from memoria.evaluation.report import ReportRow
from memoria.evaluation.runner import Question, Retriever, retrievers_run
from memoria.evaluation.stored import stored_count
from memoria.linking.synonyms import inferred_count
from memoria.ppr.request import MAX_TOP_K, PprRequest
from memoria.ppr.service import ppr_run
from memoria.projection.cache import ProjectionCache

QUERIES_FILE = "queries.json"
METHODS: dict[str, str] = {
    "dense": "dense passages",
    "ppr": "PPR",
    "relation_ppr": "relation-aware PPR",
    "episodes": "episode search",
    "graph_fused": "graph-fused episodes",
    "episodes_text": "episode search, text only",
}
BASELINE = "dense"
# The graph methods; the cross-validated block picks the best on training folds.
CANDIDATES = ("ppr", "relation_ppr", "graph_fused")
GRAPH_FUSED_RECIPE = "episodes_graph_fused"
# The first PPR of a run waits for the group's projection to load (seconds); a bigger corpus only waits longer.
PROJECTION_WAIT = 600.0
ALL = "all"


def hops_label(hops: int) -> str:
    return f"{hops}-hop"


@dataclass(frozen=True)
class MusiquePassage:
    title: str
    text: str


@dataclass(frozen=True)
class MusiqueQuestion:
    index: int  # position in queries.json
    id: str  # the dataset's own id, e.g. "2hop__…", kept for reading the per-question figures
    question: str
    supporting: tuple[int, ...]  # corpus indexes of the gold passages, in the question's order


@dataclass(frozen=True)
class MusiqueSet:
    """The corpus and its questions, read and checked, with the episode ids they have in `group`."""

    directory: Path
    group: str
    passages: list[MusiquePassage]
    questions: list[Question]
    hops: tuple[int, ...]  # the hop counts present, ascending: one report row each

    def episode_ids(self) -> list[str]:
        return [passage_id(self.group, index) for index in range(len(self.passages))]


def passage_id(group: str, index: int) -> str:
    """The loader's episode id for passage `index` (memoria/datasets/musique.py)."""
    return EPISODE_ID.format(group=group, index=index)


def musique_passages(directory: Path) -> list[MusiquePassage]:
    """corpus.json's passages; the loader checks the rest of the file, here only what scoring needs."""

    def passage(index: int, item: Any, problems: list[str]) -> MusiquePassage | None:
        record = evaluation_record(MusiquePassageRecord, item, f"{CORPUS_FILE}[{index}]", problems, whole=True)
        return None if record is None else MusiquePassage(record.title, record.text)

    return items_read(read_list(Path(directory), CORPUS_FILE), passage)


def _question(
    item: Any, index: int, where: str, corpus: dict[tuple[str, str], int], problems: list[str]
) -> MusiqueQuestion | None:
    before = len(problems)
    question = evaluation_record(MusiqueQuestionRecord, item, where, problems)
    if question is not None:
        paragraphs = question.paragraphs
    elif isinstance(item, dict) and item.keys() >= MusiqueQuestionRecord.model_fields.keys():
        paragraphs = item["paragraphs"]  # a bad id or question: its paragraphs are named too, in the same run
        if not isinstance(paragraphs, list):
            return None
    else:
        return None
    supporting: list[int] = []
    for position, paragraph in enumerate(paragraphs):
        at = f"{where}.paragraphs[{position}]"
        record = evaluation_record(MusiqueParagraph, paragraph, at, problems, whole=True)
        if record is None or not record.is_supporting:
            continue
        found = corpus.get((record.title, record.paragraph_text))
        if found is None:
            problems.append(f"{at}: supporting passage {record.title!r} is not in {CORPUS_FILE} (title + text)")
        elif found not in supporting:
            supporting.append(found)
    if question is None or len(problems) > before:
        return None
    if not supporting:
        problems.append(f"{where}.paragraphs: none has is_supporting true, so the question cannot be scored")
        return None
    return MusiqueQuestion(index, question.id, question.question.strip(), tuple(supporting))


def musique_questions(directory: Path, passages: Sequence[MusiquePassage]) -> list[MusiqueQuestion]:
    """queries.json, every question checked and its gold passages matched; InvalidInput names each bad place."""
    raw = read_list(Path(directory), QUERIES_FILE)
    corpus: dict[tuple[str, str], int] = {}
    for index, passage in enumerate(passages):
        corpus.setdefault((passage.title, passage.text), index)  # a repeated passage: the first, as HippoRAG
    questions = items_read(
        raw, lambda index, item, problems: _question(item, index, f"{QUERIES_FILE}[{index}]", corpus, problems)
    )
    if not questions:
        raise InvalidInput(f"{QUERIES_FILE}: holds no questions")
    return questions


def musique_set(directory: Path, *, group: str, limit_questions: int | None = None) -> MusiqueSet:
    """Read both files (the first `limit_questions` questions), gold passages as the group's episode ids."""
    passages = musique_passages(directory)
    questions = musique_questions(directory, passages)[:limit_questions]
    scored = [
        Question(
            key=f"{item.index}:{item.id}",
            text=item.question,
            label=hops_label(len(item.supporting)),
            relevant=frozenset(passage_id(group, index) for index in item.supporting),
        )
        for item in questions
    ]
    hops = tuple(sorted({len(item.supporting) for item in questions}))
    return MusiqueSet(Path(directory), group, passages, scored, hops)


def report_rows(hops: Sequence[int]) -> tuple[ReportRow, ...]:
    labels = [hops_label(count) for count in hops]
    return (
        *(ReportRow(label, frozenset({label})) for label in labels),
        ReportRow(ALL, frozenset(labels), rule=True),
    )


def stored_passages(dataset: MusiqueSet) -> int:
    """How many of the corpus's passages the group holds already."""
    return stored_count(group=dataset.group, ids=dataset.episode_ids())


def dense_text(passage: MusiquePassage) -> str:
    """Title and text, as HippoRAG embeds a passage for its dense retrievers: the title often names the entity."""
    return f"{passage.title}\n{passage.text}"


def ppr_retriever(*, group: str, limit: int, relation_aware: bool, cache: ProjectionCache | None = None) -> Retriever:
    """PPR from the query's seeds (entity search, or facts + episodes when relation-aware), ranked passages."""
    top_k = min(limit, MAX_TOP_K)

    def retrieve(text: str) -> list[str]:
        request = PprRequest(group=group, query=text, top_k=top_k, relation_aware=relation_aware)
        return [node.id for node in ppr_run(request, cache=cache, wait=PROJECTION_WAIT).passages]

    return retrieve


def methods_described(*, group: str, depth: int, model: str) -> dict[str, dict[str, Any]]:
    """What each method ran: the baseline's model, and each PPR's whole request but the query."""
    described: dict[str, dict[str, Any]] = {
        "dense": {"model": model, "text": "title + text", "similarity": "exact cosine, numpy"}
    }
    for method, relation_aware in (("ppr", False), ("relation_ppr", True)):
        request = PprRequest(group=group, top_k=min(depth, MAX_TOP_K), relation_aware=relation_aware)
        described[method] = {"ppr_request": {key: value for key, value in asdict(request).items() if key != "query"}}
    described["episodes"] = recipe_described(EPISODE_RECIPE, limit=depth)
    described["graph_fused"] = recipe_described(GRAPH_FUSED_RECIPE, limit=depth) | {
        "synonymy_edges": inferred_count(group),
    }
    described["episodes_text"] = recipe_described(TEXT_EPISODE_RECIPE, limit=depth)
    return described


@dataclass
class MusiqueEvaluation:
    table: RecallTable
    dataset: MusiqueSet
    dense_index_seconds: float = 0.0  # embedding every passage for the baseline
    seconds: float = 0.0
    gains: dict[str, dict[int, float]] = field(default_factory=dict)  # method → k → points above the baseline
    floor: FloorInputs = field(default_factory=FloorInputs)  # the baseline's cosine, for the relevance floor


def musique_evaluate(
    dataset: MusiqueSet,
    *,
    ks: tuple[int, ...],
    embed: Embed,
    cache: ProjectionCache | None = None,
    progress: Callable[[Question], None] | None = None,
) -> MusiqueEvaluation:
    """Score every retriever on every question, then each one's gain over dense in recall points."""
    started = time.perf_counter()
    depth = max(ks)
    evaluation = MusiqueEvaluation(RecallTable(ks=ks, methods=tuple(METHODS)), dataset)
    indexing = time.perf_counter()
    index = DenseIndex.build(
        ids=dataset.episode_ids(), texts=[dense_text(passage) for passage in dataset.passages], embed=embed
    )
    evaluation.dense_index_seconds = time.perf_counter() - indexing
    retrievers = {
        "dense": dense_retriever(index, embed=embed, limit=depth),
        "episodes": episode_search(group=dataset.group, limit=depth),
        "graph_fused": episode_search(group=dataset.group, limit=depth, name=GRAPH_FUSED_RECIPE),
        "episodes_text": episode_search(group=dataset.group, limit=depth, name=TEXT_EPISODE_RECIPE),
        "ppr": ppr_retriever(group=dataset.group, limit=depth, relation_aware=False, cache=cache),
        "relation_ppr": ppr_retriever(group=dataset.group, limit=depth, relation_aware=True, cache=cache),
    }
    retrievers_run(evaluation.table, questions=dataset.questions, retrievers=retrievers, progress=progress)
    evaluation.floor.add(index, dataset.questions, embed=embed, depth=depth)
    evaluation.gains = baseline_gains(evaluation.table, labels=frozenset(q.label for q in dataset.questions))
    evaluation.seconds = time.perf_counter() - started
    return evaluation


def baseline_gains(table: RecallTable, *, labels: frozenset[str]) -> dict[str, dict[int, float]]:
    """Recall points (× 100) each method adds to the dense baseline at each k, over all the questions."""
    gains: dict[str, dict[int, float]] = {}
    for method in table.methods:
        if method == BASELINE:
            continue
        gains[method] = {}
        for k in table.ks:
            ours, base = table.mean_recall(method, labels, k), table.mean_recall(BASELINE, labels, k)
            if ours is not None and base is not None:
                gains[method][k] = (ours - base) * 100
    return gains


def default_musique_dir() -> Path:
    """The shared datasets folder beside the repository (../shared/datasets/musique)."""
    return Path(settings.BASE_DIR).parent / "shared" / "datasets" / "musique"
