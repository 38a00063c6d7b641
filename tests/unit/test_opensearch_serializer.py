"""The OpenSearch client's serializer writes what opensearch-py's own would, only faster."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from opensearchpy.exceptions import SerializationError
from opensearchpy.serializer import JSONSerializer

from engram.adapters.clients import FastJsonSerializer

FAST, STANDARD = FastJsonSerializer(), JSONSerializer()
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(), lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@given(st.dictionaries(st.text(), json_values, max_size=4) | st.lists(json_values, max_size=4))
def test_any_json_document_reads_back_as_the_standard_serializer_writes_it(value):
    assert json.loads(FAST.dumps(value)) == json.loads(STANDARD.dumps(value))
    assert FAST.loads(STANDARD.dumps(value)) == STANDARD.loads(STANDARD.dumps(value))


def test_vectors_dates_and_ids_as_the_standard_serializer_writes_them():
    doc = {"vector": np.asarray([0.25, -1.5], dtype=np.float32), "at": datetime(2026, 12, 1, 9, 30, tzinfo=UTC),
           "score": np.float32(0.5), "n": np.int64(3), "id": uuid.UUID(int=7), "text": "上海 café"}
    assert json.loads(FAST.dumps(doc)) == json.loads(STANDARD.dumps(doc))


def test_a_string_body_goes_out_as_it_is_and_garbage_is_a_serialization_error():
    assert FAST.dumps('{"already": "json"}') == '{"already": "json"}'
    with pytest.raises(SerializationError):
        FAST.dumps({"x": object()})
    with pytest.raises(SerializationError):
        FAST.loads("{not json")
