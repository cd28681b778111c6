"""`evaluate locomo`: evidence recall@k of the memory's searches beside a dense baseline; `evaluate musique`: passage
recall@k of dense retrieval, PPR, relation-aware PPR and the episodes recipes; `evaluate context`: the share of a
question's evidence in the context block per token budget, beside dense and BM25 + dense filling the same budget
(docs/evaluation.md)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from memoria.accounts.roles import check_group_name
from memoria.context.request import MAX_BUDGET_TOKENS, MIN_BUDGET_TOKENS
from memoria.datasets.locomo import conversation_name
from memoria.datasets.musique import build_musique
from memoria.embeddings import Embedder, embedder
from memoria.errors import EmbeddingModelError, GraphUnavailable, InvalidInput
from memoria.evaluation import context as context_evaluation
from memoria.evaluation import graph_fusion
from memoria.evaluation import locomo as evaluation
from memoria.evaluation import musique as musique_evaluation
from memoria.evaluation import preceding_tune as preceding_tuning
from memoria.evaluation.dense import DenseIndex
from memoria.evaluation.floor import FloorInputs, floor_choose, floor_json, floor_lines
from memoria.evaluation.folds import folds_json, folds_markdown, folds_text, row_folds
from memoria.evaluation.locomo import LocomoConversation, stored_turns
from memoria.evaluation.recall import RecallTable, parse_ks
from memoria.evaluation.report import ReportRow, recall_json, recall_markdown, recall_text, timing_lines
from memoria.graph.health import graph_health
from memoria.graph.schema import schema_install
from memoria.ingest.pipeline import DEFAULT_BATCH_SIZE
from memoria.interchange.document import parse_graph_document
from memoria.linking.synonyms import synonyms_infer
from memoria.management.commands._document_io import write_document
from memoria.management.commands._episode_io import episodes_ingest, ingest_options
from memoria.management.commands.bench import machine_line
from memoria.management.commands.load_locomo import CONVERSATIONS

DEFAULT_GROUP_PREFIX = "locomo-"
DEFAULT_KS = "5,10,20"
MUSIQUE_GROUP = "musique"
MUSIQUE_KS = "2,5"  # HippoRAG's Table 2
OFFLINE_EXTRACTOR = "offline"


class Command(BaseCommand):
    help = "Measure retrieval quality on a dataset and print recall@k per question category."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="dataset", required=True)
        locomo = sub.add_parser(
            "locomo",
            help="evidence recall@k over LoCoMo conversations: episode, fact and hybrid search, and a dense baseline",
        )
        locomo.add_argument(
            "files",
            nargs="*",
            type=Path,
            metavar="FILE",
            help="conversation-*.json files or folders of them (default: --data-dir)",
        )
        locomo.add_argument(
            "--data-dir", type=Path, help="folder of conversation-*.json (default: ../shared/datasets/locomo)"
        )
        locomo.add_argument(
            "--group-prefix",
            default=DEFAULT_GROUP_PREFIX,
            help="each conversation goes into group PREFIX + its number, e.g. locomo-26",
        )
        locomo.add_argument("--ks", default=DEFAULT_KS, help="the k of recall@k, comma-separated")
        locomo.add_argument("--limit-questions", type=int, help="score only each conversation's first N questions")
        locomo.add_argument(
            "--skip-ingest", action="store_true", help="do not load missing turns: every group must hold its turns"
        )
        locomo.add_argument(
            "--tune-preceding",
            action="store_true",
            help="instead: choose how many preceding messages a message is searched with, by cross-validation, "
            "in memory (no graph server, nothing written)",
        )
        _add_run_arguments(locomo)
        musique = sub.add_parser(
            "musique",
            help="passage recall@k over HippoRAG's MuSiQue slice: dense passages, PPR, relation-aware PPR, episode "
            "search and graph-fused episodes",
        )
        musique.add_argument(
            "--data-dir",
            type=Path,
            help="folder of corpus.json, openie.json, queries.json (default: ../shared/datasets/musique)",
        )
        musique.add_argument("--group", default=MUSIQUE_GROUP, help="the group that holds (or will hold) the corpus")
        musique.add_argument("--ks", default=MUSIQUE_KS, help="the k of recall@k, comma-separated")
        musique.add_argument("--limit-questions", type=int, help="score only the first N questions")
        musique.add_argument(
            "--skip-ingest", action="store_true", help="do not load the corpus: the group must hold every passage"
        )
        musique.add_argument(
            "--tune-graph-fusion",
            action="store_true",
            help="instead: choose episodes_graph_fused's constants by cross-validation (rewrites the group's "
            "inferred synonymy edges per threshold, then leaves those of the default threshold)",
        )
        _add_run_arguments(musique)
        context = sub.add_parser(
            "context",
            help="share of each question's evidence in the context block at each budget (o200k tokens), beside dense "
            "and BM25 + dense filling the same budget; the episodes rankings and a cross-validated choice among them",
        )
        context.add_argument(
            "--datasets", default="locomo,musique", help="which of locomo, musique, comma-separated (default both)"
        )
        context.add_argument("--locomo-dir", type=Path, help="default: ../shared/datasets/locomo")
        context.add_argument("--musique-dir", type=Path, help="default: ../shared/datasets/musique")
        context.add_argument("--group-prefix", default=DEFAULT_GROUP_PREFIX, help="LoCoMo groups, as evaluate locomo")
        context.add_argument("--group", default=MUSIQUE_GROUP, help="the MuSiQue group, as evaluate musique")
        context.add_argument(
            "--budgets",
            default=",".join(map(str, context_evaluation.BUDGETS)),
            help="token budgets, comma-separated (each 100–32000)",
        )
        context.add_argument("--limit-questions", type=int, help="only the first N questions of each file")
        context.add_argument("--skip-ingest", action="store_true", help="load nothing: every group must be loaded")
        context.add_argument(
            "--report",
            nargs="+",
            type=Path,
            metavar="JSON",
            help="instead: report the figures of earlier runs' --json files together (e.g. one per dataset)",
        )
        _add_run_arguments(context)

    def handle(self, *args: object, dataset: str, **options: Any) -> None:
        try:
            getattr(self, dataset)(**options)
        except (InvalidInput, GraphUnavailable, EmbeddingModelError) as error:
            raise CommandError(str(error)) from error

    def locomo(
        self,
        *,
        files: list[Path],
        data_dir: Path | None,
        group_prefix: str,
        ks: str,
        limit_questions: int | None,
        skip_ingest: bool,
        embedding_threads: int | None,
        markdown: bool,
        json_path: Path | None,
        quiet: bool,
        tune_preceding: bool = False,
        **_: object,
    ) -> None:
        started = time.perf_counter()
        chosen_ks = parse_ks(ks)
        _check_options(limit_questions, embedding_threads, json_path)
        if files and data_dir is not None:
            raise CommandError("give conversation files or --data-dir, not both")
        paths = _conversation_paths(files or [data_dir or evaluation.default_locomo_dir()])
        groups = _conversation_groups(paths, group_prefix)
        conversations = [
            evaluation.locomo_conversation(path, group=group, limit_questions=limit_questions)
            for path, group in groups.items()
        ]  # every file read and checked before anything is written
        say = self.stdout.write
        if tune_preceding:
            say(machine_line())
            self._preceding_tune(conversations, chosen_ks, embedding_threads, markdown=markdown, json_path=json_path)
            return
        health = graph_health()
        if not health.up:
            raise CommandError(f"graph server down: {health.detail}")
        say(machine_line())
        ingest_seconds = self._ingest(conversations, skip_ingest, embedding_threads, quiet)
        model = _embedder(embedding_threads)
        questions = sum(len(conversation.questions) for conversation in conversations)
        with tqdm(total=questions, unit="question", desc="evaluate", disable=quiet, file=self.stderr._out) as bar:
            result = evaluation.locomo_evaluate(
                conversations, ks=chosen_ks, embed=model.embed, progress=lambda _: bar.update()
            )
        table, titles = result.table, evaluation.METHODS
        turns = sum(len(conversation.episodes) for conversation in conversations)
        say(
            f"LoCoMo evidence recall@k: {len(conversations)} conversation(s) "
            f"({', '.join(c.name for c in conversations)}), {turns} turns, {questions} question(s) scored"
        )
        _say_skipped(say, conversations)
        rows = evaluation.REPORT_ROWS
        measured = evaluation.methods_described(depth=max(chosen_ks), model=model.model_id)
        _say_measured(say, measured, titles)
        for line in (recall_markdown if markdown else recall_text)(table, rows, titles):
            say(line)
        folds = _say_folds(
            say, table, rows, titles, baseline=evaluation.BASELINE, candidates=evaluation.CANDIDATES, markdown=markdown
        )
        floor = _say_floor(say, result.floor, k=max(chosen_ks))
        say("timings per question (query embedding included):")
        for line in timing_lines(table, titles, unit="episodes"):
            say(line)
        say(
            f"ingestion {ingest_seconds:.1f} s, dense baseline indexing {result.dense_index_seconds:.1f} s "
            f"({turns} turns embedded), evaluation {result.seconds:.1f} s, "
            f"command {time.perf_counter() - started:.1f} s"
        )
        if json_path is not None:
            figures = recall_json(table, rows) | {
                "measured": measured,
                "cross_validation": folds,
                "relevance_floor": floor,
                "conversations": [c.name for c in conversations],
                "turns": turns,
                "ingest_s": ingest_seconds,
                "dense_index_s": result.dense_index_seconds,
                "evaluation_s": result.seconds,
            }
            json_path.write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            say(f"figures written to {json_path}")

    def _preceding_tune(
        self,
        conversations: list[LocomoConversation],
        ks: tuple[int, ...],
        embedding_threads: int | None,
        *,
        markdown: bool,
        json_path: Path | None,
    ) -> None:
        say = self.stdout.write
        model = _embedder(embedding_threads)
        tuning = preceding_tuning.preceding_tune(conversations, embed=model.embed, ks=ks)
        titles = {preceding_tuning.BASELINE: "dense baseline"} | {
            preceding_tuning.candidate(n): f"{n} preceding message(s)" for n in preceding_tuning.COUNTS
        }
        say(
            f"LoCoMo: episodes_hybrid_rrf's BM25 with each message's N preceding messages, {len(conversations)} "
            f"conversation(s), recall@k in memory"
        )
        for line in (recall_markdown if markdown else recall_text)(tuning.table, evaluation.REPORT_ROWS, titles):
            say(line)
        if tuning.folds is not None:
            for line in (folds_markdown if markdown else folds_text)(tuning.folds, titles):
                say(line)
        for k, choices in tuning.by_conversation.items():
            say(f"leave one conversation out, recall@{k} of categories 1–4:")
            for choice in choices:
                say(
                    f"  conversation {choice.conversation}: chose {titles[choice.chosen]}, held out "
                    f"{choice.held_out:.3f} (dense {choice.dense:.3f})"
                )
            if (versus := tuning.held_out_versus_dense[k]) is not None:
                held_out = sum(c.held_out * c.questions for c in choices) / sum(c.questions for c in choices)
                say(
                    f"  held out {held_out:.3f}, − dense: {versus.mean:+.3f} [{versus.low:+.3f}, {versus.high:+.3f}] "
                    f"({versus.questions} questions)"
                )
        say(f"tuning {tuning.seconds:.1f} s")
        if json_path is not None:
            figures = {
                "folds": folds_json(tuning.folds) if tuning.folds else None,
                "by_conversation": {
                    str(k): [vars(choice) for choice in choices] for k, choices in tuning.by_conversation.items()
                },
            }
            json_path.write_text(json.dumps(figures, indent=2))

    def musique(self, *, data_dir: Path | None, group: str, tune_graph_fusion: bool, **options: Any) -> None:
        started = time.perf_counter()
        run = _run_options(options)
        chosen_ks, limit_questions, quiet, json_path = run.ks, run.limit_questions, run.quiet, run.json_path
        try:
            check_group_name(group)
        except ValueError as error:
            raise CommandError(f"--group {group!r}: {error}") from error
        directory = data_dir or musique_evaluation.default_musique_dir()
        if not directory.is_dir():
            raise CommandError(f"{directory}: no such folder (give the MuSiQue folder with --data-dir)")
        dataset = musique_evaluation.musique_set(directory, group=group, limit_questions=limit_questions)
        health = graph_health()
        if not health.up:
            raise CommandError(f"graph server down: {health.detail}")
        say = self.stdout.write
        say(machine_line())
        model = _embedder(run.embedding_threads)  # before the load: its reindex pass embeds with these threads too
        ingest_seconds = self._musique_ingest(dataset, run.skip_ingest, quiet)
        if tune_graph_fusion:
            self._fusion_tune(dataset, run, model)
            return
        questions = len(dataset.questions)
        with tqdm(total=questions, unit="question", desc="evaluate", disable=quiet, file=self.stderr._out) as bar:
            result = musique_evaluation.musique_evaluate(
                dataset, ks=chosen_ks, embed=model.embed, progress=lambda _: bar.update()
            )
        table, titles = result.table, musique_evaluation.METHODS
        say(
            f"MuSiQue passage recall@k: group {group}, {len(dataset.passages)} passages, {questions} question(s) scored"
        )
        rows = musique_evaluation.report_rows(dataset.hops)
        measured = musique_evaluation.methods_described(group=group, depth=max(chosen_ks), model=model.model_id)
        _say_measured(say, measured, titles)
        for line in (recall_markdown if run.markdown else recall_text)(table, rows, titles):
            say(line)
        folds = _say_folds(
            say,
            table,
            rows,
            titles,
            baseline=musique_evaluation.BASELINE,
            candidates=musique_evaluation.CANDIDATES,
            markdown=run.markdown,
        )
        floor = _say_floor(say, result.floor, k=max(chosen_ks))
        baseline = titles[musique_evaluation.BASELINE]
        for method, gains in result.gains.items():
            points = ", ".join(f"@{k} {gain:+.1f}" for k, gain in gains.items())
            say(f"{titles[method]} beyond {baseline} (recall points, all questions): {points}")
        say("timings per question (query embedding included):")
        for line in timing_lines(table, titles, unit="passages"):
            say(line)
        say(
            f"ingestion {ingest_seconds:.1f} s, dense baseline indexing {result.dense_index_seconds:.1f} s "
            f"({len(dataset.passages)} passages embedded), evaluation {result.seconds:.1f} s, "
            f"command {time.perf_counter() - started:.1f} s"
        )
        if json_path is not None:
            figures = recall_json(table, rows) | {
                "measured": measured,
                "cross_validation": folds,
                "relevance_floor": floor,
                "group": group,
                "passages": len(dataset.passages),
                "gains_points": {
                    method: {str(k): v for k, v in gains.items()} for method, gains in result.gains.items()
                },
                "ingest_s": ingest_seconds,
                "dense_index_s": result.dense_index_seconds,
                "evaluation_s": result.seconds,
            }
            json_path.write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            say(f"figures written to {json_path}")

    def context(
        self,
        *,
        datasets: str,
        locomo_dir: Path | None,
        musique_dir: Path | None,
        group_prefix: str,
        group: str,
        budgets: str,
        limit_questions: int | None,
        skip_ingest: bool,
        embedding_threads: int | None,
        markdown: bool,
        json_path: Path | None,
        quiet: bool,
        report: list[Path] | None = None,
        **_: object,
    ) -> None:
        """Reads and checks every file first, loads what a group lacks (as evaluate locomo and musique do), then
        builds the block for every question at every budget."""
        started = time.perf_counter()
        _check_options(limit_questions, embedding_threads, json_path)
        if report:
            self._context_report(report, _budgets(budgets))
            return
        wanted = [name.strip() for name in datasets.split(",") if name.strip()]
        if not wanted or set(wanted) - {"locomo", "musique"}:
            raise CommandError(f"--datasets {datasets!r}: name locomo, musique or both")
        chosen = _budgets(budgets)
        conversations = []
        if "locomo" in wanted:
            paths = _conversation_paths([locomo_dir or evaluation.default_locomo_dir()])
            conversations = [
                evaluation.locomo_conversation(path, group=name, limit_questions=limit_questions)
                for path, name in _conversation_groups(paths, group_prefix).items()
            ]
        musique = None
        if "musique" in wanted:
            check_group_name(group)
            directory = musique_dir or musique_evaluation.default_musique_dir()
            musique = musique_evaluation.musique_set(directory, group=group, limit_questions=limit_questions)
        health = graph_health()
        if not health.up:
            raise CommandError(f"graph server down: {health.detail}")
        say = self.stdout.write
        say(machine_line())
        model = _embedder(embedding_threads)
        self._ingest(conversations, skip_ingest, embedding_threads, quiet)
        if musique is not None:
            self._musique_ingest(musique, skip_ingest, quiet)
        corpora = [_locomo_corpus(conversation) for conversation in conversations]
        if musique is not None:
            corpora.append(_musique_corpus(musique))
        questions = sum(len(corpus.questions) for corpus in corpora)
        with tqdm(total=questions, unit="question", desc="evaluate", disable=quiet, file=self.stderr._out) as bar:
            scores = context_evaluation.context_evaluate(
                corpora, embed=model.embed, budgets=chosen, progress=lambda _: bar.update()
            )
        say(
            f"context block evidence: {len(corpora)} group(s), {questions} question(s) (LoCoMo categories 1–4), "
            f"budgets {', '.join(map(str, chosen))} o200k_base tokens, embedding model {model.model_id}"
        )
        for line in context_evaluation.report_lines(scores, budgets=chosen):
            say(line)
        say(f"command {time.perf_counter() - started:.1f} s")
        if json_path is not None:
            json_path.write_text(json.dumps(context_evaluation.report_json(scores)) + "\n", encoding="utf-8")
            say(f"figures written to {json_path}")

    def _context_report(self, paths: list[Path], budgets: tuple[int, ...]) -> None:
        try:
            figures = [json.loads(path.read_text(encoding="utf-8")) for path in paths]
            scores = context_evaluation.scores_read(figures)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise CommandError(f"--report: not the figures evaluate context writes ({error})") from error
        for line in context_evaluation.report_lines(scores, budgets=budgets):
            self.stdout.write(line)

    def _fusion_tune(self, dataset: musique_evaluation.MusiqueSet, run: _RunOptions, model: Embedder) -> None:
        """The grid of graph_fusion.settings_grid on every question, and the cross-validated choice among it."""
        say = self.stdout.write
        settings = graph_fusion.settings_grid()
        say(
            f"graph fusion tuning: group {dataset.group}, {len(dataset.questions)} question(s), "
            f"{len(settings)} settings of recipe {graph_fusion.RECIPE} (text methods × synonymy threshold × "
            "damping × graph weight, the text methods alone first)"
        )
        index = DenseIndex.build(
            ids=dataset.episode_ids(),
            texts=[musique_evaluation.dense_text(passage) for passage in dataset.passages],
            embed=model.embed,
        )
        with tqdm(total=len(settings), unit="setting", disable=run.quiet, file=self.stderr._out) as bar:
            tuning = graph_fusion.fusion_tune(
                group=dataset.group,
                questions=dataset.questions,
                dense=index,
                embed=model.embed,
                ks=run.ks,
                settings=settings,
                progress=lambda _: bar.update(),
            )
        say("inferred synonymy edges per threshold: " + ", ".join(f"{t}: {n}" for t, n in tuning.edges.items()))
        titles = {graph_fusion.BASELINE: "dense passages"}
        if tuning.folds is not None:
            for line in (folds_markdown if run.markdown else folds_text)(tuning.folds, titles):
                say(line)
        say(f"tuning {tuning.seconds:.1f} s")
        if run.json_path is not None:
            figures = recall_json(tuning.table, musique_evaluation.report_rows(dataset.hops)) | {
                "settings": [vars(setting) | {"name": setting.name} for setting in settings],
                "synonymy_edges": tuning.edges,
                "cross_validation": folds_json(tuning.folds) if tuning.folds else None,
                "tuning_s": tuning.seconds,
            }
            run.json_path.write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            say(f"figures written to {run.json_path}")

    def _musique_ingest(self, dataset: musique_evaluation.MusiqueSet, skip_ingest: bool, quiet: bool) -> float:
        """Load the corpus with its triples when the group lacks passages, then embed what it wrote (one bulk
        import and one reindex pass); a group holding every passage is evaluated as it is.
        """
        started = time.perf_counter()
        stored = musique_evaluation.stored_passages(dataset)
        if stored == len(dataset.passages):
            self.stdout.write(f"group {dataset.group}: holds all {stored} passages, not loaded again")
            return 0.0
        if skip_ingest:
            raise CommandError(
                f"group {dataset.group} holds {stored} of the {len(dataset.passages)} passages of "
                f"{dataset.directory}; run without --skip-ingest to load them"
            )
        built = build_musique(dataset.directory, group=dataset.group)
        schema_install()  # a fresh server has no id index: the import's lookups would scan the graph (minutes)
        document = parse_graph_document(built.document, group=dataset.group)
        write_document(self, document=document, group=dataset.group, reindex=True, quiet=quiet)
        synonyms = synonyms_infer(group=dataset.group)  # what episodes_graph_fused walks besides stated facts
        self.stdout.write(
            f"group {dataset.group}: {synonyms.pairs} inferred synonymy edge(s) at cosine ≥ {synonyms.threshold:g}"
        )
        return time.perf_counter() - started

    def _ingest(
        self, conversations: list[LocomoConversation], skip_ingest: bool, embedding_threads: int | None, quiet: bool
    ) -> float:
        """Load the turns each group lacks (a rerun resumes); with --skip-ingest, insist that none is missing."""
        started = time.perf_counter()
        for conversation in conversations:
            if skip_ingest:
                stored = stored_turns(conversation)
                if stored < len(conversation.episodes):
                    raise CommandError(
                        f"group {conversation.group} holds {stored} of the {len(conversation.episodes)} turns of "
                        f"{conversation.path.name}; run without --skip-ingest to load them"
                    )
                continue
            options = ingest_options(
                {
                    "group": conversation.group,
                    "batch_size": DEFAULT_BATCH_SIZE,
                    "episode_vectors": True,  # episode search's cosine reads them
                    "embedding_threads": embedding_threads,
                    "quiet": quiet,
                    "extractor": OFFLINE_EXTRACTOR,  # the figures must not depend on whether an LLM is configured
                    "update_communities": True,
                }
            )
            episodes_ingest(self, episodes=conversation.episodes, options=options)
        return time.perf_counter() - started


@dataclass(frozen=True)
class _RunOptions:
    """The options every dataset's run takes, checked."""

    ks: tuple[int, ...]
    limit_questions: int | None
    skip_ingest: bool
    embedding_threads: int | None
    markdown: bool
    json_path: Path | None
    quiet: bool


def _run_options(options: dict[str, Any]) -> _RunOptions:
    run = _RunOptions(
        ks=parse_ks(options["ks"]),
        **{field: options[field] for field in _RunOptions.__dataclass_fields__ if field != "ks"},
    )
    _check_options(run.limit_questions, run.embedding_threads, run.json_path)
    return run


def _add_run_arguments(parser: CommandParser) -> None:
    """How every dataset's run embeds and reports."""
    parser.add_argument(
        "--embedding-threads", type=int, help="embedding threads (torch or ONNX Runtime) for every embedding"
    )
    parser.add_argument("--markdown", action="store_true", help="print the recall table as Markdown")
    parser.add_argument("--json", type=Path, dest="json_path", metavar="PATH", help="also write the figures here")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def _check_options(limit_questions: int | None, embedding_threads: int | None, json_path: Path | None) -> None:
    if limit_questions is not None and limit_questions < 1:
        raise CommandError("--limit-questions must be at least 1")
    if embedding_threads is not None and embedding_threads < 1:
        raise CommandError("--embedding-threads must be at least 1")
    if json_path is not None and not json_path.parent.is_dir():
        raise CommandError(f"--json {json_path}: folder {json_path.parent} does not exist")


def _budgets(text: str) -> tuple[int, ...]:
    try:
        budgets = tuple(int(part) for part in text.split(","))
    except ValueError as error:
        raise CommandError(f"--budgets {text!r}: whole numbers, comma-separated") from error
    if not budgets or any(not MIN_BUDGET_TOKENS <= budget <= MAX_BUDGET_TOKENS for budget in budgets):
        raise CommandError(f"--budgets {text!r}: each in [{MIN_BUDGET_TOKENS}, {MAX_BUDGET_TOKENS}]")
    return budgets


def _locomo_corpus(conversation: LocomoConversation) -> context_evaluation.Corpus:
    """The conversation's turns, and its questions but the adversarial ones (their premise is false)."""
    episodes = conversation.episodes
    adversarial = evaluation.category_label(evaluation.ADVERSARIAL)
    return context_evaluation.Corpus(
        dataset="locomo",
        group=conversation.group,
        ids=[episode.id or "" for episode in episodes],
        names=[episode.name or "" for episode in episodes],
        contents=[episode.content for episode in episodes],
        times=[episode.valid_at for episode in episodes],
        dense_texts=[episode.content for episode in episodes],
        questions=[question for question in conversation.questions if question.label != adversarial],
    )


def _musique_corpus(dataset: musique_evaluation.MusiqueSet) -> context_evaluation.Corpus:
    return context_evaluation.Corpus(
        dataset="musique",
        group=dataset.group,
        ids=dataset.episode_ids(),
        names=[passage.title for passage in dataset.passages],
        contents=[passage.text for passage in dataset.passages],
        times=[None] * len(dataset.passages),
        dense_texts=[musique_evaluation.dense_text(passage) for passage in dataset.passages],
        questions=list(dataset.questions),
    )


def _embedder(embedding_threads: int | None) -> Embedder:
    model = embedder()
    if embedding_threads:
        model.threads_set(embedding_threads)  # the command owns its process's threads
    return model


def _conversation_paths(given: list[Path]) -> list[Path]:
    paths: list[Path] = []
    for path in given:
        if path.is_dir():
            found = sorted(path.glob(CONVERSATIONS))
            if not found:
                raise CommandError(f"no {CONVERSATIONS} files in {path}")
            paths.extend(found)
        elif path.exists():
            paths.append(path)
        else:
            raise CommandError(f"{path}: no such file or folder (give LoCoMo conversation files or --data-dir)")
    return paths


def _conversation_groups(paths: list[Path], prefix: str) -> dict[Path, str]:
    """One group per conversation; two files of the same conversation would share one."""
    groups: dict[Path, str] = {}
    for path in paths:
        group = f"{prefix}{conversation_name(path)}"
        twin = next((other for other, taken in groups.items() if taken == group), None)
        if twin is not None:
            raise CommandError(f"{twin} and {path} would both go into group {group}: give each conversation once")
        try:
            check_group_name(group)
        except ValueError as error:
            raise CommandError(f"--group-prefix {prefix!r}: {error}") from error
        groups[path] = group
    return groups


def _say_measured(say: Callable[[str], None], measured: dict[str, dict[str, Any]], titles: dict[str, str]) -> None:
    """Which recipe (or model, or PPR request) each column measured, with every setting, one line each."""
    say("measured:")
    for method, described in measured.items():
        say(f"  {titles.get(method, method)}: {json.dumps(described, ensure_ascii=False, separators=(',', ':'))}")


def _say_folds(
    say: Callable[[str], None],
    table: RecallTable,
    rows: tuple[ReportRow, ...],
    titles: dict[str, str],
    *,
    baseline: str,
    candidates: tuple[str, ...],
    markdown: bool,
) -> list[dict[str, Any]]:
    """The cross-validated block of each summary row (the ruled ones), printed; its figures for the JSON."""
    figures: list[dict[str, Any]] = []
    for row in rows:
        if not row.rule:
            continue
        found = row_folds(table, row, baseline=baseline, candidates=candidates)
        if found is None:
            say(f"cross-validated, row {row.title!r}: fewer than 2 questions, nothing to fold")
            continue
        for line in (folds_markdown if markdown else folds_text)(found, titles):
            say(line)
        figures.append(folds_json(found))
    return figures


def _say_floor(say: Callable[[str], None], inputs: FloorInputs, *, k: int) -> dict[str, Any] | None:
    """The cosine floor cross-validated over every scored question (docs/search.md, "Relevance floor")."""
    if len(inputs.questions) < 2:
        say("cosine relevance floor: fewer than 2 questions, nothing to fold")
        return None
    choice = floor_choose(inputs.questions, k=k, nonsense=inputs.nonsense)
    for line in floor_lines(choice):
        say(line)
    return floor_json(choice)


def _say_skipped(say: Callable[[str], None], conversations: list[LocomoConversation]) -> None:
    without = [key for c in conversations for key in c.without_evidence]
    unknown = [entry for c in conversations for entry in c.unknown_evidence]
    if without:
        say(f"not scored, no evidence naming a turn: {len(without)} question(s): {', '.join(without)}")
    if unknown:
        say(f"evidence ids that name no turn, left out: {len(unknown)}: {'; '.join(unknown)}")
