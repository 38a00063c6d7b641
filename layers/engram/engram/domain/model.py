"""The vocabulary of memory: closed enums and the value objects that flow between steps.

Everything here is pure data. Closed vocabularies are the product's safety rail: an extractor
(rule or LLM) can only produce a type or predicate listed here, never invent one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from .keys import scope_key


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"


class EventType(StrEnum):
    PROFILE = "profile"
    PREFERENCE = "preference"
    DISLIKE = "dislike"
    HEALTH = "health"
    RELATION = "relation"
    TASK = "task"
    PLAN = "plan"
    EMOTION = "emotion"
    CORRECTION = "correction"
    FACT = "fact"
    SMALL_TALK = "small_talk"
    GREETING = "greeting"
    # What the assistant said (a recommendation, an explanation, a promise, an answer): memory of
    # its own kind, never a belief about the user.
    ASSISTANT = "assistant"


class TrustSource(StrEnum):
    """Who vouches for a memory. Weights live in ``domain.profile.trust``."""

    USER = "user"          # the user said it explicitly
    RULE = "rule"          # a deterministic extractor read it from the user's words
    LLM = "llm"            # a model inferred it
    SYSTEM = "system"      # a third-party system of record
    HUMAN = "human"        # corrected by a person through the transparency API


class Predicate(StrEnum):
    HAS_NAME = "has_name"
    HAS_AGE = "has_age"
    HAS_PREFERENCE = "has_preference"
    DISLIKES = "dislikes"
    ALLERGIC_TO = "allergic_to"
    HAS_CONDITION = "has_condition"
    HAS_CHILD = "has_child"
    HAS_PARENT = "has_parent"
    HAS_SPOUSE = "has_spouse"
    HAS_SIBLING = "has_sibling"
    HAS_FRIEND = "has_friend"
    HAS_ADVISOR = "has_advisor"
    HAS_COLLEAGUE = "has_colleague"
    HAS_MANAGER = "has_manager"
    STRUGGLES_WITH = "struggles_with"
    MASTERS = "masters"
    WORKS_AS = "works_as"
    LIVES_IN = "lives_in"
    HAS_PET = "has_pet"
    WORKS_AT = "works_at"
    COMES_FROM = "comes_from"
    HAS_BIRTHDAY = "has_birthday"
    HAS_HOBBY = "has_hobby"
    STUDIED_AT = "studied_at"
    STUDIED = "studied"


class NodeLabel(StrEnum):
    USER = "User"
    PREFERENCE = "Preference"
    CONCEPT = "Concept"
    PRODUCT = "Product"
    BEHAVIOR = "Behavior"
    PERSON = "Person"


@dataclass(frozen=True)
class PredicateSpec:
    target: NodeLabel
    event_type: EventType
    # A functional predicate holds one value at a time: a new value closes the old edge.
    functional: bool = False
    # The predicates whose edges to the same object a new edge contradicts.
    opposites: tuple[Predicate, ...] = ()
    # Decay class (see domain.lifecycle.decay.HALF_LIFE_DAYS).
    decay_class: str = "default"
    sensitive: bool = False


PREDICATES: dict[Predicate, PredicateSpec] = {
    Predicate.HAS_NAME: PredicateSpec(NodeLabel.CONCEPT, EventType.PROFILE, functional=True, decay_class="identity"),
    Predicate.HAS_AGE: PredicateSpec(NodeLabel.CONCEPT, EventType.PROFILE, functional=True, decay_class="identity"),
    Predicate.HAS_PREFERENCE: PredicateSpec(NodeLabel.PREFERENCE, EventType.PREFERENCE,
                                            opposites=(Predicate.DISLIKES,), decay_class="preference"),
    Predicate.DISLIKES: PredicateSpec(NodeLabel.PREFERENCE, EventType.DISLIKE,
                                      opposites=(Predicate.HAS_PREFERENCE, Predicate.HAS_HOBBY),
                                      decay_class="preference"),
    Predicate.ALLERGIC_TO: PredicateSpec(NodeLabel.CONCEPT, EventType.HEALTH, decay_class="health", sensitive=True),
    Predicate.HAS_CONDITION: PredicateSpec(NodeLabel.CONCEPT, EventType.HEALTH, decay_class="health",
                                           sensitive=True),
    Predicate.HAS_CHILD: PredicateSpec(NodeLabel.PERSON, EventType.RELATION, decay_class="relation", sensitive=True),
    Predicate.HAS_PARENT: PredicateSpec(NodeLabel.PERSON, EventType.RELATION, decay_class="relation", sensitive=True),
    Predicate.HAS_SPOUSE: PredicateSpec(NodeLabel.PERSON, EventType.RELATION, functional=True,
                                        decay_class="relation", sensitive=True),
    Predicate.HAS_SIBLING: PredicateSpec(NodeLabel.PERSON, EventType.RELATION, decay_class="relation",
                                         sensitive=True),
    Predicate.HAS_FRIEND: PredicateSpec(NodeLabel.PERSON, EventType.RELATION, decay_class="relation", sensitive=True),
    Predicate.HAS_ADVISOR: PredicateSpec(NodeLabel.PERSON, EventType.RELATION, decay_class="relation",
                                         sensitive=True),
    Predicate.HAS_COLLEAGUE: PredicateSpec(NodeLabel.PERSON, EventType.RELATION, decay_class="relation",
                                           sensitive=True),
    Predicate.HAS_MANAGER: PredicateSpec(NodeLabel.PERSON, EventType.RELATION, functional=True,
                                         decay_class="relation", sensitive=True),
    Predicate.STRUGGLES_WITH: PredicateSpec(NodeLabel.CONCEPT, EventType.FACT, opposites=(Predicate.MASTERS,)),
    Predicate.MASTERS: PredicateSpec(NodeLabel.CONCEPT, EventType.FACT, opposites=(Predicate.STRUGGLES_WITH,)),
    Predicate.WORKS_AS: PredicateSpec(NodeLabel.CONCEPT, EventType.PROFILE, functional=True),
    Predicate.LIVES_IN: PredicateSpec(NodeLabel.CONCEPT, EventType.PROFILE, functional=True),
    # A pet is kept by its name and kind ("Rex (dog)"), or its kind alone when it has no name yet.
    Predicate.HAS_PET: PredicateSpec(NodeLabel.CONCEPT, EventType.PROFILE, decay_class="relation"),
    # The employer or the kind of workplace ("Google", "hospital"): one at a time, as the occupation.
    Predicate.WORKS_AT: PredicateSpec(NodeLabel.CONCEPT, EventType.PROFILE, functional=True),
    # Where the user is from (grew up, was born): not where they live now, and it does not change.
    Predicate.COMES_FROM: PredicateSpec(NodeLabel.CONCEPT, EventType.PROFILE, functional=True,
                                        decay_class="identity"),
    Predicate.HAS_BIRTHDAY: PredicateSpec(NodeLabel.CONCEPT, EventType.PROFILE, functional=True,
                                          decay_class="identity"),
    # What the user does in their time ("hiking", "guitar"): a behaviour, fading like a taste.
    # A hobby the user now dislikes is over ("I hate hiking now"); taking one up again ends the dislike.
    Predicate.HAS_HOBBY: PredicateSpec(NodeLabel.BEHAVIOR, EventType.PREFERENCE, opposites=(Predicate.DISLIKES,),
                                       decay_class="preference"),
    # A school and a field of study: several of each over a life, none undone by the next.
    Predicate.STUDIED_AT: PredicateSpec(NodeLabel.CONCEPT, EventType.PROFILE, decay_class="identity"),
    Predicate.STUDIED: PredicateSpec(NodeLabel.CONCEPT, EventType.PROFILE, decay_class="identity"),
}

# Words an extractor or a client may use for a predicate; anything else is rejected.
PREDICATE_SYNONYMS: dict[str, Predicate] = {
    **{p.value: p for p in Predicate},
    "likes": Predicate.HAS_PREFERENCE, "loves": Predicate.HAS_PREFERENCE, "prefers": Predicate.HAS_PREFERENCE,
    "enjoys": Predicate.HAS_PREFERENCE, "hates": Predicate.DISLIKES, "dislike": Predicate.DISLIKES,
    "allergy": Predicate.ALLERGIC_TO, "son": Predicate.HAS_CHILD, "daughter": Predicate.HAS_CHILD,
    "child": Predicate.HAS_CHILD, "kid": Predicate.HAS_CHILD, "mother": Predicate.HAS_PARENT,
    "father": Predicate.HAS_PARENT, "mom": Predicate.HAS_PARENT, "dad": Predicate.HAS_PARENT,
    "parent": Predicate.HAS_PARENT, "wife": Predicate.HAS_SPOUSE, "husband": Predicate.HAS_SPOUSE,
    "spouse": Predicate.HAS_SPOUSE, "brother": Predicate.HAS_SIBLING, "sister": Predicate.HAS_SIBLING,
    "friend": Predicate.HAS_FRIEND, "advisor": Predicate.HAS_ADVISOR, "supervisor": Predicate.HAS_ADVISOR,
    "mentor": Predicate.HAS_ADVISOR, "teacher": Predicate.HAS_ADVISOR, "colleague": Predicate.HAS_COLLEAGUE,
    "coworker": Predicate.HAS_COLLEAGUE, "boss": Predicate.HAS_MANAGER, "manager": Predicate.HAS_MANAGER,
    "pet": Predicate.HAS_PET, "employer": Predicate.WORKS_AT, "hometown": Predicate.COMES_FROM,
    "birthday": Predicate.HAS_BIRTHDAY, "hobby": Predicate.HAS_HOBBY, "school": Predicate.STUDIED_AT,
    "major": Predicate.STUDIED,
    "儿子": Predicate.HAS_CHILD, "女儿": Predicate.HAS_CHILD, "孩子": Predicate.HAS_CHILD,
    "妈妈": Predicate.HAS_PARENT, "爸爸": Predicate.HAS_PARENT, "母亲": Predicate.HAS_PARENT,
    "父亲": Predicate.HAS_PARENT, "妻子": Predicate.HAS_SPOUSE, "老婆": Predicate.HAS_SPOUSE,
    "丈夫": Predicate.HAS_SPOUSE, "老公": Predicate.HAS_SPOUSE, "哥哥": Predicate.HAS_SIBLING,
    "姐姐": Predicate.HAS_SIBLING, "弟弟": Predicate.HAS_SIBLING, "妹妹": Predicate.HAS_SIBLING,
    "朋友": Predicate.HAS_FRIEND, "导师": Predicate.HAS_ADVISOR, "老师": Predicate.HAS_ADVISOR,
    "同事": Predicate.HAS_COLLEAGUE, "老板": Predicate.HAS_MANAGER, "经理": Predicate.HAS_MANAGER,
    "领导": Predicate.HAS_MANAGER,
}


def resolve_predicate(word: str) -> Predicate | None:
    """Map a word onto the closed vocabulary; ``None`` means reject, never invent."""
    return PREDICATE_SYNONYMS.get(word.strip().lower().replace(" ", "_"))


@dataclass(frozen=True)
class Message:
    """One message as the client sent it, checked (``ingest.sanitise.read_message``) but not yet cleaned:
    its content is what was said, whose hash is the message's identity."""

    role: Role
    content: str
    client_ts: datetime
    message_id: str | None = None


@dataclass(frozen=True)
class Turn:
    """One cleaned message as accepted by ingestion."""

    message_id: str
    role: Role
    content: str
    client_ts: datetime
    raw_sha256: str
    truncated: bool = False
    # An assistant's answer longer than the working memory's cap, up to ``SUBSTANCE_CAP``: what its
    # episode holds, so a question about what the answer went on to say still finds it.
    substance: str = ""


@dataclass(frozen=True)
class Extraction:
    """One thing learned from a user's turn, before routing decides where it lives."""

    type: EventType
    summary: str
    message_id: str
    confidence: float
    source: TrustSource = TrustSource.RULE
    predicate: Predicate | None = None
    object: str | None = None
    tags: tuple[str, ...] = ()
    weight: float = 1.0
    occurred_at: datetime | None = None
    sensitive: bool = False
    keywords: tuple[str, ...] = field(default=())

    @property
    def is_fact(self) -> bool:
        return self.predicate is not None and self.object is not None


@dataclass(frozen=True)
class Scope:
    """Whose memory an operation touches. Every store query is built from one."""

    tenant: str
    user_id: str

    @property
    def key(self) -> str:
        """Tenant and user as one string that no other (tenant, user) has (``domain.keys``)."""
        return scope_key(self.tenant, self.user_id)
