"""Drive a real headless Chromium from pytest with Selenium, offline and without leftovers.

Use the module-scoped ``browser`` fixture (one Chromium per test module)::

    from ..support.browser import console_errors   # `browser`: tests/support/fixtures.py
    from ..support.waiting import wait_for

    def test_page(browser):
        browser.get(url)
        wait_for(lambda: browser.find_element(By.ID, "out").text == "done")
        assert console_errors(browser) == []

(registered for every test module with the other shared fixtures), or call ``start_browser()``
yourself and ``quit()`` the driver it returns.

Without Chromium, ChromeDriver or the ``selenium`` package the tests are skipped, unless
``DISCUSSIONS_REQUIRE_BROWSER=1`` is set (CI sets it): then they fail, so browser tests can
never silently stop running there.

Offline by construction: ChromeDriver's path is always given to Selenium explicitly, which
makes Selenium skip Selenium Manager (the tool that would otherwise download a browser or a
driver); on top of that, while the driver starts, ``start_browser`` makes any call into Selenium
Manager raise, and sets ``SE_OFFLINE=true`` / ``SE_AVOID_STATS=true`` in case it ran anyway.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from .servers import serving
from .waiting import alive, command_line, descendants, process_ids

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

T = TypeVar("T")

ENV_BROWSER = "DISCUSSIONS_CHROMIUM"
ENV_DRIVER = "DISCUSSIONS_CHROMEDRIVER"
ENV_REQUIRE = "DISCUSSIONS_REQUIRE_BROWSER"

DEFAULT_BROWSER = "/usr/bin/chromium"
DEFAULT_DRIVER = "/usr/bin/chromedriver"
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
DRIVER_NAMES = ("chromedriver",)

PHONE_SIZE = (390, 844)  # CSS pixels of a current mid-size phone (iPhone 12-15)
DESKTOP_SIZE = (1200, 900)

CHROMIUM_ARGS = (
    "--headless=new",
    "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--password-store=basic",  # never ask a desktop keyring
    "--mute-audio",
    f"--window-size={DESKTOP_SIZE[0]},{DESKTOP_SIZE[1]}",
)


# --- finding the binaries --------------------------------------------------------------------


def _executable(path: str) -> str | None:
    """``path`` if it is an executable file; a bare name is looked up on PATH."""
    if os.sep not in path:
        return shutil.which(path)
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def _find(env: str, default: str, names: Iterable[str]) -> str | None:
    override = os.environ.get(env)
    if override:  # an explicit choice that does not exist is "not found", not "use another"
        return _executable(override)
    found = _executable(default)
    if found:
        return found
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


def chromium_paths() -> tuple[str, str] | None:
    """``(browser, chromedriver)``: from $DISCUSSIONS_CHROMIUM / $DISCUSSIONS_CHROMEDRIVER,
    else /usr/bin/chromium + /usr/bin/chromedriver, else found on PATH; None if either is missing."""
    browser = _find(ENV_BROWSER, DEFAULT_BROWSER, BROWSER_NAMES)
    driver = _find(ENV_DRIVER, DEFAULT_DRIVER, DRIVER_NAMES)
    if browser is None or driver is None:
        return None
    return browser, driver


def browser_required() -> bool:
    return os.environ.get(ENV_REQUIRE, "").strip().lower() in {"1", "true", "yes", "on"}


def unavailable_reason() -> str | None:
    """Why a browser test cannot run here, or None if it can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the 'selenium' package is not installed (pip install '.[test]')"
    missing = [
        what
        for what, env, default, names in (
            ("Chromium", ENV_BROWSER, DEFAULT_BROWSER, BROWSER_NAMES),
            ("ChromeDriver", ENV_DRIVER, DEFAULT_DRIVER, DRIVER_NAMES),
        )
        if _find(env, default, names) is None
    ]
    if missing:
        return (
            f"{' and '.join(missing)} not found "
            f"(${ENV_BROWSER}={os.environ.get(ENV_BROWSER, '')!r}, "
            f"${ENV_DRIVER}={os.environ.get(ENV_DRIVER, '')!r}, "
            f"else {DEFAULT_BROWSER} and {DEFAULT_DRIVER}, else PATH; "
            "on Debian: apt-get install chromium chromium-driver)"
        )
    return None


def browser_or_skip() -> tuple[str, str]:
    """The ``(browser, chromedriver)`` paths, or skip the test; fail instead under
    DISCUSSIONS_REQUIRE_BROWSER=1 so CI can never skip browser tests silently."""
    reason = unavailable_reason()
    if reason is not None:
        if browser_required():
            pytest.fail(f"{ENV_REQUIRE}=1 but {reason}", pytrace=False)
        pytest.skip(reason)
    paths = chromium_paths()
    assert paths is not None
    return paths


# --- Selenium Manager must never run ---------------------------------------------------------


class SeleniumManagerForbidden(RuntimeError):
    """Selenium tried to run Selenium Manager, which may download browsers and drivers."""


@contextlib.contextmanager
def selenium_manager_forbidden() -> Iterator[None]:
    """While active, any use of Selenium Manager raises instead of running it."""
    from selenium.webdriver.common.selenium_manager import SeleniumManager

    def refuse(self: object, args: list[str]) -> dict[str, str]:
        raise SeleniumManagerForbidden(
            f"Selenium Manager was about to run with {args}; tests must not download anything"
        )

    original = SeleniumManager.binary_paths
    SeleniumManager.binary_paths = refuse  # type: ignore[method-assign]
    try:
        yield
    finally:
        SeleniumManager.binary_paths = original  # type: ignore[method-assign]


# --- processes -------------------------------------------------------------------------------


def browser_processes(marker: str) -> set[int]:
    """Live processes whose command line mentions ``marker`` (e.g. a driver's user-data-dir)."""
    me = os.getpid()
    return {
        pid for pid in process_ids() if pid != me and marker in command_line(pid) and alive(pid)
    }


def _kill(pids: Iterable[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


# --- starting and stopping -------------------------------------------------------------------

_running: set[Any] = set()
_chrome_class: type | None = None


def _chrome() -> type:
    """webdriver.Chrome whose quit() also kills stray browser processes and removes the profile."""
    global _chrome_class
    if _chrome_class is None:
        from selenium import webdriver

        class TestChrome(webdriver.Chrome):
            user_data_dir: str = ""
            startup_seconds: float = 0.0

            def quit(self) -> None:
                driver_pid = None
                with contextlib.suppress(Exception):
                    driver_pid = self.service.process.pid
                family = descendants(driver_pid) if driver_pid else set()
                # Without a live ChromeDriver nobody will close Chromium: no point in waiting.
                grace = 5.0 if driver_pid and alive(driver_pid) else 0.5
                try:
                    super().quit()
                finally:
                    _running.discard(self)
                    _reap(driver_pid, family, self.user_data_dir, grace)

        _chrome_class = TestChrome
    return _chrome_class


def _reap(driver_pid: int | None, family: set[int], user_data_dir: str, grace: float = 5.0) -> None:
    """After quit: give Chromium a moment to exit by itself, then SIGKILL whatever is left
    (ChromeDriver, its descendants, anything still using our profile) and delete the profile."""

    def left() -> set[int]:
        pids = {pid for pid in family if alive(pid)}
        if driver_pid and alive(driver_pid):
            pids.add(driver_pid)
        if user_data_dir:
            pids |= browser_processes(user_data_dir)
        return pids

    for wait in (grace, 5.0):
        deadline = time.monotonic() + wait
        while (pids := left()) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not pids:
            break
        _kill(pids)
    if user_data_dir:
        shutil.rmtree(user_data_dir, ignore_errors=True)


@contextlib.contextmanager
def _starting_environ() -> Iterator[None]:
    """Our process's environment while Selenium starts the driver, restored afterwards:
    $SE_CHROMEDRIVER hidden (it would silently replace our driver path); and should Selenium
    Manager run after all, SE_OFFLINE / SE_AVOID_STATS keep it from using the network."""
    changes: dict[str, str | None] = {
        "SE_CHROMEDRIVER": None,
        "SE_OFFLINE": "true",
        "SE_AVOID_STATS": "true",
    }
    saved = {name: os.environ.get(name) for name in changes}
    try:
        for name, value in changes.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@atexit.register
def _quit_forgotten() -> None:
    for driver in list(_running):
        with contextlib.suppress(Exception):
            driver.quit()


def start_browser(paths: tuple[str, str] | None = None, *, phone: bool = False) -> WebDriver:
    """A fresh headless Chromium (own temporary profile, offline-safe); ``quit()`` it when done.

    ``paths`` defaults to ``browser_or_skip()``; ``phone=True`` starts at phone width.
    The start-up time is kept on ``driver.startup_seconds``.
    """
    if paths is None:
        paths = browser_or_skip()
    browser, driver_path = paths

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    user_data_dir = tempfile.mkdtemp(prefix="discussions-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in CHROMIUM_ARGS:
        options.add_argument(arg)
    options.add_argument(f"--user-data-dir={user_data_dir}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})

    # HOME and XDG dirs inside the profile: nothing written to the real home (~/.pki, caches).
    env = dict(os.environ)
    for name, sub in (("HOME", "home"), ("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache")):
        env[name] = os.path.join(user_data_dir, sub)
        os.makedirs(env[name], exist_ok=True)

    started = time.monotonic()
    service = None
    try:
        with _starting_environ(), selenium_manager_forbidden():
            service = Service(
                executable_path=driver_path,
                env=env,
                popen_kw={"start_new_session": True},  # own process group, not our terminal's
            )
            driver = _chrome()(options=options, service=service)
    except BaseException:
        process = getattr(service, "process", None)
        pid = process.pid if process is not None else None
        _reap(pid, descendants(pid) if pid else set(), user_data_dir)
        raise
    driver.user_data_dir = user_data_dir
    driver.startup_seconds = time.monotonic() - started
    _running.add(driver)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    if phone:
        try:
            set_viewport(driver, *PHONE_SIZE)
        except BaseException:
            driver.quit()
            raise
    return driver


# --- helpers for tests -----------------------------------------------------------------------


def console_errors(driver: WebDriver, ignore: Iterable[str] = ("favicon.ico",)) -> list[str]:
    """Browser console messages of level SEVERE (console.error, uncaught exceptions, failed
    loads) since the last call: reading the log empties it. Messages containing any of
    ``ignore`` are left out (by default the 404 of a favicon nobody serves)."""
    ignore = tuple(ignore)
    errors = []
    for entry in driver.get_log("browser"):  # type: ignore[attr-defined]
        message = str(entry.get("message", ""))
        if entry.get("level") == "SEVERE" and not any(s in message for s in ignore):
            errors.append(message)
    return errors


def viewport_size(driver: WebDriver) -> tuple[int, int]:
    """The page's layout viewport in CSS pixels (what media queries see)."""
    width, height = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    return int(width), int(height)


def set_viewport(driver: WebDriver, width: int, height: int) -> None:
    """Resize the window so the page's viewport is exactly ``width`` x ``height`` CSS pixels."""
    before = viewport_size(driver)
    driver.set_window_size(width, height)
    inner_w, inner_h = _settled_viewport(driver, (width, height), before)
    if (inner_w, inner_h) != (width, height):  # window decorations: grow by the difference
        before = (inner_w, inner_h)
        driver.set_window_size(2 * width - inner_w, 2 * height - inner_h)
        inner_w, inner_h = _settled_viewport(driver, (width, height), before)
    assert (inner_w, inner_h) == (width, height), f"viewport is {inner_w}x{inner_h}"


def _settled_viewport(
    driver: WebDriver, wanted: tuple[int, int], before: tuple[int, int]
) -> tuple[int, int]:
    """The viewport once a resize has reached the page: a loaded machine may show the size
    `before` it for a while (waited for at most 5 s, then what it is)."""
    deadline = time.monotonic() + 5.0
    size = viewport_size(driver)
    while size == before and size != wanted and time.monotonic() < deadline:
        time.sleep(0.05)
        size = viewport_size(driver)
    return size


@contextlib.contextmanager
def phone_viewport(
    driver: WebDriver, width: int = PHONE_SIZE[0], height: int = PHONE_SIZE[1]
) -> Iterator[WebDriver]:
    """Phone-sized viewport inside the block, the previous size restored after it."""
    previous = viewport_size(driver)
    set_viewport(driver, width, height)
    try:
        yield driver
    finally:
        set_viewport(driver, *previous)


@contextlib.contextmanager
def static_server(pages: dict[str, str | bytes]) -> Iterator[str]:
    """Serve ``{path: html}`` on 127.0.0.1 (random port) in a thread; yields the base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path.split("?", 1)[0])
            if body is None:
                self.send_error(404)
                return
            data = body.encode() if isinstance(body, str) else body
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    with serving(Handler) as server:
        yield f"http://127.0.0.1:{server.server_address[1]}"
