"""Discussions for the minority report's tests (`derive.dissent`): decided 3 READY / 1 REJECT
with an unanswered concern, decided unanimously, and decided by a motion with a NO ballot."""

from __future__ import annotations

from pathlib import Path

from ..conftest import sign_ai_comments, write

_HEAD = """
<!-- DISCUSSION -->
<!-- Title: Session store -->
<!-- Phase: initial_feedback -->
<!-- Status: DECIDED -->
<!-- Participants: architect, pragmatist, security, performance -->

# Session store

## Context
Sessions live in process memory and are lost on every deploy.

---
"""

SPLIT = (
    _HEAD
    + """
Name: AI-Architect
Move sessions to Redis behind the existing store interface.

DECISION: Store sessions in Redis with a 24h expiry.

VOTE: READY

---

Name: AI-Security
Redis holds the session tokens in clear text. Anyone with network access to it reads every
session. A third sentence that the reason leaves out.
CONCERN: Tokens stored unencrypted in Redis.

VOTE: REJECT

---

Name: AI-Pragmatist
Fine by me.

VOTE: READY

---

Name: AI-Performance
Latency stays under a millisecond.
CONCERN: Does the expiry sweep block the event loop?

VOTE: READY

---

Name: AI-Pragmatist
> Does the expiry sweep block the event loop?

No: Redis expires keys itself.

VOTE: READY

---
"""
)

UNANIMOUS = (
    _HEAD
    + """
Name: AI-Architect
DECISION: Store sessions in Redis with a 24h expiry.
CONCERN: Redis must be backed up.

VOTE: READY

---

Name: AI-Security
@architect backups are covered by the ops runbook.

VOTE: READY

---

Name: AI-Pragmatist
VOTE: READY

---

Name: AI-Performance
VOTE: READY

---
"""
)

MOTION = (
    _HEAD
    + """
Name: AI-Architect
MOTION: Store sessions in Redis with a 24h expiry.

---

Name: AI-Pragmatist
SECOND: yes

---

Name: AI-Architect
BALLOT: YES

---

Name: AI-Pragmatist
BALLOT: YES

---

Name: AI-Performance
BALLOT: YES

---

Name: AI-Security
Clear-text tokens in a shared cache are a breach waiting to happen.

BALLOT: NO

---
"""
)


def discussion_file(folder: Path, text: str, name: str = "sessions.md") -> Path:
    """`text` written (signed as the engine writes) to `folder/name`."""
    return write(folder / name, sign_ai_comments(text))
