"""LLM versions of relation-aware PPR's two judgements (seed 003, MARA-RAG): the β manager and the fact filter.

Behind the same Protocols as the offline ones (memoria.ppr.relations.BetaManager,
memoria.ppr.relation_seeds.FactFilter). An answer is used whole or refused whole with LlmInvalidAnswer, as
the ingestion steps do: a walk is never steered by half an answer, and no offline choice hides a failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from memoria.errors import InvalidInput, LlmInvalidAnswer
from memoria.graph import kinds
from memoria.llm.client import MAX_SHOWN_PROBLEMS, ChatClient, chat_client
from memoria.llm.modes import StepMode
from memoria.llm.prompts import filter_facts as filter_prompt
from memoria.llm.prompts import relation_betas as betas_prompt
from memoria.ppr.relation_seeds import FACTS_KEPT, ScoredFact
from memoria.ppr.relations import CATEGORY_DESCRIPTIONS, ENTITY_ENTITY, ENTITY_PASSAGE, BetasInput, RelationBetas
from memoria.projection.projection import MENTION_ROLES
from memoria.requests.vocabulary import input_parse


class LlmBetaManager:
    """β per relation category for a query, as the configured LLM (or the given client) weighs them."""

    source: ClassVar[str] = StepMode.LLM

    def __init__(self, client: ChatClient | None = None) -> None:
        self.client = client or chat_client()

    def choose_betas(self, query: str) -> RelationBetas:
        answer = self.client.complete_json(
            messages=betas_prompt.messages(
                query=query,
                categories={c: CATEGORY_DESCRIPTIONS[c] for c in kinds.RELATION_CATEGORIES},
                roles=MENTION_ROLES,
                entity_entity=ENTITY_ENTITY,
                entity_passage=ENTITY_PASSAGE,
            ),
            schema_name=betas_prompt.SCHEMA_NAME,
            schema=betas_prompt.answer_schema(
                families={ENTITY_ENTITY: kinds.RELATION_CATEGORIES, ENTITY_PASSAGE: MENTION_ROLES}
            ),
        )
        # The schema refused unknown or missing categories, non-numbers and negatives; BetasInput also refuses
        # what a schema lets through (NaN, Infinity, a family of zeros) and normalises each family to sum 1.
        try:
            betas = input_parse(BetasInput, answer, where="answer").betas(source=StepMode.LLM)
        except InvalidInput as error:
            shown = "; ".join(error.problems[:MAX_SHOWN_PROBLEMS])
            raise LlmInvalidAnswer(f"the LLM's {betas_prompt.SCHEMA_NAME} answer is unusable: {shown}") from error
        return betas


class LlmFactFilter:
    """The candidate facts the configured LLM recognises as helping answer the query, `most` at most."""

    source: ClassVar[str] = StepMode.LLM

    def __init__(self, client: ChatClient | None = None, *, most: int = FACTS_KEPT) -> None:
        self.client = client or chat_client()
        self.most = most

    def filter_facts(self, query: str, candidates: Sequence[ScoredFact]) -> tuple[ScoredFact, ...]:
        if not candidates:  # nothing to recognise: no question worth asking
            return ()
        answer = self.client.complete_json(
            messages=filter_prompt.messages(query=query, facts=[fact.text for fact in candidates], most=self.most),
            schema_name=filter_prompt.SCHEMA_NAME,
            schema=filter_prompt.answer_schema(candidate_count=len(candidates), most=self.most),
        )
        numbers = [int(number) for number in answer["keep"]]  # JSON Schema counts 2.0 as an integer
        repeated = sorted({number for number in numbers if numbers.count(number) > 1})
        if repeated:
            raise LlmInvalidAnswer(f"the LLM's {filter_prompt.SCHEMA_NAME} answer names facts {repeated} twice")
        # Best-scored first, as the offline filter answers: the order the model gave changes no seed weight.
        return tuple(candidates[number] for number in sorted(numbers))
