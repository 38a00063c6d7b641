"""English rules for a life told as news and a self told in fragments: a new home said by being in it
("finished unpacking in our new place in San Antonio", "officially a Seattle resident now"), a new job
by its start ("starting at a fintech called Ledgerly on Monday as their controller", "going freelance
as a photographer"), a field switched to; a forum's "41M, electrician in Manchester", a student's
field and school, a subject taught; what is done "as a hobby"; kin named in lower case ("my boyfriend
marco made…"), a pet named after "her name is"; and tastes said sideways ("X is the only thing that
gets me through…", "X is a hard no for me", "nothing beats a long hike"). What these leave behind
(the job left on its last day, the field switched from, a diet given up) is ended in ``rules_change``.
Same subjects as ``rules_en``: "my wife starts at Google on Monday" is not the user's."""

from __future__ import annotations

import re

from ..model import Predicate as P
from .rules import Rule
from .rules_change import SWITCHED_FIELD, TRANSFERRED
from .rules_en import (
    _HAVE,
    _I,
    _PET_COUNT,
    _PET_LOOKS,
    ADV,
    END,
    JOB,
    NAME,
    OBJ,
    OCCUPATIONS,
    PEOPLE,
    PET,
    PLACE,
    RELATION,
    RELATION_MOD,
)
from .rules_en_chat import _NOT_LOWER_NAMES
from .rules_en_life import _NOT_ORIGINS, _WORK, ORG, WORKPLACE, _employer, _origin, _subject
from .rules_en_open import _AFTER, _NOT_A_JOB, _NOT_PASTIMES, OPEN_JOB, open_job
from .rules_en_passing import BY_WORK, _place

# -- a new home, said by being in it -------------------------------------------------------------------

# Not a home to come: "can't wait to move into our new place in Reno next month".
_NOT_YET = (r"^(?!.*\b(?i:can't wait|cannot wait|will|going to|gonna|next (?:week|month|year)|planning|plan to|hoping|"
            r"hope to|soon|might|want|would|thinking|looking at|viewing|touring)\b)(?!.*(?i:'ll)\b)")
_HOME = r"(?i:place|home|house|apartment|flat|condo|studio|townhouse|digs)"
# "our new place in San Antonio", "my new flat in Leeds" (not "my sister's new place")
_NEW_HOME = _NOT_YET + r".*?\b(?i:our|my) (?i:new|own|first)(?i: new| own)? " + _HOME + r" (?i:in) " + PLACE
# "we closed on the house in Raleigh", "got the keys to our house in Asheville"
_HOME_BOUGHT = (r"\b(?i:we|i)(?i:'ve| have)? " + ADV + r"(?i:closed on|got the keys to|got the keys for) "
                r"(?i:the|our|my) "
                r"(?i:new )?" + _HOME + r" (?i:in) " + PLACE)
# "I'm officially a Seattle resident now", "been a Portland local for years", "a resident of Halifax"
# ("officially a Denver resident now": the subject dropped from news)
_RESIDENT = (r"(?:\b(?i:i'm|i am|i've been|i have been|i became|we're|we are) |^(?=(?i:officially|now|finally)\b))"
             + ADV
             + r"(?i:an?) (?:(?i:proud|full-time) )?"
             + NAME + r" (?i:resident|local)s?\b")
_RESIDENT_OF = (r"\b(?i:i'm|i am|i've been|i have been|i became) " + ADV + r"(?i:a) (?i:(?:permanent|full-time) )?"
                r"(?i:resident) (?i:of) " + PLACE)
# "I'm still in Berlin until then": where the user stays until a move
_STILL_IN = (r"\b(?i:i'm|i am|we're|we are) (?i:still) (?i:in) " + PLACE + r"(?= (?i:until|till|til) (?:then|the move|"
             r"we move|i move|we leave|i leave|that)\b)")

# -- a new job, by its start ---------------------------------------------------------------------------

_START = (r"\b(?i:i'm|i am|i|i'll be|i will be)(?i: just| finally| officially)? (?i:starting|start|started|beginning|"
          r"begin|began) (?i:(?:a new job |my new job |work |working )?(?:at|with)) ")
# "a small fintech called Ledgerly": an employer introduced by its name
_CALLED = r"(?i:an?) (?:[\w-]+ ){0,3}?(?i:called|named) "
# "… on Monday as their controller": the job the start is as
_AS_THEIR = r"[^,.;!?]{1,60}? (?i:as) (?i:their|an?|the|its) (?i:new )?"
# who starts somewhere as no member of its staff: "starting at Harvard in the fall as a freshman"
_NOT_STAFF = (r"(?!(?:[\w-]+ )?(?i:freshman|freshmen|student|sophomore|junior|senior|undergrad|fresher|pupil|member|"
              r"volunteer|guest|customer)s?\b)")
_NOT_LISTED = r"(?!(?:[A-Za-z-]+ ){0,2}?(?i:" + OCCUPATIONS + r")s?\b)"
# "Going freelance as a photographer", "I went self-employed as a plumber" (not "thinking about going …")
_FREELANCE = (r"(?:^|\b(?i:i'm|i am|i've|i have|i) )(?i:just |finally |now |officially )?(?i:going|gone|went|go) "
              r"(?i:freelance|self-employed|solo|independent) (?i:as) (?i:an?) ")
# where a job said after "as" ends: what ``_AFTER`` ends it at, or a time
_JOB_END = r"(?:" + _AFTER + r"|(?= (?:last|this|next|yesterday|today|tomorrow|on|in \d{4})\b))"
_FIELD_END = (r"(?=\s*(?:$|[,.;!?])| (?:this|last|next|at|in|from|because|since|and|but|so|after|before|instead|"
              r"now)\b)")

# -- a self in fragments -------------------------------------------------------------------------------

# "41M, electrician in Manchester": an age and a sex, then what and where the user is
_AGE_SEX = r"^\d{2}\s?(?:[MFmf]|NB|nb),\s*(?:(?i:an?) )?"
# "been restoring old motorbikes as a hobby": what the user does as a hobby
_AS_HOBBY = (r"\b(?i:i)(?i:'ve been| have been|'m| am)? " + ADV + r"([a-z]+ing(?: [a-z'-]+){0,3}?) (?i:as a|for a) "
             r"(?i:hobby|pastime|side hobby)\b")


def _hobby(value: str) -> str | None:
    return None if value.split()[0].lower() in _NOT_PASTIMES else value.lower()


_STUDENT = (r"\b(?i:i'm|i am) (?i:an? )?(?:(?i:phd|ph\.d\.|grad|graduate|undergrad|undergraduate|doctoral|"
            r"master'?s|masters|[\w-]+-year|exchange|mature|part-time|full-time) ){0,2}"
            r"(?i:student|candidate|undergrad) (?i:in|of|studying) ")
TAUGHT = (r"maths|math|english|history|science|physics|chemistry|biology|art|music|yoga|piano|french|spanish|german|"
          r"geography|drama|economics|computer science|guitar|violin|dance|pilates")

# A lower-case word after "my boyfriend" is a name when a verb follows it ("my boyfriend marco made…"),
# and is none of the words that go there instead ("my boyfriend never made…", "my friend group is…").
_NOT_KIN_NAMES = set(
    "just is was has had and or but who that which also always never ever still even then now here there again "
    "name names "
    "already often sometimes usually once twice too only really from at in on with of to for by is are were will "
    "would can could did does do got gets made said says told asked took came went left won lost called texted "
    "today yesterday tonight last this next tho though rn lol group groups circle chat house home car family team "
    "list work job life birthday wedding party school class dog cat kid kids baby mom mum dad brother sister son "
    "daughter friend friends wife husband boyfriend girlfriend partner boss manager coworker colleague parents "
    "literally basically apparently finally recently actually totally seriously honestly".split()) | _NOT_LOWER_NAMES
_KIN_VERB = (r"(?= (?:is|was|has|had|just|made|said|got|took|came|went|bought|told|asked|gave|cooked|baked|sent|found|"
             r"left|won|broke|called|texted|surprised|[a-z]{3,}ed)\b)")


def _kin_name(value: str) -> str | None:
    word = value.lower()
    return None if word in _NOT_KIN_NAMES or re.search(r"(?:ly|ed|ing)$", word) else value


_BEATEN = {"hike": "hiking", "swim": "swimming", "run": "running", "walk": "walking", "jog": "jogging",
           "bike ride": "cycling", "ride": "riding", "cycle": "cycling", "climb": "climbing", "surf": "surfing",
           "ski": "skiing", "stroll": "walking", "paddle": "paddleboarding", "dance": "dancing"}


def _beaten(value: str) -> str | None:
    """"a long hike on a Sunday morning" is hiking; "fresh sourdough on a cold day" is fresh sourdough."""
    value = re.sub(r"\s+(?:on|after|before|during|at|in|with|when|first thing)\s.*$", "", value, flags=_I)
    bare = re.sub(r"^(?:(?:a|an|good|long|nice|quick|brisk|early|proper|hard|big|short|lazy|morning|evening|"
                  r"relaxing|solid|decent)\s+)+", "", value.lower())
    return _BEATEN.get(bare, value) if value else None


_LOW_PLACE = r"([a-z][a-z'-]{2,20}(?: (?!originally\b)[a-z][a-z'-]{2,20})?)"


def _low_place(value: str) -> str | None:
    first = value.split()[0]
    return None if first in _NOT_ORIGINS | {"here", "there", "home", "work", "school", "the", "out", "around",
                                            "abroad", "overseas", "somewhere", "nowhere", "everywhere"} else value


_SMALL_PLACE = (r"\b(?i:i'm|i am|i come)(?i: originally)? (?i:from) (?i:an?) (?i:(?:tiny|small|little|big|rural|remote|"
                r"sleepy|quiet|coastal|mountain|fishing|farming) ){0,2}(?i:town|village|city|island|suburb|place|farm|"
                r"community) (?i:in|outside|outside of|near|on) ")
_LOW_END = r"(?=,? (?i:originally)\b|\s*(?:$|[,.;!?]))"
# "been workin at walmart for 2 years": an employer in lower case, in a message typed all in lower case
_LOW_EMPLOYER = (r"^(?!.*[A-HJ-Z])(?:.*?\b)?[iI](?:'m|'ve been| am| have been)? " + ADV
                 + r"(?:working|work) (?:at|for) "
                 r"([a-z][\w&'-]+(?: [a-z][\w&'-]+)??)(?=\s*(?:$|[,.;!])| (?:til|till|until|for|now|since|and|but|atm|"
                 r"these days|part[- ]time|full[- ]time)\b)")
_NOT_LOW_EMPLOYERS = {"the", "a", "an", "my", "it", "this", "that", "night", "nights", "weekends", "least", "all",
                      "moment", "length", "once", "first", "last", "some", "any", "his", "her", "their", "our", "your",
                      "myself", "school", "uni", "home", "hand", "times", "work", "me", "them", "him", "us", "you",
                      "free", "food", "tips", "cash", "money", "peanuts", "pennies", "hours", "ages", "years"}


def _low_employer(value: str) -> str | None:
    first = value.split()[0]
    return None if first in _NOT_LOW_EMPLOYERS or first.endswith("ing") else _employer(value)


# -- a self told around a request for help ---------------------------------------------------------------

# "I'm a history major", "an English major at Rutgers": the field the user reads, not a job
_MAJOR = r"\b(?i:i'm|i am) (?i:an? )(?:(?i:double|senior|junior|sophomore|freshman|first-year|[\w-]+-year) )?"
# "my job at the Boeing plant": an employer the user still has (not one left: "I quit my job at X" is
# a change, read elsewhere; nor one said as left or to leave: "since leaving my job at X")
_MY_JOB_AT = (r"(?<!(?i:\bquit ))(?<!(?i:\bleft ))(?<!(?i:\blost ))(?<!(?i:\bfrom ))(?<!(?i:\blosing ))"
              r"(?<!(?i:\bsince leaving ))(?<!(?i:\bafter leaving ))(?<!(?i:\bsince quitting ))"
              r"(?<!(?i:\bafter quitting ))\b(?i:my) (?i:(?:current|day|full[- ]time|part[- ]time) )?"
              r"(?i:job|position|role) (?i:at|with) ")
# "I've worked as a pharmacist at Walgreens for a decade": worked there until now, said with how long
_WORKED_AS = r"\b(?i:i)(?i:'ve| have) (?i:" + ADV + r")(?i:worked) (?i:as) (?i:an?) (?i:" + JOB + r")"
# "I've been at the same law firm for 9 years as a paralegal": the job said after the time there
_BEEN_AT = (r"(?:\b(?i:i)(?i:'ve| have) |^)(?i:" + ADV + r")(?i:been) (?i:at|with) [^,.;!?]{2,40}? (?i:for|since) "
            r"[^,.;!?]{1,20}? (?i:as) (?i:an?) ")

# Who or what a taste said sideways is not of: "that is a hard no", "my husband is the only thing …"
_NOT_A_THING = r"(?!(?:this|that|it|he|she|they|you|which|what|my|your|his|her|their|our)\b)"

RULES: list[Rule] = [
    Rule(re.compile(_NEW_HOME), P.LIVES_IN),
    Rule(re.compile(_HOME_BOUGHT), P.LIVES_IN),
    Rule(re.compile(_RESIDENT), P.LIVES_IN, value=_place),
    Rule(re.compile(_RESIDENT_OF), P.LIVES_IN, value=_place),
    Rule(re.compile(_STILL_IN), P.LIVES_IN),
    Rule(re.compile(_START + _CALLED + ORG), P.WORKS_AT, value=_employer),
    Rule(re.compile(_START + ORG + r"(?=" + _AS_THEIR + _NOT_STAFF + ")"), P.WORKS_AT, value=_employer),
    Rule(re.compile(_START + r"(?:[A-Za-z]" + _AS_THEIR + r")(?i:" + JOB + ")"), P.WORKS_AS),
    Rule(re.compile(_START + r"(?:[A-Za-z]" + _AS_THEIR + r")" + _NOT_STAFF + _NOT_LISTED + _NOT_A_JOB + OPEN_JOB
                    + _JOB_END),
         P.WORKS_AS, value=open_job),
    Rule(re.compile(_FREELANCE + r"(?i:" + JOB + ")"), P.WORKS_AS),
    Rule(re.compile(_FREELANCE + _NOT_LISTED + _NOT_A_JOB + OPEN_JOB + _JOB_END), P.WORKS_AS, value=open_job),
    Rule(re.compile(SWITCHED_FIELD + r"([a-z][a-z &-]{1,30}?)" + _FIELD_END, _I), P.STUDIED, value=_subject),
    Rule(re.compile(TRANSFERRED), P.STUDIED_AT, value=_employer),
    # where the user is from, typed in lower case or as "a small town in"
    Rule(re.compile(_SMALL_PLACE + r"(?:the )?" + NAME), P.COMES_FROM, value=_origin),
    Rule(re.compile(_SMALL_PLACE + _LOW_PLACE + _LOW_END), P.COMES_FROM, value=_low_place),
    Rule(re.compile(r"\b(?i:i'm|i am|i come) (?i:from) " + _LOW_PLACE + r"(?=,? (?i:originally)\b)"), P.COMES_FROM,
         value=_low_place),
    Rule(re.compile(_LOW_EMPLOYER), P.WORKS_AT, value=_low_employer),
    # "41M, electrician in Manchester"
    Rule(re.compile(_AGE_SEX + r"(?i:" + JOB + ")"), P.WORKS_AS),
    Rule(re.compile(_AGE_SEX + _NOT_LISTED + _NOT_A_JOB + OPEN_JOB + _JOB_END), P.WORKS_AS, value=open_job),
    Rule(re.compile(_AGE_SEX + r"[A-Za-z][A-Za-z -]{1,40}? (?:in|based in) " + PLACE + r"(?![\w'])"), P.LIVES_IN,
         value=_place, tags=(BY_WORK,)),
    Rule(re.compile(_AS_HOBBY), P.HAS_HOBBY, value=_hobby),
    Rule(re.compile(r"\b(?i:i)(?i:'m| am)? " + ADV + r"(?i:do|doing|practi[cs]e|practi[cs]ing) ([a-z][a-z' -]{1,30}?) "
                    r"(?i:as a|for a) (?i:hobby|pastime)\b"), P.HAS_HOBBY),
    # "I'm José María, a retired architect"
    Rule(re.compile(r"\b(?i:i'm|i am) " + NAME + r", (?i:an?) (?i:retired) ((?i:" + OCCUPATIONS + r"))\b"), P.WORKS_AS,
         2, value=lambda job: f"retired {job.lower()}"),
    # "I'm a second-year PhD student in neuroscience at Johns Hopkins"
    Rule(re.compile(_STUDENT + r"((?i:[a-z][a-z &-]{1,30}?))(?= (?i:at|from)\b|\s*(?:$|[,.;!?]))"), P.STUDIED,
         value=_subject),
    Rule(re.compile(_STUDENT + r"[A-Za-z &-]{2,30}? (?i:at) " + ORG), P.STUDIED_AT),
    # "I teach high school chemistry": a subject taught names the teacher; "I teach third grade" a teacher
    Rule(re.compile(r"\bi teach (?:[\w-]+ ){0,2}?(" + TAUGHT + r")\b", _I), P.WORKS_AS,
         value=lambda subject: f"{subject.lower()} teacher"),
    Rule(re.compile(r"\bi (teach) (?!(?:[\w-]+ ){0,2}?(?:" + TAUGHT + r")\b)(?:at (?:a |the )?|in (?:a |the )?)?"
                    r"(?:\w+ )?(?:grade|year \d|reception|primary|secondary|high school|kids|children|students|school|"
                    r"kindergarten|preschool|university|college)\b", _I), P.WORKS_AS, value=lambda _: "teacher"),
    # "I do backend stuff for a bank in Dublin": the town of the work is the user's
    Rule(re.compile(r"\b(?i:i) " + ADV + r"(?i:do) [^,.;!?]{2,30}? (?i:for|at) " + WORKPLACE + r" (?i:in) " + PLACE
                    + r"(?![\w'])"), P.LIVES_IN, 2, value=_place, tags=(BY_WORK,)),
    Rule(re.compile(r"\b(?i:i) " + ADV + r"(?i:do) [^,.;!?]{2,30}? (?i:for|at) " + ORG + r" (?i:in) " + PLACE
                    + r"(?![\w'])"), P.LIVES_IN, 2, value=_place, tags=(BY_WORK,)),
    # "my boyfriend marco made lasagna", "my sister jo just had a baby"
    Rule(re.compile(r"\b(?i:my) " + RELATION_MOD + RELATION + r" ([a-z\u00e0-\u024f]{2,15})" + _KIN_VERB), None, 2,
         relation_group=1, value=_kin_name),
    # "just adopted a second dog, her name is Juniper", "got another cat, his name's Biscuit"
    Rule(re.compile(_HAVE + _PET_COUNT + _PET_LOOKS + PET + r"(?: [^,.;!?]{1,25}?)?,? (?:(?i:her|his|its|their) "
                    r"(?i:name(?:'s| is)|names are)|(?i:she|he|it|they)(?:'s| is| are) (?i:called|named)) " + PEOPLE),
         P.HAS_PET, 2, lists=True, kind_group=1),
    # the self told around a request for help
    Rule(re.compile(_MAJOR + r"([A-Za-z][a-z]+(?: [a-z]+)?) (?i:major)\b"), P.STUDIED, value=_subject),
    Rule(re.compile(_MAJOR + r"[A-Za-z][a-z]+(?: [a-z]+)? (?i:major) (?i:at) " + ORG), P.STUDIED_AT),
    Rule(re.compile(_MY_JOB_AT + ORG), P.WORKS_AT, value=_employer),
    Rule(re.compile(_WORKED_AS + r" (?i:at|for|with) " + ORG + r"(?= (?i:for|since) )"), P.WORKS_AT, 2,
         value=_employer),
    Rule(re.compile(_BEEN_AT + r"(?i:" + JOB + ")"), P.WORKS_AS),
    Rule(re.compile(_BEEN_AT + _NOT_LISTED + _NOT_A_JOB + OPEN_JOB + _JOB_END), P.WORKS_AS, value=open_job),
    # "I work nights at a hospital as a nurse": the job said after the workplace
    Rule(re.compile(_WORK + r" (?i:at|in|for) " + WORKPLACE + r" (?i:as) (?i:an?) (?i:" + JOB + ")"), P.WORKS_AS, 2),
    # "I've always loved baking": a fondness kept up to now (not "I always loved it as a kid")
    Rule(re.compile(r"\bi(?:'ve| have) (?:always|long|forever) (?:loved|liked|enjoyed|adored) " + OBJ + END, _I),
         P.HAS_PREFERENCE, lists=True),
    # tastes said sideways
    Rule(re.compile(r"^(" + _NOT_A_THING + r"[A-Za-z][\w' -]{1,40}?) "
                    r"(?:is|are) (?:honestly |literally |genuinely |probably )?(?:the only thing|the one thing|"
                    r"the only things|what|all that) (?:that )?(?:gets|get|keeps|keep|is keeping|are keeping|keeping|"
                    r"getting|is getting) me (?:through|going|sane|alive|happy)\b", _I), P.HAS_PREFERENCE),
    Rule(re.compile(r"^(" + _NOT_A_THING + r"[A-Za-z][\w' -]{1,40}?) "
                    r"(?:is|are) (?:a |an )?(?:hard|big|firm|definite|total|absolute|strong|massive|huge) "
                    r"(?:no|pass|nope)(?= (?:for|from) me\b|\s*$|\s*[.!,])", _I), P.DISLIKES),
    Rule(re.compile(r"\bnothing beats " + OBJ + END, _I), P.HAS_PREFERENCE, value=_beaten),
]
