"""How a question asks for memory, apart from what it is about.

"Do you remember where I am flying?" asks about *where I am flying*; "do you remember" only says
that the answer must come from what the user said. The cue decides whether the guard applies
(``memory_dependent``); it must not be embedded, matched or scored, or it drags the query
towards every turn that says "remember" and away from the one about the flight, and the guard
then answers "no record" for a thing the user did say.

Three kinds of cue, because they are not equally sure signs of a memory question:

* conversational ("what did I tell you about", "did I mention", "我跟你说过"): always;
* addressed to the assistant's memory ("do you remember", "remember when", "还记得"): unless
  what follows is general knowledge asked of nobody's past ("Do you remember how to boil an
  egg?", "do you remember the capital of Peru?") and names no one in the conversation;
* temporal ("last time", "before", "上次", "之前"): only with the user in it ("What did I order
  last time?"), since "When was the last time the Cubs won?" is not about the user.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_CONVERSATIONAL = re.compile(
    r"\b(?:(?:did|have|has) (?:i|we|the user) (?:ever )?"
    r"(?:say|said|tell|told|mention|mentioned|talk|talked|discuss|discussed|bring up|brought up|share|shared)|"
    r"(?:i|the user) (?:told|tell) you|told you|(?:i|the user) (?:mentioned|said)|"
    r"we (?:talked|discussed|spoke|chatted))\b"
    r"|(?:我|用户)(?:之前|以前|上次)?(?:跟|和|对|给)你(?:说|讲|提|聊)"
    # Whoever says it ("额跟你说过", "我有没有跟你讲过"), telling the assistant in the past is a cue.
    r"|(?:跟|和|对|给|向)(?:你|您)(?:说|讲|提|聊)(?:过|起过|到过)|告诉过(?:你|您)|(?:之前|以前|上次)(?:说|讲|提|聊)过|(?:我|用户)(?:说|提|讲)过|我(?:之前|以前|上次|上回)?说的|我们(?:聊|谈|说)过",
    re.IGNORECASE,
)
_ADDRESSED = re.compile(
    r"\b(?:(?:do|did|can|could|would|will) you (?:still |even )?(?:remember|recall)|remember(?:ed)?|"
    r"recall (?:when|what|where|who|how|that|if|whether|the time))\b|还记得|记得|记不记得",
    re.IGNORECASE,
)
# What the assistant itself said, asked after the fact ("What did you recommend for ...?", "the
# example you gave me", "你上次推荐的那本书", "你给我举的例子"): a memory question about the assistant's
# own turns. A request made now ("Can you recommend a book?", "你推荐一本书吧") is none.
_SAID_VERBS = (r"recommend(?:ed)?|suggest(?:ed)?|say|said|tell|told|mention(?:ed)?|explain(?:ed)?|give|gave|"
               r"show(?:ed)?|shown|write|wrote|written|promise[ds]?|propose[ds]?|advise[ds]?|list(?:ed)?|"
               r"share[ds]?|teach|taught|come up with|came up with|pick(?:ed)?|plan(?:ned)?|draft(?:ed)?|"
               r"send|sent|name[ds]?|call(?:ed)?|use[ds]?|walk(?:ed)? me through|warn(?:ed)?|remind(?:ed)?")
_ASSISTANT_SAID = re.compile(
    rf"\b(?:(?:did|have|had) you (?:ever |once |already )?(?:{_SAID_VERBS})"
    r"|you (?:once |already |just |previously |earlier )?(?:recommended|suggested|said|told|mentioned|explained|gave|"
    r"showed|shown|wrote|promised|proposed|advised|listed|shared|taught|came up with|picked|planned|drafted|"
    r"sent|named|called|used|warned|reminded|walked me through)"
    r"|(?:your|the assistant's) (?:earlier |previous |last |old )?(?:recommendations?|suggestions?|advice|"
    r"examples?|explanations?|answers?|tips?|ideas?|plans?|lists?|code|snippets?|promises?)(?= (?:for|about|on|"
    r"from|last|earlier|before|you)\b| (?:again|was|were)\b)"
    # An agent naming the assistant as who acted asks about its turns, whatever the verb ("Which car
    # did the assistant lean toward?").
    r"|(?:did|has|had) the assistant\b|the assistant (?:[a-z]+ed|said|told|gave|showed|wrote|"
    r"thought|chose|came up with))\b"
    # A 你 after 跟/和/对/给/向/同 is who was told ("我跟你说过…吗": what the user said), not who spoke.
    r"|(?<![跟和对给向同])(?:你|您|助手)(?:之前|以前|上次|上回|刚才|那天|昨天|前几天|当时)?(?:给我|跟我|帮我|对我|为我|替我|和我)?"
    r"(?:推荐|建议|说|讲|提|介绍|举|写|列|教|分享|解释|答应|承诺|安排|整理|算|出|发|提醒|告诉|选|起|取|定|做)"
    r"(?:了|出)?(?:过|的)"
    # Said at a time past ("你之前建议我…", "你上次说…"): what follows may be anything.
    r"|(?<![跟和对给向同])(?:你|您|助手)(?:之前|以前|上次|上回|那天|昨天|前几天|当时)(?:给我|跟我|帮我|对我|为我|替我|和我)?"
    r"(?:推荐|建议|说|讲|提|介绍|举|写|列|教|分享|解释|答应|承诺|安排|整理|告诉|提醒)",
    re.IGNORECASE,
)
_TEMPORAL = re.compile(r"\b(?:last time|before|previously|earlier)\b|上次|之前|以前|上回", re.IGNORECASE)
# The user (or the user and the assistant) is part of what is asked.
_PERSONAL = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us|the user|this user)\b"
                       r"|我|咱|用户", re.I)
# Knowledge nobody's past holds: how to do a thing, a fact about the world.
_GENERAL = re.compile(
    r"^\W*(?:how (?:to|do you|does one|can (?:you|one)|do people)\b|what (?:is|are) (?:a|an)\b)"
    r"|\bthe (?:capital|meaning|definition|formula|lyrics|plot|population|rules|recipe for|boiling point)\b"
    r"|怎么做|如何|是什么意思|的首都",
    re.IGNORECASE,
)

# What is removed from the question to leave its topic: the cue and the words that only frame it
# ("what did I tell you *about*", "do you remember *that*"). Longest forms first. A "when" after
# "do you remember" stays: "Do you remember when my flight is?" asks for a time.
_STRIP = [re.compile(p, re.IGNORECASE) for p in (
    r"\b(?:what|anything|everything) (?:did|have|has) (?:i|the user) (?:ever )?"
    r"(?:said|say|told|tell|mentioned|mention|shared|share)"
    r"(?: to)?(?: you)?(?: (?:about|regarding|on|of))?\b",
    r"\b(?:did|have|has) (?:i|we|the user) (?:ever )?"
    r"(?:say|said|tell|told|mention|mentioned|talk|talked|discuss|discussed|share|"
    r"shared|bring up|brought up)"
    r"(?: to)?(?: you)?(?: (?:about|regarding|that|anything about|something about))?\b",
    r"\b(?:as |like |that )?(?:i|we|the user) "
    r"(?:told you|mentioned|said|discussed|talked about|spoke about|chatted about)"
    r"(?: (?:to you|before|earlier|previously|last time))?(?: (?:about|that))?\b",
    r"\b(?:(?:do|did|can|could|would|will) you (?:still |even )?(?:remember|recall))(?: (?:that|if|whether|about))?\b",
    r"^\W*(?:hey,? |so,? )?(?:remember|recall) (?:when|that|the time|how)\b",
    r"\b(?:you )?remember(?:ed)?(?: (?:that|about))?\b",
    r"\b(?:the )?last time (?:we (?:talked|spoke|chatted)|i (?:told you|mentioned it|said))\b",
    r"\b(?:the )?last time\b",
)]
# Chinese has no spaces to keep: its cues are cut out, in this order (上次 before 我说的, so that
# "我上次说的潜水课" leaves 潜水课). A cue stacks a few words before 跟你 ("我之前有跟你说过"): any
# number of them was read again from each of a long run's characters, the square of its length.
_STRIP_ZH = [re.compile(p) for p in (
    r"你?(?:还)?记(?:不记)?得",
    r"(?:我|额|俺|用户)?(?:有没有|是不是|有|之前|以前|上次|上回){0,3}(?:跟|和|对|给|向)(?:你|您)(?:说|讲|提|聊)(?:过|到过|起过)?(?:的)?",
    r"(?:我|额|俺)?告诉过(?:你|您)",
    r"(?:我|用户)(?:之前|以前|上次|上回)?(?:说|讲|提|聊)过(?:的)?", r"(?:之前|以前|上次|上回)(?:说|讲|提|聊)过(?:的)?",
    r"我们(?:之前|以前|上次)?(?:聊|谈|说)过的?", r"上次|上回", r"我说的",
)]
# A stripped question reads "where I am flying ?" or ", about skydiving": tidy what the cut left.
_REPEATED = re.compile(r"([?.!？。！])[?.!？。！]+")
# A run is read from its start only (its end decides): tried at each of its characters, a run of
# 2,000 commas cost the square of its length.
_LEFTOVER = re.compile(r"^(?:[\s,;:.?!-]|about\b)+|(?<![\s,;:-])[\s,;:-]+(?=[?.!？。！]?$)"
                       r"|(?<!\s)\s+(?=[?.!,？。！，])")

# A name in a question (a capitalised word not opening it) that is a thing the user could have
# said, not a weekday or month, which the events carry as dates rather than words.
_NAME = re.compile(r"\b[A-Z][a-z][A-Za-z-]+")
# What ends a sentence (or opens a quote) before one that opens with a capital, spaces aside.
_OPENERS = ".!?:;\"“"
_NOT_NAMES = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february",
              "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
              "remember", "last", "what", "when", "where", "which", "who", "how", "did", "do", "does", "the",
              # Abbreviated ("on Aug 15th"): a date too, not someone an event must mention.
              "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mon", "tue",
              "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
              # Holidays are times too ("over Christmas", "how did Black Friday go"): a record of what
              # happened then need not name the day.
              "christmas", "xmas", "easter", "thanksgiving", "halloween", "hanukkah", "diwali", "ramadan",
              "eid", "passover", "black", "cyber", "boxing", "memorial", "labor", "labour", "independence",
              "valentine", "valentine's", "new", "year's", "years"}


def asks_what_assistant_said(query: str) -> bool:
    """The question asks what the assistant itself said, recommended, explained or promised."""
    return bool(_ASSISTANT_SAID.search(query))


def is_memory_question(query: str) -> bool:
    if _CONVERSATIONAL.search(query) or asks_what_assistant_said(query):
        return True
    topic = topic_of(query)
    personal = bool(_PERSONAL.search(query))  # the whole question: a Chinese cue carries its 我
    if _ADDRESSED.search(query):
        return personal or not _GENERAL.search(topic)
    return bool(_TEMPORAL.search(query)) and personal


def topic_of(query: str) -> str:
    """The question without its memory cue: what is embedded, matched and scored. A question
    that is nothing but a cue ("Do you remember?") keeps its words."""
    topic = query
    for pattern in _STRIP:
        topic = pattern.sub(" ", topic)
    for pattern in _STRIP_ZH:
        topic = pattern.sub("", topic)
    topic = _REPEATED.sub(r"\1", _LEFTOVER.sub("", " ".join(topic.split())))
    return topic if re.search(r"\w", topic) else query



# An agent asks about the user in the third person ("Where does the user's sister live?",
# "用户的猫叫什么"); the user said it in the first ("my sister moved to Leeds", "我家猫叫糯米"); the
# assistant's turns say "I" where a question says "the assistant". A sentence embeds nearer its
# own voice: what is embedded is asked in the voice the memories were said in. Lexically nothing
# changes ("user" and 用户 are function words there).
_VOICE = [(re.compile(p, re.IGNORECASE), r) for p, r in (
    (r"\b(?:the|this) user(?:['’]s|s['’])", "my"), (r"\b(?:the|this) user\b", "I"),
    (r"\bthe assistant(?:['’]s)", "your"), (r"\bthe assistant\b", "you"),
    (r"(?:该|这位|这个)?用户(?:本人|自己)?", "我"), (r"助手", "你"),
)]


def in_users_voice(topic: str) -> str:
    """``topic`` as the user would have asked it: the user in the first person, the assistant in
    the second."""
    for pattern, voice in _VOICE:
        topic = pattern.sub(voice, topic)
    return topic


# A Chinese name is rarely written apart from its title: a surname and a title (王老师, 张经理,
# 刘主任), the surname one character (two for 欧阳, 司马, ...: the title is what is matched).
_ZH_TITLES = "老师 主任 经理 医生 大夫 先生 女士 小姐 阿姨 叔叔 教授 博士 师傅 总监 老板 律师 护士".split()
# The surname is one of the common ones (a closed list: the 200 most frequent cover most people):
# any character before a title would take "拍片医生" for a Dr. Pian and ask every record to name him.
_ZH_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
    "姚卢姜崔钟谭陆汪范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向"
    "汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单"
    "季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄"
    "窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查"
    "麻苑迟邝洪")
_ZH_NAME = re.compile(f"[{_ZH_SURNAMES}](?:" + "|".join(_ZH_TITLES) + ")")


# A language or a people ("the Japanese sentence", "my Italian teacher") says what kind, not who:
# an answer seldom repeats it.
_DEMONYMS = frozenset("""
    english spanish turkish polish danish swedish irish british scottish finnish flemish kurdish jewish welsh
    japanese chinese vietnamese portuguese taiwanese burmese nepalese lebanese maltese sudanese cantonese
    french dutch greek thai german korean italian indian american mexican russian arabic hindi latin swiss
    european asian african canadian australian brazilian persian hebrew mandarin filipino norwegian
    """.split())
# Capitalised words that are never who a question asks about (built once: names_in runs per recall).
_NOT_WHO = _NOT_NAMES | _DEMONYMS


def names_in(query: str) -> tuple[str, ...]:
    """Proper names a question asks about, lower-cased: "What did Caroline paint?" -> caroline,
    "王老师推荐了什么书？" -> 王老师. A word opening a sentence is capitalised whatever it is, so it
    is never taken for a name."""
    names: list[str] = []
    # The last visible character before each capitalised word, read once from left to right: read
    # again from the start for every word, a question of 2,000 characters took 27 ms.
    before, read = None, 0
    for m in _NAME.finditer(query):
        visible = query[read:m.start()].rstrip()
        before, read = visible[-1] if visible else before, m.start()
        if m.start() > 0 and before is not None and before not in _OPENERS:
            names.append(m.group().lower())
    names += [m.group() for m in _ZH_NAME.finditer(query)]
    return tuple(dict.fromkeys(n for n in names if n not in _NOT_WHO))


def without_names(text: str, names: Sequence[str]) -> str:
    """``text`` with ``names`` (and their possessive) taken out: what a question asks once the
    people it is asked about go without saying."""
    for name in names:
        pattern = re.escape(name) if not name.isascii() else rf"\b{re.escape(name)}(?:'s|')?(?!\w)"
        text = re.sub(pattern, " ", text, flags=re.IGNORECASE)
    return " ".join(text.split())


def own_names(asked: Sequence[str], given: Iterable[str]) -> frozenset[str]:
    """The names a question asks about that are the user's own, by the names the user gave
    (``has_name``): "What is Dana's job?" asked of Dana's memory asks about the user, whose
    memories never say their own name. A name matches the whole given name or one of its words;
    a Chinese one also a part of it (小明 of 王小明), and a surname with a title (王老师) the surname
    the user gave."""
    words: set[str] = set()
    for name in given:
        whole = " ".join(str(name).lower().split())
        words.add(whole)
        words.update(whole.split())
    return frozenset(n for n in asked if n in words or (not n.isascii() and len(n) >= 2 and (
        any(n in w for w in words)
        # 王老师 of a user who gave their surname (王) or a name with it (王小明): a title is how
        # others address them.
        or _ZH_NAME.fullmatch(n) and any(not w.isascii() and w[:1] == n[:1] for w in words))))
