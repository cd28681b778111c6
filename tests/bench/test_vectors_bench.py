"""`bench vectors` at a size a test can afford: every part's bytes, both searches timed, recall against exact."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import CommandError, call_command


def test_the_command_prints_each_part_both_searches_and_recall() -> None:
    out = io.StringIO()
    options = ("--items", "600", "--runs", "5", "--warmup", "1", "--limit", "5", "--random-vectors")
    call_command("bench", "vectors", *options, stdout=out)
    printed = out.getvalue()
    assert "vectors: 600 facts, random unit vectors (load average " in printed
    for part in ("items and their maps", "BM25 index (tantivy)", "vector index", "float32 matrix alone"):
        assert re.search(rf"{re.escape(part)}[^\n]* RSS +-?\d+", printed), part
    assert re.search(r"float32 matrix alone \(reference\) +RSS +1536, view's own count +1536", printed)
    assert re.search(r"exact float32 top 5: p50 .* ratio p50 1\.00×", printed)
    assert re.search(r"view +top 5: p50 +\d+\.\d+ ms", printed)
    recall = re.search(
        r"recall@5 of the view against exact float32: mean (\d\.\d+), lowest \S+ over 6 queries", printed
    )
    assert recall is not None and float(recall.group(1)) >= 0.9
    forms = dict(re.findall(r"^ {4}(\S.*?) +(\d+) B a row  recall@5 ", printed, flags=re.MULTILINE))
    assert forms == {
        "int8 codes alone": "388",
        "float16 copy beside the int8 codes": "1156",
        "two levels of int8 codes (the view)": "772",
    }


@pytest.mark.parametrize("option", ["--items", "--runs", "--limit"])
def test_sizes_must_be_positive(option: str) -> None:
    with pytest.raises(CommandError, match="--items, --runs and --limit must be positive"):
        call_command("bench", "vectors", option, "0", "--random-vectors")
