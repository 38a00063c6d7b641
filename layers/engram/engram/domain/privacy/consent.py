"""Consent and child mode: who may be remembered, and how much."""

from __future__ import annotations

from dataclasses import dataclass

from ..records import UserState

CHILD_AGE = 13

# What child mode leaves of an episodic event: its type, times, ids, tags and scores. The text
# fields are emptied (not removed, so a child's event has the shape of anyone's) and the vector
# goes, as it is an embedding of the text.
CHILD_EVENT_BLANKS: dict = {"summary": "", "text": "", "context": "", "keywords": [], "blind_terms": [],
                            "sensitive": False}
# What child mode leaves of a task's metadata: the ids of the turns it came from. A title is
# emptied rather than dropped, as a child's new tasks are written with ``"title": ""``.
CHILD_TASK_KEEPS = ("message_ids",)
CHILD_TASK_BLANKS = ("title",)


def is_child(age: int | None) -> bool:
    return age is not None and age < CHILD_AGE


@dataclass(frozen=True)
class ConsentDecision:
    long_term: bool
    child_mode: bool | None   # None: the age was not given, child mode stays as it was


def decide_consent(long_term: bool, age: int | None) -> ConsentDecision:
    """A child's long-term memory is never on, whatever was asked; an age turns child mode on
    or off, no age leaves it as it was."""
    child = is_child(age)
    return ConsentDecision(long_term=long_term and not child, child_mode=None if age is None else child)


def redacted_metadata(metadata: dict, keep: tuple[str, ...], blank: tuple[str, ...]) -> dict:
    """``metadata`` with only the keys in ``keep`` and ``blank``, the latter emptied
    (``adapters.postgres.task_store.redact_metadata`` is the same rule in SQL)."""
    return {k: "" if k in blank else v for k, v in metadata.items() if k in keep or k in blank}


def child_task_metadata(metadata: dict) -> dict:
    return redacted_metadata(metadata, CHILD_TASK_KEEPS, CHILD_TASK_BLANKS)


@dataclass(frozen=True)
class Permissions:
    """What the user's consent allowed when ingestion read it. It travels with the batch between
    the steps (JSON), so it only ever narrows what a step does: the write step reads the user's
    state again, and compares it with this to catch a withdrawal that happened in between."""

    long_term: bool = False   # the default allows nothing
    child_mode: bool = False
    version: int = 0

    @classmethod
    def of(cls, state: UserState) -> Permissions:
        return cls(state.long_term_consent and not state.child_mode, state.child_mode, state.consent_version)

    def llm_may_read(self, sensitive: bool) -> bool:
        """The optional LLM extractor is a profile extractor (facts for the graph), so it reads a
        turn only when a profile may be kept: never a child's, never without long-term consent.
        A turn the rules found sensitive (health, relations) is never sent either: the consent is
        to keep a profile, sealed at rest, not to show those details to a model provider."""
        return self.long_term and not self.child_mode and not sensitive

    def withdrawn_in(self, later: Permissions) -> bool:
        """Whether ``later`` forbids something these permissions allowed."""
        return (self.long_term and not later.long_term) or (later.child_mode and not self.child_mode)
