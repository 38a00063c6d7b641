"""English extraction cases (format: ``tests/extraction_cases/__init__.py``)."""

CASES = r"""
# names
name | Hey, I'm Marisol. | name=Marisol
name | hello! I'm Kwame, nice to meet you | name=Kwame
name | My name's Oleksandr but most people just say Alex. | name=Oleksandr
name | Please call me Bea. | name=Bea
name | Everybody calls me Junior. | name=Junior
name | My friends call me Tash | name=Tash
name | I go by Rory these days. | name=Rory
name | I'm Hannah and I'm new here. | name=Hannah
name | My full name is Maria Elena Ortiz. | name=Maria Elena Ortiz
name | The name is Devon, by the way. | name=Devon
name | I'm Canadian, born in Halifax. | | name=Canadian
name | I'm Vegan so keep that in mind | | name=Vegan
name | My first name is Ingrid. | name=Ingrid
name | You can call me Mo. | name=Mo
# ages
age | I'm 27. | age=27
age | I am 63 years old. | age=63
age | I just turned 40 last week! | age=40
age | I turned 18 in March. | age=18
age | I'm a 52-year-old accountant. | age=52; job=accountant
age | As a 34 year old dad, I get tired fast. | age=34
age | I'm thirty-one, for the record. | age=31
age | I am 45, so not that young anymore. | age=45
age | My age is 70. | age=70
age | I'm only 19 | age=19
age | I'm 5 minutes away from the store. | | age=5
age | I'm 100 percent sure about that. | | age=100
age | I'm 2 hours late already | | age=2
age | I recently turned 55. | age=55
age | I'm now 38 years old. | age=38
age | We walked 12 miles and I'm 60 | age=60
# allergies
allergy | I'm allergic to penicillin. | allergy=penicillin
allergy | I am severely allergic to bee stings | allergy=bee stings
allergy | I'm deathly allergic to peanuts, so please be careful. | allergy=peanuts
allergy | I have a shellfish allergy. | allergy=shellfish
allergy | Sulfa drugs give me a terrible allergic reaction. | allergy=sulfa drugs
allergy | Latex makes me break out in hives. | allergy=latex
allergy | I have an allergy to cats. | allergy=cats
allergy | I can't eat kiwi because I'm allergic. | allergy=kiwi
allergy | I'm allergic to dust mites, pollen and mold. | allergy=dust mites; allergy=pollen; allergy=mold
allergy | I'm mildly allergic to dogs. | allergy=dogs
allergy | Ibuprofen gives me hives. | allergy=ibuprofen
allergy | I've got a severe allergy to wasp stings. | allergy=wasp stings
allergy | I'm allergic to eggs and milk. | allergy=eggs; allergy=milk
allergy | I'm allergic to cats, not dogs. | allergy=cats | allergy=dogs
# conditions
cond | I was diagnosed with celiac disease two years ago. | cond=celiac disease
cond | I've been diagnosed with ADHD. | cond=adhd
cond | I have asthma. | cond=asthma
cond | I suffer from migraines. | cond=migraines
cond | I'm diabetic. | cond=diabetes
cond | I live with chronic pain. | cond=chronic pain
cond | I have high blood pressure. | cond=high blood pressure
cond | I was recently diagnosed with type 1 diabetes. | cond=type 1 diabetes
cond | I'm lactose intolerant, so no cheese for me. | cond=lactose intolerance
cond | I have really bad eczema on my hands. | cond=eczema
cond | I deal with anxiety pretty much every day. | cond=anxiety
cond | I got diagnosed with sleep apnea | cond=sleep apnea
# likes
like | I love sushi. | like=sushi
like | I really enjoy long bike rides. | like=long bike rides
like | I absolutely adore Thai food! | like=thai food
like | I'm a huge fan of the Beatles. | like=beatles
like | I'm really into bouldering. | like=bouldering
like | Honestly I just love old movies. | like=old movies
like | My favorite color is green. | like=green
like | Jazz is my favourite genre. | like=jazz
like | Basketball has always been my passion. | like=basketball
like | I'm obsessed with sourdough baking | like=sourdough baking
like | I like to cook on weekends. | like=cook on weekends
like | I prefer tea over coffee. | like=tea | like=coffee
like | I prefer aisle seats. | like=aisle seats
like | I do love a good thriller. | like=good thriller
like | My all-time favorite book is Dune. | like=dune
like | I enjoy gardening a lot. | like=gardening
like | I'm passionate about wildlife photography. | like=wildlife photography
like | I like my coffee black. |
like | I love it when it rains. |
like | Ramen is my favorite food | like=ramen
like | I love you guys |
like | I still love playing chess. | like=playing chess
# dislikes
dislike | I don't like horror movies. | dislike=horror movies
dislike | I hate mushrooms. | dislike=mushrooms
dislike | I can't stand loud music. | dislike=loud music
dislike | I really dislike flying. | dislike=flying
dislike | I'm not a fan of cilantro. | dislike=cilantro
dislike | I'm not really into sports. | dislike=sports
dislike | I never drink soda. | dislike=soda
dislike | I don't eat pork. | dislike=pork
dislike | Cold weather is not my thing. | dislike=cold weather
dislike | I avoid crowded malls | dislike=crowded malls
dislike | I don't really care for opera. | dislike=opera
dislike | I'm not a huge fan of crowded bars. | dislike=crowded bars
dislike | I detest small talk. | dislike=small talk
dislike | I honestly hate waking up early | dislike=waking up early
dislike | Olives aren't for me. | dislike=olives
dislike | I don't enjoy running. | dislike=running | like=running
# several facts in one sentence
multi | I prefer quiet cafes, and I hate loud bars. | like=quiet cafes; dislike=loud bars
multi | I love jazz but I can't stand country. | like=jazz; dislike=country
multi | I like cats but hate dogs. | like=cats; dislike=dogs
multi | I'm 33 and I live in Denver. | age=33; live=Denver
multi | My name is Carla, I'm 41 and I work as a pharmacist. | name=Carla; age=41; job=pharmacist
multi | I enjoy hiking, but I really don't like camping. | like=hiking; dislike=camping
multi | I'm a nurse and I'm allergic to latex. | job=nurse; allergy=latex
multi | I love spicy food, although I hate cilantro. | like=spicy food; dislike=cilantro
multi | I hate traffic and I love biking to work. | dislike=traffic; like=biking to work
multi | I live in Austin, and my wife Jenna is a teacher. | live=Austin; spouse=Jenna | job=teacher
multi | I'm Theo, I'm 22 and I'm a student. | name=Theo; age=22; job=student
multi | I don't drink coffee but I love green tea. | dislike=coffee; like=green tea
# lists
list | I love pizza, pasta and gelato. | like=pizza; like=pasta; like=gelato
list | I hate snakes and spiders. | dislike=snakes; dislike=spiders
list | I enjoy reading, swimming, and baking. | like=reading; like=swimming; like=baking
list | I have two kids, Maya and Eli. | child=Maya; child=Eli
list | I have three daughters, Ana, Bea and Clara. | child=Ana; child=Bea; child=Clara
list | My kids are Jonah and Lily. | child=Jonah; child=Lily
list | I don't eat beef or lamb. | dislike=beef; dislike=lamb
list | I'm allergic to almonds, cashews, and walnuts. | allergy=almonds; allergy=cashews; allergy=walnuts
list | My two sons, Max and Ben, play soccer. | child=Max; child=Ben
list | I love mac and cheese. | like=mac and cheese
list | I'm into rock and roll. | like=rock and roll
list | I love jazz, especially bebop. | like=jazz
# occupations
job | I'm a teacher. | job=teacher
job | I'm an electrician. | job=electrician
job | I work as a paralegal downtown. | job=paralegal
job | I'm a high school teacher. | job=high school teacher
job | I am a software engineer at a startup. | job=software engineer
job | I'm currently a postdoc. | job=postdoc
job | I've worked as a chef for ten years. | job=chef
job | My job is being a flight attendant. | job=flight attendant
job | I'm a registered nurse. | job=registered nurse
job | I'm employed as a data scientist. | job=data scientist
job | I'm a big fan of teachers. | like=teachers | job=teachers
job | I'm a doctor's daughter. | | job=doctor
job | I'm a freelance illustrator. | job=freelance illustrator
job | I'm a student at McGill. | job=student
job | I'm a mom of three. |
job | I work as an interpreter | job=interpreter
# where the user lives
live | I live in Melbourne. | live=Melbourne
live | We live in San Diego. | live=San Diego
live | I'm based in Berlin. | live=Berlin
live | We just moved to Vancouver. | live=Vancouver
live | I recently relocated to Lisbon for work. | live=Lisbon
live | I currently live in New York City. | live=New York City
live | I'm living in Osaka right now. | live=Osaka
live | My apartment is in Brooklyn. | live=Brooklyn
live | I live in a small flat. |
live | I'm from Chile but I live in Madrid. | live=Madrid | live=Chile
live | We moved to Portland last year. | live=Portland
live | I finally moved to Seattle | live=Seattle
# relations
relation | Priscilla is my wife. | spouse=Priscilla
relation | My husband's name is Omar. | spouse=Omar
relation | My daughter Zoe just started school. | child=Zoe
relation | My son is called Felix. | child=Felix
relation | Dr. Okafor is my thesis advisor. | advisor=Dr. Okafor
relation | My manager, Mrs. Liang, is very strict. | manager=Mrs. Liang
relation | My boss is Mr. Thompson. | manager=Mr. Thompson
relation | My best friend Jake lives nearby. | friend=Jake
relation | My older sister Nadia is a lawyer. | sibling=Nadia | job=lawyer
relation | Prof. Hale is my mentor. | advisor=Prof. Hale
relation | My brother Luis loves surfing. | sibling=Luis | like=surfing
relation | I'm married to Daniel. | spouse=Daniel
relation | My colleague Priya sits next to me. | colleague=Priya
relation | Leo and Sara are my kids. | child=Leo; child=Sara
relation | My mom Linda is visiting. | parent=Linda
relation | My coworker Ahmed recommended it. | colleague=Ahmed
relation | My little brother is called Sam. | sibling=Sam
relation | My ex-husband Tom lives in Ohio. | | spouse=Tom
relation | My former boss Greg was awful. | | manager=Greg
relation | My PhD supervisor is Professor Ng. | advisor=Professor Ng
# difficulties and skills
struggle | I really struggle with calculus. | struggle=calculus
struggle | I have trouble with public speaking. | struggle=public speaking
struggle | I'm terrible at math. | struggle=math
struggle | I'm not very good at cooking. | struggle=cooking
struggle | Statistics is really hard for me. | struggle=statistics
struggle | I find Spanish grammar confusing. | struggle=spanish grammar
struggle | I have a hard time with deadlines. | struggle=deadlines
struggle | I'm bad at remembering names. | struggle=remembering names
struggle | I struggle with anxiety. | cond=anxiety | struggle=anxiety
struggle | I suck at parallel parking. | struggle=parallel parking
skill | I'm fluent in Portuguese. | master=portuguese
skill | I'm really good at chess. | master=chess
skill | I'm an expert in tax law. | master=tax law
skill | I speak fluent Mandarin. | master=mandarin
skill | I'm great at public speaking. | master=public speaking
# negatives: hearsay
hearsay | My friend says she loves jazz. | | like=jazz
hearsay | My mom thinks I'm allergic to gluten. | | allergy=gluten
hearsay | He told me he lives in Rome. | | live=Rome
hearsay | My doctor said I might have asthma. | | cond=asthma
hearsay | Sara claims she hates sushi. | | dislike=sushi
hearsay | My brother keeps saying I'm 40, but whatever. | | age=40
hearsay | People say I'm a great cook. | | job=cook
hearsay | My boss mentioned that she is a vegan. |
# negatives: questions
question | Do I like jazz? | | like=jazz
question | Am I allergic to penicillin? | | allergy=penicillin
question | What's my name again? |
question | do you think I love sushi | | like=sushi
question | Is it weird that I hate cheese? | | dislike=cheese
question | Where do I live, according to you? |
question | Can you remind me whether I'm 40? | | age=40
# negatives: hypotheticals
hypothetical | If I were rich I'd live in Monaco. | | live=Monaco
hypothetical | I wish I lived in Hawaii. | | live=Hawaii
hypothetical | If I had kids I would name one Luna. | | child=Luna
hypothetical | I would love to work as a pilot someday. | | job=pilot
hypothetical | If I lived in Paris I'd eat croissants daily. | | live=Paris
hypothetical | Imagine I'm allergic to nuts, what then? | | allergy=nuts
hypothetical | I'd probably hate winter in Norway. | | dislike=winter in norway
# negatives: past states
used_to | I used to live in Chicago. | | live=Chicago
used_to | I used to be a firefighter. | | job=firefighter
used_to | I used to love heavy metal. | | like=heavy metal
used_to | I used to be allergic to milk as a kid. | | allergy=milk as a kid; allergy=milk
used_to | I used to hate vegetables. | | dislike=vegetables
# negatives: other people
other | My sister is allergic to cats. | | allergy=cats
other | My husband works as a pilot. | | job=pilot
other | My dad lives in Madrid. | | live=Madrid
other | My son loves dinosaurs. | | like=dinosaurs
other | My wife hates horror films. | | dislike=horror films
other | My daughter is 7 years old. | | age=7
other | My friend was diagnosed with diabetes. | | cond=diabetes
other | She is a nurse. | | job=nurse
other | My parents moved to Florida. | | live=Florida
other | Our neighbor is allergic to bees. | | allergy=bees
# changes of state over turns
change | I live in Paris. || Actually we moved to Lyon last month. | live=Lyon | live=Paris
change | I love coffee. || I don't like coffee anymore. | dislike=coffee | like=coffee
change | I live in Boston. || I no longer live in Boston. | | live=Boston
change | I'm a teacher. || I'm not a teacher anymore. | | job=teacher
change | I have asthma. || I don't have asthma anymore. | | cond=asthma
change | I love running. || I no longer enjoy running. | dislike=running | like=running
change | I work as a barista. || Now I work as a nurse. | job=nurse | job=barista
change | I'm allergic to dogs. || I'm not allergic to dogs anymore. | | allergy=dogs
change | I live in Austin. || We relocated to Denver in May. | live=Denver | live=Austin
change | I hate sushi. || I love sushi now. | like=sushi | dislike=sushi
change | I'm 29. || I just turned 30. | age=30 | age=29
change | I like tea. || I used to like tea. | | like=tea
change | I'm a fan of cricket. || I'm not into cricket anymore. | dislike=cricket | like=cricket
change | My name is Jon. || Everyone calls me Jonny now. | name=Jonny | name=Jon
change | I live in Rome. || I used to live in Rome, but now I live in Milan. | live=Milan | live=Rome
change | I love coffee. || I hate coffee now. | dislike=coffee | like=coffee
change | I live in Leeds. || My sister moved to York. | live=Leeds | live=York
change | I'm a vegetarian and I love tofu. || I don't eat tofu anymore. | dislike=tofu | like=tofu
# corrections
correction | I'm 30. || Sorry, I meant 31. | age=31 | age=30
correction | I live in Portland. || No, I meant Seattle. | live=Seattle | live=Portland
correction | My name is John. || Sorry, it's Jon, not John. | name=Jon | name=John
correction | I'm 44. || Oops, I mean 45. | age=45 | age=44
correction | I love tea. || Sorry, I meant coffee. | like=coffee | like=tea
correction | I work as a nurse. || Correction: I'm a midwife. | job=midwife | job=nurse
correction | I'm 52 years old. || Actually, I'm 53. | age=53 | age=52
correction | I'm allergic to peanuts. || No, I meant walnuts. | allergy=walnuts | allergy=peanuts
# second batch: written after the rules, scored before any rule was tuned on it
name | Hi! Name's Gabriel. | name=Gabriel
name | I'm Yusuf, by the way. | name=Yusuf
name | Folks around here call me Red. | name=Red
name | My name is Siobhan and I'm from Cork. | name=Siobhan
age | I'll be honest, I'm 58. | age=58
age | I turned sixty this spring. | age=60
age | Being 24, I still live with my parents. | age=24
age | I'm a 41 year old teacher from Ohio. | age=41; job=teacher
allergy | I'm very allergic to strawberries. | allergy=strawberries
allergy | Aspirin gives me an allergic reaction. | allergy=aspirin
allergy | I have a nut allergy. | allergy=nut
allergy | I'm allergic to both cats and horses. | allergy=cats; allergy=horses
cond | I was diagnosed with hypothyroidism last year. | cond=hypothyroidism
cond | I've had asthma since childhood. | cond=asthma
cond | I have type 2 diabetes, so I watch my sugar. | cond=type 2 diabetes
cond | I suffer from insomnia. | cond=insomnia
like | I'm crazy about salsa dancing. | like=salsa dancing
like | I really like Korean dramas. | like=korean dramas
like | Pho is my all-time favorite dish. | like=pho
like | I enjoy playing the piano in the evenings. | like=playing the piano
like | I adore my garden. |
like | I love both cats and dogs. | like=cats; like=dogs
like | My favourite sport is tennis. | like=tennis
like | I'm a massive fan of Formula 1. | like=Formula 1
dislike | I really can't stand cold pizza. | dislike=cold pizza
dislike | I don't like flying at all. | dislike=flying
dislike | I'm not a fan of reality TV. | dislike=reality tv
dislike | Honestly I hate doing dishes. | dislike=doing dishes
dislike | I never eat fast food. | dislike=fast food
dislike | Spicy food isn't really my thing. | dislike=spicy food
multi | I love the beach, but I hate sand in my shoes. | like=beach; dislike=sand in my shoes
multi | I'm 36 and I work as a plumber. | age=36; job=plumber
multi | I enjoy cooking and I hate cleaning up afterwards. | like=cooking; dislike=cleaning up afterwards
job | I'm a nurse at St. Mary's. | job=nurse
job | I work as an accountant for a bank. | job=accountant
job | I'm a civil engineer. | job=civil engineer
job | I am a lawyer. | job=lawyer
job | I'm currently working as a bartender. | job=bartender
live | I live in Cape Town. | live=Cape Town
live | We moved to Sydney in January. | live=Sydney
live | I'm living in Mexico City these days. | live=Mexico City
live | We've just moved to Glasgow. | live=Glasgow
relation | My wife's name is Elena. | spouse=Elena
relation | Miguel is my husband. | spouse=Miguel
relation | My daughter, Ava, is six. | child=Ava
relation | Ms. Rivera is my manager. | manager=Ms. Rivera
relation | My best friend is called Tariq. | friend=Tariq
relation | I have a son named Oliver. | child=Oliver
relation | My advisor, Dr. Chen, is great. | advisor=Dr. Chen
struggle | I'm really bad at spelling. | struggle=spelling
struggle | I have trouble sleeping. | struggle=sleeping
struggle | Chemistry is so hard for me. | struggle=chemistry
struggle | I struggle a lot with time management. | struggle=time management
skill | I'm good at fixing bikes. | master=fixing bikes
negative | My husband loves golf. | | like=golf
negative | Would I like sushi? | | like=sushi
negative | If I lived in Tokyo I'd learn Japanese. | | live=Tokyo
negative | My cousin is allergic to shellfish. | | allergy=shellfish
negative | My boss says he's 50. | | age=50
negative | I used to work as a waiter. | | job=waiter
negative | Do I have asthma? | | cond=asthma
negative | My son is a teacher. | | job=teacher
negative | I might be allergic to wheat. | | allergy=wheat
negative | Maybe I'll move to Boston. | | live=Boston
change | I live in Oslo. || We moved to Bergen last summer. | live=Bergen | live=Oslo
change | I like beer. || I don't drink beer anymore. | dislike=beer | like=beer
change | I'm a student. || I'm no longer a student. | | job=student
change | I love tennis. || I don't enjoy tennis anymore. | dislike=tennis | like=tennis
correction | I'm 27. || Sorry, I meant 28. | age=28 | age=27
correction | I live in Dublin. || Sorry, I meant Galway. | live=Galway | live=Dublin
# third batch: likewise scored before tuning
name | Hey there, I'm Dmitri! | name=Dmitri
name | Just call me Liz. | name=Liz
name | my name is Ravi | name=Ravi
age | I'm 47 now. | age=47
age | Turned 33 yesterday! | age=33
age | I am twenty-nine years old. | age=29
allergy | Shrimp gives me hives. | allergy=shrimp
allergy | I'm allergic to sesame. | allergy=sesame
allergy | I've got a peanut allergy. | allergy=peanut
cond | I have epilepsy. | cond=epilepsy
cond | I was diagnosed with Crohn's disease in 2019. | cond=crohn's disease
like | I absolutely love Italian food. | like=italian food
like | I'm really into true crime podcasts. | like=true crime podcasts
like | I really enjoy hiking with my dog. | like=hiking
like | Sushi is my favorite. | like=sushi
dislike | I hate waiting in line. | dislike=waiting in line
dislike | I'm not into horror. | dislike=horror
dislike | I really don't like cilantro. | dislike=cilantro
multi | I love baking, and I hate running. | like=baking; dislike=running
multi | I'm 50, and I'm a dentist. | age=50; job=dentist
job | I work as a graphic designer. | job=graphic designer
job | I'm a pharmacist. | job=pharmacist
live | I live in Toronto with my family. | live=Toronto
live | We recently moved to Auckland. | live=Auckland
relation | My son Noah is eight. | child=Noah
relation | Aisha is my best friend. | friend=Aisha
relation | My husband, Mark, cooks. | spouse=Mark
struggle | I really struggle with French. | struggle=french
struggle | I'm not great at math. | struggle=math
negative | My mom loves gardening. | | like=gardening
negative | What do I like to eat? |
negative | My brother lives in Perth. | | live=Perth
negative | My colleague is allergic to nuts. | | allergy=nuts
negative | I used to be a smoker. |
negative | I hope to move to Spain. | | live=Spain
change | I work as a cashier. || I'm a manager now. | job=manager | job=cashier
change | I love chocolate. || I don't eat chocolate anymore. | dislike=chocolate | like=chocolate
# everyday chat that states no fact about the user
chat | I'm going to the store later. |
chat | I'm so tired today. |
chat | I love that idea! |
chat | I like how you explained that. |
chat | I'm not sure what to cook tonight. |
chat | I'm in a meeting right now. |
chat | I'm at the airport. |
chat | I'm Here to ask about my order. |
chat | I'm OK, thanks. |
chat | I live for the weekends. |
chat | I hate to say it but you're right. |
chat | I prefer not to say. |
chat | I don't like to complain, but the food was cold. |
chat | I love you so much, thank you! |
chat | I work as hard as I can. |
chat | I'm a little worried about the exam. |
chat | I'm a bit confused. |
chat | I'm an only child. |
chat | I'm a morning person. |
chat | We love this place. |
chat | My favorite part was the ending. |
chat | I'm fine with either option. |
chat | I can't stand here all day. |
chat | I'm good at the moment, thanks. |
chat | This is John's laptop. |
chat | I'm done with the report. |
# fourth batch: harder idioms, scored before tuning
name | Hiya, I'm Leona. | name=Leona
age | I'm fifty-two. | age=52
age | I just hit 30 last month. | age=30
allergy | Penicillin makes me break out in a rash. | allergy=penicillin
allergy | I'm allergic to latex and adhesive tape. | allergy=latex; allergy=adhesive tape
cond | I've been living with MS for years. | cond=ms
like | Hiking is my absolute favorite thing to do. | like=hiking
like | I'm a sucker for dark chocolate. | like=dark chocolate
like | I really, really love the ocean. | like=ocean
dislike | Crowds make me uncomfortable. | dislike=crowds
dislike | I'm not a big coffee drinker. | dislike=coffee
job | I teach third grade. | job=teacher
job | I'm a retired firefighter. | | job=firefighter
live | Home for me is Nairobi. | live=Nairobi
relation | I've got a daughter called Isla. | child=Isla
relation | My partner, Sam, is a chef. | spouse=Sam | job=chef
struggle | Math has always been hard for me. | struggle=math
negative | My girlfriend is vegan and loves tofu. | | like=tofu
negative | Would you say I'm a morning person? |
negative | Supposing I moved to Berlin, would I need German? | | live=Berlin
change | I live in Quito. || We just relocated to Lima. | live=Lima | live=Quito
change | I love gin. || I've stopped drinking gin. | dislike=gin | like=gin
correction | I'm 61. || Oh sorry, I meant 62. | age=62 | age=61
"""
