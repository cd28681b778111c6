"""What a context request takes (POST /api/context and the MCP tool get_context): one pydantic model for both."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from memoria.graph.rules import MAX_QUERY_LENGTH
from memoria.requests.scope import MemoryScope
from memoria.requests.vocabulary import GroupName, Timestamp

DEFAULT_BUDGET_TOKENS = 1000
MIN_BUDGET_TOKENS = 100  # room for the header and a few facts
MAX_BUDGET_TOKENS = 32_000


class ContextRequest(MemoryScope):
    """A context block's request; its scope fields (user_id, agent_id, session_id, metadata) narrow every piece to
    that scope's memories."""

    group: GroupName
    query: str = Field(min_length=1, max_length=MAX_QUERY_LENGTH, description="what the context is for")
    budget_tokens: int = Field(
        default=DEFAULT_BUDGET_TOKENS,
        ge=MIN_BUDGET_TOKENS,
        le=MAX_BUDGET_TOKENS,
        description="the most tokens the text may take, counted as GPT-4o's tokenizer counts them (o200k_base)",
    )
    as_of: Timestamp | None = Field(
        default=None,
        description="what held at this time: facts, and episodes and summaries no later (default: what holds now)",
    )
    format: Literal["json", "text"] = Field(
        default="json", description="json: the text and an item per line naming its episodes; text: the text alone"
    )
