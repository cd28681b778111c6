"""Who makes a judgement an LLM can make (ingestion's steps, PPR's β and fact filter, community summaries).

One enum for every part that offers the choice, so `auto | offline | llm` means the same thing everywhere; a
StrEnum, because the choice arrives as a string (a request field, a command option) and is compared as one.
"""

from __future__ import annotations

from enum import StrEnum


class StepMode(StrEnum):
    AUTO = "auto"  # the LLM's steps when one is configured, the offline ones otherwise
    OFFLINE = "offline"  # never ask an LLM
    LLM = "llm"  # insist on the configured LLM; an error when there is none


STEP_MODES: tuple[StepMode, ...] = tuple(StepMode)
