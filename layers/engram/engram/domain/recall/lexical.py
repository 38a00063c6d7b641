"""Lexical relevance with this user's own term statistics.

The episode index is shared by every user of a shard, so its BM25 weighs a term by how rare it
is among everyone's events. For one user that is the wrong rarity: their own name, their
partner's, their city occur in most of what they say and tell nothing about which event a
question is after, yet are rare across users and dominate the index's score. Here a term weighs
by how rare it is among *this user's* events (document frequencies counted per user,
``EpisodeStore.term_counts``), which also makes the words every user repeats (I, my, 我的)
weigh nothing without a stop list. On LoCoMo dev (2 conversations) the index's BM25 over the
text field found 0.37 of the evidence in its top 10; the same candidates re-scored here, 0.55.

Terms: English content words (``query.content_terms``) and, for Chinese, character bigrams
(words are not spaced; the index's standard analyser reads single characters, so a bigram is
counted as a two-character phrase). What a Chinese question is *about* (the guard's topic words)
is read as words, segmented by jieba (``chinese_words``): a bigram across two words (次说 of
上次说) is in no memory and would count as a topic never said, and one inside a function word
(什么) as a topic said everywhere.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .query import content_terms

_JIEBA = None  # jieba, imported on the first Chinese question: its dictionary takes ~2 s to load

MAX_TERMS = 12
_K1, _B = 1.2, 0.75
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+|\d+")
# Function words a Chinese question is built of: a run of characters is cut at them before its
# bigrams are taken, so "我什么时候去看的牙医" is matched on 去看 and 牙医, not on 么时 or 的牙.
_ZH_FUNCTION_WORDS = frozenset(
    "什么 为什么 时候 哪里 哪儿 哪个 怎么 怎样 多少 是不是 有没有 还记得 记得 之前 以前 上次 告诉 说过 提过 "
    "一下 这个 那个 "
    # Single characters only where they are almost never inside a word (not 过 of 过敏, 了 of 了解).
    "我们 你们 他们 她们 我 你 他 她 它 的 吗 呢 吧 啊 谁 哪".split())
_ZH_FUNCTION = re.compile("|".join(sorted(_ZH_FUNCTION_WORDS, key=len, reverse=True)))
# Rarity is counted as if every user had at least this many more events without the term: with
# three events, a word in all three is still a good sign; with six hundred, it is not.
PRIOR_DOCS = 20
# A name said in at least this share of the user's events is who they talk as or with, not what
# a question is about ("When was Caroline in Paris?" asked of Caroline's memory is about Paris).
BACKGROUND_SHARE = 0.2


def is_cjk(term: str) -> bool:
    # Asked for every term of every candidate: an English word's first letter settles it unmatched.
    return bool(term) and "\u4e00" <= term[0] <= "\u9fff" and bool(_CJK_RUN.fullmatch(term))


def query_terms(text: str) -> tuple[str, ...]:
    """What a question is matched on: content words, and Chinese bigrams (a lone character alone)."""
    words = [t for t in content_terms(text) if not is_cjk(t)]
    bigrams: list[str] = []
    for run in _CJK_RUN.findall(text):
        for part in _ZH_FUNCTION.split(run):
            bigrams.extend([part] if len(part) == 1 else [part[i:i + 2] for i in range(len(part) - 1)])
    return tuple(dict.fromkeys(words + bigrams))[:MAX_TERMS]


def matching_terms(terms: Sequence[str], topic: str) -> list[str]:
    """What a short text (a task's title) is matched on: ``terms`` (a question's subject terms),
    their Chinese as the topic's bigrams. One character (我, 家) is in every Chinese text: counted
    alone, any task shared a third of any question."""
    return [t for t in terms if not is_cjk(t)] + [t for t in query_terms(topic) if is_cjk(t)]


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


@dataclass(frozen=True)
class Tokens:
    """A text read once for every term asked of it: a recall weighs a hundred candidates by a
    dozen terms, and reading each text again per term was most of its own CPU."""

    text: str
    words: Counter[str]
    prefixes: Counter[str]  # the first five letters of each word of five or more
    length: int             # words, and Chinese characters (one a word)

    @classmethod
    def of(cls, text: str | Tokens) -> Tokens:
        if isinstance(text, Tokens):
            return text
        words = _words(text)
        return cls(text, Counter(words), Counter(w[:5] for w in words if len(w) >= 5),
                   len(words) + sum(len(run) for run in _CJK_RUN.findall(text)))

    def frequency(self, term: str) -> int:
        """Occurrences of ``term``: a bigram as a substring; a word as itself or, from five
        letters on, as any word sharing its first five ('hiking' ~ 'hikes')."""
        if is_cjk(term):
            return self.text.count(term)
        return self.prefixes[term[:5]] if len(term) >= 5 else self.words[term]


def term_frequency(term: str, text: str | Tokens) -> int:
    """Occurrences of ``term`` in ``text`` (``Tokens.frequency``)."""
    return Tokens.of(text).frequency(term)


def idf(df: int, docs: int) -> float:
    return math.log(1 + (docs + PRIOR_DOCS - df + 0.5) / (df + 0.5))


def weights(terms: Iterable[str], df: Mapping[str, int], docs: int) -> dict[str, float]:
    return {t: idf(df.get(t, 0), docs) for t in terms}


def bm25(term_weights: Mapping[str, float], text: str | Tokens, average_length: float) -> float:
    tokens = Tokens.of(text)
    norm = _K1 * (1 - _B + _B * tokens.length / max(average_length, 1.0))
    score = 0.0
    for term, weight in term_weights.items():
        tf = tokens.frequency(term)
        if tf:
            score += weight * tf * (_K1 + 1) / (tf + norm)
    return score


def weighted_overlap(term_weights: Mapping[str, float], text: str | Tokens) -> float:
    """Share of the question's weight that ``text`` contains: a match on the user's ubiquitous
    name counts for almost nothing, one on a word they rarely say for almost everything."""
    total = sum(term_weights.values())
    if total <= 0:
        return 0.0
    tokens = Tokens.of(text)
    return sum(w for t, w in term_weights.items() if tokens.frequency(t)) / total


# A repeat says again the words of the event it folds into, not only its meaning: a turn is embedded
# with the one before it as context, so a reply can reach cosine 0.95 to the message it answers
# while sharing few of its words (on LoCoMo dev, 18 of the 1,165 pairs at 0.95, none sharing half).
REPEAT_SHARE = 0.5


def repeats_wording(text: str, earlier: str, share: float = REPEAT_SHARE) -> bool:
    """Whether ``earlier`` holds at least ``share`` of ``text``'s terms (``query_terms``, matched as
    ``Tokens.frequency`` matches them); a text without any terms repeats whatever it is close to."""
    terms = query_terms(text)
    if not terms:
        return True
    tokens = Tokens.of(earlier)
    return sum(1 for t in terms if tokens.frequency(t)) >= share * len(terms)


def evidence_weights(term_weights: Mapping[str, float]) -> dict[str, float]:
    """The weights a term's presence counts with as evidence of a record: a lone Chinese character
    (上 of 上的大学, found in 上海) half its word's, since it is as often part of another word."""
    return {t: w * (0.5 if is_cjk(t) and len(t) == 1 else 1.0) for t, w in term_weights.items()}


def lexical_overlap(terms: Iterable[str], text: str) -> float:
    """Share of ``terms`` found in ``text``, each counted once (prefix match from five letters, so
    'hike' ~ 'hiking' is not, 'hiking' ~ 'hikes' is)."""
    return weighted_overlap(dict.fromkeys(terms, 1.0), text)


def background_names(names: Sequence[str], df: Mapping[str, int], docs: int) -> frozenset[str]:
    """The names in most of the user's events: their own, a partner's. A record must mention one of
    the *other* names a question asks about, when it asks about any."""
    def counted(name: str) -> int:  # "Gina's kids" counts the term "gina's", not "gina"
        return max(df.get(name, 0), df.get(f"{name}'s", 0), df.get(f"{name}'", 0))

    return frozenset(n for n in names if docs and counted(n) / docs >= BACKGROUND_SHARE)


# When a question asks, not what about: a date's words are in no event's text.
_TIME_WORDS = frozenset(
    "january february march april may june july august september october november december monday tuesday "
    "wednesday thursday friday saturday sunday today yesterday tomorrow week weeks month months year years day "
    "days weekend morning evening night recently jan feb mar apr jun jul aug sep sept oct nov dec".split())


# Words a Chinese question is built of that say nothing of what it is about: the function words
# above and the ways of asking about memory and time.
_ZH_NOT_TOPIC = _ZH_FUNCTION_WORDS | frozenset(
    "自己 知道 觉得 一个 一些 有些 还是 就是 可以 现在 目前 最近 今天 昨天 "
    "明天 今年 去年 明年 上周 下周 上个月 下个月 当时 那时 那天 后来 然后 已经 还有 没有 是否 如何 多久 几点 几次 "
    "一次 问过 聊过 讲过 说的 说了 提到 推荐 建议 哪些 哪天 哪年 哪家 几岁 几个 几年 几天 多大 多长 多远 "
    "怎么样 什么样 干什么 做什么 "
    # How an agent speaks of the user it serves ("用户现在住在哪个区？"): who, not what.
    "用户".split())


def load_segmenter():
    """jieba's part-of-speech tagger with its dictionary loaded (once per process: about 2 s, so a
    recall's warm-up does it outside every step's deadline)."""
    global _JIEBA
    if _JIEBA is None:
        import jieba
        import jieba.posseg

        jieba.setLogLevel(60)  # its dictionary loads silently
        jieba.initialize()
        _JIEBA = jieba.posseg
    return _JIEBA


# Parts of speech that never say what a question is about: pronouns and question words (哪位, 啥时候),
# adverbs (分别, 一共), numerals and measures, prepositions, conjunctions, particles, locatives (前后),
# times, punctuation.
_NOT_TOPIC_TAGS = ("r", "d", "m", "q", "p", "c", "u", "f", "t", "x", "y", "e", "o", "z")
# Characters jieba's dictionary does not join are words it does not know: three or more in a row
# are read as one (a name: 周子航); two are as often a pronoun and a verb (我住) as a name.
_UNKNOWN_WORD = 3
_JOINING = frozenset("是有在叫说给让把被和跟对也都就还又很太要会能想去来")  # verbs a name is followed by
# 叫 asking what something is called ("我家狗叫什么", "博主叫啥"): the dictionary joins it to the
# noun before it as another word (狗叫 "barking", 主叫 "caller"), which hides the noun asked about.
_NAMING_VERB = re.compile(r"(叫)(?=什么|啥|谁|哪|何)")


def chinese_words(text: str) -> tuple[str, ...]:
    """The words of ``text``'s Chinese that say what it is about: segmented by the dictionary alone
    (its guesses at unknown words join a pronoun to a verb: 我住, 我换, 各是), two characters or more,
    no word of a kind that never carries a topic and none of the words every question is built of."""
    runs = _CJK_RUN.findall(text)
    if not runs:
        return ()
    tagger = load_segmenter()
    words: list[str] = []
    for run in runs:
        parts = _NAMING_VERB.split(run)  # [words, 叫, words, ...]
        for at, part in enumerate(parts):
            words.extend(_topic_words_of(tagger, part, named=at + 1 < len(parts) and parts[at + 1] == "叫"))
    return tuple(dict.fromkeys(w for w in words if w not in _ZH_NOT_TOPIC))


def _topic_words_of(tagger, run: str, named: bool) -> list[str]:
    """``chinese_words`` of one run of characters; ``named``: 叫 follows, asking what the run's last
    word is called."""
    words: list[str] = []
    loose: list[tuple[str, str]] = []  # single characters in a row, not of a function kind
    for pair in [*tagger.lcut(run, HMM=False), None]:
        word, tag = (pair.word, pair.flag) if pair is not None else ("", "x")
        if len(word) == 1 and not tag.startswith(_NOT_TOPIC_TAGS) and word not in _JOINING:
            loose.append((word, tag))
            continue
        if len(loose) >= _UNKNOWN_WORD:
            words.append("".join(c for c, _ in loose))
        elif named and pair is None and len(loose) == 1 and loose[0][1] == "n":
            words.append(loose[0][0])  # what a name is asked of is a topic, one character or more: 狗
        loose = []
        if len(word) >= 2 and not tag.startswith(_NOT_TOPIC_TAGS):
            words.append(word)
    return words


def topic_terms(terms: Sequence[str], han_words: Sequence[str]) -> list[str]:
    """The question's terms as the guard reads them: its non-Chinese terms, and its Chinese as
    words (``chinese_words``) rather than bigrams."""
    return [t for t in terms if not is_cjk(t)] + list(han_words)


def _plain(term: str) -> str:
    return term.removesuffix("'s").removesuffix("'")


def what_is_asked(terms: Sequence[str], names: Sequence[str]) -> list[str]:
    """The terms that say what is asked about someone, without who ("What does Theo do for a
    living?" -> do, living): the name is checked on its own (an event without it ranks lower and is
    no record), and scored again it ranks every turn that says "Theo" above the one that answers.
    A question that is nothing but names keeps them."""
    return [t for t in terms if _plain(t) not in names] or list(terms)


@dataclass(frozen=True)
class TopicWords:
    """A question's topic terms (names, digits, times and lone Chinese characters aside), split by
    whether the user ever said them; ``times`` are its time words, which no topic is made of but
    which an event may name ("Where am I going in October?")."""

    said: tuple[str, ...] = ()
    unsaid: tuple[str, ...] = ()
    unsaid_share: float = 0.0  # the unsaid terms' share of the topic's weight (the user's rarity)
    times: tuple[str, ...] = ()

    @classmethod
    def from_fields(cls, fields: Mapping[str, object]) -> TopicWords:
        """From its ``dataclasses.asdict`` form, as it crosses a Lambda boundary (JSON lists)."""
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})

    @property
    def all_unsaid(self) -> bool:
        return bool(self.unsaid) and not self.said

    def mostly_unsaid(self, share: float, reads_han: bool = False) -> bool:
        """Whether most of what is asked was never said, in words a cosine can be read for (with
        MiniLM a Chinese cosine says nothing, so there Chinese terms are left to the thresholds;
        ``reads_han``: the model reads Chinese)."""
        return (bool(self.unsaid) and self.unsaid_share >= share
                and (reads_han or not any(is_cjk(t) for t in self.unsaid)))

    def said_in(self, text: str | Tokens) -> bool:
        """Whether ``text`` holds a topic word the user said, or a time the question names."""
        tokens = Tokens.of(text)
        return any(tokens.frequency(t) for t in self.said + self.times)

    def plain_unsaid(self) -> list[str]:
        """The unsaid terms as words of their own ("grandma" of "grandma's"), to be embedded alone."""
        return list(dict.fromkeys(_plain(t) for t in self.unsaid))


def topic_words(terms: Sequence[str], names: Sequence[str], df: Mapping[str, int], docs: int,
                texts: Iterable[str | Tokens], memories_in_han: bool | None = None) -> TopicWords:
    """What the question is about, split by what the user said: a term is said when one of their
    events holds it (``df``) or one found for the question does (sealed ones are counted by their
    keyed tokens only, and read here once revealed). A topic all unsaid can still have a record
    (a paraphrase: "flying" for "flight"), so this raises the bar (``fusion.RecallRecipe``), it
    does not decide. A word in the other script than the user's memories (``memories_in_han``:
    "retired" asked of a user who writes in Chinese) is neither: its absence says nothing, as a
    name's does not (``fusion.checkable``), and counted unsaid it would turn every question asked
    across languages into a never-said topic."""
    # A lone Chinese character is a topic only as a noun standing alone (``chinese_words``: 狗):
    # ``terms`` holds no other.
    topic = [t for t in terms if _plain(t) not in names and not t.isdigit() and t not in _TIME_WORDS]
    found = [Tokens.of(t) for t in texts]
    said, unsaid = [], []
    for term in topic:
        heard = df.get(term, 0) > 0 or any(text.frequency(term) for text in found)
        if not heard and memories_in_han is not None and is_cjk(term) != memories_in_han:
            continue
        (said if heard else unsaid).append(term)
    weight = weights(said + unsaid, df, docs)
    total = sum(weight.values())
    share = sum(weight[t] for t in unsaid) / total if total > 0 else 0.0
    return TopicWords(tuple(said), tuple(unsaid), round(share, 4), tuple(t for t in terms if t in _TIME_WORDS))

