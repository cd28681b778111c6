"""An OpenAI-compatible chat-completions client that answers with checked JSON, so any such server can do LLM steps.

Standard library only (urllib): the LLM is optional, and an install without one should not carry an HTTP stack for it.
"""

from __future__ import annotations

import json
import logging
import math
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.message import Message as HttpHeaders
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from jsonschema import Draft202012Validator

from memoria.errors import LlmInvalidAnswer, LlmUnavailable

logger = logging.getLogger(__name__)

Message = dict[str, str]

DEFAULT_MAX_ATTEMPTS = 3
BACKOFF_SECONDS = 0.5  # doubled after each retried answer
MAX_BACKOFF_SECONDS = 30.0  # also caps a server's Retry-After: a caller should not hang for minutes
RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RESPONSE_BYTES = 8 * 1024 * 1024
MAX_SHOWN_PROBLEMS = 5
COMPLETIONS_PATH = "/chat/completions"
# Words in a 400 answer that say the server does not take `response_format: json_schema`.
SCHEMA_REFUSAL_WORDS = ("response_format", "json_schema")


@dataclass(frozen=True)
class LlmSettings:
    url: str  # the API base, e.g. http://127.0.0.1:8080/v1 (or the full …/chat/completions address)
    model: str
    timeout: float  # seconds; MEMORIA_LLM_TIMEOUT when configured (memoria/settings.py holds its default)
    api_key: str = ""

    @property
    def endpoint(self) -> str:
        base = self.url.rstrip("/")
        return base if base.endswith(COMPLETIONS_PATH) else base + COMPLETIONS_PATH


def llm_settings() -> LlmSettings | None:
    """The configured LLM, or None when MEMORIA_LLM_URL or MEMORIA_LLM_MODEL is unset (the offline steps run)."""
    url = str(getattr(settings, "MEMORIA_LLM_URL", "") or "").strip()
    model = str(getattr(settings, "MEMORIA_LLM_MODEL", "") or "").strip()
    if not url or not model:
        return None
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
        raise LlmUnavailable(f"MEMORIA_LLM_URL={url!r} must be an http:// or https:// address")
    raw_timeout = settings.MEMORIA_LLM_TIMEOUT
    try:
        timeout = float(raw_timeout)
    except (TypeError, ValueError) as error:
        raise LlmUnavailable(f"MEMORIA_LLM_TIMEOUT={raw_timeout!r} is not a number of seconds") from error
    if not (math.isfinite(timeout) and timeout > 0):
        raise LlmUnavailable(f"MEMORIA_LLM_TIMEOUT={raw_timeout!r} must be a positive number of seconds")
    api_key = str(getattr(settings, "MEMORIA_LLM_API_KEY", "") or "").strip()
    return LlmSettings(url=url, model=model, api_key=api_key, timeout=timeout)


def llm_configured() -> bool:
    return llm_settings() is not None


def chat_client() -> ChatClient:
    """A client for the configured LLM; LlmUnavailable when none is configured."""
    config = llm_settings()
    if config is None:
        raise LlmUnavailable("no LLM is configured (set MEMORIA_LLM_URL and MEMORIA_LLM_MODEL)")
    return ChatClient(config)


def chat_client_or_none() -> ChatClient | None:
    """The configured LLM's client, or None: for steps that have an offline way."""
    config = llm_settings()
    return ChatClient(config) if config else None


def json_object_in(content: str) -> dict[str, Any] | None:
    """The answer's JSON object: the whole text, or else the first object inside it (prose or ``` fences around)."""
    text = content.strip()
    try:
        whole = json.loads(text)
    except ValueError:
        pass
    else:  # valid JSON of another kind (a list, a string) is a wrong answer, not one to dig an object out of
        return whole if isinstance(whole, dict) else None
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            found, _ = decoder.raw_decode(text, start)
        except ValueError:
            found = None
        if isinstance(found, dict):
            return found
        start = text.find("{", start + 1)
    return None


def schema_problems(answer: Any, schema: dict[str, Any]) -> list[str]:
    """Where the answer breaks its schema, as `path: message` lines."""
    problems = []
    for error in sorted(Draft202012Validator(schema).iter_errors(answer), key=lambda e: list(e.absolute_path)):
        path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path)
        problems.append(f"answer{path}: {error.message}")
    return problems


def _retry_after(headers: HttpHeaders | None) -> float | None:
    value = headers.get("Retry-After") if headers else None
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP date: rare from LLM servers, and the backoff is a fine substitute
    return seconds if seconds is not None and math.isfinite(seconds) and seconds >= 0 else None


class ChatClient:
    """One configured OpenAI-compatible server; `complete_json` is the whole interface the steps need."""

    def __init__(
        self,
        config: LlmSettings,
        *,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        backoff_seconds: float = BACKOFF_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts={max_attempts} must be at least 1")
        self.config = config
        self.max_attempts = max_attempts
        self.backoff_seconds = backoff_seconds
        self._sleep = sleep
        # Cleared when the server refuses `response_format: json_schema`; the schema then goes into the prompt.
        self.schema_format = True

    def complete_json(self, *, messages: Sequence[Message], schema_name: str, schema: dict[str, Any]) -> dict[str, Any]:
        """The model's answer as a JSON object that matches `schema`; LlmInvalidAnswer otherwise, never a part of it."""
        body = self._post(self._request_body(messages, schema_name, schema))
        if body is None:  # the server refused json_schema: ask again with the schema written into the prompt
            self.schema_format = False
            body = self._post(self._request_body(messages, schema_name, schema))
            if body is None:
                raise LlmUnavailable(f"LLM at {self.config.endpoint} refused the request (400)")
        content = self._content_of(body)
        answer = json_object_in(content)
        if answer is None:
            raise LlmInvalidAnswer(f"the LLM's {schema_name} answer holds no JSON object: {content[:200]!r}")
        problems = schema_problems(answer, schema)
        if problems:
            shown = "; ".join(problems[:MAX_SHOWN_PROBLEMS])
            more = len(problems) - MAX_SHOWN_PROBLEMS
            raise LlmInvalidAnswer(
                f"the LLM's {schema_name} answer does not match its schema: {shown}"
                + (f"; and {more} more" if more > 0 else "")
            )
        return answer

    def _request_body(self, messages: Sequence[Message], schema_name: str, schema: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.config.model, "temperature": 0, "messages": list(messages)}
        if self.schema_format:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "schema": schema, "strict": True},
            }
        else:
            instruction = (
                "Answer with one JSON object and nothing else. It must match this JSON schema:\n"
                + json.dumps(schema, separators=(",", ":"))
            )
            body["messages"] = [*body["messages"], {"role": "system", "content": instruction}]
        return body

    def _post(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The decoded answer; None when a 400 says the server does not take json_schema answers."""
        endpoint = self.config.endpoint
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        for attempt in range(1, self.max_attempts + 1):
            # The scheme was checked in llm_settings: only http(s) reaches here.
            request = urllib.request.Request(endpoint, data=data, headers=headers, method="POST")  # noqa: S310 - http(s)
            wait: float | None = None
            try:
                with urllib.request.urlopen(request, timeout=self.config.timeout) as response:  # noqa: S310 - http(s)
                    raw = response.read(MAX_RESPONSE_BYTES + 1)
            except urllib.error.HTTPError as error:
                detail = error.read(2000).decode("utf-8", "replace")
                if error.code == 400 and self.schema_format and any(w in detail for w in SCHEMA_REFUSAL_WORDS):
                    return None
                if error.code not in RETRIED_STATUSES:
                    raise LlmUnavailable(f"LLM at {endpoint} answered {error.code}: {detail[:300]}") from error
                failure: Exception = LlmUnavailable(f"LLM at {endpoint} answered {error.code}: {detail[:300]}")
                wait = _retry_after(error.headers)
            except TimeoutError as error:
                # Not retried: the server may still be working on it, and the caller's wait is already spent.
                raise LlmUnavailable(f"LLM at {endpoint} did not answer within {self.config.timeout:g} s") from error
            except urllib.error.URLError as error:
                if isinstance(error.reason, TimeoutError):
                    raise LlmUnavailable(
                        f"LLM at {endpoint} did not answer within {self.config.timeout:g} s"
                    ) from error
                failure = LlmUnavailable(f"LLM at {endpoint} cannot be reached: {error.reason}")
            except OSError as error:  # a connection reset mid-answer
                failure = LlmUnavailable(f"LLM at {endpoint} broke the connection: {error}")
            else:
                return self._decoded(raw, endpoint)
            if attempt == self.max_attempts:
                raise failure
            delay = min(MAX_BACKOFF_SECONDS, wait if wait is not None else self.backoff_seconds * 2 ** (attempt - 1))
            logger.warning("%s; retry %d of %d in %.1f s", failure, attempt, self.max_attempts - 1, delay)
            self._sleep(delay)
        raise AssertionError("unreachable: the last attempt returns or raises")

    @staticmethod
    def _decoded(raw: bytes, endpoint: str) -> dict[str, Any]:
        if len(raw) > MAX_RESPONSE_BYTES:
            raise LlmInvalidAnswer(f"LLM at {endpoint} sent more than {MAX_RESPONSE_BYTES} bytes")
        try:
            body = json.loads(raw)
        except ValueError as error:
            raise LlmInvalidAnswer(f"LLM at {endpoint} did not answer with JSON: {raw[:200]!r}") from error
        if not isinstance(body, dict):
            raise LlmInvalidAnswer(f"LLM at {endpoint} did not answer with a JSON object")
        return body

    @staticmethod
    def _content_of(body: dict[str, Any]) -> str:
        """The first choice's text; a refused, cut-off or empty answer is not one."""
        choices = body.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
        message = choice.get("message") if choice else None
        if not isinstance(message, dict):
            raise LlmInvalidAnswer("the LLM's answer has no choices[0].message (not OpenAI-compatible?)")
        if message.get("refusal"):
            raise LlmInvalidAnswer(f"the LLM refused: {str(message['refusal'])[:200]}")
        if choice.get("finish_reason") == "length":
            raise LlmInvalidAnswer("the LLM's answer was cut off at its length limit")
        content = message.get("content")
        if not isinstance(content, str) or not content.strip():
            raise LlmInvalidAnswer("the LLM's answer is empty")
        return content
