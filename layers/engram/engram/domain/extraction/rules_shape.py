"""Objects known by the shape of their word, in a frame that says they are the user's: an illness by how
medicine makes its names ("…itis", "…osis", "…pathy", "…炎", "…症", "…综合征") after "I have" or "我得了", or
named as what the user takes a drug for ("I'm on amlodipine for high blood pressure"); "我血压高" as 高血压; a
Chinese line of work by its field ("做室内设计", "搞销售", "跑外卖") or its trade said before the pay ("当质检员
一个月六千"); a tutor by the subject tutored; an employer the user plans to retire from or has worked at for
so long ("在中国移动干了十几年"); a home by the rent paid for a flat there; a list of languages or of
allergens said as a header; a son by the words of the north ("俺家小子叫石头"). Never of someone else:
each frame starts with the user ("I", "我") or at the head of the user's own clause."""

from __future__ import annotations

import re

from ..model import Predicate as P
from .rules import Rule
from .rules_en import ADV, CONDITIONS, PLACE
from .rules_en_life import ORG, _employer
from .rules_zh import _WHERE, _workplace
from .rules_zh import ADV as ZH_ADV
from .rules_zh import END as ZH_END
from .rules_zh import LIST as ZH_LIST
from .rules_zh_open import _TRADE, _trade
from .speech import UPPER

# -- English ---------------------------------------------------------------------------------------------

# The endings medicine names an illness with ("-itis", "-osis", "-emia", "-penia", "-algia", "-pathy", "-oma"),
# and the nouns it heads a name with ("macular degeneration").
_SUFFIXED = r"[a-z]{2,20}(?:itis|osis|emia|aemia|penia|algia|pathy|oma)"
_HEADED = r"(?:degeneration|disease|syndrome|disorder|palsy|dystrophy)"
# Words of that shape that are no illness: "a diploma", "my diagnosis", "so much empathy".
_NOT_ILLNESSES = {"diploma", "aroma", "coma", "sauna", "diagnosis", "prognosis", "hypnosis", "osmosis", "empathy",
                  "sympathy", "apathy", "antipathy", "telepathy", "homeopathy", "naturopathy", "osteopathy",
                  "academia", "bohemia", "stigma", "nostalgia"}
# A modifier of the name ("plantar", "peripheral", "wet macular"): not a determiner, nor "no".
_ILL_MOD = r"(?:(?!(?:a|an|the|my|no|some|any|this|that|been|had|got|have)\b)[a-z][a-z'-]{1,20} ){0,2}?"
ILLNESS = r"(" + _ILL_MOD + r"(?:" + _SUFFIXED + r"|[a-z][a-z'-]{1,20} " + _HEADED + r"))\b"
_I_HAVE = (r"\b(?i:i)(?i:'ve| have)? " + ADV + r"(?i:have|got|suffer from|live with|was diagnosed with|"
           r"got diagnosed with|am being treated for|'m being treated for|have got|'ve got) (?i:(?:a|an|mild|severe|"
           r"chronic|bad) )?")


def _illness(value: str) -> str | None:
    return None if value.lower().split()[-1] in _NOT_ILLNESSES else value


# "I'm on levothyroxine for hypothyroidism", "I take allopurinol for gout": what a drug is taken for.
_ON_DRUG = (r"\b(?i:i)(?i:'m| am|'ve been| have been)? " + ADV + r"(?i:on|taking|take|prescribed|started on|put on) "
            r"[A-Za-z][\w-]{2,25}(?: \d{1,4} ?mg)? (?i:for|to treat|to control|to manage) ")

# "I tutor SAT math after school": the subject tutored names the tutor (not "I tutor kids").
_NOT_TUTORED = {"kids", "children", "students", "adults", "teens", "teenagers", "people", "online", "part-time",
                "them", "him", "her", "my", "on", "at", "in", "for", "a", "some"}
_TUTORED = (r"\b(?i:i) " + ADV + r"(?i:tutor) ((?:[A-Z]{2,5} )?(?:[A-Z][a-z]{2,15}|[a-z]{3,15}|[A-Z]{2,5}))"
            r"(?=\s*$|\s*[,.;!?]| (?:on|at|in|for|after|to|online|part-time|twice|every|most|and|as)\b)")


def _tutor(value: str) -> str | None:
    return None if value.lower().split()[0] in _NOT_TUTORED else f"{value} tutor"


# "planning to retire from IBM in three years": the employer of a retirement still to come.
_RETIRE_FROM = (r"(?:^|\b(?i:i)(?i:'m| am)? |\b(?i:and) )" + ADV + r"(?i:planning|hoping|going|about|due|set|aiming|"
                r"looking|want|plan|hope|intend|expect|trying) (?i:to retire from) " + ORG)
# "rent is 2100 for a one-bed in Jersey City": a home by the rent paid for it (not "rents are…", a market).
_RENT_FOR = (r"^(?i:(?:my |our )?rent(?:'s| is)) (?i:(?:like|about|around|only|just|now) )?\$?\d[\d,.]*k?"
             r"(?i: (?:a|per) month|/mo| monthly)? (?i:for) (?i:a|an|my|our|the) [\w-]+(?: [\w-]+)? (?i:in) " + PLACE
             + r"(?![\w'])")
# "languages: English, Tagalog at home": a header, then the languages, each a word with a capital (a dash
# after the header is read as an aside's comma).
# The list ends where a language only partly known starts: "(learning)", "and some Italian", "and I'm learning…".
_LANGUAGES = (r"^(?i:languages?(?: (?:spoken|i speak|i know))?)\s*[:：,-]\s*([^.;!?\n(]{2,120}?)"
              r"(?=\s*(?:$|[.;!?(])|,? (?:and )?(?i:i'm|i am|i|some|a little|basic|rusty)\b)")
_LANGUAGE_ITEM = re.compile(r"(" + UPPER + r"[a-z]{2,15})(?: (?:at home|at work|natively|fluently|native|fluent|"
                            r"\((?:native|fluent)\)))?")
# A language of the list said with how little of it is known: "German (learning)", "Korean (basic)".
LISTED = "listed"
_PARTLY = r"\s*[(\n-]\s*(?:learning|still learning|beginner|basic|a little|some|rusty|studying)\b"


def _language(value: str) -> str | None:
    item = _LANGUAGE_ITEM.fullmatch(value.strip())
    return item.group(1) if item else None


RULES_EN: list[Rule] = [
    Rule(re.compile(_I_HAVE + ILLNESS), P.HAS_CONDITION, value=_illness),
    Rule(re.compile(_ON_DRUG + r"(?i:(" + CONDITIONS + r"))\b"), P.HAS_CONDITION),
    Rule(re.compile(_ON_DRUG + ILLNESS), P.HAS_CONDITION, value=_illness),
    Rule(re.compile(_TUTORED), P.WORKS_AS, value=_tutor),
    Rule(re.compile(_RETIRE_FROM), P.WORKS_AT, value=_employer),
    Rule(re.compile(_RENT_FOR), P.LIVES_IN),
    Rule(re.compile(_LANGUAGES), P.MASTERS, lists=True, value=_language, tags=(LISTED,)),
]

# -- Chinese ---------------------------------------------------------------------------------------------

# An illness by the character medicine ends its names with: 炎 (腱鞘炎), 症 (干眼症), 病, 癌, 综合征, 瘤,
# 疹 (带状疱疹), 障 (白内障), 风湿; 青光眼 by name.
# (How bad or how long it is, said before the name, is no part of it: "慢性胃炎" is 胃炎.)
_ZH_ILLNESS = (r"(?:慢性|急性|轻度|中度|重度|轻微的?|严重的?)?((?:(?![有了得是个点些])[\u4e00-\u9fff]){1,6}?"
               r"(?:炎|症|病|癌|综合征|瘤|结石|疹|障|风湿)|青光眼)")
# Words of that shape that say how the user is, not what they suffer from: "拖延症", "懒癌", "公主病".
_NOT_ZH_ILLNESSES = re.compile(r"(?:拖延症|懒癌|尴尬癌|直男癌|晚期癌|公主病|中二病|少爷病|富贵病|选择困难症|强迫症|"
                               r"毛病|通病|职业病|懒病)$|^(?:什么|啥|这个|那个|这种|那种|这|那)")


def _zh_illness(value: str) -> str | None:
    return None if _NOT_ZH_ILLNESSES.search(value) else value


_ZH_HAS = r"我" + ZH_ADV + r"(?:有|得了|患有|患了|患上了?|查出了?(?:有)?|查出来(?:有|是)?|确诊了?|被诊断(?:为|出)?)"
# A field of work by the word it ends with ("室内设计", "电商运营"), or a department by its initials.
# (Not a service the user may be buying or a task under way: "我在做装修", "我在做测试".)
_FIELD = (r"((?:HR|HRBP|IT|PR|QA|BD)|(?:UI|UX|[\u4e00-\u9fff]{0,4}?)(?:设计|销售|运营|策划|人事|财务|会计|审计|行政|"
          r"客服|编辑|翻译|开发|采购|物流|外贸|电商|保险|法务|营销|物业|猎头))")
# The pay said right after the trade: "当质检员一个月六千".
_PAY = r"(?=一个月|每个月|每月|月薪|工资|一年|年薪|一天)"
# How long the user has worked somewhere: "干了十几年", "干了半辈子", "工作了六年".
_SO_LONG = (r"(?:干|工作|上班)了(?:快|差不多|将近|整整)?(?:一辈子|半辈子|好几年|好多年|很多年|多年|\d{1,2}多?年|"
            r"[一二两三四五六七八九十几]{1,3}多?年)")
# Where, or what kind of place, not who: "在这边", "在外企", "在医院" (a bare kind: a name is no two-character
# word ending like "医院", "银行", "药企").
_NOT_EMPLOYERS_ZH = re.compile(r"(?:这边|那边|这里|那里|这儿|那儿|外地|老家|家里|家|工地|部队|农村|城里|国内|国外)$"
                               r"|^(?:外企|国企|私企|央企|民企|大厂|小厂|事业单位)$"
                               r"|^[\u4e00-\u9fff][院校行厂店馆司企所局]$")
# Work left, said anywhere in the message: "今天正式离职了！在腾讯干了六年" is no employer now.
SO_LONG = "so_long"
_LEFT = re.compile(r"离职|辞职|被裁|裁员|被开除|被炒|退休了|已经退休|退了休|不干了|跳槽|离开了|走人了|"
                   r"没了工作|失业")


def _zh_employer(value: str) -> str | None:
    value = _workplace(value) or ""
    return None if not value or _NOT_EMPLOYERS_ZH.search(value) else value


def still_there(found: list, content: str) -> list:
    """An employer known by how long the user worked there stands only when the message does not say the
    work was left; a language of a list, only when it is not said to be only partly known (an aside the
    clause no longer shows). The tags are the rules' own and are dropped."""
    left = bool(_LEFT.search(content))

    def kept(obj: str, tags: tuple[str, ...]) -> bool:
        if SO_LONG in tags:
            return not left
        return LISTED not in tags or not re.search(re.escape(obj) + _PARTLY, content, re.I)

    return [(p, o, e, tuple(x for x in t if x not in (SO_LONG, LISTED))) for p, o, e, t in found if kept(o, t)]


def _rider(value: str) -> str:
    return value + "员"


RULES_ZH: list[Rule] = [
    Rule(re.compile(_ZH_HAS + _ZH_ILLNESS + ZH_END), P.HAS_CONDITION, value=_zh_illness),
    # "我血压高", "我血糖一直偏高": a reading said high is the illness named by it
    Rule(re.compile(r"我" + ZH_ADV + r"的?(血压|血糖|血脂|尿酸)(?:一直|比较|很|也|还|都)*高(?!兴|铁|中|考)"),
         P.HAS_CONDITION, value=lambda v: "高" + v),
    # "我在一家装修公司做室内设计", "我是搞销售的": a field of work
    Rule(re.compile(r"我" + ZH_ADV + r"(?:是)?(?:在[^，。,.]{1,10}?)?(?:做|搞|干)" + _FIELD
                    + r"(?:的|工作|这行|这一行)?" + ZH_END), P.WORKS_AS),
    Rule(re.compile(r"我" + ZH_ADV + r"(?:是)?在" + _WHERE + r"(?:做|搞|干)" + _FIELD + r"(?:的|工作|这行|这一行)?"
                    + ZH_END), P.WORKS_AT, value=_zh_employer),
    # "我在武汉跑外卖": delivery work names the rider
    Rule(re.compile(r"我" + ZH_ADV + r"(?:是)?(?:在[^，。,.]{1,10}?)?(?:跑|送)(外卖|快递)(?:的)?" + ZH_END), P.WORKS_AS,
         value=_rider),
    Rule(re.compile(r"我" + ZH_ADV + r"(?:在[^，。,.]{1,10}?)?(?:当|做|干)(?:一名|一个|个)?" + _TRADE + _PAY),
         P.WORKS_AS, value=_trade),
    # "我只是个小会计": a trade said with modesty ("只是", "小")
    Rule(re.compile(r"我(?:只|就|也|还|不过)+是(?:一个|一名|个)?(小" + _TRADE[1:].replace("{1,5}?", "{0,4}?")
                    + ZH_END), P.WORKS_AS, value=_trade),
    # "我在中国移动干了十几年": an employer by how long the user has worked there
    Rule(re.compile(r"我" + ZH_ADV + r"在" + _WHERE + _SO_LONG), P.WORKS_AT, value=_zh_employer,
         tags=(SO_LONG,)),
    # "过敏的东西有：花生、芒果", "过敏原：尘螨、花粉": allergens said as a header
    Rule(re.compile(r"^(?:我的?)?过敏(?:的东西|原|源)(?:有|是)?\s*[：:]?\s*" + ZH_LIST + ZH_END), P.ALLERGIC_TO,
         lists=True),
    # "俺家小子叫石头": a son by the word of the north
    Rule(re.compile(r"我(?:家)?(?:的)?(?:大|二|小)?小子(?:叫|名叫)([\u4e00-\u9fff]{1,3}|[A-Za-z]{2,20})" + ZH_END),
         P.HAS_CHILD),
]


# "俺有俩娃，大的叫朵朵小的叫豆包", "家里两个孩子，大的叫安安，小的叫宁宁": children counted, then named by
# which is the elder (read across the comma that splits the clauses).
_CHILDREN_NAMED = re.compile(r"(?:^|[，,。！!\s])(?:我|我家|家里)(?:有|也有)?(?:俩|两个|三个|2个|3个)"
                             r"(?:娃|孩子|小孩|宝宝|儿子|女儿|闺女)[，,：:]?\s*(?:大的|老大)(?:叫|名叫)([\u4e00-\u9fff]{2,3}?|[A-Za-z]{2,20})[，,、]?\s*"
                             r"(?:小的|老二|老小)(?:叫|名叫)([\u4e00-\u9fff]{2,3}?|[A-Za-z]{2,20})(?=$|[，,。！!？?\s])")


def children_named(content: str) -> list:
    """Each child of "two children, the elder X, the younger Y" said by the user."""
    return [(P.HAS_CHILD, name, False, ()) for match in _CHILDREN_NAMED.finditer(content) for name in match.groups()]
