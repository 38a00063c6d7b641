"""Chinese fact rules. The subject is "我" right before the verb (adverbs and time words may sit
between: "我上个月搬到深圳了"), so "我妹妹对猫过敏" is about the sister, not the user."""

from __future__ import annotations

import re

from ..model import Predicate as P
from ..profile.beliefs import FOOD_TAG
from .dates import NUMERIC_DATE, SPAN, ZH_DATE, age, calendar_day, numeric_day
from .rules import Rule

# Each word once, none made of others: "刚刚" (刚 twice) or "从小就" (从小, 就) read "刚刚…" in 2^n ways.
ADVERBS = (*"""很 非常 特别 最 也 还 挺 超 超级 真的 一直 都 比较 蛮 好 现在 目前 已经 刚 才 最近 平时
              其实 本来就 从小 上个?月 上周 去年 今年 前年 年初 年底 确实 相当 十分 尤其 更 就 又 实在 可 总是
              向来 一向 居然 竟然 终于 突然 早就 正式 整整 后来 然后 白天""".split(),
           r"(?:\d{1,2}|十[一二]?|[一二三四五六七八九])月份")  # "六月份"
ADV = r"(?:" + "|".join(ADVERBS) + r")*"
END = r"(?=$|[，。；！？,.;!?\s]|因为|所以|但是|但|而且|的时候)"
OBJ = r"([^，。；！？,.;!?\s]{1,20}?)"
# How long a job has been done, said between the verb and the job ("当了六年护士", "做了九年律师助理").
YEARS = r"(?:了)?(?:[一二两三四五六七八九十几半\d]{1,3}多?(?:年|个月)(?:多)?(?:的)?)?"
LIST = r"([^，。；！？,.;!?\s]{1,30}?)"
_HAN_NAME = r"(?:[\u4e00-\u9fff]{1,4}?|[A-Za-z]{2,20})"
# A person as named in Chinese: with a title ("王老师", "张经理"), a bare name, or a Latin one.
TITLED = (r"([\u4e00-\u9fff]{1,3}?(?:老师|经理|总|医生|教授|主任|博士|律师|师傅|阿姨|叔叔)|[\u4e00-\u9fff]{2,3}"
          r"|[A-Za-z]{2,20})")
RELATION = (r"(儿子|女儿|孩子|闺女|宝宝|娃|妻子|老婆|太太|媳妇|爱人|丈夫|老公|先生|男朋友|女朋友|妈妈|爸爸|母亲|父亲|"
            r"哥哥|姐姐|弟弟|妹妹|朋友|好朋友|闺蜜|导师|博导|老师|教授|同事|老板|经理|领导|上司|主管|组长)")
OCCUPATIONS = (r"医生|大夫|老师|教师|护士|程序员|工程师|软件工程师|学生|大学生|研究生|博士生|硕士生|高中生|律师|设计师|"
               r"会计|会计师|厨师|司机|记者|警察|销售|产品经理|项目经理|经理|药剂师|建筑师|作家|翻译|演员|公务员|"
               r"数据分析师|分析师|农民|画家|教授|研究员|科学家|编辑|摄影师|牙医|兽医|律师助理|模特|歌手|"
               r"音乐人|主播|店长|老板|创业者|自由职业者|快递员|外卖员|保安|银行职员|客服|前端工程师|后端工程师|"
               r"算法工程师|测试工程师|运营|产品经理|心理咨询师|健身教练|教练|幼师|小学老师|中学老师|大学老师|柜员|"
               r"收银员|服务员|保姆|清洁工|电工|木匠|医药代表|人事|财务|出纳|导游|空姐|飞行员|理发师|营养师|"
               # heads a title ends on, whatever its field ("物流主管", "市场总监", "客户经理")
               r"主管|总监|顾问|专员|助理|技术员|业务员|销售员|研究员|规划师|咨询师|工程师|设计师|分析师")
CONDITIONS = (r"二型糖尿病|2型糖尿病|一型糖尿病|1型糖尿病|糖尿病|哮喘|高血压|高血脂|高血糖|抑郁症|焦虑症|失眠|"
              r"偏头痛|胃病|胃炎|心脏病|关节炎|湿疹|癫痫|乳糖不耐受|痛风|过敏性鼻炎|鼻炎|贫血|甲亢|甲减|"
              r"多动症|自闭症|强迫症|颈椎病|腰椎间盘突出|脂肪肝|低血糖|冠心病|帕金森|阿尔茨海默症")
_FAMILY = r"(?!妈|爸|哥|姐|弟|妹|老公|老婆|儿子|女儿|朋友|同事|的|们|家|孩子)"
_SURNAMES = set("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任"
                "沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武"
                "戴莫孔向汤欧")
_NOT_NAME_ENDINGS = ("人", "生", "师", "员", "家", "者", "长", "理", "总", "士", "工", "医")


# A breed names the animal as its kind does ("一只柯基，叫豆包").
_PET = (r"(猫咪|小猫|猫|小狗|狗狗|狗|兔子|仓鼠|鹦鹉|金鱼|乌龟|鱼|小鸟|鸟|马|蜥蜴|蛇|柯基|泰迪|金毛|哈士奇|拉布拉多|"
        r"柴犬|边牧|萨摩耶|比熊|博美|法斗|布偶猫?|英短|美短|橘猫|狸花猫|暹罗猫|蓝猫)")
_PET_COUNT = r"(?:一|两|三|几)?(?:只|条|匹|头)"
# A name said after who it names: "一只猫，叫咪咪", "一个弟弟，他叫小军".
_CALLED = r"(?:它|他|她)?(?:叫|名叫|名字叫)"


_LANGUAGE = (r"(?:英语|法语|德语|日语|韩语|西班牙语|俄语|意大利语|葡萄牙语|阿拉伯语|粤语|普通话|上海话|"
             r"四川话|中文|英文|日文|法文|德文)")


# Places a "我是X人" or "在X工作" names (a province, a city, a region, a country), or one by its ending.
_PLACES = ("北京|上海|天津|重庆|河北|山西|辽宁|吉林|黑龙江|江苏|浙江|安徽|福建|江西|山东|河南|湖北|湖南|广东|海南|四川|"
           "贵州|云南|陕西|甘肃|青海|台湾|内蒙古?|广西|西藏|宁夏|新疆|香港|澳门|东北|西北|华北|江南|南方|北方|中国|"
           "广州|深圳|杭州|南京|武汉|成都|西安|苏州|长沙|郑州|青岛|大连|厦门|宁波|沈阳|哈尔滨|昆明|福州|济南|合肥|南昌|"
           "贵阳|兰州|石家庄|太原|长春|温州|无锡|东莞|佛山|潮汕|汕头|珠海|桂林|洛阳|扬州|徐州|绍兴|泉州|烟台|"
           "美国|日本|韩国|英国|法国|德国|加拿大|澳大利亚|新加坡|马来西亚|泰国|越南|印度|俄罗斯|意大利|西班牙")
_WHERE = r"([^，。；！？,.;!?\s在]{1,12}?)"
# "湖南邵阳", "四川省绵阳市": a province, then a city of two or three characters (not a verb: "湖南过年")
PROVINCE_CITY = (r"(?:黑龙江|内蒙古|河北|山西|辽宁|吉林|江苏|浙江|安徽|福建|江西|山东|河南|湖北|湖南|广东|海南|四川|"
                 r"贵州|云南|陕西|甘肃|青海|台湾|广西|西藏|宁夏|新疆)(?:省)?(?![过看待住探玩休养发工上读办结])"
                 r"[\u4e00-\u9fff]{2,3}?(?:市|县)?(?:的|人)?(?=$|[，。！？,.!?])")
_PLACE = r"((?:" + _PLACES + r")|[\u4e00-\u9fff]{1,6}?(?:省|市|县|镇|村|州|区)(?<!超市|菜市|夜市|小区|社区|校区))"
# "在家工作", "在公司上班": where, not for whom.
_NOT_WORKPLACES = re.compile(r"^(?:家|家里|外面|这里|那里|这儿|那儿|晚上|周末|公司|单位|办公室|线上|网上|国外|外地|"
                             r"外企|国企|本地|老家|" + _PLACES + r")$|(?:省|市|县|镇|村|区)$|^(?:找|寻找|换|准备|考虑)")


def _workplace(value: str) -> str | None:
    value = re.sub(r"^(?:(?:" + _PLACES + r")(?:市)?)?(?:的)?(?:一家|一个|一所|一间|某家|一座)", "", value)
    return None if not value or _NOT_WORKPLACES.search(value) else value


def _zh_name(value: str) -> str | None:
    """"我是王小明" is a name; "我是北京人" or "我是张经理" (a title, not a name) is not."""
    if len(value) in (2, 3) and value[0] in _SURNAMES and not value.endswith(_NOT_NAME_ENDINGS):
        return value
    return None


_HOBBIES = (r"(?:爬山|跑步|夜跑|晨跑|游泳|钓鱼|骑车|骑行|健身|撸铁|打篮球|打羽毛球|打乒乓球|踢足球|打网球|"
            r"打高尔夫|练瑜伽|做瑜伽|"
            r"瑜伽|滑雪|徒步|露营|跳舞|跳广场舞|唱歌|唱K|画画|弹吉他|弹钢琴|拉小提琴|下棋|下象棋|下围棋|打麻将|摄影|拍照|"
            r"看书|读书|写作|练书法|写书法|打游戏|玩游戏|打太极|打太极拳|跳绳|攀岩|冲浪|潜水|烘焙|种花|养花|织毛衣|钩针|"
            r"追剧|看电影|听音乐|旅游|旅行|自驾游|拼乐高|做手工|插花|品茶|喝茶|玩滑板|滑板|滑冰|轮滑|"
            r"(?:玩|扔)?飞盘|桨板|皮划艇|骑马|射箭|击剑|拳击|搏击|马拉松|越野跑|剧本杀|密室逃脱|露营|"
            r"(?:弹|练|学)?(?:尤克里里|古筝|琵琶|贝斯|口琴)|(?:打|练)?架子鼓|(?:拉|练)?二胡|(?:吹|练)?(?:萨克斯|长笛))")
# Instruments and sports a user takes lessons in or switches to: "在学吉他", "现在改练尤克里里".
_PRACTISED = (r"(吉他|钢琴|小提琴|尤克里里|古筝|琵琶|二胡|架子鼓|贝斯|萨克斯|长笛|口琴|大提琴|书法|瑜伽|拳击|"
              r"游泳|滑雪|冲浪|攀岩|舞蹈|街舞|芭蕾)")
# A habit is said with how often ("我每周都去爬山", "我平时喜欢…" is a taste): "我去爬山了" is one day.
_OFTEN_WORDS = tuple("每天 每周 每个周末 每周末 周末 平时 经常 常常 一有空就 有空就 有空的时候 没事就 业余时间 闲暇时 "
                     "下班后 天天".split())
_OFTEN = r"(?:" + "|".join(_OFTEN_WORDS) + r")"
# Between the words that say how often, an adverb that is not one of them: "平时" read as either let
# "我平时平时…" be read in 2^n ways.
_ADV_NOT_OFTEN = r"(?:" + "|".join(a for a in ADVERBS if a not in _OFTEN_WORDS) + r")*"

# "我是学医的": one character names a field by its short name.
_FIELDS = {"医": "医学", "法": "法学", "文": "文科", "理": "理科", "工": "工科", "商": "商科"}


def _activity(value: str) -> str:
    """"打篮球" and "篮球" are one hobby; "下棋" keeps its verb (one character is not a thing)."""
    return re.sub(r"^(?:打|弹|拉|踢|练|做|下|玩|写)(?=[\u4e00-\u9fff]{2})", "", value)


# "在家读书" or "在北京上学" says where, not which school.
def _school(value: str) -> str | None:
    value = re.sub(r"^(?:一所|一个|一家)", "", value)
    return None if not value or _NOT_WORKPLACES.search(value) or value in ("哪", "大学", "学校") else value


# Who a relation word names, the short words of speech too ("我爸", "我妈"): longest first.
_KIN = "(" + RELATION[1:-1] + r"|爸|妈|哥|姐|弟|妹)"
_SURNAME_CLASS = "[" + "".join(sorted(_SURNAMES)) + "]"
_NAME_SHAPE = _SURNAME_CLASS + r"[\u4e00-\u9fff]{1,2}?|[小老阿][\u4e00-\u9fff]|([\u4e00-\u9fff])\3"
_AFTER_SUBJECT = (r"下个?(?:周|月|星期|礼拜)|上个?(?:周|月|星期|礼拜)|今天|明天|昨天|今年|明年|去年|最近|刚|"
                  r"已经|要|让|想|对|考|写|买|送|挑|选|准备|"
                  r"说|请|在|又|也|总|正在|马上|快|过生日|结婚|生日|是|和|跟|给|带|被|从|每天|今晚|周末|这|那|天天|整天|"
                  r"老是|老(?!师)|一直|还|都|就|下周|明年")
# Words of a name's shape that are no name: "我老婆白天要上班", "我妈高兴得…".
_NOT_ZH_NAMES = {"白天", "高兴", "方便", "老是", "小时", "小心", "老家", "阿姨", "小区", "老师", "小学", "金钱", "周末",
                 "王者", "孙子", "孙女", "曾经", "任何", "常常", "万一", "向来", "于是", "马上", "小声", "大声",
                 "老实", "小气"}
# "我妈老说…", "我哥老问…": 老 before a verb says "always", no name
_ALWAYS_VERB = re.compile(r"^老[说讲问叫骂催念唠提让要想是在不没爱嫌觉跟给去来看吃喝玩打做惦担操管]")


def _apposed(value: str) -> str | None:
    return None if value in _NOT_ZH_NAMES or value[:2] in _NOT_ZH_NAMES or _ALWAYS_VERB.match(value) else value


# A pet's name has any shape ("旺财"), so a time or an adverb after the animal is not one ("我家猫最近…").
_NOT_PET_NAMES = re.compile(r"^(?:最近|今天|昨天|每天|天天|整天|特别|非常|一直|总是|老是|现在|已经|突然|好像|真的|有点|"
                            r"也|还|都|又|很|就|不|没|刚|才|可|太|超|挺|比较|经常|晚上|早上|白天|平时)")


def _pet_name(value: str) -> str | None:
    return None if _NOT_PET_NAMES.match(value) else _apposed(value)


_BACK_HOME = r"我(?:们)?" + ADV + r"回(?:到)?了?(?:老家|家乡)" + _WHERE + r"(?:了|(?=$|[，。！!.]))"


_TRADE_ENDINGS = ("师", "员", "工", "医", "官", "匠", "家", "手", "者", "长", "司机")


def _person(value: str) -> str | None:
    """"我妈妈是广东人" says where she is from, not who she is; "我弟弟是水管工" what he does (a trade's
    ending with no surname before it: "王老师" is a person)."""
    trade = value.endswith(_TRADE_ENDINGS) and value[0] not in _SURNAMES
    return None if value.endswith("人") or trade else value


def _origin(value: str) -> str | None:
    """"我来自农村" is where; "我来自单亲家庭" is not a place."""
    return None if value.endswith(("家庭", "家里", "地方", "行业", "公司")) else value


def _consumed(value: str) -> str:
    """"喝咖啡" and "咖啡" are one thing to like or dislike ("我不喝咖啡了" ends "我喜欢喝咖啡")."""
    return re.sub(r"^(?:吃|喝)(?=.)", "", value)


MY_RELATION = Rule(re.compile(r"我的?(?:最好的)?" + _KIN + r"(" + _NAME_SHAPE + r")(?=" + _AFTER_SUBJECT + r")"),
                   None, 2, relation_group=1, value=_apposed)
# "我的偏头痛是不是会更严重？", "要不要告诉领导刘姐…？": an illness and a person the question takes as given
MY_CONDITION = Rule(re.compile(r"我的(" + CONDITIONS + r")(?!的|药)"), P.HAS_CONDITION)
TOLD_RELATION = Rule(re.compile(r"(?:^|我)(?:(?!他|她|你|们)[^，。！？,.!?]){0,8}?(?:告诉|问问|问|通知|跟|和)(?:我的?)?"
                                r"(老公|老婆|爱人|领导|上司|主管|导师|博导)(" + _NAME_SHAPE + r")(?=我|$|[，,。？?])"),
                     None, 2, relation_group=1, value=_apposed)
PRESUPPOSED = [MY_RELATION, MY_CONDITION, TOLD_RELATION]

RULES: list[Rule] = [
    # names: "我叫…", "我的名字是…", "大家都叫我…", "我是王小明"
    Rule(re.compile(r"我(?:的名字)?叫(?!外卖|车|醒|了)(" + _HAN_NAME + r")" + END), P.HAS_NAME),
    Rule(re.compile(r"我的名字(?:是|叫)(" + _HAN_NAME + r")" + END), P.HAS_NAME),
    Rule(re.compile(r"(?:大家|别人|朋友们|他们)(?:都)?(?:叫|喊|称呼)我(" + _HAN_NAME + r")" + END), P.HAS_NAME),
    Rule(re.compile(r"叫我(" + _HAN_NAME + r")就(?:好|行|可以)"), P.HAS_NAME),
    Rule(re.compile(r"^(?:你好|您好|大家好)?[，,]?我是([\u4e00-\u9fff]{2,3})" + END), P.HAS_NAME, value=_zh_name),
    # "我姓王，今年六十八了": the surname alone, as an older user gives it (then called 王老师, 王阿姨)
    Rule(re.compile(r"(?:^|[，,。！!\s])我姓([\u4e00-\u9fff])(?=$|[，,。！!？?\s])"), P.HAS_NAME),
    # ages: "我今年30岁", "我三十五岁了", "今年我28", "我刚满25周岁"
    Rule(re.compile(r"(?:我|今年我)" + ADV + r"(?:是|满|已经满|刚满)?(\d{1,3}|[一二两三四五六七八九十]{1,3})(?:周)?岁"),
         P.HAS_AGE, value=age),
    Rule(re.compile(r"(?:我今年|今年我)(?:已经|都|才)?(\d{1,3}|[一二两三四五六七八九十]{1,3})(?:了|(?=$|[，。！,.!]))"),
         P.HAS_AGE, value=age),
    # "我已经29了", "我都35了": a bare number the user has reached (not "我已经3次了": a unit follows)
    Rule(re.compile(r"^我(?:已经|都|也|才)+(\d{1,3}|[一二两三四五六七八九十]{1,3})了?$"), P.HAS_AGE,
         value=age),
    Rule(re.compile(r"^我(?:已经|都|就|也|正式)*(\d{1,3}|[一二两三四五六七八九十]{1,3})岁?了[。！!.]?$"), P.HAS_AGE,
         value=age),
    # allergies and conditions
    Rule(re.compile(r"我" + ADV + r"对" + LIST + ADV + r"(?:严重|有点|有些|轻微|特别)?(?<![不没])过敏"), P.ALLERGIC_TO,
         lists=True),
    Rule(re.compile(r"我" + _FAMILY + r"(?!一|有)(?:吃|喝|碰|闻到?|用)?([^，。；！？,.;!?\s对就会有患得]{1,8}?)" + ADV
                    + r"(?:严重|有点)?过敏(?!性)"),
         P.ALLERGIC_TO, lists=True),
    Rule(re.compile(r"我(?:一)?(?:吃|喝|碰|用)" + LIST + r"(?:就|会|都会|就会)(?:严重)?过敏"), P.ALLERGIC_TO,
         lists=True),
    Rule(re.compile(r"^" + OBJ + r"(?:会)?(?:让|使|令)我(?:严重)?过敏"), P.ALLERGIC_TO),
    Rule(re.compile(r"我有" + LIST + r"过敏(?:症)?"), P.ALLERGIC_TO, lists=True),
    Rule(re.compile(r"我" + ADV + r"(?:被诊断(?:出|为)?(?:患有|有)?|被确诊(?:为|患有|了|有)?|确诊了?)" + OBJ + END),
         P.HAS_CONDITION),
    Rule(re.compile(r"我" + ADV + r"(?:有|患有|得了|得过|患上了?|有轻微的|有严重的)"
                    r"(?:点|些|一点|轻度|重度|严重的?|慢性)?(" + CONDITIONS + r")"), P.HAS_CONDITION),
    Rule(re.compile(r"我" + ADV + r"(?:体检|检查)?(?:查出来?|检查出来?|查出了)了?(?:有|是|患有|得了)?"
                    r"(?:轻度|重度|轻微的?)?("
                    + CONDITIONS + r")"), P.HAS_CONDITION),
    # a thing said first, then what the user makes of it: "香菜真的受不了" (not "他真的受不了")
    Rule(re.compile(r"^(?![我你他她它这那])" + OBJ + r"(?:我)?" + ADV + r"(?:受不了|接受不了|吃不了|吃不惯|喝不惯)"
                    + END), P.DISLIKES, value=_consumed),
    # "无辣不欢", "无肉不欢": no meal is a joy without it
    Rule(re.compile(r"我" + ADV + r"无([\u4e00-\u9fff]{1,2})不欢"), P.HAS_PREFERENCE),
    # dislikes, then likes
    Rule(re.compile(r"我" + ADV + r"(?:一点也|一点都|从来)?(?:不喜欢|不爱|讨厌|"
                    r"受不了|反感|厌恶|讨厌吃|接受不了|喜欢不起来|不感冒)(?!的)" + LIST + END),
         P.DISLIKES, lists=True, value=_consumed),
    # what the user does not or cannot eat: "我不吃辣", "我不能吃海鲜", "我忌口牛肉"
    # "不吃素" is no food disliked: it ends a diet ("我现在不吃素了")
    Rule(re.compile(r"我" + ADV + r"(?:一点也|一点都|从来)?(?:不爱吃|不爱喝|不吃|不喝|不能吃|不能喝|吃不了|忌口)"
                    r"(?!的|素)"
                    + LIST + END), P.DISLIKES, lists=True, value=_consumed, tags=(FOOD_TAG,)),
    Rule(re.compile(r"我" + ADV + r"(?:不太|不怎么|不是很)喜欢" + LIST + END), P.DISLIKES, lists=True,
         value=_consumed),
    Rule(re.compile(r"我" + ADV + r"对" + OBJ + r"(?:不感兴趣|没兴趣|没什么兴趣|不感冒)"), P.DISLIKES),
    Rule(re.compile(r"我最不喜欢的[\u4e00-\u9fff]{0,4}?是" + OBJ + END), P.DISLIKES),
    # 饮食: "我吃素", "我是素食主义者" (a vegan's 纯素 kept apart)
    Rule(re.compile(r"我" + ADV + r"(?:一直|现在|已经|平时|只)?(?:在)?(?:是(?:个|一个|一名)?)?"
                    r"(纯素|吃素|素食(?:主义)?者?)(?!的[\u4e00-\u9fff]|餐厅|馆)"), P.HAS_PREFERENCE,
         value=lambda v: "纯素食" if v.startswith("纯") else "素食"),
    # (an activity the user took to is a hobby, below, not a taste: "迷上了飞盘")
    Rule(re.compile(r"我" + ADV + r"(?:(?:喜欢上|爱上|迷上)了?(?!了|(?:去)?" + _HOBBIES + END + r")|喜欢|爱吃|爱喝|"
                    r"爱看|爱听|爱(?!人)|偏爱|热爱|钟爱|迷恋|偏好|喜爱)"  # 爱人 is a spouse
                    r"(?!的)" + LIST + END),
         P.HAS_PREFERENCE, lists=True, value=_consumed),
    # an activity the user took to is a hobby too ("我迷上了滑板", "我爱上了攀岩"; "我喜欢喝茶" stays a taste)
    Rule(re.compile(r"我" + ADV + r"(?:喜欢上了?|爱上了?|迷上了?|热爱|迷恋)(?:去)?(" + _HOBBIES
                    + r"(?:(?:、|和|跟)" + _HOBBIES + r")*)" + END), P.HAS_HOBBY, lists=True, value=_activity),
    Rule(re.compile(r"我" + ADV + r"对" + OBJ + ADV + r"(?<![不没])(?:感兴趣|有兴趣|着迷)"), P.HAS_PREFERENCE),
    Rule(re.compile(r"^" + OBJ + r"是我(?:最喜欢|最爱|的最爱)"), P.HAS_PREFERENCE),
    Rule(re.compile(r"我最(?:喜欢|爱)的[\u4e00-\u9fff]{0,4}?是" + LIST + END), P.HAS_PREFERENCE, lists=True),
    # difficulties and skills: "我对微积分不太理解", "我数学不好", "物理对我来说太难了"
    Rule(re.compile(r"我" + ADV + r"对" + OBJ + ADV + r"(?:不太|不怎么|不是很|一直不太|完全不|不|搞不)"
                    r"(?:理解|懂|明白|擅长|了解|清楚)"), P.STRUGGLES_WITH),
    Rule(re.compile(r"我" + ADV + r"(?:不太|不怎么|不是很)?(?:不擅长|不会|搞不懂|学不好|弄不懂|头疼)" + OBJ + END),
         P.STRUGGLES_WITH),
    # "我数学不好" is a difficulty; "我心情不好" (a mood) or "我最近不太好" is not.
    Rule(re.compile(r"我的?(?!心情|身体|睡眠|胃口|状态|运气|脾气|记性|视力|最近|今天|现在|这|感觉)"
                    r"([\u4e00-\u9fff]{2,4}?)" + ADV + r"(?:很差|不好|不太好|不行|太差|特别差|很烂|跟不上)"),
         P.STRUGGLES_WITH),
    Rule(re.compile(r"^" + OBJ + r"对我(?:来说)?" + ADV + r"(?:太|很|特别|非常|有点|有些)?(?:难|困难|吃力)"),
         P.STRUGGLES_WITH),
    Rule(re.compile(r"我" + ADV + r"(?:擅长|精通|很会|熟悉)" + LIST + END), P.MASTERS, lists=True),
    Rule(re.compile(r"我" + ADV + r"(?:会说|能说|会讲|能讲)(" + _LANGUAGE + r"(?:(?:和|、|跟)" + _LANGUAGE + r")*)"),
         P.MASTERS, lists=True),
    # "我业余时间喜欢画水彩画": what the user likes to do in their own time is a pastime
    Rule(re.compile(r"我(?:的)?(?:业余时间|空闲时间|闲暇时间?|业余|下班以?后|周末)(?:里|的时候)?(?:最|就)?(?:喜欢|爱(?!好))"
                    r"([\u4e00-\u9fff]{2,5}?)" + END), P.HAS_HOBBY, value=_activity),
    # a new activity in place of an old one: "改成早上打太极", "换成游泳了"
    Rule(re.compile(r"我" + ADV + r"(?:改成|换成|改为|改|换|转而)了?(?:每天|早上|晚上|周末|平时|去)*("
                    + _HOBBIES + r")"),
         P.HAS_HOBBY, value=lambda v: _activity(re.sub(r"^学(?=..)", "", v))),
    # fears are dislikes: "我怕狗", "我很害怕蛇"
    Rule(re.compile(r"^我" + ADV + r"(?:怕|害怕|恐惧)" + OBJ + END), P.DISLIKES),
    # occupations: "我是一名医生", "我在医院当护士", "我的工作是程序员"
    Rule(re.compile(r"我" + ADV + r"是(?:一名|一个|一位|个|名|位)?(" + OCCUPATIONS + r")" + END), P.WORKS_AS),
    # "我是麻醉科医生": a field before the job is part of it
    # (two characters at least, never a measure word: "张经理" is a name and a title)
    Rule(re.compile(r"我" + ADV + r"是((?![一这那个名位])[\u4e00-\u9fff]{2,4}?(?:" + OCCUPATIONS + r"))" + END),
         P.WORKS_AS),
    # "我是一名中学数学老师": what is taught or where, said before the job, is part of it
    Rule(re.compile(r"我" + ADV + r"是(?:一名|一个|一位|个|名|位)([\u4e00-\u9fff]{1,4}?(?:" + OCCUPATIONS + r"))"
                    + END), P.WORKS_AS),
    Rule(re.compile(r"我" + ADV + r"(?:在[^，。,.]{1,10}?)?(?:当|做|担任|干)" + YEARS + r"(?:一名|一个|个)?"
                    r"((?:(?![一这那个名位了])[\u4e00-\u9fff]{2,4}?)?(?:" + OCCUPATIONS + r"))"), P.WORKS_AS),
    Rule(re.compile(r"我的(?:工作|职业)是(" + OCCUPATIONS + r")"), P.WORKS_AS),
    Rule(re.compile(r"我是(?:做|干|搞)(" + OCCUPATIONS + r")的"), P.WORKS_AS),
    # where the user works: "我在腾讯工作", "我在一家医院上班", "我在谷歌当工程师"
    # (not "我在家工作", "我在北京上班")
    Rule(re.compile(r"我" + ADV + r"在" + _WHERE + r"(?:工作|上班|打工|实习|任职|就职)" + END), P.WORKS_AT,
         value=_workplace),
    Rule(re.compile(r"我" + ADV + r"在" + _WHERE + r"(?:当|做|担任|干)" + YEARS + r"(?:一名|一个|个)?"
                    r"(?:[\u4e00-\u9fff]{0,4}?)(?:" + OCCUPATIONS + r")"),
         P.WORKS_AT, value=_workplace),
    # a new employer as news: "我跳槽去字节跳动了", "我入职了腾讯", "我跳到了美团"
    Rule(re.compile(r"我" + ADV + r"(?:跳槽(?:去|到|进)了?|跳到了?|入职了?)" + _WHERE
                    + r"(?:公司)?(?:了|(?=当|做|$|[，。！!.]))"), P.WORKS_AT,
         value=_workplace),
    # "在广告公司做设计": a field of work done at a workplace
    Rule(re.compile(r"我" + ADV + r"在" + _WHERE + r"(?:做|干|搞|负责)(?:设计|运营|销售|开发|研发|财务|会计|市场|行政|"
                    r"人事|技术|测试|产品|编辑|客服|采购|物流|前端|后端|算法)"), P.WORKS_AT, value=_workplace),
    # "坐标杭州": where the user is, as chat says it
    Rule(re.compile(r"(?:^|我)(?:现在|目前)?坐标" + _PLACE), P.LIVES_IN),
    # "下周一去腾讯报到": a first day named
    Rule(re.compile(r"我" + ADV + r"(?:[上下](?:周|个?星期|个?礼拜)[一二三四五六日天]?|[上下]个?月|[明后昨前今]天)?"
                    r"(?:去|到)" + _WHERE + r"(?:报到|报道|入职)"), P.WORKS_AT, value=_workplace),
    Rule(re.compile(r"我" + ADV + r"(?:是)?([^，。；！？,.;!?\s]{2,12}?)的(?:员工|职员|工程师|程序员|医生|护士|老师)"
                    + END), P.WORKS_AT, value=_workplace),
    # where the user is from: "我是四川人", "我来自北京", "我老家是湖南的", "我在成都长大"
    Rule(re.compile(r"我" + ADV + r"是?(?:土生土长的|地道的|正宗的|纯正的)?" + _PLACE + r"人" + END), P.COMES_FROM),
    # "我是哈尔滨的": of a place, said as where the user is from
    Rule(re.compile(r"我" + ADV + r"是(?:土生土长的|地道的)?" + _PLACE + r"的" + END), P.COMES_FROM),
    Rule(re.compile(r"我" + ADV + r"来自(?!一|个|这|那)" + OBJ + END), P.COMES_FROM, value=_origin),
    Rule(re.compile(r"我的?(?:老家|家乡|故乡)(?:是|在)" + OBJ + r"(?:的)?" + END), P.COMES_FROM),
    Rule(re.compile(r"我的?(?:老家|家乡|故乡)(?!是|在)([\u4e00-\u9fff]{2,8}?)的" + END), P.COMES_FROM),
    Rule(re.compile(r"我" + ADV + r"(?:是)?(?:在|出生在|生在)" + OBJ + r"(?:出生|长大|土生土长)(?:的)?" + END),
         P.COMES_FROM),
    Rule(re.compile(r"我" + ADV + r"(?:出生在|出生于|生在|生于)(?!\d|[一二三四五六七八九十]+年)" + OBJ + END),
         P.COMES_FROM),
    # the user's birthday: "我的生日是5月3日", "我生日是三月三号", "我是1990年5月3日出生的"
    Rule(re.compile(r"我的?生日(?:是|在)?" + ZH_DATE), P.HAS_BIRTHDAY, value=calendar_day),
    Rule(re.compile(r"我的?生日(?:是|在)?" + NUMERIC_DATE), P.HAS_BIRTHDAY, value=lambda v: numeric_day(v, True)),
    # "本人出生于1992年11月5日": born on a day, said with no "生日" after it
    Rule(re.compile(r"我" + ADV + r"(?:出生于|生于|出生在)" + ZH_DATE), P.HAS_BIRTHDAY, value=calendar_day),
    Rule(re.compile(r"我" + ADV + r"(?:是|出生于|生于)?" + ZH_DATE + r"(?:出生|生日|生)"), P.HAS_BIRTHDAY,
         value=calendar_day),
    # a skill: "我会弹吉他", "我会游泳" (not "我会去爬山": a plan)
    Rule(re.compile(r"我" + ADV + r"(?:会|能)(弹吉他|弹钢琴|拉小提琴|拉二胡|游泳|滑雪|下围棋|下象棋|冲浪|潜水|开车|"
                    r"编程|画画|做饭|烘焙|织毛衣)" + END), P.MASTERS, value=_activity),
    # hobbies: "我的爱好是摄影和旅行", "我每周都去爬山", "我平时打篮球"
    Rule(re.compile(r"我" + ADV + r"(?:在|正在|还在|开始|改|改成|换成)?(?:学|练|弹|拉|打|玩)" + _PRACTISED),
         P.HAS_HOBBY),
    Rule(re.compile(r"我的?(?:爱好|兴趣爱好|业余爱好)(?:是|有|就是)" + LIST + END), P.HAS_HOBBY, lists=True,
         value=_activity),
    Rule(re.compile(r"我" + _ADV_NOT_OFTEN + r"(?:" + _OFTEN + _ADV_NOT_OFTEN + r")+(?:会|都|也|就|常)*"
                    r"(?:喜欢|爱)?(?:去|在)?(" + _HOBBIES + r"(?:(?:、|和|跟|，)" + _HOBBIES + r")*)"), P.HAS_HOBBY,
         lists=True, value=_activity),
    # school and field: "我是清华毕业的", "我毕业于复旦大学", "我在北大读研究生", "我是学医的", "我的专业是金融"
    Rule(re.compile(r"我" + ADV + r"(?:是)?([\u4e00-\u9fffA-Za-z]{2,12}?)毕业的"), P.STUDIED_AT, value=_school),
    Rule(re.compile(r"我" + ADV + r"毕业于" + OBJ + END), P.STUDIED_AT, value=_school),
    Rule(re.compile(r"我" + ADV + r"从([\u4e00-\u9fffA-Za-z]{2,12}?)毕业"), P.STUDIED_AT, value=_school),
    # "想回老家长沙": the home town is said by the way, of the user's (not "我妈老家", "他老家")
    # (a province before its city names the city: "老家湖南邵阳的" is 邵阳, read in rules_zh_news)
    Rule(re.compile(r"(?:^|我的?)(?:(?!妈|爸|哥|姐|弟|妹|老公|老婆|朋友|同事|儿子|女儿|的|他|她|你)[^，。！？,.!?]){0,8}?"
                    r"老家(?:是|在)?(?!" + PROVINCE_CITY + ")" + _PLACE), P.COMES_FROM),
    Rule(re.compile(r"我" + ADV + r"在" + _WHERE + r"(?:读研究生|读研|读博|读本科|读大学|上大学|念大学|读书|上学|"
                    r"念书|留学)"), P.STUDIED_AT, value=_school),
    Rule(re.compile(r"我" + ADV + r"是" + _WHERE + r"的(?:学生|研究生|博士生|本科生|大学生|校友)" + END), P.STUDIED_AT,
         value=_school),
    Rule(re.compile(r"我(?:的)?(?:专业|大学专业|本科专业|研究生专业)是" + OBJ + END), P.STUDIED),
    Rule(re.compile(r"我" + ADV + r"(?:是)?(?:学|读|念)(?!的是)([\u4e00-\u9fff]{1,8}?)(?:专业)?(?:的|出身)" + END),
         P.STUDIED, value=lambda v: _FIELDS.get(v, v)),
    Rule(re.compile(r"我(?:大学|本科|研究生)?学的是" + OBJ + END), P.STUDIED),
    # "…，学的经济": the field said without "是", the whole of a short clause
    Rule(re.compile(r"^我(?:大学|本科|研究生)?学的(?!是|很|不|太|挺|还|都|也|真|东西|时候)([\u4e00-\u9fff]{2,6})$"),
         P.STUDIED),
    # where the user lives; working in a city is living there ("现在在广州打工"; not "在公司上班")
    Rule(re.compile(r"我" + ADV + r"在" + _PLACE + r"(?:工作|上班|打工)(?:" + END[3:-1]
                    + r"|(?:了)?(?:\d+|[一二两三四五六七八九十几]+)(?:年|个月))"), P.LIVES_IN),
    Rule(re.compile(r"我" + ADV + r"在" + _PLACE + r"(?:做|当)(?:" + OCCUPATIONS + r")"), P.LIVES_IN),
    Rule(re.compile(r"我" + ADV + r"在" + _PLACE + r"(?:的)?(?:一家|一个|一所|一间)"), P.LIVES_IN),
    # "我妈下个月要来北京看我": where someone comes to see the user is where the user is
    Rule(re.compile(r"来" + _PLACE + r"(?:看|找|陪|探望)我"), P.LIVES_IN),
    # where the user lives
    Rule(re.compile(r"我(?:们|们家|家)?" + ADV + r"(?:住在|定居在|定居|生活在|搬到了?|搬去了?|搬家到了?|搬回了?)"
                    + OBJ + r"(?=老家|" + SPAN + r"了|" + END[3:]), P.LIVES_IN),
    # "现在住杭州": "住" without "在" before a place by its name
    Rule(re.compile(r"我(?:们|们家|家)?" + ADV + r"(?:住|定居)(?!在)" + _PLACE + END), P.LIVES_IN),
    Rule(re.compile(r"我(?:们)?" + ADV + r"在" + OBJ + r"(?:住|生活|定居)"), P.LIVES_IN),
    Rule(re.compile(r"我家" + ADV + r"在" + OBJ + END), P.LIVES_IN),
    # "我回老家成都了": back home, where the user is from, to live
    Rule(re.compile(_BACK_HOME), P.LIVES_IN),
    Rule(re.compile(_BACK_HOME), P.COMES_FROM),
    Rule(re.compile(r"我(?:和|跟)(?:我的?)?" + RELATION + ADV + r"(?:住在|生活在|定居在)" + OBJ + END), P.LIVES_IN, 2,
         value=lambda v: None if re.match(r"一起|一块", v) else v),  # "住在一起" says with whom
    # pets: "我养了一只猫，叫咪咪", "我家的狗叫旺财", "我养了一只兔子" (not "我以前养过狗", "我想养猫")
    Rule(re.compile(r"我(?:家|们家)?" + ADV + r"(?:养了|养着|有)" + _PET_COUNT + _PET + r"[，,]?" + _CALLED + r"("
                    + _HAN_NAME + r")" + END), P.HAS_PET, 2, kind_group=1),
    Rule(re.compile(r"我(?:(?:家|们家)的?|的)" + _PET + r"(?:叫|名叫|名字叫)(" + _HAN_NAME + r")" + END), P.HAS_PET, 2,
         kind_group=1),
    # the name right after the animal: "我家猫咪咪最近不吃东西", "我的狗旺财"
    Rule(re.compile(r"我(?:家|们家)?的?" + _PET + r"(" + _NAME_SHAPE + r"|[\u4e00-\u9fff]{2})(?=" + _AFTER_SUBJECT
                    + r"|最近|不|没|老|特别|很|吃完|吃了|喝完|喝了|$)"), P.HAS_PET, 2, kind_group=1, value=_pet_name),
    Rule(re.compile(r"(?:我(?:家|们家|家里)?|^家里)" + ADV + r"(?:养了|养着|有)" + _PET_COUNT + _PET
                    + r"(?=$|[。；！？.;!?]|[，,](?!(?:分别)?" + _CALLED + r"))"), P.HAS_PET),
    # relations: "王老师是我的导师", "我的领导是张经理", "我有两个孩子，乐乐和思思"
    Rule(re.compile(r"(?<![的])" + TITLED + r"(?<!的)是我的?" + RELATION), None, 1, relation_group=2),
    # "我妈妈是一名医生" names her job, not a person.
    Rule(re.compile(r"我的?" + _KIN + r"(?:叫|(?<!我[爸妈哥姐弟妹])是|名叫)(?!(?:一名|一个|一位|个|名)?(?:"
                    + OCCUPATIONS + r")" + END + ")" + TITLED + END), None, 2, relation_group=1, value=_person),
    # the name right after who it is: "我老婆小丽下周过生日", "我爸王建国下个月退休", "我的经理李娜让我…".
    # No space marks where the name ends, so it has a name's shape (a surname and one or two more,
    # 小/老/阿 and one, a doubled syllable) and what follows is what follows a subject.
    MY_RELATION, MY_CONDITION, TOLD_RELATION,
    # "两个娃，大的叫安安，小的叫乐乐": children by their order
    Rule(re.compile(r"^我(?:家)?(?:大的|小的|老大|老二|老三|大宝|二宝)(?:叫|名叫|名字叫)(" + _HAN_NAME + r")" + END),
         P.HAS_CHILD),
    # "我儿子今年五岁，叫小宇": the name after a clause about them
    Rule(re.compile(r"^我的?" + RELATION + r"(?:(?!有|和|跟|的|养)[^，,。！？]){0,10}[，,]" + _CALLED + r"(" + _HAN_NAME
                    + r")" + END), None, 2, relation_group=1),
    Rule(re.compile(r"我有(?:一)?(?:个|位)" + RELATION + r"[，,]?" + _CALLED + r"(" + _HAN_NAME + r")" + END), None, 2,
         relation_group=1),
    Rule(re.compile(r"我(?:有)?(?:两|三|四|2|3|4|一)个" + RELATION + r"[，,：:]?(?:分别)?(?:叫|是)?"
                    + r"([\u4e00-\u9fff]{1,3}(?:(?:和|、|跟)[\u4e00-\u9fff]{1,3})+)" + END), None, 2,
         relation_group=1, lists=True),
]
