"""How a long message wraps its facts, read before its sentences are: asides in brackets and between
dashes, words quoted from someone else, a joke taken back, a game of make-believe, and the part of a
sentence before a hypothesis starts. Each is a shape of discourse, not of one fact, so every rule
downstream sees the plain statement ("my partner (Sam) hates…" is "my partner Sam hates…").

Pure string functions; ``extract_facts`` applies them to a turn, then to each sentence.
"""

from __future__ import annotations

import re

from .speech import UPPER, with_subject

# -- asides ------------------------------------------------------------------------------------------

# Who a bracket may name right after: a relation or an animal ("my advisor (Mehmet, lovely bloke)").
_NAMED_BEFORE = (r"(?:sons?|daughters?|child|kids?|wife|husband|spouse|partner|boyfriend|girlfriend|fianc[eé]e?|"
                 r"mother|father|mom|mum|dad|brother|sister|sibling|twin|friend|bestie|advisor|supervisor|mentor|"
                 r"teacher|colleague|co-?worker|boss|manager|flatmate|roommate|dog|cat|puppy|kitten|rabbit|bunny|"
                 r"hamster|parrot|bird|horse|pony|tortoise|turtle|snake|lizard|gecko|ferret|budgie|pet)")
_EN_BRACKET = re.compile(r"\b(" + _NAMED_BEFORE + r")\s*\(\s*(" + UPPER + r"[\w'’-]*(?: " + UPPER + r"[\w'’-]*)?)"
                         r"(?=\s*[),;:\-–—]|\s+(?:-|–|—))[^()]*\)", re.I)
_ZH_BRACKET = re.compile(r"[（(]\s*(?:(?:他|她|它)?(?:叫|名叫|名字叫)|大名|全名|本名|真名|学名)?"
                         r"([\u4e00-\u9fff]{2,4}|[A-Za-z]{2,20})\s*[）)]")
_ZH_FULL_NAME = re.compile(r"(?:[小老阿][\u4e00-\u9fff])?[（(]\s*(?:大名|全名|本名|真名)([\u4e00-\u9fff]{2,4})\s*[）)]")
_ANY_BRACKET = re.compile(r"\s*[（(][^()（）]{0,120}[）)]")
# A spaced dash sets off an aside or starts a new clause, as a comma does.
_DASH = re.compile(r"\s+[-–—]+\s+|\s*[—–]{1,2}\s*(?=\D)")


def without_asides(text: str) -> str:
    """A name in brackets after who it names stays as its apposition ("我妈（赵秀兰）" is
    "我妈赵秀兰"; "小刘（大名刘洋）" is "刘洋"); any other bracket is an aside, taken out of its
    sentence and read after the message; a spaced dash is a comma."""
    text = _EN_BRACKET.sub(lambda m: f"{m.group(1)} {m.group(2)},", text)
    text = _ZH_FULL_NAME.sub(lambda m: m.group(1), text)
    text = _ZH_BRACKET.sub(lambda m: m.group(1), text)
    # An aside of several words is read on its own, after the message ("we (me and my wife Priya) are…").
    asides = [m.group(0).strip(" （）()") for m in _ANY_BRACKET.finditer(text)]
    text = _ANY_BRACKET.sub("", text)
    said = [a for a in asides if len(a.split()) > 1 or len(a) > 2 and re.search(r"[\u4e00-\u9fff]", a)]
    return _DASH.sub(", ", "\n".join([text, *said]))


# -- words of someone else ---------------------------------------------------------------------------

# A quotation that is a clause (it has a person in it, or several words) is what someone said, not
# the user's claim: "my friend texted me 'I'm allergic to Mondays'". A quoted name or title stays.
_QUOTED = re.compile(r"\"([^\"]{1,200})\"|“([^”]{1,200})”|「([^」]{1,200})」|『([^』]{1,200})』")
_CLAUSE_INSIDE = re.compile(r"\b(?:i|i'm|i've|my|me|we|you|he|she|they)\b|[我你他她]|\w+ \w+ \w+ \w+", re.I)


def without_quotations(text: str) -> str:
    def replace(match: re.Match) -> str:
        inner = next(g for g in match.groups() if g is not None)
        return ("那句话" if re.search(r"[\u4e00-\u9fff]", inner) else "that") if _CLAUSE_INSIDE.search(inner) \
            else match.group(0)

    return _QUOTED.sub(replace, text)


# -- make-believe and jokes --------------------------------------------------------------------------

# A game the user sets up ("let's play a game: you're a detective and I'm…") says nothing of them.
_FICTION = re.compile(r"\b(?:let's|let us) (?:play|pretend|role-?play|imagine)\b|\brole-?play\b|\bin character\b"
                      r"|\bpretend (?:that |to be |you're |you are |i'm |i am )|角色扮演|扮演|假装我|我们来玩", re.I)
# "…, jk", "哈哈，开玩笑的": what came before in the sentence is taken back.
_TAKEN_BACK = re.compile(r"^.*(?:\b(?:just kidding|only kidding|i'm kidding|jk|j/k|just joking|i'm joking)\b"
                         r"|开玩笑的?|开个玩笑|逗你的|逗你玩的|说着玩的)[\s,，.。!！~～]*", re.I)


def is_fiction(text: str) -> bool:
    return bool(_FICTION.search(text))


def not_taken_back(sentence: str) -> str:
    return _TAKEN_BACK.sub("", sentence)


# -- the part of a sentence before a hypothesis ------------------------------------------------------

_EN_HYPOTHESIS = re.compile(r"\b(?:if|unless|(?<!\bi )suppose|supposing|imagine|wish|would|i'd|were to|hypothetically|"
                            r"pretend|someday|one day)\b", re.I)
# "自从搬到成都以后", "养了狗以后" are a time since, not a future: "以后" supposes only without them.
_ZH_HYPOTHESIS = re.compile(r"如果|假如|要是|假设|想象|万一|将来|等我|以后|在想|要不要|考虑要不要|犹豫要不要")
# "做完手术以后就不跑了", "辞职以后，…现在自己当老板" (done, then now), "以后就是厦门人了" (a status from now on).
_ZH_SINCE = re.compile(r"自从[^，,。]*?(?:以后|之后|以来)|[了完][^，,。]{0,8}?(?:以后|之后)"
                       r"|(?:以后|之后)(?=[^。！!]*?现在)|(?:以后|从此)(?=(?:我)?(?:就|也)?(?:算)?是[^，,。]{1,8}人了)")
# Where a clause that states may end before the one that supposes: a comma, a semicolon, a
# coordinating word.
_EN_BREAK = re.compile(r",\s*|;\s*|\s+(?:and|so|but|because)\s+", re.I)
_ZH_BREAK = re.compile(r"[，,；;]")


# "Not sure if this matters but…", "…, if that helps": an "if" about the conversation supposes nothing.
META_IF = re.compile(r"\b(?:(?:not sure|no idea|dunno|don't know) )?(?:if|whether) (?:this|that|it) (?:matters|helps"
                      r"|is relevant|makes a difference|counts)\b(?:,? but)?|\bif i'm (?:being )?honest\b"
                      r"|\bif you must know\b|\bif you ask me\b|\b(?:just )?in case (?:it|that) (?:matters|helps)\b",
                      re.I)
# "As someone who's been vegetarian for 15 years, …": the someone is the user.
# "As someone with coeliac disease, …", "as a person living with MS": what the someone has is the user's.
_AS_SOMEONE = re.compile(r"^as (?:someone|somebody|a person|one) who(?:'s been| has been|'ve been| have been|'s| is"
                         r"| has| have|'ve)\b|^as (?:someone|somebody|a person|one|a (?:woman|man|guy|girl|mum|mom|"
                         r"dad|parent|student|adult)) (?:with|living with|who lives with)\b", re.I)


def as_said(sentence: str) -> str:
    sentence = META_IF.sub("", sentence)

    def subject(match: re.Match) -> str:
        said = match.group(0).lower()
        if said.endswith("with"):
            return "I live with" if "liv" in said else "I have"
        return "I've been" if said.endswith("been") else "I'm" if said.endswith(("'s", " is")) else "I have"

    return _AS_SOMEONE.sub(subject, sentence)


def before_hypothesis(sentence: str) -> str:
    """What a sentence states before it supposes: "I speak Vietnamese at home, so I'm wondering if
    it's worth…" states the first clause; "If I lived in Paris, I'd…" and "I wish I had a dog"
    state nothing. A sentence with no hypothesis is returned whole."""
    chinese = bool(re.search(r"[\u4e00-\u9fff]", sentence))
    if chinese:
        masked = _ZH_SINCE.sub(lambda m: "_" * len(m.group(0)), sentence)
        match = _ZH_HYPOTHESIS.search(masked)
    else:
        match = _EN_HYPOTHESIS.search(sentence)
    if match is None:
        return sentence
    head = sentence[: match.start()]
    breaks = list((_ZH_BREAK if chinese else _EN_BREAK).finditer(head))
    return head[: breaks[-1].start()].strip() if breaks else ""


def we_are_i(clause: str) -> str:
    """"We both love Ethiopian food", "we all hate mornings": the user is one of the "we"."""
    return re.sub(r"\b[Ww]e (?:both|all|each|two) ", "I ", clause)


# -- Chinese: whose a clause is, as chat says it ----------------------------------------------------

# "自从去年搬到成都以后" says "去年搬到成都": a time since is a thing done.
_ZH_SINCE_SPAN = re.compile(r"^自从(.+?)(?:以后|之后|以来)$")
# "我家娃", "我们领导", "我们有个女儿": the family's or the team's is the user's.
_ZH_OURS = re.compile(r"^(?:我们家|我家|咱家|我们)(?=(?:的)?(?:娃|孩子|老大|老二|闺女|儿子|女儿|宝宝|领导|老板|经理|"
                      r"老师|导师|主管|上司|班主任|组长)|有(?:一|两|三)?个)")
# A kin word that opens a clause with a name says whose by being said by the user: "老婆叫林芳".
_ZH_BARE_KIN = re.compile(r"^(?:现在的|新的?|现任的?)?(?=(?:老婆|老公|媳妇|爱人|太太|先生|儿子|女儿|闺女|娃|孩子|"
                          r"男朋友|女朋友|对象)(?:叫|名叫|名字叫)[\u4e00-\u9fff])")
# "平时没事我就喜欢钓鱼": the time said before "我" is read after it ("我平时没事就喜欢钓鱼").
_ZH_TIME_FIRST = re.compile(r"^((?:平时|周末|每天|每周|没事|有空|闲着|下班后|业余时间|现在|最近|以前|小时候|去年|今年|"
                            r"这几年|这些年|一直以来)+(?:的时候)?)[，,]?我(?!们|的)")
# "我是从小在青岛长大的", "我是当老师的": the "是…的" that stresses a statement is no part of it.
_ZH_CLEFT = re.compile(r"^我是((?:从小|从|在|当|做|干|搞|教|开|跑|写|卖|修|一直)[\u4e00-\u9fff]{1,16}?)的$")


def zh_own(clause: str) -> str:
    clause = _ZH_SINCE_SPAN.sub(r"\1", clause)
    clause = _ZH_OURS.sub("我", clause)
    clause = _ZH_BARE_KIN.sub("我", clause)
    clause = _ZH_TIME_FIRST.sub(r"我\1", clause)
    return _ZH_CLEFT.sub(r"我\1", clause)


# -- a thing said once, referred to again ------------------------------------------------------------

# "cats are cute but I'm allergic to them", "nothing with peanuts, I'm allergic": a pronoun, or an
# object left out after "allergic", stands for the plural thing the sentence named just before.
_ANTECEDENT = re.compile(r"\b(?:with|without|no|any|of|about|has|have|got|own|love|like)\s+((?:[a-z]+ )?[a-z]{3,}s)\b"
                         r"|^(?:[a-z]+ )?([a-z]{3,}s) (?:are|is|make|give)\b"
                         # "no sesame in it, I'm allergic": a thing refused may be singular
                         r"|\b(?:no|without)\s+(?!(?:way|idea|problem|worries|thanks|one|thing|time|longer|more|matter|"
                         r"rush|offense|offence|joke|doubt)\b)([a-z]{3,})\b", re.I)
_REFERRING = re.compile(r"\b(?:allergic to|can't stand|cannot stand|hate|can't eat|don't eat|can't have|scared of|"
                        r"afraid of|terrified of|love|adore|don't like|do not like|dislike|detest) (them|those)\b"
                        r"|\ballergic\b(?! to)()(?=\s*(?:$|[.!,;]|lol\b))", re.I)
# People are not what a taste or an allergy is of ("out with friends, I love them").
_PEOPLE = re.compile(r"\b(?:friends|kids|children|parents|colleagues|people|guys|folks|others|boys|girls|"
                     r"siblings|cousins|neighbours|neighbors|students|teachers)$", re.I)


# "别放香菜啊，我受不了那个味儿": the Chinese says it with "那个(味儿)", "那玩意儿", "它".
_ZH_ANTECEDENT = re.compile(r"(?:别放|不要放|别加|不要加|不放|不加|不要|没有|别给我)([\u4e00-\u9fff]{1,4}?)"
                            r"(?=[啊呀哦吧了，,。！!]|$)")
_ZH_REFERRING = re.compile(r"(?<=我)(?:真的|实在|特别|最)?(?:受不了|讨厌|怕|不吃|吃不了|对)"
                           r"(那个味儿?|那玩意儿?|那个|它)")


def with_antecedent(sentence: str) -> str:
    if (zh := _ZH_REFERRING.search(sentence)) and (named := _ZH_ANTECEDENT.findall(sentence[: zh.start()])):
        return sentence[: zh.start(1)] + named[-1] + sentence[zh.end(1):]
    match = _REFERRING.search(sentence)
    if match is None:
        return sentence
    found = [next(g for g in m.groups() if g) for m in _ANTECEDENT.finditer(sentence[: match.start()])]
    if not found or _PEOPLE.search(found[-1]):
        return sentence
    if match.group(1) is not None:
        return sentence[: match.start(1)] + found[-1] + sentence[match.end(1):]
    return sentence[: match.end()] + " to " + found[-1] + sentence[match.end():]


# -- what a doctor found ------------------------------------------------------------------------------

# "my allergist says I'm not allergic to shrimp any more", "医生说我有高血压": what a clinician
# told the user of the user is the user's own news, not hearsay.
_CLINICIAN = re.compile(r"^(?:(?:my|the|our) )?(?:doctor|doc|gp|allergist|dermatologist|dentist|specialist|consultant|"
                        r"cardiologist|therapist|psychiatrist|physio|physiotherapist|optician|nurse|vet)s? "
                        r"(?:says|said|told me|thinks|confirmed|reckons)(?: that)?,? (?=(?:i|i'm|i've|my|the)\b)"
                        r"|^(?:我的?)?(?:医生|大夫|主治医生|过敏科医生)(?:说|告诉我|确诊)"
                        r"(?=我|[\u4e00-\u9fff]{1,6}(?:已经|基本)?(?:正常|痊愈|康复|好了))", re.I)


def as_found(clause: str) -> str | None:
    """The user's own clause inside a clinician's words, or ``None``."""
    match = _CLINICIAN.search(clause)
    return clause[match.end():] if match else None


# -- a profile said as a header and fragments ----------------------------------------------------------

# "Bit of context: retired teacher, 67, living in Perth", "背景：32岁，坐标杭州，互联网运营": each
# fragment after the header is said of the user.
_HEADER = re.compile(r"^(?:(?:a )?(?:bit of |some |quick |brief )?(?:context|background|about me|intro|info about me)"
                     r"|背景|简单介绍(?:一?下)?(?:自己|我自己)?|自我介绍|个人情况|我的情况|基本情况)\s*[:：]\s*", re.I)
_EN_SAID_AS_STATE = re.compile(r"^(?:\d|(?:living|working|based|from|in|single|married|divorced|widowed|recently|"
                               r"originally|currently|now|also|still)\b)", re.I)


# English fragments that say what the user has or where they live: "severe peanut allergy", "two rescue
# greyhounds named Biscuit and Pepper"; a town said bare after the first fragment ("28F, tester, Melbourne"),
# not a faith or a people ("Catholic", "Korean").
_EN_HAS = re.compile(r"^(?:(?:severe|mild|bad|serious|deadly|life-threatening) )?[a-z]+(?: nut)? allerg(?:y|ies)$"
                     r"|^(?:an?|one|two|three|four|five|\d) [a-z -]{2,30}? (?:named|called) [A-Z]", re.I)
_EN_TOWN = re.compile(r"^(?!\w+(?:ian|ese|ish|ic)$)"
                      r"(?!(?:American|Mexican|Korean|Hindu|Buddhist|Mormon|Christian|Muslim)$)"
                      r"[A-Z][a-z]+(?: [A-Z][a-z]+){0,2}$")


# "write a short bio for my linkedin: …", "help me write my tinder bio: …": what follows is the user's own
# write-up (not "a bio for my brother: …")
_OWN_WRITEUP = re.compile(r"^.{0,40}?(?:\bmy (?:[\w-]+ ){0,2}?(?:bio|profile|resume|cv|headline|summary|intro)"
                          r"|\b(?:bio|profile|resume|cv|headline|summary|intro)(?: [\w-]+){0,2}? for "
                          r"(?:me|my (?:[\w-]+ )?(?:linkedin|tinder|hinge|bumble|instagram|website|portfolio|profile|"
                          r"page|resume|cv|account|app)))\s*:\s*", re.I)


def as_profile(sentence: str) -> str:
    match = _HEADER.match(sentence) or _OWN_WRITEUP.match(sentence)
    if match is None:
        return sentence
    chinese = bool(re.search(r"[\u4e00-\u9fff]", sentence))
    out = []
    for part in filter(None, (p.strip() for p in re.split(r"[,，、]\s*", sentence[match.end():]))):
        if chinese:
            out.append(part if part.startswith("我") else "我" + part)
        elif re.match(r"(?:i|i'm|i've|my|we)\b", part, re.I):
            out.append(part)
        elif _EN_HAS.match(part):
            out.append("I have " + ("a " if re.match(r"(?:severe|mild|bad|serious|deadly|life-threatening|[a-z]+(?: "
                                                     r"nut)? allerg)", part, re.I) else "") + part)
        elif out and _EN_TOWN.match(part):
            out.append("I live in " + part)
        else:
            # a fragment that dropped its verb's "I" gets it back as any clause does ("allergic to latex");
            # a bare noun phrase is what the user is ("data analyst at Booking.com")
            # ("retired nurse" is the latter: the participle qualifies the job)
            restored = part if re.match(r"retired \w+$", part, re.I) else with_subject(part, True, True)
            out.append(restored if restored != part else ("I'm " if _EN_SAID_AS_STATE.match(part) else "I'm a ") + part)
    return ("，" if chinese else ", ").join(out)


# -- a slip put right as it is typed -------------------------------------------------------------------

# "My son Jack — sorry, Jake — is six", "I'm 42. wait no, 43": the words after the marker replace as
# many words before it. A whole clause after it ("sorry, I mean I love it") replaces nothing.
# ("sorry for the delay", "sorry about that", "sorry to be difficult": an apology puts nothing right)
_SLIP = re.compile(r"\s*[,.;]?\s*(?:[-–—]\s*)?(?:(?:sorry(?!,?\s+(?:for|about|if|to|that|again|but|in advance)\b)|"
                   r"oops|wait,? no|no,? wait|i mean|i meant|correction|"
                   r"scratch that|or rather|make that|actually,? no)\b[,:]?\s+)+", re.I)
_SLIP_FIX = re.compile(r"[^,.;!?()\-–—]+")
_CLAUSE_START = re.compile(r"(?:i|i'm|i've|my|we|it|it's|that|this|you|he|she|they|not|no|just|the)\b", re.I)


def corrected_in_passing(text: str) -> str:
    for _ in range(3):  # a message may put right more than one slip
        match = _SLIP.search(text)
        fix = _SLIP_FIX.match(text, match.end()) if match else None
        if fix is None:
            return text
        new = fix.group(0).strip()
        head = text[: match.start()].rstrip(" ,.;-–—")
        words = head.split()
        if not new or _CLAUSE_START.match(new) or not 0 < len(new.split()) <= 3 or len(words) <= len(new.split()):
            return text
        text = " ".join(words[: -len(new.split())] + [new]) + text[fix.end():]
    return text
