"""Packing into a budget: never over it, whatever the lines hold (huge names, base64, no spaces, CJK, emoji)."""

from __future__ import annotations

import base64

from hypothesis import given, settings
from hypothesis import strategies as st

from memoria.context.lines import episode_line, flat
from memoria.context.packing import Piece, pack
from memoria.context.tokens import token_count

SECTIONS = ("Facts", "Episodes")
hostile = st.one_of(
    st.text(max_size=400),
    st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), max_size=400),
    st.text(alphabet="😀🎉👩‍👧✨🇫🇷", max_size=300),
    st.binary(max_size=1500).map(lambda raw: base64.b64encode(raw).decode()),
    st.integers(min_value=1, max_value=100_000).map(lambda n: "x" * n),
)


@settings(max_examples=150, deadline=None)
@given(
    names=st.lists(hostile, min_size=0, max_size=12),
    texts=st.lists(hostile, min_size=0, max_size=12),
    budget=st.integers(min_value=20, max_value=2000),
)
def test_the_budget_is_never_exceeded(names: list[str], texts: list[str], budget: int) -> None:
    pieces = [
        Piece(
            f"p{index}",
            SECTIONS[index % 2],
            episode_line(name, text, "2023-05-08T13:47:00Z", frozenset()),
            (f"  + {flat(text, 600)}",),
        )
        for index, (name, text) in enumerate(zip(names, texts, strict=False))
    ]
    packed = pack(header="Memory (what holds now):", sections=SECTIONS, pieces=pieces, budget=budget)
    assert packed.used_tokens == token_count(packed.text) <= budget
    assert len(packed.pieces) + packed.left_out == len(pieces)
    lines = packed.text.splitlines()
    for piece in packed.pieces:
        assert lines[packed.line_numbers[piece.key]] == piece.line  # items point at their own line


def test_a_piece_too_long_for_the_room_is_cut_to_it_with_an_ellipsis() -> None:
    pieces = [Piece("short", "Facts", "- a short fact"), Piece("long", "Episodes", "- " + "word " * 2000)]
    packed = pack(header="Memory:", sections=SECTIONS, pieces=pieces, budget=120)
    assert [piece.key for piece in packed.pieces] == ["short", "long"]
    assert packed.pieces[1].cut and packed.pieces[1].line.endswith("…")
    assert 100 < packed.used_tokens <= 120


def test_a_piece_that_cannot_be_cut_usefully_is_skipped_and_a_shorter_one_taken() -> None:
    pieces = [Piece("long", "Facts", "- " + "word " * 200), Piece("short", "Facts", "- a short fact")]
    packed = pack(header="Memory:", sections=SECTIONS, pieces=pieces, budget=20)
    assert [piece.key for piece in packed.pieces] == ["short"] and packed.left_out == 1
