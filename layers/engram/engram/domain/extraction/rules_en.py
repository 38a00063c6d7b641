"""English fact rules. Each names its subject ("I", "we", "my X") so a statement about someone
else never becomes one about the user; adverbs may sit between subject and verb ("I really love")."""

from __future__ import annotations

import re

from ..model import Predicate as P
from ..profile.beliefs import FOOD_TAG
from .dates import EN_NUMBER_WORDS, age
from .rules import Rule, singular_kind
from .speech import LETTER, UPPER, shouted

_I = re.I
# Each word once, none made of others: a word listed twice read "officially officially …" in 2^n ways.
ADVERBS = ("really", "absolutely", "totally", "also", "just", "still", "actually", "truly", "honestly", "genuinely",
           "definitely", "seriously", "personally", "generally", "usually", "always", "do", "now", "currently",
           "finally", "already", "officially", "kind of", "kinda", "sort of", "mostly", "especially", "particularly",
           "deeply", "super", "so", "very", "quite", "pretty", "even", "simply", "all", "both", "literally",
           "certainly", "dead", "bloody", "hella", "mega", "mad", "mainly", "properly")
ADV = r"(?:(?:" + "|".join(ADVERBS) + r"),?\s+)*"
# Where an object ends: punctuation, or the words that start a reason, a time or a place.
END = (r"(?=$|[.;!?\n]|,\s*(?:not|but|which|who|because|since|so|especially|though)\b| because | since | when "
       r"| though | although | ever since | which | who | but | for (?:breakfast|lunch|dinner|years|a living)"
       r"| at (?:the |my |a )| with (?:my|a|the) | in (?:the|my) (?:morning|evening)| over | rather than "
       r"| instead of | more than | first thing\b"
       # a run-on sentence: a new subject starts a new clause ("i hate coriander it tastes like soap")
       r"| (?=(?:it|it's|he|he's|she|she's|they|they're|this is|that's) )"
       # a time said after the object, a chat filler, or "so" starting a consequence ("… last year so
       # low sugar recipes pls", "Taylor Swift rn")
       r"| so | last (?:year|week|month|night|summer|spring|fall|autumn|winter)\b| yesterday\b"
       r"|,? (?:rn|lol|lmao|haha+|tbh|ngl|btw|fyi|imo|pls|plz)\b)")
OBJ = r"([^.;!?\n]{1,80}?)"
# A capitalised word of any cased script: "José", "Kraków", "Nguyễn Văn An" (speech.UPPER, LETTER).
WORD = UPPER + LETTER + "{1,30}"
NAME = "(" + WORD + "(?: " + WORD + "){0,2})"
_PERSON = r"(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof|Professor|Uncle|Aunt|Auntie|Grandma|Grandpa)\.? )?" + NAME[1:-1]
PERSON = "(" + _PERSON + ")"
# At most eight names a list: a bound keeps a long run of capitals linear (each start reads a few).
PEOPLE = "(" + _PERSON + r"(?:(?:,? and |, )" + _PERSON + r"){0,7})"
# ("in rural Ohio", "in north London": a part of the place said in lower case is the place)
PLACE = (r"(?:the )?(?:(?:rural|upstate|downtown|suburban|central|coastal|north|south|east|west|northern|southern|"
         r"eastern|western) )?" + NAME)
RELATION = (r"(sons?|daughters?|child|children|kids?|wife|husband|spouse|partner|boyfriend|girlfriend|fianc[eé]e?|"
            r"twins|triplets|missus|hubby|wifey|bf|gf|bro|sis|mates?|bestie|bff|mam|mammy|mummy|amma|appa|"
            r"mother|father|mom|mum|stepdad|stepmum|stepmom|stepfather|stepmother|"
            r"dad|parents?|brothers?|sisters?|siblings?|twin|friends?|advisor|supervisor|mentor|teacher|"
            r"colleagues?|co-?workers?|boss|manager)")
RELATION_MOD = (r"(?:(?:best|older|younger|little|big|elder|eldest|youngest|oldest|twin|baby|PhD|Ph\.D\.|phd|thesis|"
                r"doctoral|research|direct|current|dear|lovely|new|two|three|2|3|only|wonderful)\s+)?"
                # "my 5-year-old daughter Lily", "a seven year old son"
                r"(?:(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
                r"fifteen|sixteen|seventeen|eighteen)[- ](?:years?|months?)[- ]old\s+)?")
OCCUPATIONS = (
    r"teacher|nurse|doctor|physician|surgeon|dentist|pharmacist|engineer|developer|programmer|coder|designer|lawyer|"
    r"attorney|accountant|chef|cook|baker|student|writer|author|journalist|editor|photographer|architect|scientist|"
    r"researcher|professor|lecturer|librarian|electrician|plumber|carpenter|mechanic|pilot|firefighter|"
    r"police officer|cop|paramedic|therapist|psychologist|psychiatrist|social worker|counselor|consultant|manager|"
    r"analyst|barista|waiter|waitress|bartender|cashier|farmer|musician|artist|painter|actor|actress|translator|"
    r"interpreter|veterinarian|vet|midwife|receptionist|secretary|banker|realtor|real estate agent|entrepreneur|"
    r"freelancer|economist|biologist|chemist|physicist|mathematician|tutor|coach|personal trainer|hairdresser|"
    r"butcher|truck driver|taxi driver|bus driver|driver|soldier|nanny|dietitian|nutritionist|optometrist|"
    r"physiotherapist|physical therapist|postdoc|data scientist|product manager|project manager|nurse practitioner|"
    r"caregiver|paralegal|judge|software engineer|web developer|graphic designer|ux designer|sales rep|"
    r"salesperson|marketer|clerk|technician|welder|teaching assistant|dental hygienist|radiologist|"
    r"podcaster|youtuber|streamer|animator|illustrator|game developer|flight attendant|sommelier|tailor|"
    r"florist|janitor|contractor|investor|founder|ceo|cto|cfo|intern|pastor|priest|rabbi|professor|"
    # British, Irish and Indian names of jobs
    r"gp|general practitioner|junior doctor|registrar|consultant surgeon|solicitor|barrister|civil servant|"
    r"estate agent|chartered accountant|shop assistant|care worker|support worker|healthcare assistant|"
    r"lorry driver|software developer|site engineer|chemist|ca|sde|ias officer|bank clerk")
# Longest first, so that "nurse practitioner" is not read as "nurse".
OCCUPATIONS = "|".join(sorted(set(OCCUPATIONS.split("|")), key=len, reverse=True))
# A job the user no longer (or does not yet) hold is not their occupation: "a retired nurse".
JOB = (r"(?!(?:retired|former|ex|ex-\w+|aspiring|future|wannabe|would-be)\b)"
       r"((?:(?!(?:of|fan|for|with|in|at|the|and|big|huge)\b)[a-z-]+ ){0,2}?(?:" + OCCUPATIONS + r")s?)\b"
       r"(?!['’]s| (?:of|at heart|by nature))")
CONDITIONS = (
    r"type (?:1|2|one|two|i|ii) diabetes|diabetes|asthma|hypertension|high blood pressure|high cholesterol|depression|"
    r"anxiety|an anxiety disorder|adhd|autism|insomnia|migraines?|celiac disease|coeliac disease|arthritis|"
    r"rheumatoid arthritis|eczema|epilepsy|ibs|crohn's(?: disease)?|lupus|pcos|sleep apnea|dyslexia|gerd|"
    r"acid reflux|psoriasis|fibromyalgia|heart disease|kidney disease|copd|bipolar disorder|ptsd|ocd|gout|"
    r"a heart condition|chronic pain|tinnitus|hypothyroidism|scoliosis|multiple sclerosis|endometriosis|"
    r"glaucoma|anemia|anaemia|a thyroid condition|lactose intolerance|osteoporosis|long covid|hay fever|ms|"
    r"parkinson's(?: disease)?|cancer|hiv|hepatitis [abc]|an eating disorder|vertigo")
_ADJECTIVE_CONDITIONS = {"diabetic": "diabetes", "asthmatic": "asthma", "epileptic": "epilepsy", "anemic": "anemia",
                         "lactose intolerant": "lactose intolerance", "gluten intolerant": "gluten intolerance",
                         "prediabetic": "prediabetes", "anaemic": "anaemia", "pre-diabetic": "prediabetes",
                         "celiac": "celiac disease",
                         "bipolar": "bipolar disorder", "dyslexic": "dyslexia", "autistic": "autism"}
# "I'm Canadian", "I'm Sorry": capitalised words after "I'm" that are not names.
_NOT_NAMES = set(
    "american canadian british english scottish irish welsh french german italian spanish portuguese dutch swiss "
    "swedish norwegian danish finnish polish russian ukrainian greek turkish indian pakistani chinese japanese "
    "korean vietnamese thai filipino indonesian mexican brazilian argentinian colombian australian kiwi african "
    "nigerian kenyan egyptian israeli iranian arab jewish muslim christian catholic buddhist hindu atheist vegan "
    "vegetarian sorry fine good okay ok here back ready done not just so really also still currently actually "
    "home sure glad happy sad tired new single married divorced gay straight bi trans sick well excited "
    "in on at from with the a an very always never".split())


# "I'm a people person", "a morning person": not a taste for a thing.
_NOT_TASTES = {"people", "morning", "night", "evening", "big", "huge", "real", "total", "hands-on", "detail",
               "glass", "half", "outdoors", "indoor", "a", "an", "the"}


def _taste(value: str) -> str | None:
    return None if value.lower() in _NOT_TASTES else value


_DIET = r"(vegan|vegetarian|pescatarian|pescetarian|plant-based|flexitarian)"
_DIET_KIND = (r"(vegan|vegetarian|pescatarian|pescetarian|plant-based|flexitarian|keto|ketogenic|paleo|low-carb|"
              r"low carb|gluten-free|dairy-free|halal|kosher|mediterranean|low-fodmap)")


# "vegan restaurants", "vegetarian options": a thing of that kind, not how the user eats.
_NOT_A_DIET = r"(?! (?:restaurants?|options?|places?|friends?|recipes?|food|dishes|meals|cookbooks?|cafes?|menus?)\b)"


def _diet(value: str) -> str:
    return f"{value.lower()} diet"


# A breed names the animal as well as its kind does ("a rescue greyhound called Biscuit").
_BREEDS = (r"(?:greyhound|whippet|lurcher|labrador|retriever|poodle|beagle|spaniel|terrier|collie|husky|huskies|"
           r"dachshund|pug|corgi|bulldog|frenchie|chihuahua|schnauzer|rottweiler|doberman|staffie|staffy|cockapoo|"
           r"labradoodle|cavapoo|shih tzu|pomeranian|dalmatian|sheepdog|mutt|tabby|siamese|maine coon|ragdoll|"
           r"sphynx|cockatiel|lovebird|axolotl|chinchilla|hedgehog|gerbil)s?")
PET = (r"((?i:dogs?|cats?|pupp(?:y|ies)|kittens?|rabbits?|bunn(?:y|ies)|hamsters?|guinea pigs?|parrots?|"
       r"budgies?|birds?|goldfish|fish|turtles?|tortoises?|snakes?|lizards?|geckos?|horses?|ponies|pony|ferrets?|"
       r"chickens?|" + _BREEDS + r"))")
# "I have", "we've got", "I adopted", "I just got": the user's own animals, now (not "I had", "I want").
_HAVE = (r"\b(?i:i|we)(?i:'ve| have)?(?i: just| recently| finally| also)?(?i: have| own| got| adopted| rescued|"
         r" have got) ")
_PET_COUNT = r"(?i:a |an |one |two |three |four |2 |3 |4 |our |my |a new |a couple of |another |a second |a third )"
_PET_LOOKS = (r"(?:(?i:little|new|old|young|senior|rescue|adopted|black|white|grey|gray|brown|orange|ginger|tabby|"
              r"golden|fluffy|big|small|sweet|lazy|crazy|beautiful|cute)\s+){0,2}")


_LANGUAGE = (r"(?:english|french|spanish|german|italian|portuguese|dutch|swedish|norwegian|danish|finnish|polish|"
             r"russian|ukrainian|greek|turkish|arabic|hebrew|persian|farsi|hindi|urdu|bengali|punjabi|tamil|"
             r"mandarin|cantonese|chinese|japanese|korean|vietnamese|thai|indonesian|malay|tagalog|swahili|"
             r"czech|hungarian|romanian|catalan|irish|welsh|sign language|asl)")


_LANGUAGES = _LANGUAGE + r"(?:(?:,? and |, | & )" + _LANGUAGE + r")*"


def _name(value: str) -> str | None:
    return None if value.split()[0].lower() in _NOT_NAMES or shouted(value) else value


# Who else opens a message by who they are: "Mom here", "it's Dad".
_NOT_INTRODUCED = {"mom", "mum", "dad", "mother", "father", "grandma", "grandpa", "granny", "nana", "papa", "mama",
                   "honey", "babe", "baby", "everyone", "everybody", "team", "guys", "monday", "tuesday",
                   "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february", "march", "april",
                   "may", "june", "july", "august", "september", "october", "november", "december", "christmas",
                   "easter", "spring", "summer", "autumn", "fall", "winter", "morning", "noon", "midnight"}


def _introduced(value: str) -> str | None:
    return None if value.split()[0].lower() in _NOT_INTRODUCED else _name(value)


def _condition(value: str) -> str | None:
    return _ADJECTIVE_CONDITIONS.get(value.lower(), value)


def _no_condition(value: str) -> str | None:
    """A difficulty that is a named condition is read as the condition, not as a struggle."""
    return None if re.fullmatch(CONDITIONS, value, _I) else value


# "I can't have dairy" is about food; "I can't have kids" or "a dog in my flat" is not.
_NOT_FOOD = (r"(?= (?!(?:kids|children|babies|a|an|the|my|your|any|pets?|dogs?|cats?|visitors|guests|people|friends|"
             r"time|fun|sex|surgery|that|it|this|them|him|her)\b))")

# A number followed by a foot or inch mark is a height ("I'm 5'10", 6’2, 5′4″), never an age.
_AGE_GUARD = (r"(?!\d|[%.,]\d|['’′\"″]|\s*(?:%|percent|minutes?|mins?|hours?|hrs?|seconds?|times|kg|kilos?|lbs?|"
              r"pounds|km|miles?|cm|feet|foot|ft|inches|dollars|bucks|euros|\$|days?|weeks?|months?|am\b|pm\b|a\.m|p\.m|"
              r"o'clock|th\b|st\b|nd\b|rd\b|k\b|minutes|people|steps|floors?)|\s+years?\s+(?!old))")
_AGE_NUMBER = r"(\d{1,3}|" + EN_NUMBER_WORDS + r")"

# "my wife Anna", "my dog Rex": whoever is named so is the user's, in a question or a request too
# ("can you suggest a gift for my husband Tom?", "my manager Deepak said …"): ``PRESUPPOSED``.
MY_PET = Rule(re.compile(r"\b(?i:my|our) " + _PET_LOOKS + PET + r"(?:'s name is|'s names are| is named| is called|"
                         r" are named| are called|,)? " + PEOPLE), P.HAS_PET, 2, lists=True, kind_group=1)
# ("my wife name is Fatima": the possessive dropped, as many say it in a second language)
MY_RELATION = Rule(re.compile(r"\b(?i:my) " + RELATION_MOD + RELATION + r"(?:'s name is|'s names are|(?:'s)? name is|"
                              r" is named| is called| are named| are called| are|,| is|:)? " + PEOPLE), None, 2,
                   relation_group=1, lists=True)
PRESUPPOSED = [MY_PET, MY_RELATION]

RULES: list[Rule] = [
    # names
    Rule(re.compile(r"\b(?i:my (?:first |full )?name(?:'s| is)|the name(?:'s| is)) " + NAME), P.HAS_NAME),
    # "her name's Clara" names her, not the user; a nickname said against the name ("everyone calls me Kat
    # though") is not a new one
    Rule(re.compile(r"^(?!.*\b(?i:call|calls) me [^,.;!?]{1,30}?,? (?i:though|tho)\b)"
                    r".*?\b(?i:call me|calls me|i'm called|i am called|i go by|known as|"
                    r"(?<!\bhis )(?<!\bher )(?<!\btheir )(?<!\bits )(?<!\bHis )(?<!\bHer )(?<!\bTheir )(?<!\bIts )"
                    r"name's) " + NAME), P.HAS_NAME,
         value=_name),
    Rule(re.compile(r"\b(?i:i'm|i am) " + NAME + r"(?=$|[,.!;]| and | from | here\b| by the way| now\b)"),
         P.HAS_NAME, value=_name),
    # a parent naming their child by the parent they are: "this is Dana, Lily's mom", "I'm Omar's dad"
    Rule(re.compile(r"\b(?i:i'm|i am|this is (?-i:[A-Z]\w+),?) " + NAME + r"(?i:'s) (?i:mom|mum|mother|dad|father|"
                    r"parent|mama|papa)\b"), P.HAS_CHILD),
    # introductions: "Hi, this is Dana", "Dana here!" (the opening of a message, not "this is Paris")
    Rule(re.compile(r"^(?i:hi|hey|hello|hiya)(?i: there)?[,!.]?\s+(?i:this is|it's|it is) " + NAME
                    + r"(?=$|[,.!]| here\b| by the way)"), P.HAS_NAME, value=_introduced),
    Rule(re.compile(r"^(?i:this is) " + NAME + r"(?= here\b| speaking\b|,? by the way| btw\b)"), P.HAS_NAME,
         value=_introduced),
    Rule(re.compile(r"^(?:(?i:hi|hey|hello|hiya)[,!.]?\s+)?" + NAME + r" (?i:here)(?=$|[,.!])"), P.HAS_NAME,
         value=_introduced),
    # ages: "I'm 35", "I am 35 years old", "I just turned 42", "a 29-year-old nurse", "thirty-one"
    Rule(re.compile(r"\bi(?:'m| am)\s+(?:now\s+|already\s+|only\s+|just\s+|officially\s+|finally\s+)?" + _AGE_NUMBER
                    + _AGE_GUARD
                    + r"(?:\s*(?:years? old|yrs? old|y/?o)\b)?", _I), P.HAS_AGE, value=age),
    Rule(re.compile(r"(?:\bi\s+|^)(?:just\s+|recently\s+|finally\s+)?(?:turned|hit)\s+" + _AGE_NUMBER + r"\b", _I),
         P.HAS_AGE, value=age),
    Rule(re.compile(r"\bi(?:'m| am) an? " + _AGE_NUMBER + r"[- ]years?[- ]old\b", _I), P.HAS_AGE, value=age),
    Rule(re.compile(r"\bmy age is " + _AGE_NUMBER + r"\b", _I), P.HAS_AGE, value=age),
    # the age in apposition to the name: "I'm Dana, a 34-year-old …", "I'm Dev, 29, and …"
    Rule(re.compile(r"\b(?i:i'm|i am) " + WORD + r", (?i:an? )" + _AGE_NUMBER + r"[- ](?i:years?)[- ](?i:old)\b"),
         P.HAS_AGE, value=age),
    Rule(re.compile(r"\b(?i:i'm|i am) " + WORD + r", " + _AGE_NUMBER + r"(?:[- ](?i:years?)[- ](?i:old))?"
                    r"(?=$|[,.;!]| (?i:and|from|here)\b)"), P.HAS_AGE, value=age),
    Rule(re.compile(r"^being " + _AGE_NUMBER + r"(?:\s*years? old)?(?:,|$)", _I), P.HAS_AGE, value=age),
    Rule(re.compile(r"^as an? " + _AGE_NUMBER + r"[- ]years?[- ]old\b", _I), P.HAS_AGE, value=age),
    # allergies and conditions
    Rule(re.compile(r"\bi(?:'m| am) " + ADV + r"(?:(?:severely|deathly|highly|mildly|extremely|seriously|very|a bit|"
                    r"slightly|quite)\s+)?allergic to " + OBJ + END, _I), P.ALLERGIC_TO, lists=True),
    Rule(re.compile(r"\bi(?: have|'ve got| have got| got|'ve) (?:an? |some )?(?:(?:severe|bad|mild|serious|deadly|"
                    r"life-threatening|strong)\s+)?(?:allergy|allergies|allergic reactions?) (?:to|from) " + OBJ + END,
                    _I), P.ALLERGIC_TO, lists=True),
    Rule(re.compile(r"\b(?:i(?: have|'ve got| have got|'ve) an?|my) (?:(?:severe|bad|mild|serious)\s+)?"
                    r"(?!(?:severe|bad|mild|serious|strong|deadly)\b)([a-z][a-z -]{1,30}?) allergy\b", _I),
         P.ALLERGIC_TO, lists=True),
    Rule(re.compile(r"^(?:even )?(?:a little |a bit of |the smell of |any )?([A-Za-z][a-z -]{1,30}?) (?:gives|give|"
                    r"makes|make) me (?:an? )?(?:(?:bad|terrible|severe|awful|nasty|serious|horrible)\s+)?"
                    r"(?:allergic reaction|allergies|hives|a rash|break out)", _I), P.ALLERGIC_TO),
    Rule(re.compile(r"\bi (?:can't|cannot|can not|don't) (?:eat|have|take|drink|touch) " + OBJ
                    + r" (?:because|since|as|cause|'cause) i(?:'m| am) allergic", _I), P.ALLERGIC_TO, lists=True),
    Rule(re.compile(r"\bi(?: was| got| have been|'ve been| recently got| just got| was recently| was just|"
                    r" recently was) diagnosed with " + OBJ + END, _I), P.HAS_CONDITION, value=_condition),
    Rule(re.compile(r"\bi(?:'ve| have)? " + ADV + r"(?:have|had|suffer from|suffered from|live with|lived with|"
                    r"am living with|'m living with|been living with|struggle with|deal with|battle|got|"
                    r"been dealing with) "
                    r"(?:(?:mild|severe|chronic|bad|really bad)\s+)?("
                    + CONDITIONS + r")\b", _I), P.HAS_CONDITION, value=_condition),
    Rule(re.compile(r"\bi(?:'m| am) (diabetic|asthmatic|epileptic|anemic|lactose intolerant|gluten intolerant|"
                    r"pre-?diabetic|celiac|bipolar|dyslexic|autistic)\b", _I), P.HAS_CONDITION, value=_condition),
    # dislikes (before likes: a dislike rule reads the negated form whole)
    Rule(re.compile(r"\bi " + ADV + r"(?:don't|do not|dont|never|rarely) (?:really |much |particularly |ever |"
                    r"usually )?(?:like|enjoy|care for|care much for|touch) " + OBJ + END, _I),
         P.DISLIKES, lists=True),
    # what the user does not or cannot eat: a dislike a question about food reads ("I can't eat
    # gluten"; an allergy said with it is the allergy rule's; "I don't eat much meat" says how much)
    Rule(re.compile(r"\bi " + ADV + r"(?:(?:don't|do not|dont|never|rarely|no longer) (?:really |much |particularly |"
                    r"ever |usually )?(?:eat|drink)|(?:can't|cannot|can not) (?:eat|drink|have" + _NOT_FOOD + r")) "
                    r"(?!.*\ballergic\b)(?!(?:much|many|a lot of|lots of|that much|too much|enough)\b)" + OBJ + END,
                    _I), P.DISLIKES, lists=True, tags=(FOOD_TAG,)),
    Rule(re.compile(r"\bi " + ADV + r"(?:hate|dislike|detest|loathe|despise|can't stand|cannot stand|can't bear|"
                    r"avoid|can't tolerate) " + OBJ + END, _I), P.DISLIKES, lists=True),
    Rule(re.compile(r"\bi(?:'m| am) not " + ADV + r"(?:a )?(?:(?:big|huge|great|real|massive)\s+)?fan of " + OBJ + END,
                    _I), P.DISLIKES, lists=True),
    Rule(re.compile(r"\bi(?:'m| am) not (?:really |very |that |too )?(?:into|fond of|keen on|crazy about) " + OBJ
                    + END, _I), P.DISLIKES, lists=True),
    Rule(re.compile(r"^([A-Za-z][\w' -]{1,40}?) (?:is not|isn't|are not|aren't|is never|was never) (?:really )?"
                    r"(?:my thing|for me|my cup of tea|my favou?rite)\b", _I), P.DISLIKES),
    Rule(re.compile(r"\bi(?:'m| am) not (?:a |an )?(?:(?:big|huge|real|great)\s+)?([a-z]+) (?:drinker|eater|person|"
                    r"lover|fan)\b", _I), P.DISLIKES, value=_taste),
    Rule(re.compile(r"^([A-Za-z][\w' -]{1,40}?) (?:make|makes) me (?:really |so |very )?(?:uncomfortable|anxious|"
                    r"nervous|miserable|queasy|nauseous|cringe)\b", _I), P.DISLIKES),
    Rule(re.compile(r"\bmy least favou?rite (?:\w+ ){0,3}?(?:is|are) " + OBJ + END, _I), P.DISLIKES),
    Rule(re.compile(r"^([A-Za-z][\w' -]{1,40}?) (?:is|are) my least favou?rite\b", _I), P.DISLIKES),
    # likes
    Rule(re.compile(r"\bi " + ADV + r"(?:like|love|enjoy|prefer|adore|dig|fancy|am fond of|'m fond of) " + OBJ
                    + END, _I), P.HAS_PREFERENCE, lists=True),
    Rule(re.compile(r"\bi(?:'m| am) " + ADV + r"(?:a )?(?:(?:big|huge|massive|great|real|true|die-hard)\s+)?fan of "
                    + OBJ + END, _I), P.HAS_PREFERENCE, lists=True),
    Rule(re.compile(r"\bi(?:'m| am) " + ADV + r"(?:into|obsessed with|passionate about|crazy about|hooked on|"
                    r"fond of|keen on) " + OBJ + END, _I), P.HAS_PREFERENCE, lists=True),
    Rule(re.compile(r"\bmy (?:absolute |all-time |very )?favou?rite (?:\w+ ){0,3}?(?:is|are|has to be) " + OBJ + END,
                    _I), P.HAS_PREFERENCE, lists=True),
    Rule(re.compile(r"^([A-Za-z][\w' -]{1,40}?) (?:is|are|has always been|have always been) (?:definitely |easily |"
                    r"totally )?my (?:absolute |all-time |very |number one |top )?(?:favou?rite|jam|passion)\b", _I),
         P.HAS_PREFERENCE),
    Rule(re.compile(r"\bi(?:'m| am) (?:a )?(?:big |huge |total |real )?sucker for " + OBJ + END, _I), P.HAS_PREFERENCE,
         lists=True),
    # "I'm a big coffee drinker", "I'm a cat person" (and, negated, the dislike rule above)
    Rule(re.compile(r"\bi(?:'m| am) (?:a |an )?(?:(?:big|huge|real|total)\s+)?([a-z]+) "
                    r"(?:drinker|eater|person|lover)\b", _I), P.HAS_PREFERENCE, value=_taste),
    Rule(re.compile(r"\bi can't get enough of " + OBJ + END, _I), P.HAS_PREFERENCE),
    # a diet is how the user eats, kept as the taste it is: "I'm vegan" -> a vegan diet
    Rule(re.compile(r"\b(?:i(?:'m| am|'ve been| have been)|we(?:'re| are)(?: all| both)?) " + ADV
                    + r"(?:(?:a|an|strictly|strict|fully|mostly|completely|"
                    r"100%)\s+){0,2}" + _DIET + r"\b" + _NOT_A_DIET, _I), P.HAS_PREFERENCE, value=_diet),
    Rule(re.compile(r"\bi(?: went| have gone|'ve gone| became| have become|'ve become| turned) " + ADV
                    + r"(?:a |an )?(?:fully |completely )?" + _DIET + r"\b(?= |$|[.,;!?])" + _NOT_A_DIET, _I),
         P.HAS_PREFERENCE, value=_diet),
    Rule(re.compile(r"\bi(?:'m| am) (?:on|following|doing|sticking to) (?:a |an |the |strict )?" + _DIET_KIND
                    + r" diet\b", _I), P.HAS_PREFERENCE, value=_diet),
    Rule(re.compile(r"\bi " + ADV + r"(?:only |strictly )?(?:follow|eat|keep|stick to) "
                    r"(?:a |an |the |strictly |only )?" + _DIET_KIND
                    + r"(?: diet| food)?(?= |$|[.,;!?])", _I), P.HAS_PREFERENCE, value=_diet),
    # fears are dislikes: "I'm afraid of heights", "I have a phobia of needles"
    Rule(re.compile(r"\bi(?:'m| am) " + ADV + r"(?:(?:a bit|a little|kind of|kinda)\s+)?(?:afraid|scared|terrified|"
                    r"frightened) of " + OBJ + END, _I), P.DISLIKES, lists=True),
    Rule(re.compile(r"\bi " + ADV + r"(?:fear|have a fear of|have a phobia of) " + OBJ + END, _I), P.DISLIKES,
         lists=True),
    # a fan of a team or a band by its name: "I'm a Lakers fan", "I support Arsenal"
    Rule(re.compile(r"\b(?i:i'm|i am) (?i:a |an )?(?:(?i:big|huge|massive|die-hard|diehard|lifelong|real|total)\s+)?"
                    r"((?:" + UPPER + r"[\w'&-]*\s){0,3}" + UPPER + r"[\w'&-]*) (?i:fan|supporter)\b"),
         P.HAS_PREFERENCE),
    Rule(re.compile(r"\b(?i:i) (?i:support|root for|cheer for) (?i:the )?((?:" + UPPER + r"[\w'&-]*\s){0,3}"
                    + UPPER + r"[\w'&-]*)"
                    r"(?=$|[.,;!?]| (?i:and|but|because|since|in|at)\b)"), P.HAS_PREFERENCE),
    # difficulties and skills
    Rule(re.compile(r"\bi " + ADV + r"(?:struggle (?:a lot |a bit |so much |quite a bit |badly )?with|"
                    r"have (?:a lot of |some |real )?trouble(?: with)?|have a hard time(?: with)?|"
                    r"have difficulty(?: with)?|have difficulties with|suck at|can't get my head around|"
                    r"can't wrap my head around) " + OBJ + END, _I), P.STRUGGLES_WITH, lists=True,
         value=_no_condition),
    Rule(re.compile(r"\bi(?:'m| am) " + ADV + r"(?:bad|terrible|awful|hopeless|useless|rubbish|not (?:very |that |so |"
                    r"too |all that )?(?:good|great)|weak) (?:at|in|with) " + OBJ + END, _I), P.STRUGGLES_WITH,
         lists=True),
    Rule(re.compile(r"^([A-Za-z][\w' -]{1,40}?) (?:is|are) (?:really |so |very |quite |always |super )?(?:hard|"
                    r"difficult|tough|confusing|a struggle|a nightmare) for me\b", _I), P.STRUGGLES_WITH),
    Rule(re.compile(r"^([A-Za-z][\w' -]{1,40}?) (?:has|have) always been (?:really |so |very )?(?:hard|difficult|"
                    r"tough|a struggle) for me\b", _I), P.STRUGGLES_WITH),
    Rule(re.compile(r"\bi find ([a-z][\w' -]{1,40}?) (?:really |so |very |quite |super )?(?:hard|difficult|"
                    r"confusing|challenging|tough)\b", _I), P.STRUGGLES_WITH),
    Rule(re.compile(r"\bi(?:'m| am) " + ADV + r"(?:good|great|excellent|skilled|proficient|fluent|an expert|"
                    r"experienced|talented) (?:at|in|with) " + OBJ + END, _I), P.MASTERS, lists=True),
    Rule(re.compile(r"\bi speak fluent " + OBJ + END, _I), P.MASTERS, lists=True),
    # languages: "I speak French and Spanish", "I'm fluent in Mandarin" (not "I speak to my boss")
    Rule(re.compile(r"\bi " + ADV + r"(?:speak|can speak|also speak) (?!a little|a bit|some|basic|broken)"
                    r"(?:(?:fluent|decent|good)\s+)?(" + _LANGUAGES + r")\b", _I), P.MASTERS, lists=True),
    Rule(re.compile(r"\bi(?:'m| am) " + ADV + r"fluent in (" + _LANGUAGES + r")\b", _I), P.MASTERS, lists=True),
    # occupations
    Rule(re.compile(r"\b(?:i|i'm|i am|i've|i have) " + ADV + r"(?:working|work|worked|been working)(?: nights| days"
                    r"| weekends| shifts| part[- ]time| full[- ]time| freelance| remotely| from home){0,2} as an? "
                    + JOB, _I),
         P.WORKS_AS),
    Rule(re.compile(r"\bi(?:'m| am) " + ADV + r"an? (?:\d{1,3}[- ]years?[- ]old )?" + JOB, _I), P.WORKS_AS),
    Rule(re.compile(r"\bmy (?:job|profession|occupation|day job) is (?:being )?an? " + JOB, _I), P.WORKS_AS),
    # a change of job said as news: "I became a UX designer" (not "my sister became a nurse")
    Rule(re.compile(r"\bi(?:'ve| have)? (?:just |recently |finally |then |eventually |officially )?"
                    r"(?:became|become) an? "
                    + JOB, _I), P.WORKS_AS),
    # "I'm Dana, a 34-year-old architect from Chicago": the age and the job said after the name.
    Rule(re.compile(r"\b(?i:i'm|i am) " + WORD + r", (?i:an? )(?:\d{1,3}[- ](?i:years?)[- ](?i:old) )?" + JOB, _I),
         P.WORKS_AS),
    Rule(re.compile(r"\b(?:i(?:'m| am) employed as|by profession,? i(?:'m| am)) an? " + JOB, _I), P.WORKS_AS),
    # where the user lives
    Rule(re.compile(r"\b(?i:i|we) " + ADV + r"(?i:live|am living|'m living) with (?i:my |our )?[^.,;!?]{1,40}? "
                    r"(?i:in) " + PLACE), P.LIVES_IN),
    Rule(re.compile(r"\b(?i:i|we) " + ADV + r"(?i:live|am living|'m living|are living|'re living|reside|settled|"
                    r"now live)(?i: alone| by myself| on my own| all alone| here| there){0,2} in " + PLACE),
         P.LIVES_IN),
    Rule(re.compile(r"\b(?i:i|we)(?i:'ve| have)? " + ADV + r"(?i:just |recently |finally |eventually )?(?i:moved|"
                    r"relocated)(?i: back| home| house| over| out| away| across| down| up){0,3} (?i:to|in) " + PLACE),
         P.LIVES_IN),
    # a home of the user's own: "I just signed a lease on my own place in Chicago" (not "I bought a house
    # in Spain", which may be a holiday home)
    Rule(re.compile(r"\b(?i:i|we)(?i:'ve| have)? " + ADV + r"(?i:signed a lease (?:on|for)|moved into) (?i:a|an|my|our)"
                    r"(?i: own| new| first| little| tiny){0,2} (?i:place|house|home|apartment|flat|condo|studio|"
                    r"townhouse) (?i:in) " + PLACE), P.LIVES_IN),
    Rule(re.compile(r"\b(?i:i'm|i am|we're|we are) (?i:now |currently |still )?(?i:based|living|located) "
                    r"(?i:in|out of) "
                    + PLACE), P.LIVES_IN),
    Rule(re.compile(r"\b(?i:my (?:home|house|place|apartment|flat) is in) " + PLACE), P.LIVES_IN),
    # where the user's home is said by what is around it: "my landlord in Pittsburgh", "living in
    # Phoenix in August is a nightmare", "these days I'm in Montreal"
    Rule(re.compile(r"\b(?i:my (?:landlord|landlady|apartment|flat|condo|neighbou?rs?|building|neighbou?rhood|"
                    r"commute) (?:here )?in) " + PLACE), P.LIVES_IN),
    Rule(re.compile(r"^(?i:(?:honestly|so|man|ugh|tbh),? )?(?i:living in) " + PLACE + r"(?= (?i:is|has|in|during)\b)"),
         P.LIVES_IN),
    Rule(re.compile(r"\b(?i:these days|nowadays|now),? (?i:i'm|i am) (?i:in|based in|living in) " + PLACE), P.LIVES_IN),
    Rule(re.compile(PLACE + r",? (?i:where i (?:live|'m based|am based|live now)|which is where i live)\b"),
         P.LIVES_IN),
    Rule(re.compile(r"^(?i:home(?: for me)? is) " + PLACE), P.LIVES_IN),
    # pets: "my dog Rex", "I have two cats, Miso and Tofu", "Pixel is my cat", "I adopted a puppy"
    Rule(re.compile(_HAVE + _PET_COUNT + _PET_LOOKS + PET + r"(?:,|:| named| called|, named| -| whose name is)? "
                    + PEOPLE), P.HAS_PET, 2, lists=True, kind_group=1),
    Rule(re.compile(_HAVE + r"[^.;!?]*?(?:,? (?i:and)|,) " + _PET_COUNT + _PET_LOOKS + PET
                    + r"(?:,|:| named| called|, named| -)? " + PEOPLE), P.HAS_PET, 2, lists=True, kind_group=1),
    MY_PET,
    Rule(re.compile(PEOPLE + r" (?:is|are) (?i:my|our) " + _PET_LOOKS + PET + r"\b"), P.HAS_PET, 1, lists=True,
         kind_group=2),
    Rule(re.compile(_HAVE + _PET_COUNT + _PET_LOOKS + PET + r"(?=$|[.,;!?]| and | who | that | which | at home"
                    r"| since | for )(?!,? (?:named |called |(?:her|his|its) name(?:'s| is) |(?:she|he|it)(?:'s| is) "
                    r"(?:called|named) )?" + UPPER + ")"), P.HAS_PET, value=singular_kind),
    # relations: "Leo is my son", "my wife Anna", "my sister's name is Mia", "two kids, Leo and Sara"
    Rule(re.compile(PEOPLE + r" (?:is|are|was) (?i:my) " + RELATION_MOD + RELATION + r"\b"), None, 1,
         relation_group=2, lists=True),
    MY_RELATION,
    Rule(re.compile(r"\b(?i:i have|i've got|we have) (?i:two|three|four|2|3|4|a|an|one) " + RELATION_MOD + RELATION
                    + r"(?:,|:| named| called|, named| -)? " + PEOPLE), None, 2, relation_group=1, lists=True),
    # the next one said in the same breath: "I have a son, Leo, and a daughter, Mia"
    Rule(re.compile(r"\b(?i:i have|i've got|we have) [^.;!?]*?(?:,? (?i:and)|,) (?i:two|three|2|3|a|an|one) " + RELATION
                    + r"(?:,|:| named| called|, named| -)? " + PEOPLE), None, 2, relation_group=1, lists=True),
    Rule(re.compile(r"\b(?i:i'm|i am|i got) (?i:married|engaged) to " + PERSON), P.HAS_SPOUSE),
]
