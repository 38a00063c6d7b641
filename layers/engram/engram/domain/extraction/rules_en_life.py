"""English rules for the user's life around them: where they work and studied, where they are
from, their birthday, and what they do in their time (hobbies). Same subjects as ``rules_en``: a
statement about someone else ("my husband works at Boeing") is not one about the user."""

from __future__ import annotations

import re

from ..model import Predicate as P
from .dates import EN_DATE, calendar_day
from .rules import Rule
from .rules_en import _I, _NOT_INTRODUCED, ADV, END, JOB, NAME, OBJ, OCCUPATIONS, PLACE
from .speech import UPPER

# An employer by its name ("Google", "St. Mary's Hospital", "the New York Times"), or a kind of
# workplace ("a hospital", "a small bakery"); never "home", "night" or "myself".
ORG = (r"(?:(?i:the) )?((?:St\. )?" + UPPER + r"[\w'&-]*(?:(?: | & | of | of the | de )" + UPPER + r"[\w'&-]*){0,4}"
       # a company known by its web address: "Booking.com", "Monday.com"
       r"(?:\.(?:com|io|ai|co|org|net|app|dev)\b)?)"
       r"(?![\w'&-])")
# An employer named before what the user does there: "I joined Airbnb as a data scientist".
_NAMED = r"(?:(?i:the) )?" + UPPER + r"[\w'&-]*(?: " + UPPER + r"[\w'&-]*)*"
WORKPLACE = (r"(?:(?i:a|an|the|our|my) )?((?:[A-Za-z'-]+ ){0,2}?(?:hospital|clinic|bank|school|university|college|"
             r"startup|start-up|law firm|restaurant|bakery|caf[eé]|coffee shop|hotel|factory|warehouse|library|museum|"
             r"non-?profit|charity|agency|bookstore|supermarket|grocery store|pharmacy|gym|daycare|nursery|"
             r"kindergarten|call cent(?:er|re)|lab|laboratory|newspaper|magazine|consultancy|airline|airport|salon|"
             r"garage|farm|zoo|theat(?:er|re)|church|hedge fund|government agency|city hall|tech company|"
             r"software company|consulting firm|accounting firm|design studio|dealership|prison|care home|"
             r"nursing home|retirement home|vet clinic|dental practice|bar|pub|brewery|winery|bookshop|"
             r"publishing house|hospice|shelter|fire station|police station|post office))\b")
# When and how the user works may sit between the verb and the job ("I work nights as a nurse").
_WORK = (r"\b(?i:i|we)(?i:'m| am|'ve been| have been)? " + ADV + r"(?i:work|working)(?i: full[- ]time| part[- ]time|"
         r" remotely| remote| now| currently| nights| days| weekends| evenings| mornings| shifts| night shifts|"
         r" from home| freelance){0,2}")
_NOT_EMPLOYERS = {"home", "night", "christmas", "easter", "thanksgiving", "weekends", "dr", "mr", "mrs", "ms", "prof",
                  "professor", "hr", "it", "ai"} | _NOT_INTRODUCED


def _employer(value: str) -> str | None:
    return None if value.split()[0].lower().rstrip(".") in _NOT_EMPLOYERS else value


# Joined, but not as staff: a network, an app, a club of customers.
_NOT_JOINED = {"twitter", "x", "facebook", "reddit", "instagram", "tiktok", "discord", "linkedin", "strava",
               "duolingo", "tinder", "bumble", "hinge", "mastodon", "threads", "bluesky", "youtube", "snapchat",
               "whatsapp", "telegram", "patreon", "substack", "weight", "ww", "costco", "prime", "peloton", "zoom"}


def _joined(value: str) -> str | None:
    return None if value.split()[0].lower() in _NOT_JOINED else _employer(value)


_NEW_JOB = (r"\b(?i:i)(?i:'ve| have)? (?i:just |recently |finally |now )?(?i:took|taken|got|accepted|landed|found|"
            r"started) (?i:a|an|the|my) (?i:new |full[- ]time |part[- ]time |permanent |temporary |summer |first )*"
            r"(?i:job|position|role|gig) (?i:as) (?i:an? )" + JOB)


# Where the user is from, not a department ("I'm from HR") or a time ("born in May").
_NOT_ORIGINS = {"hr", "it", "pr", "qa", "finance", "marketing", "sales", "support", "legal", "engineering",
                "accounting", "management", "corporate", "tech", "ops", "operations", "customer", "church",
                "foster", "mars", "space"} | _NOT_INTRODUCED


def _origin(value: str) -> str | None:
    return None if value.split()[0].lower() in _NOT_ORIGINS else value


# What a user plays, goes doing, or does: closed lists, so that "I play it safe", "I go to work" or
# "I do the dishes" is no hobby.
_PLAYED = (r"(?:the )?(?:electric guitar|bass guitar|guitar|bass|piano|keyboard|violin|viola|cello|drums|ukulele|"
           r"saxophone|sax|flute|trumpet|trombone|clarinet|harp|banjo|mandolin|harmonica|accordion|organ|"
           r"table tennis|tennis|ping pong|soccer|football|basketball|baseball|beach volleyball|volleyball|golf|"
           r"badminton|squash|ice hockey|hockey|rugby|cricket|pickleball|padel|softball|lacrosse|"
           r"ultimate frisbee|frisbee|water polo|handball|chess|poker|bridge|mahjong|video games|board games|"
           r"card games|darts|pool|billiards|bingo|dungeons (?:and|&) dragons|d&d|hurling|camogie|gaelic football|"
           r"netball|curling)")
_GOING = (r"(?:hiking|running|jogging|swimming|rock climbing|climbing|bouldering|surfing|skiing|snowboarding|"
          r"fishing|fly fishing|camping|cycling|mountain biking|biking|salsa dancing|dancing|bowling|ice skating|"
          r"roller skating|skating|kayaking|canoeing|sailing|scuba diving|diving|snorkeling|horseback riding|"
          r"horse riding|birdwatching|bird watching|hunting|skateboarding|paddleboarding|rowing|golfing|"
          r"backpacking|trail running|sledding|karaoke)")
_DOING = (r"(?:hot yoga|yoga|pilates|crossfit|karate|judo|taekwondo|jiu[- ]jitsu|bjj|kickboxing|boxing|muay thai|"
          r"ballet|martial arts|tai chi|meditation|triathlons?|parkour|gymnastics|weightlifting|powerlifting|"
          r"calisthenics|aerobics|zumba|spin classes|spinning|archery|fencing|woodworking|pottery|photography|"
          r"calligraphy|embroidery|origami|crosswords|sudoku|jigsaw puzzles|stand-up comedy|improv)")
# Pastimes a user may say they love without a verb of doing: "I love baking", "I enjoy reading".
_PASTIMES = (r"(?:baking|cooking|knitting|crocheting|sewing|gardening|painting|drawing|sketching|singing|reading|"
             r"journaling|writing poetry|songwriting|quilting|scrapbooking|woodworking|pottery|photography|"
             r"birdwatching|stargazing|traveling|travelling)")
# What may follow a liked activity in the same clause; "I like hiking boots" is a taste for boots.
_ACTIVITY_END = (r"(?=$|[.,;!?]| (?:with|on|in|at|every|when|because|and|but|or|so|more|a lot|too|as well|"
                 r"whenever|most|during|after|before|since|for|now|these days|lately|again|nowadays|last|this|"
                 r"recently|to(?! (?:work|school|class|uni|college|campus|church|town|the|my|our|a|an|and|from)\b))\b)")
_HABIT_VERBS = {"run": "running", "swim": "swimming", "cycle": "cycling", "bike": "biking", "surf": "surfing",
                "ski": "skiing", "snowboard": "snowboarding", "knit": "knitting", "crochet": "crocheting",
                "sew": "sewing", "paint": "painting", "draw": "drawing", "sketch": "sketching", "bake": "baking",
                "garden": "gardening", "meditate": "meditation", "climb": "climbing", "hike": "hiking",
                "dance": "dancing", "sing": "singing", "skate": "skating", "fish": "fishing", "hunt": "hunting",
                "journal": "journaling", "write poetry": "writing poetry", "write songs": "songwriting"}
# A verb is a habit when said as one ("I run every morning", "I knit."), not "I run a bakery".
_AS_HABIT = (r"(?= every| most| on (?:weekends|the weekends?|sundays|saturdays)| a lot| regularly| daily| twice"
             r"| three times| competitively| for fun| as a hobby| in my (?:free|spare) time| whenever| marathons"
             r"| half marathons| ultramarathons| laps| trails|\s*[.!,]|\s*$)")


def _series(item: str, joiners: str = r",? and |, ") -> str:
    """One or more of ``item``, as a list is said: "tennis", "tennis and golf", "chess, poker and bridge"."""
    return item + r"(?:(?:" + joiners + r")" + item + r")*"


def _plain_hobby(value: str) -> str:
    return re.sub(r"^the ", "", value.lower())


def _habit(value: str) -> str | None:
    return _HABIT_VERBS.get(value.lower())


# Not working, as a job: "I'm retired" closes "works as: teacher" ("when I'm retired" is not now).
_NOT_YET = r"(?<!when )(?<!once )(?<!until )(?<!after )(?<!if )(?<!before )"
_STATUS = {"retired": "retired", "unemployed": "unemployed", "out of work": "unemployed", "between jobs": "unemployed",
           "self-employed": "self-employed", "a homemaker": "homemaker", "a housewife": "homemaker",
           "a househusband": "homemaker"}


def _status(value: str) -> str | None:
    value = value.lower()
    return "stay-at-home parent" if "home" in value and "maker" not in value else _STATUS.get(value)


# A school by its name ("MIT", "the University of Michigan"); "went to" a place is no school unless
# its name says so ("I went to Paris").
_SCHOOL_WORDS = re.compile(r"\b(?:University|College|School|Institute|Academy|Polytechnic|Conservatory|Uni|U)\b")


def _school(value: str) -> str | None:
    return value if _SCHOOL_WORDS.search(value) else None


# What the user studied: a field, not "abroad", "hard" or "for my exams".
_SUBJECT_END = r"(?= at | from | in (?:college|school|university|grad school|\d)| back | when | because |,|$|[.;!?])"
_NOT_SUBJECTS = {"abroad", "hard", "late", "all night", "a lot", "overseas", "online", "together", "there", "here",
                 "it", "them", "that", "this"}


def _subject(value: str) -> str | None:
    value = value.strip()
    first = value.lower().split()[0]
    if value.lower() in _NOT_SUBJECTS or first in _NOT_SUBJECTS | {"for", "with", "all"}:
        return None
    # "I finished my degree at Rutgers in 2012": a year is when, not what
    return None if re.fullmatch(r"\d{4}s?", value) else value


RULES: list[Rule] = [
    # where the user works: "I work at Google", "I'm a nurse at St. Mary's", "I work in a bakery",
    # "I just started at Stripe" (not "I work from home", "my wife works at Google", "I worked at IBM")
    # "I'm working at Starbucks today" is where the user sits, not who employs them.
    Rule(re.compile(_WORK + r" (?i:at|for) " + ORG + r"(?! (?i:today|tonight|this (?:morning|afternoon|evening)|"
                    r"right now|for (?:now|the day|a bit)))"), P.WORKS_AT, value=_employer),
    Rule(re.compile(_WORK + r" (?i:at|in|for) " + WORKPLACE), P.WORKS_AT),
    Rule(re.compile(r"\b(?i:i'm|i am) (?i:now |currently |still |also )?(?i:an? )(?!(?:[\w-]+ ){0,2}students?\b)" + JOB
                    + r" (?i:at|for|with) " + ORG), P.WORKS_AT, 2, value=_employer),
    Rule(re.compile(r"\b(?i:i'm|i am) (?i:now |currently |still |also )?(?i:an? )(?!(?:[\w-]+ ){0,2}students?\b)" + JOB
                    + r" (?i:at|in|for) " + WORKPLACE), P.WORKS_AT, 2),
    Rule(re.compile(_WORK + r" (?i:as) (?i:an? )" + JOB + r" (?i:at|for|with) " + ORG), P.WORKS_AT, 2, value=_employer),
    # a first day says the new job: "today was my first day at Stripe as a solutions engineer",
    # "first day today as a junior UX designer at Figma"
    Rule(re.compile(r"\b(?i:(?:my )?first day(?: today| at work| of work)?) (?i:at|with) " + ORG), P.WORKS_AT,
         value=_employer),
    Rule(re.compile(r"\b(?i:(?:my )?first day(?: today| at work)?)(?: (?i:at|with) " + ORG + r")? (?i:as an?) (?i:"
                    + JOB + ")"), P.WORKS_AS, 2),
    Rule(re.compile(r"\b(?i:first day(?: today)?) (?i:as an?) (?i:" + JOB + r") (?i:at|with) " + ORG), P.WORKS_AT, 2,
         value=_employer),
    Rule(re.compile(_WORK + r" (?i:as) (?i:an? )" + JOB + r" (?i:at|in|for) " + WORKPLACE), P.WORKS_AT, 2),
    Rule(re.compile(r"\b(?i:i|i'm|i am) (?i:just |recently |finally )?(?i:start(?:ed|ing) (?:working |a new job |my "
                    r"new job |work )?at|"
                    r"got (?:a|the|a new) job (?:at|with)|took a job (?:at|with)|accepted a job (?:at|with)|"
                    r"(?:was|got|'ve been|have been) hired (?:by|at)|joined(?= " + _NAMED + r" as an? )) " + ORG),
         P.WORKS_AT, value=_employer),
    Rule(re.compile(_WORK + r" (?i:at|for) " + _NAMED + r" (?i:as) (?i:an? )" + JOB), P.WORKS_AS),
    # a new job taken: "I took a full-time job as an accountant at Deloitte" (the job, and the employer
    # when named; not "I was offered a job as …", not yet taken)
    Rule(re.compile(_NEW_JOB), P.WORKS_AS),
    Rule(re.compile(_NEW_JOB + r" (?i:at|with|for) " + ORG), P.WORKS_AT, 2, value=_employer),
    Rule(re.compile(_NEW_JOB + r" (?i:at|in|for) " + WORKPLACE), P.WORKS_AT, 2),
    # "I joined Amazon", "we moved to Seattle and I joined Amazon" (a network or an app joined is no employer)
    Rule(re.compile(r"\b(?i:i)(?i:'ve| have)? (?i:just |recently |finally |officially )?(?i:joined) " + ORG
                    + r"(?! (?i:as an? (?:member|user|volunteer|customer)|today|yesterday))"), P.WORKS_AT,
         value=_joined),
    Rule(re.compile(r"\b(?i:i) (?i:just |recently |finally )?(?i:joined|started at) " + _NAMED + r" (?i:as) (?i:an? )"
                    + JOB), P.WORKS_AS),
    Rule(re.compile(r"\b(?:(?i:i'm|i am) (?i:employed (?:by|at)|on staff at)|(?i:my employer is)) " + ORG),
         P.WORKS_AT, value=_employer),
    # where the user is from: "I'm originally from Chile", "I grew up in Ohio", "my hometown is Cork"
    Rule(re.compile(r"\b(?i:i'm|i am|i come|i was born and raised|i hail)(?i: originally)? (?i:from) " + PLACE),
         P.COMES_FROM, value=_origin),
    Rule(re.compile(r"\b(?i:originally),? (?i:i'm|i am) (?i:from) " + PLACE), P.COMES_FROM, value=_origin),
    Rule(re.compile(r"\b(?i:i) (?i:grew up|was raised|was born|was born and raised|was brought up) (?i:in) "
                    + PLACE), P.COMES_FROM, value=_origin),
    Rule(re.compile(r"\b(?i:my (?:hometown|home town) is) " + PLACE), P.COMES_FROM, value=_origin),
    Rule(re.compile(r"^" + PLACE + r" (?i:is my (?:hometown|home town))\b"), P.COMES_FROM, value=_origin),
    Rule(re.compile(r"\b(?i:i'm|i am) (?i:a native of) " + PLACE), P.COMES_FROM, value=_origin),
    Rule(re.compile(r"\b(?i:i'm|i am) (?i:a) " + NAME + r" (?i:native)\b"), P.COMES_FROM, value=_origin),
    # the user's birthday: "My birthday is March 3rd", "I was born on the 3rd of March, 1990"
    Rule(re.compile(r"\bmy (?:birthday|bday|b-day|birth date|date of birth)(?:'s| is)(?: coming up)?(?: on)? "
                    + EN_DATE, _I), P.HAS_BIRTHDAY, value=calendar_day),
    Rule(re.compile(r"\bi was born on " + EN_DATE, _I), P.HAS_BIRTHDAY, value=calendar_day),
    # what the user does in their time: "I play the guitar", "I go hiking most weekends", "I do yoga",
    # "I run marathons", "my hobbies are chess and baking" (not "I played tennis in college")
    Rule(re.compile(r"\b(?:i|we) " + ADV + r"(?:play|also play|still play|play a lot of|play some) ("
                    + _series(_PLAYED) + r")\b", _I), P.HAS_HOBBY, lists=True, value=_plain_hobby),
    Rule(re.compile(r"\b(?:i|we) " + ADV + r"go (" + _series(_GOING, r",? and |, | or ") + r")\b", _I),
         P.HAS_HOBBY, lists=True),
    Rule(re.compile(r"\b(?:i|we) " + ADV + r"(?:do|practi[cs]e) (" + _series(_DOING) + r")\b", _I), P.HAS_HOBBY,
         lists=True),
    Rule(re.compile(r"\bi " + ADV + r"(" + "|".join(_HABIT_VERBS) + r")" + _AS_HABIT, _I), P.HAS_HOBBY,
         value=_habit),
    # "I love hiking", "I enjoy playing tennis", "I like to go fishing": a liked activity is a hobby too
    Rule(re.compile(r"\bi " + ADV + r"(?:love|like|enjoy|adore)(?: to go| going| to do| doing)? ("
                    + _series("(?:" + _GOING + "|" + _DOING + "|" + _PASTIMES + ")") + r")" + _ACTIVITY_END, _I),
         P.HAS_HOBBY, lists=True),
    Rule(re.compile(r"\bi " + ADV + r"(?:love|like|enjoy|adore)(?: to play| playing) (" + _series(_PLAYED) + r")"
                    + _ACTIVITY_END, _I), P.HAS_HOBBY, lists=True, value=_plain_hobby),
    Rule(re.compile(r"\bmy (?:main |favou?rite |current |new )?(?:hobby is|hobbies are|hobbies include|pastime is|"
                    r"pastimes are|hobby ?:|hobbies ?:|pastimes ?:) " + OBJ + END, _I), P.HAS_HOBBY, lists=True),
    # an activity the user is taken with or took up: "I'm really into running", "I've been getting into
    # pottery", "I'm all about drums now", "I took up yoga" (what else they are into is a taste, above)
    Rule(re.compile(r"\bi(?:'m| am|'ve been| have been|'ve| have)? " + ADV + r"(?:into|obsessed with|hooked on|"
                    r"all about|getting into|getting back into|got into|got back into|taken up|took up|picked up|"
                    r"started|starting)(?: doing| playing| going)? ("
                    + _series("(?:" + _GOING + "|" + _DOING + "|" + _PASTIMES + "|" + _PLAYED + ")") + r")"
                    + _ACTIVITY_END, _I), P.HAS_HOBBY, lists=True, value=_plain_hobby),
    # not working: "I'm retired", "I'm between jobs", "I'm a stay-at-home dad", "I retired last year"
    Rule(re.compile(_NOT_YET + r"\bi(?:'m| am) (?:now |currently |officially |finally |happily |still )?(retired|"
                    r"unemployed|out of work|between jobs|self-employed|a homemaker|a housewife|a househusband|"
                    r"a (?:stay[- ]at[- ]home|full[- ]time) (?:mom|mum|dad|parent|mother|father))\b", _I), P.WORKS_AS,
         value=_status),
    Rule(re.compile(_NOT_YET + r"\bi(?:'m| am) an? retired (" + OCCUPATIONS + r")\b", _I), P.WORKS_AS,
         value=lambda job: f"retired {job.lower()}"),
    Rule(re.compile(r"\bi (?:just |recently |finally |officially )?(retired)(?= from| in| last| this| early| at| two"
                    r"| three| a few| \d|\s*$|[.,!;])", _I), P.WORKS_AS),
    # where and what the user studied: "I studied nursing at UCLA", "I graduated from MIT",
    # "I'm a student at Stanford", "I have a master's in economics"
    Rule(re.compile(r"\bi(?:'m| am)? " + ADV + r"(?:studied|studying|study|majored in|majoring in|minored in|"
                    r"have a degree in|got my degree in|did my degree in|have a (?:bachelor'?s|master'?s|phd|ph\.d\.|"
                    r"doctorate|ba|bs|ma|ms|msc|bsc|mba)(?: degree)? in) "
                    r"(?!(?:all|for|with|late|hard|abroad|at|in|on|to|every|together|online|overseas)\b)"
                    r"([^.;!?,]{2,40}?)" + _SUBJECT_END, _I), P.STUDIED, value=_subject),
    Rule(re.compile(r"\b(?i:i)(?i:'m| am)? " + ADV + r"(?i:studied|studying|study|majored in|majoring in) "
                    r"[^.;!?]{2,40}? "
                    r"(?i:at) " + ORG), P.STUDIED_AT),
    Rule(re.compile(r"\b(?i:i)(?i:'m| am)? " + ADV + r"(?i:graduated from|studied at|got my degree from|got my "
                    r"(?:bachelor'?s|master'?s|phd|mba) from|dropped out of|enrolled at|doing my (?:phd|master'?s|"
                    r"degree) at) " + ORG), P.STUDIED_AT),
    Rule(re.compile(r"\b(?i:i) " + ADV + r"(?i:went to|attended|go to|am at|'m at) " + ORG), P.STUDIED_AT,
         value=_school),
    # a school named by what the user went there for: "I went to Duke for undergrad"
    Rule(re.compile(r"\b(?i:i) " + ADV + r"(?i:went to|attended|go to) " + ORG + r" (?i:for) (?i:my )?(?i:undergrad|"
                    r"college|uni|university|grad school|law school|med school|medical school|business school|"
                    r"(?:my )?(?:degree|bachelor'?s|master'?s|masters|phd|mba|doctorate|undergraduate))\b"),
         P.STUDIED_AT, value=_employer),
    Rule(re.compile(r"\b(?i:i'm|i am) (?i:a |an )?(?:(?i:phd|grad|graduate|undergrad|undergraduate|law|med|medical|"
                    r"nursing|master'?s|exchange|first-year|second-year|final-year|third-year|fourth-year|"
                    r"[\w-]+-year) ){0,2}(?i:student|freshman|fresher|first-year|"
                    r"sophomore|junior|senior|undergrad) (?i:at) " + ORG), P.STUDIED_AT),
]
