"""The memory page in headless Chromium (Debian's ``chromium`` and ``chromium-driver``, driven by
Selenium), through API Gateway on LocalStack: an agent asks for a link, the user opens it with
nothing else, corrects one memory and deletes another by clicking, and the API then shows exactly
that; the page is also read in Chinese. Screenshots go to ``ENGRAM_TEST_ARTIFACTS`` (default
``.run/artifacts/``, inside the git-ignored run dir)."""

from __future__ import annotations

import os
import shutil
import time
import uuid
from pathlib import Path

import httpx
import pytest

from local.stackctl.common import RUN_DIR

pytestmark = pytest.mark.stack

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
ARTIFACTS = Path(os.environ.get("ENGRAM_TEST_ARTIFACTS") or RUN_DIR / "artifacts")
SAID = ["I live in Lisbon.", "I'm allergic to peanuts.", "我喜欢绿茶",
        "I love <script>window.pwned = 1</script>"]  # a preference whose source turn holds a script


@pytest.fixture(scope="module")
def chromium():
    if not (shutil.which(CHROMIUM) and shutil.which(DRIVER)):
        pytest.fail("chromium and chromium-driver are not installed (`local/stack test` installs them: "
                    "apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1000,1600", "--lang=en-US"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


@pytest.fixture
def agent(api_url, api_key):
    with httpx.Client(base_url=api_url, headers={"Authorization": f"Bearer {api_key}"}, timeout=120) as client:
        yield client


def _profile(agent, user: str) -> dict[str, dict]:
    r = agent.get(f"/v1/users/{user}/profile")
    assert r.status_code == 200, r.text
    return {i["object"]: i for i in r.json()["items"]}


def _shot(driver, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    assert driver.save_screenshot(str(path)) and path.stat().st_size > 0
    return path


def test_a_user_corrects_and_deletes_memories_in_chromium(chromium, agent):
    from selenium.common.exceptions import (
        NoSuchElementException,
        StaleElementReferenceException,
        WebDriverException,
    )
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    user = f"page-{uuid.uuid4().hex[:12]}"
    assert agent.put(f"/v1/users/{user}/consent", json={"long_term": True}).status_code == 200
    turns = [{"role": "user", "content": text, "message_id": f"m{i}", "client_ts": f"2026-11-20T09:0{i}:00Z"}
             for i, text in enumerate(SAID)]
    r = agent.post(f"/v1/users/{user}/messages", json={"session_id": "s1", "device_id": "d1", "messages": turns})
    assert r.status_code == 200, r.text
    before = _profile(agent, user)
    assert {"Lisbon", "peanuts", "绿茶"} <= set(before)

    link = agent.post(f"/v1/users/{user}/memory-page-links", json={"ttl_s": 600})
    assert link.status_code == 201, link.text
    url = link.json()["url"]
    served = httpx.get(url, timeout=120)  # as the browser gets it: no API key, through API Gateway
    assert served.status_code == 200 and served.headers["referrer-policy"] == "no-referrer"
    assert "default-src 'none'" in served.headers["content-security-policy"]
    assert served.headers["cache-control"] == "no-store" and served.headers["x-content-type-options"] == "nosniff"

    chromium.get(url)
    wait = WebDriverWait(chromium, 60)
    assert chromium.find_element(By.TAG_NAME, "h1").text == "What your assistant remembers about you"
    assert chromium.execute_script("return window.pwned") is None  # the <script> someone said stays text
    assert "I love <script>window.pwned = 1</script>" in chromium.find_element(By.TAG_NAME, "main").text

    def item(obj: str):
        return chromium.find_element(By.XPATH, f"//li[@class='item'][.//span[@class='object' and text()='{obj}']]")

    def loaded() -> None:
        wait.until(lambda d: d.execute_script("return document.readyState") == "complete")

    def act(do) -> None:
        # Acting on a page the browser is still settling fails in the driver ("Node with given id
        # does not belong to the document"): find the element again and repeat, a few times.
        for attempt in range(5):
            try:
                loaded()
                return do()
            except (StaleElementReferenceException, WebDriverException) as exc:
                if attempt == 4 or isinstance(exc, NoSuchElementException):  # gone: it did happen
                    raise
                time.sleep(0.2)

    def gone(element) -> bool:
        # Selenium's staleness_of knows only StaleElementReferenceException; Chromium may instead
        # answer for a node of the unloaded document "Node with given id does not belong to the
        # document" (seen in a CI rehearsal). Either way the old document is gone.
        try:
            element.is_enabled()
        except (StaleElementReferenceException, WebDriverException):
            return True
        return False

    def submit(press, status: str) -> None:
        # The form posts and the page comes back through a redirect: wait for the old document to
        # go before reading the new one's status.
        old = chromium.find_element(By.TAG_NAME, "html")
        act(press)
        wait.until(lambda _: gone(old))
        loaded()
        wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, "[role=status]"), status))

    def correct_lisbon() -> None:
        field = item("Lisbon").find_element(By.CSS_SELECTOR, "form.correct input[name=object]")
        field.clear()
        field.send_keys("Porto")
        item("Lisbon").find_element(By.CSS_SELECTOR, "form.correct button[type=submit]").click()

    def delete_tea() -> None:
        tea = item("绿茶")
        tea.find_element(By.TAG_NAME, "summary").click()
        tea.find_element(By.CSS_SELECTOR, "form.delete button").click()

    submit(correct_lisbon, "Your correction is saved.")
    submit(delete_tea, "The memory is deleted.")
    assert item("Porto") and not chromium.find_elements(By.XPATH, "//span[@class='object' and text()='绿茶']")
    _shot(chromium, "memory-page-en.png")

    after = _profile(agent, user)
    assert "Lisbon" not in after and "绿茶" not in after and "peanuts" in after
    assert after["Porto"]["type"] == "lives_in" and after["Porto"]["trust_source"] == "human"

    chromium.get(url + "&lang=zh")
    assert chromium.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh"
    assert chromium.find_element(By.TAG_NAME, "h1").text == "你的助手记得关于你的什么"
    page = chromium.find_element(By.TAG_NAME, "main").text
    assert "已知信息" in page and "居住地" in page and "Porto" in page and "保存更正" in page
    _shot(chromium, "memory-page-zh.png")


def test_a_link_for_one_user_does_not_open_another_users_page_through_the_gateway(agent, api_url):
    mine, theirs = f"page-{uuid.uuid4().hex[:12]}", f"page-{uuid.uuid4().hex[:12]}"
    token = agent.post(f"/v1/users/{mine}/memory-page-links").json()["token"]
    other = httpx.get(f"{api_url}/v1/users/{theirs}/memory-page", params={"token": token}, timeout=120)
    assert other.status_code == 403 and other.json()["error"]["code"] == "forbidden"
    tampered = httpx.get(f"{api_url}/v1/users/{mine}/memory-page", params={"token": token[:-4] + "AAAA"},
                         timeout=120)
    assert tampered.status_code == 401 and tampered.json()["error"]["code"] == "unauthorized"
