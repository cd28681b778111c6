"""The records the evaluations read (MuSiQue's passages and questions, LoCoMo's qa items) as pydantic models.

Only what scoring needs is typed; the rest of each record is ignored, as in memoria.datasets.records: the real
files carry answers, aliases, decompositions and adversarial answers that no metric reads. Problems keep the
words the evaluations always used: a record that is not an object says what it needs, missing keys are named
together, and a field's problem names the field (`queries.json[2].question: must be a non-empty text`).
Rules that span records (a supporting passage is in the corpus, some passage supports) live in the loaders.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import BeforeValidator, PlainValidator, StrictBool, StrictStr, ValidationError

from memoria.datasets.records import DatasetRecord

# The dataset's numbering, named by what its questions ask (LoCoMo, Maharana et al. 2024).
CATEGORIES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}


def _text(*, blank_allowed: bool) -> Any:
    def check(value: Any) -> Any:
        if not isinstance(value, str) or not (value if blank_allowed else value.strip()):
            raise ValueError("must be a non-empty text")
        return value

    return check


def _list(value: Any) -> Any:
    if not isinstance(value, list):
        raise ValueError("must be a list")
    return value


def _dia_ids(value: Any) -> Any:
    if not isinstance(value, list) or not all(isinstance(entry, str) for entry in value):
        raise ValueError("must be a list of dia_id texts")
    return value


def _category(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in CATEGORIES:
        known = ", ".join(f"{number} ({name})" for number, name in CATEGORIES.items())
        raise ValueError(f"{value!r} is not one of {known}")
    return value


# A text with something in it; an id may be blank-looking (" ") but not empty, as the files were always read.
Id = Annotated[str, BeforeValidator(_text(blank_allowed=True))]
NonEmptyText = Annotated[str, BeforeValidator(_text(blank_allowed=False))]


class EvaluationRecord(DatasetRecord):
    """A record of an evaluation file; `needs` completes "must be an object with …" when it is not one."""

    needs: ClassVar[str]


class MusiquePassageRecord(EvaluationRecord):
    """A corpus.json passage as scoring reads it (the loader checks the rest)."""

    needs = "a title and a text"
    title: StrictStr
    text: StrictStr


class MusiqueParagraph(EvaluationRecord):
    """One of a question's paragraphs; the supporting ones are its gold passages."""

    needs = "a title, a paragraph_text and is_supporting true/false"
    title: StrictStr
    paragraph_text: StrictStr
    is_supporting: StrictBool


class MusiqueQuestionRecord(EvaluationRecord):
    """A queries.json question; its paragraphs are read one by one, each named by its own problem."""

    needs = "id, question and paragraphs"
    id: Id
    question: NonEmptyText
    paragraphs: Annotated[list[Any], PlainValidator(_list)]


class LocomoQuestionRecord(EvaluationRecord):
    """An item of a LoCoMo conversation's qa list."""

    needs = "question, category and evidence"
    question: NonEmptyText
    category: Annotated[int, PlainValidator(_category)]
    evidence: Annotated[list[str], PlainValidator(_dia_ids)]


Record = TypeVar("Record", bound=EvaluationRecord)


def evaluation_record(
    model: type[Record], raw: Any, where: str, problems: list[str], *, whole: bool = False
) -> Record | None:
    """`raw` as `model`, or None with its problems added: one for the record when it is not an object (or, with
    `whole`, for any problem), else its missing keys together, else one per bad field."""
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        errors = error.errors(include_url=False)
        if whole or any(not item["loc"] for item in errors):
            problems.append(f"{where}: must be an object with {model.needs}")
            return None
        missing = [str(item["loc"][0]) for item in errors if item["type"] == "missing"]
        if missing:
            problems.append(f"{where}: missing key(s) {', '.join(missing)}")
            return None
        for item in errors:
            problems.append(f"{where}.{item['loc'][0]}: {item['msg'].removeprefix('Value error, ')}")
        return None
