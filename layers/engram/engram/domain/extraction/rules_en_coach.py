"""English rules for what a user tells a tutor, a money coach or a health coach about themself: a home
said as the frame of a move ("since moving to Tucson, …") or by the rent paid there ("my rent in Dublin",
"I'm renting a one-bedroom in Queens"), a town by the business the user runs there, gig work by the
platform driven for ("I drive for Lyft"), a job of any name after "as" with words between ("I work at
Costco as a stocker"), a school by a pre-professional track ("pre-med at Duke"), a difficulty said of
the subject ("chemistry is my worst subject", "statistics kills me", "I've always been bad at spelling"),
languages by any name ("I speak Yoruba and English"); and (``as_said``) a layoff the user was caught
in ("…, me included"), said as the user's own. Same subjects as ``rules_en``: "my sister's rent in
Chicago" or "my cousin drives for Uber" is not the user's."""

from __future__ import annotations

import re

from ..model import Predicate as P
from .rules import Rule
from .rules_en import _I, _LANGUAGE, _NOT_INTRODUCED, _NOT_NAMES, ADV, END, OBJ, PLACE
from .rules_en_life import _NAMED, ORG, _employer
from .rules_en_news import TAUGHT
from .rules_en_open import _AFTER, _NOT_A_JOB, OPEN_JOB, open_job
from .rules_en_passing import BY_WORK, _place
from .speech import UPPER

# -- a home, by a move said as the frame of what follows, or by the rent paid there ----------------------

# Not a move to come or wished for: "after moving to Denver next year I'll…", "since moving to Canada is my dream".
_NOT_TO_COME = (r"(?![\w'])(?! (?i:is|was|would|will|isn't|wasn't|next|someday|soon|one day|eventually)\b)"
                r"(?!.*\b(?i:i'll|we'll|i will|we will|going to|gonna|planning|plan to|would)\b)")
_MOVED = (r"(?:^|[,;]\s*|\b(?i:and|but|so) )(?i:(?:ever )?since|after) (?i:moving|relocating|settling|moving back|"
          r"moving over|moving out|moving down|moving up)(?: (?i:here|there))? (?i:to|in) " + PLACE + _NOT_TO_COME)
# "my rent in Dublin", "the rent here in Vancouver" (not "my sister's rent in Chicago", "the rent in Paris")
_RENT = r"\b(?i:my rent|my rent here|the rent here|rent here)(?: (?i:here))? (?i:in) " + PLACE
_RENTED = (r"\b(?i:i|we)(?i:'m| am|'re| are)? " + ADV + r"(?i:renting|rent|subletting|sublet) (?i:a|an|my|our|the) "
           r"(?:[\w-]+ ){0,2}?(?i:room|flat|apartment|one-bedroom|two-bedroom|three-bedroom|studio|house|place|"
           r"basement|condo|loft|unit|bedsit|cottage)s? (?i:in) " + PLACE + r"(?![\w'])")
# "rents in SF are killing me", "rent prices in Boston are crushing us"
_RENT_HURTS = (r"\b(?i:rents?|rent prices|the rents?|housing costs)(?: (?i:here))? (?i:in) " + PLACE
               + r" (?i:are|is) (?:(?i:literally|honestly|seriously|really|absolutely) )?(?i:killing|crushing|"
                 r"bankrupting|destroying|eating) (?i:me|us)\b")
# "I run a small dental practice in Leicester", "we own a little guesthouse in Galway": the town of the business
# (its words each once, none made of others: a word listed twice read "small small …" in 2^n ways)
BUSINESS_ADJECTIVES = ("small", "little", "tiny", "family", "busy", "new", "local")
_BUSINESS = (r"\b(?i:i|we) " + ADV + r"(?i:run|own|co-own|manage) (?i:a|an|my|our|the) (?:(?i:"
             + "|".join(BUSINESS_ADJECTIVES) + r") )*(?:(?i:dental|vet|law|medical|yoga|tattoo|hair|nail|physio) )?"
             r"(?i:practice|clinic|shop|store|bakery|caf[eé]|coffee shop|restaurant|bar|pub|salon|guesthouse|"
             r"guest house|b&b|bed and breakfast|hotel|inn|farm|gym|studio|garage|bookshop|bookstore|boutique|"
             r"business|company|firm|agency|food truck|daycare|nursery|florist|brewery|winery|dealership|pharmacy|"
             r"hostel|deli|diner) "
             r"(?i:in) " + PLACE + r"(?![\w'])")

# -- work ------------------------------------------------------------------------------------------------


def _platform(value: str) -> str | None:
    """A platform driven or delivered for, not a person's errand ("driving for Jake's party")."""
    return None if value.endswith(("'s", "’s")) else _employer(value)


# "I drive for Lyft", "I've been delivering for DoorDash" (not "my cousin drives for Uber")
_GIG = (r"\b(?i:i)(?i:'m| am|'ve been| have been)? " + ADV + r"(?i:drive|driving|deliver|delivering|dash|dashing)"
        r"(?: (?i:part[- ]time|full[- ]time))? (?i:for) " + ORG)
# "I work nights as a phlebotomist", "I work at Costco as a stocker": when or where, then the job of any name
_WORK_AS = (r"\b(?i:i|i'm|i am|i've been|i have been) (?i:" + ADV + r")(?i:work|working)(?: (?i:nights|days|weekends|"
            r"evenings|mornings|shifts|night shifts|part[- ]time|full[- ]time|remotely|freelance|from home|"
            r"(?:at|for) " + _NAMED + r")){1,2} (?i:as) (?i:an?) " + _NOT_A_JOB + OPEN_JOB + _AFTER)
# "I'm pre-med at Duke", "I'm a pre-law student at Georgetown"
_TRACK = (r"\b(?i:i'm|i am) (?i:an? )?(?i:pre-?med|pre-?law|pre-?vet|pre-?dental|pre-?pharmacy|pre-?nursing|"
          r"pre-?health)(?: (?i:student))? (?i:at) " + ORG)

# -- a difficulty said of the subject ----------------------------------------------------------------------

_THING = (r"((?!(?:i|i'm|it|this|that|my|your|his|her|their|our|the|and|but|so)\b)[A-Za-z][\w'-]*"
          r"(?: (?!(?:and|but|so|is|are|has|was)\b)[A-Za-z][\w'-]*){0,3})")
_WORST = r"(?:worst|weakest|hardest|toughest)"
_LESSON = r"(?:subject|class|module|course|paper|area|topic)s?"
_SUBJECTS = (r"(?:" + TAUGHT + r"|algebra|geometry|calculus|calc|trigonometry|trig|statistics|stats|organic chemistry|"
             r"orgo|chem|bio|econ|psych|grammar|spelling|essay writing|essays|fractions|quant|mental maths|mental math|"
             r"accounting|finance|coding|programming|latin|reading comprehension)")
# A subject by its short name is the subject ("stats is killing me" struggles with statistics).
_SHORT_SUBJECTS = {"stats": "statistics", "trig": "trigonometry", "orgo": "organic chemistry", "calc": "calculus",
                   "chem": "chemistry", "bio": "biology", "econ": "economics", "psych": "psychology"}


def _subject_named(value: str) -> str:
    return _SHORT_SUBJECTS.get(value.lower(), value)

# -- languages by any name -----------------------------------------------------------------------------------

_A_LANGUAGE = r"(?:" + _LANGUAGE + r"|" + UPPER + r"[a-z]{1,15})"


def _language(value: str) -> str | None:
    """A language by any name, not a day ("I speak Monday at the meeting") or a word that is no language."""
    word = value.lower()
    if re.fullmatch(_LANGUAGE, word):
        return value
    return None if word in _NOT_INTRODUCED or word in _NOT_NAMES else value


def _town(value: str) -> str | None:
    """The place alone, not the subject that follows it unpunctuated ("since moving to Tucson I've …")."""
    return re.split(r" (?=I(?:'[a-z]+)?\b)", value)[0] or None


RULES: list[Rule] = [
    Rule(re.compile(_MOVED), P.LIVES_IN, value=_town),
    Rule(re.compile(_RENT), P.LIVES_IN),
    Rule(re.compile(_RENTED), P.LIVES_IN),
    Rule(re.compile(_RENT_HURTS), P.LIVES_IN),
    Rule(re.compile(_BUSINESS), P.LIVES_IN, value=_place, tags=(BY_WORK,)),
    Rule(re.compile(_GIG), P.WORKS_AT, value=_platform),
    Rule(re.compile(_WORK_AS), P.WORKS_AS, value=open_job),
    Rule(re.compile(_TRACK), P.STUDIED_AT, value=_employer),
    # "chemistry is my worst subject", "… and organic chemistry is my worst class"
    Rule(re.compile(r"(?:^|\b(?:and|but|so|honestly|tbh),? )" + _THING + r" (?:is|are|has always been|was always|"
                    r"has to be) (?:(?:by far|easily|definitely|honestly|always) )?my " + _WORST + " " + _LESSON
                    + r"\b", _I), P.STRUGGLES_WITH),
    Rule(re.compile(r"\bmy " + _WORST + " " + _LESSON + r" (?:is|are|has always been|was always|has to be) " + OBJ
                    + END, _I), P.STRUGGLES_WITH),
    # "I've always been terrible at spelling", "I've never been good at maths"
    Rule(re.compile(r"\bi(?:'ve| have) " + ADV + r"(?:always )?been " + ADV + r"(?:bad|terrible|awful|hopeless|useless|"
                    r"rubbish|weak) (?:at|in|with) " + OBJ + END, _I), P.STRUGGLES_WITH, lists=True),
    Rule(re.compile(r"\bi(?:'ve| have) never been (?:very |that |any |particularly |much )?(?:good|great) "
                    r"(?:at|in|with) " + OBJ + END, _I), P.STRUGGLES_WITH, lists=True),
    # "statistics kills me", "… but geometry kills me" (a school subject: "this commute kills me" is no difficulty)
    Rule(re.compile(r"(?:^|\b(?:but|and|honestly|tbh),? )(" + _SUBJECTS + r")(?: class| homework| exams?)? (?:kills|"
                    r"is killing|destroys|wrecks) me\b", _I), P.STRUGGLES_WITH, value=_subject_named),
    # "I speak Yoruba and English", "I can speak Tagalog and Ilocano" (not "I speak Spanish and Maria speaks…")
    Rule(re.compile(r"\b(?i:i) " + ADV + r"(?i:speak|can speak|also speak)(?: (?i:fluent|decent|good|native))? ("
                    + _A_LANGUAGE + r"(?:(?:,? (?i:and) |, | & )" + _A_LANGUAGE + r")*)(?=\s*$|\s*[.,;!?]| (?i:at|with|"
                    r"to|and|but|fluently|well|a bit|every|too|as well|now|daily|since|natively)\b)"),
         P.MASTERS, lists=True, value=_language),
]

# -- a layoff the user was caught in ------------------------------------------------------------------------

_CAUGHT = re.compile(r"\b(laid off|let go|cut|fired|made redundant|axed)\b([^.!?\n]{0,80}?),? (?:and )?(?:me included|"
                     r"including me|myself included|i was one of them|i'm out too|i am out too|i'm out as well|"
                     r"i was among them)\b", _I)


def as_said(text: str) -> str:
    """"They cut my whole department, me included" said as "…. I got laid off", which ends the job."""
    return _CAUGHT.sub(lambda m: f"{m.group(1)}{m.group(2)}. I got laid off", text)
