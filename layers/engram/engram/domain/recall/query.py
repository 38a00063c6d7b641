"""Reading a recall query: is it memory-dependent, about time, about history, verbatim?"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..extraction import STOPWORDS
from ..ingest.relative_time import resolve_relative_time
from ..limits import MAX_ALIAS_CHARS, MAX_ALIASES
from ..model import Predicate
from .cues import asks_what_assistant_said, is_memory_question, names_in, topic_of
from .dates import named_window
from .events import events_compared

_TEMPORAL = re.compile(
    r"\b(?:when|what (?:time|day|date|year|month)|how long ago|since when|last time|recently|yesterday|"
    r"ago|last (?:week|month|year)|in (?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december|\d{4}))\b|什么时候|哪天|几号|多久|上次|最近|昨天|上周|上个月|去年",
    re.IGNORECASE,
)
_HISTORY = re.compile(r"\b(?:used? to|previously|formerly|history|in the past|before)\b|以前|曾经|过去", re.I)
_VERBATIM = re.compile(r"\b(?:exactly|verbatim|word for word|exact words|quote)\b|原话|原文|一字不差", re.I)
_RECENCY = re.compile(r"\b(?:last time|recently|latest|most recent)\b|上次|最近|最新", re.I)
# The state things are in now ("What bike do I ride now?", "我现在住哪儿？"): where a thing changed,
# the newest word on it answers, and an older one is what it was. One list of the words, read for
# ``current`` and taken out of the topic (``without_time_of_asking``).
_NOW_EN = "now|currently|current|these days|nowadays|anymore|any more|still"
_NOW_ZH = "现在|目前|如今"
_CURRENT = re.compile(rf"\b(?:{_NOW_EN})\b|{_NOW_ZH}|还(?![记有是要得能可])[^，。？?]{{0,8}}[吗不没]", re.I)
# Those words say when the question is asked, not what about: the lateness of what is found
# answers them (``current``); matched or embedded they pull towards every turn that says "now".
_NOW_WORDS = re.compile(rf"\b(?:(?:right |just |for |by )(?=now\b))?(?:{_NOW_EN}|at the moment|at present)\b", re.I)
_NOW_WORDS_ZH = re.compile(_NOW_ZH)
_ANAPHORA = re.compile(r"\b(?:that one|this one|the one|it)\b|那个|这个", re.I)
_CUE_WORDS = {"say", "said", "tell", "told", "mention", "mentioned", "remember", "recall", "talk", "talked",
              "discuss", "discussed", "last", "time", "before", "previously", "earlier", "know", "about",
              "use", "used",
              # An agent asking about its user, or the assistant, in the third person ("Where does the
              # user live?", "What did the assistant suggest?"): who, never what, is asked.
              "user", "user's", "assistant", "assistant's"}
# Words that frame the kind of belief asked for without naming a thing ("How many children...",
# "any health issues", "我对什么过敏"): no object a belief must match.
_FRAMING = frozenset({"many", "much", "any", "some", "kind", "kinds", "type", "types", "sort", "sorts", "thing",
                      "things", "issue", "issues", "problem", "problems", "current", "currently", "now", "team",
                      "teams", "band", "bands",
                      # how an agent asks for ideas, and when: "Recommend a weekend activity"
                      "recommend", "recommendation", "recommendations", "suggest", "suggestion", "suggestions",
                      "idea", "ideas", "restriction", "restrictions", "today", "tonight", "tomorrow", "weekend",
                      "weekends", "week", "morning", "evening", "afternoon"}
                     | set("我你他她它的是什么哪里儿在对吗呢了有没几个多少谁怎么样吧啊呀现会说能用户天月号"))
# How a question is put, never what it asks about ("What's my job?" asks about a job).
_CONTRACTIONS = {"what's", "where's", "who's", "when's", "how's", "that's", "there's", "i've", "i'd", "i'll",
                 "didn't", "doesn't", "isn't", "wasn't", "aren't", "haven't", "can't", "won't", "you're"}
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]+|\d+|[\u4e00-\u9fff]")
# What a question asks for, by its words: an English hint is a word or its stem with an ending
# ("allergies", "jobs", "older"; not "song" for "son", "message" for "age", "delivery" for
# "live"), a Chinese one is found anywhere.
_PREDICATE_HINTS: dict[str, Predicate | tuple[Predicate, ...]] = {
    "allerg": Predicate.ALLERGIC_TO, "过敏": Predicate.ALLERGIC_TO, "name": Predicate.HAS_NAME,
    "名字": Predicate.HAS_NAME, "叫什么": Predicate.HAS_NAME, "old": Predicate.HAS_AGE, "age": Predicate.HAS_AGE,
    "岁": Predicate.HAS_AGE, "like": Predicate.HAS_PREFERENCE, "love": Predicate.HAS_PREFERENCE,
    "prefer": Predicate.HAS_PREFERENCE, "favorite": Predicate.HAS_PREFERENCE, "favourite": Predicate.HAS_PREFERENCE,
    "喜欢": Predicate.HAS_PREFERENCE, "hate": Predicate.DISLIKES, "dislike": Predicate.DISLIKES,
    "讨厌": Predicate.DISLIKES, "son": Predicate.HAS_CHILD, "daughter": Predicate.HAS_CHILD,
    "child": Predicate.HAS_CHILD, "kid": Predicate.HAS_CHILD, "儿子": Predicate.HAS_CHILD,
    "女儿": Predicate.HAS_CHILD, "孩子": Predicate.HAS_CHILD, "advisor": Predicate.HAS_ADVISOR,
    "导师": Predicate.HAS_ADVISOR, "wife": Predicate.HAS_SPOUSE, "husband": Predicate.HAS_SPOUSE,
    "partner": Predicate.HAS_SPOUSE, "boyfriend": Predicate.HAS_SPOUSE, "girlfriend": Predicate.HAS_SPOUSE,
    # "Where do I work?" asks for the workplace as much as the job.
    "work": (Predicate.WORKS_AS, Predicate.WORKS_AT), "job": (Predicate.WORKS_AS, Predicate.WORKS_AT),
    "工作": (Predicate.WORKS_AS, Predicate.WORKS_AT), "occupation": Predicate.WORKS_AS,
    "profession": Predicate.WORKS_AS, "career": Predicate.WORKS_AS, "职业": Predicate.WORKS_AS,
    "company": Predicate.WORKS_AT, "employ": Predicate.WORKS_AT,
    "公司": Predicate.WORKS_AT, "单位": Predicate.WORKS_AT, "上班": Predicate.WORKS_AT,
    "live": Predicate.LIVES_IN, "reside": Predicate.LIVES_IN, "住": Predicate.LIVES_IN,
    "from": Predicate.COMES_FROM, "hometown": Predicate.COMES_FROM, "originally": Predicate.COMES_FROM,
    "grew": Predicate.COMES_FROM, "grow": Predicate.COMES_FROM, "raised": Predicate.COMES_FROM,
    "哪里人": Predicate.COMES_FROM, "哪儿人": Predicate.COMES_FROM, "老家": Predicate.COMES_FROM,
    "家乡": Predicate.COMES_FROM, "来自": Predicate.COMES_FROM, "长大": Predicate.COMES_FROM,
    "born": (Predicate.COMES_FROM, Predicate.HAS_BIRTHDAY), "出生": (Predicate.COMES_FROM, Predicate.HAS_BIRTHDAY),
    "birthday": Predicate.HAS_BIRTHDAY, "bday": Predicate.HAS_BIRTHDAY, "生日": Predicate.HAS_BIRTHDAY,
    "hobb": Predicate.HAS_HOBBY, "pastime": Predicate.HAS_HOBBY, "spare": Predicate.HAS_HOBBY,
    "free": Predicate.HAS_HOBBY, "play": Predicate.HAS_HOBBY, "sport": Predicate.HAS_HOBBY,
    "instrument": Predicate.HAS_HOBBY, "爱好": Predicate.HAS_HOBBY, "业余": Predicate.HAS_HOBBY,
    "运动": Predicate.HAS_HOBBY, "乐器": Predicate.HAS_HOBBY,
    "study": (Predicate.STUDIED, Predicate.STUDIED_AT), "studied": (Predicate.STUDIED, Predicate.STUDIED_AT),
    "studies": (Predicate.STUDIED, Predicate.STUDIED_AT), "degree": (Predicate.STUDIED, Predicate.STUDIED_AT),
    "major": Predicate.STUDIED, "专业": Predicate.STUDIED, "学的": Predicate.STUDIED,
    "school": Predicate.STUDIED_AT, "college": Predicate.STUDIED_AT, "university": Predicate.STUDIED_AT,
    "uni": Predicate.STUDIED_AT, "graduate": Predicate.STUDIED_AT, "alma": Predicate.STUDIED_AT,
    "学校": Predicate.STUDIED_AT, "大学": Predicate.STUDIED_AT, "毕业": Predicate.STUDIED_AT,
    "health": Predicate.HAS_CONDITION, "pet": Predicate.HAS_PET, "宠物": Predicate.HAS_PET,
    "speak": Predicate.MASTERS, "language": Predicate.MASTERS, "语言": Predicate.MASTERS, "什么语": Predicate.MASTERS,
    "afraid": Predicate.DISLIKES, "scared": Predicate.DISLIKES, "fear": Predicate.DISLIKES, "怕": Predicate.DISLIKES,
    "support": Predicate.HAS_PREFERENCE, "activit": Predicate.HAS_HOBBY, "活动": Predicate.HAS_HOBBY,
}
# The user as a whole: "What do you know about me?", "Tell me about the user", "Who am I?",
# "Summarize my profile", "介绍一下我": every kind of belief is asked, none by its words.
_OVERVIEW = re.compile(
    r"\b(?:what (?:else )?(?:do|did) you (?:know|remember|have) (?:about|on) (?:me|myself|the user|this user"
    r"|him|her|them|(?-i:[A-Z])[\w'-]+)\W*$"
    r"|tell me (?:about|everything about|all about|what you know about) (?:me|myself|the user|this user)\b(?!['’])"
    r"|who am i\W*$|who is (?:the|this) user\W*$"
    r"|(?:summari[sz]e|summary of|overview of|describe|recap) (?:me|myself|the user|this user|what you know"
    r"|my profile|the user's profile)\b(?!['’])"
    r"|^(?:my|the user's|user) profile\W*$|everything you know about (?:me|myself|the user|this user)\b(?!['’]))"
    # Chinese: only when nothing but the user is asked ("你还记得我在哪里工作吗" asks about work).
    r"|(?:你|您)(?:都|还)?(?:知道|了解|记得)(?:关于)?(?:我|用户)(?:的)?(?:些)?(?:什么|哪些|多少)(?:事|事情|信息|情况)?\W*$"
    r"|关于(?:我|用户)(?:你|您)(?:都|还)?(?:知道|了解|记得)(?:些)?(?:什么|哪些|多少)\W*$"
    r"|(?:你|您)对(?:我|用户)(?:有)?(?:多少|哪些)?了解(?:多少)?\W*$|用户画像"
    r"|(?:介绍|总结|描述)一下(?:我|用户)(?:自己|的情况|的信息)?\W*$|(?:我|用户)是谁\W*$", re.I)
# Food: a question about what the user eats sees their allergies and diet whatever else it names
# ("Can I make shrimp pasta for Priya?"): a missed allergy is a harm, an extra line is not.
_FOOD = re.compile(r"\b(?:food|foods|eat|eats|eating|ate|cook|cooks|cooking|cooked|meal|meals|dinner|dinners|lunch|"
                   r"breakfast|brunch|snacks?|recipes?|restaurants?|menus?|dish|dishes|bake|baking|desserts?|cakes?|"
                   r"diet|dietary|grocer(?:y|ies)|cuisine|takeout|takeaway|catering|potluck|bbq|barbecue|pasta|pizza|"
                   r"sushi|salad|soup|sandwich(?:es)?|burgers?|curry|stew|tacos?|noodles|rice|bread|cheese|meat|"
                   r"chicken|beef|pork|lamb|fish|seafood|shrimp|prawns?|nuts?|peanuts?|eggs?|milk|chocolate|"
                   r"cookies?|pastr(?:y|ies)|smoothies?|cocktails?|wine|beer)\b"
                   r"|吃|饭|菜|餐|食|忌口|外卖|点单|烘焙|甜点|蛋糕", re.I)
_HINT = re.compile(r"[a-z][a-z']*|[^\x00-\x7f]+")
_ZH_HINTS = tuple(h for h in _PREDICATE_HINTS if not h.isascii())
_ENDINGS = frozenset({"", "s", "'s", "'", "es", "ies", "y", "ic", "d", "ed", "red", "er", "ers", "est", "ing", "ren",
                      "nce", "ence", "ences"})


def _hinted(word: str, hint: str) -> bool:
    if not hint.isascii():
        return hint in word
    return word.startswith(hint) and word[len(hint):] in _ENDINGS


@dataclass(frozen=True)
class QueryIntent:
    """``text`` is the question as asked (with the session's expansion); ``topic`` is what it is
    about, without its memory cue: what is embedded, searched and scored (``domain.recall.cues``)."""

    text: str
    terms: tuple[str, ...]
    memory_dependent: bool
    temporal: bool
    recency: bool
    wants_history: bool
    wants_verbatim: bool
    window: tuple[datetime, datetime] | None
    predicates: frozenset[Predicate]
    topic: str = ""
    names: tuple[str, ...] = ()  # proper names asked about: a record must mention one of them
    overview: bool = False  # the user as a whole ("What do you know about me?")
    about_food: bool = False  # what the user eats: allergies and diet are always read
    about_assistant: bool = False  # what the assistant said ("What did you recommend ...?")
    current: bool = False  # how things are now: newer events first among the relevant
    events: tuple[str, ...] = ()  # two events compared in time, each searched too (``events``)

    @property
    def subject_terms(self) -> tuple[str, ...]:
        """The terms that say *what* is asked, without the names that say *who*: a task or a
        belief that shares only a name with the question ("Caroline") is not about it."""
        # In their plain form: "my dog's name" asks about a dog.
        return tuple(dict.fromkeys(_plain(t) for t in self.terms
                                   if t not in self.names and _plain(t) not in self.names))

    @property
    def object_terms(self) -> tuple[str, ...]:
        """The subject terms that name a thing rather than the kind of belief asked for: "job" in
        "What's my job?" asks for an occupation, whatever it is; "jazz" in "Do I like jazz?" for one."""
        if self.overview:
            return ()
        return tuple(t for t in self.subject_terms if not names_predicate(t) and t not in _FRAMING
                     and not any(hint in t or t in hint for hint in _ZH_HINTS if not t.isascii()))



def content_terms(text: str) -> tuple[str, ...]:
    """The words that say what a query is about (not how it asks)."""
    words = [w.lower() for w in _TOKEN.findall(text)]
    return tuple(dict.fromkeys(w for w in words if w not in STOPWORDS and w not in _CUE_WORDS
                               and w not in _CONTRACTIONS and (len(w) > 2 or not w.isascii())))


def names_predicate(term: str) -> bool:
    return any(_hinted(term, hint) for hint in _PREDICATE_HINTS)


def asked_predicates(topic: str) -> frozenset[Predicate]:
    """The kinds of belief a question's words ask for (``_PREDICATE_HINTS``)."""
    words = _HINT.findall(topic.lower())
    return frozenset(p for word in words for hint, asked in _PREDICATE_HINTS.items() if _hinted(word, hint)
                     for p in (asked if isinstance(asked, tuple) else (asked,)))


def _plain(term: str) -> str:
    return term.removesuffix("'s").removesuffix("'")


def without_time_of_asking(topic: str) -> str:
    """``topic`` without the words that say it is asked about now ("Where do I work now?" is about
    work); a topic that is nothing else keeps them."""
    left = _NOW_WORDS_ZH.sub("", " ".join(_NOW_WORDS.sub(" ", topic).split()))
    left = re.sub(r"\s+(?=[?.!,？。！，])", "", left)
    return left if any(t not in _FRAMING for t in content_terms(left)) else topic


def analyse(query: str, now: datetime) -> QueryIntent:
    when, _ = resolve_relative_time(query, now)
    window = (when - timedelta(days=1), when + timedelta(days=1)) if when is not None else named_window(query, now)
    topic = without_time_of_asking(topic_of(query))
    overview = bool(_OVERVIEW.search(query.strip()))
    # The cue is no hint: "what did I tell you" is not about age ("told").
    predicates = frozenset(Predicate) if overview else asked_predicates(topic)
    return QueryIntent(
        text=query, terms=content_terms(topic), memory_dependent=is_memory_question(query),
        temporal=bool(_TEMPORAL.search(query)), recency=bool(_RECENCY.search(query)),
        wants_history=bool(_HISTORY.search(query)), wants_verbatim=bool(_VERBATIM.search(query)),
        window=window, predicates=predicates, topic=topic, names=names_in(query), overview=overview,
        about_food=bool(_FOOD.search(topic)), about_assistant=asks_what_assistant_said(query),
        current=bool(_CURRENT.search(query)), events=events_compared(topic),
    )


def expand_with_session(query: str, fields: dict) -> str:
    """Resolve "that one" / "那个" against the session: an alias map first, then the current item.
    Only as much as the edge lets a session hold is read (``domain.limits``), so a session stored
    before those bounds cannot blow a query up."""
    aliases = fields.get("aliases") if isinstance(fields.get("aliases"), dict) else {}
    expanded, lowered = query, query.lower()
    for alias, target in list(aliases.items())[:MAX_ALIASES]:
        if isinstance(alias, str) and alias and isinstance(target, str) and alias.lower() in lowered:
            expanded += f" {target[:MAX_ALIAS_CHARS]}"
    current = fields.get("current_item")
    if isinstance(current, str) and current and _ANAPHORA.search(query):
        expanded += f" {current[:MAX_ALIAS_CHARS]}"
    return expanded


# The lexical search matches a query against four fields, a clause per token and field, and
# OpenSearch refuses a query of more than 1024 clauses: it reads at most this many tokens.
MAX_LEXICAL_TOKENS = 200
# Counted so as never to undercount an analyser's tokens: every character of a script the CJK
# analyser reads in bigrams (Han, kana, Hangul, their half- and full-width forms), every run of
# other word characters, every other visible character (an emoji is a token of its own).
_CJK = "\u1100-\u11ff\u2e80-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff00-\uffef\U00020000-\U0003ffff"
_ANALYSED_TOKEN = re.compile(f"[{_CJK}]|[^\\W{_CJK}]+|[^\\s\\w]")


def lexical_text(text: str) -> str:
    """The head of ``text`` a lexical search takes: at most ``MAX_LEXICAL_TOKENS`` tokens, so no
    query (however long, whatever its script) can make the search fail for everyone."""
    for i, match in enumerate(_ANALYSED_TOKEN.finditer(text)):
        if i == MAX_LEXICAL_TOKENS:
            return text[:match.start()].rstrip()
    return text
