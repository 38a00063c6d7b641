"""Open-class Chinese objects: an occupation known by the character that makes a word a trade
("锁匠", "水管工", "调酒师", "外交官") rather than by a list; kin by any of their names ("我娘",
"我最好的朋友", "我导师周教授"); languages spoken well, a habit the user cannot shake, an employer
that took the user on, a hobby list said as a header, a city worked in by any trade."""

from __future__ import annotations

import re

from ..model import Predicate as P
from .dates import ZH_DATE, calendar_day
from .rules import Rule
from .rules_zh import (
    _LANGUAGE,
    _PLACE,
    _SURNAMES,
    _WHERE,
    ADV,
    CONDITIONS,
    END,
    LIST,
    OBJ,
    OCCUPATIONS,
    _activity,
    _school,
    _workplace,
)

# The characters Chinese makes a trade's name with: 师 (厨师), 员 (快递员), 工 (水管工), 医 (牙医),
# 官 (法官), 匠 (木匠), 家 (作家), 手 (歌手), 者 (记者), 长 (校长).
_TRADE = r"((?:(?!的|在|和)[\u4e00-\u9fff]){1,5}?(?:师|员|工|医|官|匠|家|手|者|长|司机|教练|护士|会计|保安|保姆))"
# Words of that shape that say who the user is, not what they do for a living.
_NOT_TRADES = re.compile(r"(?:会员|成员|党员|团员|队员|学员|新手|高手|老手|能手|帮手|对手|选手|玩家|买家|卖家|大家|"
                         r"老家|人家|自家|东家|娘家|婆家|专家型|家长|学长|兄长|师长|患者|读者|爱好者|追随者|支持者|"
                         r"消费者|使用者|初学者|受害者|幸存者|打工人|过来人|吃货|老师傅的徒弟|独生子|病人|粉丝|"
                         r"素食者|主义者|内向者|外向者|失业者|志愿者|班长|队长|课代表|杀手|铁粉|学渣|学霸|"
                         r"打工者|求职者|创作者|参与者|继承者|旁观者)$"
                         # an amateur, a novice, a former or a future one is no trade now
                         r"|^(?:业余|新手|半个|准|前|退休|未来的?|曾经的?)")


def _trade(value: str) -> str | None:
    value = re.sub(r"^(?:一名|一个|一位|个|名|位)", "", value)
    # "小职员", "小会计": "小" said of oneself is modesty, not part of the trade (not "小学老师")
    value = re.sub(r"^小(?![学儿区组])(?=[\u4e00-\u9fff]{2})", "", value)
    return None if not value or _NOT_TRADES.search(value) else value


# Kin by the names a region or a register gives them, and a friend or mentor with a modifier.
_KIN = (r"(娘|爹|老妈|老爸|妈妈|爸爸|妈|爸|母亲|父亲|老公|老婆|丈夫|妻子|媳妇|爱人|儿子|女儿|闺女|哥哥|姐姐|弟弟|妹妹|"
        r"朋友|好朋友|闺蜜|发小|死党|哥们|导师|博导|同事|领导|老板|经理|上司|哥|姐|弟|妹)")
_KIN_MOD = r"(?:最好的|最要好的|大学的?|高中的?|初中的?|小学的?|研究生的?|博士的?|亲|大|小|二)?"
_TITLE = r"(?:老师|教授|经理|总|医生|主任|博士|律师|师傅|老板|姐|哥)"
_SURNAME = "[" + "".join(sorted(_SURNAMES)) + "]"
_FULL_NAME = r"(" + _SURNAME + r"[\u4e00-\u9fff]{1,2}?|[A-Za-z]{2,20})"
# What a list item may begin with that is no part of it: "还有养花", "以及钓鱼".
_LIST_HEAD = re.compile(r"^(?:还有|以及|和|跟|外加|再就是)")


# "开出租车", "跑滴滴": a vehicle driven for a living names the driver.
_VEHICLE = r"(出租车|出租|滴滴|网约车|货车|大货车|大车|卡车|公交车|公交|校车|救护车)"


def _driver(value: str) -> str:
    return {"出租": "出租车", "公交": "公交车", "大车": "货车"}.get(value, value) + "司机"


def _hobby(value: str) -> str | None:
    value = _LIST_HEAD.sub("", value)
    return _activity(value) if value else None


RULES: list[Rule] = [
    # "5月20号是我生日": the day first, then whose birthday it is
    Rule(re.compile(ZH_DATE + r"(?:就|正好|刚好)?是我(?:的)?生日"), P.HAS_BIRTHDAY, value=calendar_day),
    # "我是一名锁匠", "我是水管工", "我在一家酒吧当调酒师"
    Rule(re.compile(r"我" + ADV + r"是(?:一名|一个|一位|个|名|位)?(?!" + r"(?:" + OCCUPATIONS + r")" + END + r")"
                    + _TRADE + END), P.WORKS_AS, value=_trade),
    Rule(re.compile(r"我" + ADV + r"(?:在[^，。,.]{1,10}?)?(?:当|做|担任|干)(?:一名|一个|个)?" + _TRADE + END),
         P.WORKS_AS, value=_trade),
    # "我娘叫刘桂兰", "我最好的朋友叫张悦", "我大学室友的名字叫…"
    Rule(re.compile(r"我的?" + _KIN_MOD + _KIN + r"(?:的名字)?(?:叫|名叫)" + _FULL_NAME + END), None, 2,
         relation_group=1),
    # "我导师周教授催我…": a surname and a title after who it is, whatever follows
    Rule(re.compile(r"我的?" + _KIN_MOD + _KIN + r"(" + _SURNAME + _TITLE + r")"), None, 2, relation_group=1),
    # "我英语和日语都挺流利的": languages spoken well
    Rule(re.compile(r"我(?:的)?(" + _LANGUAGE + r"(?:(?:和|、|跟)" + _LANGUAGE + r")*)" + ADV
                    + r"(?:说得|讲得)?" + ADV + r"(?:流利|熟练|溜|地道|不错)"), P.MASTERS, lists=True),
    # "我一直搞不定拖延症", "我戒不掉熬夜": a habit or a trouble the user cannot shake
    Rule(re.compile(r"我" + ADV + r"(?:搞不定|戒不掉|改不掉|克服不了|摆脱不了|控制不住|治不好|学不会)" + OBJ + END),
         P.STRUGGLES_WITH),
    # "我被腾讯录用了", "我拿到了字节的offer": an employer that took the user on
    Rule(re.compile(r"我" + ADV + r"被" + _WHERE + r"(?:正式)?(?:录用|聘用|雇用|签下|招进去)了?"), P.WORKS_AT,
         value=_workplace),
    # "业余爱好：书法、钓鱼", "爱好：跑步和摄影": a hobby list said as a header
    Rule(re.compile(r"^(?:我的?)?(?:业余|兴趣|平时的?)?爱好(?:是|有)?[：:]\s*" + LIST + END), P.HAS_HOBBY, lists=True,
         value=_hobby),
    # "本科在武大读的", "研究生是在浙大念的": where a degree was read
    Rule(re.compile(r"我" + ADV + r"(?:本科|研究生|硕士|博士|大学)(?:是)?在" + _WHERE + r"(?:读|上|念)的"),
         P.STUDIED_AT, value=_school),
    # "…，计算机专业": the field said as a fragment after the user's own clause
    Rule(re.compile(r"^我((?:(?![是的在学读])[\u4e00-\u9fff]){2,6}?)专业(?:的)?$"), P.STUDIED),
    # "我有个女儿，今年五岁，叫朵朵": the name after clauses about who it names
    Rule(re.compile(r"^我有(?:一)?(?:个|位)" + _KIN + r"(?:[，,][^，。！？]{1,10}){0,2}[，,](?:她|他)?(?:叫|名叫)"
                    + r"([\u4e00-\u9fff]{2,3}|[A-Za-z]{2,20})" + END), None, 2, relation_group=1),
    # "我在复旦读大三": a student's year names the school
    Rule(re.compile(r"我" + ADV + r"在" + _WHERE
                    + r"(?:读|上|念)(?:大一|大二|大三|大四|研一|研二|研三|博一|博二|博三)"),
         P.STUDIED_AT, value=_school),
    # "自从得了胃炎就…": an illness said as the reason for what follows
    Rule(re.compile(r"(?:^|我)(?:自从|自打|因为)(?:去年|前年|上个?月)?(?:得了|患了|患上了?|查出了?)("
                    + CONDITIONS + r")"), P.HAS_CONDITION),
    Rule(re.compile(r"我" + ADV + r"(?:在[^，。,.]{1,10}?)?(?:开|跑)" + _VEHICLE + r"(?:的)?" + END), P.WORKS_AS,
         value=_driver),
    # "在郑州开出租车", "在成都教书": a city worked in by any trade is where the user lives
    Rule(re.compile(r"我" + ADV + r"在" + _PLACE + r"(?:开|跑|教|卖|摆|送|带)(?=[\u4e00-\u9fff])"), P.LIVES_IN),
]
