"""What the assistant said is memory the user expects it to keep ("你上次给我举的那个例子变量名叫什么",
"What did you recommend for my flight?"): the assistant's turns are episodes of their own kind,
asked for as such, found before the user's request that shares their words, and said in the
context block as the assistant's; never the user's beliefs. And the guard's scale is the user's
own background for the question, whatever the model's cosines run at."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engram.domain.recall.cues import asks_what_assistant_said, is_memory_question, names_in
from engram.domain.recall.fusion import (
    RecallItem,
    across_languages,
    background_cosine,
    calibrated_cosine,
    convex_scores,
    has_record,
    mentions,
)
from engram.domain.records import SessionRef
from engram.service.recall import RecallRequest, run_in_process
from tests.unit.support import T0, body, message, run_ingest

NOW = T0 + timedelta(days=3)


@pytest.mark.parametrize("query", [
    "What did you recommend for my flight?", "Which cruise line did you suggest?",
    "What was the function you wrote for me to clean the dataframe?", "Remind me of the example you gave me.",
    "Did you ever tell me how to repot a cactus?", "What was your suggestion for the ramen place again?",
    "你上次推荐的那本书叫什么？", "你给我举的那个例子变量名叫什么", "你给我推荐过哪些电影？",
    "你之前建议我早饭吃什么来着",
    "助手说过什么关于基金定投的？",
    "Which car did the assistant lean toward?", "What route had the assistant mapped out for the user?",
    "What the assistant chose for the user's dinner", "What exercise did the assistant recommend instead?",
])
def test_a_question_about_what_the_assistant_said_is_a_memory_question(query):
    assert asks_what_assistant_said(query) and is_memory_question(query)


@pytest.mark.parametrize("query", [
    "Can you recommend a book?", "What is your recommendation?", "Suggest a snack for me.",
    "What did I tell you about my dog?",
    "你推荐一本书吧", "你说我该怎么办", "给我举个例子", "What do you suggest I cook tonight?",
    "Should the assistant remind the user tomorrow?",
    # The user telling the assistant: 你 is who was told.
    "我跟你说过我家狗叫什么名字吗？", "我之前跟你提过我弟弟吗", "还记得我和你讲过的那家店吗",
    "我有没有对你说过我住几楼",
    "我是不是向您提过我老伴的事",
])
def test_a_request_made_now_is_not_about_what_the_assistant_said(query):
    assert not asks_what_assistant_said(query)


@pytest.fixture
def advised(deps, consenting):
    turns = [("Any book ideas for my flight to Tokyo? I get bored on planes.", "user"),
             ("For a long flight I'd suggest 'Project Hail Mary' by Andy Weir: fast, funny and easy to pick up "
              "again after a nap. If you want something calmer, 'The Remains of the Day' is a good second.",
              "assistant"),
             ("I'm allergic to peanuts, by the way.", "user"),
             ("Noted. I'll keep peanuts out of every snack idea.", "assistant"),
             ("我想学Python，给我举个例子吧", "user"),
             ("好的，比如统计成绩：scores = [88, 92, 75]，average_score = sum(scores) / len(scores)，"
              "这里的 average_score 就是平均分。", "assistant")]
    messages = [message(text, f"m{i}", T0 + timedelta(minutes=i), role) for i, (text, role) in enumerate(turns)]
    run_ingest(deps, consenting, body(*messages))
    return consenting


def ask(deps, scope, query: str, k: int = 5) -> dict:
    return run_in_process(deps, RecallRequest.parse(scope, query, k, NOW.isoformat()))


def test_the_assistants_answer_is_found_before_the_request_that_shares_its_words(deps, advised):
    answer = ask(deps, advised, "What book did you recommend for my flight?")
    assert answer["memory_dependent"] and not answer["no_record"]
    top = answer["items"][0]
    assert top["type"] == "assistant" and "Project Hail Mary" in top["text"]
    assert "you (the assistant) told the user on 2026-11-20" in answer["context_block"]
    assert "Project Hail Mary" in answer["context_block"]


def test_the_example_the_assistant_gave_in_chinese_is_found(deps, advised):
    answer = ask(deps, advised, "你上次给我举的那个Python例子变量名叫什么？")
    assert not answer["no_record"]
    assert any(i["type"] == "assistant" and "average_score" in i["text"] for i in answer["items"][:3])


def test_what_the_assistant_said_is_never_a_belief_about_the_user(deps, advised):
    beliefs = {(i["type"], i["text"]) for i in ask(deps, advised, "What do you know about me?")["items"]
               if i["layer"] == "profile"}
    assert any(kind == "allergic_to" for kind, _ in beliefs)
    everything = ask(deps, advised, "What do you know about me?", k=20)["items"]
    # The user as a whole is what they said: the assistant's answers are not about them.
    assert not [i for i in everything if i["layer"] == "episode" and i["type"] == "assistant"]


def test_an_answer_is_about_whom_its_request_named(deps, consenting):
    # The answer never says "Ranger": the request it answered does, and that is who it is about.
    turns = [("Ranger rides in the van with me. What do I do about the heat when I leave him inside?", "user"),
             ("Heat is the big risk. Get a cellular monitor that texts you the cabin temperature, park in shade "
              "and run the roof fan.", "assistant"),
             ("Ranger loves the beach though.", "user")]
    messages = [message(text, f"r{i}", T0 + timedelta(minutes=i), role) for i, (text, role) in enumerate(turns)]
    run_ingest(deps, consenting, body(*messages))
    answer = ask(deps, consenting, "What gadget did you suggest for the van temperature when Ranger's inside?")
    assert not answer["no_record"]
    assert answer["items"][0]["type"] == "assistant" and "cellular monitor" in answer["items"][0]["text"]


def test_an_answer_counts_as_mentioning_whom_its_request_named():
    answer = RecallItem(memory_id="ev-1", layer="episode", type="assistant", text="Get a cellular monitor.",
                        confidence=1.0, decayed_confidence=1.0, trust_source="assistant", needs_confirmation=False,
                        valid_from=None, valid_to=None, provenance={}, score=1.0, relevance=0.5)
    assert not mentions(answer, ["ranger"])
    assert mentions(dataclasses.replace(answer, thread="What about Ranger in the van?"), ["ranger"])
    assert has_record([dataclasses.replace(answer, thread="Ranger in the van")], 0.26, ["ranger"])


@pytest.mark.parametrize(("query", "names"), [
    ("What was the Japanese sentence you gave me?", ()), ("Did I mention my Italian teacher Parrish?", ("parrish",)),
    ("What did Trish say about French toast?", ("trish",)), ("When is Reese's birthday?", ("reese",)),
])
def test_a_language_or_a_people_is_not_a_name_to_look_for(query, names):
    assert names_in(query) == names


# -- the guard's scale ------------------------------------------------------------------------

@given(st.lists(st.floats(-1, 1), min_size=1, max_size=80), st.floats(0, 0.9), st.floats(0, 0.9))
def test_relevance_does_not_depend_on_where_a_model_puts_unrelated_texts(cosines, unrelated, squeeze):
    # A model whose cosines run high (e5: unrelated pairs near 0.7) is another's squeezed towards
    # 1: the same memories, the same question, the same relevance.
    def relevance(values, level):
        return calibrated_cosine(max(values), background_cosine(values, level, prior_docs=3))

    squeezed = [squeeze + (1 - squeeze) * c for c in cosines]
    assert relevance(squeezed, squeeze + (1 - squeeze) * unrelated) == pytest.approx(
        relevance(cosines, unrelated), abs=1e-6)


def test_a_model_that_reads_a_language_poorly_finds_nothing_standing_out():
    # MiniLM puts any two Chinese sentences near 0.8: on its fixed scale each is a strong match;
    # against the user's own memories for the question, the best of them barely stands out.
    cosines = [0.78 + 0.001 * (i % 40) for i in range(70)]
    assert calibrated_cosine(max(cosines), 0.0) > 0.8
    assert calibrated_cosine(max(cosines), background_cosine(cosines, 0.0, prior_docs=3)) < 0.26


def test_a_memory_that_stands_out_of_the_users_background_is_a_record():
    cosines = [0.93, 0.74, 0.72, 0.75, 0.71, 0.73, 0.70, 0.74, 0.72, 0.71, 0.73, 0.72]
    baseline = background_cosine(cosines, unrelated=0.7, prior_docs=3)
    assert calibrated_cosine(0.93, baseline) >= 0.26 > calibrated_cosine(0.75, baseline)


@given(st.lists(st.floats(-1, 1), max_size=80), st.floats(0, 0.9), st.integers(0, 50))
def test_the_background_is_never_below_the_models_own_level_and_stays_a_cosine(cosines, unrelated, prior):
    baseline = background_cosine(cosines, unrelated, prior)
    assert unrelated <= baseline <= max([unrelated, *cosines])


def test_the_background_of_equal_cosines_is_that_cosine_to_the_last_bit():
    # hypothesis found (5 * c + k * c) / (5 + k) rounding one ulp above c
    for prior in range(0, 51):
        c = 0.34295502639294084
        assert background_cosine([0.9, 0.9, 0.9, *[c] * 5], c, prior) <= c


def test_a_user_with_few_memories_leans_on_the_models_level():
    # The first few may be the answer: they are never the background.
    assert background_cosine([0.95, 0.9, 0.9], unrelated=0.1, prior_docs=3) == 0.1
    assert background_cosine([0.95, 0.9, 0.9, 0.5], unrelated=0.1, prior_docs=3) == pytest.approx((0.5 + 0.3) / 4)
    assert background_cosine([], unrelated=0.7, prior_docs=3) == 0.7


@given(st.lists(st.integers(-200, 300).map(lambda x: x / 1000), min_size=2, max_size=30, unique=True),
       st.floats(0.01, 10.0))
def test_fusion_reads_how_far_cosines_stand_out_not_their_scale(cosines, stretch):
    # A cosine measured against the user's background spreads a few hundredths, or a tenth with
    # another model: stretched, the fused scores beside the same BM25 stay the same.
    ids = [f"e{i}" for i in range(len(cosines))]
    lexical = {ids[0]: 3.0, ids[-1]: 1.0}
    narrow = convex_scores(dict(zip(ids, cosines, strict=True)), lexical, 0.7, 0.3)
    wide = convex_scores({i: c * stretch for i, c in zip(ids, cosines, strict=True)}, lexical, 0.7, 0.3)
    assert all(narrow[i] == pytest.approx(wide[i], abs=1e-9) for i in ids)


def test_the_nearest_event_is_not_outranked_by_filler_sharing_one_word():
    # "What's my accountant's name?": the turn naming her is the nearest by a few hundredths; a
    # short sign-off sharing "name" has the best BM25 and must not win on it alone.
    dense = {"accountant": 0.14, "sign-off": 0.01, "other": 0.0}
    fused = convex_scores(dense, {"sign-off": 4.0, "accountant": 1.0}, 0.7, 0.3)
    assert max(fused, key=fused.get) == "accountant"


def test_relevance_across_languages_is_stretched_by_what_a_translation_scores():
    # e5: unrelated texts at 0.7, a faithful translation at 0.86 instead of 1: an English question
    # standing 0.22 out of Chinese memories stands as far out as 0.41 would within one language.
    assert across_languages(0.7, 0.86) == pytest.approx(0.3 / 0.16)
    assert across_languages(0.0, None) == 1.0 and across_languages(0.7, 0.65) == 1.0


@pytest.mark.parametrize(("query", "names"), [
    ("我膝盖拍片医生怎么说？", ()), ("看医生了吗", ()), ("张医生怎么说的", ("张医生",)),
    ("王老师推荐了什么书？", ("王老师",)),
])
def test_a_title_is_a_name_only_after_a_surname(query, names):
    # "拍片医生" is an X-ray and a doctor, not a Dr. Pian every record would have to name.
    assert names_in(query) == names


def test_what_the_user_did_is_found_in_their_own_words_before_the_assistants_echo(deps, consenting):
    # The reply is shorter and all about the question's words: without ``assistant_factor`` it led.
    turns = [("Long week: work was busy, my sister visited from Leeds, and I skipped two runs because the baby "
              "had a growth spurt.", "user"),
             ("Skipped runs in a growth spurt week are normal: two skipped runs, no harm.", "assistant")]
    messages = [message(text, f"m{i}", T0 + timedelta(minutes=i), role) for i, (text, role) in enumerate(turns)]
    run_ingest(deps, consenting, body(*messages))
    episodes = [i for i in ask(deps, consenting, "Why did I skip runs?")["items"] if i["layer"] == "episode"]
    assert [i["type"] for i in episodes] == ["fact", "assistant"]
    # Asked for what the assistant said, its words come first.
    said = [i for i in ask(deps, consenting, "What did you tell me about skipped runs?")["items"]
            if i["layer"] == "episode"]
    assert said[0]["type"] == "assistant"


def test_the_user_named_by_an_agent_is_who_is_talking_not_a_name_a_record_must_say(deps, consenting):
    # Harold signs his letters and the assistant greets him by name: his name is all over his memory,
    # and the answer about him ("a book for Harold") does not say it.
    turns = [("Good morning. My knee is stiff after the walk. Harold", "user"),
             ("Good morning Harold. Gentle stretches and a warm compress help.", "assistant"),
             ("Good evening. The roses have black spot. Regards, Harold", "user"),
             ("Good evening Harold. Remove the spotted leaves and spray a fungicide.", "assistant"),
             ("I would like something to read in the evenings. I love Nevil Shute.", "user"),
             ("My pick of a book for you: A Town Like Alice, quiet and warm.", "assistant")]
    messages = [message(text, f"h{i}", T0 + timedelta(days=i), role) for i, (text, role) in enumerate(turns)]
    run_ingest(deps, consenting, body(*messages))
    answer = ask(deps, consenting, "What book did the assistant pick for Harold?")
    assert not answer["no_record"]
    assert any("A Town Like Alice" in i["text"] for i in answer["items"])


def test_a_long_answer_is_found_by_what_it_says_past_the_working_memorys_cap(deps, consenting):
    from engram.domain.ingest.sanitise import ASSISTANT_CAP, SUBSTANCE_CAP

    # Two answers alike in their first 500 characters; what each recommends comes after them.
    opening = "Happy to help with that. Here are some options, from least to most effort, with notes. " * 7
    said = [("Any ideas for Sofia's birthday cake?", "user"),
            (opening + "For the cake itself I'd pick a gluten-free vanilla sponge mix, it bakes up fluffy.",
             "assistant"),
            ("And what about decorations for the party?", "user"),
            (opening + "For decorations I'd pick paper lanterns and a bunting banner in her favourite colour.",
             "assistant")]
    assert ASSISTANT_CAP < said[1][0].index("vanilla sponge") < SUBSTANCE_CAP
    run_ingest(deps, consenting, body(*[message(t, f"c{i}", T0 + timedelta(minutes=i), role)
                                        for i, (t, role) in enumerate(said)]))
    found = ask(deps, consenting, "Which vanilla sponge mix did you recommend?")["items"]
    assert found and found[0]["provenance"]["message_ids"] == ["c1"] and "vanilla sponge" in found[0]["text"]
    # The working memory keeps the answer's head only.
    turns = deps.sessions.get(SessionRef(consenting, "phone", "s1")).turns
    assert len(turns) == 4 and all("vanilla sponge" not in t["content"] for t in turns)
