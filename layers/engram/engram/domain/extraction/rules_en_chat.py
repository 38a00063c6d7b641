"""English rules for how a chat says a fact in passing: an age about to change ("I'll be forty in two
weeks"), a job as the frame of a request ("as a plumber I'm always on the road"), a home said by being
there ("I'm in Leeds now", "been in Dubai for ten years"), an instrument by its article ("I play the
tabla"), a class joined, a degree under way, a skill or a difficulty said by what it does ("javascript
confuses me"), a new diet said bare ("so pescatarian now"), a parent named without "my" ("mum's name is
Margaret"), a name typed in lower case after a greeting. Same subjects as ``rules_en``."""

from __future__ import annotations

import re

from ..model import Predicate as P
from .dates import age
from .rules import Rule
from .rules_en import _AGE_NUMBER, _DIET, _I, _LANGUAGES, ADV, JOB, PERSON, PLACE, _diet, _introduced
from .rules_en_life import _DOING, _GOING, _PASTIMES, _PLAYED, ORG, _employer, _plain_hobby, _subject
from .speech import LETTER


def _age_before(value: str) -> str | None:
    """The age a birthday to come leaves the user at now: "I'll be 40 next week" is 39."""
    years = age(value)
    return str(int(years) - 1) if years and int(years) > 1 else None


# A birthday still to come, near enough to be named: "in two weeks", "next month", "on Saturday".
_SOON = (r"(?:in (?:a|an|one|two|three|four|five|six|a few|a couple of|\d{1,2}) (?:days?|weeks?|months?)|"
         r"next (?:week|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend)|tomorrow|"
         r"this (?:week|weekend|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|on (?:monday|"
         r"tuesday|wednesday|thursday|friday|saturday|sunday))\b")
# Instruments are played with an article, games without ("I play the cello", "I play chess"); what
# else is "played the" is a role or a game of chance.
_NOT_INSTRUMENTS = {"lottery", "field", "victim", "fool", "game", "games", "role", "part", "hero", "villain",
                    "odds", "market", "stock", "stocks", "long", "card", "cards", "system", "martyr", "music",
                    "song", "songs", "album", "radio", "video", "ball", "same", "best", "other", "whole"}


def _instrument(value: str) -> str | None:
    return None if value.lower() in _NOT_INSTRUMENTS else value.lower()


_ACTIVITY = "(" + "|".join((_GOING, _DOING, _PASTIMES, _PLAYED)) + ")"
_DEGREE = (r"(?:undergrad|undergraduate(?: degree)?|degree|bachelor'?s|masters?|master'?s|phd|ph\.d\.|doctorate|"
           r"mba|ba|bsc|bs|msc|ma|llb|llm|a-levels|diploma|postgrad)(?: degree)?")
# Words a name typed in lower case is never: "hey it's me", "hey it's late here".
_NOT_LOWER_NAMES = {"me", "us", "ok", "okay", "fine", "late", "early", "cold", "hot", "true", "done", "over",
                    "time", "here", "there", "back", "real", "official", "weird", "fun", "just", "been", "not",
                    "so", "too", "all", "him", "her", "them", "you", "that", "this", "what", "going"}


def _lower_name(value: str) -> str | None:
    if value.lower() in _NOT_LOWER_NAMES or re.search(r"(?:ing|ed|ly)$", value):
        return None
    return _introduced(value)


RULES: list[Rule] = [
    Rule(re.compile(r"\bi(?:'ll| will) be " + _AGE_NUMBER + r" " + _SOON, _I), P.HAS_AGE, value=_age_before),
    Rule(re.compile(r"\bi(?:'m turning| am turning| turn|'ll turn| will turn) " + _AGE_NUMBER + r" " + _SOON, _I),
         P.HAS_AGE, value=_age_before),
    # "it's my birthday today, so thirty now": the number said with the birthday is the new age
    Rule(re.compile(r"\b(?:it's|its|it is) my (?:birthday|bday) today\b,? (?:so |and )?(?:i'm |i am )?(?:now )?"
                    + _AGE_NUMBER + r"(?: now| today)?(?=\s*[.!,]|\s*$)", _I), P.HAS_AGE, value=age),
    # a job framing what the user goes on to say: "as a plumber I'm always on the road" (not "as a kid")
    Rule(re.compile(r"^as an? " + JOB + r"(?=,? (?:i|i'm|i've|we)\b|,?$)", _I), P.WORKS_AS),
    # where the user is, as a state: "I'm in Manchester now", "I've been in Dubai for ten years"
    # (not "I'm in Paris for the weekend", "I'm in London right now", "I've been in Rome for two days")
    Rule(re.compile(r"\b(?i:i'm|i am) (?i:now |currently )?(?i:in) " + PLACE
                    + r" (?i:now|these days)\b(?! (?i:for|on|until|till)\b)"), P.LIVES_IN),
    Rule(re.compile(r"\b(?i:i'm|i am) (?i:now) (?i:in) " + PLACE + r"(?! (?i:for|on|until|till|right now)\b)"),
         P.LIVES_IN),
    Rule(re.compile(r"\b(?i:i've|i have) (?i:been|lived) (?i:in) " + PLACE + r" (?i:for (?:(?:over |almost |nearly "
                    r"|about |around |roughly |just over )?"
                    r"(?:\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|a few|"
                    r"several|many) years|years|ages|decades)|since)\b"), P.LIVES_IN),
    # "I've been living in Toronto for six years now": a home that goes on to today
    Rule(re.compile(r"\b(?i:i|we)(?i:'ve| have) (?i:been) (?i:living|based) (?i:in) " + PLACE
                    + r"(?! (?i:until|till|temporarily|for (?:now|a (?:few|couple)|the (?:week|weekend|summer))))"),
         P.LIVES_IN),
    Rule(re.compile(r"\b(?i:i|we)(?i:'ve| have)? " + ADV + r"(?i:got|bought|found|rented) (?i:my|our|a) (?i:own|first)"
                    r"(?i: new| little| tiny)? (?i:place|house|home|apartment|flat|condo|studio) (?i:in) " + PLACE),
         P.LIVES_IN),
    Rule(re.compile(r"\bi " + ADV + r"play the ([a-z]{3,20})(?= on | every | at | in | with | for | most | a lot"
                    r"| and | but |\s*[.,!;]|\s*$)", _I), P.HAS_HOBBY, value=_instrument),
    # "just joined a pottery class", "I'm in a running club": the activity the class is for
    Rule(re.compile(r"\bi(?:'ve| have|'m| am)? " + ADV + r"(?:joined|signed up for|enrolled in|in) (?:a|an|the|my) "
                    r"(?:local |new |weekly |evening |beginners'? )?" + _ACTIVITY + r" (?:class|classes|club|team|"
                    r"group|league|course|workshop|crew)\b", _I), P.HAS_HOBBY, value=_plain_hobby),
    # a degree under way or done: "I'm doing my masters at IIT Bombay in civil engineering", "did my
    # undergrad in economics at LSE"
    Rule(re.compile(r"\b(?i:i)(?i:'m| am)? " + ADV + r"(?i:doing|did|do|finished|completed|got) (?i:my) (?i:"
                    + _DEGREE + r")(?: (?i:in) [^.;!?,]{2,40}?)? (?i:at|from) " + ORG), P.STUDIED_AT,
         value=_employer),
    Rule(re.compile(r"\bi(?:'m| am)? " + ADV + r"(?:doing|did|do|finished|completed|got) my " + _DEGREE
                    + r"(?: (?:at|from) [^.;!?,]{2,40}?)? in ([^.;!?,]{2,40}?)(?= at | from |,|$|[.;!?])", _I),
         P.STUDIED, value=_subject),
    Rule(re.compile(r"\bi(?:'m| am) " + ADV + r"(?:bilingual|trilingual|multilingual) in (" + _LANGUAGES + r")\b", _I),
         P.MASTERS, lists=True),
    # a skill said by how well it is done: "I can code in python pretty well"
    Rule(re.compile(r"\bi " + ADV + r"(?:can )?(?:code|program|write|cook|draw|sing|dance|swim) (?:in )?"
                    r"([a-z][\w#+ -]{0,30}?) (?:really |pretty |very |quite |fairly |super )well\b", _I), P.MASTERS),
    # a difficulty said by what it does to the user: "javascript just confuses me"
    Rule(re.compile(r"(?:^|\bbut |\bwhile |\band )([A-Za-z][\w#+' -]{1,40}?) (?:just |really |always |totally |"
                    r"completely )?(?:confuses|"
                    r"confuse|baffles|baffle|defeats|defeat|stumps|stump) me\b", _I), P.STRUGGLES_WITH),
    # a new diet said bare: "so pescatarian now", "I guess vegan now"
    Rule(re.compile(r"(?:\bso,? |^)(?:i (?:guess|suppose|think|reckon),? )?(?:i'm )?(?:a |an )?(?:fully |full-on )?"
                    + _DIET + r" now\b", _I), P.HAS_PREFERENCE, value=_diet),
    # a parent named without "my", as British and Irish speech does: "mum's name is Margaret"
    Rule(re.compile(r"^((?i:mum|mom|mam|dad))(?i:'s name is|'s called| is called) " + PERSON), None, 2,
         relation_group=1),
    # a name typed in lower case, in the one frame that says it is one: "hey its renée btw"
    Rule(re.compile(r"^(?:hi|hey|hello|hiya)(?: there)?[,!.]?\s+(?:it's|its|it is|this is) (" + LETTER + r"{2,30})"
                    r"(?= here\b| btw\b| by the way\b|\s*[,!]|\s*$)", _I), P.HAS_NAME, value=_lower_name),
]
