"""Chinese rules for how everyday chat says a fact: where the user is, said bare ("我在成都", "现在还在
兰州"), a move or a job change said from where ("从北京搬到成都", "从腾讯跳到了网易"), a home shared or
not ("一个人住在杭州", "跟室友住在深圳"), a job said the internet's way ("程序员一枚"), two pets named one
by one ("两只狗，一只叫豆豆，一只叫球球"), and the names a user goes by ("英文名叫Kevin", "小名叫妞妞").
Same subjects as ``rules_zh``: the clause opens on "我" ("我朋友从北京搬到了大理" is the friend's)."""

from __future__ import annotations

import re

from ..model import Predicate as P
from .rules import HERE_NOW, Rule
from .rules_zh import _PET, _PLACES, _WHERE, ADV, END, OBJ, OCCUPATIONS, _workplace

# -- where the user is -------------------------------------------------------------------------------------

# "我在成都", "我现在还在兰州", "我目前在杭州": the clause is where the user is and nothing else (not
# "我在上海出差", "我在北京转机": a place with what is done there is a visit).
_HERE = r"(?:现在|目前|还|暂时|也|一直|常年|长期|人)*"
_BARE_PLACE = r"((?:" + _PLACES + r")|[\u4e00-\u9fff]{2,3}?市)"
# "从北京搬到成都", "从上海搬到了厦门": where from, then where to
_FROM = r"从[^，。！？,.!?\s]{1,12}?"
# where to: a place ends at what is said of it ("搬到珠海的第一天")
_TO = r"([^，。！？,.!?\s的在]{1,12}?)(?=的|了|$|[，。；！？,.;!?\s]|因为|所以|但是|但|而且)"
# Not a place: "住在一起", "住在附近"
_NOT_HOMES = re.compile(r"^(?:一起|一块儿?|附近|隔壁|楼上|楼下|对门|对面|这|那|外面|宿舍|家里|家|学校|老家|另)|家$")


def _new_workplace(value: str) -> str | None:
    """"从市场部跳到了另一个部门" is a move inside the company, not to a new one."""
    return None if re.search(r"^另|部门$|部$|组$|团队$|岗位?$|项目$", value) else _workplace(value)


def _home(value: str) -> str | None:
    return None if _NOT_HOMES.match(value) else value


# -- a self said the internet's way ------------------------------------------------------------------------

# "本人设计师一枚", "90后程序员一枚", "我是护士一枚" (not "我老公程序员一枚")
_ONE_OF = (r"^(?:我(?:是)?)?(?!老公|老婆|对象|男朋友|女朋友|朋友|同事)(?:(?:\d{2}|[零〇一二三四五六七八九]{2})后的?)?"
           r"((?:(?![是的他她你我朋妈爸哥姐弟妹儿女同])[\u4e00-\u9fff]){0,4}?(?:" + OCCUPATIONS + r"))一枚")

# -- names -------------------------------------------------------------------------------------------------

_NAME = r"([\u4e00-\u9fff]{2,4}?|[A-Za-z\u00c0-\u024f][A-Za-z\u00c0-\u024f'-]{1,20})"
_NAMES = r"(?:英文名|中文名|大名|全名|本名|真名)(?:字)?"
# A pet name a family calls the user by ("小名叫妞妞") is their name only when no other is said with it.
NICKNAME = "nickname"

# -- two pets named one by one ---------------------------------------------------------------------------

_PET_NAME = r"([\u4e00-\u9fff]{1,4}?|[A-Za-z]{2,20})"
_PET_NAMES = r"(?:[\u4e00-\u9fff]{1,4}?|[A-Za-z]{2,20})(?:(?:和|、)(?:[\u4e00-\u9fff]{1,4}?|[A-Za-z]{2,20})){1,3}"
_ONE_BY_ONE = re.compile(r"((?:两|俩|三|几)(?:只|条|个|头)?" + _PET + r")[，,]?\s*(?:有)?一(?:只|个|条|头)(?:叫|名叫)"
                         + _PET_NAME + r"[，,]?\s*(?:另一|另外一|一)(?:只|个|条|头)(?:叫|名叫)" + _PET_NAME
                         + r"(?=$|[，,。！!.；;\s])")


def as_said(text: str) -> str:
    """"两只狗，一只叫豆豆，一只叫球球" said as "两只狗，分别叫豆豆和球球", the way the rules read a list of names."""
    return _ONE_BY_ONE.sub(lambda m: f"{m.group(1)}，分别叫{m.group(3)}和{m.group(4)}", text)


RULES: list[Rule] = [
    Rule(re.compile(r"^我" + _HERE + r"在" + _BARE_PLACE + r"(?:了|呢)?$"), P.LIVES_IN, tags=(HERE_NOW,)),
    Rule(re.compile(r"我(?:们|们家|家)?" + ADV + _FROM + r"(?:搬到了?|搬去了?|搬回了?|搬来了?|搬家到了?)" + _TO),
         P.LIVES_IN, value=_home),
    Rule(re.compile(r"我" + ADV + _FROM + r"(?:跳槽到|跳槽去|跳到|跳去|换到|转到)了?" + _WHERE
                    + r"(?:公司)?(?:了|(?=当|做|$|[，。！!.]))"), P.WORKS_AT, value=_new_workplace),
    # "我现在一个人住在苏州", "我跟室友住在深圳" (where with whom is "住在一起", no place)
    Rule(re.compile(r"我(?:们)?" + ADV + r"(?:一个人|自己|独自|单独|(?:和|跟|与)[^，。！？,.!?\s住]{1,8}?)(?:一起)?"
                    r"(?:住在|生活在|合租在|租房住在)" + OBJ + END), P.LIVES_IN, value=_home),
    Rule(re.compile(_ONE_OF), P.WORKS_AS),
    Rule(re.compile(r"我的?" + _NAMES + r"(?:叫|是)" + _NAME + END), P.HAS_NAME),
    Rule(re.compile(r"我的?(?:小名|乳名)(?:叫|是)" + _NAME + END), P.HAS_NAME, tags=(NICKNAME,)),
    Rule(re.compile(r"我(?:家|们家|的)?" + ADV + r"(?:养了|养着|有)?(?:两|俩|三|几)(?:只|条|个|头)?" + _PET
                    + r"[，,]?(?:分别)?(?:叫|名叫)(" + _PET_NAMES + r")" + END), P.HAS_PET, 2, lists=True,
         kind_group=1),
]
