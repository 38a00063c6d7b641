"""How people write in a chat, around the facts the rules read: letters of every script in names,
fillers and interjections ("ugh", "lol", "哈哈"), a statement said beside a request ("I have asthma,
tips?"), and a subject left out ("moved to Toronto last month", "上个月搬到上海了").

Pure string functions; ``text`` builds clauses with them, rules build names with ``UPPER``/``LETTER``.
"""

from __future__ import annotations

import re


def _ranges(test) -> str:
    """The characters of Latin, Greek, Cyrillic and the other cased scripts (below U+3000) that
    ``test`` accepts, as the body of a character class."""
    out, start, last = [], None, None
    for code in range(0x41, 0x3000):
        if test(chr(code)):
            if start is None:
                start = code
            last = code
        elif start is not None:
            out.append(re.escape(chr(start)) + ("-" + re.escape(chr(last)) if last > start else ""))
            start = None
    if start is not None:
        out.append(re.escape(chr(start)) + ("-" + re.escape(chr(last)) if last > start else ""))
    return "".join(out)


# A name starts with a capital in any script with case (José, Łukasz, Søren, Zoë, Nguyễn) and goes
# on with letters of any case, an apostrophe or a hyphen ("O'Neil", "Jean-Luc"). Han has no case:
# a Chinese name is found by the Chinese rules.
UPPER = "[" + _ranges(lambda c: c.isupper() or c.istitle()) + "]"
LETTER = "[" + _ranges(str.isalpha) + "'’-]"

# -- fillers: words that carry no fact and may open or close any clause ------------------------------

_EN_OPENERS = (r"ugh+|lol|lmao|haha+|hah|heh|oh+|ah+|aw+|um+|uh+|hmm+|ok(?:ay)?|so|well|honestly|btw|by the way|"
               r"yo|hiya|heya|sup|right|listen|man(?: oh man)?(?=[,!]|$)|dude|pfft+|geez|jeez|gosh|sheesh|so{3,}|"
               r"fyi|tbh|ngl|imo|anyway|anyways|yeah|yep|yup|lately|update|big news|news|quick update|fun fact|"
               r"guess what|weird thing|funny thing|sadly|unfortunately|luckily|wow|omg|welp|alright|and|also|"
               r"plus|side note|just so you know|for context|context|not going to lie|to be honest|real talk|"
               # "guess who just got hired": the one to guess is the writer
               r"guess who")
# (a clause that is a filler alone, "man" of "man, been into pottery", is nothing said)
_EN_FILLER_HEAD = re.compile(r"^(?:(?:" + _EN_OPENERS + r")\b(?:[,:!.\-–—]*\s+|[,:!.\-–—]*$))+", re.I)
# (a tag typed without its question mark: "u know im allergic to shellfish right", "… remember")
_EN_FILLER_TAIL = re.compile(r"(?:[,\s]+\b(?:lol|lmao|haha+|rn|tbh|ngl|btw|fyi|imo|xd|smh|lmk|jk|pls|plz|right|"
                             r"remember|innit|yeah|eh|ya know|you know|y'know)\b"
                             r"|\s*(?:!+|:\)|:\(|:d|:p))+\s*$", re.I)
_EN_FILLER_INSIDE = re.compile(r"\s+(?:btw|tbh|ngl|lol|lmao|fyi|imo|haha+)(?=\s*[,;])", re.I)
_INTRODUCING = re.compile(r"^(?:(?:hi|hey|hello|hiya)\W+)?(?:this is|it's|it is) \S+(?: \S+){0,2}$", re.I)
_ZH_FILLER_HEAD = re.compile(r"^(?:(?:大家好|你好|您好|哈喽|嗨|哎呀|哎|唉|诶|嗯|呃|啊|哦|噢|哈哈+|嘿嘿|嘻嘻|话说|对了|"
                             r"自我介绍一下|跟你说个事|跟你说下情况|跟你说|告诉你|说真的|老实说|老实讲|说实话|实话说|讲真|坦白说|不瞒你说|其实|好吧|行吧)"
                             r"[，,！!。~～\s]*)+")
# A particle that ends a clause says how it is said, not what: "我是四川人嘛", "我吃素的哈".
# (one 哈 at a time: "哈+" inside the "+" read "哈哈哈…" in 2^n ways)
_ZH_FILLER_TAIL = re.compile(r"(?:嘛|哈|啊|呀|呗|啦|哦|噢|哟|耶|嘿嘿|[~～!！])+$")


def without_fillers(clause: str) -> str:
    """The clause without the interjections and discourse words around it ("" if that is all it is)."""
    if re.search(r"[\u4e00-\u9fff]", clause):
        return _ZH_FILLER_TAIL.sub("", _ZH_FILLER_HEAD.sub("", clause.strip())).strip(" ，,")
    # "i'm Zoë btw, first time here": a filler inside the clause, before a comma, is dropped too
    # (not after the name it marks as the writer's: "this is Priya btw, new here")
    clause = _EN_FILLER_INSIDE.sub(lambda m: m.group(0) if _INTRODUCING.search(clause, 0, m.start()) else "", clause)
    return _EN_FILLER_TAIL.sub("", _EN_FILLER_HEAD.sub("", clause.strip())).strip(" ,")


# -- questions, clause by clause ----------------------------------------------------------------------

# A clause asks when it opens as a question (a wh-word, an auxiliary before its subject) or as a bare
# request ("any tips?", "ideas for a party?", "help me outline it?").
# "was diagnosed with…", "did my degree at…": a statement that dropped its "I", not a question.
EN_NOT_ASKED = (r"(?!(?:was|were) (?:diagnosed|born|raised|brought up|told)\b|did (?:my|a|an|that|this|some)\b|been\b"
                r"|(?:has|have|had) to\b"
                # "can't stand jazz", "don't like olives": a taste that dropped its "I"
                r"|(?:can't|cannot) (?:stand|get enough|live without|eat|drink|have)\b"
                r"|(?:don't|do not) (?:like|eat|drink)\b)")
_EN_ASKS = re.compile(r"^(?:(?:so|and|but|also|or|ok|okay|anyway)\s+)?" + EN_NOT_ASKED
                      + r"(?:do|does|did|am|is|are|can|could|would|"
                      r"should|will|was|were|shall|may|might|have|has|had|isn't|aren't|don't|doesn't|didn't|won't|"
                      r"wouldn't|can't|what|what's|whats|who|who's|where|where's|when|why|how|how's|which|whose|"
                      r"any|anything|tips|ideas|thoughts|suggestions|recommendations|recs|advice|help|pls|please|"
                      r"suggest|recommend|need|want|got(?= any| a (?:sec|minute|moment)| time)|know)\b", re.I)
# "I'm 35, right?": a tag asks about the whole sentence, its statement included.
_EN_TAG = re.compile(r"^(?:right|correct|true|yes|no|yeah|huh|eh|ok|okay|isn't it|aren't i|am i not|don't i|"
                     r"didn't i|haven't i|wasn't i|isn't that right|is that right|is that true|remember|or not)"
                     r"\s*[?？!]*$", re.I)
_ZH_ASKS = re.compile(r"吗|呢|么|啥|什么|哪|怎么|怎样|为什么|是不是|有没有|会不会|能不能|可不可以|要不要|对不对|"
                      r"多少|几|谁|咋|如何|[?？]")
_ZH_TAG = re.compile(r"^(?:对吧|是吧|对不对|是不是|没错吧|对吗|是吗|记得吗|你记得吗|还记得吗)[?？]*$")
# A part that opens on the user as its subject: a statement of their own.
_RESUMED = re.compile(r"^(?:(?:i|i'm|i've|i'd|my|we|we're|we've)\b(?!\s+(?:wonder|was wondering|want|need|would|'d)\b)"
                      r"|我(?!们|想|要|该|能|可以|需要))", re.I)
_EN_SEGMENTS = re.compile(r",\s*|\s+(?=(?:so|and|but)\s+(?:what|how|why|where|which|who|any|can|could|should|do|"
                          r"does|is|are)\b)", re.I)
_ZH_SEGMENTS = re.compile(r"[，,]\s*")


def statement_part(sentence: str, asks: bool) -> str:
    """What of a sentence is said rather than asked. A sentence that is not a question is said
    whole; in a question, the clauses before the first one that asks are said ("I have asthma so
    running is rough, tips?" says "I have asthma so running is rough"), unless a tag ("…, right?")
    asks about them. "" when all of it asks ("Am I allergic to nuts?", "我是不是胖了？")."""
    if not asks:
        return sentence
    chinese = bool(re.search(r"[\u4e00-\u9fff]", sentence))
    segments = [s for s in (_ZH_SEGMENTS if chinese else _EN_SEGMENTS).split(sentence.strip()) if s.strip()]
    # A tag asks about the clause it closes ("I'm 35, right?"), not the ones before that one.
    tagged = bool(segments) and bool((_ZH_TAG if chinese else _EN_TAG).match(without_fillers(segments[-1])))
    if tagged:
        segments = segments[:-2]
    said: list[str] = []
    asked = resumed = False
    for index, segment in enumerate(segments):
        bare = without_fillers(segment)
        last = index == len(segments) - 1 and not tagged
        asking = bool(_ZH_ASKS.search(bare) if chinese else _EN_ASKS.match(bare) or bare.endswith("?"))
        if asked:
            # "can you suggest a routine, I'm 58 and I have arthritis": after a request typed without its
            # mark, the user speaks of themself again; the last part of a sentence that ends asking is asked
            if asking or (last and re.search(r"[?？]\s*$", sentence)):
                resumed = False
                continue
            resumed = resumed or bool(_RESUMED.match(bare))
            if resumed:
                said.append(segment)
            continue
        if last or asking:
            asked = True
            continue
        said.append(segment)
    return ("，" if chinese else ", ").join(said)


# -- a subject left out -------------------------------------------------------------------------------

# Verbs a chat message drops "I" before when the writer talks about themself: "just turned 34",
# "moved back home to Toronto", "studied nursing at McGill", "now working as a data analyst".
EN_DROPPED = (r"(?:(?:just|finally|recently|also|then|now|eventually|officially|actually|currently|absolutely|really|"
              r"totally|honestly|seriously|genuinely|still)\s+)*"
              r"(?:(?:turned|moved|relocated|studied|majored|minored|graduated|grew up|was born|signed|"
              r"joined|started|took up|took a|got a job|landed|became|switched|retired|quit|picked up|sold|"
              r"gave away|got rid of|"
              r"did (?:my|a|an|that|this|some)|(?:was|got) diagnosed|got|been|born|handed in|resigned|got promoted|"
              r"transferred|adopted|rescued|got hired|can't stand|cannot stand|can't get enough of|can't live without|"
              r"hate|love|adore|(?:really )?(?:don't|do not) like)"
              # "live in Bristol with my partner", "work as a receptionist": the first person's present
              r"|(?:live in (?=(?-i:[A-Z]))|work (?:as|at|for|in) )"
              r"|(?:working as|working at|working for|working in|living in|based in|studying|majoring"
              r"|starting (?:at|with) (?=(?-i:[A-Z])|an? ))"
              # a predicate whose "I'm" was dropped: "terrified of spiders", "allergic to cats", "now in Leeds"
              r"|(?:allergic to|terrified of|scared of|afraid of|obsessed with|bilingual in|fluent in|"
              r"originally from|married to|engaged to|"
              r"from (?=(?-i:[A-Z]))|in (?=(?-i:[A-Z])\S* (?:now|these days)\b)|now in (?=(?-i:[A-Z]))"
              # "currently in Austin", "used to live in Leeds"
              r"|(?<=currently )in (?=(?-i:[A-Z]))|used to (?=live|work|be|have|play|own|study)\b)"
              r")\b")
_EN_DROPPED = re.compile("^" + EN_DROPPED, re.I)
# What a dropped subject was, by the word it left: "been …" is "I've been …", "born …" "I was born".
_EN_RESTORED = (("been", "I've "), ("born", "I was "), ("allergic", "I'm "), ("terrified", "I'm "), ("scared", "I'm "),
                ("afraid", "I'm "), ("obsessed", "I'm "), ("bilingual", "I'm "), ("fluent", "I'm "), ("from", "I'm "),
                ("in", "I'm "), ("now in", "I'm "), ("starting", "I'm "), ("originally", "I'm "),
                ("married", "I'm "), ("engaged", "I'm "))
# A bare age said after the user's own clause: "Niamh here, 27, from Cork".
_BARE_NUMBER = re.compile(r"^(?:\d{1,3}|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ][a-z]+)?)"
                          r"(?=\s*(?:,|$))", re.I)
# Whose clause it is: the user's ("I …", or a clause that dropped "I" itself).
# "Niamh here", "it's Dana", "41M, electrician in Leeds": a self-introduction is the user's clause too, and
# so is a lament over what is the user's ("rip my wallet, just adopted a second dog").
_EN_USER_CLAUSE = re.compile(r"^(?:(?:hi|hey|hello|hiya)(?: there)?\W+)?(?:i|i'm|i've|i'd|i'll|im)\b"
                             r"|^\d{2}\s?(?:m|f|nb)\b"
                             r"|^(?:rip|r\.i\.p\.?|goodbye|bye bye|farewell|there goes|so much for) (?:my|our)\b"
                             r"|^(?:(?:hi|hey|hello|hiya)\W+)?(?:it's |this is )?(?-i:"
                             + UPPER + r")\S*(?: (?-i:" + UPPER + r")\S*)? here(?:$|,)", re.I)


# "wife's name is Mei", "hubby and I…": a chat drops "my" before the user's kin; "being asthmatic, is…"
# drops "I'm" before what the user is.
_KIN_DROPPED = re.compile(r"^(?:((?:wife|husband|hubby|wifey|partner|boyfriend|girlfriend|son|daughter|mum|mom|dad|"
                          r"brother|sister|bf|gf)(?:'s name\b| and i\b| (?=(?-i:[A-Z])\w+ (?!and\b)[a-z])))"
                          r"|being (?=[a-z]+$))", re.I)


def with_subject(part: str, after_user: bool, sentence_start: bool) -> str:
    """"I" put back before a verb that dropped it, at the start of a sentence or after a clause of
    the user's ("I went to Duke for undergrad, majored in economics"); after a clause about someone
    else ("my wife grew up in Ohio, moved to Texas") the subject is theirs and nothing is added."""
    if not (sentence_start or after_user):
        return part
    if after_user and _BARE_NUMBER.match(part):
        return "I'm " + part
    # "I'm Priyanka, 31, a pharmacist in Leicester": a noun phrase after the user's clause is what they are
    if after_user and re.match(r"an? [a-z]", part):
        return "I'm " + part
    # "currently a barista at Pret", "big fan of Wes Anderson": what the user is, "I'm" dropped
    if sentence_start and re.match(r"(?:currently|now|still) an? [a-z]|(?:big|huge|massive) fan of\b", part, re.I):
        return "I'm " + ("a " if part[0] in "bhmBHM" else "") + part
    if sentence_start and re.match(r"(?:birthday|bday)(?:'s| is)\b", part, re.I):
        return "my " + part
    if sentence_start and (kin := _KIN_DROPPED.match(part)):
        return "my " + part if kin.group(1) else "I'm " + part[len("being "):]
    match = _EN_DROPPED.match(part)
    if match is None:
        return part
    word = re.sub(r"^(?:(?:just|finally|recently|also|then|now|eventually|officially|actually|currently|absolutely|"
                  r"really|totally|honestly|seriously|genuinely|still)\s+)*", "",
                  match.group(0).lower())
    restored = next((subject for lead, subject in _EN_RESTORED if word == lead or word.startswith(lead + " ")), None)
    return (restored or ("I'm " if re.search(r"(?:ing|based) \w+$|ing$", match.group(0)) else "I ")) + part


def is_users(part: str) -> bool:
    return bool(_EN_USER_CLAUSE.match(part))


# School subjects, found hard ("物理太难了") or not (rules_zh_coach).
ZH_SUBJECTS = (r"语文|数学|英语|物理|化学|生物|历史|地理|政治|微积分|高数|线代|线性代数|概率论|文言文|作文|听力|口语|"
               r"阅读理解|几何|函数|编程|会计|统计")
# "上个月搬到上海了", "最近不游泳了", "跳槽去字节了": a first clause without "我" whose verb is one a
# user says of themself; a later clause keeps the subject of the one before it (text._ZH_CARRY).
_ZH_TIME = (r"(?:上个?月|上周|上礼拜|去年|今年|前年|前几天|前阵子|最近|昨天|今天|刚|已经|终于|现在|目前|早就|"
            r"小时候|也|又|还)*")
_ZH_DROPPED = re.compile(r"^" + _ZH_TIME + r"(?:"
                         # "现在一个人住在杭州", "跟室友合租住在北京": with whom, then where
                         r"(?:一个人|自己|独自|单独|(?:跟|和)[^，。！？,.!?\s住]{1,6}?)(?=住|生活|合租|一起住)|搬到|搬去|搬家|搬回|住|定居|跳槽|辞职|离职|入职|退休|不再|"
                         r"不(?=[\u4e00-\u9fff]{1,4}了$)"
                         r"|开始|迷上|爱上|回(?:到)?(?:了)?(?:老家|家乡)"
                         # "现在改成游泳", "自己当老板", "以后就是厦门人了": a change of the user's own
                         # "从腾讯跳到了网易", "从北京搬到成都": a move said from where
                         r"|从[^，。！？,.!?\s]{1,12}?(?:搬|跳)"
                         r"|改成|换成|改为|自己(?=当|做|开)|(?:以后|从此|今后|往后)(?:就|也)?(?:算)?是"
                         r"|领养|收养|捡(?:了|回)|新添了"
                         # "在一家医院当护士", "白天在商场当保洁", "在浙大读博": where the user works, studies or
                         # rents; "升职当店长了", "入坑飞盘三个月了": a promotion, a pastime taken to (rules_asides)
                         r"|(?:白天)?在[^，。！？,.!?\s]{1,10}?(?:当|做|上班|打工|合租|读|念|干(?=了))|升职|升(?=成|为|到|当|做)|入坑"
                         # "特别喜欢周杰伦的歌", "本科在武大读的": a taste or a school said without "我"
                         r"|(?:特别|很|超|最|真的|挺|非常|好)*(?:喜欢|爱吃|爱喝|爱看|爱听|讨厌|受不了)(?!就|的话|吗|不|么)"
                         r"|(?:本科|研究生|硕士|博士|大学)(?:是)?在"
                         # "老家是东北的", "周末经常去爬山": a home town, a habit by how often
                         r"|(?:老家|家乡)(?:是|在)|(?:每天|每周|每个周末|周末|平时|经常|常常)+(?:都|会|也)?(?:去|在)?"
                         # "去年体检查出来有高血压": a finding of the user's own check-up
                         r"|(?:体检|检查)?(?:查出|检查出|确诊|被诊断)"
                         # "物理太难了", "高血压十几年了", "来北京五年了", "膝盖有关节炎": a subject found hard, a
                         # thing had or a place lived in for so long, an illness of the body (rules_zh_coach)
                         r"|(?:" + ZH_SUBJECTS + r")(?:一直|真的|实在|也|都|还)?(?:太|好|超|真|特别|实在|有点|越来越)难"
                         r"|(?![我你他她它您咱俺])(?:来|到)?[\u4e00-\u9fff]{2,8}?(?:都|已经|也|有|快)?(?:\d{1,2}|[一二两三四五六七八九十几好多半]{1,3})多?"
                         r"(?:年|个月)多?了?$"
                         r"|(?:膝盖|腰|腿|胃|肠胃|心脏|肺|皮肤|关节|颈椎|腰椎|脖子|肩膀|眼睛|甲状腺|肝|肾)(?:也|还|一直)?(?:有|得了|长了))")


def with_zh_subject(part: str) -> str:
    return "我" + part if _ZH_DROPPED.match(part) else part


# -- texting: spellings a chat drops the apostrophe or the letters of ---------------------------------

# "im", "ive", "dont", "u", "r": the forms a phone keyboard leaves are read as the words they stand
# for, so every rule sees one spelling. Only forms that are no other English word ("ill", "id",
# "were", "its" are words, and stay).
_TEXTING = {"im": "I'm", "ive": "I've", "dont": "don't", "cant": "can't", "didnt": "didn't", "doesnt": "doesn't",
            "isnt": "isn't", "wasnt": "wasn't", "havent": "haven't", "wont": "won't", "wouldnt": "wouldn't",
            "shouldnt": "shouldn't", "couldnt": "couldn't", "arent": "aren't", "whats": "what's",
            "thats": "that's", "u": "you", "ur": "your", "r": "are", "pls": "please",
            "plz": "please", "gonna": "going to", "wanna": "want to", "gotta": "have to", "bday": "birthday",
            "b-day": "birthday", "bc": "because", "cuz": "because", "coz": "because", "tho": "though",
            "rly": "really", "srsly": "seriously", "abt": "about", "w/": "with"}
# "workin", "livin'": a verb's "-ing" with its g dropped (only stems that make no other word).
_G_DROPPED = re.compile(r"\b(work|liv|study|go|do|try|look|gett|mak|play|runn|mov|start|talk|hav|com|tak|think|feel)"
                        r"in'?(?![\w'])", re.I)
# "Coffee? Always.", "Karaoke? Hard pass.": a thing asked of oneself and answered at once is a taste.
_NOT_ASKED_OF_ONESELF = (r"(?!(?:what|why|how|who|where|when|which|is|are|do|does|did|can|could|would|should|will|you|"
                         r"your|me|my|really|seriously|sure|ready|more|anyone|anybody|want|need|ok|okay|right|sorry|"
                         r"and|so|but|or|the|a|an)\b)"
                         # a state asked about ("Tired? Always.") is no taste
                         r"(?!(?:\w+ed|tired|hungry|busy|late|sleepy|broke|single|bored|cold|hot|sick|awake|early|lost|"
                         r"happy|sad|anxious|grumpy|hangry|thirsty|behind|online|up|down|there|here|home|free)\b)")
_ANSWERED = re.compile(r"(?:^|(?<=[.!?\n])\s*)" + _NOT_ASKED_OF_ONESELF + r"([A-Za-z][a-z]+(?: [a-z]+){0,2})\?\s+"
                       r"(?:(always|every (?:single )?(?:day|time)|yes,? please|love (?:it|them)|obsessed|absolutely|"
                       r"all day,? every day)|(hard pass|hard no|no thanks|no thank you|yuck|gross|ew+|not for me|"
                       r"absolutely not|nope))(?:[.!]+|\s*$)", re.I)
_TEXTING_WORDS = re.compile(r"(?<![\w'’-])(" + "|".join(re.escape(w) for w in sorted(_TEXTING, key=len,
                                                                                      reverse=True))
                            + r")(?![\w'’/-])", re.I)
# Pictographs (and the joiners, skin tones and variation selectors that build one) end what was said
# before them, as a full stop would: "my dog ate a sock 😭 should i be worried".
_EMOJI = re.compile(r"[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\u2190-\u21FF\uFE0F\u200D]+")
# Faces that say the words beside them are meant the other way ("i LOVE traffic 🙄"); ``IRONY`` is
# what they leave on the sentence they close.
_IRONIC = re.compile(r"[\U0001F643\U0001F644\U0001F612\U0001F60F]")
IRONY = " /s"
_REPEATED = re.compile(r"([!?？！。.])\1+|([!?？！])[!?？！]+")


# "本人" (formal) at the head of a clause, and "俺", "咱" (northern speech) anywhere, are "我"; "俺们", "咱们" "我们".
# "楼主41岁，…": a forum poster opening on "楼主" speaks of themself (not "楼主你好", "楼主说得对").
_ZH_FIRST_PERSON = re.compile(r"(?:^|(?<=[，,。！!？?；;\s]))本人|俺(?!们)|咱(?!们)"
                              r"|^楼主(?!你|您|说|讲|觉得|认为|的|是不是|好|加油|呢|吗|[，,：:！!？?])")


def as_typed(text: str) -> str:
    """A chat message with its texting spellings spelt out, curly apostrophes straight, repeated
    punctuation once, and each run of emoji a sentence break (an ironic face marked ``IRONY``)."""
    text = _ZH_FIRST_PERSON.sub("我", re.sub(r"俺们|咱们", "我们", text.replace("’", "'").replace("‘", "'")))
    text = _TEXTING_WORDS.sub(lambda m: _texting(m.group(1)), text)
    text = _G_DROPPED.sub(lambda m: m.group(1) + "ing", text)
    text = _ANSWERED.sub(lambda m: f" I {'love' if m.group(2) else 'hate'} {m.group(1)}.", text).strip()
    text = _EMOJI.sub(lambda m: (IRONY if _IRONIC.search(m.group(0)) else "") + "\n", text)
    return _REPEATED.sub(lambda m: m.group(1) or m.group(2), text)


def _texting(word: str) -> str:
    spelt = _TEXTING[word.lower()]
    if len(word) == 1 and word.isupper():  # "plan B", "R&B", "U of M"
        return word
    return spelt if word.islower() or spelt[0] == "I" else spelt[0].upper() + spelt[1:]


# What a message typed in capitals says around a name: a verb, a preposition ("I'M MOVING TO DENVER")
_SHOUTED_WORDS = re.compile(r"\b(?:\w+ING|\w+ED|TO|AT|IN|FOR|ON|WITH|FROM|SO|THE|AND|BACK|OUT|UP|OFF|HOME|NOW)\b")


def shouted(value: str) -> bool:
    """A name read from capitals that are a sentence shouted: a word of it is a verb or a preposition."""
    return value.isupper() and len(value) > 3 and bool(_SHOUTED_WORDS.search(value))
