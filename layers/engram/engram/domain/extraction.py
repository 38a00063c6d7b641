"""Step 2 of ingestion: rules that read facts about the user from the user's own words.

Rules run first and alone are enough to run the product; an optional LLM extractor (see
``service.llm``) may add what they miss. Only the user's turns speak for the user: an assistant
turn or a question about somebody else never becomes a fact about the user.
"""

from __future__ import annotations

import re
from collections import Counter

from .model import PREDICATES, EventType, Extraction, Predicate, Role, Turn, resolve_predicate

RULE_CONFIDENCE = 0.7  # a self-report read by a rule (SPEC: user self-report 0.7)
STOPWORDS = set(
    "a an the and or but if of to in on at for with from by is are was were be been being i me my mine you your "
    "he she it we they them his her its our their this that these those do does did have has had not no yes so "
    "just very really also too can could would should will shall may might must am what when where who how why "
    "which there here then than about as into up down out over again more most some any all one like get got "
    "im i'm it's dont don't".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+|[\u4e00-\u9fff]{2,4}")
_END = r"(?=$|[.,;!?，。；！？\n]| and | but )"
_OBJ = r"([^.,;!?，。；！？\n]{1,60}?)"
_NAME = r"([A-Z][a-zA-Z'-]{1,30}(?: [A-Z][a-zA-Z'-]{1,30})?)"
_ZH_OBJ = r"([^，。；！？,.;!?\s]{1,20}?)"
_ZH_END = r"(?=$|[，。；！？,.;!?\s])"
_RELATION_EN = ("son|daughter|child|kid|wife|husband|spouse|mother|father|mom|dad|brother|sister|friend|"
                "advisor|supervisor|mentor|teacher|colleague|coworker|boss|manager")
_RELATION_ZH = ("儿子|女儿|孩子|妻子|老婆|丈夫|老公|妈妈|爸爸|母亲|父亲|哥哥|姐姐|弟弟|妹妹|"
                "朋友|导师|老师|同事|老板|经理|领导")

# (pattern, predicate or event type, which group holds the object). First match per clause wins
# per predicate; the order puts negations before the positive forms they contain.
_FACT_RULES: list[tuple[re.Pattern, Predicate, int]] = [
    (re.compile(r"\b(?i:my name is) " + _NAME), Predicate.HAS_NAME, 1),
    (re.compile(r"\b(?:call me|i'm called|i am called) " + _NAME, re.I), Predicate.HAS_NAME, 1),
    (re.compile(r"我叫" + _ZH_OBJ + _ZH_END), Predicate.HAS_NAME, 1),
    (re.compile(r"我的名字(?:是|叫)" + _ZH_OBJ + _ZH_END), Predicate.HAS_NAME, 1),
    (re.compile(r"\bi(?:'m| am) (\d{1,3})(?: years old| yrs old| yo)?\b(?! (?:minutes|times|kg|km|%))", re.I),
     Predicate.HAS_AGE, 1),
    (re.compile(r"\bmy age is (\d{1,3})\b", re.I), Predicate.HAS_AGE, 1),
    (re.compile(r"我(?:今年)?(\d{1,3})岁"), Predicate.HAS_AGE, 1),
    (re.compile(r"\bi(?:'m| am) allergic to " + _OBJ + _END, re.I), Predicate.ALLERGIC_TO, 1),
    (re.compile(r"\bi have an? " + _OBJ + r" allergy\b", re.I), Predicate.ALLERGIC_TO, 1),
    (re.compile(r"我对" + _ZH_OBJ + r"过敏"), Predicate.ALLERGIC_TO, 1),
    (re.compile(r"\bi (?:have|was diagnosed with|suffer from) (diabetes|asthma|hypertension|high blood pressure|"
                r"depression|anxiety|adhd|insomnia|migraines?|celiac disease)\b", re.I), Predicate.HAS_CONDITION, 1),
    (re.compile(r"我(?:有|患有|得了)(糖尿病|哮喘|高血压|抑郁症|焦虑症|失眠|偏头痛)"), Predicate.HAS_CONDITION, 1),
    (re.compile(r"\bi (?:don't|do not|never) (?:like|enjoy|eat|drink) " + _OBJ + _END, re.I), Predicate.DISLIKES, 1),
    (re.compile(r"\bi (?:hate|dislike|can't stand|cannot stand|detest) " + _OBJ + _END, re.I),
     Predicate.DISLIKES, 1),
    (re.compile(r"我(?:不喜欢|讨厌|不爱|不吃|不喝|受不了)" + _ZH_OBJ + _ZH_END), Predicate.DISLIKES, 1),
    (re.compile(r"\bi (?:really |absolutely |also )?(?:like|love|enjoy|prefer|adore) " + _OBJ + _END, re.I),
     Predicate.HAS_PREFERENCE, 1),
    (re.compile(r"\bmy favou?rite \w+ is " + _OBJ + _END, re.I), Predicate.HAS_PREFERENCE, 1),
    (re.compile(r"我(?:很|非常|特别|最|也|还)?(?:喜欢|爱吃|爱喝|爱|偏好)" + _ZH_OBJ + _ZH_END),
     Predicate.HAS_PREFERENCE, 1),
    (re.compile(r"\bi (?:struggle with|am bad at|'m bad at|have trouble with) " + _OBJ + _END, re.I),
     Predicate.STRUGGLES_WITH, 1),
    (re.compile(r"\bi(?:'m| am) (?:good at|fluent in|an expert (?:in|at)) " + _OBJ + _END, re.I),
     Predicate.MASTERS, 1),
    (re.compile(r"\bi (?:work as|am working as|'m working as) an? " + _OBJ + _END, re.I), Predicate.WORKS_AS, 1),
    (re.compile(r"我是(?:一名|一个)?(医生|老师|护士|程序员|工程师|学生|律师|设计师|会计)"), Predicate.WORKS_AS, 1),
    (re.compile(r"\bi live in " + _NAME, re.I), Predicate.LIVES_IN, 1),
    (re.compile(r"我住在" + _ZH_OBJ + _ZH_END), Predicate.LIVES_IN, 1),
]

_RELATION_RULES: list[tuple[re.Pattern, int, int]] = [
    # (pattern, group of the person's name, group of the relation word)
    (re.compile(_NAME + r" is my (" + _RELATION_EN + r")\b"), 1, 2),
    (re.compile(r"\b(?i:my) (" + _RELATION_EN + r")(?:'s name)? is " + _NAME), 2, 1),
    (re.compile(r"\b(?i:my) (" + _RELATION_EN + r"),? " + _NAME + r"\b"), 2, 1),
    (re.compile(r"([\u4e00-\u9fff]{1,4}?)是我的?(" + _RELATION_ZH + r")"), 1, 2),
    (re.compile(r"我的?(" + _RELATION_ZH + r")叫([\u4e00-\u9fffA-Za-z]{1,6})"), 2, 1),
]

_CORRECTION = re.compile(r"^(?:no|nope|sorry|actually|correction)[,!.]?\s+(?:i meant|i mean|it's|it is|i said)\s+"
                         r"|^(?:不是|不对|不，|更正|我是说|我的意思是)", re.I)
_TASK = re.compile(r"\b(?:remind me to|please remind me|can you|could you|help me|please)\b|提醒我|帮我|请你|麻烦你",
                   re.I)
_PLAN = re.compile(r"\b(?:i'm going to|i am going to|i will|i'll|i plan to|planning to)\b|我打算|我计划|我要去|我准备",
                   re.I)
_GREETING = re.compile(r"^(?:hi|hello|hey|good (?:morning|afternoon|evening)|bye|goodbye|see you)\b"
                       r"|^(?:你好|您好|早上好|晚上好|嗨|再见|拜拜)", re.I)
_SMALL_TALK = re.compile(r"^(?:thanks|thank you|ok|okay|cool|great|lol|haha|sure|nice)\b[.! ]*$|^(?:谢谢|好的|哈哈|嗯|"
                         r"好吧|行)[。！ ]*$", re.I)
_EMOTION = re.compile(r"\bi(?:'m| am| feel| felt) (?:so |really |very )?(?:happy|sad|angry|upset|stressed|excited|"
                      r"anxious|tired|lonely|frustrated)\b|我(?:很|好|非常)?(?:开心|难过|生气|焦虑|累|沮丧|兴奋)", re.I)
# Reported speech or a question about someone: the words are not the user's claim about themself.
_NOT_SELF = re.compile(r"\b(?:he|she|they) (?:said|says|told)|\b(?:said|says) (?:that )?\""
                       r"|他说|她说|他们说|问一下|请问", re.I)
_CLAUSES = re.compile(r"(?<=[.!?。！？；;\n])\s*")


def keywords(text: str, k: int = 3) -> tuple[str, ...]:
    words = [w.lower() for w in _WORD.findall(text) if w.lower() not in STOPWORDS and len(w) > 2 or
             re.match(r"[\u4e00-\u9fff]", w)]
    return tuple(w for w, _ in Counter(words).most_common(k))


def summarise(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _clean_object(value: str) -> str:
    value = re.sub(r"^(?:to |the |a |an |eating |drinking )", "", value.strip(), flags=re.I)
    return value.strip(" '\"“”‘’")


def classify(text: str) -> EventType:
    """The event type of a whole turn when no fact rule fires."""
    if _GREETING.search(text):
        return EventType.GREETING
    if _SMALL_TALK.search(text):
        return EventType.SMALL_TALK
    if _CORRECTION.search(text):
        return EventType.CORRECTION
    if _TASK.search(text):
        return EventType.TASK
    if _PLAN.search(text):
        return EventType.PLAN
    if _EMOTION.search(text):
        return EventType.EMOTION
    return EventType.FACT


def extract_facts(turn: Turn) -> list[Extraction]:
    """Facts about the user in one of the user's turns; none from the assistant or hearsay."""
    if turn.role is not Role.USER:
        return []
    facts: list[Extraction] = []
    seen: set[tuple[Predicate, str]] = set()
    correction = bool(_CORRECTION.search(turn.content))
    for clause in filter(None, _CLAUSES.split(turn.content)):
        if _NOT_SELF.search(clause) or clause.rstrip().endswith(("?", "？")):
            continue
        found: list[tuple[Predicate, str]] = []
        for pattern, predicate, group in _FACT_RULES:
            match = pattern.search(clause)
            if match and not any(p == predicate or PREDICATES[p].opposite == predicate for p, _ in found):
                found.append((predicate, _clean_object(match.group(group))))
        for pattern, name_group, relation_group in _RELATION_RULES:
            match = pattern.search(clause)
            predicate = resolve_predicate(match.group(relation_group)) if match else None
            if predicate is not None:
                found.append((predicate, _clean_object(match.group(name_group))))
        for predicate, obj in found:
            if not obj or (predicate, obj.lower()) in seen:
                continue
            seen.add((predicate, obj.lower()))
            spec = PREDICATES[predicate]
            facts.append(Extraction(
                type=spec.event_type, summary=f"{predicate.value.replace('_', ' ')}: {obj}",
                message_id=turn.message_id, confidence=RULE_CONFIDENCE, predicate=predicate, object=obj,
                tags=("correction",) if correction else (), sensitive=spec.sensitive,
                keywords=keywords(obj + " " + clause),
            ))
    return facts


def extract_event(turn: Turn, facts: list[Extraction]) -> Extraction:
    """The episodic event a turn becomes: typed by its strongest fact, else by its shape."""
    event_type = facts[0].type if facts else classify(turn.content)
    return Extraction(
        type=event_type, summary=summarise(turn.content), message_id=turn.message_id,
        confidence=RULE_CONFIDENCE if facts else 0.5, keywords=keywords(turn.content),
        sensitive=any(f.sensitive for f in facts),
    )
