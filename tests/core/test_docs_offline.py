"""The API docs in a real browser on a machine without the internet: Swagger UI at /docs and
ReDoc at /redoc render every operation from the service's own files."""

from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.wait import WebDriverWait

from tests.chromium import MARKS, chromium
from tests.process.launcher import client, free_port, launch, service_env, wait_ready

pytestmark = MARKS


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, Any]]]:
    """A real server: its URL and its OpenAPI document."""
    root = tmp_path_factory.mktemp("docs")
    port = free_port()
    with launch("serve", service_env(root / "data", port), root / "logs", "serve") as server:
        with client(port) as anonymous:
            wait_ready(server, anonymous)
            document: dict[str, Any] = anonymous.get("/openapi.json").json()
        yield f"http://127.0.0.1:{port}", document


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    yield from chromium(tmp_path_factory)


def _operations(document: dict[str, Any]) -> int:
    methods = {"get", "put", "post", "patch", "delete"}
    return sum(1 for item in document["paths"].values() for method in item if method in methods)


def _needed_from_elsewhere(browser: WebDriver, url: str) -> list[str]:
    """What the page asked of other hosts besides images (ReDoc's footer tries a logo from its
    maker's CDN, and hides it when that fails)."""
    entries = browser.execute_script(
        "return performance.getEntriesByType('resource')"
        ".map(entry => [entry.name, entry.initiatorType])"
    )
    return [name for name, kind in entries if not name.startswith(url) and kind != "img"]


def test_swagger_ui_shows_every_operation_offline(
    service: tuple[str, dict[str, Any]], browser: WebDriver
) -> None:
    url, document = service
    browser.get(f"{url}/docs")
    expected = _operations(document)
    WebDriverWait(browser, 20).until(
        lambda b: len(b.find_elements(By.CSS_SELECTOR, ".opblock")) >= expected
    )
    paths = {e.text for e in browser.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")}
    assert "/context/build" in {path.replace("\u200b", "") for path in paths}
    assert _needed_from_elsewhere(browser, url) == []


def test_redoc_shows_every_operation_offline(
    service: tuple[str, dict[str, Any]], browser: WebDriver
) -> None:
    url, document = service
    browser.get(f"{url}/redoc")
    expected = _operations(document)
    operation = "[data-section-id^='operation/']"
    WebDriverWait(browser, 30).until(
        lambda b: len(b.find_elements(By.CSS_SELECTOR, operation)) >= expected
    )
    assert document["info"]["title"] in browser.find_element(By.TAG_NAME, "h1").text
    assert _needed_from_elsewhere(browser, url) == []
