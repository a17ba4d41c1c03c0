"""Debian's chromium, driven through its chromedriver, for the tests marked `browser`: headless,
and every host name but 127.0.0.1 unresolvable, so a page that needs the internet shows it."""

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,1800",
    # No CDN, no web fonts: a machine with a network behaves as a closed one.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
)

MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
        reason="no /usr/bin/chromium and chromedriver: `make test-browser` installs them",
    ),
]


def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    """A headless chromium for a module's tests (the body of its `browser` fixture)."""
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    logs = tmp_path_factory.mktemp("chromedriver") / "chromedriver.log"
    started = time.monotonic()
    driver = webdriver.Chrome(
        options=options, service=Service(executable_path=str(CHROMEDRIVER), log_output=str(logs))
    )
    print(f"\nchromium started in {time.monotonic() - started:.2f} s")
    try:
        yield driver
    finally:
        driver.quit()
