"""Make the docs' pictures from a real session: the terminal app (SVG) and the web view (PNG).

Run from the repository root, in the environment the tests use (``pip install '.[test]'``), with
Chromium installed (``/usr/bin/chromium`` or ``$DISCUSSIONS_CHROMIUM``)::

    python scripts/screenshots.py            # writes docs/images/tui.svg, web.png, web-phone.png

It creates a scratch project, opens a discussion, has the built-in mock provider answer a turn and
a person comment, then draws the terminal app through Textual's own screenshot and the web view
through headless Chromium. Nothing is faked: the pictures show what the commands produce now.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from discussions.cli import cli  # noqa: E402
from discussions.settings.workspace import Workspace  # noqa: E402
from discussions.tui.app import DiscussionsApp  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "docs" / "images"
PICTURES = ("tui.svg", "web.png", "web-phone.png")
TITLE = "Add user authentication"
CONTEXT = (
    "Users sign in with e-mail and password today, and sessions never expire. We want short-lived "
    "tokens, a refresh path, and sign-in with the company's identity provider."
)


def cli_run(*args: str) -> None:
    """Run one `discussions` command in-process, failing loudly."""
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    if result.exit_code != 0:
        raise SystemExit(f"discussions {' '.join(args)} failed:\n{result.output}")


def make_session(project: Path) -> Path:
    """A discussion with a context, one mock turn and a person's comment."""
    os.chdir(project)
    cli_run("new", TITLE, "--context", CONTEXT)
    file = project / "discussions" / "add-user-authentication.md"
    cli_run("turn", str(file), "@architect", "@security", "@pragmatist", "--provider", "mock")
    cli_run(
        "comment",
        str(file),
        "Tokens for an hour, refresh for a week. @security does that "
        "cover the session concern?\n\nQ: Do we need single sign-out?",
        "--author",
        "Rob",
    )
    return file


async def tui_picture(file: Path, target: Path) -> None:
    """The terminal app on the discussion, as Textual draws it (SVG)."""
    ws = Workspace.discover()
    app = DiscussionsApp(ws.config.output_directory, file, ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.5)
        app.save_screenshot(filename=target.name, path=str(target.parent))


def web_pictures(file: Path, targets: dict[Path, tuple[int, int]]) -> None:
    """The web view's page of the discussion, at each viewport size (PNG), in headless Chromium
    driven as the browser tests drive it (tests/support/browser.py: offline, own profile)."""
    from tests.support.browser import set_viewport, start_browser
    from tests.support.waiting import wait_for

    server = subprocess.Popen(
        [sys.executable, "-m", "discussions", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    driver = None
    try:
        assert server.stdout is not None
        base, _, query = server.stdout.readline().strip().partition("?")
        driver = start_browser()
        driver.get(f"{base.rstrip('/')}/d/{file.name}?{query}")
        wait_for(lambda: "Rob" in driver.page_source)
        for target, (width, height) in targets.items():
            set_viewport(driver, width, height)
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(str(target))
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        server.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder (default {OUT})")
    out: Path = parser.parse_args().out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["DISCUSSIONS_HOME"] = str(Path(scratch) / "home")
        project = Path(scratch) / "project"
        project.mkdir()
        file = make_session(project)
        asyncio.run(tui_picture(file, out / "tui.svg"))
        web_pictures(file, {out / "web.png": (1200, 900), out / "web-phone.png": (390, 844)})
    for name in PICTURES:
        print(out / name)


if __name__ == "__main__":
    main()
