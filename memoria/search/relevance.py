"""What a list shown to a person calls a good match: a hit some word of the query finds, or one near enough in
meaning.

Hybrid search always answers its best few, so nonsense ("zzqxv") came back as eight confident suggestions and a
search page of 60 results with a top score of 1 (issue 32): fusion ranks, it does not judge. A hit found by cosine
alone is kept only from GOOD_COSINE up: measured on the demo with all-MiniLM-L6-v2, 200 random strings of letters
(one and two words) came as near as 0.366 to some entity (p95 0.317), while 15 everyday phrasings of its topics
that share no word with the names ("late delivery", "strike at the docks", "too much inventory") reached 0.34–0.57.
"""

from __future__ import annotations

from collections.abc import Mapping

GOOD_COSINE = 0.37
COSINE = "cosine"


def good_match(scores: Mapping[str, float]) -> bool:
    """Whether a hit's per-method scores make it worth showing: any evidence beside cosine, or cosine ≥ the floor."""
    if any(method != COSINE for method in scores):
        return True
    return scores.get(COSINE, -1.0) >= GOOD_COSINE
