"""o200k_base counts: equal to an independent tokenizer's (gpt-tokenizer under Node), and cuts that always fit."""

from __future__ import annotations

import base64
import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoria.context.tokens import ELLIPSIS, cut_to_tokens, token_count, token_counts

REFERENCE = Path(__file__).parent / "o200k_reference"
LOCOMO = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "locomo" / "conversation-26.json"
# JavaScript's \s matches U+FEFF and Python's and Rust's do not: gpt-tokenizer splits there, tiktoken does not
# ("word\ufeff" is 3 tokens in gpt-tokenizer, 2 in tiktoken and here). OpenAI's tiktoken is the reference.
JS_ONLY_SPACE = "\ufeff"


def reference_counts(texts: list[str]) -> list[int]:
    if shutil.which("node") is None or not (REFERENCE / "node_modules" / "gpt-tokenizer").is_dir():
        pytest.fail("gpt-tokenizer is not installed: run scripts/bootstrap test")
    done = subprocess.run(
        ["node", str(REFERENCE / "count.mjs")], input=json.dumps(texts).encode(), capture_output=True, check=True
    )
    return json.loads(done.stdout)


def hostile_texts() -> list[str]:
    rng = random.Random(29)
    return [
        "a" * 100_000,
        base64.b64encode(rng.randbytes(2048)).decode(),
        "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(3000)),
        "".join(rng.choice(["😀", "🎉", "👩‍👩‍👧", "🏳️‍🌈", "🇫🇷", "✨"]) for _ in range(2000)),
        "nospacesatallbutquitealongwordrepeated" * 300,
        "<|endoftext|> and <|endofprompt|> as text",
        "don't I'LL we've They'RE 123456789 3.14159 ½ ٣٤٥ \r\n\t  spaces",
        "".join(
            chr(rng.choice([rng.randint(0x20, 0x7E), rng.randint(0xA0, 0xD7FF), rng.randint(0xE000, 0x10FFFF)]))
            for _ in range(4000)
        ),
    ]


def test_counts_equal_gpt_tokenizers_on_hostile_and_real_texts() -> None:
    texts = hostile_texts()
    if LOCOMO.is_file():  # every turn of a real conversation, when the shared datasets are beside the repository
        conversation = json.loads(LOCOMO.read_text())
        texts += [
            f"{turn['speaker']}: {turn['text']}"
            for key, turns in conversation.items()
            if key.startswith("session_") and isinstance(turns, list)
            for turn in turns
        ]
    texts = [text.replace(JS_ONLY_SPACE, " ") for text in texts]
    assert token_counts(texts) == reference_counts(texts)
    assert token_counts(["hello world", "a" * 100_000]) == [2, 12_500]


def test_the_one_known_difference_is_javascripts_space() -> None:
    assert token_count("word" + JS_ONLY_SPACE) == 2
    assert reference_counts(["word" + JS_ONLY_SPACE]) == [3]


@settings(max_examples=300, deadline=None)
@given(text=st.text(min_size=0, max_size=3000), budget=st.integers(min_value=0, max_value=400))
def test_a_cut_always_fits(text: str, budget: int) -> None:
    cut = cut_to_tokens(text, budget)
    assert token_count(cut) <= budget
    if token_count(text) <= budget:
        assert cut == text
    elif cut:
        assert cut.endswith(ELLIPSIS) and text.startswith(cut[: -len(ELLIPSIS)])


def test_a_cut_never_splits_a_character() -> None:
    assert cut_to_tokens("🧠" * 10, 7) == "🧠🧠" + ELLIPSIS  # three tokens each, and one for the ellipsis
    assert cut_to_tokens("a" * 100_000, 5) == "a" * 32 + ELLIPSIS
    assert cut_to_tokens("anything", 0) == ""
