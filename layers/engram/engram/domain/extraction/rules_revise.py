"""A later message that revises what an earlier turn of the batch said, read as the plain statement it
amounts to (``as_said``, given the facts said before) or as the endings it brings (``someone_else``):

- a new employer said as where the user is now, in a message about work ("update: as of Monday I'm with
  KPMG", "跳槽了，现在在小米") is said as "I work at …" (not "I'm at Costco right now grabbing snacks");
- a promotion said as a move up ("got bumped up to shift supervisor", "they promoted me to …") or a post
  changed ("转岗了，现在做人事") is said as the job the user now has;
- a slip put right by the bare value ("wait no, 42.", "oops, 28*", "哦不，35") is said as "sorry, I meant …";
- a feeling reversed about the thing just named ("now I actually love it", "现在一天不游就难受", "现在离不开了")
  is said of the thing the user last said they disliked, unless the message names another thing for "it";
- a fact the user takes back as someone else's ("不对，是我女儿对花生过敏，我没事", "wait no, it's my husband
  who's allergic, not me") ends the user's own;
- a job said as a joke ("I'm a professional overthinker, put it on my resume") and a taste hedged ("I wouldn't
  say I love hiking", "说不上喜欢爵士乐") say nothing of the user.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..model import Extraction
from ..model import Predicate as P
from .rules_en import WORD

_I = re.I
Found = tuple[P, str, bool, tuple[str, ...]]


def _current(previous: Sequence[Extraction], *predicates: P) -> list[Extraction]:
    return [f for f in previous if f.is_fact and f.object and "ended" not in f.tags and f.predicate in predicates]


# -- a new employer said as where the user is now -----------------------------------------------------------

# "as of this week I'm at Chase", "these days I'm with KPMG", "I'm at Costco now" (not "right now", which is
# where the user is standing), the employer said last in its clause
_NOW_AT_EN = re.compile(r"\b(?:(?:now|as of [\w ]{1,15}?|these days|nowadays|since (?:last|this) \w+),? )?"
                        r"i(?:'m| am) (?:now )?(?:at|with) "
                        r"(?!(?:the )?(?:gym|home|work|school|office|store|shop|doctor)\b)("
                        r"(?-i:" + WORD + r"(?: " + WORD + r"){0,2}?))(?: now)?(?=\s*(?:$|[,.;!]))", _I)
_NOW_SAID = re.compile(r"\b(?:now|as of|these days|nowadays|since (?:last|this))\b", _I)
_RIGHT_NOW = re.compile(r"\b(?:right now|for (?:a|the|an|my|our|lunch|dinner|coffee)\b|today|tonight|waiting|"
                        r"grab(?:bing)?|picking|buying|shopping|queue|line|meeting|appointment|visit(?:ing)?)\b|\?", _I)
# "跳槽了，现在在小米", "换工作了，现在在顺丰，还是做客服": where the user is now, after news of a new job
_NEW_JOB_ZH = re.compile(r"跳槽|换了?(?:个|份)?工作|换了?(?:家|个)公司|入职|新公司|转正")
_SOMEONE_ZH = re.compile(r"他|她|你|们|妈|爸|哥|姐|弟|妹|老公|老婆|儿子|女儿|朋友|同事|同学|室友|孩子")
_NOW_AT_ZH = re.compile(r"(?:^|(?<=[，,。！!]))\s*(?:我)?(?:现在|目前|如今)(?:已经)?在([\u4e00-\u9fffA-Za-z]{2,8}?)"
                        r"(?=$|[，,。！!])")


def _employer(text: str, previous: Sequence[Extraction]) -> str:
    if not _current(previous, P.WORKS_AT, P.WORKS_AS):
        return text
    if (zh := _NEW_JOB_ZH.search(text)) and not _SOMEONE_ZH.search(text[:zh.start()]):
        return _NOW_AT_ZH.sub(lambda m: "我现在在" + m.group(1) + "工作", text, count=1)

    def said(m: re.Match) -> str:
        rest = text[m.end():m.end() + 40]
        if _RIGHT_NOW.search(m.group(0) + rest.split(".")[0]) or not _NOW_SAID.search(m.group(0)):
            return m.group(0)
        return "I work at " + m.group(1)
    return _NOW_AT_EN.sub(said, text)


# -- a promotion or a post changed -------------------------------------------------------------------------

# "got promoted to shift supervisor", "they promoted me to senior analyst" ("got bumped up to …", "moved up to …"
# a rank are said so by ``rules_asides``; "bumped up to first class" is not)
_UP_EN = re.compile(r"(?:^|(?<=[\s,.;!]))(?:(?:i |i've |i have )?(?:just |finally |officially )?(?:(?:got|been|was|"
                    r"am|'m) ){0,2}promoted to|(?:they|he|she|my boss|the boss|"
                    r"management|the company) (?:just |finally |officially )?promoted me to)"
                    r" (?:an? |the )?([a-z][a-z-]{1,20}(?: [a-z][a-z-]{1,20}){0,2}?)"
                    r"(?=\s*(?:$|[,.;!]|\s(?:last|this|yesterday|today|on|at|after)\b))", _I)
# what may open the clause before the move up: nothing of a subject other than the user ("my brother got …")
_OPENER_EN = re.compile(r"^(?:\s*(?:so|and|ok|okay|update|well|yay|also|oh|btw|guess what|news)\b\W*)*\s*$", _I)
_NOT_A_POST = re.compile(r"\b(?:class|seat|tier|level|plan|version|league|division|lane|row|floor)\b", _I)
# "转岗了，现在做人事", "调岗了，现在在学校做教务", "升职了，现在是主管": the post after the change
_POST_CHANGED_ZH = re.compile(r"转岗|调岗|换岗|转行|升职|升了职|晋升|提拔")
_NOW_DOING_ZH = re.compile(r"(?:^|(?<=[，,。！!]))\s*(?:我)?(现在|目前|如今)"
                           r"(?=(?:在[\u4e00-\u9fffA-Za-z]{1,8}?)?(?:做|当|是))")


# the post itself, a word of its own after "做" (a trade the job lists may not know: "做教务", "做市场")
_POST_ZH = re.compile(r"(?:^|(?<=[，,。！!]))\s*我?(?:现在|目前|如今)(?:在[\u4e00-\u9fffA-Za-z]{1,8}?)?(?:做|当)"
                      r"([\u4e00-\u9fff]{2,4}?)(?:工作)?(?=$|[，,。！!])")


def posts(text: str, previous: Sequence[Extraction]) -> list[Found]:
    """"调岗了，现在在学校做教务": the post the user has after news of a change of post."""
    if not _current(previous, P.WORKS_AS, P.WORKS_AT):
        return []
    if (zh := _POST_CHANGED_ZH.search(text)) is None or _SOMEONE_ZH.search(text[:zh.start()]):
        return []
    return [(P.WORKS_AS, m.group(1), False, ()) for m in _POST_ZH.finditer(text, zh.end())][:1]


def _post(text: str, previous: Sequence[Extraction]) -> str:
    if not _current(previous, P.WORKS_AS, P.WORKS_AT):
        return text
    if (zh := _POST_CHANGED_ZH.search(text)) and not _SOMEONE_ZH.search(text[:zh.start()]):
        return _NOW_DOING_ZH.sub(lambda m: "我" + m.group(1), text, count=1)
    def said(m: re.Match) -> str:
        before = _clause(text, m)
        if _NOT_A_POST.search(m.group(1)) or not _OPENER_EN.match(before):
            return m.group(0)
        return "I got promoted to " + m.group(1)
    return _UP_EN.sub(said, text)


# -- a slip put right by the bare value --------------------------------------------------------------------

# "wait no, 42.", "oops, 28*", "no wait, Seattle. too many moves": the value alone after the opener
_BARE_EN = re.compile(r"^(?:(?:oh|ah|um|uh),? )?(?:wait,? no|no,? wait|oops|whoops|sorry,? no|actually,? no|nope|"
                      r"hang on|scratch that|correction)[,!.:]?\s+(\d{1,3}|(?-i:[A-Z][\w'-]{1,20}(?: [A-Z][\w'-]{1,20})"
                      r"{0,2}))\s*\*?\s*(?:$|[.!;,]\s*)", _I)
_NOT_VALUE = re.compile(r"^(?:sorry|never|nvm|thanks|thank|ok|okay|lol|haha|i|my|it|that|never mind)$", _I)
# "哦不，35，老记错", "噢不是，35": said as "不对，…"
_BARE_ZH = re.compile(r"^(?:哦|噢|啊|呃|额|诶)不(?:是)?[，,]\s*(?=\d{1,3}(?!\d)|是|[一二三四五六七八九十]{1,3}岁)")
_TWICE_ZH = re.compile(r"^(不对|不是|说错了)(?:[，,]?\1)+")


def _bare_value(text: str) -> str:
    if (m := _BARE_EN.match(text)) and not _NOT_VALUE.match(m.group(1)):
        rest = text[m.end():]
        return "sorry, I meant " + m.group(1) + ("; " + rest if rest else "")
    return _TWICE_ZH.sub(r"\1", _BARE_ZH.sub("不对，", text))


# -- a feeling reversed about the thing just named ---------------------------------------------------------

# "now I actually love it", "turns out I love it now", "now I'm kinda into it"
_LOVE_IT_EN = re.compile(r"\b(?:(?:now|these days|nowadays),? i (?:actually |really |kinda |kind of |genuinely |"
                         r"honestly |totally |lowkey |secretly )*(?:love|like|enjoy|adore)|i (?:actually |really |"
                         r"kinda |kind of |genuinely |honestly |totally |lowkey |secretly )*(?:love|like|enjoy|adore)"
                         r"(?= it (?:now|these days|nowadays)\b))( it)\b", _I)
# a thing "it" may be instead: one the message says was bought, given or made ("my sister bought a kayak")
_ANOTHER_EN = re.compile(r"\b(?:bought|got|gave|gifted|made|cooked|baked|showed|sent|lent|recommended|brought|"
                         r"adopted|ordered)(?: me| us)? (?:a|an|the|this|that|his|her|their|my|our|some|new) ", _I)
# "现在一天不游就难受", "现在一天不跑浑身难受": the verb of the thing disliked, done every day now
_MISS_IT_ZH = re.compile(r"(?:现在|如今|这下)(?:一天|每天|几天|一周)不([\u4e00-\u9fff])(?:就)?(?:浑身|全身)?"
                         r"(?:难受|不舒服|不得劲|受不了|不自在)")
# "现在离不开了", "现在爱上了", "现在反而喜欢上了": the feeling said with its object left out
_LOVE_IT_ZH = re.compile(r"(?:现在|如今|这下)(?:反而|倒是|竟然|居然)?(?:彻底)?(?:离不开|爱上|喜欢上|迷上|上瘾)了"
                         r"(?=$|[，,。！!～~]|啊|哈)")
_ANOTHER_ZH = re.compile(r"(?:买|养|送|给|做|推荐|带回|捡)了?(?:一)?(?:只|个|条|本|台|部|件|款|盆|双)")


def _clause(text: str, match: re.Match) -> str:
    return re.split(r"[，,。！!；;]", text[:match.start()])[-1]


def _reversed(text: str, previous: Sequence[Extraction]) -> str:
    facts = [f for f in previous if f.is_fact]
    disliked = [f for f in _current(previous, P.DISLIKES) if f.message_id == facts[-1].message_id][-1:] if facts else []
    if not disliked:
        return text
    thing = disliked[0].object
    if re.search(r"[\u4e00-\u9fff]", thing):
        bare = re.sub(r"^(?:吃|喝|打|弹|玩|练|做|去|看|听)(?=..)", "", thing)
        if (m := _MISS_IT_ZH.search(text)) and m.group(1) in thing and not _SOMEONE_ZH.search(_clause(text, m)):
            return text[:m.start()] + "我现在每天都" + bare + "，" + text[m.start():]
        if (m := _LOVE_IT_ZH.search(text)) and not _SOMEONE_ZH.search(_clause(text, m)) \
                and not _ANOTHER_ZH.search(text[:m.start()]):
            return text[:m.start()] + "我现在喜欢" + bare + "，" + text[m.end():]
        return text
    m = _LOVE_IT_EN.search(text)
    if m is None or _ANOTHER_EN.search(text[:m.start()]):
        return text
    # "bacon is actually amazing, I love it now" after "I hate the smell of bacon": "it" is the part named again
    words = thing.split()
    thing = next((" ".join(words[i:]) for i in range(len(words)) if re.search(
        r"\b" + re.escape(" ".join(words[i:])) + r"\b", text[:m.start()], _I)), thing)
    # "now I actually love it??": surprise, not a question
    return text[:m.start(1)] + " " + thing + re.sub(r"^(\s*(?:now|these days|nowadays)?)\?+", r"\1!", text[m.end(1):])


# -- a joke or a hedge -------------------------------------------------------------------------------------

# "put it on my resume", "should add it to my CV": what the sentence calls the user's trade is a joke
_RESUME = re.compile(r"\b(?:put|add|list)(?:ing)? (?:it|that|this) (?:on|to) my (?:resume|cv|linkedin)\b"
                     r"|\bif (?:that|it) (?:counts as|were|was) a (?:job|career)\b|\bif only (?:it|that) paid\b", _I)
_JOKE_TRADE = re.compile(r"\bi(?:'m| am) (?:an? )?(?:professional|certified|full[- ]time|expert|world[- ]class) "
                         r"[a-z-]{2,20}(?: [a-z-]{2,20})?(?=\s*(?:$|[,.;!]))", _I)
# "I wouldn't say I love hiking", "I can't say I like sushi", "I wouldn't call myself a fan of opera"
_HEDGED_EN = re.compile(r"(?:\bi (?:wouldn't|would not|couldn't|could not|can't|cannot|won't) (?:say|claim)(?: that)? "
                        r"i(?:'m| am)? |\bi (?:wouldn't|would not) call myself )[^,.;!?]{1,40}?"
                        r"(?=\s*(?:$|[,.;!?]| but | though ))", _I)
_HEDGED_ZH = re.compile(r"(?:我)?(?:说不上|谈不上|算不上|称不上)(?:很|多|有多)?(?:喜欢|爱|热爱)[^，,。！!？?]{1,12}")


def _not_said(text: str) -> str:
    if _RESUME.search(text):
        text = _JOKE_TRADE.sub("", text)
    return _HEDGED_ZH.sub("", _HEDGED_EN.sub("", text))


def as_said(text: str, previous: Sequence[Extraction]) -> str:
    """The message with what it revises of the earlier turns said plainly."""
    return _not_said(_reversed(_post(_employer(_bare_value(text), previous), previous), previous))


# -- a fact taken back as someone else's -------------------------------------------------------------------

# the user's own part said away ("not me", "I don't", "我没事"), or a slip owned with the person said as the one
_TAKEN_BACK_EN = re.compile(r"\bnot me\b|\bi (?:don't|do not|'m not|am not|'m fine|am fine)(?: (?:have (?:it|that)|"
                            r"though|actually))?\s*(?:$|[,.;!])|^(?:(?:oh|ah|um|uh),? )?(?:wait|no|nope|sorry|oops|"
                            r"actually|correction|my bad)\b[^.!?]{0,60}?\b(?:(?:it's|it is|it was|that's) "
                            r"(?:actually )?my \w+|my \w+(?:'s| is| was) the one\b)", _I)
_TAKEN_BACK_ZH = re.compile(r"^(?:不对|不是|说错了|搞错了|更正|哦不|噢不)[^。！!]{0,20}?(?:是|的是)我|我没事|不是我"
                            r"|我没有(?=$|[，,。！!])|我(?:不|没)(?:过敏|有)(?=$|[，,。！!])")
_TOO = re.compile(r"\b(?:too|also|as well|either)\b|也|都", _I)
_SOMEONE_EN = re.compile(r"\b(?:my|our) (?:husband|wife|partner|son|daughter|kid|child|mom|mum|mother|dad|father|"
                         r"brother|sister|boyfriend|girlfriend|roommate|friend|baby)\b", _I)
_KIN_ZH = re.compile(r"我(?:的)?(?:儿子|女儿|老公|老婆|丈夫|妻子|孩子|妈妈|爸爸|妈|爸|哥哥|姐姐|弟弟|妹妹|对象|"
                     r"男朋友|女朋友|室友|闺女)")
_OWN = (P.ALLERGIC_TO, P.HAS_CONDITION, P.DISLIKES, P.HAS_PREFERENCE, P.HAS_HOBBY, P.STRUGGLES_WITH)


def someone_else(text: str, previous: Sequence[Extraction]) -> list[Found] | None:
    """"不对，是我女儿对花生过敏，我没事": the user's fact that the message gives to one of their people ends;
    None when the message gives none away."""
    chinese = bool(re.search(r"[\u4e00-\u9fff]", text))
    marker, kin = (_TAKEN_BACK_ZH, _KIN_ZH) if chinese else (_TAKEN_BACK_EN, _SOMEONE_EN)
    if not marker.search(text) or not kin.search(text) or _TOO.search(text):
        return None
    ended = [(f.predicate, f.object, True, ()) for f in _current(previous, *_OWN) if f.object.lower() in text.lower()]
    return ended or None
