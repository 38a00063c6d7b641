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
# A space between two Chinese words (digits and Latin words count when a Chinese word is beside).
_SPACE = re.compile(r"(?<=[\u4e00-\u9fff\d])[ \u3000]+(?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff])[ \u3000]+(?=\d)")


@lru_cache(maxsize=1)
def _t2s():
    import opencc  # loaded on the first Chinese turn only

    return opencc.OpenCC("t2s")


def as_simplified(text: str) -> str:
    """The turn as the Chinese rules read it (an English turn is returned as it is). Length is kept,
    so a span of the result is the same span of the turn."""
    if not _HAN.search(text):
        return text
    for cantonese, mandarin in _CANTONESE:
        text = text.replace(cantonese, mandarin)
    text = _CANTONESE_IS.sub("是", text)
    converted = _t2s().convert(text)
    text = converted if len(converted) == len(text) else text
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
