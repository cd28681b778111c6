"""The records of the third-party dataset files (MuSiQue's corpus and OpenIE, LoCoMo's turns) as pydantic models.

Fields are checked by the import format's rules and words (memoria.interchange.records), so a passage title
is refused exactly as a node name would be. Unknown keys are ignored, not refused: these files are written by
other projects, not typed by our users, and the real ones carry keys no loader reads (LoCoMo turns hold img_url,
query and re-download beside speaker, dia_id and text; its files hold qa, observations, summaries and events);
refusing such keys would refuse a dataset over metadata we never use, and the loaders always ignored them.
Rules that span records (idx is the position, the two MuSiQue files agree) live with the loaders.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PlainValidator,
    TypeAdapter,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
)

from memoria.graph.rules import TIMESTAMP_FORMAT, shown
from memoria.interchange.records import AnyList, Name, PresentText


class DatasetRecord(BaseModel):
    """Base of a third-party file's record: its unknown keys are ignored (see the module's docstring)."""

    model_config = ConfigDict(extra="ignore")


class CorpusPassage(DatasetRecord):
    """One passage of MuSiQue's corpus.json."""

    title: Name
    text: PresentText


class OpenieDocument(DatasetRecord):
    """What the LLM extracted from passage `idx`; its entities and triples are read (and skipped when bad) later.

    Validated with context {"index": i}: document i must describe passage i, so `idx` must be i.
    """

    idx: Any
    title: Name
    extracted_entities: AnyList
    extracted_triples: AnyList

    @field_validator("idx", mode="plain")
    @classmethod
    def _is_position(cls, idx: Any, info: ValidationInfo) -> int:
        index = (info.context or {}).get("index")
        if isinstance(idx, bool) or not isinstance(idx, int) or (index is not None and idx != index):
            raise ValueError(f"is {shown(idx)}; document i must have idx i (expected {index})")
        return idx


SESSION_TIME_FORMAT = "%I:%M %p on %d %B, %Y"


def session_time(value: str) -> str:
    """ "1:47 pm on 18 May, 2023" → "2023-05-18T13:47:00Z" (read as UTC: the dataset gives no zone)."""
    if not isinstance(value, str):
        raise ValueError(f"a session date is a string, not {type(value).__name__}")
    moment = datetime.strptime(" ".join(value.split()), SESSION_TIME_FORMAT).replace(tzinfo=UTC)
    return moment.strftime(TIMESTAMP_FORMAT)


def _session_time(value: Any) -> str:
    try:
        return session_time(value)
    except ValueError:
        raise ValueError(f"{shown(value)} is not a date like '1:47 pm on 18 May, 2023'") from None


# A LoCoMo session's session_N_date_time, as the timestamp its turns happened at.
SessionTime = Annotated[str, PlainValidator(_session_time), WithJsonSchema({"type": "string"})]
SESSION_TIME: TypeAdapter[str] = TypeAdapter(SessionTime)


def _string(value: Any) -> Any:
    if not isinstance(value, str):
        raise ValueError(f"must be a string, not {type(value).__name__}")
    return value


# Only the type here: the turn's words are checked as the episode they become (length, characters, id rules),
# in the words every episode gets.
TurnText = Annotated[str, BeforeValidator(_string)]


class LocomoTurn(DatasetRecord):
    """One turn of a LoCoMo session; a photo it shares is described by the dataset's `blip_caption`."""

    speaker: TurnText
    dia_id: TurnText
    text: TurnText
    blip_caption: Annotated[str | None, BeforeValidator(lambda value: value if value is None else _string(value))] = (
        None
    )
