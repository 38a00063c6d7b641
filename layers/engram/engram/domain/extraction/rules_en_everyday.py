"""English rules for how everyday chat says a fact: a job by the job itself ("my job as a line cook",
"I make 52k as a barista"), a condition the user "gets" ("I get migraines"), a parent of children
named after how many ("mom of two, Lily and Max"), a home, a school or an employer typed in lower case
in a message typed all in lower case ("just moved to seattle", "an econ major at nyu"), a home said by
the part of town ("in my part of Brooklyn"), a home said as "currently in X". Same subjects as
``rules_en``: "my sister's job as a nurse" or "my daughter gets migraines" is not the user's."""

from __future__ import annotations

import re

from ..model import Predicate as P
from .rules import HERE_NOW, Rule
from .rules_en import _I, ADV, CONDITIONS, END, JOB, OBJ, PEOPLE, PLACE
from .rules_en_chat import _ACTIVITY, _lower_name
from .rules_en_life import ORG, _employer
from .rules_en_news import _low_employer, _low_place
from .speech import LETTER

# -- a job by the job itself -------------------------------------------------------------------------------

# Not a job left, lost or only wished for: "I quit my job as a waiter", "my dream job as a pilot",
# "my old job as a lifeguard".
_KEPT = (r"^(?!.*\b(?:quit|quitting|left|leaving|lost|losing|fired|laid off|let go|resigned|retired|sacked|"
         r"redundant|miss|missed|former|used to|was|were)\b)")
_NOT_KEPT = r"(?!(?:dream|old|previous|last|former|next|future|ideal|perfect|new-to-be|would-be)\b)"
# "my job as a line cook", "my first proper job as a junior accountant" (the user's own: not "my sister's job")
# (a word that starts a new phrase ends the user's: "my brother got a job as a welder" is his)
_MY_JOB_AS = (r"\bmy (?:" + _NOT_KEPT + r"(?![\w-]+'s\b)(?!(?:a|an|the|his|her|their|its|our|your|got|gets|has|had|"
              r"is|was|landed|took|found|started)\b)[\w-]+ ){0,3}?(?:job|position|role|gig|work) as an? ")
# "I make like 52k as a barista", "I earn about 40k as a teaching assistant", "I barely make 30k as a TA"
_EARN_AS = (r"\bi " + ADV + r"(?:(?:only|barely|hardly|only just) )?(?:make|earn|get paid|take home|bring (?:in|home)) "
            r"[^,.;!?]{1,25}? as an? ")

# -- a message typed all in lower case ---------------------------------------------------------------------

# No capital but "I" (which the rules put back): the user does not capitalise, so a name may be lower case.
_ALL_LOWER = r"^(?!.*[A-HJ-Z])"
_LOW = (r"(?!(?:the|my|our|your|their|his|her|this|that|some|any)\b)([a-z][a-z'-]{2,20}(?: (?!(?:last|this|next|in|"
        r"on|for|with|and|but|so|lol|now|yesterday|today|recently|earlier|because|since|to|from|a|an|the|after|before|"
        r"while|when|where|which|is|was|rn|tbh|ngl|haha)\b)[a-z][a-z'-]{2,20})?)")
_LOW_END = (r"(?=\s*(?:$|[,.;!?])| (?:last|this|next|in|on|for|with|and|but|so|lol|now|yesterday|today|recently|"
            r"earlier|because|since|to|from|after|before|while|rn|tbh|ngl|haha|is|was|has|went)\b)")
# Not a place moved to: "moved to another city", "moved to be near family", "moved to their place".
_NOT_LOW_PLACES = {"another", "their", "his", "her", "our", "your", "this", "that", "these", "those", "some", "new",
                   "live", "stay", "help", "study", "take", "start", "make", "get", "find", "join", "see", "look",
                   "teach", "open", "part", "remote", "nights", "days", "weekends", "night", "one", "two",
                   "the", "city", "town", "country", "countryside", "suburbs", "coast", "states", "village", "uni",
                   "college", "school", "campus", "europe", "asia", "africa", "america", "mine", "theirs", "tears"}


def _moved_low(value: str) -> str | None:
    first = value.split()[0]
    return None if first in _NOT_LOW_PLACES or first.endswith(("ing", "ed", "ly")) else _low_place(value)


# Not a name, before "nice to meet you": how the user feels ("im nervous lol nice to meet you").
_MOODS = {"shy", "nervous", "bored", "hungry", "sleepy", "late", "early", "lost", "confused", "curious", "awkward",
          "anxious", "thrilled", "honored", "honoured", "delighted", "stoked", "pumped", "new", "glad", "pleased"}


def _met_name(value: str) -> str | None:
    lowered = value.lower()
    return None if lowered in _MOODS or lowered.endswith(("ous", "ful", "ive", "less", "able", "ible")) \
        else _lower_name(value)


def _low_school(value: str) -> str | None:
    return None if value.split()[0] in {"the", "a", "an", "my", "home", "school", "uni", "college"} else value


RULES: list[Rule] = [
    Rule(re.compile(_KEPT + r".*?" + _MY_JOB_AS + JOB, _I), P.WORKS_AS),
    Rule(re.compile(r"(?i:" + _KEPT + r".*?" + _MY_JOB_AS + JOB + r") (?i:at|for|with) " + ORG), P.WORKS_AT, 2,
         value=_employer),
    Rule(re.compile(_EARN_AS + JOB, _I), P.WORKS_AS),
    Rule(re.compile(r"(?i:" + _EARN_AS + JOB + r") (?i:at|for|with) " + ORG), P.WORKS_AT, 2, value=_employer),
    # "hey im zoë lol nice to meet you": a word typed in lower case is a name in the frame of meeting
    Rule(re.compile(r"^(?:(?:hi|hey|hello|hiya)\W+)?(?:i'm|i am) (" + LETTER + r"{2,30})(?: (?:lol|haha|btw|here))?"
                    r"[,!.]?\s+(?:(?:it's|its) )?(?:nice|pleased|glad|good|great) to meet (?:you|u|ya)\b", _I),
         P.HAS_NAME, value=_met_name),
    # "I'm all about spicy food" (an activity the user is all about is a pastime, read in rules_en_life)
    Rule(re.compile(r"\bi(?:'m| am) " + ADV + r"all about (?!(?:the )?" + _ACTIVITY + r"\b)" + OBJ + END, _I),
         P.HAS_PREFERENCE, 2, lists=True),
    # "I get migraines", "i get really bad eczema in winter" (not "my daughter gets migraines")
    Rule(re.compile(r"\bi " + ADV + r"(?:get|keep getting|tend to get|still get) (?:(?:really|very|quite|pretty|so|"
                    r"super) )?(?:(?:bad|terrible|awful|severe|horrible|mild|chronic|seasonal|occasional|frequent|"
                    r"the odd|the occasional|a lot of|lots of) )?(" + CONDITIONS + r")\b", _I), P.HAS_CONDITION),
    # "I'm a mom of two, Lily and Max", "proud dad of three: Sam, Ella and Noah", "single mum of a 4 year old, Ruby"
    Rule(re.compile(r"(?:\b(?i:i'm|i am) |^)(?i:an? )?(?i:(?:proud|single|busy|working|tired|full-time|"
                    r"stay-at-home|new|first-time|solo|divorced|widowed) ){0,2}(?i:mom|mum|mother|mama|dad|father|"
                    r"papa|parent) (?i:of) (?i:[\w-]+ ){0,4}?(?i:[\w-]+)[,:] " + PEOPLE), P.HAS_CHILD, lists=True),
    # where the user lives, by the part of it they live in: "rent in my part of Brooklyn went up"
    Rule(re.compile(r"\b(?i:my (?:part|corner|side|end|bit) of) " + PLACE), P.LIVES_IN),
    # "currently in Austin, looking for a dentist" (not "currently in Paris for a conference")
    Rule(re.compile(r"\b(?i:i'm|i am) (?i:currently) (?i:in) " + PLACE + r"(?![\w'])"
                    r"(?! (?i:for|on|until|till|right now|this|"
                    r"today|tonight|at the moment|visiting|over)\b)(?!,? (?i:visiting|on (?:a |my )?(?:trip|holiday|"
                    r"vacation|business)|for (?:work|a|the))\b)"), P.LIVES_IN, tags=(HERE_NOW,)),
    # the same, typed all in lower case
    Rule(re.compile(_ALL_LOWER + r"(?i:.*?\b(?:i|we)(?:'ve| have)? " + ADV + r"(?:moved|relocated)"
                    r"(?: back| over| out| here| down| up){0,2} to )" + _LOW + _LOW_END), P.LIVES_IN, value=_moved_low),
    Rule(re.compile(_ALL_LOWER + r".*?\bmy (?:(?:rent|landlord|landlady|apartment|flat|neighbou?rhood|commute) "
                    r"(?:here )?in|(?:part|corner|side|end) of) " + _LOW + _LOW_END), P.LIVES_IN,
         value=_moved_low),
    Rule(re.compile(_ALL_LOWER + r"(?i:.*?\bi(?:'m| am) an? (?:[\w-]+ ){0,2}?(?:major|student) (?:at|in) )" + _LOW
                    + _LOW_END), P.STUDIED_AT, value=_low_school),
    Rule(re.compile(_ALL_LOWER + r"(?i:.*?(?:\bi " + ADV + r"(?:work|am working|'m working) as an? |" + _MY_JOB_AS
                    + r"|" + _EARN_AS + r")" + JOB + r" (?:at|for) )" + _LOW + _LOW_END), P.WORKS_AT, 2,
         value=_low_employer),
]
