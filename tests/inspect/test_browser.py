"""The inspector in a real browser: Debian's chromium, driven through its chromedriver, on a
real `python -m app serve` with the embedded PostgreSQL. Its screenshots go to test-artifacts/."""

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.wait import WebDriverWait

from tests.chromium import MARKS, chromium
from tests.factories import decision, fact
from tests.inspect.conftest import HOSTILE, QUESTION
from tests.process.launcher import (
    REPO,
    client,
    free_port,
    launch,
    service_env,
    wait_embedded,
    wait_ready,
)

ARTIFACTS = REPO / "test-artifacts"

pytestmark = MARKS


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """A real server with an agent, its memories embedded and one build: (URL, key, build)."""
    root = tmp_path_factory.mktemp("inspector")
    port = free_port()
    with launch("serve", service_env(root / "data", port), root / "logs", "serve") as server:
        with client(port) as anonymous:
            wait_ready(server, anonymous)
        key = (root / "data" / "api-key").read_text().strip()
        with client(port, key) as http:
            build = _seed(http, server)
        yield f"http://127.0.0.1:{port}", key, build


def _seed(http: httpx.Client, server: Any) -> dict[str, Any]:
    assert http.put("/agents/newton", json={"identity": {"name": "Newton"}}).status_code == 200
    bodies = [
        decision("Chose Postgres over Redis for the cache"),
        fact(HOSTILE),
        *(fact(f"Redis cache note {n}: eviction, persistence, memory.") for n in range(12)),
    ]
    written = http.post("/agents/newton/memories/batch", json={"memories": bodies})
    assert written.status_code == 201, written.text
    for memory in written.json()["memories"]:
        wait_embedded(http, memory["id"], server)
    response = http.post(
        "/context/build", json={"agent_id": "newton", "input": QUESTION, "budget": 160}
    )
    assert response.status_code == 200, response.text
    build: dict[str, Any] = response.json()
    assert build["left_out"], "the build leaves memories out"
    return build


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    yield from chromium(tmp_path_factory)


def _screenshot(driver: WebDriver, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    assert driver.save_screenshot(str(path))
    print(f"screenshot: {path}")
    return path


def _gone(page: WebElement) -> Callable[[WebDriver], bool]:
    """Whether the page an element belongs to has been replaced: the element is stale, or (asked
    while chromium swaps the documents) its node belongs to no document any more."""

    def check(_browser: WebDriver) -> bool:
        try:
            page.is_enabled()
        except StaleElementReferenceException:
            return True
        except WebDriverException as exc:
            if "does not belong to the document" in str(exc):
                return True
            raise
        return False

    return check


def _follow(browser: WebDriver, element: WebElement) -> None:
    """Click a link or a submit button and wait for the next page: until then, the old page's
    elements are still found and go stale under the test."""
    page = browser.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(browser, 10).until(_gone(page))


def test_a_person_logs_in_and_reads_a_build_and_a_memory(
    service: tuple[str, str, dict[str, Any]], browser: WebDriver
) -> None:
    url, key, build = service
    started = time.monotonic()
    browser.get(f"{url}/inspect")
    assert browser.current_url == f"{url}/inspect/login"
    _screenshot(browser, "inspector-login.png")
    browser.find_element(By.ID, "key").send_keys(key)
    _follow(browser, browser.find_element(By.CSS_SELECTOR, "form button[type=submit]"))
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith("Agents of ")

    _follow(browser, browser.find_element(By.LINK_TEXT, "newton"))
    _screenshot(browser, "inspector-agent.png")
    _follow(browser, browser.find_element(By.CSS_SELECTOR, "table.builds td a"))
    assert browser.current_url == f"{url}/inspect/builds/{build['context_id']}"
    assert browser.find_element(By.ID, "input").text == QUESTION
    context = browser.find_element(By.ID, "context").text
    assert context.startswith("## Identity")
    assert "Chose Postgres over Redis" in context

    layers = browser.find_elements(By.CSS_SELECTOR, "#layers tr.layer")
    assert [row.get_attribute("data-layer") for row in layers] == [
        layer["name"] for layer in build["layers"]
    ]
    fills = [row.find_element(By.CSS_SELECTOR, ".bar .fill") for row in layers]
    tracks = [row.find_element(By.CSS_SELECTOR, ".bar") for row in layers]
    for layer, fill, track in zip(build["layers"], fills, tracks, strict=True):
        drawn = fill.size["width"] / track.size["width"]
        expected = min(1.0, layer["used"] / layer["budget"]) if layer["budget"] else 0.0
        assert drawn == pytest.approx(expected, abs=0.02), layer["name"]
    assert any(fill.size["width"] > 0 for fill in fills)

    item = browser.find_element(By.CSS_SELECTOR, "tr.item")
    parts = item.find_element(By.CSS_SELECTOR, "dl.parts").text
    assert "semantic" in parts
    assert "recency" in parts
    reasons = {cell.text for cell in browser.find_elements(By.CSS_SELECTOR, "#left-out .reason")}
    assert reasons
    assert reasons <= {"budget", "score", "duplicate"}
    assert browser.find_elements(By.CSS_SELECTOR, "#timings .bar .fill")
    _screenshot(browser, "inspector-build.png")

    _follow(browser, item.find_element(By.CSS_SELECTOR, "td a"))
    assert "/inspect/memories/" in browser.current_url
    representations = browser.find_elements(By.CSS_SELECTOR, "#representations h3")
    assert [h.text.split(" ·")[0] for h in representations] == ["micro", "summary", "full"]
    assert browser.find_element(By.ID, "state").text
    build_link = f"a[href='/inspect/builds/{build['context_id']}']"
    assert browser.find_elements(By.CSS_SELECTOR, build_link)
    _screenshot(browser, "inspector-memory.png")

    _follow(browser, browser.find_element(By.CSS_SELECTOR, "form.logout button"))
    assert browser.current_url == f"{url}/inspect/login"
    print(f"browser steps took {time.monotonic() - started:.2f} s")
