"""Typed errors of the memory engine; HTTP and websocket layers map them in one place each."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


class MemoriaError(Exception):
    """Base class: every error the engine raises on purpose."""


class GraphUnavailable(MemoriaError):
    """The graph server cannot be reached or stopped answering."""


class ProjectionLoading(GraphUnavailable):
    """A group's in-memory graph projection is still loading in the background; asking again shortly works."""


class EmbeddedServerError(MemoriaError):
    """The embedded graph server could not be started or controlled."""


class InvalidInput(MemoriaError):
    """Input was rejected before anything was written; `problems` name each offending item."""

    def __init__(self, problems: list[str] | str) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        shown = "; ".join(self.problems[:10])
        more = len(self.problems) - 10
        super().__init__(shown + (f"; and {more} more" if more > 0 else ""))


def names_shown(names: Iterable[str]) -> str:
    """Names for a message, comma-separated; a blank one quoted, so an empty parameter name is still seen."""
    return ", ".join(name if name.strip() else repr(name) for name in names)


def unknown_keys_problem(raw: Mapping[str, object], known: Iterable[str], *, where: str, noun: str) -> str | None:
    """The problem naming the keys of `raw` outside `known` (listed in their given order), or None."""
    listed = list(known)
    unknown = sorted(set(raw) - set(listed))
    return f"{where}: unknown {noun} {', '.join(unknown)} (known: {', '.join(listed)})" if unknown else None


class InvalidGraphDocument(InvalidInput):
    """A graph document (import JSON) broke a rule of docs/import-format.md."""


class WriteConflict(MemoriaError):
    """Concurrent writers kept changing what this write depends on; nothing was written and retrying is safe."""


class GroupNotFound(MemoriaError):
    """The group does not exist or the user may not see it (the two are not told apart)."""


class NodeNotFound(GroupNotFound):
    """No memory with this id in the group: answered like an unseen group, so ids of other groups are not revealed."""


class EmbeddingModelError(MemoriaError):
    """The embedding model is missing, does not match its pinned weights, or has the wrong dimension."""


class LlmUnavailable(MemoriaError):
    """No LLM is configured, or it cannot be reached, or it kept failing after bounded retries."""


class LlmInvalidAnswer(LlmUnavailable):
    """The LLM answered, but not with JSON of the asked shape: nothing of such an answer is used."""


class BackupInvalid(InvalidInput):
    """A backup file this Memoria cannot restore: another format or version, truncated, or altered since written."""


class GroupNotEmpty(MemoriaError):
    """A restore would overwrite a group that already holds memories or audit entries (and replacing was not asked)."""
