"""Hypothesis strategies for identities that look alike: (tenant, user, device, session) whose ids
contain ':', '|', '.' and '-', drawn so that joining them with a separator often gives the same
string. Used by the key tests (``test_keys``) and the isolation properties (``test_isolation``);
the API-level properties (tests/integration/test_isolation_api.py) use the same strategies."""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from engram.domain.model import Scope
from engram.domain.records import SessionRef

SEPARATORS = ":|.-"
# Device and session ids are validated wherever they enter (``validate_id``), which refuses '|';
# tenant and user ids are given to the stores as they are on some paths, so they may hold it.
ID_ALPHABET = "ab:.-"
SCOPE_ALPHABET = "ab:|.-"


def id_text(alphabet: str = ID_ALPHABET, max_size: int = 8) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=1, max_size=max_size)


def refs(scope_alphabet: str = SCOPE_ALPHABET, id_alphabet: str = ID_ALPHABET,
         tenants: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[SessionRef]:
    scopes = st.builds(Scope, tenants if tenants is not None else id_text(scope_alphabet), id_text(scope_alphabet))
    return st.builds(SessionRef, scopes, id_text(id_alphabet), id_text(id_alphabet))


def _parts(ref: SessionRef) -> tuple[str, str, str, str]:
    return ref.scope.tenant, ref.scope.user_id, ref.device_id, ref.session_id


@st.composite
def resplit_pairs(draw, scope_alphabet: str = SCOPE_ALPHABET, id_alphabet: str = ID_ALPHABET):
    """Two different identities whose four ids, joined with one separator, read the same: the
    second re-splits the first's joined string at other separators."""
    first = draw(refs(scope_alphabet, id_alphabet))
    sep = draw(st.sampled_from([s for s in SEPARATORS if s in scope_alphabet]))
    joined = sep.join(_parts(first))
    positions = [i for i, c in enumerate(joined) if c == sep]
    cuts = sorted(draw(st.sets(st.sampled_from(positions), min_size=3, max_size=3)))
    bounds = [-1, *cuts, len(joined)]
    pieces = [joined[bounds[i] + 1:bounds[i + 1]] for i in range(4)]
    assume(all(pieces) and tuple(pieces) != _parts(first))
    assume(all(set(p) <= set(id_alphabet) for p in pieces[2:]) and all(set(p) <= set(scope_alphabet)
                                                                        for p in pieces[:2]))
    return first, SessionRef(Scope(pieces[0], pieces[1]), pieces[2], pieces[3])


def distinct_pairs(scope_alphabet: str = SCOPE_ALPHABET, id_alphabet: str = ID_ALPHABET,
                   tenants: tuple[str, str] = ("acme", "acme:eu")) -> st.SearchStrategy:
    """Two different identities: lookalikes (``resplit_pairs``), or two drawn apart, in one of two
    tenants whose ids also join alike."""
    two_tenants = refs(scope_alphabet, id_alphabet, st.sampled_from(tenants))
    apart = st.tuples(two_tenants, two_tenants).filter(lambda pair: pair[0] != pair[1])
    return st.one_of(resplit_pairs(scope_alphabet, id_alphabet), apart)
