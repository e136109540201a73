"""What `discussions trust` shows and records of the project's network access: the domains
``EVIDENCE: web`` may fetch from and the search ``EVIDENCE: search`` runs (``evidence.web`` and
``evidence.search`` in discussions.yaml), trusted apart from the commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from ..providers.trust import revoke_web, trust_web, web_trusted
from ..settings.research import WebSettings


def web_to_trust(root: Path, web: WebSettings) -> Callable[[], None] | None:
    """Show the project's web settings; what records trust in them (None: nothing the project
    sets, or trusted already as they stand)."""
    if not web.from_project:
        return None
    if web_trusted(root, web):
        click.echo("evidence.web / evidence.search in discussions.yaml is already trusted.")
        return None
    click.echo("discussions.yaml lets participants reach the network:")
    if web.domains:
        click.echo(f"  EVIDENCE: web URL from: {', '.join(web.domains)}")
    if web.search_command:
        click.echo(f"  EVIDENCE: search QUERY runs: {web.search_command}")
    if web.search_url:
        click.echo(f"  EVIDENCE: search QUERY fetches: {web.search_url}")

    def record() -> None:
        scope = trust_web(root, web)
        click.echo(f"Trusted evidence.web / evidence.search ({len(scope)} item(s) covered).")

    return record


def revoke_web_trust(root: Path, web: WebSettings) -> None:
    """Withdraw the trust in the project's web settings, saying whether there was one."""
    if web.from_project:
        gone = revoke_web(root)
        said = "Trust withdrawn for" if gone else "It was not trusted:"
        click.echo(f"{said} evidence.web / evidence.search.")
