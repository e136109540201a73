"""The parsed-YAML cache (settings.yamlcache): a command started after another one that read
the same settings, personas and templates neither parses nor imports YAML; a changed text is
parsed again whatever its file's timestamps say; the cache file is never trusted when it is
corrupt or was written by other parsing code; what a lookup gives may be changed freely."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
from pathlib import Path

import pytest

from discussions.errors import ConfigError
from discussions.settings.config import load_yaml_document
from discussions.settings.yamlcache import DocumentCache

from ..conftest import write

_PROBE = (
    "import sys\n"
    "from pathlib import Path\n"
    "from discussions.settings.config import load_yaml_document\n"
    "doc = load_yaml_document(Path(sys.argv[1]))\n"
    "print(repr(doc.data), doc.lines[('name',)], 'yaml' in sys.modules)\n"
)


def _load_in_new_process(path: Path) -> str:
    r = subprocess.run(
        [sys.executable, "-c", _PROBE, str(path)],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=True,
    )
    return r.stdout.strip()


def test_a_second_process_reads_the_same_yaml_without_importing_pyyaml(isolated: Path) -> None:
    persona = write(isolated / "p.yaml", "name: Alice\nrole: Reviewer\nlimits: [1, 2.5, true]\n")
    first = _load_in_new_process(persona)
    second = _load_in_new_process(persona)
    expected = "{'name': 'Alice', 'role': 'Reviewer', 'limits': [1, 2.5, True]} 1"
    assert first == f"{expected} True"
    assert second == f"{expected} False"


def test_a_changed_text_is_parsed_again_though_size_and_times_are_the_same(
    isolated: Path,
) -> None:
    path = write(isolated / "p.yaml", "name: Alice\n")
    stamp = path.stat()
    _load_in_new_process(path)
    path.write_text("name: Brian\n", encoding="utf-8")
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert _load_in_new_process(path) == "{'name': 'Brian'} 1 True"
    assert load_yaml_document(path).data == {"name": "Brian"}


def test_a_corrupt_or_foreign_cache_file_is_ignored(tmp_path: Path) -> None:
    file = tmp_path / "cache.marshal"
    cache = DocumentCache(lambda: file, lambda: "code 1")
    cache.put("a: 1\n", ({"a": 1}, {(): 1, ("a",): 1}))
    cache.save()
    assert DocumentCache(lambda: file, lambda: "code 1").get("a: 1\n") == (
        {"a": 1},
        {(): 1, ("a",): 1},
    )
    assert DocumentCache(lambda: file, lambda: "code 2").get("a: 1\n") is None
    file.chmod(0o622)  # others could have written it: what it says is not taken
    assert DocumentCache(lambda: file, lambda: "code 1").get("a: 1\n") is None
    file.chmod(0o600)
    file.write_bytes(b"\x00garbage")
    assert DocumentCache(lambda: file, lambda: "code 1").get("a: 1\n") is None


def test_each_lookup_is_a_fresh_copy(tmp_path: Path) -> None:
    cache = DocumentCache(lambda: tmp_path / "cache.marshal", lambda: "code")
    cache.put("x: [1]\n", ({"x": [1]}, {(): 1}))
    got = cache.get("x: [1]\n")
    assert got is not None
    got[0]["x"].append(2)
    assert cache.get("x: [1]\n") == ({"x": [1]}, {(): 1})


def test_values_marshal_cannot_hold_are_parsed_each_time(isolated: Path) -> None:
    path = write(isolated / "d.yaml", "name: Day\nwhen: 2024-05-01\n")
    assert load_yaml_document(path).data["when"] == datetime.date(2024, 5, 1)
    assert _load_in_new_process(path).endswith("True")
    assert _load_in_new_process(path).endswith("True")  # not kept: parsed again


def test_a_file_that_fails_to_parse_fails_every_time(isolated: Path) -> None:
    path = write(isolated / "bad.yaml", "name: Alice\nname: Bob\n")
    for _ in range(2):
        with pytest.raises(ConfigError, match="given twice"):
            load_yaml_document(path)


def test_a_cache_file_past_its_size_keeps_what_the_last_process_used(tmp_path: Path) -> None:
    file = tmp_path / "cache.marshal"
    old, new = "a: '" + "x" * 600_000 + "'\n", "b: '" + "y" * 600_000 + "'\n"
    first = DocumentCache(lambda: file, lambda: "code")
    first.put(old, ({"a": "x"}, {(): 1}))
    first.save()
    second = DocumentCache(lambda: file, lambda: "code")
    assert second.get(old) is not None
    second.put(new, ({"b": "y"}, {(): 1}))
    second.save()  # both fit no more: the entries it used or added are kept
    assert DocumentCache(lambda: file, lambda: "code").get(new) is not None
    third = DocumentCache(lambda: file, lambda: "code")
    third.put("c: 1\n", ({"c": 1}, {(): 1}))
    third.save()  # past the size, and it used neither big one
    kept = DocumentCache(lambda: file, lambda: "code")
    assert (kept.get(old), kept.get(new)) == (None, None)
    assert kept.get("c: 1\n") == ({"c": 1}, {(): 1})
