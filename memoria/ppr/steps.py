"""Who makes relation-aware PPR's two judgements for a query — β and the fact filter: offline rules or the LLM.

Chosen as ingestion chooses its extractors (memoria.ingest.pipeline.extractors_for_settings): `auto` takes the
LLM when MEMORIA_LLM_URL and MEMORIA_LLM_MODEL are set, `offline` never asks one, `llm` insists on one. A
configured LLM that fails is an error (LlmUnavailable / LlmInvalidAnswer), never a silent offline answer: a
caller who configured a model must not get rules without being told.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memoria.errors import InvalidInput
from memoria.llm.client import chat_client, chat_client_or_none
from memoria.llm.modes import STEP_MODES, StepMode
from memoria.ppr.llm_steps import LlmBetaManager, LlmFactFilter
from memoria.ppr.relation_seeds import FactFilter, OfflineFactFilter
from memoria.ppr.relations import BetaManager, OfflineBetaManager


@dataclass(frozen=True)
class RelationSteps:
    betas: BetaManager = field(default_factory=OfflineBetaManager)
    facts: FactFilter = field(default_factory=OfflineFactFilter)


def relation_steps_for(*, betas_source: str = StepMode.AUTO, fact_filter: str = StepMode.AUTO) -> RelationSteps:
    """The steps for these choices; a step the request does not use should be passed as `offline`, so that a
    request that asks the LLM nothing never needs one (nor reads a broken configuration)."""
    for name, choice in (("betas_source", betas_source), ("filter", fact_filter)):
        if choice not in STEP_MODES:
            raise InvalidInput(f"{name}: {choice!r} is not one of {', '.join(STEP_MODES)}")
    choices = (betas_source, fact_filter)
    if StepMode.LLM in choices:
        client = chat_client()
    elif StepMode.AUTO in choices:
        client = chat_client_or_none()
    else:
        client = None
    return RelationSteps(
        betas=LlmBetaManager(client) if client and betas_source != StepMode.OFFLINE else OfflineBetaManager(),
        facts=LlmFactFilter(client) if client and fact_filter != StepMode.OFFLINE else OfflineFactFilter(),
    )
