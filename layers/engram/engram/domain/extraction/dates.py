"""Numbers and calendar days as the rules find and store them: "thirty-one", "三十五", "四十有三";
"March 3rd, 1990", "the 3rd of March", "三月三号", "1990年5月3日", and days in digits where the
digits allow one day only ("1990-11-23", "14/02")."""

from __future__ import annotations

import re

# -- numbers ------------------------------------------------------------------------------------------

_EN_UNITS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                        "thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split())}
_EN_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
EN_NUMBER_WORDS = (r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|three|four|five|"
                   r"six|seven|eight|nine))?|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|"
                   r"nineteen|ten)")
_ZH_DIGIT = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def age(token: str) -> str | None:
    """An age as stored ("thirty-one" -> "31"); ``None`` for a number no one's age is."""
    years = number(token)
    return str(years) if years is not None and 0 < years <= 120 else None


def number(token: str) -> int | None:
    """Digits, English number words ("thirty-one") or Chinese numerals ("三十五") as an int."""
    token = token.strip().lower()
    if token.isdigit():
        return int(token)
    if token in _EN_UNITS or token in _EN_TENS:
        return _EN_UNITS.get(token, _EN_TENS.get(token))
    words = re.split(r"[- ]", token)
    if len(words) == 2 and words[0] in _EN_TENS and words[1] in _EN_UNITS:
        return _EN_TENS[words[0]] + _EN_UNITS[words[1]]
    token = re.sub(r"(?<=十)有(?=[一二三四五六七八九])", "", token)  # "四十有三": forty and three
    if token and all(c in _ZH_DIGIT or c == "十" for c in token):
        if "十" not in token:
            return int("".join(str(_ZH_DIGIT[c]) for c in token))
        tens, _, units = token.partition("十")
        return (_ZH_DIGIT.get(tens, 1) if tens else 1) * 10 + (_ZH_DIGIT.get(units, 0) if units else 0)
    return None


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
EN_MONTH = (r"(?:jan(?:uary|\.)?|feb(?:ruary|\.)?|mar(?:ch|\.)?|apr(?:il|\.)?|may|june?|july?|aug(?:ust|\.)?|"
            r"sep(?:tember|t\.?|\.)?|oct(?:ober|\.)?|nov(?:ember|\.)?|dec(?:ember|\.)?)")
# A day as a number or as an ordinal word ("the twenty-first of December").
_ORDINALS = {w: i + 1 for i, w in enumerate("first second third fourth fifth sixth seventh eighth ninth tenth eleventh "
                                             "twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth "
                                             "nineteenth twentieth".split())}
_ORDINALS |= {f"twenty-{w}": 20 + i for w, i in list(_ORDINALS.items())[:9]} | {"thirtieth": 30, "thirty-first": 31}
_EN_DAY = (r"(\d{1,2}(?:st|nd|rd|th)?|(?:twenty[- ]|thirty[- ])?(?:first|second|third|fourth|fifth|sixth|seventh|"
           r"eighth|ninth)|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|"
           r"eighteenth|nineteenth|twentieth|thirtieth)")
_EN_DAY_OF_YEAR = (r"(?:(" + EN_MONTH + r") (?:the )?" + _EN_DAY + r"|(?:the )?" + _EN_DAY + r" (?:of )?(" + EN_MONTH
                   + r"))(?:,? (\d{4}))?")
_ZH_NUMBER = r"(\d{1,2}|[一二三四五六七八九十]{1,3})"
_ZH_DAY_OF_YEAR = r"(?:(\d{4})年)?" + _ZH_NUMBER + "月" + _ZH_NUMBER + r"(?:日|号)"
# A day as said, for a rule to find, the whole of it its first group: "March 3rd, 1990", "the 3rd of
# March", "1990年5月3日", "三月三号" (``calendar_day`` reads it).
EN_DATE = "(" + _EN_DAY_OF_YEAR + r")\b"
ZH_DATE = "(" + _ZH_DAY_OF_YEAR + ")"
_EN_DATE = re.compile("^" + _EN_DAY_OF_YEAR + "$", re.I)
_ZH_DATE = re.compile("^" + _ZH_DAY_OF_YEAR + "$")


def calendar_day(token: str) -> str | None:
    """A day of the year as stored: "March 3rd" or "the 3rd of March" -> "March 3" (", 1990" when
    a year is said), "三月三号" -> "3月3日"; ``None`` for a day no calendar has."""
    token = " ".join(token.split()).rstrip(".")
    if match := _ZH_DATE.match(token):
        year, month, day = match.group(1), number(match.group(2)), number(match.group(3))
        if month is None or day is None or not (1 <= month <= 12 and 1 <= day <= 31):
            return None
        return f"{year + '年' if year else ''}{month}月{day}日"
    if match := _EN_DATE.match(token):
        month_word = (match.group(1) or match.group(4)).lower()
        day = _day(match.group(2) or match.group(3))
        month = next(i for i, m in enumerate(_MONTHS) if m.startswith(month_word.rstrip(".")[:3]))
        if not 1 <= day <= 31:
            return None
        year = match.group(5)
        return f"{_MONTHS[month].title()} {day}" + (f", {year}" if year else "")
    return None


def _day(token: str) -> int:
    token = token.lower().replace(" ", "-")
    return _ORDINALS.get(token) or int(re.sub(r"\D", "", token) or 0)


NUMERIC_DATE = r"((?:19|20)\d\d[/.-]\d{1,2}[/.-]\d{1,2}|\d{1,2}[/.-]\d{1,2}(?:[/.-](?:19|20)?\d\d)?)(?![\d/.-])"


def numeric_day(token: str, chinese: bool = False) -> str:
    """A day written in digits as stored, when the digits can only be one day: "1990-11-23" (ISO) and
    "14/02" or "2/14" (one part above 12) -> "November 23, 1990", "February 14" ("2月14日" in
    Chinese). An order the digits do not settle ("05/09", "03/12/1990") stays as written."""
    parts = [int(p) for p in re.split(r"[/.-]", token)]
    iso = parts[0] > 31
    year = parts.pop(0) if iso else parts.pop() if len(parts) == 3 else None
    if year is not None and year < 100:
        year += 1900 if year > 30 else 2000
    if iso:
        month, day = parts
    elif parts[0] > 12 >= parts[1]:
        day, month = parts[0], parts[1]
    elif parts[1] > 12 >= parts[0]:
        month, day = parts[0], parts[1]
    else:
        return token
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return token
    if chinese:
        return f"{f'{year}年' if year else ''}{month}月{day}日"
    return f"{_MONTHS[month - 1].title()} {day}" + (f", {year}" if year else "")

# How long, in Chinese: "半年", "两个月", "一周", "三年多" (said after a place: "搬到青岛半年了")
SPAN = r"(?:\d{1,2}|[一二两三四五六七八九十几半]{1,3})多?个?(?:年|月|周|星期|天)多?"
