"""People a question names by how they are related to the user ("my sister", "我弟弟").

A relation is asked the way a name is: "What does my brother do?" asked of a user who never
mentioned a brother has no record, however close "my sister is a nurse" comes to it. So a memory
question about a relation none of whose words the user ever said is answered "no record", as one
about a name they never said is (``fusion.record_strength``). A relation counts as said when any of
its words is in one of the user's memories, the plain ones included ("妈" for 妈妈, "mum" for
mother): a wider net only costs a catch, a narrower one would cost an answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Relation:
    asked: tuple[str, ...]  # how a question names them (Chinese: anywhere; English: after "my")
    said: tuple[str, ...]   # any of these in a memory: the user has spoken of them

    @property
    def han(self) -> bool:
        return not self.asked[0].isascii()


def _relation(asked: str, said: str = "") -> Relation:
    words = asked.split()
    return Relation(tuple(words), tuple(dict.fromkeys(words + said.split())))


_SPOUSE_ZH = "老公 丈夫 老伴 爱人 对象 老婆 妻子 媳妇 那口子 另一半"
_PARTNER_EN = "partner spouse"
RELATIONS: tuple[Relation, ...] = (
    # Chinese: every form as asked is two characters or more (妈 alone is in 妈的, 姐 in 小姐).
    _relation("妈妈 我妈 老妈 母亲 额妈 俺妈", "妈 娘 母"),
    _relation("爸爸 我爸 老爸 父亲 额爸 俺爸", "爸 爹 父"),
    _relation("我爸妈 额爸妈 俺爸妈 爸妈 父母 双亲", "爸 妈 父 母 爹 娘"),
    _relation("哥哥 我哥 大哥 二哥", "哥 兄"),
    _relation("弟弟 我弟 老弟 小弟", "弟 兄"),
    _relation("姐姐 我姐 大姐 二姐", "姐"),
    _relation("妹妹 我妹 老妹 小妹", "妹"),
    _relation("儿子", "儿 小子"),
    _relation("女儿 闺女", "女儿 闺女 丫头 姑娘"),
    _relation("老公 丈夫", _SPOUSE_ZH),
    _relation("老婆 妻子 媳妇", _SPOUSE_ZH),
    _relation("老伴", _SPOUSE_ZH),
    _relation("男朋友 男友", "男朋友 男友 对象 男票"),
    _relation("女朋友 女友", "女朋友 女友 对象 女票"),
    _relation("孙子", "孙"),
    _relation("孙女", "孙"),
    _relation("外孙 外孙女", "孙"),
    _relation("爷爷 祖父", "爷"),
    _relation("奶奶 祖母", "奶奶 阿嬷"),
    _relation("外公 姥爷", "外公 姥爷 阿公"),
    _relation("外婆 姥姥", "外婆 姥姥 阿婆"),
    _relation("婆婆", "婆"),
    _relation("公公", "公公"),
    _relation("岳父 老丈人", "岳父 丈人"),
    _relation("岳母 丈母娘", "岳母 丈母娘"),
    _relation("女婿", "女婿"),
    _relation("儿媳 儿媳妇", "儿媳 媳妇"),
    _relation("嫂子", "嫂"),
    _relation("姐夫", "姐夫"),
    _relation("妹夫", "妹夫"),
    _relation("表哥 表姐 表弟 表妹", "表"),
    _relation("堂哥 堂姐 堂弟 堂妹", "堂"),
    _relation("舅舅", "舅"),
    _relation("姑姑", "姑"),
    _relation("叔叔", "叔"),
    _relation("阿姨 姨妈", "姨"),
    # English: a word is matched whole (son is not in person), plurals and pet names counted.
    _relation("mom mum mother mommy mummy", "ma moms mums mothers"),
    _relation("dad father daddy", "pa dads fathers"),
    _relation("parents", "parent mom mum mother dad father folks"),
    _relation("brother", "brothers bro"),
    _relation("sister", "sisters sis"),
    _relation("son", "sons"),
    _relation("daughter", "daughters"),
    _relation("husband", f"husbands hubby {_PARTNER_EN}"),
    _relation("wife", f"wives {_PARTNER_EN}"),
    _relation("boyfriend", f"bf {_PARTNER_EN}"),
    _relation("girlfriend", f"gf {_PARTNER_EN}"),
    _relation("fiance fiancee fiancé fiancée", f"fiance fiancee fiancé fiancée {_PARTNER_EN}"),
    _relation("grandson granddaughter grandchild grandkid", "grandson grandsons granddaughter granddaughters "
              "grandchild grandchildren grandkid grandkids"),
    _relation("grandpa grandfather granddad", "grandpa grandfather granddad grandparents"),
    _relation("grandma grandmother granny", "grandma grandmother granny nana grandparents"),
    _relation("mother-in-law", "in-laws"),
    _relation("father-in-law", "in-laws"),
    _relation("son-in-law"),
    _relation("daughter-in-law"),
    _relation("brother-in-law"),
    _relation("sister-in-law"),
    _relation("cousin", "cousins"),
    _relation("aunt", "aunts auntie"),
    _relation("uncle", "uncles"),
    _relation("nephew", "nephews"),
    _relation("niece", "nieces"),
)
# "my sister", "my older sister", "the user's sister": whose, and at most one word between.
# "my husband Gareth": who is named, and the name is what a record must hold (``fusion.mentions``);
# the user may have spoken of Gareth without ever saying "husband".
_NAMED = re.compile(r",?\s+[A-Z][a-z]+")
_POSSESSIVE = r"\b(?:my|our|user's|user’s)\s+(?:[a-z]+\s+)?"


def relations_in(question: str) -> list[Relation]:
    """The relations ``question`` names, each by its longest form there; a form inside a longer one
    of another relation is that one's (外孙女 is not a 孙女, 我爸妈 not only a 我爸)."""
    lowered = question.lower()
    spans: list[tuple[int, int, Relation]] = []
    for relation in RELATIONS:
        for form in relation.asked:
            pattern = f"({re.escape(form)})" if relation.han else rf"{_POSSESSIVE}({re.escape(form)})(?:'s|’s)?\b"
            spans.extend((m.start(1), m.end(1), relation) for m in re.finditer(pattern, lowered)
                         if relation.han or not _NAMED.match(question, m.end()))
    taken: list[tuple[int, int, Relation]] = []
    # Which characters a form already holds (each span checked against every one taken cost the
    # square of the forms found: 1,000 of 我妈 took 60 ms).
    held = bytearray(len(lowered))
    for start, end, relation in sorted(spans, key=lambda s: s[0] - s[1]):  # the longest first
        if not any(held[start:end]):
            held[start:end] = b"\x01" * (end - start)
            taken.append((start, end, relation))
    return list(dict.fromkeys(r for _, _, r in sorted(taken, key=lambda s: s[0])))


def relation_terms(relations: Iterable[Relation]) -> list[str]:
    """The words whose counts among the user's memories say whether they spoke of ``relations``."""
    return list(dict.fromkeys(w for r in relations for w in r.said))


def _in_text(word: str, text: str) -> bool:
    return word in text if not word.isascii() else bool(re.search(rf"\b{re.escape(word)}\b", text.lower()))


def unsaid_relations(relations: Sequence[Relation], df: Mapping[str, int], texts: Iterable[str],
                     memories_in_han: bool) -> list[str]:
    """The relations none of whose words is in the user's memories (``df``, or a text found for
    the question), as asked. One in the other script than the memories is not checked: "my
    sister" asked of a user who writes in Chinese may be her 姐姐."""
    checked = [r for r in relations if r.han == memories_in_han]
    if not checked:
        return []
    texts = list(texts)
    return [r.asked[0] for r in checked
            if not any(df.get(w, 0) > 0 or any(_in_text(w, t) for t in texts) for w in r.said)]
