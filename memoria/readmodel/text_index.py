"""BM25 over one scope of one group, in a RAM-only tantivy index.

Why tantivy: a maintained full-text engine (Lucene's design, in Rust) that takes
upserts and deletes without a rebuild, scores BM25 per field and sums a
boolean query's clauses as Lucene does, and answers in well under a millisecond
at 100k documents (measured here: build 1.3 s, search 0.01–0.25 ms). bm25s was
the alternative: faster to build but immutable, so every write would rebuild it.

Queries are built from term clauses, never parsed, so user text can never be
query syntax. Documents are keyed by the item's id (a raw, untokenised field).

Words are stemmed (tantivy's Snowball English stemmer, the one its `en_stem`
tokenizer uses), and a query's words go through the very same analyzer, so
"researching" finds "research". Chosen by measurement (docs/evaluation.md,
"Stemming and message context"): LoCoMo recall@10 of the episodes recipe
+1.2 points, MuSiQue recall@5 unchanged.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping, Sequence

import tantivy

# tantivy's simple tokenizer: runs of letters and digits; lower-cased, tokens over 40 bytes dropped, stemmed.
_TOKEN = re.compile(r"[^\W_]+")
_MAX_TOKEN_BYTES = 40
KEY_FIELD = "key"
ANALYZER_NAME = "memoria_english"
WRITER_HEAP_BYTES = 15_000_000


def _analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(_MAX_TOKEN_BYTES))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


ANALYZER = _analyzer()


def query_terms(text: str, *, stop_words: frozenset[str], max_terms: int) -> list[str]:
    """The words a query searches for, as the index stores them (stemmed); stop words are judged before stemming,
    and kept only when nothing else is left."""
    words = [w for w in (m.group(0).lower() for m in _TOKEN.finditer(text)) if len(w.encode()) <= _MAX_TOKEN_BYTES]
    telling = [word for word in words if word not in stop_words] or words
    return list(dict.fromkeys(term for word in telling for term in ANALYZER.analyze(word)))[:max_terms]


class TextIndex:
    """Documents with a few text fields; a search sums each field's BM25, best first.

    Changes are buffered and applied by `commit` through a writer opened for that commit alone: a live
    tantivy writer holds about 4.5 MiB and six threads, too much to keep for every scope of every group
    (measured: 100 idle writers, 446 MiB and 600 threads; reopening one costs 3.5 ms).
    """

    def __init__(self, fields: Sequence[str]) -> None:
        builder = tantivy.SchemaBuilder()
        builder.add_text_field(KEY_FIELD, stored=True, tokenizer_name="raw")
        for name in fields:
            builder.add_text_field(name, stored=False, tokenizer_name=ANALYZER_NAME)
        self.fields = tuple(fields)
        self._schema = builder.build()
        self._index = tantivy.Index(self._schema)
        self._index.register_tokenizer(ANALYZER_NAME, ANALYZER)
        self._lock = threading.Lock()
        self._pending: list[tuple[str, dict[str, str] | None]] = []  # (key, texts), None texts: delete
        self._searcher = self._index.searcher()

    def put(self, documents: Iterable[tuple[str, Mapping[str, str]]]) -> int:
        """Add or replace documents by key; call `commit` to make them searchable."""
        with self._lock:
            before = len(self._pending)
            self._pending.extend(
                (key, {name: texts.get(name) or "" for name in self.fields}) for key, texts in documents
            )
            return len(self._pending) - before

    def remove(self, keys: Iterable[str]) -> None:
        with self._lock:
            self._pending.extend((key, None) for key in keys)

    def commit(self) -> None:
        with self._lock:
            if self._pending:
                writer = self._index.writer(heap_size=WRITER_HEAP_BYTES, num_threads=1)
                if self._searcher.num_docs == 0:
                    # A build into an empty index: nothing to delete, only the last change of each key counts.
                    latest = dict(self._pending)
                    for key, texts in latest.items():
                        if texts is not None:
                            writer.add_document(tantivy.Document(**{KEY_FIELD: key}, **texts))
                else:
                    for key, texts in self._pending:
                        writer.delete_documents_by_term(KEY_FIELD, key)
                        if texts is not None:
                            writer.add_document(tantivy.Document(**{KEY_FIELD: key}, **texts))
                writer.commit()
                writer.wait_merging_threads()  # also releases the writer's threads and memory
                self._pending.clear()
            self._index.reload()
            self._searcher = self._index.searcher()

    @property
    def size(self) -> int:
        return self._searcher.num_docs

    def search(
        self, terms: Sequence[str], *, limit: int, fields: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        """(key, score) best first, ties by key; at most `limit`. `terms` are as stored: from `query_terms`."""
        if not terms or limit <= 0:
            return []
        clauses = [
            (tantivy.Occur.Should, tantivy.Query.term_query(self._schema, name, term))
            for name in (fields or self.fields)
            for term in terms
        ]
        searcher = self._searcher
        hits = searcher.search(tantivy.Query.boolean_query(clauses), limit).hits
        found = [(searcher.doc(address)[KEY_FIELD][0], float(score)) for score, address in hits]
        return sorted(found, key=lambda hit: (-hit[1], hit[0]))
