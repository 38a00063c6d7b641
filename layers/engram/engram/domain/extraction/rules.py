"""The shape of a fact rule and how a clause is read with a list of them."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..model import Predicate, resolve_predicate
from .text import clean_object, split_list


@dataclass(frozen=True)
class Rule:
    """``pattern`` finds the object in group ``group``. A relation rule has no fixed predicate: the
    relation word in ``relation_group`` names it ("my sister" -> has_sibling). ``lists`` splits
    "A, B and C" into three facts; ``value`` maps the matched words onto the stored object
    ("diabetic" -> "diabetes", "thirty" -> "30") or rejects them (``None``). ``kind_group`` names
    what the object is, kept beside it: "my dog Rex" -> "Rex (dog)". ``tags`` go on the fact: what
    the user does not eat is a dislike tagged ``FOOD_TAG``, which a question about food reads."""

    pattern: re.Pattern
    predicate: Predicate | None
    group: int = 1
    relation_group: int | None = None
    lists: bool = False
    value: Callable[[str], str | None] | None = None
    kind_group: int | None = None
    tags: tuple[str, ...] = ()


# Where the user is right now ("我在北京", "I'm currently in Rome"): a home only if the sentence does not
# send the user back home from there (``extraction._where_now``).
HERE_NOW = "here_now"

# Plural and modified relation words map onto the singular the vocabulary knows.
_SINGULAR = {"kids": "kid", "children": "child", "sons": "son", "daughters": "daughter", "brothers": "brother",
             "sisters": "sister", "friends": "friend", "colleagues": "colleague", "coworkers": "coworker",
             "parents": "parent", "co-worker": "coworker", "partner": "spouse", "fiance": "spouse",
             "fiancé": "spouse", "fiancée": "spouse", "mum": "mom", "mommy": "mom", "daddy": "dad",
             "stepson": "son", "stepdaughter": "daughter", "stepdad": "dad", "stepfather": "dad", "stepmum": "mom",
             "stepmom": "mom", "stepmother": "mom", "twin": "sibling", "sibling": "sibling",
             "siblings": "sibling", "boyfriend": "spouse", "girlfriend": "spouse", "girl": "daughter",
             "boy": "son", "elder": "sibling", "twins": "child", "triplets": "child",
             # the words of chat and of British, Irish and Indian English for the same people
             "missus": "spouse", "hubby": "spouse", "wifey": "spouse", "bf": "spouse", "gf": "spouse",
             "bro": "brother", "sis": "sister", "mate": "friend", "mates": "friend", "bestie": "friend",
             "bff": "friend", "mam": "mom", "mammy": "mom", "mummy": "mom", "amma": "mom", "appa": "dad",
             "老大": "孩子", "娃": "孩子",
             "宝宝": "孩子", "闺女": "女儿", "太太": "妻子", "先生": "丈夫", "爱人": "妻子", "媳妇": "妻子",
             "师傅": "导师", "上司": "经理", "主管": "经理", "组长": "经理", "教授": "导师", "博导": "导师",
             "兄弟": "哥哥",
             "姐妹": "姐姐", "好朋友": "朋友", "爸": "爸爸", "妈": "妈妈", "哥": "哥哥", "姐": "姐姐",
             "弟": "弟弟", "妹": "妹妹", "闺蜜": "朋友", "男朋友": "丈夫", "女朋友": "妻子",
             # kin and friends by the names of a region or a register
             "娘": "妈妈", "爹": "爸爸", "老妈": "妈妈", "老爸": "爸爸", "发小": "朋友", "死党": "朋友", "哥们": "朋友"}


_NAMED = {Predicate.HAS_NAME, Predicate.HAS_PET, Predicate.HAS_CHILD, Predicate.HAS_PARENT, Predicate.HAS_SPOUSE,
          Predicate.HAS_SIBLING, Predicate.HAS_FRIEND, Predicate.HAS_ADVISOR, Predicate.HAS_COLLEAGUE,
          Predicate.HAS_MANAGER}
_Y_PLURALS = {"puppies": "puppy", "bunnies": "bunny", "ponies": "pony"}


def singular_kind(word: str) -> str:
    """"cats" -> "cat", "puppies" -> "puppy", "guinea pigs" -> "guinea pig"; Chinese as it is."""
    word = " ".join(word.lower().split())
    if word in _Y_PLURALS:
        return _Y_PLURALS[word]
    return word[:-1] if word.isascii() and word.endswith("s") and not word.endswith("ss") else word


# A named pet is kept with its kind as it grows up: "a puppy named Pepper" is Pepper the dog.
_ADULT = {"puppy": "dog", "pup": "dog", "kitten": "cat", "kitty": "cat", "bunny": "rabbit", "foal": "horse",
          "小狗": "狗", "小猫": "猫", "猫咪": "猫", "狗狗": "狗"}


def adult_kind(word: str) -> str:
    kind = singular_kind(word)
    return _ADULT.get(kind, kind)


def relation_predicate(word: str) -> Predicate | None:
    word = word.strip().lower()
    if word == "sibling":
        return Predicate.HAS_SIBLING
    return resolve_predicate(_SINGULAR.get(word, word))


def read_clause(clause: str, rules: list[Rule]) -> list[tuple[Predicate, str, tuple[str, ...]]]:
    """Every fact the rules find in one clause, in rule order, each (predicate, object) once, with
    its rule's tags."""
    found: list[tuple[Predicate, str, tuple[str, ...]]] = []
    for rule in rules:
        for match in rule.pattern.finditer(clause):
            predicate = rule.predicate
            if rule.relation_group is not None:
                predicate = relation_predicate(match.group(rule.relation_group))
            raw = match.group(rule.group)
            if predicate is None or raw is None:
                continue
            for part in (split_list(raw) if rule.lists else [raw]):
                obj = clean_object(part)
                if predicate in _NAMED:  # "my son Eli's birthday" names Eli
                    obj = re.sub(r"(?<=\w)['’]s$", "", obj)
                    # "Dr. Greta Olsen" is Greta Olsen; "Dr. Chen" keeps the title the surname is said with
                    obj = re.sub(r"^(?:Dr|Mr|Mrs|Ms|Miss|Prof|Professor)\.? (?=\S+ \S)", "", obj)
                if obj and rule.value is not None:
                    obj = rule.value(obj)
                if obj and rule.kind_group is not None:
                    obj = f"{obj} ({adult_kind(match.group(rule.kind_group))})"
                if obj and (predicate, obj.lower()) not in {(p, o.lower()) for p, o, _ in found}:
                    found.append((predicate, obj, rule.tags))
    return found
