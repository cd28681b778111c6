"""`bench embeddings`: each embedding backend's throughput (texts/s, and its ratio to torch fp32 timed in the same
process, rounds interleaved so a busy spell of the machine falls on all alike) and, with shared data, its dense
recall on the evaluation questions, with a paired bootstrap interval of its difference to torch.

Recall here is the evaluation commands' dense baseline (memoria/evaluation/dense.py: the model's exact cosine, no
graph), which docs/evaluation.md shows agrees with a cosine-only episode search; MuSiQue is scored at 2 and 5
passages, LoCoMo at 10 turns over categories 1-4.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memoria.embeddings import TORCH, Embedder, embedder_load
from memoria.evaluation.crossval import paired_bootstrap
from memoria.evaluation.dense import DenseIndex
from memoria.evaluation.locomo import ADVERSARIAL, category_label, locomo_conversation
from memoria.evaluation.musique import dense_text, musique_set
from memoria.evaluation.recall import recall_at

LOCOMO_K = 10
MUSIQUE_KS = (2, 5)
Say = Callable[[str], None]


@dataclass
class BackendFigures:
    backend: str
    model_id: str
    load_seconds: float
    rates: list[float] = field(default_factory=list)  # texts/s of wall time, each timed round
    # texts per second of this process's CPU time (all its threads), each round: steadier than wall time when other
    # work shares the cores, though contention slows each CPU second too
    cpu_rates: list[float] = field(default_factory=list)
    recalls: dict[str, list[float]] = field(default_factory=dict)  # measure → each question's recall, in order

    @property
    def median_rate(self) -> float:
        return statistics.median(self.rates)

    @property
    def median_cpu_rate(self) -> float:
        return statistics.median(self.cpu_rates)


def load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} cores)"


def sample_texts(data_dir: Path, count: int) -> list[str]:
    """Real short texts to time: LoCoMo turns as ingestion embeds them; synthetic sentences without the data."""
    texts: list[str] = []
    for path in sorted((data_dir / "locomo").glob("conversation-*.json")):
        texts.extend(episode.content for episode in locomo_conversation(path, group="bench-embeddings").episodes)
        if len(texts) >= count:
            return texts[:count]
    if texts:
        return (texts * (count // len(texts) + 1))[:count]
    return [f"Supplier {i} ships {i % 7} pallets of steel to the depot in Porto on day {i % 31}" for i in range(count)]


def throughput_rounds(models: dict[str, Embedder], texts: list[str], runs: int, figures: dict[str, BackendFigures]):
    for model in models.values():
        model.embed(texts[: model.batch_size])  # warm-up: first-call allocations are not throughput
    for _ in range(runs):
        for backend, model in models.items():
            started, cpu = time.perf_counter(), time.process_time()
            model.embed(texts)
            figures[backend].rates.append(len(texts) / (time.perf_counter() - started))
            figures[backend].cpu_rates.append(len(texts) / max(time.process_time() - cpu, 1e-9))


def musique_recalls(model: Embedder, directory: Path) -> dict[str, list[float]]:
    dataset = musique_set(directory, group="bench-embeddings")
    index = DenseIndex.build(
        ids=dataset.episode_ids(), texts=[dense_text(p) for p in dataset.passages], embed=model.embed
    )
    queries = model.embed([question.text for question in dataset.questions])
    ranked = [index.rank(vector, max(MUSIQUE_KS)) for vector in queries]
    return {
        f"MuSiQue R@{k}": [recall_at(found, q.relevant, k) for found, q in zip(ranked, dataset.questions, strict=True)]
        for k in MUSIQUE_KS
    }


def locomo_recalls(model: Embedder, directory: Path) -> dict[str, list[float]]:
    adversarial = category_label(ADVERSARIAL)
    recalls: list[float] = []
    for path in sorted(directory.glob("conversation-*.json")):
        conversation = locomo_conversation(path, group="bench-embeddings")
        episodes = conversation.episodes
        index = DenseIndex.build(ids=[e.id for e in episodes], texts=[e.content for e in episodes], embed=model.embed)
        questions = [question for question in conversation.questions if question.label != adversarial]
        queries = model.embed([question.text for question in questions])
        recalls.extend(
            recall_at(index.rank(vector, LOCOMO_K), question.relevant, LOCOMO_K)
            for vector, question in zip(queries, questions, strict=True)
        )
    return {f"LoCoMo R@{LOCOMO_K}": recalls} if recalls else {}


def embeddings_benchmark(
    *, backends: Sequence[str], texts: int, runs: int, data_dir: Path | None, recall: bool = True, say: Say
) -> dict[str, BackendFigures]:
    """Load each backend (torch first: the reference), time them round by round, then score recall if data."""
    order = [TORCH, *[backend for backend in backends if backend != TORCH]]
    models: dict[str, Embedder] = {}
    figures: dict[str, BackendFigures] = {}
    for backend in order:
        model = embedder_load(backend=backend)
        models[backend] = model
        figures[backend] = BackendFigures(backend, model.model_id, model.load_seconds)
    sample = sample_texts(data_dir or Path("/nonexistent"), texts)
    mean_words = sum(len(text.split()) for text in sample) / len(sample)
    batch = models[TORCH].batch_size
    say(f"timing {len(sample)} texts ({mean_words:.1f} words on average), batch {batch}, {runs} rounds each")
    say(f"  before: {load_line()}")
    throughput_rounds(models, sample, runs, figures)
    say(f"  after:  {load_line()}")
    if data_dir is not None and recall:
        for backend, model in models.items():
            if (data_dir / "musique").is_dir():
                figures[backend].recalls.update(musique_recalls(model, data_dir / "musique"))
            if (data_dir / "locomo").is_dir():
                figures[backend].recalls.update(locomo_recalls(model, data_dir / "locomo"))
    report(figures, say)
    return figures


def report(figures: dict[str, BackendFigures], say: Say) -> None:
    reference = figures[TORCH]
    measures = list(reference.recalls)
    header = (
        f"  {'backend':10s} {'model id':24s} {'load s':>7s} {'texts/s':>8s} {'× torch':>8s} "
        f"{'/CPU-s':>8s} {'× torch':>8s}"
    )
    say(header + "".join(f" {measure:>14s}" for measure in measures))
    for backend, figure in figures.items():
        line = (
            f"  {backend:10s} {figure.model_id:24s} {figure.load_seconds:7.2f} {figure.median_rate:8.0f} "
            f"{figure.median_rate / reference.median_rate:8.2f} {figure.median_cpu_rate:8.0f} "
            f"{figure.median_cpu_rate / reference.median_cpu_rate:8.2f}"
        )
        say(line + "".join(f" {statistics.mean(figure.recalls[measure]):14.3f}" for measure in measures))
    for backend, figure in figures.items():
        if backend == TORCH:
            continue
        for measure in measures:
            found = paired_bootstrap(figure.recalls[measure], reference.recalls[measure])
            interval = "n/a" if found.low is None else f"{found.low:+.4f}, {found.high:+.4f}"
            say(
                f"  {backend} − torch, {measure} ({found.questions} questions): {found.mean:+.4f} "
                f"[95 % paired bootstrap {interval}]"
            )
