"""`MemoriaRetriever`: LangChain's retriever interface over a Memoria group.

Each search hit becomes a `Document` whose text is the fact's sentence or the episode's content and whose metadata
carries what an agent needs to cite and to judge it: id, kind, score, validity, and the source episode ids
(`memoria_client.recall` does the mapping, shared with the LlamaIndex retriever). The client is synchronous
(http.client), so the async path runs it in a worker thread rather than holding the event loop.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from memoria_client import MemoriaClient, Recalled, Scope, recall
from pydantic import ConfigDict, Field


class MemoriaRetriever(BaseRetriever):
    """Documents for a query from one Memoria group: up to `k` facts, then up to `k` episodes, each best first.

    `valid_at` (ISO 8601) keeps only facts that held then; without it, facts a later episode invalidated are
    returned too, with `invalid_at` set in their metadata. `provenance` reads each fact's source episodes (one more
    request per fact); turn it off for speed. Refusals raise `memoria_client` errors (`NotFound` for a group the
    token cannot see, `Throttled` past the search rate once retries are spent).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: MemoriaClient
    group: str
    k: int = Field(default=5, ge=1, le=100)
    scopes: tuple[Scope, ...] = ("facts", "episodes")
    valid_at: str | None = None
    recipe: str | None = None
    provenance: bool = True

    @classmethod
    def from_url(cls, base_url: str, token: str, group: str, **options: Any) -> MemoriaRetriever:
        """A retriever with its own `MemoriaClient` for `base_url`, authenticated by a Memoria API token."""
        return cls(client=MemoriaClient(base_url, token), group=group, **options)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [_document(item) for item in self._recall(query)]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        found = await asyncio.to_thread(self._recall, query)
        return [_document(item) for item in found]

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


def _document(item: Recalled) -> Document:
    return Document(page_content=item.text, metadata=item.metadata(), id=item.id)
