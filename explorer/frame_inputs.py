"""What a client's websocket frames hold, as pydantic models: the envelope every frame has, the frames that name a
retrieval (cancel, replay), and a retrieve frame's own keys (the rest of it is the algorithm's body, read by that
algorithm's request model). Refusals come out through the shared adapter, worded as the REST API words them."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from explorer.frames import json_kind
from memoria.requests.vocabulary import OneOf, RequestModel, input_parse
from memoria.retrieval.event_types import Algorithm
from memoria.retrieval.request import RetrievalId

MESSAGE = "message"  # what a problem with the frame as a whole is named by


def _text(value: Any) -> Any:
    if not isinstance(value, str):
        raise ValueError(f"must be a string, not {json_kind(value)}")
    return value


class FrameEnvelope(BaseModel):
    """Every frame: a JSON object with a text `type`; what else it holds is its type's business."""

    model_config = ConfigDict(extra="allow")

    type: Annotated[str, BeforeValidator(_text)] = Field(description="what the frame asks")


class RetrievalNamed(RequestModel):
    """`cancel` (live socket) and `replay` (watch socket): the retrieval they name, and nothing else."""

    type: str
    retrieval_id: RetrievalId


class RetrieveHeader(BaseModel):
    """A `retrieve` frame's own keys; its other keys are the algorithm's body, checked by that algorithm's model."""

    model_config = ConfigDict(extra="allow")

    type: str
    retrieval_id: RetrievalId | None = Field(default=None, description="the client's id for it; one is made if none")
    algorithm: OneOf(Algorithm) = Algorithm.ACTIVATION  # type: ignore[valid-type]

    def body(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def frame_envelope(content: Any) -> FrameEnvelope:
    return input_parse(FrameEnvelope, content, root=MESSAGE)


def retrieval_named(content: dict[str, Any]) -> str:
    return input_parse(RetrievalNamed, content, root=MESSAGE).retrieval_id


def retrieve_header(content: dict[str, Any]) -> RetrieveHeader:
    return input_parse(RetrieveHeader, content, root=MESSAGE)
