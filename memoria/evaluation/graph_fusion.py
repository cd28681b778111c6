"""Choosing graph fusion's constants by k-fold cross-validation: the synonymy threshold, PPR's damping and the
graph's share of the final score (recipe `episodes_graph_fused`).

Every setting of the grid is scored on every question; `folds.row_folds` then picks, for each fold, the setting
best on the other folds and scores it on that one, and sets its held-out scores against dense with a paired
bootstrap. The threshold changes the stored graph, so the grid runs threshold by threshold: the group's inferred
synonymy edges are rewritten (memoria.linking.synonyms) and every (damping, weight) setting is asked every question
on that graph. At the end the group keeps the edges of the default threshold, so the store is left as
`infer_synonyms` would leave it.

Candidates are listed simplest first (no synonymy edges, HippoRAG's damping 0.5, the smaller graph share), so on a
tie the knob that has not earned a change keeps its plain value. A weight of 0 is cosine alone (the dense
baseline's ranking through the search engine): the grid may choose not to use the graph at all.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from memoria.evaluation.dense import DenseIndex, Embed
from memoria.evaluation.folds import RowFolds, row_folds
from memoria.evaluation.recall import RecallTable
from memoria.evaluation.report import ReportRow
from memoria.evaluation.runner import Question
from memoria.linking.synonyms import (
    DEFAULT_THRESHOLD,
    NameVectors,
    name_vectors,
    synonyms_infer,
    synonyms_remove,
)
from memoria.search.config import SearchMethod
from memoria.search.recipes import recipe
from memoria.search.service import search

RECIPE = "episodes_graph_fused"
BASELINE = "dense"
NO_SYNONYMS = None
COSINE = "cosine"
HYBRID = "hybrid"  # BM25 and cosine fused by RRF, as the default episodes recipe
TEXTS: dict[str, tuple[SearchMethod, ...]] = {
    COSINE: (SearchMethod.COSINE,),
    HYBRID: (SearchMethod.BM25, SearchMethod.COSINE),
}
THRESHOLDS: tuple[float | None, ...] = (NO_SYNONYMS, 0.95, 0.9)
DAMPINGS: tuple[float, ...] = (0.5, 0.8, 0.9)
WEIGHTS: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True)
class Setting:
    text: str  # COSINE or HYBRID: what the graph is fused with
    threshold: float | None
    damping: float
    weight: float

    @property
    def name(self) -> str:
        if self.weight == 0:
            return f"{self.text} alone"
        synonyms = "none" if self.threshold is None else f"{self.threshold:g}"
        return f"{self.text} + ppr (syn {synonyms}, d {self.damping:g}, w {self.weight:g})"


def settings_grid(
    texts: Sequence[str] = (COSINE, HYBRID),
    thresholds: Sequence[float | None] = THRESHOLDS,
    dampings: Sequence[float] = DAMPINGS,
    weights: Sequence[float] = WEIGHTS,
) -> list[Setting]:
    """The text methods alone first (the graph must earn its place: a tie keeps them), then every combination,
    simplest first (text, threshold, damping, weight, each in the order given)."""
    alone = [Setting(text, NO_SYNONYMS, dampings[0], 0.0) for text in texts]
    graph = [Setting(*values) for values in itertools.product(texts, thresholds, dampings, weights)]
    return alone + graph


def synonyms_set(*, group: str, threshold: float | None, names: NameVectors) -> int:
    """The group's inferred synonymy edges as `threshold` makes them (none for NO_SYNONYMS); how many it holds."""
    if threshold is None:
        synonyms_remove(group=group)
        return 0
    return synonyms_infer(group=group, threshold=threshold, names=names).pairs


def fused_retriever(*, group: str, limit: int, setting: Setting) -> Callable[[str], list[str]]:
    """The recipe with the setting's damping and graph share: what a caller of /api/search would run."""
    base = recipe(RECIPE, limit=limit)
    episodes = base.episodes
    assert episodes is not None  # an episodes recipe
    methods = (*TEXTS[setting.text], SearchMethod.PPR) if setting.weight > 0 else TEXTS[setting.text]
    config = replace(
        base,
        episodes=replace(episodes, methods=methods, graph_weight=setting.weight, ppr_damping=setting.damping),
    )

    def retrieve(text: str) -> list[str]:
        return [hit.id for hit in search(query=text, groups=[group], config=config).episodes]

    return retrieve


@dataclass
class FusionTuning:
    table: RecallTable
    settings: list[Setting]
    edges: dict[str, int]  # threshold name → inferred synonymy edges the group held while it was measured
    folds: RowFolds | None
    seconds: float


def fusion_tune(
    *,
    group: str,
    questions: Sequence[Question],
    dense: DenseIndex,
    embed: Embed,
    ks: tuple[int, ...],
    settings: Sequence[Setting],
    names: NameVectors | None = None,
    progress: Callable[[str], None] | None = None,
) -> FusionTuning:
    """Score dense and every setting on every question, then cross-validate the choice among the settings."""
    started = time.perf_counter()
    depth = max(ks)
    table = RecallTable(ks=ks, methods=(BASELINE, *(setting.name for setting in settings)))
    for question in questions:
        table.record(
            key=question.key,
            label=question.label,
            method=BASELINE,
            retrieved=dense.rank(embed([question.text])[0], depth),
            relevant=question.relevant,
            seconds=0.0,
        )
    found = names or name_vectors(group=group)
    edges: dict[str, int] = {}
    for threshold in dict.fromkeys(setting.threshold for setting in settings):
        label = "none" if threshold is None else f"{threshold:g}"
        edges[label] = synonyms_set(group=group, threshold=threshold, names=found)
        batch = [setting for setting in settings if setting.threshold == threshold]
        for setting in batch:
            if progress is not None:
                progress(setting.name)
            retrieve = fused_retriever(group=group, limit=depth, setting=setting)
            for question in questions:
                began = time.perf_counter()
                retrieved = retrieve(question.text)
                table.record(
                    key=question.key,
                    label=question.label,
                    method=setting.name,
                    retrieved=retrieved,
                    relevant=question.relevant,
                    seconds=time.perf_counter() - began,
                )
    synonyms_set(group=group, threshold=DEFAULT_THRESHOLD, names=found)
    labels = frozenset(question.label for question in questions)
    folds = row_folds(
        table,
        ReportRow("all", labels),
        baseline=BASELINE,
        candidates=[setting.name for setting in settings],
    )
    return FusionTuning(table, list(settings), edges, folds, time.perf_counter() - started)
