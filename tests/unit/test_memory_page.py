"""The memory page over the fakes: the signed link (every way a token can be wrong is a 401/403
with the API's error body, never a 500, and never another user's page), the page itself (escaped,
strict headers, English and Chinese), and its forms going through the agent-facing use cases."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import time
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from engram.adapters.aws.link_secret import ConfiguredLinkSecret
from engram.api.app import create_app
from engram.api.page_html import CSS_HASH, PREDICATES_ZH
from engram.config import Settings
from engram.domain.model import Predicate, Scope, TrustSource
from engram.domain.privacy import page_links
from engram.domain.records import Fact
from engram.errors import StoreUnavailable
from tests.unit.support import body, client_for, message

USER = "/v1/users/alice"
PAGE = f"{USER}/memory-page"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@pytest.fixture
def api(deps) -> TestClient:
    client = client_for(deps)
    assert client.put(f"{USER}/consent", json={"long_term": True}).status_code == 200
    said = [message("I live in Lisbon.", "m1"), message("I'm allergic to peanuts.", "m2"),
            message("我喜欢绿茶", "m3")]
    assert client.post(f"{USER}/messages", json=body(*said)).status_code == 200
    return client


@pytest.fixture
def browser(deps) -> TestClient:
    """The user's side: no API key, cookies or anything else but the link."""
    return TestClient(create_app(deps), raise_server_exceptions=False)


def link(api, user: str = "alice", **body_) -> dict:
    r = api.post(f"/v1/users/{user}/memory-page-links", json=body_ or None)
    assert r.status_code == 201, r.text
    return r.json()


def items(api, user: str = "alice") -> list[dict]:
    return api.get(f"/v1/users/{user}/profile").json()["items"]


def refused(response, status: int = 401) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == {401: "unauthorized", 403: "forbidden"}[status]
    assert response.headers["cache-control"] == "no-store"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# -- the link -------------------------------------------------------------------------------------

def test_a_link_opens_the_page_without_an_api_key(api, browser, deps):
    out = link(api)
    assert out["path"] == f"{PAGE}?token={out['token']}" and out["url"].endswith(out["path"])
    expires = datetime.fromisoformat(out["expires_at"])
    assert 0 < (expires - datetime.now(UTC)).total_seconds() <= deps.settings.page_link_ttl_s
    page = browser.get(out["path"])
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    for said in ("Lisbon", "peanuts", "绿茶", "I live in Lisbon.", "我喜欢绿茶"):
        assert said in html  # the sealed allergy is shown in clear to its owner
    assert "needs confirmation" not in html  # everything was just said


def test_an_unsure_item_is_marked_and_can_be_confirmed(api, browser, deps, alice):
    deps.graph.upsert_fact(alice, Fact(predicate=Predicate.HAS_PREFERENCE, object="opera", confidence=0.2,
                                       source=TrustSource.LLM, message_ids=("m1",),
                                       valid_from=datetime.now(UTC), observed_at=datetime.now(UTC)))
    html = browser.get(link(api)["path"]).text
    opera = _item(api, "opera")
    assert opera["needs_confirmation"]
    block = html[html.index(f'data-item-id="{opera["memory_id"]}"'):].split("</article>", 1)[0]
    assert "needs confirmation" in block and "0.20" in block
    assert "needs confirmation" not in html[html.index(f'data-item-id="{_item(api, "Lisbon")["memory_id"]}"'):][:400]
    confirm = _form_fields(html, "corrections", opera["memory_id"])  # the first form: "Yes, this is right"
    assert confirm["object"] == "opera"
    assert browser.post(f"{PAGE}/corrections", data=confirm, follow_redirects=False).status_code == 303
    confirmed = _item(api, "opera")
    assert confirmed["memory_id"] == opera["memory_id"] and not confirmed["needs_confirmation"]
    assert confirmed["trust_source"] == "human"


def test_the_page_has_strict_headers_and_only_its_hashed_style(api, browser):
    page = browser.get(link(api)["path"])
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp and "form-action 'self'" in csp
    assert "script-src" not in csp and "unsafe-inline" not in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer" and page.headers["cache-control"] == "no-store"
    style = re.search(r"<style>(.*?)</style>", page.text, re.S).group(1)
    assert f"'sha256-{base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()}'" in csp
    assert CSS_HASH in csp
    assert "<script" not in page.text and "http://" not in page.text and "https://" not in page.text
    assert "set-cookie" not in page.headers


def test_link_lifetime_is_bounded_by_the_setting(api, deps):
    assert api.post(f"{USER}/memory-page-links", json={"ttl_s": 30}).status_code == 400
    assert api.post(f"{USER}/memory-page-links", json={"ttl_s": deps.settings.page_link_ttl_s + 1}).status_code == 400
    short = link(api, ttl_s=60)
    assert (datetime.fromisoformat(short["expires_at"]) - datetime.now(UTC)).total_seconds() <= 60
    assert api.post(f"{USER}/memory-page-links", json={"ttl": 60}).status_code == 400


def test_asking_for_a_link_needs_the_api_key(browser):
    refused(browser.post(f"{USER}/memory-page-links"))


# -- attacks on the token -------------------------------------------------------------------------

def _resigned(deps, claims: dict) -> str:
    """A token with these claims, signed with the deployment's real secret (to reach the checks
    that come after the signature)."""
    part = b64(json.dumps(claims).encode())
    return f"{part}.{b64(page_links._signature(deps.link_secret.secret(), claims['t'], part))}"


def test_every_wrong_token_is_refused_with_the_api_error_body(api, browser, deps):
    token = link(api)["token"]
    claims_part, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(claims_part + "=="))
    forged_tenant = b64(json.dumps({**claims, "t": "t2"}).encode())
    wrong = {
        "tampered signature": f"{claims_part}.{signature[:-2]}{'AA' if signature[-2:] != 'AA' else 'BB'}",
        "tampered claims": f"{b64(json.dumps({**claims, 'exp': claims['exp'] + 3600}).encode())}.{signature}",
        "other tenant in the claims": f"{forged_tenant}.{signature}",
        "truncated": token[:-5], "claims only": claims_part, "cut in the claims": token[10:],
        "two dots": token + ".x", "not base64": "!!!." + signature, "empty": "", "too long": "a" * 2000 + "." + "b",
        "an API key": api.headers["Authorization"].removeprefix("Bearer "),
        "a JWT-like": "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.",
        "another type, rightly signed": _resigned(deps, {**claims, "typ": "export"}),
        "another version": _resigned(deps, {**claims, "v": 2}),
        "extra claim": _resigned(deps, {**claims, "admin": True}),
        "expired": page_links.issue(deps.link_secret.secret(), "t1", "alice", int(time.time()) - 1),
        "another deployment's secret": page_links.issue(b"x" * 32, "t1", "alice", int(time.time()) + 600),
        "not an object": f"{b64(b'[1]')}.{signature}",
        "exp as text": _resigned(deps, {**claims, "exp": str(claims["exp"])}),
    }
    for name, bad in wrong.items():
        page = browser.get(PAGE, params={"token": bad})
        assert page.status_code == 401, (name, page.status_code, page.text)
        refused(page)
        posted = browser.post(f"{PAGE}/deletions", data={"token": bad, "item_id": items(api)[0]["memory_id"]})
        refused(posted)
    refused(browser.get(PAGE))  # no token at all
    refused(browser.get(PAGE, headers=api.headers))  # the API key is not a way in either
    assert len(items(api)) == 3  # nothing was deleted


def test_a_link_never_opens_another_users_page(api, browser, deps):
    bob = client_for(deps)
    bob.put("/v1/users/bob/consent", json={"long_term": True})
    bob.post("/v1/users/bob/messages", json=body(message("I live in Oslo.", "b1")))
    alice_token = link(api)["token"]
    refused(browser.get("/v1/users/bob/memory-page", params={"token": alice_token}), 403)
    bob_item = items(bob, "bob")[0]["memory_id"]
    refused(browser.post("/v1/users/bob/memory-page/deletions", data={"token": alice_token, "item_id": bob_item}),
            403)
    # Alice's link on her own page cannot reach Bob's item either: it is not in her scope.
    assert browser.post(f"{PAGE}/deletions", data={"token": alice_token, "item_id": bob_item}).status_code == 404
    assert [i["object"] for i in items(bob, "bob")] == ["Oslo"]


def test_a_link_opens_only_its_own_tenants_user(api, browser, deps):
    other = client_for(deps, tenant="t2")
    other.put(f"{USER}/consent", json={"long_term": True})
    other.post(f"{USER}/messages", json=body(message("I live in Kyoto.", "k1")))
    theirs = browser.get(link(other)["path"]).text
    ours = browser.get(link(api)["path"]).text
    assert "Kyoto" in theirs and "Lisbon" not in theirs
    assert "Lisbon" in ours and "Kyoto" not in ours


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_no_change_to_a_token_opens_anything(data):
    secret = b"s" * 32
    token = page_links.issue(secret, "t1", "alice", int(time.time()) + 600)
    position = data.draw(st.integers(0, len(token) - 1))
    replacement = data.draw(st.text(alphabet="ABCabc012_-.=+/ ", min_size=0, max_size=3))
    changed = token[:position] + replacement + token[position + 1:]
    if changed == token:
        return
    try:
        claims = page_links.verify(secret, changed, time.time())
    except page_links.Unauthorized:
        return
    # Only a change base64 cannot see (the unused low bits of the last character) may pass, and
    # then it opens exactly the same page.
    assert claims == page_links.PageClaims("t1", "alice", claims.expires_at)


def test_an_unconfigured_secret_refuses_links_outside_a_local_stage():
    with pytest.raises(StoreUnavailable):
        ConfiguredLinkSecret(None, Settings(stage="prod")).secret()
    local = ConfiguredLinkSecret(None, Settings(stage="local"))
    assert local.secret() == local.secret() and len(local.secret()) == 32
    keyed = ConfiguredLinkSecret(None, Settings(stage="prod", page_link_key="k" * 40))
    assert keyed.secret() == hashlib.sha256(b"k" * 40).digest()


# -- what the page shows, and escaping -------------------------------------------------------------

def test_every_user_value_is_escaped(api, browser, deps, alice):
    hostile = '<script>alert("x")</script>'
    api.post(f"{USER}/messages", json=body(message(f'I said "{hostile}" <img src=x onerror=alert(1)>', "m9")))
    deps.graph.upsert_fact(alice, Fact(predicate=Predicate.HAS_PREFERENCE, object=f'{hostile}"><b>', confidence=0.5,
                                       source=TrustSource.LLM, message_ids=("m9",),
                                       valid_from=datetime.now(UTC), observed_at=datetime.now(UTC)))
    html = browser.get(link(api)["path"]).text
    assert "<script" not in html and "<img" not in html and '"><b>' not in html
    assert "&lt;script&gt;" in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_the_page_speaks_english_and_chinese(api, browser):
    path = link(api)["path"]
    english, chinese = browser.get(path).text, browser.get(path + "&lang=zh").text
    assert '<html lang="en">' in english and "What is believed" in english and "Save correction" in english
    assert '<html lang="zh">' in chinese and "已知信息" in chinese and "保存更正" in chinese and "居住地" in chinese
    assert "What is believed" not in chinese
    assert '<html lang="zh">' in browser.get(path, headers={"Accept-Language": "zh-CN,zh;q=0.9"}).text
    assert '<html lang="en">' in browser.get(path + "&lang=en", headers={"Accept-Language": "zh-CN"}).text
    assert browser.get(path + "&lang=fr").status_code == 400



def test_every_kind_of_belief_has_a_chinese_name():
    # A predicate added without one would show its English identifier on the Chinese page.
    assert set(PREDICATES_ZH) == {p.value for p in Predicate}


# -- the forms ------------------------------------------------------------------------------------

def _item(api, obj: str) -> dict:
    return next(i for i in items(api) if i["object"] == obj)


def _form_fields(html: str, action: str, item_id: str) -> dict:
    """The hidden fields of one rendered form (as a browser would send them)."""
    block = html[html.index(f'data-item-id="{item_id}"'):]
    form = re.search(rf'<form method="post" action="memory-page/{action}"[^>]*>(.*?)</form>', block, re.S).group(1)
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form))


def test_correcting_and_deleting_through_the_page_is_what_the_api_sees(api, browser):
    path = link(api)["path"]
    html = browser.get(path).text
    lisbon, tea = _item(api, "Lisbon"), _item(api, "绿茶")
    correction = {**_form_fields(html, "corrections", lisbon["memory_id"]), "object": "Porto"}
    r = browser.post(f"{PAGE}/corrections", data=correction, follow_redirects=False)
    assert r.status_code == 303
    target = urlsplit(r.headers["location"])
    assert target.path == "../memory-page" and parse_qs(target.query)["done"] == ["corrected"]
    deletion = _form_fields(html, "deletions", tea["memory_id"])
    assert browser.post(f"{PAGE}/deletions", data=deletion, follow_redirects=False).status_code == 303
    now = {i["object"]: i for i in items(api)}
    assert "Lisbon" not in now and "绿茶" not in now
    assert now["Porto"]["trust_source"] == "human" and now["Porto"]["type"] == "lives_in"
    # A resubmitted form (back button, double click) replays its first result: no 404, no second write.
    assert browser.post(f"{PAGE}/deletions", data=deletion, follow_redirects=False).status_code == 303
    assert browser.post(f"{PAGE}/corrections", data=correction, follow_redirects=False).status_code == 303
    assert sorted(i["object"] for i in items(api)) == sorted(["Porto", "peanuts"])
    assert "The memory is deleted." in browser.get(path + "&done=deleted").text


def test_the_page_forms_are_fenced_like_the_api(api, browser, deps, alice):
    html = browser.get(link(api)["path"]).text
    lisbon = _item(api, "Lisbon")
    deps.erasure_jobs.mark_erasing(alice)
    r = browser.post(f"{PAGE}/deletions", data=_form_fields(html, "deletions", lisbon["memory_id"]))
    assert r.status_code == 409 and r.json()["error"]["code"] == "conflict"


def test_the_export_button_downloads_the_export_document(api, browser):
    html = browser.get(link(api)["path"]).text
    form = re.search(r'action="memory-page/export">(.*?)</form>', html, re.S).group(1)
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form))
    r = browser.post(f"{PAGE}/export", data=fields)
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    document = r.json()
    assert document["user_id"] == "alice" and {p["object"] for p in document["profile"]} >= {"Lisbon", "peanuts"}


def test_forms_are_strict(api, browser):
    token = link(api)["token"]
    item_id = items(api)[0]["memory_id"]
    assert browser.post(f"{PAGE}/deletions", json={"token": token, "item_id": item_id}).status_code == 400
    doubled = f"token={token}&item_id={item_id}&item_id=other"
    assert browser.post(f"{PAGE}/deletions", content=doubled, headers=FORM).status_code == 400
    extra = browser.post(f"{PAGE}/deletions", data={"token": token, "item_id": item_id, "admin": "1"})
    assert extra.status_code == 400 and extra.json()["error"]["field"] == "admin"
    long = browser.post(f"{PAGE}/corrections", data={"token": token, "item_id": item_id, "object": "x" * 201})
    assert long.status_code == 413
    assert browser.post(f"{PAGE}/deletions", content=b"\xff\xfe", headers=FORM).status_code == 400
    assert len(items(api)) == 3


def test_the_page_and_its_forms_are_in_the_openapi_schema(api):
    paths = api.get("/openapi.json").json()["paths"]
    assert "text/html" in paths["/v1/users/{user_id}/memory-page"]["get"]["responses"]["200"]["content"]
    correction = paths["/v1/users/{user_id}/memory-page/corrections"]["post"]
    assert "application/x-www-form-urlencoded" in correction["requestBody"]["content"]
    assert "/v1/users/{user_id}/memory-page-links" in paths


def test_the_link_url_follows_the_configured_public_url(deps):
    configured = deps.with_(settings=deps.settings.model_copy(update={"api_public_url": "https://memory.example/"}))
    out = link(client_for(configured))
    assert out["url"] == "https://memory.example" + out["path"]


def test_the_scope_a_link_opens_is_the_one_it_was_made_for(deps):
    from engram.service import memory_page

    token = memory_page.issue_link(deps, Scope("t9", "zoe"))["token"]
    scope, _ = memory_page.open_link(deps, "zoe", token)
    assert scope == Scope("t9", "zoe")
