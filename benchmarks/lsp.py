"""Benchmarks for `discussions lsp`: figures printed beside their targets, nothing asserted.

    PYTHONPATH=src python benchmarks/lsp.py [--repeat N] [--comments N] [--baseline SRC]

* start-up: spawning ``python -m discussions lsp`` until its answer to ``initialize`` arrives
  and ``initialized`` is sent (target: under 0.5 s; the server answers before it loads pygls,
  see ``discussions/lsp/handshake.py``), beside bare ``python -c pass`` and ``python -c
  "import pygls.lsp.server"`` measured back to back; and spawning until the diagnostics of a
  small discussion opened right after ``initialized`` arrive (target: under 0.5 s; they are
  sent before pygls is loaded, see ``discussions/lsp/early.py``), beside ``discussions check``
  of the same file.
* where a start's time goes: importing ``lsprotocol.types`` (some 570 attrs classes, whose
  methods attrs compiles), pygls's server, the modules that check a discussion, and the
  first check of the small file in this process.
* the editor on a 2,000-comment file (issue 36's row; its AIs' comments signed as the engine
  writes them: unsigned, each is a problem `check` reports, some 1,300 diagnostics in every
  publication that an older tree did not report): from sending ``didOpen`` to the
  ``publishDiagnostics`` of that version (target: under 0.5 s), and from sending
  ``didChange`` (a line typed in the last comment) to the ``publishDiagnostics`` of that
  version (target: under 50 ms). The server runs with ``--debounce 0``: the figure is
  measured from the moment the debounce (0.15 s of quiet by default) fires, and leaves the
  quiet itself out; it includes this client's decoding of the diagnostics. Also: the same
  for a line typed in the first comment (every comment below moves, and is parsed again);
  the same edit sent as the whole text (full document sync) rather than the changed range.
  With ``--baseline SRC`` (the ``src`` of another tree, say a worktree of main), each round
  runs these for that tree's server and then for this one's, back to back.
* the work of one edit in this process, stage by stage, by the server's own methods (apply
  the change, `DiscussionsServer.buffer`, `DiscussionsServer.publication`, the encoding by
  its converter), and this benchmark's client decoding the diagnostics (part of the figures
  above, not the server's work): what the two processes' messages and scheduling leave out.

min / median / max of repeats, in one run on one machine, with the load before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import generate  # noqa: E402

PY = sys.executable
WORK = Path(tempfile.mkdtemp(prefix="discussions-bench-lsp-"))
SRC = Path(__file__).resolve().parent.parent / "src"
ENV = dict(os.environ, DISCUSSIONS_HOME=str(WORK / "userdir"), NO_COLOR="1")
ENV["XDG_CACHE_HOME"] = str(WORK / "cache")  # the derived-summary cache: this run's own
ENV.pop("PYTHONDONTWRITEBYTECODE", None)


ENV["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))
SERVER = ["-m", "discussions", "lsp", "--debounce", "0"]


def env_for(src: Path) -> dict[str, str]:
    """`ENV`, but the package imported from `src` alone (a baseline's tree)."""
    return dict(ENV, PYTHONPATH=str(src))


def wall(*args: str, check: bool = True) -> float:
    t = time.perf_counter()
    subprocess.run([PY, *args], cwd=WORK, env=ENV, capture_output=True, check=check)
    return time.perf_counter() - t


async def start(env: dict[str, str] = ENV) -> tuple[LanguageClient, float]:
    """A client with its server initialized, and the time from spawn to `initialized`."""
    client = LanguageClient("bench", "1")
    t = time.perf_counter()
    await client.start_io(PY, *SERVER, cwd=str(WORK), env=env)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(WORK))
        )
    )
    client.initialized(types.InitializedParams())
    return client, time.perf_counter() - t


async def stop(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


async def to_initialized() -> float:
    client, took = await start()
    await stop(client)
    return took


async def first_diagnostics(path: Path) -> float:
    """From spawning the server to the diagnostics of `path`, opened once initialized."""
    t = time.perf_counter()
    client, _ = await start()
    published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()
    client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(
        lambda params: published.put_nowait(params)
    )
    client.feature("discussions/status")(lambda params: None)
    uri = from_fs_path(str(path)) or ""
    item = types.TextDocumentItem(uri, "markdown", 1, path.read_text(encoding="utf-8"))
    client.text_document_did_open(types.DidOpenTextDocumentParams(item))
    await _version(published, 1)
    took = time.perf_counter() - t
    await stop(client)
    return took


async def edits(
    path: Path, repeat: int, line: int, whole: bool = False, env: dict[str, str] = ENV
) -> tuple[float, list[float]]:
    """The time to the first diagnostics on open, and to each after an edit at 0-based
    `line` (negative: from the end); each edit adds a line, so every comment below moves.
    `whole`: each change sends the whole text (full document sync). `env`: the server's."""
    client, _ = await start(env)
    published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()
    client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(
        lambda params: published.put_nowait(params)
    )
    client.feature("discussions/status")(lambda params: None)
    uri = from_fs_path(str(path)) or ""
    text = path.read_text(encoding="utf-8")
    t = time.perf_counter()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "markdown", 1, text))
    )
    await _version(published, 1)
    opened = time.perf_counter() - t
    lines = text.split("\n")
    at = types.Position(line % len(lines), 0)
    times: list[float] = []
    for version in range(2, repeat + 2):
        typed = f"word{version} @securty\n"
        lines.insert(at.line, typed[:-1])
        change: types.TextDocumentContentChangeEvent = (
            types.TextDocumentContentChangeWholeDocument("\n".join(lines))
            if whole
            else types.TextDocumentContentChangePartial(range=types.Range(at, at), text=typed)
        )
        t = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version, uri), [change]
            )
        )
        params = await _version(published, version)
        times.append(time.perf_counter() - t)
        assert any("securty" in d.message for d in params.diagnostics)
    await stop(client)
    return opened, times


async def _version(
    published: asyncio.Queue[types.PublishDiagnosticsParams], version: int
) -> types.PublishDiagnosticsParams:
    while True:
        params = await asyncio.wait_for(published.get(), 60)
        if params.version == version:
            return params


STAGES = (
    "apply the change",
    "check (analyse)",
    "diagnostics and status",
    "JSON of both",
    "the client decoding the diagnostics",
)


def in_process(path: Path, repeat: int) -> list[list[float]]:
    """The server's work for one edit, without the protocol, stage by stage (`STAGES`): the
    server's own methods (a `DiscussionsServer`, initialized in this process): the change
    applied to its document, its `buffer` (the check), its `publication` (the diagnostics in
    the client's units and the status), the two notifications encoded as pygls does (by its converter)."""
    from pygls.protocol import default_converter

    from discussions.lsp.features import build

    server = build(debounce=0)
    init = types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(WORK))
    )
    for handler, args, _ in server.protocol.lsp_initialize(init):  # its own handler too
        handler(*args)
    converter = server.make_converter()  # as the server's protocol encodes
    client = default_converter()  # as this benchmark's client decodes
    uri = from_fs_path(str(path)) or ""
    text = path.read_text(encoding="utf-8")
    server.workspace.put_text_document(types.TextDocumentItem(uri, "markdown", 1, text))
    server.publication(uri)
    at = types.Position(len(text.split("\n")) - 3, 0)
    stages: list[list[float]] = [[] for _ in STAGES]
    for version in range(2, repeat + 2):
        marks = [time.perf_counter()]
        change = types.TextDocumentContentChangePartial(
            range=types.Range(at, at), text=f"word{version} @securty\n"
        )
        server.workspace.update_text_document(
            types.VersionedTextDocumentIdentifier(version, uri), change
        )
        marks.append(time.perf_counter())
        server.buffer(uri)
        marks.append(time.perf_counter())
        status, params = server.publication(uri)
        marks.append(time.perf_counter())
        body = json.dumps(converter.unstructure(params))
        json.dumps(status)
        marks.append(time.perf_counter())
        client.structure(json.loads(body), types.PublishDiagnosticsParams)
        marks.append(time.perf_counter())
        assert any("securty" in d.message for d in params.diagnostics)
        for i, (a, z) in enumerate(zip(marks, marks[1:], strict=False)):
            stages[i].append(z - a)
    return stages


def first_check(path: Path, repeat: int) -> list[float]:
    """The first `analyse` of `path` in a fresh interpreter, each time (what the server does
    on open, its modules already imported)."""
    code = (
        "import sys, time; from pathlib import Path; "
        "from discussions.lsp.buffer import analyse; "
        "from discussions.settings.workspace import Workspace; "
        "p = Path(sys.argv[1]); t = time.perf_counter(); "
        "analyse(Workspace.discover(), p, p.read_text(encoding='utf-8')); "
        "print(time.perf_counter() - t)"
    )
    out = []
    for _ in range(repeat):
        done = subprocess.run(
            [PY, "-c", code, str(path)], cwd=WORK, env=ENV, capture_output=True, check=True
        )
        out.append(float(done.stdout))
    return out


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms"


EDITOR_ROWS = {
    "diagnostics on open": "  (target < 500 ms)",
    "diagnostics after an edit in the last comment": "  (target < 50 ms)",
    "an edit in the first comment": "",
    "the edit in the last comment sent as the whole text": "",
}


def editor_rows(
    path: Path, n: int, trees: dict[str, dict[str, str]]
) -> dict[str, dict[str, list[float]]]:
    """Each of `EDITOR_ROWS` for the server of each tree (its environment), the trees taking
    turns round by round (`n` rounds of 10 edits each)."""
    rows: dict[str, dict[str, list[float]]] = {t: {r: [] for r in EDITOR_ROWS} for t in trees}
    names = list(EDITOR_ROWS)
    for _ in range(n):
        for tree, env in trees.items():
            got = rows[tree]
            opened, last = asyncio.run(edits(path, 10, -3, env=env))
            opened_top, top = asyncio.run(edits(path, 10, 18, env=env))
            _, whole = asyncio.run(edits(path, 10, -3, whole=True, env=env))
            got[names[0]] += [opened, opened_top]
            got[names[1]] += last
            got[names[2]] += top
            got[names[3]] += whole
    return rows


def spread(values: list[float], digits: int = 0) -> str:
    """min / median / max of `values` (seconds), in ms."""
    shown = (min(values), statistics.median(values), max(values))
    return " / ".join(f"{v * 1000:.{digits}f}" for v in shown) + f"  (n={len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--comments", type=int, default=2000)
    parser.add_argument(
        "--baseline",
        type=Path,
        help="the src folder of another tree (a worktree of main): the editor's rows are "
        "measured for it too, round by round with this tree's",
    )
    args = parser.parse_args()
    n = args.repeat
    path = WORK / "discussions" / "big.md"
    path.parent.mkdir(parents=True)
    generate(path, args.comments, signed=True)  # as the engine writes: no forgery problems
    wall("-m", "discussions", "--version")  # warm the bytecode caches
    python = [wall("-c", "pass") for _ in range(n)]
    pygls = [wall("-c", "import pygls.lsp.server") for _ in range(n)]
    init = [asyncio.run(to_initialized()) for _ in range(n)]
    small = WORK / "discussions" / "small.md"
    generate(small, 5, signed=True)
    ready = [asyncio.run(first_diagnostics(small)) for _ in range(n)]
    check = [wall("-m", "discussions", "check", str(small), check=False) for _ in range(n)]
    parts = {
        "import lsprotocol.types": "import lsprotocol.types",
        "import pygls.lsp.server": "import pygls.lsp.server",
        "import the check (lsp.buffer)": "import discussions.lsp.buffer",
    }
    imports = {name: [wall("-c", code) for _ in range(n)] for name, code in parts.items()}
    first = first_check(small, n)
    print(f"load: {os.getloadavg()[0]:.2f} (1 min)")
    print(f"python -c pass:                          {ms(python)}")
    print(f"python -c 'import pygls.lsp.server':     {ms(pygls)}")
    print(f"discussions lsp, spawn to initialized:   {ms(init)}  (target < 500 ms)")
    print(f"  spawn to a small file's diagnostics:   {ms(ready)}  (target < 500 ms)")
    print(f"  discussions check of that file:        {ms(check)}")
    print("where a start's time goes (python -c, each including the interpreter's start):")
    for name, values in imports.items():
        print(f"  {name + ':':<37} {ms(values)}")
    print(f"  the first check of the file, in process: {ms(first)}")
    trees = {"before": env_for(args.baseline)} if args.baseline else {}
    trees["after" if args.baseline else "this tree"] = ENV
    rows = editor_rows(path, n, trees)
    print(f"load: {os.getloadavg()[0]:.2f} (1 min)")
    print(f"the editor, {args.comments} comments: min / median / max in ms (the server runs")
    print("with --debounce 0: from the moment the debounce fires, the quiet itself left out)")
    if args.baseline:
        print(f"  before: {args.baseline}; after: {SRC}; each round runs both, back to back")
    for name, target in EDITOR_ROWS.items():
        print(f"  {name}{target}")
        for tree in trees:
            print(f"    {tree + ':':<12} {spread(rows[tree][name])}")
        if args.baseline:
            after, before = (statistics.median(rows[t][name]) for t in ("after", "before"))
            print(f"    after/before: {after / before:.3f} (medians)")
    stages = in_process(path, max(n, 10))
    total = [sum(each) for each in zip(*stages, strict=True)]
    print(f"  the same work in this process (this tree): {spread(total)}")
    for name, values in zip(STAGES, stages, strict=True):
        print(f"    {name + ':':<36} {spread(values, 1)}")
    print(f"load: {os.getloadavg()[0]:.2f} (1 min)")


if __name__ == "__main__":
    main()
