"""Facts a message says across its sentences, read from the whole message rather than a clause: a
correction by contrast ("it's not walnuts, it's pecans", "不是芒果，是菠萝"), which replaces what an
earlier turn of the batch said, and one of the user's people or pets named in the sentence after the one
that mentions them ("… for my husband's 50th? his name's Rahul", "给我女儿挑个礼物，她叫朵朵").
The person named is the last one the user called theirs before the name ("my wife's coworker…, her
name's Priya" names the coworker, no one of the user's), and the pronoun fits them ("my sister…, his
name is Glen" names no sister)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..model import PREDICATES, Extraction
from ..model import Predicate as P
from .rules import relation_predicate
from .rules_en import PLACE, RELATION
from .rules_zh import _KIN
from .speech import LETTER, UPPER
from .text import clean_object

Found = tuple[P, str, bool, tuple[str, ...]]

# -- a correction by contrast ----------------------------------------------------------------------------

# "it's not walnuts, it's pecans", "not Biscuit, Bagel", "not Austin, I live in Round Rock"
# "it was never milk apparently, it's soy", "it was never the dogs, the doctor says it's pollen"
_NOT_EN = re.compile(r"(?:^|(?<=[\s,;:.!]))(?:(?:it's|it is|it was|that's|that was)\s+)?(?:not|never)\s+"
                     r"([^,.;!?\n]{1,40}?)(?: (?:apparently|after all|at all))?\s*[,;:]\s*"
                     r"(?:(?:the |my |her |his )?(?:doctor|allergist|dermatologist|vet|tests?|nurse) "
                     r"(?:says|said) )?"
                     r"(?:(?:it's|it is|it was|but|rather|actually|just)\s+)?([^,.;!?\n]{1,40}?)"
                     r"(?=\s*(?:$|[,.;!?\n]))", re.I)
# "不是芒果，是菠萝", "其实不是花生，医生说是核桃"
_NOT_ZH = re.compile(r"不是([^，。！？,.!?\s]{1,10}?)[，,]\s*(?:[^，。！？,.!?]{0,6}?)(?:而)?是"
                     r"([\u4e00-\u9fffA-Za-z]{1,10}?)(?=$|[，。！？,.!?\s])")
# Who else the words before the contrast may be about: "my brother's allergy is not …", "我女儿不是…"
_SOMEONE_EN = re.compile(r"\b(?:he|she|they|his|her|their|him|them)\b|\b(?!(?:it|that|what|here|there|let|who)'s)"
                         r"\w+'s\b", re.I)
_SOMEONE_ZH = re.compile(r"他|她|们|妈|爸|哥|姐|弟|妹|老公|老婆|儿子|女儿|孩子|朋友|同事|同学|室友")
_FIRST_PERSON = re.compile(r"^(?:i|i'm|i've|my|we|we're|我)\b", re.I)


def _bare(obj: str) -> str:
    """"Biscuit (dog)" is Biscuit."""
    return obj.split(" (")[0].strip().lower()


def contrasted(text: str, found: list[Found], previous: Sequence[Extraction]) -> list[Found] | None:
    """What an earlier turn said and this message takes back by contrast ends; the value set against it
    replaces it, unless the rules read the new value of that predicate themselves ("not Austin, I live
    in Round Rock"). None when the message takes nothing back so."""
    earlier = [f for f in previous if f.is_fact and f.object and "ended" not in f.tags]
    taken_back = False
    for pattern, someone in ((_NOT_EN, _SOMEONE_EN), (_NOT_ZH, _SOMEONE_ZH)):
        for match in pattern.finditer(text):
            start = max(text.rfind(c, 0, match.start()) for c in ",.;!?，。！？\n")
            if someone.search(text[start + 1:match.start()]):
                continue
            was = clean_object(match.group(1)).lower()
            fact = next((f for f in reversed(earlier) if _bare(f.object) == was), None)
            if fact is None:
                continue
            taken_back = True
            kind = fact.object[len(_bare(fact.object)):]
            same = [f for f in found if f[0] is fact.predicate and not f[2] and _bare(f[1]) != was]
            found = [f for f in found if f[0] is not fact.predicate or f in same]
            now = clean_object(match.group(2))
            if not same and now and not _FIRST_PERSON.match(now):
                found.append((fact.predicate, now + kind, False, ()))
            if not PREDICATES[fact.predicate].functional or same or now:
                found.append((fact.predicate, fact.object, True, ()))
    return found if taken_back else None


# -- one of the user's people named in the sentence after --------------------------------------------------

_HER = {"wife", "wifey", "missus", "girlfriend", "gf", "fiancee", "fiancée", "mother", "mom", "mum", "mam", "mammy",
        "mummy", "amma", "stepmum", "stepmom", "stepmother", "sister", "sisters", "sis", "daughter", "daughters"}
_HIS = {"husband", "hubby", "boyfriend", "bf", "fiance", "fiancé", "father", "dad", "stepdad", "stepfather", "appa",
        "brother", "brothers", "bro", "son", "sons"}
_MY_KIN_EN = re.compile(r"\b(?:my|our) (?:(?:little|baby|big|older|younger|oldest|youngest|eldest|twin) )?"
                        + RELATION + r"\b('s\b)?(?: (\w+))?", re.I)
# The people whose names the user's kin's possession may be ("my wife's coworker"), not a thing ("my wife's 40th").
_THEIR_PEOPLE = re.compile(r"(?:coworkers?|co-workers?|colleagues?|friends?|boss|manager|teachers?|neighbou?rs?|"
                           r"classmates?|roommates?|doctor|coach|cousins?|boyfriend|girlfriend|husband|wife|partner|"
                           r"ex|mom|mum|dad|sister|brother|son|daughter|kid|dog|cat|students?|tutor|nanny)$", re.I)
_NAMED_EN = re.compile(r"(?:^|(?<=[\s,;:.!?]))(his|her) name(?:'s| is) (" + UPPER + LETTER + r"{1,30}(?: "
                       + UPPER + LETTER + r"{1,30})?)")
_MY_KIN_ZH = re.compile(r"(?:(?<=我)|(?<=我的)|(?<=给)|(?<=为)|(?<=带)|(?<=陪)|(?<=接)|(?<=送))" + _KIN + r"(?!的)")
_NAMED_ZH = re.compile(r"[，,。！!]\s*(他|她)(?:叫|名叫|名字叫)([\u4e00-\u9fff]{2,3}?|[A-Za-z]{2,20})"
                       r"(?=$|[，,。！!？?\s])")
_HER_ZH = set("妈姐妹") | {"女儿", "闺女", "老婆", "妻子", "太太", "媳妇", "女朋友", "妈妈", "姐姐", "妹妹"}
_HIS_ZH = set("爸哥弟") | {"儿子", "老公", "丈夫", "先生", "男朋友", "爸爸", "哥哥", "弟弟"}
_KIN_PREDICATES = {P.HAS_SPOUSE, P.HAS_CHILD, P.HAS_PARENT, P.HAS_SIBLING}


def named_after(text: str) -> list[Found]:
    """"… my wife's 40th? her name's Yuki": the user's person last mentioned, named by a pronoun that fits."""
    out: list[Found] = []
    for match in _NAMED_EN.finditer(text):
        kin = [k for k in _MY_KIN_EN.finditer(text, max(0, match.start() - 160), match.start())][-1:]
        if not kin or (kin[0].group(2) and kin[0].group(3) and _THEIR_PEOPLE.match(kin[0].group(3))):
            continue
        word = kin[0].group(1).lower()
        if word in (_HIS if match.group(1).lower() == "her" else _HER):
            continue
        predicate = relation_predicate(word)
        if predicate in _KIN_PREDICATES:
            out.append((predicate, match.group(2), False, ()))
    for match in _NAMED_ZH.finditer(text):
        kin = [k for k in _MY_KIN_ZH.finditer(text, max(0, match.start() - 40), match.start())][-1:]
        if not kin or re.search(r"[。！!？?]", text[kin[0].end():match.start()]):
            continue
        word = kin[0].group(1)
        if word in (_HIS_ZH if match.group(1) == "她" else _HER_ZH):
            continue
        predicate = relation_predicate(word)
        if predicate in _KIN_PREDICATES:
            out.append((predicate, match.group(2), False, ()))
    return out


# -- an age to come --------------------------------------------------------------------------------------

# "retire before I hit 60", "by the time I'm 35", "until I'm 67": an age to come is none the user is
_AGE_TO_COME = re.compile(r"\b(before|by the time|until|till|once) i(?:'m| am| hit| turn| reach| get to) "
                          r"(?=\d{1,3}\b|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)\b)", re.I)


def as_said(text: str) -> str:
    """The message with an age to come said without the user's "I" ("before I hit 60" as "before age 60")."""
    return switched_major(_AGE_TO_COME.sub(lambda m: m.group(1) + " age ", text))


# -- a move told as done ---------------------------------------------------------------------------------

# "ok we're in Spokane! unpacking forever": where the user now is, in a message that tells of the move
_MOVE_WORDS = re.compile(r"\b(?:unpack(?:ing|ed)?|movers|moving (?:truck|van)|moved in|boxes|got the keys|"
                         r"settl(?:ing|ed) in|new (?:place|apartment|flat|house|home))\b", re.I)
_HERE_NOW = re.compile(r"(?:^|(?<=[\s,.;:!?]))(?i:i'm|i am|we're|we are) (?:(?i:finally|officially|now|all|here) )*"
                       r"(?i:in) " + PLACE + r"(?: (?i:now|at last))?(?=\s*(?:$|[,.;!?\n]))")


def settled(text: str) -> list[Found]:
    """"we're in Tucson now! still unpacking boxes": a move told as done names the user's home."""
    if not _MOVE_WORDS.search(text):
        return []
    return [(P.LIVES_IN, m.group(1), False, ()) for m in _HERE_NOW.finditer(text)][:1]


# -- a major switched, told as news ------------------------------------------------------------------------

# "转专业成功了！从土木转到了计算机": in a message about switching majors, "从X转到Y" names the fields
_SWITCH_SAID = re.compile(r"转专业|换专业|转系|换了专业")
_FROM_TO = re.compile(r"从([\u4e00-\u9fff]{2,6}?)(?:专业)?转到了?([\u4e00-\u9fff]{2,6}?)(?=$|[，。！？!?\s])")


def switched_major(text: str) -> str:
    """"从土木转到了计算机" said as "从土木转到了计算机专业" when the message is about switching majors
    (and no one else's: "我室友转专业了" is the roommate's)."""
    said = _SWITCH_SAID.search(text)
    if said is None or _SOMEONE_ZH.search(text[:said.start()]):
        return text
    return _FROM_TO.sub(lambda m: m.group(0) if m.group(2).endswith("专业") else m.group(0) + "专业", text)
