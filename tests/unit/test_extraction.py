from datetime import UTC, datetime

import pytest

from engram.domain.extraction import extract_event, extract_facts, extract_reply
from engram.domain.ingest.sanitise import clean_turn
from engram.domain.ingest.tagging import TENTATIVE_WEIGHT, cleanse, resolve_relative_time
from engram.domain.model import EventType, Predicate, resolve_predicate
from engram.domain.profile.beliefs import ENDED_TAG

TS = "2026-05-14T09:00:00+00:00"


def facts(text, role="user"):
    turn = clean_turn(0, {"role": role, "content": text, "client_ts": TS, "message_id": "m1"}, "s")
    return {(f.predicate, f.object) for f in extract_facts(turn)}


@pytest.mark.parametrize(("text", "expected"), [
    ("My name is Alice Chen.", (Predicate.HAS_NAME, "Alice Chen")),
    ("我叫王小明。", (Predicate.HAS_NAME, "王小明")),
    ("I'm 34 years old", (Predicate.HAS_AGE, "34")),
    ("我今年28岁", (Predicate.HAS_AGE, "28")),
    ("I love hiking in the mountains.", (Predicate.HAS_PREFERENCE, "hiking in the mountains")),
    ("我喜欢喝绿茶。", (Predicate.HAS_PREFERENCE, "绿茶")),
    ("I don't like cilantro", (Predicate.DISLIKES, "cilantro")),
    ("我讨厌香菜", (Predicate.DISLIKES, "香菜")),
    ("I'm allergic to peanuts.", (Predicate.ALLERGIC_TO, "peanuts")),
    ("我对花生过敏", (Predicate.ALLERGIC_TO, "花生")),
    ("Tom is my son.", (Predicate.HAS_CHILD, "Tom")),
    ("My advisor is Dr Li", (Predicate.HAS_ADVISOR, "Dr Li")),
    ("小明是我儿子", (Predicate.HAS_CHILD, "小明")),
    ("我的导师叫李华", (Predicate.HAS_ADVISOR, "李华")),
])
def test_rules_read_facts_in_english_and_chinese(text, expected):
    assert expected in facts(text)


def test_negation_is_not_read_as_preference():
    assert facts("I don't like coffee") == {(Predicate.DISLIKES, "coffee")}


def test_assistant_turns_and_questions_about_others_are_not_facts_about_the_user():
    assert facts("My name is Bob", role="assistant") == set()
    assert facts("Is Manager Zhang 45 years old?") == set()
    assert facts('He said "I am allergic to cats".') == set()


def test_event_typed_by_fact_or_shape():
    turn = clean_turn(0, {"role": "user", "content": "hi there!", "client_ts": TS}, "s")
    assert extract_event(turn, []).type is EventType.GREETING
    task = clean_turn(0, {"role": "user", "content": "Please remind me to call mom", "client_ts": TS}, "s")
    assert extract_event(task, extract_facts(task)).type is EventType.TASK


def test_tentative_statement_tagged_and_weighted_not_dropped():
    turn = clean_turn(0, {"role": "user", "content": "Maybe I like jazz", "client_ts": TS}, "s")
    [fact] = extract_facts(turn)
    cleansed = cleanse(fact, turn.content, turn.client_ts)
    assert "tentative" in cleansed.tags and cleansed.weight == TENTATIVE_WEIGHT
    assert cleansed.confidence <= TENTATIVE_WEIGHT


@pytest.mark.parametrize(("text", "day"), [
    ("I went to the dentist yesterday", "2026-05-13"),
    ("我昨天去了医院", "2026-05-13"),
    ("next week I fly to Paris", "2026-05-21"),
    ("上个月我搬家了", "2026-04-14"),
    ("3 days ago", "2026-05-11"),
])
def test_relative_times_resolved_from_message_time(text, day):
    when, _ = resolve_relative_time(text, datetime(2026, 5, 14, 9, tzinfo=UTC))
    assert when.date().isoformat() == day


def test_unknown_predicate_rejected_not_invented():
    assert resolve_predicate("likes") is Predicate.HAS_PREFERENCE
    assert resolve_predicate("儿子") is Predicate.HAS_CHILD
    assert resolve_predicate("is_secretly_a_spy") is None


@pytest.mark.parametrize(("text", "obj"), [
    ("I love R&B music", "R&amp;B music"),
    ("I love <b>jazz</b>", "&lt;b&gt;jazz&lt;/b&gt;"),
])
def test_markup_is_read_as_said_and_kept_escaped(text, obj):
    # Extraction reads the words, not their escaped form: "&lt;" must not end a clause at its ";".
    assert {o for p, o in facts(text) if p is Predicate.HAS_PREFERENCE} == {obj}


@pytest.mark.parametrize(("text", "starts"), [
    ("My daughter Emma starts kindergarten next Monday.", "2026-05-14"),
    ("We moved to Munich last month.", "2026-04-14"),
])
def test_a_belief_starts_when_said_or_at_a_past_time_the_turn_names(text, starts):
    turn = clean_turn(0, {"role": "user", "content": text, "client_ts": "2026-05-14T09:00:00Z"}, "s")
    [fact] = extract_facts(turn)
    cleansed = cleanse(fact, turn.content, turn.client_ts)
    assert cleansed.occurred_at.date().isoformat() == starts
    assert cleansed.summary == fact.summary  # "has child: Emma", without the event's date


# -- how a turn is typed: fields, scripts, slips (round 3, session 7) ----------------------------------

def _current(text):
    turn = clean_turn(0, {"role": "user", "content": text, "client_ts": TS, "message_id": "m1"}, "s")
    return {(f.predicate.value, f.object) for f in extract_facts(turn) if ENDED_TAG not in f.tags}


@pytest.mark.parametrize(("text", "expected"), [
    ("Allergies: penicillin, latex. Dog: Pepper.", {("allergic_to", "penicillin"), ("allergic_to", "latex"),
                                                    ("has_pet", "Pepper (dog)")}),
    ("Name: Rashida Bell / Age: 41 / City: Atlanta", {("has_name", "Rashida Bell"), ("has_age", "41"),
                                                      ("lives_in", "Atlanta")}),
    ("Me: Priya, 38, Leeds.", {("has_name", "Priya"), ("has_age", "38"), ("lives_in", "Leeds")}),
    ("娃：朵朵 5岁", {("has_child", "朵朵")}),
])
def test_a_profile_typed_as_labelled_fields_is_read_as_said(text, expected):
    assert expected <= _current(text)


def test_an_update_heading_is_no_field():
    assert _current("Update: we closed on a house in San Antonio") == set()


@pytest.mark.parametrize(("text", "expected"), [
    ("我叫黃家明，住在台北，是一名作家。", {("has_name", "黃家明"), ("lives_in", "台北"), ("works_as", "作家")}),
    ("我係香港人，而家喺倫敦住", {("comes_from", "香港"), ("lives_in", "倫敦")}),
    ("我叫王磊 今年32 在深圳", {("has_name", "王磊"), ("has_age", "32")}),
])
def test_chinese_is_read_however_typed_and_kept_in_the_users_characters(text, expected):
    assert expected <= _current(text)


@pytest.mark.parametrize(("text", "kept", "gone"), [
    ("My son Jack, sorry, Jake, is turning six", ("has_child", "Jake"), ("has_child", "Jack")),
    ("I'm 42. wait no, 43, I had a birthday last week", ("has_age", "43"), ("has_age", "42")),
])
def test_a_slip_put_right_as_typed_keeps_the_correction(text, kept, gone):
    current = _current(text)
    assert kept in current and gone not in current


def test_who_died_is_no_longer_a_current_relation_but_who_is_named_beside_is():
    current = _current("I live alone in Tucson since my husband Walter died my daughter Linda calls me every day")
    assert ("has_spouse", "Walter") not in current
    assert {("has_child", "Linda"), ("lives_in", "Tucson")} <= current


@pytest.mark.parametrize(("text", "expected"), [
    ("Dear Ms. Okafor, I am applying for the analyst role. Kind regards, Tobias Lindqvist",
     {("has_name", "Tobias Lindqvist")}),
    ("Hi team, I'll be out Friday. Thanks, Mariam (Senior Product Manager, Kestrel Labs)",
     {("has_name", "Mariam"), ("works_as", "senior product manager"), ("works_at", "Kestrel Labs")}),
    ("That helps a lot. Thanks, Claude", set()),  # thanking the assistant by its name signs nothing
])
def test_who_signs_a_letter_is_its_writer(text, expected):
    assert {f for f in _current(text) if f[0] in ("has_name", "works_as", "works_at")} == expected


@pytest.mark.parametrize(("text", "day"), [
    ("born 1990-11-23, in case you need it", "November 23, 1990"),
    ("My birthday is 14/02 so yes, Valentine's jokes", "February 14"),
    ("生日：2/14，情人节出生的", "2月14日"),
    ("my birthday is 05/09", "05/09"),  # day or month first: the digits do not say, kept as written
])
def test_a_birthday_in_digits_is_read_as_the_one_day_it_can_be(text, day):
    assert ("has_birthday", day) in _current(text)


def test_a_pet_lost_in_a_later_turn_is_no_longer_current():
    turns = ["I have a golden retriever named Pancake.", "We lost Pancake last week, he was fourteen."]
    said = []
    for i, text in enumerate(turns):
        turn = clean_turn(i, {"role": "user", "content": text, "client_ts": TS, "message_id": f"m{i}"}, "s")
        said += extract_facts(turn, said)
    current = {f.object for f in said if f.predicate is Predicate.HAS_PET and ENDED_TAG not in f.tags}
    ended = {f.object for f in said if f.predicate is Predicate.HAS_PET and ENDED_TAG in f.tags}
    assert {o.split(" (")[0] for o in ended} == {"Pancake"}, said
    assert current <= ended


@pytest.mark.parametrize(("text", "absent"), [
    ("我对海鲜不过敏，过敏的是我老公", {("allergic_to", "海鲜不"), ("allergic_to", "海鲜"), ("has_spouse", "过敏")}),
    ("我在想要不要辞职去当摄影师", {("works_as", "摄影师")}),
])
def test_a_denial_or_a_thought_is_no_belief(text, absent):
    assert not absent & _current(text)


@pytest.mark.parametrize(("text", "expected"), [
    ("俺是哈尔滨的，现在搁沈阳开出租呢", {("comes_from", "哈尔滨")}),
    ("我家老爷们儿叫孙大伟", {("has_spouse", "孙大伟")}),
    ("My landlord in Pittsburgh still hasn't fixed the heat", {("lives_in", "Pittsburgh")}),
])
def test_where_and_who_said_in_regional_or_passing_words(text, expected):
    assert expected <= _current(text)


@pytest.mark.parametrize(("text", "absent"), [
    ("我孙子叫小军 他在武汉上大学 学的是土木工程", {("studied", "土木工程")}),
    ("我有风湿 腿一到阴天就疼 闺女叫秀英 在县城当护士", {("works_as", "护士")}),
    ("我個仔叫阿朗，今年六歲", {("has_age", "6")}),
])
def test_what_follows_a_clause_about_someone_else_is_theirs_not_the_users(text, absent):
    assert not absent & _current(text)


def _after(*turns):
    said = []
    for i, text in enumerate(turns):
        turn = clean_turn(i, {"role": "user", "content": text, "client_ts": TS, "message_id": f"m{i}"}, "s")
        said += extract_facts(turn, said)
    ended = {(f.predicate.value, f.object) for f in said if ENDED_TAG in f.tags}
    return {(f.predicate.value, f.object) for f in said if ENDED_TAG not in f.tags} - ended


@pytest.mark.parametrize(("turns", "gone", "kept"), [
    (("My husband Dario handles the finances", "Dario and I finalized our divorce last month"),
     ("has_spouse", "Dario"), None),
    (("My friend Zeynep is coming over tonight.", "Zeynep and I aren't friends anymore after what she did."),
     ("has_friend", "Zeynep"), None),
    (("I had anemia last year", "the doctor says the anemia has fully resolved"), ("has_condition", "anemia"), None),
    (("我有高血压，一直在吃药", "医生说血压已经正常，药也停了"), ("has_condition", "高血压"), None),
    (("I work at Shopify as a support specialist",
      "Big news, today was my first day at Stripe as a solutions engineer. Left Shopify last Friday."),
     ("works_at", "Shopify"), ("works_at", "Stripe")),
])
def test_what_a_later_turn_ends_is_no_longer_current(turns, gone, kept):
    current = _after(*turns)
    assert gone not in current
    assert kept is None or kept in current


@pytest.mark.parametrize(("text", "expected"), [
    ("医生，我今年45岁，有高血压，对青霉素过敏", {("has_condition", "高血压"), ("allergic_to", "青霉素")}),
    ("面试官您好，我叫郑思远，毕业于华中科技大学", {("studied_at", "华中科技大学")}),
    ("我在 Google 做软件工程师，base 新加坡", {("works_at", "Google"), ("lives_in", "新加坡")}),
    ("利益相关：我在协和医院当麻醉科医生", {("works_as", "麻醉科医生")}),
    ("this is Dana, Lily's mom. Lily has been struggling with fractions.", {("has_child", "Lily")}),
])
def test_what_a_message_addressed_or_spaced_otherwise_says_is_read(text, expected):
    assert expected <= _current(text)


def test_a_name_and_a_title_is_not_a_job():
    assert not {f for f in _current("我是张经理。") if f[0] == "works_as"}


def test_a_surname_given_alone_is_the_users_name():
    assert (Predicate.HAS_NAME, "王") in facts("小助手你好。我姓王，今年六十八了，退休前在中学教语文。")
    assert not {f for f in facts("我姓王的朋友来了") if f[0] == Predicate.HAS_NAME}


@pytest.mark.parametrize(("turns", "gone", "kept"), [
    (("I'm doing a degree in geology", "I swapped my course to geography this year"), ("studied", "geology"),
     ("studied", "geography")),
    (("I've been pescatarian since 2020", "back to eating chicken again, oops"), ("has_preference", "pescatarian diet"),
     None),
    (("I'm vegan", "I started eating fish again"), ("has_preference", "vegan diet"), None),
    (("I work at Aldi as a cashier", "today is my last day at Aldi"), ("works_at", "Aldi"), None),
])
def test_news_of_a_change_ends_what_it_replaces(turns, gone, kept):
    current = _after(*turns)
    assert gone not in current
    assert kept is None or kept in current


@pytest.mark.parametrize(("text", "expected"), [
    ("we just got the keys to our new house in Galway", {("lives_in", "Galway")}),
    ("I'm a Glasgow resident these days", {("lives_in", "Glasgow")}),
    ("starting at a startup called Quillbase next week as their bookkeeper",
     {("works_at", "Quillbase"), ("works_as", "bookkeeper")}),
    ("52F, librarian in Dundee", {("has_age", "52"), ("works_as", "librarian"), ("lives_in", "Dundee")}),
    ("Warm regards, Zoë Kowalczyk, Data Analyst, Ocado",
     {("has_name", "Zoë Kowalczyk"), ("works_as", "data analyst"), ("works_at", "Ocado")}),
    ("my husband tomás cooked paella", {("has_spouse", "tomás")}),
    ("I teach secondary school physics", {("works_as", "physics teacher")}),
    ("Tacos? Every day.", {("has_preference", "Tacos")}),
    ("Cold showers are a hard no for me", {("dislikes", "Cold showers")}),
])
def test_news_fragments_and_sideways_tastes_are_read(text, expected):
    assert expected <= _current(text)


@pytest.mark.parametrize("text", [
    "my cousin's new place in Durham is huge",
    "we might close on a house in Tulsa next year",
    "my brother went freelance as an editor",
    "Is tea a hard no for you?",
    "my boyfriend always made dinner",
    "Busy? Always.",
])
def test_others_plans_and_questions_in_these_forms_are_not_the_users(text):
    assert not _current(text)


@pytest.mark.parametrize(("text", "expected"), [
    ("楼主41岁，在成都做电工", {("has_age", "41"), ("lives_in", "成都"), ("works_as", "电工")}),
    ("此致敬礼！平安保险 高级分析师 欧阳晓峰", {("has_name", "欧阳晓峰"), ("works_as", "高级分析师"),
                                              ("works_at", "平安保险")}),
    ("作为一个痛风患者，我劝大家少喝啤酒", {("has_condition", "痛风")}),
    ("我是浙江大学神经科学专业的博士二年级学生", {("studied_at", "浙江大学"), ("studied", "神经科学")}),
    ("我是退休建筑师欧阳明，和老伴刘芳住在青岛", {("has_name", "欧阳明"), ("has_spouse", "刘芳"),
                                               ("lives_in", "青岛")}),
    ("本人在县城高中教化学", {("works_as", "化学老师")}),
    ("刚领养了第二只狗，叫橙子", {("has_pet", "橙子 (狗)")}),
    ("我的导师陈立群教授建议我联系您", {("has_advisor", "陈立群")}),
    ("恐怖片我是坚决不看的", {("dislikes", "恐怖片")}),
    ("咖啡？天天喝。", {("has_preference", "咖啡")}),
    ("我老家是湖南邵阳的", {("comes_from", "邵阳")}),
])
def test_chinese_fragments_and_facts_said_in_passing(text, expected):
    assert expected <= _current(text)


@pytest.mark.parametrize(("text", "absent"), [
    ("楼主说他在成都做电工", {("works_as", "电工"), ("lives_in", "成都")}),
    ("作为一个医生，我见过很多痛风患者", {("has_condition", "痛风")}),
    ("我朋友刚领养了一只狗，叫旺财", {("has_pet", "旺财 (狗)")}),
    ("我姐有个女儿，女儿朵朵很可爱", {("has_child", "朵朵")}),
    ("我是一名软件工程师。", {("has_name", "程师")}),
    ("我儿子以后就是上海人了", {("lives_in", "上海")}),
])
def test_chinese_fragments_about_someone_else_are_no_belief(text, absent):
    assert not absent & _current(text)


@pytest.mark.parametrize(("turns", "gone", "kept"), [
    (("我学的是会计", "这学期转到软件工程专业了"), ("studied", "会计"), ("studied", "软件工程")),
    (("我的爱好是跑步", "膝盖做完手术以后就不跑了，现在改成游泳"), ("has_hobby", "跑步"), ("has_hobby", "游泳")),
])
def test_chinese_news_of_a_change_replaces_the_old_state(turns, gone, kept):
    current = _after(*turns)
    assert gone not in current
    assert kept in current


@pytest.mark.parametrize("content", ["hi there!", "Hello! How are you today?", "hey Sam", "早上好呀", "你好",
                                     "Hey!! 😊", "bye, see you tomorrow!"])
def test_a_turn_that_only_greets_is_a_greeting(content):
    turn = clean_turn(0, {"role": "user", "content": content, "client_ts": TS}, "s")
    assert extract_event(turn, extract_facts(turn)).type is EventType.GREETING


@pytest.mark.parametrize(("content", "role"), [
    ("hi! bittersweet weekend. my mom moved to Tucson yesterday, we drove down with her", "user"),
    ("Hello dear. Walt had his surgery on Thursday and everything went well.", "user"),
    ("早上好！昨天去医院复查了，医生说恢复得不错", "user"),
    ("Good morning! Here is your plan for the week: walk 20 minutes after lunch.", "assistant")])
def test_a_turn_that_greets_and_goes_on_is_what_it_goes_on_to_say(content, role):
    # Typed a greeting, it ranked as chatter and the nightly forgetting took it out of retrieval.
    turn = clean_turn(0, {"role": role, "content": content, "client_ts": TS}, "s")
    event = extract_reply(turn) if role == "assistant" else extract_event(turn, extract_facts(turn))
    assert event.type not in (EventType.GREETING, EventType.SMALL_TALK)
