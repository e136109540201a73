"""The shared fixtures, registered once as a plugin by tests/conftest.py (`pytest_plugins`):
a test names one as an argument and never imports it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .apply import make_apply_project
from .browser import start_browser
from .council import Council, council_maker
from .documentation import Loop, loop_maker
from .git import init_repository, use_git_identity

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

REAL_CLIS = Path(__file__).resolve().parent.parent / "realcli"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow by nature, marked here so that no such test can forget it: every test that starts
    a browser (takes the `browser` fixture) and every test of the real AI CLIs."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()) or REAL_CLIS in item.path.parents:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    """One headless Chromium for the whole test module; quit (and its processes killed) at
    the end. Skipped without Chromium (failed instead where DISCUSSIONS_REQUIRE_BROWSER=1)."""
    driver = start_browser()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def git_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's own global git configuration with an identity (its path: empty it to take
    the identity away); the user's configuration cannot leak in."""
    return use_git_identity(monkeypatch, tmp_path)


@pytest.fixture
def repo(isolated: Path, git_identity: Path) -> Path:
    """A git repository (branch main, no commit yet) in the project folder. A module that
    needs a history overrides it with a fixture of the same name taking this one."""
    return init_repository(isolated)


@pytest.fixture
def council(isolated: Path, providers_file: Callable[..., Path], tmp_path: Path) -> Council:
    """council(plan, humans=None, threshold=0.5, as_no=False): a discussion 'plan.md' with the
    council template and the stand-in tests/scripts/council.py answering by `plan`, recording
    the prompts it receives in tmp_path/memory. Returns the file's path."""
    return council_maker(isolated, providers_file, tmp_path / "memory")


@pytest.fixture
def loop(isolated: Path, providers_file: Callable[..., Path], tmp_path: Path) -> Loop:
    """loop(plan, revisions=2, decided=True): a discussion 'plan.md' with the docs template,
    the stand-in tests/scripts/doc_loop.py answering by `plan` and recording its prompts in
    tmp_path/memory, closed as DECIDED unless `decided` is False. Returns the file's path."""
    return loop_maker(isolated, providers_file, tmp_path / "memory")


@pytest.fixture
def apply_project(
    isolated: Path, git_identity: Path, userdir: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A git project with a decided discussion (discussions/retry.md), a lead whose provider
    (tests/scripts/lead.py) can write and a reader whose provider cannot; committed, then made
    dirty. Not in CI's name: CI never implies consent."""
    monkeypatch.delenv("CI", raising=False)
    return make_apply_project(isolated, userdir)
