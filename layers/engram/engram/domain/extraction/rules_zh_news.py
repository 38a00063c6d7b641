"""Chinese facts said as news or in passing: a change of life told as what happened ("转到软件工程专业了",
"以后就是厦门人了", "自己当老板"), a self-introduction in fragments ("作为一个痛风患者", "我乳糖不耐",
"浙江大学神经科学专业的博士生", "退休建筑师欧阳明", a letter's signature), kin and pets named by the
way ("接我儿子豆豆放学", "第二只狗，叫橙子"), a taste said sideways ("恐怖片我是坚决不看的", "全靠爵士乐续命");
and what such news replaces (``replaced``: the major switched from, the pastime stopped)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..model import Extraction
from ..model import Predicate as P
from .dates import age
from .rules import Rule
from .rules_zh import (
    _AFTER_SUBJECT,
    _KIN,
    _PET,
    _SURNAMES,
    _WHERE,
    ADV,
    CONDITIONS,
    END,
    OBJ,
    OCCUPATIONS,
    PROVINCE_CITY,
    YEARS,
    _apposed,
    _workplace,
)
from .rules_zh_everyday import _home

# Who a clause is about when it is not the user: a third person or one of the user's people.
_SOMEONE = r"他|她|你|们|妈|爸|哥|姐|弟|妹|老公|老婆|儿子|女儿|孩子|朋友|同事|同学|室友|邻居|爱人|对象"
# The head of a clause whose subject is the user or dropped (a time, a reason before the verb): "我",
# or the clause's start with no one else named on the way.
_MINE = r"(?:^|我)(?:(?!" + _SOMEONE + r")[^，。！？,.!?]){0,10}?"

_SURNAME = "[" + "".join(sorted(_SURNAMES)) + "]"
# A full name: a surname of two characters ("欧阳晓峰") or one, then one or two more.
_COMPOUND = r"(?:欧阳|司马|上官|诸葛|东方|慕容|夏侯|皇甫|令狐|公孙|端木|尉迟|长孙|宇文|司徒|司空|独孤|南宫)"
_FULL = _COMPOUND + r"[\u4e00-\u9fff]{1,2}?|" + _SURNAME + r"[\u4e00-\u9fff]{1,2}?"
# A name as kin are called by it: a full name, 小/老/阿 and one, or a doubled syllable ("豆豆").
def _called(group: int) -> str:
    """The name shape, its doubled syllable captured as group ``group`` of the rule."""
    return r"(?:" + _FULL + r"|[小老阿][\u4e00-\u9fff]|([\u4e00-\u9fff])" + "\\" + str(group) + ")"


# Where a name said after who it names ends: what follows a subject, or the clause's end.
_NAME_END = (r"(?=" + _AFTER_SUBJECT + r"|打算|一起|住|去|来|放学|上学|毕业|幼儿园|上幼儿园|开|满|过|$|[，,。！!])")
# A doubled syllable ("豆豆", "朵朵") is a child's or a pet's name, whatever follows it; not a doubled
# adverb ("我儿子天天哭") or a kin word ("我妹妹").
_DOUBLED = (r"(?!天天|常常|刚刚|慢慢|好好|渐渐|偷偷|悄悄|默默|乖乖|早早|白白|每每|年年|时时|处处|久久|明明|仅仅|"
            r"稍稍|轻轻|统统|往往|匆匆|紧紧|静静|暗暗|妈妈|爸爸|哥哥|姐姐|弟弟|妹妹|宝宝|奶奶|爷爷|姥姥|舅舅|叔叔|"
            r"姑姑|婶婶|伯伯|公公|婆婆|天天|人人|个个|样样)(([\u4e00-\u9fff])\3)")
_OFFSPRING = r"(儿子|女儿|闺女|孩子|宝宝|大宝|二宝|老大|老二)"
_TITLE = r"(?:教授|老师|博士|医生|经理|主任|总监|律师|师傅|总)"
# A job by its list name or by the character that makes a word a trade, with what qualifies it before
# ("退休建筑师", "护士长", "高级分析师").
JOB = (r"((?:(?![的在和是])[\u4e00-\u9fff]){0,4}?(?:" + OCCUPATIONS
       + r"|护士长|[\u4e00-\u9fff](?:师|员|工|医|官|匠|长)))")
# An illness said as what the user is ("我乳糖不耐", "我贫血").
_CONDITION = r"(" + CONDITIONS + r"|乳糖不耐|低血压|贫血)"
# The subjects taught at a school: "在高中教化学" is a chemistry teacher.
_TAUGHT = r"(语文|数学|英语|物理|化学|生物|历史|地理|政治|音乐|美术|体育|科学|信息技术|日语|法语|德语|俄语)"
# Software work said by its field ("做后端开发"): the job as said.
_DEV = r"((?:前端|后端|全栈|客户端|服务端|移动端|安卓|iOS|嵌入式|游戏|软件|算法|数据|大数据|Java|Python|[Ww]eb)?开发)"
_STUDENT = r"[\u4e00-\u9fff]{0,8}?(?:学生|研究生|博士生|硕士生|本科生|大学生|博士|硕士)"
_SCHOOL_FIELD = r"我" + ADV + r"是([\u4e00-\u9fff]{2,10}?(?:大学|学院|学校))([\u4e00-\u9fff]{2,8}?)专业的" + _STUDENT
# (a name ends on no trade's character: "软件工程师" is no "软件工" named "程师")
_JOB_NAME = r"^我是(?:一名|一个|一位)?" + JOB + r"(" + _FULL + r")(?<![师员工医官匠长家者士理总生人])(?=$|[，,。！!])"
_SPOUSE = r"(?:老伴|老公|老婆|爱人|媳妇|丈夫|妻子|太太|先生|男朋友|女朋友|对象)"
_WHEN = r"(?:周末|今天|明天|后天|下周|这周|今晚|过年|国庆|五一)?"
_WITH_SPOUSE = r"我" + _WHEN + ADV + r"(?:和|跟|与|陪|带)(?:我的?)?" + _SPOUSE + r"(" + _called(2) + r")" + _NAME_END

# Going to a workplace as the user does now: no one else, no wish, plan or time to come on the way.
_GOES = (r"(?:^|我)(?:(?!" + _SOMEONE + r"|想|要|打算|准备|希望|如果|要是|可以|能|会|明天|后天|下周|下个|以后|将来)"
         r"[^，。！？,.!?]){0,12}?去" + _WHERE)
_NEW_JOB = r"(" + JOB + r"|(?:(?![的在和是])[\u4e00-\u9fff]){0,4}?(?:前端|后端|开发|测试|运营|设计|销售))"

RULES: list[Rule] = [
    # -- news of a change ------------------------------------------------------------------------------
    # "这学期转到软件工程专业了", "大二转去了计算机专业": the field the user studies now
    Rule(re.compile(_MINE + r"(?:转到|转去|转入|转进|换到|换成)了?([\u4e00-\u9fff]{2,8}?)专业"), P.STUDIED),
    # "以后就是厦门人了", "从此我也算半个杭州人了": a home become, not where the user is from
    Rule(re.compile(r"(?:我" + ADV + r"(?:以后|从此|今后|往后|从今往后)(?:我)?|(?:以后|从此|今后|往后)我)"
                    r"(?:就|也)?(?:算)?"
                    r"是(?:半个|正式的?)?([\u4e00-\u9fff]{2,6}?)人了"), P.LIVES_IN),
    # "上个月搬了家，现在住宁波了": where the user lives now, said as news (the subject dropped)
    Rule(re.compile(r"(?:^|我)(?:们|们家)?" + ADV + r"(?:现在|目前|如今)(?:就|也)?住(?:在|到)?" + OBJ
                    + r"(?:了)" + END), P.LIVES_IN, value=_home),
    # "搬回宜昌老家了": the hometown moved back to is where the user lives, and where they are from
    Rule(re.compile(_MINE + r"(?:搬回|搬回了|回到了?)([\u4e00-\u9fff]{2,6}?)老家"), P.COMES_FROM),
    # "上周去华为报到了": a first day gone by, the subject dropped from news (not "下个月去宁德报到")
    Rule(re.compile(r"^(?:上(?:周|个?星期|个?礼拜)[一二三四五六日天]?|上个?月|[昨前今]天|已经|刚)?(?:去|到)" + _WHERE
                    + r"(?:报到|报道|入职)了"), P.WORKS_AT, value=_workplace),
    # "自己当老板", "现在自己做老板": running one's own business
    Rule(re.compile(r"我" + ADV + r"自己(?:当|做)(?:了)?(老板娘?|店主|掌柜)" + END), P.WORKS_AS),
    # -- a self-introduction in fragments -----------------------------------------------------------------
    # "作为一个痛风患者", "身为糖尿病人", "我是哮喘患者": the illness of who the user is
    Rule(re.compile(r"(?:^|我)(?:作为|身为|是)(?:一个|一名|一位|个|名)?(?:老|资深)?([\u4e00-\u9fff]{2,8}?)"
                    r"(?:患者|病人|病友)(?!的)"), P.HAS_CONDITION),
    Rule(re.compile(r"我" + ADV + r"(?:有点|有些)?" + _CONDITION + r"(?!的|药)"), P.HAS_CONDITION),
    # "我现在26了", "我今年都33了还没对象": an age reached, said with "了" and no unit
    Rule(re.compile(r"我(?:现在|已经|都|也|才|今年)+(\d{1,3}|[一二两三四五六七八九十]{1,3})了"), P.HAS_AGE, value=age),
    # "我是浙江大学神经科学专业的博士二年级学生": the school, then the field
    Rule(re.compile(_SCHOOL_FIELD), P.STUDIED_AT),
    Rule(re.compile(_SCHOOL_FIELD), P.STUDIED, 2),
    # "我是退休建筑师欧阳明", "我是护士长李芳芳": a job, then the name of who holds it
    Rule(re.compile(_JOB_NAME), P.WORKS_AS),
    Rule(re.compile(_JOB_NAME), P.HAS_NAME, 2),
    # "在杭州一家银行做后端开发": software work by its field
    Rule(re.compile(r"我" + ADV + r"(?:在[^，。,.]{1,12}?)?(?:做|搞|干)" + _DEV + END), P.WORKS_AS),
    # "本人在县城高中教化学": who teaches a subject is its teacher (not "教语文的", said beside a job)
    Rule(re.compile(r"我" + ADV + r"(?:在[^，。,.]{1,12}?)?教" + _TAUGHT + r"(?:课)?(?!的)" + END), P.WORKS_AS,
         value=lambda v: v + "老师"),
    # "我老家是湖南邵阳的", "老家在江苏盐城": the city, not its province (``script.city_of`` keeps the city)
    Rule(re.compile(r"(?:^|我的?)(?:(?!" + _SOMEONE + r"|的)[^，。！？,.!?]){0,8}?(?:老家|家乡|故乡)(?:是|在)?(?="
                    + PROVINCE_CITY + r")([\u4e00-\u9fff]{4,7}?)(?:的|人)?(?=$|[，。！？,.!?])"), P.COMES_FROM),
    # "我每天开车四十分钟去比亚迪上班", "上个月刚去美团当产品经理": where the user goes to work now
    # (not a wish or a plan: "想去华为上班", "下周去…")
    Rule(re.compile(_GOES + r"(?:上班|工作|实习)" + END), P.WORKS_AT, value=_workplace),
    Rule(re.compile(_GOES + r"(?:当|做)" + YEARS + _NEW_JOB + END), P.WORKS_AT, value=_workplace),
    Rule(re.compile(_GOES + r"(?:当|做)" + YEARS + _NEW_JOB + END), P.WORKS_AS, 2),
    # "在昆明教小学三年级": who teaches a school's grade is that school's teacher
    Rule(re.compile(r"我" + ADV + r"(?:在[^，。,.]{1,12}?)?教(小学|初中|高中|中学)"
                    r"(?:[一二三四五六初高]年级|的?(?:孩子|学生))?" + END), P.WORKS_AS, value=lambda v: v + "老师"),
    # -- a taste said sideways -----------------------------------------------------------------------
    # "报税季全靠爵士乐续命": what keeps the user going
    Rule(re.compile(_MINE + r"(?:全|都|就|只能|主要|每天)?靠" + OBJ + r"(?:续命|回血|充电|撑着|活着)"),
         P.HAS_PREFERENCE),
    # "恐怖片我是坚决不看的", "广场舞我从来不跳": the thing first, then the user's refusal of it
    Rule(re.compile(r"^(?![我你他她它这那])" + OBJ + r"我(?:是)?" + ADV + r"(?:从不|(?:坚决|绝对|从来|打死也|死也|"
                    r"一口都|一口也|一点都|根本|向来|一般)(?:都|也)?(?:不|不会))(?:看|吃|喝|听|碰|玩|跳|唱|去|用|买|穿)"
                    r"(?:的)?" + END), P.DISLIKES),
    # "火锅我每周都吃": the thing first, then how often the user has it
    Rule(re.compile(r"^(?![我你他她它这那])" + OBJ + r"我" + ADV
                    + r"(?:每天|天天|顿顿|每周|每个星期|隔三差五|经常|常常)"
                    r"(?:都|也|要|必)*(?:吃|喝|看|听)" + END), P.HAS_PREFERENCE),
    # -- kin named by the way ---------------------------------------------------------------------------
    # "和老伴刘芳住在青岛", "我跟老公阿强打算去露营": the partner named, and where the two live
    Rule(re.compile(_WITH_SPOUSE), P.HAS_SPOUSE),
    Rule(re.compile(_WITH_SPOUSE + ADV + r"(?:一起)?(?:住在|生活在|定居在)" + OBJ + END), P.LIVES_IN, 3),
    # "接我儿子豆豆放学", "女儿朵朵幼儿园毕业典礼" (a kin word opening the clause is the user's)
    Rule(re.compile(r"我的?" + _OFFSPRING + _DOUBLED), None, 2, relation_group=1),
    # "我陪女儿笑笑练琴", "儿子乐乐要开家长会": a name of any shape after who it names, then what follows a subject
    Rule(re.compile(r"(?:我的?|我" + _WHEN + ADV + r"(?:和|跟|陪|带|接|送)(?:我的?)?)" + _OFFSPRING
                    + r"(" + _called(3) + r")" + _NAME_END),
         None, 2, relation_group=1),
    # "帮我想几道菜，老婆陈静怀孕了", "帮我给儿子浩浩挑个礼物": a partner or child named at a clause's start
    # (the clause after a request) or as whom the user does something for
    Rule(re.compile(r"(?:^|我" + _WHEN + ADV + r"(?:给|替|为)(?:我的?)?)(" + _SPOUSE[3:-1] + "|" + _OFFSPRING[1:-1]
                    + r")(" + _called(3) + r")(?:" + _NAME_END + r"|(?=吃|喝|怀孕|挑|写|买|做|选|准备|订))"),
         None, 2, relation_group=1, value=_apposed),
    # "我的导师陈立群教授", "我的主管王丽经理": a full name and the title after it
    Rule(re.compile(r"我的?" + _KIN + r"(" + _FULL + r")" + _TITLE), None, 2, relation_group=1),
    # "刚领养了第二只狗，叫橙子", "又收养了一只猫，取名叫年糕", "捡了只流浪猫，叫煤球"
    Rule(re.compile(r"我(?:家|们家)?" + ADV + r"(?:领养了|收养了|养了|捡了|捡回了?|抱回了?|买了|新添了|添了)"
                    r"(?:第[一二三四五六七八九十\d]|一|两)?(?:只|条|匹)?(?:[\u4e00-\u9fff]{0,3}?)" + _PET
                    + r"[，,]?(?:它)?(?:取名叫|起名叫|取名|叫它|叫|名叫|名字叫)([\u4e00-\u9fff]{1,4}?|[A-Za-z]{2,20})"
                    + END), P.HAS_PET, 2, kind_group=1),
]


# "就不跑了", "早就不钓了": a pastime stopped, named by its verb alone (not "受不了", "不行了").
_STOPPED_VERB = re.compile(r"(?:^|我|就|都|也|再|早|已经|后来|现在)(?:再)?不([\u4e00-\u9fff])了(?=$|[，。！!,.])")
_NOT_PASTIME_VERBS = set("了行好对用会能要想是在去来")
# "转到X专业", "转专业了", "换了专业": the field studied before is studied no more
_SWITCHED_MAJOR = re.compile(r"转(?:到|去|入|进|了)?[^，。！？]{0,8}专业|换了?专业")
_SOMEONE_HERE = re.compile(_SOMEONE)


def replaced(clause: str, previous: Sequence[Extraction]) -> list[tuple[P, str]]:
    """What an earlier turn said that this clause's news replaces: the major before a switch, the
    pastime whose verb the user stopped ("我的爱好是跑步" ... "就不跑了")."""
    if _SOMEONE_HERE.search(clause):
        return []
    earlier = [f for f in previous if f.is_fact and f.object and "ended" not in f.tags]
    if _SWITCHED_MAJOR.search(clause):
        return [(f.predicate, f.object) for f in earlier if f.predicate is P.STUDIED and f.object not in clause]
    if (stopped := _STOPPED_VERB.search(clause)) and stopped.group(1) not in _NOT_PASTIME_VERBS:
        verb = stopped.group(1)
        return [(f.predicate, f.object) for f in earlier if f.predicate in (P.HAS_HOBBY, P.HAS_PREFERENCE)
                and re.sub(r"^(?:去|打|玩|练)(?=..)", "", f.object).startswith(verb)]
    return []


# -- a letter signed -----------------------------------------------------------------------------------

# "此致敬礼！平安保险 高级分析师 欧阳晓峰", "祝好\n顺丰速运 区域经理 林海涛": after a formal closing, the
# writer's company, title and name, spaced apart in any order.
_CLOSING = r"(?:此致\s*敬礼|此致|祝好|顺祝商祺|顺颂商祺|祝工作顺利|敬上|谨上)"
_SIGNED = re.compile(_CLOSING + r"[！!，,。.\s]*((?:[\u4e00-\u9fffA-Za-z]{2,20}[ \t\u3000\n，,]+){0,2}"
                     r"[\u4e00-\u9fffA-Za-z]{2,20})[。.!！]?\s*$")
_TITLED = re.compile(JOB + r"$")


def as_signed(text: str) -> str:
    """The message with what its Chinese signature says said as sentences after it."""
    match = _SIGNED.search(text)
    if match is None:
        return text
    parts = re.split(r"[ \t\u3000\n，,]+", match.group(1).strip())
    names = [p for p in parts if re.fullmatch(_FULL, p) and not _TITLED.match(p)]
    if len(names) != 1:
        return text
    said = [f"我叫{names[0]}。"]
    titles = [p for p in parts if p not in names and _TITLED.match(p)]
    said += [f"我是{t}。" for t in titles[:1]]
    said += [f"我在{p}工作。" for p in parts if p not in names and p not in titles][:1]
    return text[: match.start(1)].rstrip() + "\n" + "".join(said)


# "咖啡？天天喝。", "香菜？绝对不吃。": a thing asked of oneself and answered at once, as the topic of the
# answer ("咖啡我天天喝"); not "茶？生病才喝" (only when ill) nor a real question ("你吗？", "真的？").
_ANSWERED = re.compile(r"(^|[。！!？?\s])((?![你他她它这那什谁哪怎真是对好])[\u4e00-\u9fff]{1,6}(?<![吗呢吧啊呀嘛]))"
                       r"[？?]\s*"
                       r"((?:我)?(?:每天|天天|顿顿|每周都|经常|常常|从不|(?:坚决|绝对|从来|打死也|一口都|根本)(?:都|也)?不)"
                       r"(?:都|也|要)?(?:吃|喝|看|听|碰|玩)(?:的)?)(?=$|[。！!.]|\s)")


# "打错了，是38", "写错字了": a slip of the keys put right is a correction as "说错了" is
_MISTYPED = re.compile(r"^\s*(?:(?:啊|哦|噢|呃)[，,]?)?(?:打错|写错|打错字|写错字|输错|记错)了")


def as_said(text: str) -> str:
    """A Chinese letter's signature and a thing asked of oneself, said as the sentences the rules read."""
    text = _MISTYPED.sub("说错了", text)
    return _ANSWERED.sub(lambda m: m.group(1) + m.group(2) + ("" if m.group(3).startswith("我") else "我") + m.group(3),
                         as_signed(text))
