"""Chinese rules for what a user tells a tutor, a money coach or a health coach about themself: a home
said by how long the user has been there ("来深圳三年了") or by renting there ("在上海租了个单间"), a field
said with 读的是 or switched to in graduate school ("研究生转了金融"), a dislike said as the thing most hated
("我最讨厌的就是化学"), a school subject the user finds hard ("物理太难了", "数学一直是我的短板"), a pet at home
named ("家里就一只猫，叫团子"), an illness said with how long it has lasted or where it is ("高血压十几年了",
"膝盖有关节炎"), a partner named after the wedding ("跟女朋友领证了，她叫小敏"), a job the user went and took
("居然去做了客服"); and (``as_said``) the self said with stress or in dialect ("我自己是…", "我一个社恐居然…",
"额在西安打工") as the plain "我". Same subjects as ``rules_zh``: the clause opens on "我", or on what
``text.clauses`` gives the user back ("我爸高血压十几年了" is the father's)."""

from __future__ import annotations

import re

from ..model import Predicate as P
from .rules import Rule
from .rules_zh import _CALLED, _HAN_NAME, _PET, _PET_COUNT, _PLACE, ADV, CONDITIONS, END, OBJ, OCCUPATIONS
from .speech import ZH_SUBJECTS

# How long: "三年", "十几年", "一年多", "好多年", "半年"
_SPAN = r"(?:都|已经|也|有|快|差不多)?(?:\d{1,2}|[一二两三四五六七八九十几好多半]{1,3})多?(?:年|个月)多?了?"
_WEDDED = r"(?:领证|结婚|登记|扯证|办酒)"
_PARTNER = r"(?:女朋友|男朋友|对象|未婚妻|未婚夫|女友|男友)"
# Where an illness is: the user's own body
_BODY = r"(?:膝盖|腰|腿|胃|肠胃|心脏|肺|皮肤|关节|颈椎|腰椎|脖子|肩膀|手|脚|眼睛|头|甲状腺|肝|肾)"

RULES: list[Rule] = [
    # "我来深圳三年了", "来北京五年了" (a dropped subject the clause gives back): living there that long
    # (not "来上海出差一个月了": what is done there comes first)
    Rule(re.compile(r"^我" + ADV + r"(?:来|到)(?:了)?" + _PLACE + _SPAN + r"(?=$|[，。！!,.]|了)"), P.LIVES_IN),
    # "我在深圳租房住", "我在上海租了个单间"
    Rule(re.compile(r"我(?:们)?" + ADV + r"在" + _PLACE + r"(?:租房|租了|租的|租着|合租|租个|租一)"), P.LIVES_IN),
    # "我本科读的是日语", "我大学念的是新闻"
    Rule(re.compile(r"我(?:大学|本科|研究生|硕士|博士)?(?:读|念|修)的(?:是|就是)" + OBJ + END), P.STUDIED),
    # "研究生转了金融", "后来读研转到了计算机" (the first degree stays what it was)
    Rule(re.compile(r"(?:^|我)(?:后来|然后|之后)?(?:研究生|读研|硕士|博士)(?:的时候|时)?(?:转了|转到了?|转读了?|改读了?|"
                    r"换成了?)([\u4e00-\u9fff]{2,6}?)(?:专业)?" + END), P.STUDIED),
    # "我最讨厌的就是化学", "我最烦的就是背单词", "我最怕的就是开会"
    Rule(re.compile(r"我" + ADV + r"最(?:讨厌|烦|怕|受不了|反感|恨|头疼)的[\u4e00-\u9fff]{0,4}?(?:就)?是"
                    + OBJ + END), P.DISLIKES),
    # "我物理太难了" (the user given back to "物理太难了"), "数学一直是我的短板"
    Rule(re.compile(r"^我(?:的)?(" + ZH_SUBJECTS + r")" + ADV + r"(?:太|好|超|真|特别|实在|有点|越来越)难"),
         P.STRUGGLES_WITH),
    Rule(re.compile(r"^我?(?![你他她它这那])" + OBJ + ADV + r"是我(?:的|最大的)(?:短板|弱项|弱点|软肋|死穴|硬伤)"),
         P.STRUGGLES_WITH),
    # "家里就一只猫，叫团子", "我家里有一只狗，叫旺财"
    Rule(re.compile(r"(?:^|我)" + ADV + r"(?:家里|们家里)" + ADV + r"(?:就|只|还)?(?:养了|养着|有|养)?"
                    + _PET_COUNT + _PET + r"[，,]?" + _CALLED + r"(" + _HAN_NAME + r")" + END), P.HAS_PET, 2,
         kind_group=1),
    # "我高血压十几年了", "我胃炎好多年了": an illness the user has had that long
    Rule(re.compile(r"^我(?:的)?(" + CONDITIONS + r")" + _SPAN + r"(?=$|[，。！!,.])"), P.HAS_CONDITION),
    # "我膝盖有关节炎"
    Rule(re.compile(r"^我(?:的)?" + _BODY + ADV + r"(?:有|得了|长了)(?:点|些)?(" + CONDITIONS + r")"), P.HAS_CONDITION),
    # "我跟女朋友领证了，她叫小敏": the partner married, named after
    Rule(re.compile(r"我" + ADV + r"(?:跟|和|与)(?:我的?)?" + _PARTNER + ADV + _WEDDED
                    + r"了[，,]?\s*(?:她|他)?(?:叫|名叫|名字叫)(" + _HAN_NAME + r")" + END), P.HAS_SPOUSE),
    # "我居然去做了客服", "去当了销售": a job the user went and took
    Rule(re.compile(r"我" + ADV + r"(?:去|跑去)(?:当|做|干)了(?:一名|一个|个)?(" + OCCUPATIONS + r")" + END),
         P.WORKS_AS),
    Rule(re.compile(r"我" + ADV + r"(?:去|跑去)(?:当|做|干)(?:一名|一个|个)?(" + OCCUPATIONS + r")了" + END),
         P.WORKS_AS),
]

# "我自己是开货车的", "我本人是律师": the self stressed against someone else is the self
_STRESSED = re.compile(r"我(?:自己|本人)(?=是|在|做|当|干|开|也|就|一直|现在|目前|对)")
# "我一个社恐居然去做了客服", "我一个外地人也…": who the user is, said beside "我"
_AS_ONE = re.compile(r"我一个[\u4e00-\u9fff]{1,6}?(?=居然|竟然|却|也|都|还|就)")
# "额在西安打工", "额是开出租的": north-western speech says "我" as "额" (not "额，我也不知道", "额外", "额头")
_E = re.compile(r"(?:^|(?<=[，,。！!？?；;\s]))额(?=们|在|是|今年|也|都|就|想|要|家|从|刚|现在|一直|不|没|"
                r"喜欢|爱|有|对|住|叫|老家|今天|每天|平时)")


def as_said(text: str) -> str:
    """The self said with stress, beside who the user is, or in dialect, as the plain "我"."""
    return _STRESSED.sub("我", _AS_ONE.sub("我", _E.sub("我", text)))
