"""`MemoriaRetriever`: LlamaIndex's retriever interface over a Memoria group.

Each search hit becomes a `NodeWithScore` around a `TextNode` whose text is the fact's sentence or the episode's
content and whose metadata carries id, kind, score, validity and the source episode ids (`memoria_client.recall`
does the mapping, shared with the LangChain retriever). An LLM reading the node sees its kind, name and validity;
ids, group, score and episode ids stay in the metadata for the program (cite them) but out of the prompt and the
embedding text. The client is synchronous (http.client), so the async path runs it in a worker thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from llama_index.core.callbacks import CallbackManager
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from memoria_client import MemoriaClient, Recalled, Scope, recall

HIDDEN_FROM_LLM = ["id", "group", "score", "episode_ids"]


class MemoriaRetriever(BaseRetriever):
    """Scored nodes for a query from one Memoria group: up to `k` facts, then up to `k` episodes, each best first.

    `valid_at` (ISO 8601) keeps only facts that held then; without it, facts a later episode invalidated are
    returned too, with `invalid_at` set in their metadata. `provenance` reads each fact's source episodes (one more
    request per fact). Refusals raise `memoria_client` errors (`NotFound` for a group the token cannot see).
    """

    def __init__(
        self,
        client: MemoriaClient,
        group: str,
        *,
        k: int = 5,
        scopes: Iterable[Scope] = ("facts", "episodes"),
        valid_at: str | None = None,
        recipe: str | None = None,
        provenance: bool = True,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        if not 1 <= k <= 100:
            raise ValueError(f"k must be between 1 and 100, not {k}")
        self.client = client
        self.group = group
        self.k = k
        self.scopes = tuple(scopes)
        self.valid_at = valid_at
        self.recipe = recipe
        self.provenance = provenance
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    @classmethod
    def from_url(cls, base_url: str, token: str, group: str, **options: Any) -> MemoriaRetriever:
        """A retriever with its own `MemoriaClient` for `base_url`, authenticated by a Memoria API token."""
        return cls(MemoriaClient(base_url, token), group, **options)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [_node(item) for item in self._recall(query_bundle.query_str)]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        found = await asyncio.to_thread(self._recall, query_bundle.query_str)
        return [_node(item) for item in found]

    def _recall(self, query: str) -> list[Recalled]:
        return recall(
            self.client,
            self.group,
            query,
            scopes=self.scopes,
            limit=self.k,
            valid_at=self.valid_at,
            recipe=self.recipe,
            provenance=self.provenance,
        )


def _node(item: Recalled) -> NodeWithScore:
    node = TextNode(
        id_=item.id,
        text=item.text,
        metadata=item.metadata(),
        excluded_llm_metadata_keys=HIDDEN_FROM_LLM,
        excluded_embed_metadata_keys=HIDDEN_FROM_LLM,
    )
    return NodeWithScore(node=node, score=item.score)
