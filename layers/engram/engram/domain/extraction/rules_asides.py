"""How a chat message says a fact beside itself, read as the plain statement (``as_said``) and a few rules
of its own: a self-introduction in fragments that opens on a bare name and an age ("Tomás, 41, electrician
in Leeds", "王磊，32岁，重庆人"), an age a birthday brings ("birthday today, officially 45", "今天过完生日就
26了", and "四十二了，…" opening a message), the user set against someone else ("I'm the one allergic to
shellfish"), a promotion said as a move up ("moved up to shift lead"), a reason denied ("我不喝咖啡不是因为
不喜欢，是…" says no taste), and a pastime the user got into ("I've gotten really into knitting", "入坑飞盘
三个月了"). Wired like ``rules_follow``: ``extraction`` runs ``as_said`` on the message and adds the rules
to those of each language."""

from __future__ import annotations

import re

from ..model import Predicate as P
from .dates import number
from .rules import Rule
from .rules_zh import END
from .speech import LETTER, UPPER

_I = re.I

# -- a self-introduction in fragments ---------------------------------------------------------------------

# "hi! Renée, 33, sous chef in New Orleans": a sentence that opens on a bare name and an age is the user
# introducing themself; a bare trade after the age is what they are ("…, 33, a sous chef …")
_GREETING_EN = r"(?:(?:hi|hey|hello|hiya|heya)(?: there| all| everyone)?\W+)?"
_INTRO_EN = re.compile(r"(?:^|(?<=[.!?\n]))(\s*)" + _GREETING_EN + r"(?-i:(" + UPPER + LETTER + r"{1,20})), "
                       r"(\d{1,2}), (?!(?:is|was|has|had|and|but|who|which|are|will|can|just|lives|works)\b)"
                       # what follows the age: a state ("retired and …", "originally from …") or a trade
                       r"((?:retired|married|single|divorced|widowed|living|based|originally|from|in|new|"
                       r"currently|still)\b)?(?=([a-z]))", _I)
# "刘畅，26岁，贵阳人", "自我介绍一下：林晓，28岁": a message that opens on a Chinese name and an age (not
# "小敏，30岁，是我闺蜜")
_INTRO_ZH = re.compile(r"^((?:自我介绍一下|大家好|你好|您好|哈喽|嗨)?[～~：:，,！!。\s]*)"
                       r"([\u4e00-\u9fff]{2,3})[，,]\s*(?=(?:\d{1,2}|[二三四五六七八九]?十[一二三四五六七八九]?)岁"
                       r"[，,]\s*(?!是|他|她|我的?(?:闺蜜|朋友|同学|同事|女儿|儿子)))")


def _introduced(match: re.Match) -> str:
    lead = match.group(1) + "I'm " + match.group(2) + ", " + match.group(3) + ", "
    return lead + ("I'm " if match.group(4) else "I'm an " if match.group(5) in "aeiou" else "I'm a ")


# -- an age a birthday brings -----------------------------------------------------------------------------

# "birthday today, officially 45", "it's my birthday, 20 today!!", "ugh, officially 38 as of this morning":
# an age said bare at the start of a clause (not "my son is officially 10 today")
_AGE_EN = re.compile(r"(?:^|(?<=[.,;!?\n]))(\s*)(?:(?:ugh|well|so|and|welp|yay|woo+)\W+)?(?:(officially|finally|now)"
                     r" (\d{1,2})(?=\s*(?:$|[.,;!?\n]|/s\b|as of\b|today\b|now\b|this\b))|(\d{1,2}) today\b)", _I)
_BIRTHDAY = re.compile(r"\b(?:birthday|bday|b-day)\b|生日", _I)
_ZH_AGE = r"(\d{2}|[二三四五六七八九]?十[一二三四五六七八九]?|[一二三四五六七八九]十)"
# "今天过完生日就26了", "过了今天就48了", "今天生日，正式三十一了", "四十二了，还在租房": an age said bare,
# opening a clause of the user's (not "我女儿今天过完生日就六岁了")
_AGE_ZH = re.compile(r"(?:^|(?<=[，,。！!；;\n]))(?:今天|明天)?(?:过完生日|生日一过|过了今天|过完今天|过了生日)?"
                     r"(?:就|正式|终于|总算)?" + _ZH_AGE + r"(岁)?(?:了)(?=$|[，,。！!；;\n～~啊呀哈]|还|也|都|就|才)")


def _age_en(text: str) -> str:
    # "officially 38" says an age by itself; "20 today" only when a birthday is told
    birthday = bool(_BIRTHDAY.search(text))
    return _AGE_EN.sub(lambda m: m.group(1) + "I'm " + m.group(3) if m.group(3) else
                       m.group(1) + "I'm " + m.group(4) if birthday else m.group(0), text)


def _age_zh(match: re.Match) -> str:
    age = number(match.group(1))
    # without 岁 a bare number is an age when a birthday is told, or when it opens the message
    if age is None or not 13 <= age <= 99:
        return match.group(0)
    return "我" + str(age) + "岁了"


def _ages_zh(text: str) -> str:
    if _BIRTHDAY.search(text):
        return _AGE_ZH.sub(_age_zh, text)
    return _AGE_ZH.sub(_age_zh, text, count=1) if _AGE_ZH.match(text) else text


# -- the user set against someone else ---------------------------------------------------------------------

# "but I'm the one allergic to shellfish", "I'm the one with asthma": said of the user as "I'm …", "I have …"
_THE_ONE = re.compile(r"\b(i'm|i am) the one (?:(with|who has|that has)|who's|who is|that's|that is)?\s*", _I)


def _the_one(match: re.Match) -> str:
    return "I have " if match.group(2) else match.group(1) + " "


# -- a promotion said as a move up ------------------------------------------------------------------------

# "moved up to shift lead", "bumped up to branch manager": a rank, not a place (not "moved up to Aberdeen")
_RANK = (r"lead|leader|manager|supervisor|director|head|chief|captain|partner|foreman|editor|principal|officer|"
         r"president|vp|coordinator|sergeant|lieutenant|associate|analyst|engineer|chef|nurse|admin")
_MOVED_UP = re.compile(r"\b(?:moved|bumped|stepped) up to (?=(?:an? |the )?(?-i:(?:[a-z]+ ){0,2}(?:" + _RANK
                       + r"))\b)", _I)

# -- a reason denied --------------------------------------------------------------------------------------

# "我不喝咖啡不是因为不喜欢，是晚上会睡不着": the clause gives a reason, and what the user does not eat or
# drink is no taste; the reason set against it ("是胃不好") is no fact either
_NOT_BECAUSE = re.compile(r"(?:^|(?<=[，,。！!；;\n]))[^，,。！!？?；;\n]{0,12}?不是因为[^，,。！!？?；;\n]{0,16}"
                          r"(?:[，,]\s*(?:而|其实|主要)?是[^，,。！!？?；;\n]{0,30})?")


def as_said(text: str) -> str:
    """The message with its facts said beside themselves said plainly (see the module's docstring)."""
    text = _INTRO_EN.sub(_introduced, text)
    text = _INTRO_ZH.sub(lambda m: m.group(1) + "我叫" + m.group(2) + "，", text, count=1)
    text = _THE_ONE.sub(_the_one, _MOVED_UP.sub("got promoted to ", _age_en(text)))
    text = _GOTTEN_INTO.sub(lambda m: "I'm " + m.group(1) + "into", text)
    if re.search(r"[\u4e00-\u9fff]", text):
        text = _ages_zh(_NOT_BECAUSE.sub("", text))
    return text


# -- a pastime got into -----------------------------------------------------------------------------------

# "I've gotten really into knitting", "I have been super into Korean dramas": what the user is into now
_GOTTEN_INTO = re.compile(r"\bi(?:'ve| have) (?:gotten|been) ((?:really |super |totally |so |very |properly |"
                          r"seriously |quite )?)into\b", _I)

RULES_EN: list[Rule] = [
    # "got promoted to shift lead", "I was promoted to team lead": a rank is a job (the trades are in rules_en)
    Rule(re.compile(r"\bi(?:'ve| have|'m| am| was)? (?:just |finally |recently |officially )?(?:got |been |was )?"
                    r"promoted to (?:an? |the )?((?-i:(?:[a-z-]+ ){0,2}?(?:" + _RANK + r")))\b(?!['’]s| of\b)", _I),
         P.WORKS_AS),
]

# "入坑飞盘三个月了", "最近入坑了手账", "我去年入坑的滑雪": a pastime the user has taken to (not "别入坑摄影")
RULES_ZH: list[Rule] = [
    Rule(re.compile(r"^我(?:去年|今年|前年|最近|上个?月|刚|也|又|已经|终于)*(?:算是)?(?:入坑|入了)(?:了|的)?"
                    r"([^，。；！？,.;!?\s了的]{1,6}?)(?:坑)?(?:的)?(?:了|[一二两三四五六七八九十几半\d]{1,3}(?:年|个月|周)多?了?)?"
                    + END), P.HAS_HOBBY),
    # "上个月升职当店长了", "今年升成销售主管了": a promotion is the user's new job
    Rule(re.compile(r"^我(?:去年|今年|上个?月|上周|刚|终于|已经|也)*(?:升职|升)(?:了)?(?:当|做|成|为|到)(?:了)?"
                    r"([\u4e00-\u9fff]{2,6}?)(?:了)?" + END), P.WORKS_AS),
]
