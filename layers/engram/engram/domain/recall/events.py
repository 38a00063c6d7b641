"""A question that sets two events side by side in time ("Which came first: the move or the new
job?", "How long after the surgery does the cruise leave?", "我是先搬的家还是先入的职？") needs a record
of each. Searched as one, the better-worded event and the turns around it fill the list and the
other is lost: each event is also searched on its own (``service.recall.steps``) and the lists fused.

Read from how the comparison is put, never from what it is about."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from .fusion import RRF_K, RecallItem

_I = re.IGNORECASE
_END = r"\s*[?？.。!！]*\s*$"
_AUX = r"(?:did|does|do|was|were|is|are|will|had|has|have|would)"
_COMPARED = (
    # "Which happened first: A or B?", "Which did I find out about first, A or B?"
    re.compile(r"\b(?:which|what)\b(?:\s+[\w']+){0,5}?\s+first\b\s*[:,;—–-]?\s*(.+?),?\s+or\s+(.+?)" + _END, _I),
    # "Did A or B come first?"
    re.compile(r"^(?:did|was|were|do)\s+(.+?),?\s+or\s+(.+?)\s+(?:come|came|happen|happened|go|went)\s+first"
               + _END, _I),
    # "How long after A did B?", "About how long before A was B?"
    re.compile(r"\bhow\s+(?:long|many\s+\w+|soon)\s+(?:after|before)\s+(.+?)\s+" + _AUX
               + r"\s+(.+?)" + _END, _I),
    # "How many days off did I have between A and B?", "How long was it from A to B?"
    re.compile(r"\bhow\s+(?:long|many|much\s+time|soon)\b.*?\bbetween\s+(.+?)\s+and\s+(.+?)" + _END, _I),
    re.compile(r"\bhow\s+(?:long|many|much\s+time)\b.*?\bfrom\s+(.+?)\s+(?:to|until|till)\s+(.+?)" + _END, _I),
    # "Did I adopt Ranger before or after the move?"
    re.compile(r"^(?:did|was|were|is|are|do)\s+(.+?)\s+(?:before\s+or\s+after|after\s+or\s+before)\s+(.+?)" + _END,
               _I),
    # "When did the roof pass its test, relative to the drive to Denver?"
    re.compile(r"^(.+?),?\s+relative\s+to\s+(.+?)" + _END, _I),
    # "我退冲刺班是在月考之前还是之后？"
    re.compile(r"^(.+?)[，,]?(?:是)?在(.+?)(?:之前|以前)还是(?:之后|以后)"),
    # "高数期中和线代期中分别是哪天考？"
    re.compile(r"^(.+?)(?:和|跟|与)(.+?)分别(?:是|在)"),
    # "我是先跟阿哲分手，还是先搬完家？", "用户是先退了街舞社还是先辞了奶茶店？"
    re.compile(r"先(.+?)[，,]?\s*还是先?(.+?)" + _END),
    # "搬家和入职哪个在先？"
    re.compile(r"^(?:我|用户)?(?:是)?(.+?)(?:和|跟|与|还是)(.+?)(?:哪个|哪件|谁)(?:事)?(?:在先|先|在前|更早|早)"),
    # "搬家之后多久入职的？", "从面试到入职隔了多久？"
    re.compile(r"^(?:我|用户)?(.+?)(?:之后|以后|后)(?:过了|隔了)?(?:多久|多长时间|几天|几周|几个月)(?:才|就)?(.+?)"
               + _END),
    re.compile(r"从(.+?)到(.+?)(?:之间)?(?:隔了|过了|用了|花了|相隔|相差)?(?:多久|多长时间|几天|几周|几个月)"),
)


def _content(event: str) -> bool:
    """Enough of an event to search by: a word of three letters, or two Chinese characters."""
    return bool(re.search(r"[A-Za-z]{3,}|[\u4e00-\u9fff]{2,}", event))


# A comparison is put in one sentence (the longest in the dialogue sets is 96 characters). Of a
# longer text only its end is read, from a sentence's start: the patterns' lazy groups cost the
# square of what they read (the cube for three), and a 2,000-character query of "从家到" took 13 s.
_READ_CHARS = 200
_SENTENCE_START = re.compile(r"(?:[.!?。！？]\s*|\n)(?=\S)")


def _last_sentence(question: str) -> str:
    text = question.strip()
    if len(text) <= _READ_CHARS:
        return text
    tail = text[-_READ_CHARS:]
    start = _SENTENCE_START.search(tail)
    return tail[start.end():] if start else ""


def events_compared(question: str) -> tuple[str, ...]:
    """The two events a question compares in time, as said; () when it compares none."""
    text = _last_sentence(question)
    for pattern in _COMPARED:
        if match := pattern.search(text):
            events = tuple(e.strip(" ,，:：;；\"'“”") for e in match.groups())
            if all(_content(e) for e in events) and events[0].lower() != events[1].lower():
                return events
    return ()


def with_each_event(whole: Sequence[RecallItem], each: Sequence[Sequence[RecallItem]]) -> list[RecallItem]:
    """The question's own list fused by rank with one list per event it compares (reciprocal rank,
    each list weighed alike): the best record of every event reaches the top few. Scores keep the
    whole list's scale (its first item's), which the other layers' items are ranked against."""
    if not whole and not any(each):
        return []
    fused: dict[str, float] = {}
    found: dict[str, RecallItem] = {}
    for items in (whole, *each):
        for rank, item in enumerate(items):
            fused[item.memory_id] = fused.get(item.memory_id, 0.0) + 1.0 / (RRF_K + rank + 1)
            found.setdefault(item.memory_id, item)
    top = max(fused.values())
    scale = (whole[0].score if whole else max(i[0].score for i in each if i)) / top
    order = sorted(fused, key=fused.__getitem__, reverse=True)
    return [dataclasses.replace(found[m], score=fused[m] * scale) for m in order]
