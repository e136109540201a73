"""Local servers that serve one request at a time and small windows (llama.cpp,
llama-cpp-python): answers cut at ``max_tokens``, windows they do not report, calls queued on
one slot. Against a real HTTP server on loopback (tests/support/openai_stub.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from discussions.model.discussion import Discussion
from discussions.providers import ProviderRequest, ProviderSpec
from discussions.providers.base import complete_with_usage
from discussions.providers.openai_compat import OpenAICompatibleProvider, forget_windows

from ..conftest import code, out, run, write
from ..support.openai_stub import StubServer, serve


@pytest.fixture(autouse=True)
def fresh_windows() -> None:
    """Each stub is a new server, though the system may hand out a port again."""
    forget_windows()


def provider(stub: StubServer, **spec: object) -> OpenAICompatibleProvider:
    fields: dict[str, object] = {"base_url": stub.base_url, "model": "tiny"}
    fields.update(spec)
    return OpenAICompatibleProvider(
        ProviderSpec(name="local", command=None, type="openai-compatible", **fields)  # type: ignore[arg-type]
    )


def entry(name: str, base_url: str, *extra: str) -> str:
    lines = [f"  - name: {name}", "    type: openai-compatible", f"    base_url: {base_url}"]
    return "\n".join([*lines, "    model: tiny", *extra]) + "\n"


# -- answers cut at max_tokens (issue 34, item 9) ---------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["stream", "json"])
def test_an_answer_cut_at_max_tokens_says_so(mode: str) -> None:
    with serve(StubServer(mode=mode, finish_reason="length")) as stub:
        done = complete_with_usage(provider(stub, max_tokens=40), ProviderRequest(prompt="Hi"))
    assert done.length_cut


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["stream", "json"])
def test_an_answer_that_ended_on_its_own_is_not_cut(mode: str) -> None:
    with serve(StubServer(mode=mode)) as stub:
        done = complete_with_usage(provider(stub), ProviderRequest(prompt="Hi"))
    assert not done.length_cut


@pytest.mark.slow
def test_a_cut_answer_is_recorded_and_shown_as_cut(userdir: Path, isolated: Path) -> None:
    answer = json.dumps({"comment": "The limit should be per key, because", "vote": None})
    with serve(StubServer(mode="json", answer=answer, finish_reason="length")) as stub:
        write(
            userdir / "providers.yaml",
            "providers:\n" + entry("local", stub.base_url, "    max_tokens: 400"),
        )
        assert code(run("new", "Limits")) == 0
        turn = run("turn", "limits.md", "--provider", "local")
        assert code(turn) == 0, out(turn)
    path = isolated / "discussions" / "limits.md"
    answers = [c for c in Discussion.load(path).comments if c.meta.get("provider") == "local"]
    assert len(answers) == 3
    assert all(c.meta.get("cut") == "max_tokens 400" for c in answers)
    assert all("max_tokens" in c.body for c in answers)  # the reader sees it too
    assert "cut by the token limit" in out(turn)  # the summary of who answered how
    assert "cut at its token limit (max_tokens 400)" in out(turn)  # each participant's line
    status = out(run("status", "limits.md"))
    assert "3" in status and "token limit" in status


@pytest.mark.slow
def test_a_narrative_cut_at_max_tokens_says_so(userdir: Path, isolated: Path) -> None:
    answer = json.dumps({"comment": "The discussion is about limits and it", "vote": None})
    with serve(StubServer(mode="json", answer=answer, finish_reason="length")) as stub:
        write(
            userdir / "providers.yaml",
            "providers:\n" + entry("local", stub.base_url, "    max_tokens: 300"),
        )
        assert code(run("new", "Limits")) == 0
        r = run("summary", "limits.md", "--ai", "--stdout", "--provider", "local")
        assert code(r) == 0, out(r)
    assert "cut by the token limit (max_tokens 300)" in out(r)


# -- servers that serve one request at a time (issue 34, item 8) ------------------------------

LLAMA_CPP_PYTHON = {"/openapi.json": {"info": {"title": "🦙 llama.cpp Python API"}}}
"""What llama-cpp-python's server answers at GET /openapi.json (FastAPI's own), in part."""


@pytest.mark.slow
def test_llama_cpps_slots_are_read_from_props() -> None:
    props = {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1}
    with serve(StubServer(props=props)) as stub:
        p = provider(stub)
        assert (p.parallel, p.context_window) == (1, 4096)


@pytest.mark.slow
def test_llama_cpp_python_is_known_by_its_api_title() -> None:
    with serve(StubServer(routes=dict(LLAMA_CPP_PYTHON))) as stub:
        p = provider(stub)
        assert (p.parallel, p.context_window) == (1, 2048)
        assert "assumed" in p.window_source and "llama-cpp-python" in p.window_source


@pytest.mark.slow
def test_a_declared_limit_wins_and_a_remote_api_is_not_asked() -> None:
    with serve(StubServer(routes=dict(LLAMA_CPP_PYTHON))) as stub:
        assert provider(stub, parallel=2).parallel == 2
    far = ProviderSpec(
        name="far", command=None, type="openai-compatible", base_url="https://example.invalid/v1"
    )
    far.model = "big"
    assert OpenAICompatibleProvider(far).parallel is None  # asked nothing: no name lookup


def one_request_server(userdir: Path, stub: StubServer, *extra: str) -> None:
    write(
        userdir / "providers.yaml",
        "providers:\n" + entry("local", stub.base_url, "    timeout: 1.5", *extra),
    )


@pytest.mark.slow
@pytest.mark.parametrize("declared", [False, True])
def test_calls_to_a_one_request_server_wait_their_turn_and_are_timed_from_their_start(
    userdir: Path, isolated: Path, declared: bool
) -> None:
    """Three participants, a server that takes 0.6 s an answer, one at a time, and a timeout
    of 1.5 s: sent at once, the third would wait 1.2 s in the server's queue and time out."""
    answer = json.dumps({"comment": "Fine by me.", "vote": None})
    routes = {} if declared else dict(LLAMA_CPP_PYTHON)
    stub = StubServer(mode="json", answer=answer, one_at_a_time=0.6, routes=routes)
    with serve(stub):
        one_request_server(userdir, stub, *(["    parallel: 1"] if declared else []))
        assert code(run("new", "Queue")) == 0
        turn = run("turn", "queue.md", "--provider", "local")
    assert code(turn) == 0, out(turn)
    assert stub.most_at_once == 1
    path = isolated / "discussions" / "queue.md"
    answers = [c for c in Discussion.load(path).comments if c.meta.get("provider") == "local"]
    assert len(answers) == 3


@pytest.mark.slow
def test_an_abandoned_call_is_cancelled_by_closing_its_connection() -> None:
    from discussions.errors import ProviderTimeout

    with serve(StubServer(mode="generate")) as stub:
        with pytest.raises(ProviderTimeout):
            complete_with_usage(
                provider(stub, stream=False), ProviderRequest(prompt="Hi", timeout=0.5)
            )
        assert stub.disconnected.wait(10)


def test_waiting_calls_are_sent_away_when_the_calls_are_stopped() -> None:
    import threading

    from discussions.errors import ProviderFailed
    from discussions.providers.command import terminate_all
    from discussions.providers.slots import call_slot

    outcome: list[BaseException] = []
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with call_slot("local", "server", 1):
            holding.set()
            release.wait(10)

    def wait() -> None:
        try:
            with call_slot("local", "server", 1):
                outcome.append(AssertionError("started after the stop"))
        except ProviderFailed as exc:
            outcome.append(exc)

    first = threading.Thread(target=hold)
    first.start()
    assert holding.wait(10)
    second = threading.Thread(target=wait)
    second.start()
    give_up = time.monotonic() + 10
    while not terminate_all() and time.monotonic() < give_up:
        pass  # the second call is waiting once it is counted
    second.join(10)
    release.set()
    first.join(10)
    assert len(outcome) == 1 and isinstance(outcome[0], ProviderFailed)


# -- a window the server does not report (issue 34, item 7) -----------------------------------


@pytest.mark.slow
def test_a_server_that_reports_no_window_is_named_once_before_the_first_call(
    userdir: Path, isolated: Path
) -> None:
    answer = json.dumps({"comment": "Fine by me.", "vote": None})
    with serve(StubServer(mode="json", answer=answer)) as stub:
        write(userdir / "providers.yaml", "providers:\n" + entry("local", stub.base_url))
        assert code(run("new", "Window")) == 0
        turn = run("turn", "window.md", "--provider", "local")
        tested = run("providers", "test", "local")
    said = out(turn)
    assert code(turn) == 0, said
    assert said.count("does not report its context window") == 1
    assert said.index("does not report") < said.index("Invoking")  # before the first call
    assert "context_window: N (tokens) under local in providers.yaml" in said
    assert "does not report its context window" in out(tested)


@pytest.mark.slow
def test_llama_cpp_python_prompts_are_sized_for_its_default_window(
    userdir: Path, isolated: Path
) -> None:
    """The window llama-cpp-python serves unless told (2,048 tokens) bounds the prompt, and
    the user is told how to declare another."""
    from discussions.providers.window import prompt_tokens

    answer = json.dumps({"comment": "Fine by me.", "vote": None})
    stub = StubServer(mode="json", answer=answer, routes=dict(LLAMA_CPP_PYTHON))
    with serve(stub):
        write(userdir / "providers.yaml", "providers:\n" + entry("local", stub.base_url))
        assert code(run("new", "Window", "--context", "A proposal. " * 2000)) == 0
        turn = run("turn", "window.md", "--provider", "local")
    assert code(turn) == 0, out(turn)
    assert "prompts are sized for 2,048 tokens" in out(turn)
    chats = [q for q in stub.requests if q["path"] == "/v1/chat/completions"]
    prompts = [q["body"]["messages"][0]["content"] for q in chats]
    assert prompts and all(len(p) // 3 <= prompt_tokens(2048) for p in prompts)


COUNTING = """
import json, os, sys, time
folder = sys.argv[1]
mine = os.path.join(folder, str(os.getpid()))
open(mine, "w").close()
running = len([n for n in os.listdir(folder) if n.isdigit()])
with open(os.path.join(folder, "seen"), "a") as log:
    log.write(f"{running}\\n")
time.sleep(0.3)
os.remove(mine)
print(json.dumps({"comment": "Counted.", "vote": None}))
"""


@pytest.mark.slow
def test_a_command_declared_parallel_1_runs_once_at_a_time(
    isolated: Path,
    providers_file,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    import sys

    script, folder = tmp_path / "count.py", tmp_path / "running"
    script.write_text(COUNTING, encoding="utf-8")
    folder.mkdir()
    providers_file({"one": f"{sys.executable} {script} {folder}"}, one={"parallel": 1})
    assert code(run("new", "Count")) == 0
    turn = run("turn", "count.md", "--provider", "one")
    assert code(turn) == 0, out(turn)
    seen = (folder / "seen").read_text("utf-8").split()
    assert seen == ["1", "1", "1"]


LLAMA_CPP_PYTHON_REFUSAL = (
    "This model's maximum context length is 1024 tokens. However, you requested 2900 tokens "
    "(2500 in the messages, 400 in the completion). Please reduce the length of the messages "
    "or completion."
)
"""llama-cpp-python's answer to a prompt over its window (``server/errors.py``)."""


def test_a_refusal_that_states_the_window_teaches_it() -> None:
    from discussions.errors import ProviderFailed

    with serve(StubServer(mode="error", error_body=LLAMA_CPP_PYTHON_REFUSAL)) as stub:
        p = provider(stub)
        assert p.context_window is None
        with pytest.raises(ProviderFailed) as failed:
            complete_with_usage(p, ProviderRequest(prompt="Hi"))
        assert "declare context_window: 1024 under local" in failed.value.reason
        assert provider(stub).context_window == 1024  # the next prompts are sized for it
