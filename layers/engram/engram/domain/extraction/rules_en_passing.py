"""English rules for facts a longer message says in passing or as news: a condition named as the
user's ("because of my type 2 diabetes"), a diet taken up ("since going vegan"), a promotion, a new
partner ("I've started seeing someone called Farah"), whom the user reports to, a taste come round
to, a new activity in place of an old one ("switched to swimming"), the city a job is in ("a
teacher in Seville"), a field read at a university ("did economics at Duke"). Same subjects as
``rules_en``: "my sister's asthma" or "she got promoted" is not the user's."""

from __future__ import annotations

import re

from ..model import Predicate as P
from .rules import Rule
from .rules_en import _DIET, _I, _LANGUAGES, ADV, CONDITIONS, END, JOB, NAME, OBJ, PERSON, PLACE, _diet
from .rules_en_chat import _ACTIVITY, _DEGREE, _lower_name
from .rules_en_life import _HABIT_VERBS, _PLAYED, _WORK, ORG, _employer, _habit, _origin, _plain_hobby

# An illness the user calls theirs is theirs, whatever the sentence asks or wants of it.
_HEALED = (r"(?:has |is |'s |was )?(?:now |finally |completely |totally )*(?:cleared up|gone|cured|healed|over|"
           r"in remission)")
# Fields of study, for the verbs that say study only of one ("I did economics at Duke").
_FIELDS = (r"(economics|law|medicine|history|physics|chemistry|biology|maths|math|mathematics|english(?: literature)?|"
           r"computer science|engineering|[a-z]+ engineering|psychology|philosophy|nursing|architecture|politics|"
           r"political science|sociology|geography|linguistics|classics|theology|anthropology|pharmacy|dentistry|"
           r"veterinary science|statistics|journalism|education|fine art|music|modern languages|french|german|"
           r"spanish|italian|japanese|chinese|pe|ppe|biochemistry|neuroscience|geology|astrophysics)")


# A home read from where the user works, which a home said outright overrides ("I live in Reading
# and work in London"): ``extraction.extract_facts`` keeps it only when no other home is said.
BY_WORK = "by_work"


def _place(value: str) -> str | None:
    """A place, not a department or a body by its initials ("a nurse in the NHS")."""
    return None if value.isupper() else _origin(value)


MY_CONDITION = Rule(re.compile(r"\bmy (" + CONDITIONS + r")\b(?! " + _HEALED + r"| about\b)", _I), P.HAS_CONDITION)
# "is my peanut allergy a problem?", "severe nut allergy here": the allergen named before the word.
MY_ALLERGY = Rule(re.compile(r"(?:\bmy|^)(?:\s*(?:severe|bad|mild|serious|deadly|awful)\b)?\s*((?!(?:food|an?|the|some|"
                             r"any|my)\b)[a-z]+(?: nut)?) allergy\b(?! (?:season|test|testing|clinic|meds|medication))",
                             _I), P.ALLERGIC_TO)
# Named as the user's, in a question too ("is my nut allergy a problem for marzipan?").
PRESUPPOSED = [MY_CONDITION, MY_ALLERGY]

RULES: list[Rule] = [
    MY_CONDITION,
    MY_ALLERGY,
    # a job held for a while and still: "I've been a software engineer at Spotify for six years"
    Rule(re.compile(r"\bi(?:'ve| have) been an? " + JOB + r"(?= (?:at|for|since|with|in)\b|\s*$|[,.;!])", _I),
         P.WORKS_AS),
    Rule(re.compile(r"\b(?i:i)(?i:'ve| have) (?i:been) (?i:an?) (?i:" + JOB + r") (?i:at|with|for) " + ORG), P.WORKS_AT,
         2, value=_employer),
    Rule(re.compile(r"(?:\b(?:since|after)|\bi(?:'ve| have)?) (?:just |recently |finally )?(?:going|went|gone|turning|"
                    r"turned|becoming|became|become) (?:fully |full )?" + _DIET + r"\b", _I), P.HAS_PREFERENCE,
         value=_diet),
    Rule(re.compile(r"\bi(?:'ve| have|'m| am| was)? (?:just |finally |recently |officially )?(?:got |been |was )?"
                    r"promoted to (?:an? |the role of |the position of )?" + JOB, _I), P.WORKS_AS),
    # (not "I'm seeing Dr Patel tomorrow": a partner is seen as a habit, or dated)
    Rule(re.compile(r"\b(?i:i)(?i:'ve| have| am|'m)? (?i:since |just |recently )?(?i:(?:been|started) (?:seeing|dating|"
                    r"going out with)|dating)(?i: someone| somebody"
                    r"| a (?:guy|girl|man|woman|lad|bloke))?(?i: called| named)? (?!(?:Dr|Doctor|Mr|Mrs|Ms|Prof|"
                    r"Professor)\b)" + NAME), P.HAS_SPOUSE),
    Rule(re.compile(r"\b(?i:i) (?i:now |currently |directly |still )?(?i:report) (?i:directly )?(?i:to) " + PERSON),
         P.HAS_MANAGER),
    Rule(re.compile(r"\bi(?:'ve| have)? " + ADV + r"(?:(?:come|came) (?:a)?round to|warmed (?:up )?to|grown to "
                    r"(?:like|love)|started (?:liking|loving|to like|to love)) " + OBJ + END, _I), P.HAS_PREFERENCE),
    Rule(re.compile(r"\bi(?:'ve| have)? " + ADV + r"(?:switched|moved|changed|turned) (?:over )?to " + _ACTIVITY
                    + r"\b", _I), P.HAS_HOBBY, value=_plain_hobby),
    Rule(re.compile(r"\b(?i:i'm|i am) (?i:an? )" + JOB + r" (?i:in) " + PLACE + r"(?![\w'])"), P.LIVES_IN, 2,
         value=_place, tags=(BY_WORK,)),
    Rule(re.compile(r"\b(?i:i) (?i:teach) [^.,;!?]{2,30}? (?i:in) " + PLACE + r"(?![\w'])"), P.LIVES_IN,
         value=_place, tags=(BY_WORK,)),
    Rule(re.compile(_WORK + r"(?: (?i:as) (?i:an?) " + JOB + r")? (?i:in) " + PLACE + r"(?![\w'])"), P.LIVES_IN, 2,
         value=_place, tags=(BY_WORK,)),
    # "the worst part of being a dentist": the user's job, framing what they say
    Rule(re.compile(r"\bthe (?:worst|best|hardest|toughest|funniest|weirdest|only good|nicest) (?:part|thing|bit) "
                    r"(?:of|about) being an? " + JOB, _I), P.WORKS_AS),
    # "Bartłomiej here, Polish guy living in Glasgow": the user described, at a clause's start
    Rule(re.compile(r"^(?:just )?(?:an? )?(?:[\w-]+ ){0,2}(?i:guy|girl|woman|man|lad|bloke|mum|mom|dad|expat|student|"
                    r"person) (?i:living|based) (?i:in) " + PLACE), P.LIVES_IN),
    # "I moved to Austin for a job at Dell"
    Rule(re.compile(r"\b(?i:i|we)(?i:'ve| have)? (?i:just |recently )?(?i:moved|relocated|came)\b[^.;!?]{0,40}? "
                    r"(?i:for) (?i:a|my|the) (?i:new )?(?i:job|role|position) (?i:at|with) " + ORG), P.WORKS_AT,
         value=_employer),
    # "we just had our first baby, a little girl called Maja"
    Rule(re.compile(r"(?:\b(?i:i|we) (?i:just |recently |finally )?(?i:had|welcomed) (?i:my|a)|\b(?i:had|welcomed) "
                    r"(?i:our)) (?i:first |second |third |new )?(?i:baby|son|daughter|child)[^.!?]{0,30}? "
                    r"(?i:called|named) " + PERSON), P.HAS_CHILD),
    # "moved back in with my parents in Croydon"
    Rule(re.compile(r"\b(?i:i|we)(?i:'ve| have)? (?i:just |recently )?(?i:moved) (?i:back )?(?i:in) (?i:with) "
                    r"[^.,;!?]{2,30}? (?i:in) " + PLACE), P.LIVES_IN),
    # "…, doing yoga now": an activity taken up, said bare after the user's clause (not one to fill a pause:
    # "no running for a few months, doing yoga instead")
    Rule(re.compile(r"^(?!.*\b(?:for (?:a few|a couple of|the next|\w+) (?:days|weeks|months)|for now|"
                    r"for the time being|until|till|while)\b).*?(?:^|\bi'm |\bi am |,\s*)(?:now )?(?:doing|into) "
                    + _ACTIVITY + r" (?:now|instead|these days)\b",
                    _I), P.HAS_HOBBY, value=_plain_hobby),
    # "In my spare time I paint watercolours": the habit's frame said first
    Rule(re.compile(r"\b(?:in my (?:spare|free|down) time|for fun|as a hobby|on (?:the )?weekends),? i (?:like to "
                    r"|love to |enjoy |mostly |usually )?(" + "|".join(_HABIT_VERBS) + r")\b"
                    r"(?! (?:a|an|the|my|our|some)\b)", _I), P.HAS_HOBBY, value=_habit),
    # "I've been learning the guitar for a year"
    Rule(re.compile(r"\bi(?:'ve been| have been|'m| am) " + ADV + r"(?:learning|practi[cs]ing|taking up|taking) "
                    r"(?:to play )?(" + _PLAYED + r"|" + _ACTIVITY[1:-1] + r")(?= for| since| lately| at| with| on"
                    r"| again|\s*[.,!;]|\s*$)", _I), P.HAS_HOBBY, value=_plain_hobby),
    # "Not a fan of horror movies", "I'm not really a fan of jazz"
    Rule(re.compile(r"(?:^|\bi'm |\bi am )(?:really |honestly |just )?not (?:really |much of )?(?:a |the )?"
                    r"(?:big |huge )?fan of " + OBJ + END, _I), P.DISLIKES),
    # "We moved here from Manila when I was ten": where a childhood was
    Rule(re.compile(r"\b(?i:i|we) (?i:moved|came|emigrated) (?i:here |over |to \S+(?: \S+)? )?(?i:from) (?:the )?"
                    + NAME + r" (?i:when i was (?:a kid|little|young|small|\w+)|as a (?:kid|child|baby|teenager))"),
         P.COMES_FROM),
    # "London feels like home now"
    Rule(re.compile(r"(?:^|\b(?i:but|and|so) |, )" + PLACE + r" (?i:feels like (?:my )?home|is my home|has become "
                    r"(?:my )?home|became (?:my )?home)(?: (?i:now|these days))?\s*(?:$|[.,!;])"), P.LIVES_IN),
    # "my name is josé": the one frame that says a word typed in lower case is a name
    Rule(re.compile(r"\bmy name is ([a-z\u00e0-\u024f'-]{2,30})(?=\s*(?:$|[.,!;]| and | from | btw))"), P.HAS_NAME,
         value=_lower_name),
    # "I've just started a PhD in marine biology at Plymouth": a degree begun
    Rule(re.compile(r"\bi(?:'ve| have)? (?:just |recently )?(?:started|begun|began) (?:a|an|my) " + _DEGREE
                    + r" in ([a-z][a-z ]{2,40}?) at (?=(?-i:[A-Z]))", _I), P.STUDIED),
    Rule(re.compile(r"\b(?i:i)(?i:'ve| have)? (?i:just |recently )?(?i:started|begun|began) (?i:a|an|my) (?i:" + _DEGREE
                    + r")(?: (?i:in) [^.;!?,]{2,40}?)? (?i:at) " + ORG), P.STUDIED_AT, value=_employer),
    # "Spanish is my first language", "Cantonese is my mother tongue"
    Rule(re.compile(r"^(" + _LANGUAGES + r") (?:is|was) my (?:first|native|mother|home) (?:language|tongue)\b", _I),
         P.MASTERS, lists=True),
    Rule(re.compile(r"\bi (?:did|read|took) " + _FIELDS + r" (?:at|in) (?=(?-i:[A-Z]))", _I), P.STUDIED),
    Rule(re.compile(r"\b(?i:i) (?i:did|read|took) (?i:" + _FIELDS + r") (?i:at) " + ORG), P.STUDIED_AT, 2,
         value=_employer),
]
