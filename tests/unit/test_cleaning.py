from datetime import UTC, datetime

import pytest

from engram.domain.ingest.sanitise import ASSISTANT_CAP, TRUNCATION_MARKER, clean_turn, order_turns, parse_timestamp
from engram.errors import PayloadTooLarge, ValidationFailed


def msg(**kw):
    return {"role": "user", "content": "hello", "client_ts": "2026-05-01T10:00:00+08:00", **kw}


def test_spaces_and_tabs_collapse_but_newlines_stay_and_markup_is_escaped():
    turn = clean_turn(0, msg(content="  a \t\t b  \n  <script>x</script>  "), "s1")
    assert turn.content == "a b\n&lt;script&gt;x&lt;/script&gt;"


def test_assistant_reply_capped_with_marker_user_turn_not():
    long = "x" * 900
    assert clean_turn(0, msg(role="assistant", content=long), "s").content == "x" * ASSISTANT_CAP + TRUNCATION_MARKER
    assert clean_turn(0, msg(content=long), "s").content == long


def test_timestamps_normalised_to_utc_and_epoch_ms_accepted():
    assert parse_timestamp("2026-05-01T10:00:00+08:00", "t") == datetime(2026, 5, 1, 2, tzinfo=UTC)
    assert parse_timestamp(1777600800000, "t") == datetime(2026, 5, 1, 2, tzinfo=UTC)


@pytest.mark.parametrize("bad", ["2026-05-01T10:00:00", "yesterday", 1777600800, True, None])
def test_bad_timestamp_names_the_field(bad):
    with pytest.raises(ValidationFailed) as err:
        clean_turn(3, msg(client_ts=bad), "s")
    assert err.value.field == "messages[3].client_ts"


@pytest.mark.parametrize(("override", "field", "error"), [
    ({"role": "system"}, "messages[0].role", ValidationFailed),
    ({"content": "   "}, "messages[0].content", ValidationFailed),
    ({"content": 5}, "messages[0].content", ValidationFailed),
    ({"content": "x" * 9000}, "messages[0].content", PayloadTooLarge),
    ({"message_id": "bad id!"}, "messages[0].message_id", ValidationFailed),
])
def test_bad_message_rejected_with_field(override, field, error):
    with pytest.raises(error) as err:
        clean_turn(0, msg(**override), "s")
    assert err.value.field == field


def test_missing_message_id_is_derived_stably_so_retries_collapse():
    a, b = clean_turn(0, msg(), "s1"), clean_turn(0, msg(), "s1")
    assert a.message_id == b.message_id and a.message_id.startswith("m-")
    assert clean_turn(0, msg(), "s2").message_id != a.message_id


def test_turns_ordered_by_client_clock():
    late = clean_turn(0, msg(content="second", client_ts="2026-05-01T10:05:00+00:00"), "s")
    early = clean_turn(1, msg(content="first", client_ts="2026-05-01T10:01:00+00:00"), "s")
    assert [t.content for t in order_turns([late, early])] == ["first", "second"]
