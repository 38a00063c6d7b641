"""Chinese as the rules read it, however it was typed: traditional characters (Taiwan, Hong Kong) as
simplified, written Cantonese's own words as Mandarin's ("我係香港人，而家喺倫敦住" is "我是香港人，
现在在伦敦住"), and a space between words as the comma a chat or a voice transcript leaves out
("我叫王磊 今年32 在深圳"). An object is then given back in the characters the user wrote it in.

Traditional to simplified is OpenCC's ``t2s`` table (the ``opencc`` package, Apache-2.0): a table
of a few thousand characters and phrases is data, not rules, and a hand-made subset would miss most
of them.
"""

from __future__ import annotations

import re
from functools import lru_cache

_HAN = re.compile(r"[\u4e00-\u9fff]")
# Written Cantonese -> Mandarin, one character for one where it can be, so the positions of what
# follows stay those of the turn as typed. "係" is "是" except inside a word (關係, 聯係, 體係).
_CANTONESE = (("而家", "现在"), ("佢哋", "他们"), ("乜嘢", "什么"), ("邊度", "哪里"), ("边度", "哪里"),
              ("喺", "在"), ("嘅", "的"), ("佢", "他"), ("唔", "不"), ("冇", "没"), ("咗", "了"), ("啲", "些"))
_CANTONESE_IS = re.compile(r"(?<![關关聯联體体派維维干幹])[係系](?=[\u4e00-\u9fff]{1,8}[人的])")
# Regional and colloquial words for a spouse or a child, and the particles of northern and
# south-western speech, as the words the rules know ("俺家那口子叫翠花", "在县里上高中嘞").
_REGIONAL = (("老伴儿", "爱人"), ("老伴", "爱人"), ("那口子", "爱人"), ("媳妇儿", "媳妇"), ("娃儿", "娃"),
             ("闺女儿", "闺女"), ("婆娘", "老婆"), ("堂客", "老婆"), ("孩子他爸", "老公"), ("孩子他妈", "老婆"),
             ("孩子她妈", "老婆"), ("当家的", "老公"), ("我俩", "我们"), ("老爷们儿", "老公"), ("老爷们", "老公"),
             ("钟意", "喜欢"), ("啥子", "什么"), ("阿妈", "妈妈"), ("阿爸", "爸爸"))
# "我家老公", "我家猫": the family's is the user's own ("我的")
_FAMILY_OWN = re.compile(r"我家(?=老公|老婆|爱人|媳妇|孩子|娃|闺女|儿子|女儿|宝宝|猫|狗|先生|太太)")
# Cantonese "我個仔", "我嘅女": my son, my daughter; "饮" (to drink)
_CANTONESE_CHILD = ((re.compile(r"(?<=我)[个嘅的]仔"), "儿子"), (re.compile(r"(?<=我)[个嘅]女(?![人孩生士])"), "女儿"))
_DRINK = re.compile(r"饮(?![料食品用水酒])")
# "做紧会计" (Cantonese: doing), "搁沈阳" (north-eastern: in), "老子是重庆的" (Sichuanese: I)
_ASPECT = re.compile(r"([做读住学教返食饮])紧")
_REGIONAL_IN = re.compile(r"搁(?!置|浅|下|着)")
_REGIONAL_I = re.compile(r"(?:^|(?<=[，,。！!？?；;\s]))老子(?=是|在|就|也|今年|叫|住|从|\d)")
# English words a bilingual user types inside Chinese for what the rules know in Chinese
# ("我的hobby是攀岩", "我boss叫Kevin", "base上海").
_MIXED = ((re.compile(r"(?i)(?<![A-Za-z])hobb(?:y|ies)(?![A-Za-z])"), "爱好"),
          (re.compile(r"(?i)(?<![A-Za-z])(?:boss|manager|leader)(?![A-Za-z])(?=\s*(?:叫|是|人|说))"), "领导"),
          (re.compile(r"(?i)(?<![A-Za-z])base(?:在|于)?\s*(?=[\u4e00-\u9fff])"), "住在"))
_PARTICLE = re.compile(r"(?<=[\u4e00-\u9fff])([滴嘞哒])(?=[，。！？,.!?\s]|$)")
# "我在 Google 做软件工程师": the spaces some put around a Latin word inside Chinese
_LATIN_SPACED = re.compile(r"(?<=[\u4e00-\u9fff])[ \u3000]+(?=[A-Za-z])|(?<=[A-Za-z])[ \u3000]+(?=[\u4e00-\u9fff])")
# Shanghainese: "阿拉" (I, we) at the head of a clause, "欢喜" (to like)
_SHANGHAI = ((re.compile(r"(?:^|(?<=[，,。！!？?；;\s]))阿拉"), "我"), (re.compile(r"(?<!欢)欢喜(?!喜)"), "喜欢"))
# A space between two Chinese words (digits and Latin words count when a Chinese word is beside).
_SPACE = re.compile(r"(?<=[\u4e00-\u9fff\d])[ \u3000]+(?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff])[ \u3000]+(?=\d)")


@lru_cache(maxsize=1)
def _t2s():
    import opencc  # loaded on the first Chinese turn only

    return opencc.OpenCC("t2s")


def as_simplified(text: str) -> str:
    """The turn as the Chinese rules read it (an English turn is returned as it is). Its length is
    the turn's unless a regional word is longer than the common one or a Latin word was spaced off;
    while it is, a span of the result is the same span of the turn (``as_written``)."""
    if not _HAN.search(text):
        return text
    for cantonese, mandarin in _CANTONESE:
        text = text.replace(cantonese, mandarin)
    text = _CANTONESE_IS.sub("是", text)
    converted = _t2s().convert(text)
    text = converted if len(converted) == len(text) else text
    for regional, common in _REGIONAL:
        text = text.replace(regional, common)
    text = _ASPECT.sub(lambda m: "在" + m.group(1), text)
    text = _REGIONAL_IN.sub("在", _REGIONAL_I.sub("我", text))
    text = _DRINK.sub("喝", _FAMILY_OWN.sub("我的", text))
    for pattern, kin in _CANTONESE_CHILD:
        text = pattern.sub(kin, text)
    text = _LATIN_SPACED.sub("", text)
    for pattern, common in _SHANGHAI:
        text = pattern.sub(common, text)
    for pattern, chinese in _MIXED:
        text = pattern.sub(chinese, text)
    text = _PARTICLE.sub(lambda m: "了" if m.group(1) == "嘞" else "的", text)
    return _SPACE.sub(lambda m: "，" + m.group(0)[1:], text)


def as_written(obj: str, read: str, typed: str) -> str:
    """``obj`` (found in ``read``, the turn as read) in the characters of ``typed`` (the turn as the
    user typed it): "台积电" read from "在台積電當工程師" is stored as "台積電"."""
    if read == typed or len(read) != len(typed) or not _HAN.search(obj):
        return obj
    name = obj.split(" (")[0]
    at = read.find(name)
    if at < 0:
        return obj
    return typed[at:at + len(name)] + obj[len(name):]


_PROVINCES = tuple("""黑龙江 内蒙古 河北 山西 辽宁 吉林 江苏 浙江 安徽 福建 江西 山东 河南 湖北 湖南 广东 海南
四川 贵州 云南 陕西 甘肃 青海 台湾 广西 西藏 宁夏 新疆""".split())


def city_of(place: str) -> str:
    """"河南信阳", "广东省深圳市" -> the city ("信阳", "深圳"): a province said before its city is where
    the city is, not where the user is. A province alone ("四川") stays."""
    for province in _PROVINCES:
        if place.startswith(province):
            rest = re.sub(r"^(?:省|自治区)", "", place[len(province):])
            rest = re.sub(r"(?<=[\u4e00-\u9fff]{2})市$", "", rest)
            return rest if len(rest) >= 2 and _HAN.match(rest) else place
    return place
