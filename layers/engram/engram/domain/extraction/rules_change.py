"""Rules for a state that ended, said as news rather than as "I used to…" (``text.change_of_state``
covers that form): an activity the user stopped ("I stopped running", "钢琴早就不弹了", "最近不游泳了"),
a thing given up with its gear ("I sold my guitar"), a relation that ended ("we broke up", "我们分手了")
or a life that did ("Max passed away"). Every fact these rules find is an ending (tagged ``ended``),
which closes the belief with the same object and opens nothing.

A breakup or a death often names nobody, or only a first name: ``referred_endings`` ends what the
user's earlier turns of the batch said that names ("my girlfriend Emma" -> Emma; "my dog Max" ->
"Max (dog)"). A partner or pet said in an earlier session is not reached from here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..model import Extraction
from ..model import Predicate as P
from . import rules_zh_news
from .rules import Rule
from .rules_en import _LANGUAGE, ADV, CONDITIONS, WORD
from .rules_en_life import _ACTIVITY_END, _DOING, _GOING, _PASTIMES, _PLAYED, _plain_hobby, _series
from .rules_en_passing import _FIELDS
from .rules_zh import _HOBBIES, _activity
from .rules_zh import ADV as ZH_ADV
from .speech import LETTER

_I = re.I
_ACTIVITY = "(?:" + _GOING + "|" + _DOING + "|" + _PASTIMES + "|" + _PLAYED + ")"
# "I stopped running", "I quit playing chess", "I gave up yoga" (not "I stopped at the shop", "I quit
# my job": those are no activity of the lists).
_STOPPED_EN = (r"\bi(?:'ve| have)? " + ADV + r"(?:stopped|quit|gave up|given up|dropped) (?:doing |playing |going )?("
               + _series(_ACTIVITY) + r")" + _ACTIVITY_END)
# "I sold my guitar", "I gave away my skis": the gear of an activity gone with it.
_GEAR_GONE = (r"\bi(?:'ve| have)? " + ADV + r"(?:sold|gave away|given away|got rid of|donated) my (?:old )?("
              + _PLAYED + r")\b")
# "最近不游泳了", "我不再打篮球了" (a habit stopped); "钢琴早就不弹了" (the thing first, then the verb stopped).
_STOPPED_ZH = r"我" + ZH_ADV + r"(?:不再|不|没再)(?:去)?(" + _HOBBIES + r")了"
_ZH_TOPIC_STOPPED = (r"^我?((?!我)[\u4e00-\u9fff]{2,4}?)(?:我)?" + ZH_ADV + r"(?:早就|早已|早|已经|都|也|再也)*"
                     r"(?:不|没)(?:再)?(?:弹|玩|打|下|拉|踢|练|做|画|唱|跳|学|滑|骑|去)了")

# "my anaemia has completely cleared up": a condition gone.
_HEALED = (r"\bmy (" + CONDITIONS + r") (?:has |is |'s |was )?(?:now |finally |completely |totally |fully )*"
           r"(?:cleared up|gone(?: away)?|cured|healed|resolved|in remission)\b")
_FINE_NOW = (r"\bi(?:'m| am) (?:now |totally |completely |perfectly |actually )*(?:fine|ok|okay) (?:around|with) "
             r"(?:the )?([a-z][\w-]{1,20}(?: [a-z][\w-]{1,20})?) (?:now|these days|nowadays|any ?more)\b")
RULES_EN: list[Rule] = [
    Rule(re.compile(_HEALED, _I), P.HAS_CONDITION),
    Rule(re.compile(_STOPPED_EN, _I), P.HAS_HOBBY, lists=True, value=_plain_hobby),
    Rule(re.compile(_STOPPED_EN, _I), P.HAS_PREFERENCE, lists=True, value=_plain_hobby),
    Rule(re.compile(_GEAR_GONE, _I), P.HAS_HOBBY, value=_plain_hobby),
    # "no more steak for me": a taste given up
    Rule(re.compile(r"\bno more ([a-z][\w' -]{1,30}?) for me\b", _I), P.HAS_PREFERENCE),
    # "I'm totally fine around cats now": an allergy or a fear of the thing over
    Rule(re.compile(_FINE_NOW, _I), P.ALLERGIC_TO),
    Rule(re.compile(_FINE_NOW, _I), P.DISLIKES),
]
RULES_ZH: list[Rule] = [
    Rule(re.compile(_STOPPED_ZH), P.HAS_HOBBY, value=_activity),
    Rule(re.compile(_STOPPED_ZH), P.HAS_PREFERENCE, value=_activity),
    Rule(re.compile(_ZH_TOPIC_STOPPED), P.HAS_HOBBY),
    Rule(re.compile(_ZH_TOPIC_STOPPED), P.HAS_PREFERENCE),
    # "自从得了胃炎就不吃辣了": a taste given up, said after its reason
    Rule(re.compile(r"(?:^我|^自从|^自打|就|再也|已经)[^，。！？]{0,12}?不(?:再|敢)?(?:吃|喝)([\u4e00-\u9fff]{1,4}?)了"
                    r"(?=$|[，。！？])"), P.HAS_PREFERENCE),
]

# A past that holds now: the place of a childhood is where the user is from ("小时候住在武汉", "as a
# kid I lived in Leeds"), though they live there no longer.
HELD_EN: list[Rule] = [
    Rule(re.compile(r"\b(?:(?i:as a (?:kid|child)|growing up),? (?i:i|we) (?i:lived|grew up) (?i:in)|(?i:i|we) "
                    r"(?i:lived) (?i:in)(?= \S+(?: \S+)? (?i:as a (?:kid|child)|growing up)))(?: (?i:the))? ("
                    + WORD + r"(?: " + WORD + r")?)"), P.COMES_FROM),
]
HELD_ZH: list[Rule] = [
    Rule(re.compile(r"我(?:从)?小时候(?:一直)?(?:住在|在)((?:(?!住|生活|长大)[\u4e00-\u9fff]){2,6}?)(?:住|生活|长大)?"
                    r"(?:过|了)?(?:几|\d+|[一二两三四五六七八九十]+)?(?:年|个月)?(?:的)?(?=$|[，。！!,.])"),
         P.COMES_FROM),
]

# "we broke up", "I broke up with Emma", "we got divorced", "我们分手了", "我和小凯分手了"
_BROKE_UP = re.compile(r"\b(?:we|i)(?:'ve| have)? (?:just |finally |recently |officially )?(?:broke up|split up|"
                       r"separated|divorced|got divorced|called it off|ended things)(?: with (" + WORD + r"))?\b"
                       r"|我(?:们|和|跟)?([\u4e00-\u9fff]{0,3}?)(?:已经|上个?月|上周|去年)?(?:分手|离婚|分开)了"
                       # "the divorce with Rachel was finalized": the divorce as news of its own
                       r"|\b(?:the |my |our )?divorce(?: (?:with|from) (" + WORD + r"))? (?:was |is |has |got |just )*"
                       r"(?:finali[sz]ed|final|through|official|came through|went through)\b"
                       # "Sophie dumped me": the partner ending it, named first
                       r"|^(" + WORD + r") (?:just |finally )?(?:dumped|left|broke up with|divorced) me\b"
                       # "Dario and I finalized our divorce last month", "we finalised the divorce"
                       # (a clause of its own after "Dario and": the partner is the last one named)
                       r"|^(?:i|we) (?:\w+ )?(?:finali[sz]ed|signed) (?:our|the|my) divorce(?: papers)?\b", _I)
# "Zeynep and I aren't friends anymore", "I'm not friends with Zeynep any more": a friendship ended
_FELL_OUT = re.compile(r"^(?:i|we) (?:aren't|are not|are no longer|stopped being) friends"
                       r"|\bi(?:'m| am) (?:not|no longer) friends with (" + WORD + r")"
                       r"|我(?:和|跟)([\u4e00-\u9fff]{1,4}?)(?:已经)?(?:绝交|闹掰|不是朋友)了?", _I)
# "the anemia has fully resolved", "cancer-free, full remission", "血压已经正常，药也停了": a condition over
_RECOVERED = re.compile(r"\b(?:resolved|cured|in (?:full )?remission|full remission|\w+-free|all clear|recovered|"
                        r"healed|no longer (?:have|has)|gone away|went away|is gone|are gone)\b"
                        r"|(?:已经|基本)?(?:正常了?|痊愈|康复|好了|治好了|停药|药也停了)", _I)
# "Left Shopify last Friday", "i quit deloitte", "resigned from Blue Bottle": a job left by its employer's
# name alone (matched against the employers said before, so it may be typed in lower case)
_LEFT_EMPLOYER = re.compile(r"(?:^|\bi(?:'ve| have)? )(?:just |finally |recently |officially )?"
                            r"(?:left|quit|resigned from|walked out of) (?:the )?("
                            + WORD + r"(?: " + WORD + r"){0,3})\b", _I)
# When a death was, said between the name and "走了" ("花花去年冬天走的"): each word once, none made of
# others (a word made of two read "去年去年…" in 2^n ways)
DIED_WHEN = (*"""已经 昨天 前几天 上周 今天 前天 去年 前年 那年 今年 年初 年底 春天 夏天 秋天 冬天 月初 月底 刚 突然
                 最后 还是""".split(), "上个?星期", "上个?月")
# "Max passed away", "sadly Max died yesterday", "小白去世了"
# The name is matched against the ones said before, so it may be typed in lower case ("pepper passed
# away"); "走了" (went) is said of a death too, and only ends who was named. A short lead may come
# first ("Sad news, Kiwi passed away").
_DIED = re.compile(r"(?:^|^[^,:]{1,30}[,:]\s*)(" + LETTER + r"{2,30}) (?:just |sadly |recently )?(?:passed away|died|"
                   r"passed|was put down|crossed the rainbow bridge)\b"
                   # "RIP Peanut": a death said by its epitaph
                   r"|^(?:rip|r\.i\.p\.?|rest in peace),? (?:my |little |sweet |dear )*(" + LETTER + r"{2,30})\b"
                   # "旺财去年走了", "雪球上个月没了", "花花去年冬天走的": said with any time, then the clause ends
                   r"|^([\u4e00-\u9fff]{1,4}?)(?:" + "|".join(DIED_WHEN) + r")*"
                   r"(?:去世|过世|病逝|死|走|没)(?:了|的)(?=$|[，,。！!.？?]|\s)", _I)
# "We lost Pancake last week", "we had to put Rex down": a pet or person lost, named after the verb
_LOST = re.compile(r"\b(?:we|i)(?:'ve| have)? (?:just |sadly |recently )?(?:lost|buried|had to put down) (?:our |my )?"
                   r"(?:\w+ )?(?-i:([A-Z]" + LETTER + r"{1,30}))\b", _I)
# "I quit the law firm", "handed in my notice", "got laid off", "我辞职了", "柜员我不干了": a job left.
# Its subject is the user: said first, or dropped ("Handed in my notice at Westpac").
_LET_ME_GO = r"\b(?:made me redundant|let me go|laid me off|fired me|sacked me)"
_QUIT_SAID = (r"(?:^|\bi(?:'ve| have)? )(?:(?:just|finally|recently|officially|today|yesterday|so|and) )*(?:"
              r"(?:quit|left|resigned from|walked out of) (?:my |the |that |this )?(?:[\w-]+ ){0,2}?(?:job|role|"
              r"position|post|firm|company|practice|employer|workplace|gig)\b"
              r"|(?:handed in|gave|put in|turned in|handed) (?:my )?(?:notice|resignation|two weeks)"
              r"|(?:got|was|been) (?:laid off|fired|let go|made redundant|sacked)"
              r"|lost (?:my |the )?(?:[\w-]+ )?(?:job|position|role)\b"
              r"|(?:quit|resigned)(?=\s*(?:$|[,.!;]| (?:today|yesterday|last|this|on)\b))"
              # "yesterday was my last day at Lidl", "Last day at Deloitte today": a job ended by its last day
              r"|(?:is|was) my last day(?= (?:at|with) | (?:at|of) work\b|\s*(?:$|[,.!;]))"
              r"|(?:my )?last day(?= (?:at|with) (?:the )?\S+(?: \S+)? (?:today|yesterday)\b)"
              # "they made me redundant", "the company let me go"
              r"{let_me_go})"
              r"(?: (?:at|with|from) (?:the )?(" + WORD + r"))?")
_QUIT = re.compile(_QUIT_SAID.replace("{let_me_go}", "|.*?" + _LET_ME_GO), _I)
# The same without its "…let me go": a clause that never says it is searched without the ".*?" that,
# tried from every "i " of a long clause, read it in quadratic time (the matches are the same).
_QUIT_BY_ME = re.compile(_QUIT_SAID.replace("{let_me_go}", ""), _I)
_LET_ME_GO_SAID = re.compile(_LET_ME_GO, _I)
_ZH_QUIT = re.compile(r"辞职|辞了职|辞的职|离职|离了职|不干了|被裁|被开除|被辞退|裸辞|辞(?:了|掉了?)[^，。]{0,10}?工作")
_ZH_QUIT_FROM = re.compile(r"从(.{1,12}?)(?:离职|辞职)")
_ZH_SOMEONE = re.compile(r"他|她|你|们|妈|爸|哥|姐|弟|妹|老公|老婆|儿子|女儿|朋友|同事|老板|领导")
_WORK = (P.WORKS_AT, P.WORKS_AS)
_PARTNER = (P.HAS_SPOUSE,)
_LIVES = (P.HAS_PET, P.HAS_SPOUSE, P.HAS_CHILD, P.HAS_PARENT, P.HAS_SIBLING, P.HAS_FRIEND)


# Who a death said in the same clause ends: the lives above and the people of work and study.
_PEOPLE = {*_LIVES, P.HAS_COLLEAGUE, P.HAS_MANAGER, P.HAS_ADVISOR}
_DIED_HERE = (r"(?:died|passed away|passed on|passed(?! (?:my|the|a|an|his|her|their|by|through|over|out|it)\b)"
              r"|去世|过世|离世|病逝|走了)")


def died_here(clause: str, found: list[tuple]) -> list[tuple]:
    """"since my husband Walter died", "my wife Ruth passed in the spring", "my late wife Ruth": who
    died is no longer a current relation (said within a few words before the verb, so "since my
    husband Walter died my daughter Linda calls me" ends Walter only)."""
    def died(obj: str) -> bool:
        name = re.escape(obj.split(" (")[0])
        return bool(re.search(rf"{name}\W+(?:\w+\W+){{0,3}}?{_DIED_HERE}|{name}[\u4e00-\u9fff]{{0,4}}{_DIED_HERE}"
                              rf"|\blate (?:\w+ ){{0,2}}{name}\b", clause, re.I))

    # (who was named in an earlier turn is ended by referred_endings)
    return [(p, o, True, t) if p in _PEOPLE and not e and died(o) else (p, o, e, t) for p, o, e, t in found]


# "switched my major to kinesiology", "I transferred into nursing": the field studied before is left ("I switched
# to Italian" may be a language learnt for fun)
SWITCHED_FIELD = (r"(?:^|\bi(?:'ve| have)? )(?:just |finally |officially )?(?:(?:switched|changed|swapped) (?:my )?"
                  r"(?:major|course|degree|subject|programme|program|field)(?: from [^,.;!?]{2,30}?)? to |(?:switched|"
                  r"changed|transferred|moved)(?: over)? (?:to|into) (?!" + _LANGUAGE + r"\b)(?=(?:" + _FIELDS[1:-1]
                  + r")\b))")
# "I transferred to Drexel this semester": a school moved to (not a branch, a team or a shift of work)
TRANSFERRED = (r"(?:^|\b(?i:i)(?i:'ve| have)? )(?i:just |finally |officially |recently )?(?i:transferred|transfered) "
               r"(?i:over )?(?i:to|into) (?:(?i:the) )?(?!(?:[\w-]+ ){0,3}?(?i:office|branch|team|department|store|"
               r"location|site|plant|division|shift|unit|ward|account|bank)\b)(" + WORD + r"(?: " + WORD + r"){0,3})")
# "i started eating meat again": a diet given up by what is eaten again (eggs and dairy end a vegan one)
_EATS_AGAIN = re.compile(r"(?:^|\bi(?:'ve| have|'m| am)? )(?:just |finally |recently |officially )?(?:started|"
                         r"began|went back to|gone back to|back to|eat|eating)(?: eating)? (meat|fish|chicken|beef|"
                         r"pork|bacon|seafood|eggs|dairy|cheese|animal products)(?= again| once more|\b.*\bagain\b)"
                         r"|(?:^|\bi(?:'ve| have|'m| am)? )(?:just |finally )?(?:went|gone) back to eating (meat|fish|"
                         r"chicken|beef|pork|seafood|eggs|dairy|cheese)\b", _I)
_ENDS_DIETS = {"eggs": ("vegan",), "dairy": ("vegan",), "cheese": ("vegan",), "fish": ("vegan", "vegetarian"),
               "seafood": ("vegan", "vegetarian")}


def referred_endings(clause: str, previous: Sequence[Extraction]) -> list[tuple[P, str]]:
    """The partner a breakup ends, the pet or person a death ends, as an earlier turn named them."""
    earlier = [f for f in previous if f.is_fact and f.object and "ended" not in f.tags]
    if switched := re.search(SWITCHED_FIELD, clause, _I):
        now = clause[switched.end():].lower()
        return [(f.predicate, f.object) for f in earlier if f.predicate is P.STUDIED
                and not now.startswith(f.object.lower())]
    if match := re.search(TRANSFERRED, clause):
        return [(f.predicate, f.object) for f in earlier if f.predicate is P.STUDIED_AT
                and f.object.lower() != match.group(1).lower()]
    if match := _EATS_AGAIN.search(clause):
        food = (match.group(1) or match.group(2)).lower()
        diets = _ENDS_DIETS.get(food, ("vegan", "vegetarian", "pescatarian", "pescetarian", "plant-based"))
        return [(f.predicate, f.object) for f in earlier if f.predicate is P.HAS_PREFERENCE and _DIET.match(f.object)
                and f.object.lower().split()[0] in diets]
    if match := _BROKE_UP.search(clause):
        name = next((g for g in match.groups() if g), "").strip()
        return [(f.predicate, f.object) for f in earlier
                if f.predicate in _PARTNER and (not name or f.object.lower() == name.lower())][-1:]
    quit_ = _QUIT if _LET_ME_GO_SAID.search(clause) else _QUIT_BY_ME
    if (match := quit_.search(clause)) or (_ZH_QUIT.search(clause) and not _ZH_SOMEONE.search(clause)):
        named = (match.group(1) if match else None) or (m.group(1) if (m := _ZH_QUIT_FROM.search(clause)) else None)
        # A job left by its employer's name ends that employer ("the bakery" names "a little bakery"); a
        # job left unnamed, or "my job at" the employer the user had, ends the work said.
        def employs(f: Extraction) -> bool:
            return f.predicate is P.WORKS_AT and named is not None and named.lower() in f.object.lower().split()
        whole = named is None or bool(match and re.search(r"\b(?:job|role|position)\b", match.group(0), _I)
                                      and any(employs(f) for f in earlier))
        return [(f.predicate, f.object) for f in earlier if f.predicate in _WORK and (whole or employs(f))]
    if match := _FELL_OUT.search(clause):
        name = next((g for g in match.groups() if g), "").lower()
        return [(f.predicate, f.object) for f in earlier
                if f.predicate is P.HAS_FRIEND and (not name or f.object.lower() == name)][-1:]
    if _RECOVERED.search(clause):
        return [(f.predicate, f.object) for f in earlier if f.predicate is P.HAS_CONDITION and _named(f.object, clause)]
    if match := _LEFT_EMPLOYER.search(clause):
        said = match.group(1).lower() + " "
        return [(P.WORKS_AT, f.object) for f in earlier
                if f.predicate is P.WORKS_AT and said.startswith(f.object.lower() + " ")][:1]
    if match := _DIED.search(clause) or _LOST.search(clause):
        name = next(g for g in match.groups() if g).lower()
        return [(f.predicate, f.object) for f in earlier if f.predicate in _LIVES
                and (f.object.lower() == name or f.object.lower().startswith(name + " ("))]
    return rules_zh_news.replaced(clause, previous) if re.search(r"[\u4e00-\u9fff]", clause) else []


def _named(condition: str, clause: str) -> bool:
    """Whether the clause speaks of the condition: a word of it ("cancer" of "breast cancer"), or in
    Chinese two of its characters ("血压" of "高血压")."""
    if re.search(r"[\u4e00-\u9fff]", condition):
        return any(condition[i:i + 2] in clause for i in range(len(condition) - 1))
    return any(len(w) > 3 and re.search(rf"\b{re.escape(w)}", clause, _I) for w in condition.lower().split())


# A diet replaces the one before it: who goes pescatarian is no longer vegetarian ("素食" is the
# Chinese rules' one diet).
_DIET = re.compile(r"^(?:[\w-]+ diet|素食|纯素食)$", _I)


def exclusive_endings(found: list[tuple], previous: Sequence[Extraction]) -> list[tuple]:
    """``found`` with the earlier diet ended when a new one is said."""
    diets = {o.lower() for p, o, ended, _ in found if p is P.HAS_PREFERENCE and not ended and _DIET.match(o)}
    if not diets:
        return found
    earlier = [f for f in previous if f.is_fact and f.predicate is P.HAS_PREFERENCE and f.object
               and "ended" not in f.tags and _DIET.match(f.object) and f.object.lower() not in diets]
    return found + [(P.HAS_PREFERENCE, f.object, True, f.tags) for f in earlier]
