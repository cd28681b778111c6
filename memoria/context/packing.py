"""Pack ranked pieces of memory into a token budget, as an LLM counts tokens (o200k_base): the block of
`get_context`, and the dense and BM25 + dense baselines `evaluate context` fills the same budget with.

A piece is one line (its sub-lines, facts that add to an episode, go with it or are dropped first when cut). Pieces
are taken best first; one that does not fit is cut to the room left (with an ellipsis) when that room is worth a
line, else skipped so that a shorter one after it may still fit. The finished text is counted whole and the worst
kept piece dropped until it fits: lines are counted one by one, and BPE may join a line's end with the next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from memoria.context.tokens import cut_to_tokens, token_count, token_counts

# The least room worth cutting a piece to: a date, a name and a few words.
MIN_CUT_TOKENS = 16


@dataclass(frozen=True)
class Piece:
    """One distinct piece of memory as lines of text: `line` is what it says, `sublines` what adds to it."""

    key: str
    section: str
    line: str
    sublines: tuple[str, ...] = ()
    cut: bool = False  # kept shorter than it is, to fit

    @property
    def lines(self) -> tuple[str, ...]:
        return (self.line, *self.sublines)


@dataclass(frozen=True)
class Packed:
    pieces: tuple[Piece, ...]  # in the order taken (best first)
    text: str
    used_tokens: int
    line_numbers: dict[str, int]  # a piece's key: the index of its first line in text.splitlines()
    tokens: dict[str, int]  # a piece's key: what its lines cost as counted when it was taken
    left_out: int


def render(header: str, sections: Sequence[str], pieces: Sequence[Piece]) -> tuple[str, dict[str, int]]:
    """The header, then each section that has pieces under its title, pieces in the order given."""
    lines = [header]
    numbers: dict[str, int] = {}
    for section in sections:
        kept = [piece for piece in pieces if piece.section == section]
        if not kept:
            continue
        lines.append(f"{section}:")
        for piece in kept:
            numbers[piece.key] = len(lines)
            lines.extend(piece.lines)
    return "\n".join(lines), numbers


def pack(*, header: str, sections: Sequence[str], pieces: Sequence[Piece], budget: int) -> Packed:
    """The best pieces that fit in `budget` o200k_base tokens, rendered; `used_tokens` is the whole text's count."""
    head = cut_to_tokens(header, budget)
    titles = token_counts([f"\n{section}:" for section in sections])
    title_cost = dict(zip(sections, titles, strict=True))
    line_costs = token_counts(["\n" + "\n".join(piece.lines) for piece in pieces])
    used = token_count(head)
    kept: list[Piece] = []
    costs: dict[str, int] = {}
    opened: set[str] = set()
    for piece, cost in zip(pieces, line_costs, strict=True):
        title = 0 if piece.section in opened else title_cost[piece.section]
        if used + title + cost > budget:
            room = budget - used - title - 1  # the line's own newline
            if room < MIN_CUT_TOKENS:
                continue
            piece = replace(piece, line=cut_to_tokens(piece.line, room), sublines=(), cut=True)
            cost = token_count("\n" + piece.line)
            if used + title + cost > budget:
                continue
        used += title + cost
        opened.add(piece.section)
        kept.append(piece)
        costs[piece.key] = cost
    text, numbers = render(head, sections, kept)
    used = token_count(text)
    while kept and used > budget:
        kept.pop()
        text, numbers = render(head, sections, kept)
        used = token_count(text)
    return Packed(
        pieces=tuple(kept),
        text=text,
        used_tokens=used,
        line_numbers=numbers,
        tokens={piece.key: costs[piece.key] for piece in kept},
        left_out=len(pieces) - len(kept),
    )
