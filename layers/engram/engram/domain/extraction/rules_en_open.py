"""Open-class English objects: an occupation known by how its word is made ("bookkeeper",
"glazier", "sommelier", "locksmith") rather than by a list, a job named after "work as" whatever it
is, and an activity the user keeps up however it is called ("I've been bouldering twice a week")."""

from __future__ import annotations

import re

from ..model import Predicate as P
from .dates import EN_DATE, NUMERIC_DATE, calendar_day, numeric_day
from .rules import Rule, singular_kind
from .rules_en import _HAVE, _PET_COUNT, _PET_LOOKS, ADV, JOB, PEOPLE, PET, PLACE
from .rules_en_life import ORG, WORKPLACE, _employer
from .rules_en_passing import BY_WORK, _place
from .speech import UPPER

# A person by what they do: the endings English makes agent nouns with.
_AGENT = r"[a-z]{2,20}(?:er|or|ist|ian|ant|man|woman|smith|wright|eur|ier|eer)"
# A modifier of the job: "pastry", "UX", "part-time", "freelance" (two at most).
_MODIFIER = r"(?:[A-Za-z][A-Za-z-]{0,20} ){0,2}?"
OPEN_JOB = "(" + _MODIFIER + _AGENT + r")(?:s)?"
# Where a job named by "I'm a …" ends: a place, an employer, a clause, the end.
_AFTER = (r"(?=\s*$|\s*[.,;!?:)]| (?:at|in|for|with|on|and|but|who|by|from|so|since|based|here|now|myself|near|outside|"
          r"too|as well|by trade|by profession)\b)")
# Agent nouns that say who the user is, not what they do for a living.
_NOT_JOBS = set(
    "mother father brother sister daughter grandmother grandfather stepmother stepfather partner member user "
    "beginner newcomer foreigner stranger winner loser fighter survivor follower supporter customer subscriber "
    "viewer listener reader eater drinker smoker sleeper thinker overthinker worrier believer learner talker "
    "lover fan sucker pleaser people-pleaser go-getter doer dreamer planner spender saver leader homeowner "
    "renter tenant commuter immigrant migrant emigrant vegetarian christian libertarian humanitarian contrarian "
    "optimist pessimist realist idealist perfectionist minimalist feminist activist atheist buddhist baptist "
    "freshman freshmen sophomore fresher first-year "
    "socialist capitalist nationalist narcissist purist tourist motorist finalist procrastinator senior junior "
    "minor bachelor neighbor neighbour ancestor warrior traveller traveler gamer runner swimmer climber hiker "
    "biker skier snowboarder surfer golfer knitter birder skater jogger cyclist camper backpacker crafter "
    "quilter collector hobbyist enthusiast man woman gentleman human german number monster disaster character "
    "quarter corner dinner summer winter computer answer matter letter order error mirror owner dog-owner "
    "participant applicant descendant dependant peasant giant elephant veteran other another whisperer "
    "romantic introvert extrovert ambivert otter hamster lobster sober voter taxpayer wanderer hoarder sinner "
    "volunteer snorer texter multitasker overachiever underachiever achiever striver loner quitter "
    "starter finisher shopper borrower debtor donor visitor passenger resident citizen patient client "
    "dependent adolescent parent grandparent foster-parent caretaker-of worshipper prayer sceptic skeptic "
    "cynic theorist conspiracy-theorist hypochondriac insomniac alcoholic addict survivor-of outsider insider "
    "daydreamer sleepwalker bedwetter nail-biter chatterbox complainer procrastinator chocoholic workaholic "
    "newbie noob amateur pro spectator admirer observer learner-driver "
    # what "I started as a …" / "I work as a …" may name that is no job
    "kid child teen teenager baby boy girl adult youngster team group family unit pair duo hobby joke favour "
    "favor side-hustle way result whole one thing volunteer favourite favorite major".split())
# Said of a habit or a fondness, not of a living: "a big eater", "a keen gardener", "an avid reader".
_NOT_JOB_MODIFIERS = set(
    "big huge massive total complete real proper serious heavy light picky fussy fast slow quick early late "
    "night morning good bad great terrible awful natural born hopeless recovering former ex retired aspiring "
    "would-be wannabe first-time proud lifelong die-hard diehard self-confessed self-proclaimed keen avid "
    "passionate amateur hobby weekend casual social people single stay-at-home only middle youngest oldest "
    "eldest twin little older younger bit kind sort careful nervous confident anxious decent competent poor "
    "strong weak registered frequent regular occasional compulsive chronic habitual notorious".split())


# The same, as a guard read before the job: an employer or a town is read only after a job.
_NOT_A_JOB = ("(?!(?i:" + "|".join(sorted(_NOT_JOB_MODIFIERS)) + r") |(?:[A-Za-z-]+ ){0,2}?(?i:"
              + "|".join(sorted(_NOT_JOBS)) + r")s?(?=\s*$|\s*[,.;!?)]| (?:at|in|of|for|from|with|and|who|to|on|"
              r"about|by|here|too|so|but|myself|honestly)\b))")


def open_job(value: str) -> str | None:
    """An agent noun as an occupation, or ``None`` when it says who the user is rather than what
    they do ("a people pleaser", "a keen gardener", "a mother")."""
    words = value.lower().split()
    if not words or words[-1] in _NOT_JOBS or _NOT_JOB_MODIFIERS & set(words[:-1]):
        return None
    return value


_IM = r"\b(?i:i'm|i am)(?i: " + ADV + r")?"
_ARTICLE = r"(?i:an?) " + _NOT_A_JOB
# "I work as a lifeguard", "I've been working as a dog groomer": the job is whatever follows "as".
_AS_WORK = (r"\b(?i:i|i'm|i am|i've been|i have been) (?i:" + ADV + r")(?i:work|working|employed|hired|started|"
            r"start|starting|got a job|took a job|have a job|landed a job|freelance|freelancing|got hired|was hired|"
            r"been hired|got taken on|was taken on) (?i:as) ")
_NOUN_PHRASE = r"((?:[A-Za-z][A-Za-z-]{0,20} ){0,2}?[a-z][a-z-]{2,20})"
_AS_END = (r"(?=\s*$|\s*[.,;!?:)]| (?:at|in|for|with|on|and|but|since|this|last|so|because|now|these|for|"
           # where or when the work is done, not part of its name
           r"downtown|remotely|full-time|part-time|nights|days|weekends|abroad|online|locally|overseas|here|there|"
           r"again|too|now|from|during|until|while|after|before|to)\b)")
# "being a nurse at Kaiser, I …": said of the user at the start of a sentence (not "being a doctor
# must be hard", which wonders).
_BEING = r"^(?i:being) " + _ARTICLE

# An activity kept up, known by how often it is done, whatever it is called: "I've been bouldering three
# times a week", "I go paddleboarding every weekend" (not a chore or a state: "I've been working
# nights", "I've been sleeping badly").
_GERUND = r"([a-z]{3,20}ing)"
_OFTEN = (r"(?i:(?:once|twice|\w+ times|a (?:few|couple of) times) (?:a|per|every) (?:week|month|day)|"
          r"every (?:single )?"
          r"(?:day|morning|evening|night|week|weekend|saturday|sunday)|most (?:days|mornings|evenings|weekends)|"
          r"on (?:the )?weekends|regularly|religiously|daily|weekly)")
_NOT_PASTIMES = set(
    "working living sleeping waiting struggling feeling trying thinking studying crying worrying stressing "
    "drinking smoking eating commuting coughing sneezing vomiting dieting fasting procrastinating freelancing "
    "teaching having getting dealing going doing being taking using looking planning saving wondering meaning "
    "seeing talking shopping cleaning cooking calling texting messaging checking paying driving babysitting "
    "studying revising interviewing applying napping bleeding throwing".split())


def _pastime(value: str) -> str | None:
    return None if value.lower() in _NOT_PASTIMES else value.lower()


# A skill kept up for years: "I've been writing Rust professionally for 5 years", "been coding in Go
# since 2015" (what is named by a capital: a language, a tool, a framework).
_YEARS = (r"(?i:for (?:(?:over|about|almost|nearly|around) )?(?:\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|"
          r"a few|several|many|some) years|for years|for (?:over )?a decade|since (?:19|20)\d\d)")
_SKILL = r"(" + UPPER + r"[\w+#.-]{0,20})"
# "procrastination is ruining my life": a trouble said as what it does to the user.
_RUINS = (r"^([a-z][a-z' -]{2,30}?) (?:is|has been|keeps) (?:really |literally |slowly |totally )?"
          r"(?:ruining|destroying|wrecking|taking over|killing) my (?:life|sleep|grades|focus|productivity)\b")

# "pineapple on pizza slaps", "Radiohead is elite": a taste said in the slang of praise.
_PRAISED = (r"^(?!(?:this|that|it|he|she|they|everything|nothing|which|what|who|your|his|her|their|there)\b)"
            r"((?:[\w'-]+ ){0,4}?[\w'-]+) (?:honestly |really |absolutely |lowkey |just |still |always )?"
            r"(?:slaps|slap|hits different|(?:is|are) (?:so |actually )?(?:elite|goated|underrated|top tier|"
            r"peak|my jam|life)|never misses)\b")
# "3rd year at McGill doing psych": a student's year, school and subject.
_YEAR_OF = (r"^(?i:(?:i'm |i am )?(?:in )?(?:my )?(?:\d(?:st|nd|rd|th)|first|second|third|fourth|final|last) year "
            r"(?:at|of) )")
_FIELD = r"([a-z][a-z &-]{1,30}?)(?=\s*(?:$|[,.;!?])| at | and | but | so )"

# "I've got twin girls, Ruby and Rose": children by their sex, named after.
_GIRLS_BOYS = (r"\b(?i:i have|i've got|i have got|we have|we've got) (?i:two |three |2 |3 |twin |little |young )*"
               r"(?i:(girls|boys)),? (?i:called |named )?" + PEOPLE)

# "I knit in the evenings", "I swim most mornings": a pastime said by its verb, kept as what it is called.
_PASTIME_VERBS = (r"(knit|crochet|sew|paint|draw|bake|garden|surf|swim|skate|climb|hike|fish|dance|sing|cycle|run|"
                  r"journal|meditate|golf|box|row|sail|ski|snowboard|kayak|quilt|sketch)")
_PASTIME_WHEN = (r"(?= (?:in the (?:evenings?|mornings?)|at (?:night|weekends)|on (?:weekends|sundays|saturdays)|"
                 r"(?:every|most) (?:single )?(?:days?|mornings?|evenings?|nights?|weeks?|weekends?|sundays?|"
                 r"saturdays?)|"
                 r"a lot|to (?:unwind|relax|de-?stress)|for fun|regularly|daily|whenever)\b)")


def _gerund(verb: str) -> str:
    verb = verb.lower()
    if verb in ("knit", "swim", "run", "box"):
        return verb + ("ing" if verb == "box" else verb[-1] + "ing")
    return (verb[:-1] if verb.endswith("e") and verb not in ("ski",) else verb) + "ing"


# "I'm doing a PhD in linguistics at UCL": a degree under way names its field and school.
_DEGREE = (r"\b(?i:i'm|i am) (?i:currently |now )?(?i:doing|studying for|working on|taking) (?i:an?|my) "
           r"(?i:phd|ph\.d\.|doctorate|masters?|master's|msc|ma|mba|bsc|ba|degree|bachelor's|diploma|llm|mres)")

# "born 12/07/1994": a date in figures, kept as said (which of day and month comes first is the writer's)

RULES: list[Rule] = [
    # "bday: 14 Feb", "DOB - March 3rd": a birthday said as a form's field
    Rule(re.compile(r"^(?i:(?:my )?(?:birthday|bday|b-day|dob|date of birth|birth date))\s*[:：-]\s*" + EN_DATE, re.I),
         P.HAS_BIRTHDAY, value=calendar_day),
    Rule(re.compile(r"(?:\b(?i:i was born|my (?:birthday|bday|b-day|date of birth|dob|birth date)(?:'s| is))"
                    r"|^(?i:born))(?i: on)? " + NUMERIC_DATE), P.HAS_BIRTHDAY, value=numeric_day),
    Rule(re.compile(r"^(?i:(?:my )?(?:birthday|bday|b-day|dob|date of birth|birth date))\s*[:：-]\s*" + NUMERIC_DATE),
         P.HAS_BIRTHDAY, value=numeric_day),
    Rule(re.compile(r"\b(?i:i) (?i:" + ADV + r")?" + _PASTIME_VERBS + _PASTIME_WHEN, re.I), P.HAS_HOBBY,
         value=_gerund),
    Rule(re.compile(_DEGREE + r" (?i:in) " + r"([a-z][a-z &-]{1,30}?)(?=\s*(?:$|[,.;!?])| at | and | but | so )"),
         P.STUDIED),
    Rule(re.compile(_DEGREE + r"(?: (?i:in) [a-z][a-z &-]{1,30}?)? (?i:at) " + ORG), P.STUDIED_AT),
    # "27F here", "34M, need advice": an age said with a sex, as forums write it
    Rule(re.compile(r"^(\d{2})\s?(?:[MFmf]|NB|nb)(?:\b| here)(?=\s*(?:$|[,.;!:]| here\b))"), P.HAS_AGE),
    # "as an upholsterer I'm always covered in fluff": a job framing what the user goes on to say
    Rule(re.compile(r"^(?i:as) " + _ARTICLE + OPEN_JOB + r"(?=,? (?i:i|i'm|i've|we)\b|,?$)"), P.WORKS_AS,
         value=open_job),
    Rule(re.compile(_GIRLS_BOYS), P.HAS_CHILD, 2, lists=True),
    Rule(re.compile(_PRAISED, re.I), P.HAS_PREFERENCE),
    Rule(re.compile(_YEAR_OF + ORG), P.STUDIED_AT),
    Rule(re.compile(_YEAR_OF + ORG + r",? (?i:doing|studying|reading|majoring in) " + _FIELD), P.STUDIED, 2),
    Rule(re.compile(r"\b(?i:i)(?i:'ve| have) (?i:been) (?i:writing|coding in|programming in|developing in|using|"
                    r"working with|working in|speaking) " + _SKILL
                    + r"(?i: professionally| daily| every day| at work)? " + _YEARS), P.MASTERS),
    Rule(re.compile(_RUINS, re.I), P.STRUGGLES_WITH),
    # "we have a dog and a hamster": each animal of a list, not only the first
    Rule(re.compile(_HAVE + r"[^.;!?]*?(?:,? (?i:and)|,) " + _PET_COUNT + _PET_LOOKS + PET
                    + r"(?=$|[.,;!?]| and | who | that | which | at home| since | for )(?!,? (?:named |called )?"
                    + UPPER + ")"), P.HAS_PET, value=singular_kind),
    Rule(re.compile(r"\b(?i:i)(?i:'ve| have) (?i:been) " + _GERUND + r" " + _OFTEN), P.HAS_HOBBY, value=_pastime),
    Rule(re.compile(r"\b(?i:i) (?i:" + ADV + r")?(?i:go) " + _GERUND + r" " + _OFTEN), P.HAS_HOBBY, value=_pastime),
    Rule(re.compile(_IM + _ARTICLE + OPEN_JOB + _AFTER), P.WORKS_AS, value=open_job),
    Rule(re.compile(_AS_WORK + _ARTICLE + _NOUN_PHRASE + _AS_END), P.WORKS_AS, value=open_job),
    Rule(re.compile(_AS_WORK + _ARTICLE + _NOUN_PHRASE + r" (?i:at|for|with) " + ORG), P.WORKS_AT, 2, value=_employer),
    Rule(re.compile(_IM + _ARTICLE + OPEN_JOB + r" (?i:at|for|with) " + ORG), P.WORKS_AT, 2, value=_employer),
    Rule(re.compile(_IM + _ARTICLE + OPEN_JOB + r" (?i:at|in|for) " + WORKPLACE), P.WORKS_AT, 2),
    Rule(re.compile(_IM + _ARTICLE + OPEN_JOB + r" (?i:in) " + PLACE + r"(?![\w'])"), P.LIVES_IN, 2, value=_place,
         tags=(BY_WORK,)),
    # "I'm a sommelier at a wine bar in Lyon": the town of the workplace is the user's
    Rule(re.compile(_IM + _ARTICLE + OPEN_JOB + r" (?i:at|for|with) [^,.;!?]{2,40}? (?i:in) " + PLACE + r"(?![\w'])"),
         P.LIVES_IN, 2, value=_place, tags=(BY_WORK,)),
    Rule(re.compile(_IM + r"(?i:an?) " + JOB + r" (?i:at|for|with) [^,.;!?]{2,40}? (?i:in) " + PLACE + r"(?![\w'])"),
         P.LIVES_IN, 2, value=_place, tags=(BY_WORK,)),
    Rule(re.compile(_BEING + OPEN_JOB + _AFTER + r"(?!.*\b(?:must|would|might|sounds|seems|looks)\b)"), P.WORKS_AS,
         value=open_job),
    Rule(re.compile(_BEING + OPEN_JOB + r" (?i:at|for|with) " + ORG + r"(?!.*\b(?:must|would|might|sounds|seems)\b)"),
         P.WORKS_AT, 2, value=_employer),
]
