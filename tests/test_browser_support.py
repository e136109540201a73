"""tests/support/browser.py: a real headless Chromium, offline, quick to poll, no leftovers."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .support import browser as bs
from .support.browser import (
    browser_or_skip,
    chromium_paths,
    console_errors,
    phone_viewport,
    start_browser,
    static_server,
    viewport_size,
)
from .support.waiting import wait_for

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>browser support</title>
<link rel="icon" href="data:,">
<style>
  #layout { display: flex; }
  @media (max-width: 600px) { #layout { display: block; } }
</style></head>
<body>
<div id="layout"><span>a</span><span>b</span></div>
<button id="go" onclick="document.getElementById('out').textContent = 'clicked'">go</button>
<p id="out">waiting</p>
<button id="inject" onclick="inject()">inject</button>
<p id="safe"></p>
<p id="unsafe"></p>
<button id="complain" onclick="console.error('deliberate failure 42')">complain</button>
<script>
  window.__ran = [];
  const payload = '<script>window.__ran.push("script")<' + '/script>' +
                  '<img src="x:" onerror="window.__ran.push(\\'img\\')">';
  function inject() {
    document.getElementById('safe').textContent = payload;
  }
  function injectUnsafe() {
    document.getElementById('unsafe').innerHTML = payload;
  }
</script>
</body></html>
"""


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with static_server({"/": PAGE}) as url:
        yield url


def by_id(driver, element_id: str):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id)


# --- without a browser -----------------------------------------------------------------------


def test_explicit_missing_browser_is_not_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bs.ENV_BROWSER, "/nonexistent")
    assert chromium_paths() is None


def test_env_overrides_are_used(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "fake-chromium"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(bs.ENV_BROWSER, str(fake))
    monkeypatch.setenv(bs.ENV_DRIVER, str(fake))
    assert chromium_paths() == (str(fake), str(fake))


def test_missing_browser_skips_or_fails_when_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bs.ENV_BROWSER, "/nonexistent")
    monkeypatch.delenv(bs.ENV_REQUIRE, raising=False)
    with pytest.raises(pytest.skip.Exception, match="not found"):
        browser_or_skip()
    monkeypatch.setenv(bs.ENV_REQUIRE, "1")
    with pytest.raises(pytest.fail.Exception, match="DISCUSSIONS_REQUIRE_BROWSER=1 but"):
        browser_or_skip()


def test_missing_selenium_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(bs.ENV_REQUIRE, raising=False)
    monkeypatch.setitem(sys.modules, "selenium", None)  # makes `import selenium` fail
    with pytest.raises(pytest.skip.Exception, match="selenium"):
        browser_or_skip()


def test_wait_for_returns_the_value_and_retries_exceptions() -> None:
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise LookupError("not yet")
        return "ready"

    assert wait_for(flaky, timeout=2, poll=0.001) == "ready"
    assert len(calls) == 3


def test_wait_for_times_out_with_the_last_value() -> None:
    with pytest.raises(AssertionError, match=r"timed out after 0.1s waiting for .*last: \[\]"):
        wait_for(lambda: [], timeout=0.1)


# --- in the browser --------------------------------------------------------------------------


@pytest.mark.slow
def test_click_changes_text(browser, site: str) -> None:
    browser.get(site)
    assert by_id(browser, "out").text == "waiting"
    started = time.monotonic()
    by_id(browser, "go").click()
    wait_for(lambda: by_id(browser, "out").text == "clicked")
    print(f"click -> text visible: {(time.monotonic() - started) * 1000:.1f} ms")
    assert console_errors(browser) == []


def test_script_set_as_text_does_not_run(browser, site: str) -> None:
    browser.get(site)
    by_id(browser, "inject").click()
    safe = wait_for(lambda: by_id(browser, "safe").text)
    assert safe.startswith("<script>window.__ran.push")
    assert browser.execute_script("return document.querySelectorAll('#safe *').length") == 0
    assert browser.execute_script("return window.__ran") == []
    # and never later: the control below runs the same handler, and only its own entry shows

    # The check can see execution: the same payload as HTML runs the img's onerror handler.
    browser.execute_script("injectUnsafe()")
    assert wait_for(lambda: browser.execute_script("return window.__ran")) == ["img"]


def test_console_errors_are_caught(browser, site: str) -> None:
    browser.get(site)
    console_errors(browser)  # reading empties the log
    by_id(browser, "complain").click()
    errors = wait_for(lambda: console_errors(browser))
    assert len(errors) == 1 and "deliberate failure 42" in errors[0]
    assert console_errors(browser) == []

    browser.execute_script("setTimeout(() => { throw new Error('uncaught 7'); }, 0)")
    errors = wait_for(lambda: console_errors(browser))
    assert "uncaught 7" in errors[0]


def test_phone_viewport(browser, site: str) -> None:
    browser.get(site)
    desktop = viewport_size(browser)
    assert desktop[0] == bs.DESKTOP_SIZE[0]
    layout = "return getComputedStyle(document.getElementById('layout')).display"
    assert browser.execute_script(layout) == "flex"
    with phone_viewport(browser):
        assert viewport_size(browser) == bs.PHONE_SIZE
        assert browser.execute_script(layout) == "block"
    assert viewport_size(browser) == desktop
    assert browser.execute_script(layout) == "flex"


# --- starting, Selenium Manager, cleaning up -------------------------------------------------


@pytest.fixture
def selenium_manager_tripwire(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Point Selenium at a fake Selenium Manager that leaves a mark if it ever runs, and count
    calls into Selenium's SeleniumManager wrapper."""
    browser_or_skip()
    from selenium.webdriver.common.selenium_manager import SeleniumManager

    mark = tmp_path / "selenium-manager-ran"
    fake = tmp_path / "selenium-manager"
    fake.write_text(f"#!/bin/sh\necho \"$@\" > '{mark}'\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("SE_MANAGER_PATH", str(fake))
    calls: list[list[str]] = []
    real = SeleniumManager.binary_paths

    def spy(self, args):
        calls.append(args)
        return real(self, args)

    monkeypatch.setattr(SeleniumManager, "binary_paths", spy)
    return mark, calls


@pytest.mark.slow  # starts its own Chromium
def test_selenium_manager_never_runs(selenium_manager_tripwire, monkeypatch, capsys) -> None:
    mark, calls = selenium_manager_tripwire
    # Without start_browser's own guard, so this shows what Selenium itself does.
    monkeypatch.setattr(bs, "selenium_manager_forbidden", contextlib.nullcontext)
    driver = start_browser()
    try:
        driver.get("data:text/html,<p id=p>ok</p>")
        assert by_id(driver, "p").text == "ok"
    finally:
        driver.quit()
    assert calls == [] and not mark.exists()
    with capsys.disabled():
        print(f"\nChromium start-up: {driver.startup_seconds:.2f} s")


def test_tripwire_sees_selenium_manager(selenium_manager_tripwire) -> None:
    """The check above can fail: with no driver path Selenium runs Selenium Manager."""
    from selenium.common.exceptions import NoSuchDriverException
    from selenium.webdriver import ChromeOptions
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.driver_finder import DriverFinder

    mark, calls = selenium_manager_tripwire
    with pytest.raises(NoSuchDriverException):
        DriverFinder(Service(), ChromeOptions()).get_driver_path()
    assert len(calls) == 1 and mark.exists()


def test_guard_refuses_selenium_manager(selenium_manager_tripwire) -> None:
    from selenium.common.exceptions import NoSuchDriverException
    from selenium.webdriver import ChromeOptions
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.driver_finder import DriverFinder

    mark, _ = selenium_manager_tripwire
    with bs.selenium_manager_forbidden(), pytest.raises(NoSuchDriverException) as caught:
        DriverFinder(Service(), ChromeOptions()).get_driver_path()
    assert isinstance(caught.value.__cause__, bs.SeleniumManagerForbidden)
    assert not mark.exists()


@pytest.mark.slow  # starts its own Chromium
def test_quit_leaves_nothing_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    # Selenium prefers $SE_CHROMEDRIVER over the path it is given: start_browser hides it.
    monkeypatch.setenv("SE_CHROMEDRIVER", "/nonexistent/chromedriver")
    monkeypatch.delenv("SE_OFFLINE", raising=False)
    driver = start_browser()
    assert os.environ["SE_CHROMEDRIVER"] == "/nonexistent/chromedriver"
    assert "SE_OFFLINE" not in os.environ  # set only while the driver starts
    profile = driver.user_data_dir
    assert bs.browser_processes(profile)
    driver.quit()
    assert bs.browser_processes(profile) == set()
    assert not os.path.exists(profile)


@pytest.mark.slow  # starts its own Chromium
def test_quit_after_chromedriver_died_still_kills_chromium() -> None:
    driver = start_browser(phone=True)
    assert viewport_size(driver) == bs.PHONE_SIZE
    profile = driver.user_data_dir
    os.kill(driver.service.process.pid, signal.SIGKILL)
    driver.service.process.wait(5)
    assert bs.browser_processes(profile)  # Chromium orphaned
    driver.quit()
    assert bs.browser_processes(profile) == set()
    assert not os.path.exists(profile)
