"""A profile typed as labelled fields ("Allergies: penicillin, latex. Dog: Pepper", "娃：朵朵 5岁",
"Husband = Dev") or a letter signed with a name ("Kind regards, Tobias Lindqvist"), read as the
sentences a user would have said instead ("I'm allergic to penicillin, latex.", "My dog Pepper.",
"我孩子叫朵朵。", "My name is Tobias Lindqvist."), so the fact rules read a form as they read speech.

A label is one of the words people head a field with, at the start of the turn or after a break
(a full stop, comma, semicolon, bullet or new line), followed by ":", "：" or "=". Its value runs to
the next label or the end of the sentence. Pure string functions; ``extract_facts`` applies ``as_signed`` and
``as_sentences`` to a turn before anything else reads it.
"""

from __future__ import annotations

import re

# label words -> the sentence a value is said in ({v}: the value; {r}: the label word itself)
_EN_FIELDS: tuple[tuple[str, str], ...] = (
    (r"(?:full |first )?name", "My name is {v}."),
    (r"age", "I'm {v}."),
    (r"from|home ?town|originally from|born in|origin", "I'm from {v}."),
    (r"live|lives|living in|location|city|based(?: in)?|current city|residence|where i live", "I live in {v}."),
    (r"job|occupation|profession|work|role|position|career|what i do", "I'm a {v}."),
    (r"employer|company|workplace|work(?:ing)? at|works at", "I work at {v}."),
    (r"allerg(?:y|ies|ic(?: to)?)", "I'm allergic to {v}."),
    (r"conditions?|health(?: issues| conditions)?|medical(?: history| conditions)?|diagnos[ie]s", "I have {v}."),
    (r"hobbies|hobby|interests|pastimes", "My hobbies are {v}."),
    (r"likes|loves|faves|favou?rites|things i (?:love|like|enjoy)|i (?:love|like)", "I love {v}."),
    (r"dislikes|hates|pet peeves?|things i (?:hate|dislike|can't stand)|i hate|can't stand", "I hate {v}."),
    (r"school|university|uni|college|alma mater|studied at", "I studied at {v}."),
    (r"major|degree|studied|field of study", "I studied {v}."),
    (r"birthday|bday|b-day|dob|date of birth|born on", "My birthday is {v}."),
)
# a relation or an animal: each name of the value is "my <label> <name>"
_EN_NAMED = (r"kids?|children|child|sons?|daughters?|wife|husband|spouse|partner|boyfriend|girlfriend|"
             r"fianc[eé]e?|mom|mum|mother|dad|father|parents|brothers?|sisters?|sis|bro|siblings?|"
             r"best friend|bestie|friends?|boss|manager|advisor|supervisor|mentor|colleagues?|coworkers?|"
             r"roommates?|flatmates?|dogs?|cats?|pets?|puppy|kitten|rabbit|bunny|hamster|parrot|horse|"
             r"tortoise|turtle|snake|lizard|gecko|budgie")
_EN_FAMILY = r"(?:my )?family|household"
_EN_ME = r"me|myself"
_EN_LABEL = re.compile(r"(?:^|(?<=[.,;:•*|/\n])|(?<=\s)(?=[-–—•*]\s))\s*(?:[-–—•*]\s*)?(?:my\s+)?("
                       + "|".join(f"(?:{p})" for p, _ in _EN_FIELDS)
                       + rf"|{_EN_NAMED}|{_EN_FAMILY}|{_EN_ME})\s*[:=]\s*", re.I)

_ZH_FIELDS: tuple[tuple[str, str], ...] = (
    (r"姓名|名字|大名", "我叫{v}"),
    (r"年龄|年纪|岁数", "我今年{v}"),
    (r"老家|籍贯|家乡|出生地|祖籍", "我老家是{v}"),
    (r"现居地?|坐标|所在地|所在城市|城市|住址|居住地|常住地?", "我住在{v}"),
    (r"职业|工作|岗位|职位|身份", "我是{v}"),
    (r"公司|单位|工作单位", "我在{v}上班"),
    (r"过敏源?|过敏原|过敏史", "我对{v}过敏"),
    (r"病史|慢性病|疾病|基础病", "我有{v}"),
    (r"爱好|兴趣爱好|兴趣", "我的爱好是{v}"),
    (r"喜欢|最爱|爱吃", "我喜欢{v}"),
    (r"讨厌|不喜欢", "我讨厌{v}"),
    (r"学校|毕业院校|母校|院校", "我毕业于{v}"),
    (r"专业", "我学的是{v}"),
    (r"生日", "我的生日是{v}"),
)
_ZH_NAMED = (r"孩子|娃|儿子|女儿|闺女|宝宝|小孩|老公|老婆|爱人|对象|妻子|丈夫|媳妇|男朋友|女朋友|妈妈|爸爸|"
             r"哥哥|姐姐|弟弟|妹妹|闺蜜|朋友|发小|领导|经理|导师|同事|狗狗?|猫咪?|宠物")
_ZH_LABEL = re.compile(r"(?:^|(?<=[。，,；;\n\s]))(?:我的?)?(" + "|".join(f"(?:{p})" for p, _ in _ZH_FIELDS)
                       + rf"|{_ZH_NAMED})\s*[:：=]\s*")
_ZH_PETS = {"狗": "狗", "狗狗": "狗", "猫": "猫", "猫咪": "猫", "宠物": "宠物"}

_END = re.compile(r"(?<![A-Z][a-z])(?<!\bDr)(?<!\bMs)(?<!\bMr)(?<!\bMrs)\.(?=\s|$)|[;!?。；！？\n]|\s[/|]\s")
_ITEMS = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+(?:and|&|\+)\s+|、|和|，)\s*", re.I)
# what follows a name in a field of people: an age ("Maya 7", "朵朵 5岁", "Sofia (9)") or an aside
_AFTER_NAME = re.compile(r"\s*(?:[(（].*|\d.*|[一二两三四五六七八九十]+岁.*|[-–—:].*)$")


def _names(value: str) -> list[str]:
    out = []
    for item in _ITEMS.split(value):
        name = _AFTER_NAME.sub("", item).strip(" ,.")
        if name and len(name.split()) <= 3 and not re.match(r"(?:no|none|n/a|-)$", name, re.I):
            out.append(name)
    return out


def _values(text: str, labels: re.Pattern) -> list[tuple[int, int, str, str]]:
    """(start, end, label, value) of each field: a value runs to the next label or a sentence end."""
    found = list(labels.finditer(text))
    out = []
    for i, match in enumerate(found):
        stop = found[i + 1].start() if i + 1 < len(found) else len(text)
        end = _END.search(text, match.end(), stop)
        stop = end.start() if end else stop
        value = text[match.end():stop].strip(" ,-–—•*")
        if value:
            out.append((match.start(), stop, match.group(1), value))
    return out


def _en_me(value: str) -> str:
    """"Me: Priya, 38, Leeds": a name, an age and a place, in the order profiles give them."""
    said, named = [], False
    for part in (p.strip() for p in value.split(",")):
        if re.fullmatch(r"\d{1,3}", part):
            said.append(f"I'm {part}.")
        elif re.fullmatch(r"[A-Z][\w'’-]*(?: [A-Z][\w'’-]*){0,2}", part):
            said.append(f"I live in {part}." if named else f"My name is {part}.")
            named = True
        elif part:
            said.append(f"I'm {part}.")
    return " ".join(said)


def _en_sentence(label: str, value: str) -> str:
    label = " ".join(label.lower().split())
    if re.fullmatch(_EN_ME, label):
        return _en_me(value)
    if re.fullmatch(_EN_FAMILY, label):
        return " ".join(f"My {item}." for item in _ITEMS.split(value) if item)
    if re.fullmatch(_EN_NAMED, label):
        return " ".join(f"My {label} {name}." for name in _names(value))
    template = next(t for p, t in _EN_FIELDS if re.fullmatch(p, label))
    return template.format(v=value)


def _zh_sentence(label: str, value: str) -> str:
    if label in _ZH_PETS:
        kind = _ZH_PETS[label]
        return "".join(f"我的{kind}叫{n}。" if kind == "宠物" else f"我养了一只{kind}，叫{n}。" for n in _names(value))
    if re.fullmatch(_ZH_NAMED, label):
        return "".join(f"我{label}叫{name}。" for name in _names(value))
    template = next(t for p, t in _ZH_FIELDS if re.fullmatch(p, label))
    if template == "我今年{v}" and not value.endswith("岁"):
        value += "岁"
    return template.format(v=value) + "。"


def as_sentences(text: str) -> str:
    """The turn with each labelled field said as a sentence; a turn without one unchanged."""
    chinese = bool(re.search(r"[\u4e00-\u9fff]", text))
    labels, say = (_ZH_LABEL, _zh_sentence) if chinese else (_EN_LABEL, _en_sentence)
    fields = _values(text, labels)
    if not fields:
        return text
    out, at = [], 0
    for start, stop, label, value in fields:
        out += [text[at:start], " ", say(label, value), " "]
        at = stop
    out.append(text[at:])
    return "".join(out).strip()


# -- a letter signed ------------------------------------------------------------------------------------

# "Kind regards, Tobias Lindqvist", "Best regards, Olu Adeyemi, Logistics Coordinator", "Thanks, Mariam
# (Senior Product Manager, Kestrel Labs)": who signs a message is its writer, the user.
_CLOSING = (r"(?:kind regards|best regards|warm regards|warmest regards|regards|best wishes|all the best|best|"
            r"many thanks|thanks|thank you|cheers|sincerely|yours sincerely|yours faithfully|yours truly|"
            r"love always|with love|love|xoxo|hugs|talk soon)")
_SIGNER = r"((?-i:[A-Z][\w'’-]+)(?: (?-i:[A-Z][\w'’-]+)){0,2})"
# (after something was said: "Thanks, Claude" alone thanks the assistant by its name)
# ("Best regards, Tomasz Wiśniewski, Senior Analyst, Allianz": a title and a company after the name;
# a formal closing may be all the message says)
_SIGNED = re.compile(r"(?:(?<=[.!?\n])|^)\s*" + _CLOSING + r"[,!]?\s+" + _SIGNER
                     + r"(?:\s*,\s*([A-Za-z][\w &'-]{2,60}?(?:\s*,\s*[A-Z][\w &'.-]{1,60}?)?))?"
                     r"(?:\s*\(([^()]{2,80})\))?\s*[.!]?\s*$", re.I)
# who signs as a relation or the assistant's name for them is no one's name
_NOT_A_SIGNER = re.compile(r"^(?:mom|mum|dad|grandma|grandpa|nana|papa|your|me|the|a|all|everyone|team|you|"
                           r"again|so|in advance|for)\b", re.I)


# A formal closing signs a letter; "Thanks, Claude" after a chat message thanks the assistant, and
# is a signature only in a message that opened as a letter does.
_FORMAL = re.compile(r"^\s*(?:kind regards|best regards|warm regards|warmest regards|regards|best wishes|"
                     r"all the best|sincerely|yours sincerely|yours faithfully|yours truly|love always|with love)",
                     re.I)
_SALUTATION = re.compile(r"^\s*(?:subject:.*?[.\n]\s*)?(?:dear|hi|hello|hey|good (?:morning|afternoon|evening)|"
                         r"to whom it may concern|尊敬的)\b", re.I)


def as_signed(text: str) -> str:
    """The message with what its signature says said as sentences after it."""
    match = _SIGNED.search(text)
    if match is None or _NOT_A_SIGNER.match(match.group(1)):
        return text
    if not _FORMAL.match(match.group(0)) and not _SALUTATION.match(text):
        return text
    said = [f"My name is {match.group(1)}."]
    roles = [r.strip() for r in (*(match.group(2) or "").split(",", 1), *(match.group(3) or "").split(",", 1))
             if r and r.strip()]
    if roles:
        said.append(f"I work as a {roles[0].lower()}.")
    if len(roles) > 1:
        said.append(f"I work at {roles[1]}.")
    return text[: match.start()].rstrip() + "\n" + " ".join(said)
