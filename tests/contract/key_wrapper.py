"""KeyWrapper (KMS): fresh data keys, unwrapped only under the same encryption context."""

from __future__ import annotations

import pytest

from engram.errors import EngramError

from ._base import Contract

CONTEXT = {"engram:tenant": "t1", "engram:user": "alice"}


class KeyWrapperContract(Contract):
    def test_generate_gives_a_fresh_aes_256_key_and_its_wrapped_form(self, store):
        plaintext, wrapped, key_id = store.generate(CONTEXT)
        again, _, _ = store.generate(CONTEXT)
        assert len(plaintext) == 32 and plaintext != again
        assert plaintext not in wrapped and isinstance(key_id, str) and key_id

    def test_unwrap_with_the_same_context_gives_the_key_back(self, store):
        plaintext, wrapped, _ = store.generate(CONTEXT)
        assert store.unwrap(wrapped, dict(reversed(list(CONTEXT.items())))) == plaintext

    @pytest.mark.parametrize("context", [{**CONTEXT, "engram:user": "bob"}, {"engram:tenant": "t1"}, {}])
    def test_another_context_does_not_unwrap(self, store, context):
        _, wrapped, _ = store.generate(CONTEXT)
        with pytest.raises(EngramError):
            store.unwrap(wrapped, context)

    def test_garbage_does_not_unwrap(self, store):
        with pytest.raises(EngramError):
            store.unwrap(b"not a wrapped key at all", CONTEXT)
