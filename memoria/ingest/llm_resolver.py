"""The LLM version of ingestion step 3's judgement, behind the EntityResolver Protocol: the seed's dedupe prompt.

Candidates are found as for the offline resolver (full text + vectors, RRF); a name that matches one exactly
(name key or known alias) is settled without asking, and only the rest cost a model call.
"""

from __future__ import annotations

from collections.abc import Sequence

from memoria.ingest.extract_entities import ExtractedEntity
from memoria.ingest.resolve_entities import Candidate, EntityState, name_match
from memoria.llm.client import ChatClient, chat_client
from memoria.llm.prompts import resolve_entities as prompt

# Candidates shown to the model, best-fused first: the fused lists rarely hold a true match further down,
# and each one lengthens the prompt by a summary.
MAX_CANDIDATES = 10
MATCHED = "llm match"
NOT_MATCHED = "llm: none of the candidates"
NO_CANDIDATES = "new"


def distinct_candidates(candidates: Sequence[Candidate], limit: int = MAX_CANDIDATES) -> list[Candidate]:
    """The first `limit` candidates, each entity once (stored and same-batch candidates are listed together)."""
    seen: set[str] = set()
    kept: list[Candidate] = []
    for candidate in candidates:
        if candidate.entity.id not in seen:
            seen.add(candidate.entity.id)
            kept.append(candidate)
    return kept[:limit]


class LlmEntityResolver:
    """An EntityResolver that asks the configured LLM (or the given client) which candidate, if any, a name means."""

    def __init__(self, client: ChatClient | None = None) -> None:
        self.client = client or chat_client()

    def resolve_entity(
        self,
        mention: ExtractedEntity,
        vector: Sequence[float] | None,
        candidates: Sequence[Candidate],
        *,
        episode: str = "",
    ) -> tuple[EntityState | None, str]:
        settled = name_match(mention, candidates)
        if settled is not None:
            return settled
        options = distinct_candidates(candidates)
        if not options:
            return None, NO_CANDIDATES
        answer = self.client.complete_json(
            messages=prompt.messages(
                name=mention.name,
                episode=episode,
                candidates=[(option.entity.name, option.entity.summary) for option in options],
            ),
            schema_name=prompt.SCHEMA_NAME,
            schema=prompt.answer_schema(candidate_count=len(options)),
        )
        # The client refused any answer outside the schema's bounds (-1 … candidates - 1) with LlmInvalidAnswer.
        match = int(answer["match"])  # JSON Schema counts 2.0 as an integer
        if match == prompt.NO_MATCH:
            return None, NOT_MATCHED
        return options[match].entity, MATCHED
