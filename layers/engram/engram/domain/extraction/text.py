"""Shared text handling of the rule extractor: clauses, guards, objects and lists.

A fact rule only ever sees one clause with one subject, so "I prefer vegetarian restaurants, and I
hate spicy food" gives two facts of opposite polarity, and a guard (hearsay, question, hypothesis)
silences only the clause it is in.
"""

from __future__ import annotations

import re

from .discourse import zh_own
from .speech import (
    EN_DROPPED,
    EN_NOT_ASKED,
    UPPER,
    is_users,
    statement_part,
    with_subject,
    with_zh_subject,
    without_fillers,
)

# Sentences end at terminal punctuation; a sentence splits again where a new subject starts.
# A colon ends an introduction when a clause of the user's follows ("Quick background: I'm…",
# "简单说一下我的情况：我叫…"), not a list ("my hobbies: knitting, chess").
SENTENCES = re.compile(r"(?:(?<=[.!?。！？；;\n])|(?<=[:：])(?=\s*(?:我|(?:[Ii]|[Ii]'m|[Ii]'ve|[Mm]y|[Ww]e)\b)))"
                       r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bProf\.)(?<!\bSt\.)"
                       r"(?<!\bJr\.)(?<!\bSr\.)(?<!\bvs\.)"
                       # a dot inside a word ("Booking.com", "3.5") ends no sentence
                       r"(?!(?<=\.)[a-z0-9])\s*")
_EN_SUBJECT = r"(?:i|i'm|i've|i'd|we|we're|we've|my)\b"
_EN_SPLIT = re.compile(r"(?:,\s*|\s+(?:and|but)\s+)(?:and |but )?(?=now,? (?:i'm|i am) (?:in|based in|living in) )"
                       # ("…, now I'm in York": the "now" stays with the clause it dates)
                       r"|,\s*(?:and |but |so |while |whereas |though |although |plus |btw |fyi |tbh |also |oh |ok |"
                       r"honestly |anyway )?"
                       r"(?:now |then |today |these days )?(?=" + _EN_SUBJECT + ")"
                       r"|\s+(?:and|but|so|while|whereas|plus|although|though)\s+(?:now |then |today )?"
                       r"(?=" + _EN_SUBJECT + ")"
                       r"|,?\s+but\s+(?=(?:also |really |absolutely )*(?:hate|love|like|dislike|enjoy|prefer|"
                       r"can't|cannot|don't|do not|never|am|'m)\b)"
                       # "I'm 29 and live in Denver": a verb of the user's after "and" starts their next clause.
                       r"|,?\s+and\s+(?=(?:also |really |absolutely |now |currently )*(?:hate|love|dislike|enjoy|"
                       r"prefer|live|work|have|struggle)\s)"
                       # "…, majored in economics", "I quit teaching and became a designer": a verb that
                       # dropped its subject starts a clause (speech.with_subject says whose).
                       r"|,\s*(?:and |but |then )?(?=" + EN_DROPPED + r")|,?\s+(?:and|but)\s+(?=" + EN_DROPPED + r")"
                       # "…, so no more lamb for me": what the user gives up is said in a clause of its own
                       r"|,?\s+so\s+(?=no more\b)"
                       # "I'm Priyanka, 31, a pharmacist in Leicester": an age, then what the user is
                       r"|,\s*(?=\d{1,3},\s*an? [a-z])|(?<=\d),\s*(?=an? [a-z])"
                       # "the name's Ólafur, but everyone says Oli": what others say is a clause of its own
                       r"|,\s*but\s+(?=(?:everyone|everybody|people|most people|my friends|friends|they)\s)"
                       # "…, that's my actual name, the app keeps saying Eva": a new subject, a new clause
                       r"|,\s*(?=(?:that's|it's|he's|she's|they're|he|she|they|the \w+ (?:keeps|says|said|thinks)) )"
                       # (not before the name of who was just said: "a third rabbit, she's called Clover")
                       r"(?!(?:he|she|it)(?:'s| is) (?:called|named)\b)"
                       # "now in Houston working for Shell": a participle says what the user does there
                       r"|(?<!\bnow)(?<!\bstill)(?<!\bjust)(?<!\balso)(?<!\bcurrently)(?<!\bbeen)(?<!\bam)(?<!'m)(?<!\bwas)(?<!\bwere)"
                       r"\s+(?=(?:working|living|studying) (?:at|for|in|as) )"
                       # "Niamh here, 27, from Cork": a bare age between commas
                       r"|,\s*(?=\d{1,3}\s*(?:,|$))",
                       re.I)
# "I left Google, I'm at Shopify now": beside a change of job, being "at" a company is working there.
_JOB_MOVE = re.compile(r"\b(?:left|quit|switched|changed|moved|leaving|switching|changing) (?:my )?(?:jobs?|"
                       r"compan(?:y|ies)|hospitals?|employers?|firms?|teams?|clinics?|schools?|banks?|"
                       r"(?-i:" + UPPER + r")[\w'&-]*)\b", re.I)
_AT_COMPANY = re.compile(r"^(?:i'm|i am)\s+(?:now\s+)?(?=at\s+(?:the\s+)?(?-i:" + UPPER + "))", re.I)
# "but hate country" keeps the user as its subject: the clause is read as "I hate country".
_EN_CARRY = re.compile(r"^(?:also |really |absolutely |still |now |currently )*(?:hate|love|like|dislike|enjoy|"
                       r"prefer|can't|cannot|don't|do not|never|am|'m|work|live|have|struggle)\b", re.I)
# Every comma starts a clause, except before a bare list of names ("我有两个孩子，乐乐和思思") or
# the name of who was just mentioned ("我养了一只猫，叫咪咪").
_ZH_SPLIT = re.compile(r"[，,；]\s*(?!分别|[\u4e00-\u9fff]{1,3}(?:和|、|跟)[\u4e00-\u9fff]{1,3}[。！!.]?$|"
                       r"(?:它|他|她)?(?:叫|名叫|名字叫|取名叫|起名叫|叫它)[\u4e00-\u9fffA-Za-z]{1,20}[。！!.]?(?:$|[，,]))")
_ZH_CONNECTOR = re.compile(r"^(?:但是|但|不过|可是|而且|并且|同时|另外)")
_ZH_CARRY = re.compile(r"^(?:也|还|又|都|是|在|很|最|特别|非常|不|对|有|住|喜欢|讨厌|今年|现在|目前|一直|平时|"
                       r"正式|下周|下个月|明天|马上|后来|然后|之后|来自|英文名|中文名|小名|大名|全名|本名|真名|乳名|(?:和|跟)(?:我的?)?(?=老伴|老公|老婆|爱人|媳妇|对象|家人|孩子)|大的|小的|老大|老二|坐标|爱|养了|养着|学[\u4e00-\u9fff]{1,6}的$|[\u4e00-\u9fff]{2,6}专业(?:的)?$|[\u4e00-\u9fff]{2,3}人$|当|做|周末|每天|每周|经常|常常|有空|业余|学的|毕业|老家|家乡|专业|改|无|"
                       # "今天刚过完生日，三十了", "我叫陈志明，三十二岁": a bare age
                       r"(?:\d{1,3}|[一二两三四五六七八九十]{1,3})(?:岁?了|岁$))")
# A sentence with no subject said is the speaker's (Chinese drops "我"): "考了教资，现在当老师了". Not
# when someone else is named in it, or it opens on a name ("小王对花生过敏，也不吃虾").
_ZH_OTHERS = re.compile(r"(?<![吉其])(?:他|她|它)|你|您|我的|我们|我(?:妈|爸|哥|姐|弟|妹|老公|老婆|儿子|女儿|朋友|"
                        r"同事|家)|妈妈|爸爸|老公|老婆|儿子|女儿|孩子|朋友|同事|老板|领导|男朋友|女朋友|闺蜜|室友|邻居|大家|别人"
                        r"|先生|太太|爱人|媳妇|丈夫|妻子|前夫|前妻|前任|我(?:娘|爹|老妈|老爸|奶奶|爷爷|外婆|外公|姥姥|"
                        r"姥爷|导师|发小|死党|哥们)")
# A clause without a subject opens on a time ("今天刚过完生日"), on "在" ("在重庆待了两年") or on a verb
# and its aspect ("考了教资"); "主角叫李雷" opens on a subject.
_ZH_UNSAID = re.compile(r"^(?:(?:上个?月|上周|去年|今年|前年|前几天|前阵子|最近|昨天|今天|刚|终于|现在|目前|"
                        r"小时候|后来|以前|原来|之前)+|在|[\u4e00-\u9fff]完|毕业|"
                        # "膝盖受伤了，…": the speaker's own body, the reason for what follows
                        r"(?:膝盖|腰|腿|脚|手|胃|身体|头|脖子|肩膀)[\u4e00-\u9fff]{0,3}?(?:受伤|不好|不行|疼|痛)|[\u4e00-\u9fff][了过着](?![\u4e00-\u9fff]?[了过着])"
                        # "钢琴早就不弹了": a thing the speaker no longer does
                        r"|[\u4e00-\u9fff]{1,4}(?:早就|已经|也|都)?不[\u4e00-\u9fff]了$)")
# A sentence about the user starts with "我" (not "我的…" or "我们…" or "我妈…").
_ZH_SELF = re.compile(r"^我(?!的|们|妈|爸|哥|姐|弟|妹|老公|老婆|儿子|女儿|朋友|同事|先生|太太|爱人|媳妇|丈夫|妻子|"
                      r"男朋友|女朋友|对象|孩子|娃|家(?!乡)|闺女|宝宝|领导|老板|经理|室友|邻居|前夫|前妻|前任|"
                      # kin and mentors by any of their names ("我娘叫…", "我最好的朋友…", "我导师…")
                      r"娘|爹|老妈|老爸|奶奶|爷爷|外婆|外公|姥姥|姥爷|舅|姑|叔|姨|表|堂|导师|老师|同学|发小|死党|"
                      r"哥们|闺蜜|师兄|师姐|最好的|最要好的|孙子|孙女|外孙|侄子|侄女|外甥|"
                      # "我有个女儿，今年五岁": what follows is said of her
                      r"有(?:一|两|三)?(?:个|位)?(?:儿子|女儿|孩子|哥哥|姐姐|弟弟|妹妹|闺女|宝宝|娃))")

# Who a clause is about when it opens on them: a third person, or one of the user's people.
_ZH_SOMEONE = re.compile(r"^(?:他|她|它|(?:我的?|我家)?(?:闺女|女儿|儿子|孩子|娃|宝宝|孙子|孙女|外孙|外孙女|老公|"
                         r"老婆|爱人|媳妇|丈夫|妻子|先生|太太|妈妈|爸爸|老妈|老爸|哥哥|姐姐|弟弟|妹妹|朋友|同事|老板|领导|"
                         r"室友|邻居))")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_ZH_WHEN = re.compile(r"^(?:周[一二三四五六日末]|星期[一二三四五六日天]|今天|明天|昨天|后天|下周|上周|今晚|现在|最近)+")
_ZH_KIN_HEAD = re.compile(r"(?:儿子|女儿|闺女|老公|老婆)[\u4e00-\u9fff]")
_ZH_LIST_TAIL = re.compile(r"^(?:还有|以及|外加)")
_ZH_HAS_KIN = re.compile(r"^我有(?:一)?(?:个|位)(儿子|女儿|闺女|哥哥|姐姐|弟弟|妹妹)$")


def is_chinese(text: str) -> bool:
    return bool(_HAN.search(text))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCES.split(text) if s.strip()]


# Who the message is addressed to, before what it says: "医生，我今年45岁…", "面试官您好，我叫…"
_ZH_VOCATIVE = re.compile(r"^(?:医生|大夫|老师|护士|律师|各位[\u4e00-\u9fff]{0,4}?|大家|姐妹们|宝子们|家人们|亲们|"
                          r"朋友们|[\u4e00-\u9fff]{0,6}?(?:您好|你好|们好))[，,！!：:]\s*")


def _names_someone(clause: str) -> bool:
    """A clause that speaks of someone other than the user ("主角叫李雷", "我妈是老师")."""
    if _ZH_OTHERS.search(clause):
        return True
    return not _ZH_SELF.match(clause) if clause.startswith("我") else "叫" in clause


def clauses(sentence: str) -> list[str]:
    """One sentence as clauses with one subject each; a subjectless clause after one the user is the
    subject of ("…，但是不喜欢香菜", "… but hate country") gets the user back as its subject."""
    if is_chinese(sentence):
        sentence = _ZH_VOCATIVE.sub("", sentence) or sentence
        parts = [zh_own(without_fillers(p)) for p in _ZH_SPLIT.split(without_fillers(sentence) or sentence)]
        parts = [p for p in parts if p]
        # "书法、钓鱼，还有养花": the last item of a list said after a comma belongs to the list
        for i in range(len(parts) - 1, 0, -1):
            if _ZH_LIST_TAIL.match(parts[i]) and re.search(r"[、：:]", parts[i - 1]):
                parts[i - 1:i + 1] = [parts[i - 1] + "、" + _ZH_LIST_TAIL.sub("", parts[i])]
        out = [with_zh_subject(p) for p in parts[:1]]
        # "我有个女儿，今年五岁，叫朵朵": who the user has is the subject of what follows
        if out and (kin := _ZH_HAS_KIN.match(out[0])):
            return out + [p if re.match(r"[我他她你]", p) else "我" + kin.group(1) + _ZH_CONNECTOR.sub("", p)
                          for p in parts[1:]]
        unsaid = bool(out) and bool(_ZH_UNSAID.match(out[0])) and not _ZH_OTHERS.search(sentence)
        # "闺女叫秀英，在县城当护士": a clause that names someone else makes them the subject of what
        # follows without one, until the user speaks of themself again
        other = False
        # whether a clause so far names someone else, kept as clauses are added (not asked of every
        # clause before each one: a message of thousands of clauses was read in quadratic time)
        named = _names_someone(out[0]) if out else False
        for part in parts[1:]:
            bare = _ZH_CONNECTOR.sub("", part)
            if bare.startswith("我") and not _ZH_SOMEONE.match(bare):
                other = False
            elif _ZH_SOMEONE.match(bare):
                # "周五我请假一天，女儿朵朵幼儿园毕业": a kin word after the user's own clause is the user's
                if not other and _ZH_SELF.match(_ZH_WHEN.sub("", out[0])) and _ZH_KIN_HEAD.match(bare):
                    part = "我" + bare
                other = True
            elif (_ZH_SELF.match(out[0]) or unsaid) and not other and (bare != part or _ZH_CARRY.match(bare)):
                part = "我" + bare
            # "在北京待了十年，上个月回老家南昌了": a later clause on a verb the user says of themself, when
            # no one else was named before it ("主角叫李雷，住在上海" is the hero's)
            elif not other and not named:
                part = with_zh_subject(bare) if with_zh_subject(bare) != bare else part
            out.append(part)
            named = named or _names_someone(part)
        return out
    parts = [without_fillers(p) for p in _EN_SPLIT.split(sentence) if p and p.strip(" ,")]
    out: list[str] = []
    job_move = bool(_JOB_MOVE.search(sentence))
    for part in filter(None, parts):
        if out and _EN_CARRY.match(part):
            part = "I " + part
        else:
            part = with_subject(part, after_user=bool(out) and is_users(out[-1]), sentence_start=not out)
        if job_move:
            part = _AT_COMPANY.sub("I work ", part)
        out.append(part)
    return out


# -- guards: words that are not the user's claim about themself, now --------------------------------

# ("a claims adjuster": "claims" before an agent noun names a trade, not what someone claims)
_HEARSAY = re.compile(r"\b(?:says|said|saying|tells me|told me|thinks|claims(?! [a-z]+(?:er|or|ist|ant)s?\b)|reckons|"
                      r"mentioned|swears|insists)\b"
                      r"|\b(?:people|they|everyone|everybody|folks|others) say\b"
                      r"|听说|据说|(?:他|她|它)们?(?:说|觉得|认为)|(?:妈|爸|朋友|同事|姐|哥|弟|妹|老婆|老公|老板|医生)(?:说|觉得|认为)",
                      re.I)
_SELF_SAID = re.compile(r"^\s*(?:as )?i (?:said|told you|mentioned)\b", re.I)
_QUESTION = re.compile(r"[?？]\s*$|^" + EN_NOT_ASKED + r"(?:do|does|did|am|is|are|can|could|would|should|will|was|"
                       r"were|what|who|where|when|why|how|which|have|has)\b"
                       # "…, can i work as a translator": a question typed without its mark
                       r"|,\s*(?:(?:so|and|but|or)\s+)?(?:(?:can|could|should|would|will|do|does|did|am|is|are|shall)"
                       r" (?:i|we|you|u|it|there|my)|what|what's|how|where|which|why|who|any (?:tips|ideas|advice|"
                       r"recs|suggestions|recommendations))\b|(?:吗|呢|么)[。！!.]?$|是不是|有没有|会不会|什么|哪里|哪儿|为什么|怎么",
                       re.I)


def is_hearsay(clause: str) -> bool:
    return bool(_HEARSAY.search(clause)) and not _SELF_SAID.search(clause)


def is_question(sentence: str) -> bool:
    return bool(_QUESTION.search(sentence.strip()))


def said(sentence: str) -> str:
    """The part of a sentence that states rather than asks ("" for a question through and through)."""
    return statement_part(sentence, is_question(sentence))



# -- a change of state: a past state, or one that stopped ---------------------------------------------

# "I was living in Dublin when…": a state said in the past tense of its "-ing" is over.
# ("still getting used to it", "I'm used to the cold": being accustomed is no past)
_USED_TO = re.compile(r"\b(?<!get )(?<!got )(?<!getting )(?<!gotten )(?<!be )(?<!'m )(?<!am )used to\b"
                      r"|\b(?:i|we) (?:was|were) (?:living|working|based|studying)\b"
                      r"|以前|曾经|过去|小时候|原来", re.I)
_NO_LONGER = re.compile(r"\bno longer\b|\bany ?more\b|\b(?:stopped|quit|gave up|given up) (?:eating|drinking)\b"
                        r"|不再|已经不", re.I)
# "不弹了" is a stop; "受不了", "吃不了" (cannot) are not.
_ZH_NOT_ANY_MORE = re.compile(r"不(?!了).*了[。！!.]?$")
# Leaving a job ends working there: "I quit my job at Spotify", "I got laid off from Intel", "我从腾讯离职了".
_LEFT_JOB = re.compile(r"\bi(?:'ve| have)? (?:just |recently |finally )?(?:quit|left|resigned from) "
                       r"my (?:job|position|role) (?:at|with) "
                       r"|\bi (?:just |recently )?(?:got|was) (?:laid off|fired|let go) (?:from|by) "
                       r"|我(?:已经|刚刚?|上个月|去年)?从(?=.{1,12}?(?:离职|辞职))", re.I)


def change_of_state(clause: str) -> str | None:
    """``"past"`` for "used to …", ``"stopped"`` for "no longer …", "not … any more", "不再…", else
    ``None``."""
    if _USED_TO.search(clause) or _LEFT_JOB.search(clause):
        return "past"
    if _NO_LONGER.search(clause) or _ZH_NOT_ANY_MORE.search(clause):
        return "stopped"
    return None


def as_negation(clause: str) -> str:
    """"I no longer like coffee" read as "I don't like coffee" (the dislike rules then apply)."""
    clause = re.sub(r"\s*\bany ?more\b", "", clause, flags=re.I)
    clause = re.sub(r"(?:'ve|\s+have)?\s+(?:stopped|quit|gave up|given up) (eat|drink)ing\b", r" don't \1", clause,
                    flags=re.I)
    clause = re.sub(r"\b(am|'m|are|'re) no longer\b", r"\1 not", clause, flags=re.I)
    clause = re.sub(r"\bno longer\b", "don't", clause, flags=re.I)
    clause = re.sub(r"不再|已经不", "不", clause)
    return re.sub(r"了([。！!.]?)$", r"\1", clause)


def as_affirmation(clause: str) -> str:
    """The state a change of state ends: "I used to live in Paris" -> "I live in Paris"."""
    clause = as_negation(clause)
    clause = _LEFT_JOB.sub(lambda m: "我在" if m.group(0).startswith("我") else "I work at ", clause)
    clause = re.sub(r"(?<=我在)(.{1,12}?)(?:离职|辞职)了?", r"\1工作", clause)
    clause = re.sub(r"\bused to be\b", "am", clause, flags=re.I)
    clause = re.sub(r"\b(?:was|were) (?=living|working|based|studying)", "am ", clause, flags=re.I)
    clause = re.sub(r"\bused to\s+", "", clause, flags=re.I)
    clause = re.sub(r"\b(?:do not|don't|dont|does not|doesn't)\s+", "", clause, flags=re.I)
    clause = re.sub(r"\b(am|'m|are|'re|is) not\b", r"\1", clause, flags=re.I)
    clause = re.sub(r"(?<=我)(?:以前|曾经|过去|小时候|原来)|(?:以前|曾经|过去|小时候|原来)(?=我)", "", clause)
    return re.sub(r"(我(?:现在|已经|目前|也|都|早就|早已)*)不(?=住|是|在|有|对|当|做|喜欢|爱|吃|喝)", r"\1", clause)


# -- objects ------------------------------------------------------------------------------------------

# "a proper cup of masala chai" is masala chai: a measure of a thing is the thing (partitive).
_EN_LEAD = re.compile(r"^(?:the|a|an|to|eating|drinking|having|some|all|any|most|especially|both|either|yes|oh|"
                      r"well|and|but|actually|also|btw|okay|ok|um|hmm|(?:(?:proper|good|nice|hot|cold|fresh|big|"
                      r"strong|decent|little|quick)\s+)*(?:cups?|mugs?|glass|glasses|bowls?|plates?|slices?|pieces?|"
                      r"pints?|bottles?|pots?|bars?|scoops?) of)\s+", re.I)
_EN_TRAIL = re.compile(r"\s+(?:a lot|so much|very much|too|as well|anymore|any more|these days|nowadays|lately|now|"
                       r"right now|in general|though|actually|really|the most|most of all|more than anything|"
                       r"last (?:week|month|year)|this (?:week|month|year)|recently|again|at all|honestly|overall|"
                       r"rn|lol|lmao|first thing(?: in the morning)?|myself|personally|"
                       # "true crime ones": the pro-form stands for a noun said before ("podcasts")
                       r"ones|"
                       r"haha+|tbh|ngl|btw|fyi|imo|"
                       r"for (?:years|ages|a while)|since (?:i was )?(?:a kid|childhood)|in \d{4}|"
                       r"(?:a|one|two|three|four|five|six|ten|several|a few|\d+) (?:days?|weeks?|months?|years?) ago)$",
                       re.I)
_ZH_TRAIL = re.compile(r"(?:了|啦|呀|的|呢|哦|吧|啊|哈|嘛|去|住|一样|而已)$")
# An object that is a pronoun or a clause is not a thing the user likes ("I love that my …").
_EN_REJECT = re.compile(r"^(?:it|it's|that|this|these|those|when|how|what|you|him|her|them|us|me|myself|my|our|"
                        r"your|his|their|someone|somebody|everything|nothing|anything|everyone|being|so|very|"
                        r"i|we|he|she|they|there|here)\b", re.I)
_ZH_REJECT = re.compile(r"^(?:你|他|她|它|这|那|什么|谁|哪)")
# Idioms that look like a taste or a skill: "I hate to say it", "I prefer not to", "good at the moment".
_EN_IDIOM = re.compile(r"^(?:not\b|to (?:say|admit|ask|bother|complain|interrupt|be |sound|break|disturb|tell)|"
                       r"the (?:moment|minute|time being|end of the day))", re.I)
_COMPOUNDS = ("rock and roll", "mac and cheese", "fish and chips", "salt and pepper", "bread and butter",
              "drum and bass", "rhythm and blues", "peanut butter and jelly", "sweet and sour", "trial and error")
_LIST_SPLIT = re.compile(r"\s*(?:,\s*(?:and|or|as well as)\s+|,\s*|\s+(?:and|or|&|as well as|plus)\s+"
                         r"|、|和|跟|以及|及|还有)\s*", re.I)
_HAS_CONJUNCTION = re.compile(r"\b(?:and|or|&|as well as|plus)\b|、|和|跟|以及|及|还有", re.I)


def clean_object(value: str) -> str:
    value = value.strip(" '\"“”‘’,")
    if is_chinese(value):
        # "我最爱喝的是美式咖啡": the thing is what the cleft names
        value = re.sub(r"^(?:吃|喝|看|听|玩)?的(?:是|就是)", "", value)
        for _ in range(3):
            value = _ZH_TRAIL.sub("", value).strip()
        # "但又特别爱吃": a verb alone is no thing liked
        return "" if _ZH_REJECT.match(value) or value in ("吃", "喝", "玩", "看", "听", "去", "做", "学") else value
    if _EN_IDIOM.match(value):
        return ""
    for _ in range(3):
        value = _EN_TRAIL.sub("", _EN_LEAD.sub("", value)).strip(" ,")
    if _EN_REJECT.match(value) or len(value.split()) > 6:
        return ""
    return value


# What opens a part that qualifies or goes on from the thing before the comma, not another thing.
_GOES_ON = re.compile(r"^(?:especially|esp|mostly|mainly|particularly|like|such|which|that|who|but|though|although|"
                      r"because|cause|since|when|so|it|it's|its|they|they're|he|she|i|i'm|i've|we|you|not|no|even|"
                      r"too|also|really|very|more|than|anything|everything|all|any|lol|haha|tbh|ngl|honestly|"
                      r"though|ever|never|always|sometimes|usually|every|each|in|at|on|for|with|from|of|to|by|"
                      r"the|a lot|one of|is|are|was|were|be|been|have|has|had|am|sorry|thanks|thank|please|"
                      r"\w+ly)\b", re.I)


def _bare_list(value: str) -> list[str] | None:
    """"penicillin, latex", "hiking, sushi, old Bollywood films": commas alone make a list when every
    part is a short noun phrase and none qualifies the one before ("jazz, especially bebop")."""
    parts = [p.strip() for p in re.split(r"\s*,\s*", value)]
    if len(parts) < 2 or not all(parts) or value.isascii() is False:
        return None
    if any(len(p.split()) > 3 or _GOES_ON.match(p) or "'" in p for p in parts):
        return None
    return parts


def split_list(value: str) -> list[str]:
    """"peanuts, shellfish and eggs" -> three objects; "penicillin, latex" -> two (``_bare_list``).
    Commas that go on from a thing are no list ("jazz, especially bebop" is jazz); known compounds
    ("mac and cheese") stay whole."""
    lowered = value.lower().strip()
    if any(lowered == c or lowered.startswith(c + " ") for c in _COMPOUNDS):
        return [value.split(",")[0].split("，")[0]]
    if not _HAS_CONJUNCTION.search(value):
        return _bare_list(value) or [value.split(",")[0].split("，")[0]]
    return [part for part in _LIST_SPLIT.split(value) if part.strip()]
