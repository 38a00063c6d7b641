"""Step 2 of ingestion: rules that read facts about the user from the user's own words.

Rules run first and alone are enough to run the product; an optional LLM extractor (see
``service.llm``) may add what they miss. Only the user's turns speak for the user: an assistant
turn, a question, a hypothesis, hearsay or a statement about somebody else never becomes a fact
about the user. A change of state ("I used to…", "I no longer…", "我不再…了") becomes a fact
tagged ``ended`` (``domain.profile.beliefs``), which closes the edge it ends instead of opening one.

Layout: ``discourse`` (how a long message wraps its facts: asides, quotations, make-believe, jokes
taken back, the scope of a hypothesis, a thing referred to again, Chinese ways of saying whose),
``text`` (clauses, guards, objects, lists), ``speech`` (how chat is written: fillers, a statement
beside a question, a dropped subject, names in any script), ``rules`` (the rule shape), ``rules_en``,
``rules_en_life`` (work, school, origin, birthday, hobbies), ``rules_en_chat`` and
``rules_en_passing`` (facts said in passing or as news), ``rules_zh`` (the rules of each language),
``rules_en_open``, ``rules_zh_open`` (objects of an open class: a trade known by how its word is made,
kin by any of their names, a pastime by its verb and how often), ``rules_zh_news`` (Chinese news of a
change, self-introductions in fragments, kin and pets named by the way, tastes said sideways),
``rules_en_news`` (a life told as news, a self told in fragments, tastes said sideways),
``rules_change`` (endings said as news), ``rules_en_everyday``, ``rules_zh_everyday`` (how everyday chat says
a fact: a job by the job itself, a home typed in lower case or said bare, "我在成都", "从北京搬到成都", names a
user goes by), ``rules_en_coach``, ``rules_zh_coach`` (what a user tells a tutor, a money or a health coach: a
home by the rent paid there or a move framing what follows, a subject found hard, an illness by how long),
``rules_follow`` (what a message says across its sentences: "not X, it's Y", "… my wife? her name's Ana", a
move told as done, an age to come), ``rules_shape`` (an illness, a line of work, an employer, a home or a list
known by the shape of its words in a frame that makes it the user's), this module (a turn in, extractions out).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Sequence

from ..model import PREDICATES, EventType, Extraction, Predicate, Role, Turn
from ..profile.beliefs import ENDED_TAG, FOOD_TAG
from . import (
    cards,
    rules_asides,
    rules_change,
    rules_en,
    rules_en_chat,
    rules_en_coach,
    rules_en_everyday,
    rules_en_life,
    rules_en_news,
    rules_en_open,
    rules_en_passing,
    rules_follow,
    rules_revise,
    rules_shape,
    rules_zh,
    rules_zh_coach,
    rules_zh_everyday,
    rules_zh_news,
    rules_zh_open,
    script,
)
from .dates import number
from .discourse import (
    as_found,
    as_profile,
    as_said,
    before_hypothesis,
    corrected_in_passing,
    is_fiction,
    not_taken_back,
    we_are_i,
    with_antecedent,
    without_asides,
    without_quotations,
)
from .rules import HERE_NOW, read_clause
from .speech import IRONY, as_typed
from .text import (
    as_affirmation,
    as_negation,
    change_of_state,
    clauses,
    clean_object,
    is_chinese,
    is_hearsay,
    said,
    sentences,
)

RULE_CONFIDENCE = 0.7  # a self-report read by a rule (SPEC: user self-report 0.7)
STOPWORDS = set(
    "a an the and or but if of to in on at for with from by is are was were be been being i me my mine you your "
    "he she it we they them his her its our their this that these those do does did have has had not no yes so "
    "just very really also too can could would should will shall may might must am what when where who how why "
    "which there here then than about as into up down out over again more most some any all one like get got "
    "im i'm it's dont don't".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+|[\u4e00-\u9fff]{2,4}")

_CORRECTION = re.compile(r"^(?:(?:oh|ah|um|uh)[,!]?\s+)?(?:no|nope|sorry|oops|actually|correction|wait|my bad|"
                         r"no wait|sorry,? no)[,!.:]?\s+"
                         # "sorry, typo - it's Joan": what went wrong may be said first
                         r"(?:(?:a |my )?(?:typo|autocorrect|mistake|misspelling|spelling)[,!.:]?\s*(?:[-–—]\s*)?)?"
                         r"(?:i meant|i mean|it's|it is|i said|make that|that should be|that's)\s+"
                         r"|^correction:\s*|^(?:不是|不对(?![称劲头味等付口])|不，|更正|我是说|我的意思是"
                         r"|说错了|搞错了)", re.I)
_CORRECTED_VALUE = re.compile(r"^(?:.*?(?:i meant|i mean|it's|it is|i said|make that|that should be|that's)\s+"
                              r"|correction:\s*|(?:不是|不对|更正|说错了|搞错了)[，,：:]?\s*(?:是|应该是)?|(?:我是说|我的意思是)\s*)"
                              r"(.+?)[.!。！]*$", re.I)
_TASK = re.compile(r"\b(?:remind me to|please remind me|can you|could you|help me|please)\b|提醒我|帮我|请你|麻烦你",
                   re.I)
_PLAN = re.compile(r"\b(?:i'm going to|i am going to|i will|i'll|i plan to|planning to)\b|我打算|我计划|我要去|我准备",
                   re.I)
# A greeting is a turn that says nothing else ("hi there!", "Hello! How are you today?", "早上好呀"). One
# that goes on ("hi! bittersweet weekend. my mom moved to Tucson yesterday", "Hello dear. Walt had his
# surgery on Thursday") is what it goes on to say: typed a greeting, it ranked as chatter, and the
# nightly forgetting took it out of retrieval once a month old.
_GREETING = re.compile(r"^\W*(?:(?:hi|hello|hey|hiya|morning|good (?:morning|afternoon|evening|night)|bye|"
                       r"goodbye|see you)\b|你好|您好|早上好|早安|下午好|晚上好|晚安|嗨|哈喽|再见|拜拜)", re.I)
_PHATIC = re.compile(r"\b(?:there|all|everyone|dear|again|friend|buddy|how are you(?: doing)?(?: today)?|"
                     r"how's it going|what's up|how have you been|long time no see|"
                     r"(?:see you )?(?:soon|later|tomorrow))\b|在吗|在不在|你好吗|最近怎么样|[呀啊哦哈嘿]", re.I)


def only_greeting(text: str) -> bool:
    """Whether a turn is a greeting and nothing more: what follows it, the phatic words aside, is
    at most a name or a word or two (a dozen letters, four Chinese characters)."""
    opened = _GREETING.match(text)
    if opened is None:
        return False
    rest = _PHATIC.sub(" ", text[opened.end():])
    return len(re.findall(r"[^\W\d_\u4e00-\u9fff]", rest)) <= 12 and len(re.findall(r"[\u4e00-\u9fff]", rest)) <= 4
_SMALL_TALK = re.compile(r"^(?:thanks|thank you|ok|okay|cool|great|lol|haha|sure|nice)\b[.! ]*$|^(?:谢谢|好的|哈哈|嗯|"
                         r"好吧|行)[。！ ]*$", re.I)
_EMOTION = re.compile(r"\bi(?:'m| am| feel| felt) (?:so |really |very )?(?:happy|sad|angry|upset|stressed|excited|"
                      r"anxious|tired|lonely|frustrated)\b|我(?:很|好|非常)?(?:开心|难过|生气|焦虑|累|沮丧|兴奋)", re.I)

Found = tuple[Predicate, str, bool, tuple[str, ...]]  # (predicate, object, ended, the rule's tags)
_EN_RULES = (rules_en.RULES + rules_en_life.RULES + rules_en_chat.RULES + rules_en_passing.RULES
             + rules_en_open.RULES + rules_en_news.RULES + rules_en_everyday.RULES + rules_en_coach.RULES
             + rules_asides.RULES_EN + rules_shape.RULES_EN)
_ZH_RULES = (rules_zh.RULES + rules_zh_open.RULES + rules_zh_news.RULES + rules_zh_everyday.RULES
             + rules_zh_coach.RULES + rules_asides.RULES_ZH + rules_shape.RULES_ZH)
_STATUSES = {"self-employed", "freelance", "employed"}
_TASTES = (Predicate.HAS_PREFERENCE, Predicate.DISLIKES, Predicate.HAS_HOBBY)


def keywords(text: str, k: int = 3) -> tuple[str, ...]:
    words = [w.lower() for w in _WORD.findall(text) if w.lower() not in STOPWORDS and len(w) > 2 or
             re.match(r"[\u4e00-\u9fff]", w)]
    return tuple(w for w, _ in Counter(words).most_common(k))


def summarise(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def classify(text: str) -> EventType:
    """The event type of a whole turn when no fact rule fires: the first pattern that matches,
    in this order; a greeting only when nothing else is said (``only_greeting``)."""
    if only_greeting(text):
        return EventType.GREETING
    ordered = ((_SMALL_TALK, EventType.SMALL_TALK),
               (_CORRECTION, EventType.CORRECTION), (_TASK, EventType.TASK), (_PLAN, EventType.PLAN),
               (_EMOTION, EventType.EMOTION))
    return next((kind for pattern, kind in ordered if pattern.search(text)), EventType.FACT)


def _read(clause: str) -> list[Found]:
    """One clause's facts. A change of state is first read as the negation it may be ("I don't
    like coffee any more" is a current dislike); failing that, as the state it ends."""
    chinese = is_chinese(clause)
    rules = _ZH_RULES if chinese else _EN_RULES
    # An ending said as news ("I stopped running", "钢琴早就不弹了") ends what it names.
    ended = [(p, o, True, t) for p, o, t in read_clause(clause, rules_change.RULES_ZH if chinese else
                                                        rules_change.RULES_EN)]
    ended += [(p, o, False, t) for p, o, t in read_clause(clause, rules_change.HELD_ZH if chinese else
                                                          rules_change.HELD_EN)]
    change = change_of_state(clause)
    if change is None:
        return [(p, o, False, t) for p, o, t in read_clause(clause, rules)] + ended
    if change == "stopped":
        negated = read_clause(as_negation(clause), rules)
        if negated:
            return [(p, o, False, t) for p, o, t in negated] + ended
    return [(p, o, True, t) for p, o, t in read_clause(as_affirmation(clause), rules)] + ended


# The verb a Chinese taste or pastime may keep ("打篮球" and "篮球" are one thing), and an English article.
_BARE = re.compile(r"^(?:吃|喝|打|弹|玩|下|拉|踢|练|做|去|看|听|the\s+)(?=\S)", re.I)


def _worded_otherwise(found: list[Found], previous: Sequence[Extraction]) -> list[Found]:
    """An ending closes what an earlier turn said however it worded the thing ("篮球不打了" ends
    "我喜欢打篮球")."""
    ended = {(p, _BARE.sub("", o).lower()) for p, o, e, _ in found if e}
    return [(f.predicate, f.object, True, _rule_tags(f)) for f in previous
            if f.is_fact and f.object and "ended" not in f.tags and f.object.lower() != _BARE.sub("", f.object).lower()
            and (f.predicate, _BARE.sub("", f.object).lower()) in ended]


def _homes(found: list[Found], previous: Sequence[Extraction]) -> list[Found]:
    """A home read from where the user works stands only when no home is said outright, in this
    turn or an earlier one of the batch."""
    said_home = any(p is Predicate.LIVES_IN and rules_en_passing.BY_WORK not in t for p, _, _, t in found) or any(
        f.predicate is Predicate.LIVES_IN for f in previous)
    return [(p, o, e, tuple(x for x in t if x != rules_en_passing.BY_WORK)) for p, o, e, t in found
            if not (said_home and rules_en_passing.BY_WORK in t)]


# "I'm not lactose intolerant after all", "我没有高血压": a state denied.
_DENIED = re.compile(r"\b(?:i'm|i am) not\b|\bi (?:don't|do not) have\b|我(?:并)?(?:没有|不是|不)(?=对|有|是|住|在)",
                     re.I)


# "I'm not scared any more", "我现在不怕了": a state ended with its object left out is the one last said.
_ELIDED_END = re.compile(r"\b(?:i'm|i am) (?:\w+ )?(?:not|no longer) (?:\w+ )?(scared|afraid|terrified|frightened|"
                         r"allergic)(?: (?:any ?more|now))?\s*(?:$|[,.!;])|我(?:现在|已经)?(?:不再?|没那么)(怕|过敏)了",
                         re.I)
_ELIDED = {"scared": Predicate.DISLIKES, "afraid": Predicate.DISLIKES, "terrified": Predicate.DISLIKES,
           "frightened": Predicate.DISLIKES, "怕": Predicate.DISLIKES, "allergic": Predicate.ALLERGIC_TO,
           "过敏": Predicate.ALLERGIC_TO}


def _denied(clause: str, previous: Sequence[Extraction]) -> list[Found]:
    """What the user's earlier turns said and this clause denies ends; a denial of what was never
    said states nothing."""
    if elided := _ELIDED_END.search(clause):
        predicate = _ELIDED[(elided.group(1) or elided.group(2)).lower()]
        last = [f for f in previous if f.is_fact and f.predicate is predicate and "ended" not in f.tags][-1:]
        return [(f.predicate, f.object, True, _rule_tags(f)) for f in last]
    if not _DENIED.search(clause):
        return []
    earlier = {(f.predicate, (f.object or "").lower()) for f in previous if f.is_fact and "ended" not in f.tags}
    rules = _ZH_RULES if is_chinese(clause) else _EN_RULES
    return [(p, o, True, ()) for p, o, _ in read_clause(as_affirmation(clause), rules) if (p, o.lower()) in earlier]


def _rule_tags(fact: Extraction) -> tuple[str, ...]:
    """The tags a rule gave a fact (not the correction's or the ending's own)."""
    return tuple(t for t in fact.tags if t == FOOD_TAG)


_AGE_SAID = re.compile(r"(?<![\d一二两三四五六七八九十])(\d{1,3}|[一二两三四五六七八九十]{1,3})"
                       r"(?=\s*(?:岁|了|years?|$|[。！!.，,]))")


def _corrected(text: str, found: list[Found], previous: Sequence[Extraction]) -> list[Found]:
    """"Sorry, I meant 31": the corrected value takes the predicate of the fact just said; a
    corrected value of a predicate that holds many values also ends the one it replaces."""
    last = next((f for f in reversed(previous) if f.is_fact), None)
    if not found:
        match = _CORRECTED_VALUE.search(text.strip())
        # the value is the corrected word alone: "是佛山，离广州很近" corrects to 佛山
        value = re.split(r",?\s+not\s+|[，,;；]", match.group(1))[0] if match else ""
        value = re.sub(r"岁$|\s*years? old$", "", value.strip())
        if number(value) is not None and (last is None or last.predicate is Predicate.HAS_AGE):
            return [(Predicate.HAS_AGE, str(number(value)), False, ())]
        if last is not None and last.predicate is Predicate.HAS_AGE:
            # "不对，过了生日29了": an age put right is the one number said, never the words around it
            ages = _AGE_SAID.findall(match.group(1)) if match else []
            return [(Predicate.HAS_AGE, str(number(ages[0])), False, ())] if len(ages) == 1 and number(ages[0]) else []
        value = clean_object(value)
        # "说错了，我六月份已经搬到苏州了": a clause the rules did not read is no corrected value
        if re.match(r"(?:我|(?:i|i'm|i've|my)\b)", value, re.I):
            return found
        if last is None or not value:
            return found
        found = [(last.predicate, value, False, _rule_tags(last))]
    if last is not None and not PREDICATES[last.predicate].functional and any(
            p is last.predicate and o.lower() != (last.object or "").lower() for p, o, _, _ in found):
        found.append((last.predicate, last.object, True, _rule_tags(last)))
    return found


# "…, flying home tomorrow", "明天回上海", "过两天就回家了": the sentence sends the user back home from there
_GOING_BACK = re.compile(r"\b(?:fly|flying|head|heading|go|going|drive|driving|get|getting|travel|travelling|traveling)"
                         r" (?:back )?home\b|\bback home\b|\bfly(?:ing)? back\b"
                         r"|回(?:到)?(?!来|忆|复|答|应|头|顾|收|合|归)[\u4e00-\u9fff]", re.I)


def _where_now(sentence: str, read: list[Found]) -> list[Found]:
    """Where the user is right now ("我在北京", "I'm currently in Rome") is no home when the same sentence
    sends them back home ("…，明天回上海")."""
    going_back = bool(_GOING_BACK.search(sentence))
    return [(p, o, e, tuple(x for x in t if x != HERE_NOW)) for p, o, e, t in read
            if not (going_back and HERE_NOW in t)]


def _full_names(found: list[Found]) -> list[Found]:
    """"My name is Nguyễn Thị Lan but call me Lan": a short name said beside the full one it is part
    of (a word of it, or the start of one: "Rob" of "Robert Hale") does not replace it."""
    names = [o for p, o, e, t in found if p is Predicate.HAS_NAME and not e and rules_zh_everyday.NICKNAME not in t]
    # "我小名叫妞妞，大名叫赵雅琪": the name a family calls the user by gives way to the name said with it
    found = [(p, o, e, tuple(x for x in t if x != rules_zh_everyday.NICKNAME)) for p, o, e, t in found
             if not (rules_zh_everyday.NICKNAME in t and names)]

    def part_of(short: str, full: str) -> bool:
        if is_chinese(short) and is_chinese(full):  # "叫我思远就好" beside "我叫陈思远"
            return len(short) < len(full) and short in full
        return len(full.split()) > len(short.split()) and len(short.split()) == 1 and any(
            word.lower().startswith(short.lower()) for word in full.split())

    return [f for f in found if not (f[0] is Predicate.HAS_NAME and not f[2]
                                     and any(part_of(f[1], other) for other in names))]


def extract_facts(turn: Turn, previous: Sequence[Extraction] = ()) -> list[Extraction]:
    """Facts about the user in one of the user's turns; none from the assistant or hearsay.
    ``previous``: the facts of the user's earlier turns in the batch, which a correction refers to."""
    if turn.role is not Role.USER:
        return []
    # The turn is stored escaped (cleaning); its words are read as said, so "I love <b>jazz</b>;"
    # is not cut at the ";" of "&lt;", and what is kept is escaped again.
    typed = html.unescape(turn.content)
    simplified = script.as_simplified(typed)
    said_zh = rules_zh_everyday.as_said(rules_zh_news.as_said(rules_zh_coach.as_said(as_typed(simplified))))
    said_zh = rules_asides.as_said(rules_follow.as_said(rules_en_coach.as_said(said_zh)))
    content = corrected_in_passing(cards.as_sentences(cards.as_signed(said_zh)))
    content = rules_revise.as_said(content, previous)
    if is_fiction(content):
        return []
    found: list[Found] = []
    for sentence in sentences(without_quotations(without_asides(content))):
        ironic = sentence.endswith(IRONY)
        # Only what the sentence states before it supposes is read ("I speak Vietnamese at home, so
        # I'm wondering if…"); a joke taken back is not said.
        sentence = with_antecedent(before_hypothesis(as_said(as_profile(not_taken_back(sentence.removesuffix(IRONY))))))
        if not sentence:
            continue
        # A question is skipped, but a statement beside it is read ("I have asthma, any tips?").
        statement = said(sentence)
        read: list[Found] = []
        unread = statement != sentence
        for clause in clauses(statement) if statement else []:
            if is_hearsay(clause):
                unread = True
                if (found_by := as_found(clause)) is None:
                    continue
                clause = found_by
            read += rules_change.died_here(clause, _read(we_are_i(clause)))
            read += [(p, o, True, ()) for p, o in rules_change.referred_endings(clause, previous)]
            read += _denied(clause, previous)
        # "My husband Tom" names the user's husband however the sentence goes on: asked, or told
        # of what Tom said.
        if unread:
            presupposed = rules_zh.PRESUPPOSED if is_chinese(sentence) else (rules_en.PRESUPPOSED
                                                                             + rules_en_passing.PRESUPPOSED)
            read += [(p, o, False, t) for clause in clauses(sentence) for p, o, t in read_clause(clause, presupposed)]
        # Said with a rolled eye ("I LOVE traffic 🙄"), a taste is meant the other way: none is read.
        found += [f for f in _where_now(sentence, read) if not (ironic and f[0] in _TASTES)]
    found += rules_follow.named_after(content) + rules_follow.settled(content) + rules_shape.children_named(content)
    found += rules_revise.posts(content, previous)
    found = rules_change.exclusive_endings(found, previous)
    found = _homes(found, previous) + _worded_otherwise(found, previous)
    found = rules_shape.still_there(found, content)
    # "I'm a plumber, I'm self-employed": how the user is employed does not replace what they do.
    if {o.lower() for p, o, e, _ in found if p is Predicate.WORKS_AS and not e} - _STATUSES:
        found = [f for f in found if not (f[0] is Predicate.WORKS_AS and f[1].lower() in _STATUSES)]
    found = _full_names(found)
    found = [(p, script.city_of(o), e, t) if p in (Predicate.LIVES_IN, Predicate.COMES_FROM) else (p, o, e, t)
             for p, o, e, t in found]
    correction = bool(_CORRECTION.search(content.strip()))
    # "it's not walnuts, it's pecans": a correction by contrast names both what it replaces and the value
    if (moved := rules_revise.someone_else(content, previous)) is not None:
        found = moved
    elif (contrast := rules_follow.contrasted(content, found, previous)) is not None:
        found = contrast
    elif correction:
        found = _corrected(content, found, previous)
    found = [(p, html.escape(script.as_written(o, simplified, typed), quote=False), e, t) for p, o, e, t in found]
    facts: list[Extraction] = []
    seen: set[tuple[Predicate, str, bool]] = set()
    for predicate, obj, ended, rule_tags in found:
        if (predicate, obj.lower(), ended) in seen:
            continue
        seen.add((predicate, obj.lower(), ended))
        spec = PREDICATES[predicate]
        tags = (("correction",) if correction else ()) + ((ENDED_TAG,) if ended else ()) + rule_tags
        facts.append(Extraction(
            type=spec.event_type, summary=f"{'no longer ' if ended else ''}{predicate.value.replace('_', ' ')}: {obj}",
            message_id=turn.message_id, confidence=RULE_CONFIDENCE, predicate=predicate, object=obj,
            tags=tags, sensitive=spec.sensitive, keywords=keywords(obj + " " + turn.content),
        ))
    return facts


def extract_reply(turn: Turn) -> Extraction:
    """The episode an assistant turn becomes: what it told the user, kept as said (no fact about
    the user is read from it); a greeting or a "you're welcome" is chatter like the user's."""
    kind = classify(turn.content)
    return Extraction(
        type=kind if kind in (EventType.GREETING, EventType.SMALL_TALK) else EventType.ASSISTANT,
        summary=summarise(turn.content), message_id=turn.message_id, confidence=0.5,
        keywords=keywords(turn.content),
    )


def extract_event(turn: Turn, facts: list[Extraction]) -> Extraction:
    """The episodic event a turn becomes: typed by its strongest fact, else by its shape."""
    event_type = facts[0].type if facts else classify(turn.content)
    return Extraction(
        type=event_type, summary=summarise(turn.content), message_id=turn.message_id,
        confidence=RULE_CONFIDENCE if facts else 0.5, keywords=keywords(turn.content),
        sensitive=any(f.sensitive for f in facts),
    )
