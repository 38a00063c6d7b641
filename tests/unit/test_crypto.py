"""Envelope encryption, the pure half: AES-256-GCM sealing with the owner as associated data."""

import os

import pytest

from engram.domain.privacy import crypto
from engram.domain.privacy.crypto import DataKey
from engram.errors import DecryptionFailed

KEY = DataKey(b"k" * 8, os.urandom(32))
AAD = crypto.associated_data("t1", "alice")


def test_round_trip_text_and_bytes():
    token = crypto.seal_text(KEY, "allergic to peanuts 花生", AAD)
    assert crypto.is_sealed(token) and "peanuts" not in token
    assert crypto.open_text(KEY, token, AAD) == "allergic to peanuts 花生"
    blob = crypto.seal(KEY, b"\x00\x01raw", AAD)
    assert crypto.open_(KEY, blob, AAD) == b"\x00\x01raw"


def test_format_is_versioned_and_names_the_key():
    blob = crypto.seal(KEY, "x", AAD, nonce=b"n" * 12)
    assert blob[0] == crypto.VERSION and crypto.key_id_of(blob) == b"k" * 8
    assert len(blob) == 1 + 8 + 12 + 1 + 16
    assert crypto.from_text(crypto.to_text(blob)) == blob


def test_random_nonce_makes_equal_plaintexts_differ():
    assert crypto.seal_text(KEY, "same", AAD) != crypto.seal_text(KEY, "same", AAD)


@pytest.mark.parametrize("aad", [crypto.associated_data("t1", "bob"), crypto.associated_data("t2", "alice"),
                                 crypto.associated_data("t1", "alice", "archive")])
def test_another_owner_or_purpose_does_not_open(aad):
    with pytest.raises(DecryptionFailed):
        crypto.open_text(KEY, crypto.seal_text(KEY, "secret", AAD), aad)


def test_tampering_is_detected():
    blob = bytearray(crypto.seal(KEY, "secret", AAD))
    blob[-1] ^= 1
    with pytest.raises(DecryptionFailed):
        crypto.open_(KEY, bytes(blob), AAD)
    header_swapped = bytearray(crypto.seal(KEY, "secret", AAD))
    header_swapped[1:9] = b"j" * 8
    with pytest.raises(DecryptionFailed):
        crypto.open_(DataKey(b"j" * 8, KEY.key), bytes(header_swapped), AAD)


def test_wrong_key_and_garbage_are_refused():
    other = DataKey(b"o" * 8, os.urandom(32))
    with pytest.raises(DecryptionFailed):
        crypto.open_(other, crypto.seal(KEY, "secret", AAD), AAD)
    for bad in ("plain text", "eg1:!!!", "eg1:" + "QQ=="):
        with pytest.raises(DecryptionFailed):
            crypto.open_text(KEY, bad, AAD)


def test_blind_name_is_stable_per_key_and_hides_the_name():
    a = crypto.blind_name(KEY, "Person", "Tom  Chen")
    assert a == crypto.blind_name(KEY, "Person", "tom chen") and "tom" not in a
    assert a != crypto.blind_name(DataKey(b"o" * 8, os.urandom(32)), "Person", "tom chen")


def test_key_repr_hides_material():
    assert KEY.key.hex() not in repr(KEY)
