"""The ``anthropic`` and ``gemini`` provider kinds against servers on loopback that speak each
API (tests/support/hosted_stub.py), and the keys they send (``api_key_env``,
``api_key_command`` cached for ``api_key_ttl``): never in a file, an output or an error."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from discussions.errors import ConfigError, ProviderFailed, UntrustedProvider
from discussions.model.discussion import Discussion
from discussions.providers import ProviderRegistry, ProviderRequest, ProviderSpec
from discussions.providers.api_keys import forget_keys
from discussions.providers.base import Completion, complete_with_usage
from discussions.providers.hosted_apis import AnthropicProvider, GeminiProvider
from discussions.providers.usage import Usage

from ..conftest import code, out, run, write
from ..support.hosted_stub import HostedStub, serve_hosted

KEY = "sk-hosted-secret-0123456789"


@pytest.fixture(autouse=True)
def no_cached_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    forget_keys()
    monkeypatch.setenv("HOSTED_KEY", KEY)


def hosted(stub: HostedStub, **fields: object) -> AnthropicProvider | GeminiProvider:
    values: dict[str, object] = {"base_url": stub.base_url, "model": "m-1"}
    values.update({"api_key_env": "HOSTED_KEY", **fields})
    spec = ProviderSpec(name="api", command=None, type=stub.api, **values)  # type: ignore[arg-type]
    return AnthropicProvider(spec) if stub.api == "anthropic" else GeminiProvider(spec)


def ask(provider: object, pieces: list[str] | None = None) -> Completion:
    request = ProviderRequest(
        prompt="Say hello", timeout=10, on_output=pieces.append if pieces is not None else None
    )
    return complete_with_usage(provider, request)  # type: ignore[arg-type]


def test_anthropic_streamed_answer_usage_and_request() -> None:
    pieces: list[str] = []
    with serve_hosted(HostedStub()) as stub:
        done = ask(hosted(stub), pieces)
    assert done.text == "Hello from the hosted stub.\nVOTE: READY"
    assert pieces == ["Hello ", "from the ", "hosted stub.\nVOTE: READY"]
    # input: fresh + cache reads (message_start); output: the last running total (9, not 5+9)
    assert done.usage == Usage(42, 9, None, "claude-stub") and done.length_cut == ""
    sent = stub.requests[-1]
    assert sent["path"] == "/v1/messages"
    assert (
        sent["headers"]["x-api-key"] == KEY and sent["headers"]["anthropic-version"] == "2023-06-01"
    )
    assert "Authorization" not in sent["headers"]
    assert sent["body"] == {
        "model": "m-1",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": "Say hello"}],
        "stream": True,
    }


def test_anthropic_one_object_and_the_token_limit() -> None:
    with serve_hosted(HostedStub(cut=True)) as stub:
        done = ask(hosted(stub, stream=False, max_tokens=300))
    assert done.text == "Hello from the hosted stub.\nVOTE: READY"
    assert done.usage == Usage(42, 9, None, "claude-stub")
    assert done.length_cut == "max_tokens 300"
    assert (
        stub.requests[-1]["body"]["max_tokens"] == 300
        and stub.requests[-1]["body"]["stream"] is False
    )


def test_gemini_streamed_answer_usage_and_request() -> None:
    pieces: list[str] = []
    with serve_hosted(HostedStub(api="gemini", cut=True)) as stub:
        done = ask(hosted(stub, max_tokens=200), pieces)
    assert done.text == "Hello from the hosted stub.\nVOTE: READY"  # the thought part left out
    assert pieces == ["Hello ", "from the ", "hosted stub.\nVOTE: READY"]
    assert done.usage == Usage(40, 8 + 4, None, "gemini-stub")  # candidates + thoughts
    assert done.length_cut == "max_tokens 200"
    sent = stub.requests[-1]
    assert sent["path"] == "/v1beta/models/m-1:streamGenerateContent?alt=sse"
    assert sent["headers"]["x-goog-api-key"] == KEY and "key=" not in sent["path"]
    assert sent["body"] == {
        "contents": [{"role": "user", "parts": [{"text": "Say hello"}]}],
        "generationConfig": {"maxOutputTokens": 200},
    }


def test_gemini_one_object() -> None:
    with serve_hosted(HostedStub(api="gemini")) as stub:
        done = ask(hosted(stub, stream=False))
    assert done.text == "Hello from the hosted stub.\nVOTE: READY"
    assert done.usage == Usage(40, 12, None, "gemini-stub") and done.length_cut == ""
    assert stub.requests[-1]["path"] == "/v1beta/models/m-1:generateContent"


@pytest.mark.parametrize("api", ["anthropic", "gemini"])
@pytest.mark.parametrize(
    ("status", "reason"),
    [
        (401, "HTTP 401 Unauthorized"),
        (429, "HTTP 429 Too Many Requests"),
        (500, "HTTP 500 Internal Server Error"),
    ],
)
def test_http_errors_are_shown_clearly_and_never_with_the_key(
    api: str, status: int, reason: str
) -> None:
    message = f"request refused for key {KEY}"  # a server that repeats the key
    stub = HostedStub(api=api, status=status, error_message=message)
    with serve_hosted(stub), pytest.raises(ProviderFailed) as err:
        ask(hosted(stub))
    key_hint = "; check the key from $HOSTED_KEY" if status == 401 else ""
    assert err.value.reason == f"the server answered {reason}{key_hint}"
    assert err.value.detail == "request refused for key ***"
    assert KEY not in str(err.value) + err.value.detail


@pytest.mark.parametrize("api", ["anthropic", "gemini"])
def test_an_error_event_in_the_stream_fails_the_call(api: str) -> None:
    with (
        serve_hosted(HostedStub(api=api, stream_error=True)) as stub,
        pytest.raises(ProviderFailed) as err,
    ):
        ask(hosted(stub))
    assert err.value.reason == "the server reported an error"
    assert err.value.detail in ("Overloaded", "The model is overloaded.")


def helper(tmp_path: Path, token: str, *, fail: bool = False) -> str:
    """A key helper: prints `token` (and counts its runs in a file), or fails after printing
    it to both streams."""
    script = tmp_path / "keyhelper.py"
    counter = tmp_path / "runs"
    script.write_text(
        "import sys, pathlib\n"
        f"p = pathlib.Path({str(counter)!r}); p.write_text(str(int(p.read_text() or 0) + 1) if p.exists() else '1')\n"
        f"print({token!r}); print({token!r}, file=sys.stderr)\n"
        f"sys.exit({1 if fail else 0})\n",
        encoding="utf-8",
    )
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def runs(tmp_path: Path) -> int:
    return int((tmp_path / "runs").read_text())


@pytest.mark.parametrize("api", ["anthropic", "gemini"])
def test_a_key_command_is_run_once_within_its_ttl(tmp_path: Path, api: str) -> None:
    command = helper(tmp_path, "tok-from-helper-abcdef")
    with serve_hosted(HostedStub(api=api)) as stub:
        for _ in range(3):
            ask(hosted(stub, api_key_env="", api_key_command=command, api_key_ttl=600))
        header = "x-api-key" if api == "anthropic" else "x-goog-api-key"
        assert {r["headers"][header] for r in stub.requests} == {"tok-from-helper-abcdef"}
        assert runs(tmp_path) == 1
        ask(hosted(stub, api_key_env="", api_key_command=command, api_key_ttl=0))
        ask(hosted(stub, api_key_env="", api_key_command=command, api_key_ttl=0))
    assert runs(tmp_path) == 3  # a ttl of 0: asked every call


def test_a_failing_key_command_says_so_without_its_output(tmp_path: Path) -> None:
    command = helper(tmp_path, KEY, fail=True)
    with serve_hosted(HostedStub()) as stub, pytest.raises(ProviderFailed) as err:
        ask(hosted(stub, api_key_env="", api_key_command=command))
    assert "api_key_command exited with status 1" in str(err.value)
    assert KEY not in str(err.value) + err.value.detail and stub.requests == []


def entry(kind: str, name: str, url: str, *extra: str) -> str:
    lines = [f"  - name: {name}", f"    type: {kind}", f"    base_url: {url}", "    model: m-1"]
    return "\n".join([*lines, *extra]) + "\n"


def test_an_entry_without_a_way_to_the_key_is_refused(userdir: Path) -> None:
    write(
        userdir / "providers.yaml", "providers:\n  - name: c\n    type: anthropic\n    model: m\n"
    )
    with pytest.raises(
        ConfigError, match=r"providers\[0\]: needs api_key_env .* or api_key_command"
    ):
        ProviderRegistry.load(None)
    write(
        userdir / "providers.yaml",
        "providers:\n  - name: g\n    type: gemini\n    model: m\n    api_key_env: K\n",
    )
    reg = ProviderRegistry.load(None)
    assert reg.status("g") == "installed"
    assert isinstance(reg.get("g"), GeminiProvider)
    assert reg.get("g").address.display == "https://generativelanguage.googleapis.com/v1beta"  # type: ignore[attr-defined]


@pytest.mark.parametrize("api", ["anthropic", "gemini"])
def test_a_turn_records_tokens_and_never_the_key(userdir: Path, isolated: Path, api: str) -> None:
    answer = json.dumps({"comment": "The API says: ship it behind a flag.", "vote": "READY"})
    with serve_hosted(HostedStub(api=api, pieces=(answer[:20], answer[20:]))) as stub:
        write(
            userdir / "providers.yaml",
            "providers:\n" + entry(api, "hosted", stub.base_url, "    api_key_env: HOSTED_KEY"),
        )
        assert code(run("new", "Rollout")) == 0
        r = run("turn", "rollout.md", "--provider", "hosted", "--json")
        assert code(r) == 0, out(r)
        listing = out(run("providers", "list")) + out(run("providers", "list", "--json"))
    path = isolated / "discussions" / "rollout.md"
    text = path.read_text(encoding="utf-8")
    assert KEY not in text + out(r) + listing
    assert "key from $HOSTED_KEY" in listing
    answers = [c for c in Discussion.load(path).comments if c.meta.get("provider") == "hosted"]
    assert answers and "ship it behind a flag" in answers[0].body
    assert answers[0].meta["tokens"] == (
        "42 in / 9 out" if api == "anthropic" else "40 in / 9 out"  # 2 pieces: 5 + 4 thoughts
    )


@pytest.mark.parametrize("api", ["anthropic", "gemini"])
def test_a_failed_call_falls_back_along_the_chain_with_its_reason(
    userdir: Path, isolated: Path, api: str
) -> None:
    with serve_hosted(HostedStub(api=api, status=429, error_message=f"slow down {KEY}")) as stub:
        write(
            userdir / "providers.yaml",
            "providers:\n" + entry(api, "hosted", stub.base_url, "    api_key_env: HOSTED_KEY"),
        )
        write(isolated / "discussions.yaml", "providers:\n  default: hosted\n  fallback: [mock]\n")
        assert code(run("new", "Rollout")) == 0
        r = run("turn", "rollout.md")
        assert code(r) == 0, out(r)
    text = (isolated / "discussions" / "rollout.md").read_text(encoding="utf-8")
    d = Discussion.load(isolated / "discussions" / "rollout.md")
    fell = [c for c in d.comments if c.meta.get("provider") == "mock"]
    assert (
        fell and "hosted (the server answered HTTP 429 Too Many Requests" in fell[0].meta["failed"]
    )
    assert KEY not in text + out(r)


def test_a_project_key_command_waits_for_trust_and_trust_covers_its_script(
    isolated: Path, tmp_path: Path
) -> None:
    script = isolated / "tools" / "key.sh"
    write(script, "#!/bin/sh\necho tok-project-0123456789\n")
    script.chmod(0o755)
    write(
        isolated / "providers.yaml",
        "providers:\n"
        + entry(
            "anthropic", "hosted", "http://127.0.0.1:9/v1", "    api_key_command: ./tools/key.sh"
        ),
    )
    with pytest.raises(UntrustedProvider):
        ProviderRegistry.load(isolated).get("hosted")
    r = run("trust", "--yes")
    assert code(r) == 0 and "tools/key.sh" in out(r), out(r)
    assert isinstance(ProviderRegistry.load(isolated).get("hosted"), AnthropicProvider)
    script.write_text("#!/bin/sh\necho tok-changed-0123456789\n", encoding="utf-8")
    with pytest.raises(UntrustedProvider):
        ProviderRegistry.load(isolated).get("hosted")


def test_openai_compatible_takes_a_key_command_too(tmp_path: Path, userdir: Path) -> None:
    from ..support.openai_stub import serve

    command = helper(tmp_path, "tok-openai-0123456789")
    with serve() as stub:
        write(
            userdir / "providers.yaml",
            "providers:\n  - name: local\n    type: openai-compatible\n"
            f"    base_url: {stub.base_url}\n    model: tiny\n"
            f"    api_key_command: {json.dumps(command)}\n",
        )
        assert ask(ProviderRegistry.load(None).get("local")).text.startswith("Hello")
        listing = out(run("providers", "list"))
    assert stub.requests[-1]["headers"]["Authorization"] == "Bearer tok-openai-0123456789"
    assert "key from the command `" in listing and "tok-openai" not in listing


def test_show_says_what_an_http_provider_reaches_not_a_command(userdir: Path) -> None:
    write(
        userdir / "providers.yaml",
        "providers:\n"
        + entry(
            "gemini",
            "g",
            "http://127.0.0.1:9/v1beta",
            "    api_key_env: K",
            "    allow_plain_http: true",
        ),
    )
    shown = out(run("providers", "show", "g"))
    assert "Reaches: http://127.0.0.1:9/v1beta (model m-1, key from $K)" in shown, shown
    assert "Command:" not in shown


@pytest.mark.parametrize("api", ["anthropic", "gemini"])
def test_a_missing_key_reads_as_a_sentence_after_the_provider_name(
    userdir: Path, isolated: Path, api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The FAILED block's visible line puts the reason after the provider's name ("hosted
    exited with status 3" reads as a sentence; "hosted environment variable ... is not set"
    did not), naming the variable to set."""
    monkeypatch.delenv("HOSTED_KEY")
    with serve_hosted(HostedStub(api=api)) as stub:
        write(
            userdir / "providers.yaml",
            "providers:\n" + entry(api, "hosted", stub.base_url, "    api_key_env: HOSTED_KEY"),
        )
        write(isolated / "discussions.yaml", "providers:\n  fallback: []\n  detect: false\n")
        assert code(run("new", "Rollout")) == 0
        r = run("turn", "rollout.md", "@architect", "--provider", "hosted")
        assert code(r) == 1, out(r)
        assert not stub.requests
    text = (isolated / "discussions" / "rollout.md").read_text(encoding="utf-8")
    assert (
        "got no answer: hosted has no API key ($HOSTED_KEY, named by api_key_env, is not set)"
        in text
    )
