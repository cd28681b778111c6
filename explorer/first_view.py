"""What the graph view draws when a group opens with nothing asked: its most connected entities and a question.

A group opened from home or the header's Graph link used to show an empty canvas, "0 nodes · 0 links" and "Click
a node to expand it" with no node to click (issue 32). Like Bloom, which starts from a search phrase, the page now
starts from something: the group's FIRST_NODES entities with the most facts (the facts among them are drawn too),
a search box, and a question to watch on the live page (the demo's first sample query; elsewhere one about the
best connected entity).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse

from explorer.landing import sample_queries
from memoria.browse.selectors import most_connected

FIRST_NODES = 12


@dataclass(frozen=True)
class FirstView:
    ids: list[str]
    question: str | None  # None for a group without a linked entity
    question_url: str | None  # the live page, running the question at once

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def first_view(group: str) -> FirstView:
    cards = most_connected(group=group, limit=FIRST_NODES)
    samples = sample_queries(group)
    question = samples[0] if samples else (f"What do we know about {cards[0].name}?" if cards else None)
    url = None
    if question:
        url = reverse("explorer:live", args=[group]) + "?" + urlencode({"q": question, "run": "1"})
    return FirstView(ids=[card.id for card in cards], question=question, question_url=url)
