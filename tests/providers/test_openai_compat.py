"""The openai-compatible provider against a real HTTP server on loopback (tests/support/openai_stub.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from discussions.errors import (
    ConfigError,
    ProviderError,
    ProviderFailed,
    ProviderOutputError,
    ProviderTimeout,
    UntrustedProvider,
)
from discussions.model.discussion import Discussion
from discussions.providers import ProviderRegistry, ProviderRequest, ProviderSpec
from discussions.providers.base import complete_with_usage
from discussions.providers.openai_compat import OpenAICompatibleProvider, forget_windows
from discussions.providers.server_window import is_loopback_host
from discussions.providers.usage import Usage

from ..conftest import code, out, run, write
from ..support.openai_stub import DRIP, StubServer, serve
from ..support.waiting import wait_for


@pytest.fixture(autouse=True)
def fresh_windows() -> None:
    """Each stub is a new server, though the system may hand out a port again."""
    forget_windows()


@pytest.mark.slow
def test_a_servers_window_is_asked_once_per_process() -> None:
    with serve(StubServer(props={"default_generation_settings": {"n_ctx": 2048}})) as stub:
        assert [provider(stub).context_window for _ in range(3)] == [2048] * 3
    assert len([q for q in stub.requests if q["path"] == "/props"]) == 1


def provider(stub: StubServer, **spec: object) -> OpenAICompatibleProvider:
    fields: dict[str, object] = {"base_url": stub.base_url, "model": "tiny"}
    fields.update(spec)
    return OpenAICompatibleProvider(
        ProviderSpec(name="local", command=None, type="openai-compatible", **fields)  # type: ignore[arg-type]
    )


def ask(p: OpenAICompatibleProvider, prompt: str = "Hello?", timeout: float = 10, **kw: object):  # type: ignore[no-untyped-def]
    return complete_with_usage(p, ProviderRequest(prompt=prompt, timeout=timeout, **kw))  # type: ignore[arg-type]


@pytest.mark.slow
def test_streamed_answer_text_usage_and_pieces() -> None:
    pieces: list[str] = []
    with serve() as stub:
        done = ask(provider(stub), "Say hello", on_output=pieces.append)
    assert done.text == "Hello from the stub.\nVOTE: READY"
    assert "".join(pieces) == done.text and len(pieces) > 3
    assert done.usage == Usage(42, 7, None)
    sent = stub.requests[-1]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["body"]["model"] == "tiny"
    assert sent["body"]["messages"] == [{"role": "user", "content": "Say hello"}]
    assert sent["body"]["stream"] is True
    assert sent["body"]["stream_options"] == {"include_usage": True}
    assert "max_tokens" not in sent["body"] and "Authorization" not in sent["headers"]


@pytest.mark.slow
def test_one_json_object_is_read_too_and_max_tokens_is_sent() -> None:
    with serve(StubServer(mode="json")) as stub:
        done = ask(provider(stub, max_tokens=300))
    assert done.text == "Hello from the stub.\nVOTE: READY"
    assert done.usage == Usage(42, 7, None)
    assert stub.requests[-1]["body"]["max_tokens"] == 300


@pytest.mark.slow
def test_stream_false_asks_for_one_object() -> None:
    with serve(StubServer(mode="json")) as stub:
        assert ask(provider(stub, stream=False)).usage == Usage(42, 7, None)
    sent = stub.requests[-1]["body"]
    assert sent["stream"] is False and "stream_options" not in sent


@pytest.mark.slow
def test_usage_unknown_when_the_server_does_not_say() -> None:
    with serve(StubServer(usage=None)) as stub:
        assert ask(provider(stub)).usage == Usage()


@pytest.mark.slow
def test_http_error_keeps_the_servers_message() -> None:
    with serve(StubServer(mode="error")) as stub, pytest.raises(ProviderFailed) as err:
        ask(provider(stub))
    assert err.value.reason == "the server answered HTTP 400 Bad Request"
    assert "exceeds the available context size" in err.value.detail


@pytest.mark.slow
def test_error_event_in_the_stream_fails_the_call() -> None:
    with serve(StubServer(mode="stream-error")) as stub, pytest.raises(ProviderFailed) as err:
        ask(provider(stub))
    assert err.value.reason == "the server reported an error"
    assert err.value.detail == "model crashed"


@pytest.mark.slow
def test_a_stream_without_events_says_what_may_have_happened() -> None:
    with serve(StubServer(mode="silent")) as stub, pytest.raises(ProviderOutputError) as err:
        ask(provider(stub))
    assert err.value.reason == "the server's answer was empty"
    assert "stream: false shows their reason" in err.value.detail


@pytest.mark.slow
def test_no_server_is_a_failure_not_a_missing_cli() -> None:
    with serve() as stub:
        port_url = stub.base_url
    p = OpenAICompatibleProvider(
        ProviderSpec(
            name="local", command=None, type="openai-compatible", base_url=port_url, model="m"
        )
    )
    with pytest.raises(ProviderFailed) as err:
        ask(p)
    assert "connection refused" in err.value.reason
    assert not err.value.reason.startswith("not installed")  # the mock must not stand in


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["hang", "drip"])
def test_a_server_that_hangs_or_drips_is_abandoned_at_the_deadline(mode: str) -> None:
    with serve(StubServer(mode=mode)) as stub:
        with pytest.raises(ProviderTimeout, match="timed out after 1s"):
            ask(provider(stub), timeout=1)
        assert not stub.outlasted.is_set()  # left at its deadline, not when the server stopped


@pytest.mark.slow
def test_provider_timeout_setting_applies_unless_the_command_line_says() -> None:
    with serve(StubServer(mode="hang")) as stub:
        p = provider(stub, timeout=0.5)
        with pytest.raises(ProviderTimeout, match="after 0.5s"):
            ask(p, timeout=30)
        assert not stub.outlasted.is_set()


@pytest.mark.slow
def test_a_flooding_server_is_cut_off() -> None:
    with serve(StubServer(mode="flood")) as stub:
        p = provider(stub)
        p.max_output = 1024 * 1024
        with pytest.raises(ProviderOutputError, match="output exceeded 1 MiB"):
            ask(p, timeout=20)


@pytest.mark.slow
def test_api_key_from_the_environment_sent_as_header_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("STUB_KEY", "sk-secret-123")
    with serve() as stub:
        ask(provider(stub, api_key_env="STUB_KEY"))
    assert stub.requests[-1]["headers"]["Authorization"] == "Bearer sk-secret-123"
    assert "sk-secret-123" not in str(stub.requests[-1]["body"])


@pytest.mark.slow
def test_missing_key_variable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STUB_KEY", raising=False)
    with (
        serve() as stub,
        pytest.raises(ProviderFailed, match=r"no API key \(\$STUB_KEY, .* is not set"),
    ):
        ask(provider(stub, api_key_env="STUB_KEY"))
    assert not stub.requests


@pytest.mark.slow
@pytest.mark.parametrize(
    ("routes", "window"),
    [
        ({"/props": {"default_generation_settings": {"n_ctx": 2048}}}, 2048),
        ({"/v1/models": {"data": [{"id": "other"}, {"id": "tiny", "max_model_len": 4096}]}}, 4096),
        (
            {
                "/api/v1/models": {
                    "models": [
                        {
                            "key": "tiny",
                            "max_context_length": 131072,
                            "loaded_instances": [
                                {"id": "tiny", "config": {"context_length": 8192}}
                            ],
                        }
                    ]
                }
            },
            8192,
        ),
        ({"/api/ps": {"models": [{"name": "tiny", "context_length": 16384}]}}, 16384),
        (
            {
                "/api/show": {
                    "parameters": "temperature 0.7\nnum_ctx 3072",
                    "model_info": {"llama.context_length": 131072},
                }
            },
            3072,
        ),
        ({"/api/show": {"model_info": {"llama.context_length": 131072}}}, None),
        ({}, None),
    ],
)
def test_context_window_from_what_the_server_says(
    routes: dict[str, object], window: int | None
) -> None:
    with serve(StubServer(routes=routes)) as stub:
        assert provider(stub).context_window == window


@pytest.mark.slow
def test_a_server_dripping_what_it_says_of_its_window_is_left_within_seconds() -> None:
    """Each read waits at most a few seconds, but a byte now and then never times out: the
    questions together have one deadline."""
    with serve(StubServer(routes={"/props": DRIP})) as stub:
        assert provider(stub).context_window is None
        assert not stub.outlasted.is_set()  # left before the 20 s drip ended


@pytest.mark.slow
def test_configured_context_window_wins_and_asks_nothing() -> None:
    with serve(StubServer(props={"default_generation_settings": {"n_ctx": 2048}})) as stub:
        assert provider(stub, context_window=512).context_window == 512
    assert not stub.requests


def test_loopback_hosts() -> None:
    for host in ("127.0.0.1", "127.8.0.1", "::1", "[::1]", "localhost", "LOCALHOST"):
        assert is_loopback_host(host), host
    for host in ("10.0.0.5", "192.168.1.2", "example.com", "0.0.0.0", "localhost.example.com"):
        assert not is_loopback_host(host), host


def entry(name: str, base_url: str, *extra: str) -> str:
    lines = [f"  - name: {name}", "    type: openai-compatible", f"    base_url: {base_url}"]
    return "\n".join([*lines, "    model: tiny", *extra]) + "\n"


def test_plain_http_to_another_host_is_refused_unless_allowed(userdir: Path) -> None:
    path = write(
        userdir / "providers.yaml", "providers:\n" + entry("far", "http://10.1.2.3:8080/v1")
    )
    with pytest.raises(
        ConfigError, match=r"providers.yaml: line 4: .*plain http to a host that is not"
    ):
        ProviderRegistry.load(None)
    path.write_text(
        "providers:\n"
        + entry("far", "http://10.1.2.3:8080/v1", "    allow_plain_http: true")
        + entry("tls", "https://llm.example.com/v1"),
        encoding="utf-8",
    )
    reg = ProviderRegistry.load(None)
    assert reg.specs["far"].allow_plain_http and reg.status("tls") == "installed"


def test_an_http_entry_needs_its_url_and_model(userdir: Path) -> None:
    write(
        userdir / "providers.yaml",
        "providers:\n  - name: x\n    type: openai-compatible\n"
        "    base_url: http://127.0.0.1:1/v1\n",
    )
    with pytest.raises(ConfigError, match=r"providers\[0\]: needs 'model'"):
        ProviderRegistry.load(None)


def test_project_server_entries_wait_for_trust(isolated: Path) -> None:
    write(isolated / "providers.yaml", "providers:\n" + entry("local", "http://127.0.0.1:9/v1"))
    reg = ProviderRegistry.load(isolated)
    with pytest.raises(UntrustedProvider):
        reg.get("local")
    assert code(run("trust", "--yes")) == 0
    assert isinstance(ProviderRegistry.load(isolated).get("local"), OpenAICompatibleProvider)


@pytest.mark.slow
def test_a_turn_through_the_server_is_recorded_without_the_key(
    userdir: Path, isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_KEY", "sk-never-in-files")
    answer = '{"comment": "Local model says: ship it behind a flag.", "vote": "READY"}'
    with serve(
        StubServer(answer=answer, usage={"prompt_tokens": 900, "completion_tokens": 20})
    ) as stub:
        write(
            userdir / "providers.yaml",
            "providers:\n" + entry("local", stub.base_url, "    api_key_env: STUB_KEY"),
        )
        assert code(run("new", "Rollout")) == 0
        r = run("turn", "rollout.md", "--provider", "local")
        assert code(r) == 0, out(r)
        listing = out(run("providers", "list"))
    path = isolated / "discussions" / "rollout.md"
    text = path.read_text(encoding="utf-8")
    assert "sk-never-in-files" not in text and "sk-never-in-files" not in listing
    assert f"{stub.base_url} (model tiny, key from $STUB_KEY)" in listing
    answers = [c for c in Discussion.load(path).comments if c.meta.get("provider") == "local"]
    assert answers and answers[0].meta["tokens"] == "900 in / 20 out"
    assert "ship it behind a flag" in answers[0].body


@pytest.mark.slow
def test_a_failed_server_falls_back_along_the_chain(userdir: Path, isolated: Path) -> None:
    with serve(StubServer(mode="error")) as stub:
        write(userdir / "providers.yaml", "providers:\n" + entry("local", stub.base_url))
        write(isolated / "discussions.yaml", "providers:\n  default: local\n  fallback: [mock]\n")
        assert code(run("new", "Rollout")) == 0
        assert code(run("turn", "rollout.md")) == 0
    d = Discussion.load(isolated / "discussions" / "rollout.md")
    fell = [c for c in d.comments if c.meta.get("provider") == "mock"]
    assert fell and "local (the server answered HTTP 400 Bad Request" in fell[0].meta["failed"]


def small_window_server(stub: StubServer, userdir: Path) -> None:
    write(userdir / "providers.yaml", "providers:\n" + entry("local", stub.base_url))


@pytest.mark.slow
def test_deep_test_sends_a_real_size_prompt_and_fails_a_model_too_small(
    userdir: Path,
) -> None:
    small = StubServer(window=512, props={"default_generation_settings": {"n_ctx": 512}})
    with serve(small) as stub:
        small_window_server(stub, userdir)
        started = time.monotonic()
        r = run("providers", "test", "local", "--deep", "--json")
        elapsed = time.monotonic() - started
    assert code(r) == 1, out(r)
    data = json.loads(out(r))
    posts = [q for q in stub.requests if q["method"] == "POST"]
    sent = posts[-1]["body"]["messages"][0]["content"]
    # A real prompt as the engine builds it for a long discussion (the state and the newest
    # comments: a round's size), not 30 tokens.
    assert data["prompt"]["chars"] == len(sent) > 3_000
    assert "## Response format" in sent and "<discussion>" in sent
    assert data["context_window"] == 512 and data["fits"] is False
    assert data["prompt_tokens_counted"] is False and data["prompt_tokens"] > 1_000
    assert "HTTP 400" in data["error"] and data["answer"] == ""
    assert 0 < data["seconds"] <= elapsed


@pytest.mark.slow
def test_deep_test_passes_a_model_whose_window_holds_the_prompt(userdir: Path) -> None:
    answer = '{"comment": "Ready from here.", "vote": "READY"}'
    big = StubServer(
        answer=answer,
        usage={"prompt_tokens": 11_000, "completion_tokens": 12},
        props={"default_generation_settings": {"n_ctx": 32_768}},
    )
    with serve(big) as stub:
        small_window_server(stub, userdir)
        r = run("providers", "test", "local", "--deep")
    assert code(r) == 0, out(r)
    text = out(r)
    assert "11,000 prompt tokens (counted by the provider) fit the context window of 32,768" in text
    assert "Parsed as a discussion answer: yes" in text
    assert "tokens: 11000 in / 12 out" in text


@pytest.mark.slow
def test_ctrl_c_ends_a_call_in_progress_at_once() -> None:
    import threading

    from discussions.providers.command import terminate_all

    outcome: list[BaseException] = []

    def call() -> None:
        try:
            ask(p, timeout=30)
        except Exception as exc:  # noqa: BLE001 - the test looks at it
            outcome.append(exc)

    with serve(StubServer(mode="hang")) as stub:
        p = provider(stub)
        worker = threading.Thread(target=call)
        worker.start()
        wait_for(lambda: any(q["method"] == "POST" for q in stub.requests), message="the call")
        assert terminate_all() == 1
        worker.join(30)  # the call would run 30 s to its timeout, the server hanging 30 s
        assert not worker.is_alive() and not stub.outlasted.is_set()
    assert outcome and not isinstance(outcome[0], ProviderTimeout)


@pytest.mark.slow
def test_deep_test_counts_the_answers_room_against_the_window(userdir: Path) -> None:
    answer = '{"comment": "Ready.", "vote": "READY"}'
    tight = StubServer(answer=answer, usage={"prompt_tokens": 1_900, "completion_tokens": 3})
    with serve(tight) as stub:
        write(
            userdir / "providers.yaml",
            "providers:\n"
            + entry("local", stub.base_url, "    context_window: 2048", "    max_tokens: 300"),
        )
        r = run("providers", "test", "local", "--deep", "--json")
    assert code(r) == 1, out(r)
    data = json.loads(out(r))
    assert data["prompt_tokens"] == 1_900 and data["answer_tokens_reserved"] == 300
    assert data["fits"] is False and data["error"] is None


@pytest.mark.slow
@pytest.mark.parametrize("before", ["invalid api key ", "x" * 395])
def test_a_key_echoed_in_a_streamed_error_is_blanked(
    monkeypatch: pytest.MonkeyPatch, before: str
) -> None:
    """The error's detail becomes the cause in a FAILED block, which is committed; not even
    the start of the key is left where the message is shortened."""
    monkeypatch.setenv("STUB_KEY", "sk-echoed-456")
    stub = StubServer(mode="stream-error", error_message=before + "sk-echoed-456")
    with serve(stub), pytest.raises(ProviderFailed) as err:
        ask(provider(stub, api_key_env="STUB_KEY"))
    assert "sk-ech" not in str(err.value) + err.value.detail
    assert err.value.detail.startswith(before.strip())


def test_trust_and_the_listing_name_the_key_a_server_entry_sends(isolated: Path) -> None:
    """Trusting a project's server entry sends the variable it names to that server: the
    review shows which variable, not only the address."""
    key = "    api_key_env: GH_TOKEN"
    write(
        isolated / "providers.yaml",
        "providers:\n" + entry("helper", "https://models.example.net/v1", key),
    )
    from click.testing import CliRunner

    from discussions.cli import cli

    review = CliRunner().invoke(cli, ["trust"], input="n\n")
    assert "GH_TOKEN" in out(review)
    listed = out(run("providers", "list"))
    assert "GH_TOKEN" in [line for line in listed.splitlines() if "helper" in line][0]


ECHOED = "sk-echo-789-abcdef"
"""A key a hostile or careless server repeats in its answer (18 characters: in the stream
mode's 5-character pieces it arrives split across four events)."""


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["stream", "json"])
def test_a_key_echoed_in_the_answer_is_blanked_before_anything_sees_it(
    monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """The text the call returns and every piece streamed to the display: never the key, not
    even the part of it one event carries."""
    monkeypatch.setenv("STUB_KEY", ECHOED)
    pieces: list[str] = []
    stub = StubServer(mode=mode, answer=f"Your key is {ECHOED}, keep it.\nVOTE: READY")
    with serve(stub):
        done = ask(provider(stub, api_key_env="STUB_KEY"), on_output=pieces.append)
    assert done.text == "Your key is ***, keep it.\nVOTE: READY"
    assert ECHOED not in "".join(pieces)
    assert not any(ECHOED[3:9] in p or ECHOED[-6:] in p for p in pieces), pieces
    if mode == "stream":
        assert "".join(pieces) == done.text and len(pieces) > 3


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["stream", "json"])
@pytest.mark.parametrize("placeholder", ["ollama", "lm-studio", "EMPTY", "x"])
def test_a_placeholder_key_a_local_server_ignores_leaves_the_answer_whole(
    monkeypatch: pytest.MonkeyPatch, mode: str, placeholder: str
) -> None:
    """Local servers take any key and their guides give a word (Ollama's ``ollama``, LM
    Studio's ``lm-studio``, vLLM's ``EMPTY``): no secret, and blanking it would turn every
    mention of the tool (or every letter x) in the answer into ``***``."""
    monkeypatch.setenv("STUB_KEY", placeholder)
    answer = "Run ollama or lm-studio; EMPTY is fine, x too.\nVOTE: READY"
    stub = StubServer(mode=mode, answer=answer)
    with serve(stub):
        done = ask(provider(stub, api_key_env="STUB_KEY"))
    assert done.text == answer


@pytest.mark.slow
def test_a_key_with_a_line_break_is_sent_trimmed_or_refused_without_showing_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A key read from a file edited on Windows ends in ``\\r``: http.client refused the
    header with a ValueError holding the whole key (a traceback, or a failure recorded in the
    discussion). Around the key, white space is trimmed; inside it, the call fails, naming the
    variable only."""
    key = "sk-live-abcdefghijklmnop"
    monkeypatch.setenv("STUB_KEY", key + "\r\n")
    with serve() as stub:
        assert ask(provider(stub, api_key_env="STUB_KEY")).text.startswith("Hello")
    monkeypatch.setenv("STUB_KEY", key + "\nsk-other-key-0123456789")
    with serve() as stub, pytest.raises(ProviderFailed) as err:
        ask(provider(stub, api_key_env="STUB_KEY"))
    assert "STUB_KEY" in str(err.value) and "sk-" not in str(err.value) + err.value.detail


@pytest.mark.slow
def test_a_key_echoed_in_an_error_body_is_blanked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_KEY", ECHOED)
    stub = StubServer(mode="error", error_body=f"invalid api key {ECHOED} for this model")
    with serve(stub), pytest.raises(ProviderFailed) as err:
        ask(provider(stub, api_key_env="STUB_KEY"))
    assert ECHOED[:6] not in str(err.value) + err.value.detail
    assert "invalid api key *** for this model" in err.value.detail


@pytest.mark.slow
def test_a_key_echoed_in_a_streamed_answer_is_never_written(
    userdir: Path, isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the command: the comment, the record around it and what the command printed
    (the streamed answer included)."""
    monkeypatch.setenv("STUB_KEY", ECHOED)
    answer = json.dumps({"comment": f"Echo: {ECHOED} (as sent).", "vote": "READY"})
    with serve(StubServer(answer=answer)) as stub:
        write(
            userdir / "providers.yaml",
            "providers:\n" + entry("local", stub.base_url, "    api_key_env: STUB_KEY"),
        )
        assert code(run("new", "Rollout")) == 0
        r = run("turn", "rollout.md", "--provider", "local")
        assert code(r) == 0, out(r)
    path = isolated / "discussions" / "rollout.md"
    written = path.read_text(encoding="utf-8") + out(r)
    assert ECHOED[:6] not in written and ECHOED[-6:] not in written
    answers = [c for c in Discussion.load(path).comments if c.meta.get("provider") == "local"]
    assert answers and all("Echo: *** (as sent)." in c.body for c in answers)


@pytest.mark.slow
def test_a_call_stopped_as_it_connects_ends_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C landing after a call connected but before `terminate_all` could see its
    connection (a turn's thread between the two): the call ends all the same, instead of
    waiting out the server (it ran to its timeout while the run waited for it)."""
    import http.client

    from discussions.providers.command import terminate_all

    connect = http.client.HTTPConnection.connect

    def stop_there(self: http.client.HTTPConnection) -> None:
        connect(self)
        terminate_all()

    with serve(StubServer(mode="hang")) as stub:
        p = provider(stub)
        monkeypatch.setattr(http.client.HTTPConnection, "connect", stop_there)
        with pytest.raises(ProviderError) as err:
            ask(p, timeout=20)
        assert not isinstance(err.value, ProviderTimeout)
        assert not stub.outlasted.is_set()
