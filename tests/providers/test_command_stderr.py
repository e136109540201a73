"""A command's standard error is quoted without terminal codes (opencode colours its stderr
even without a terminal): an error message or a record never carries them."""

from __future__ import annotations

import sys

import pytest

from discussions.errors import ProviderFailed
from discussions.providers import CommandProvider, ProviderRequest, ProviderSpec

COLOURED = r"import sys; sys.stderr.write('\x1b[0m> plan\x1b[0m\n\x1b[91m\x1b[1mError: \x1b[0mrefused\x1b]0;title\x07\n'); sys.exit(1)"


def test_a_failure_quotes_stderr_without_terminal_codes() -> None:
    spec = ProviderSpec(name="coloured", command=f'{sys.executable} -c "{COLOURED}"')
    with pytest.raises(ProviderFailed) as failed:
        CommandProvider(spec).complete(ProviderRequest(prompt="hi", timeout=30))
    assert "Error: refused" in failed.value.detail
    assert "\x1b" not in failed.value.detail and "\x07" not in failed.value.detail
