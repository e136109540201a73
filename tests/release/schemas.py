"""The published JSON schemas vendored beside this file (tests/release/schemas/README.md says
where each comes from), and YAML read as GitHub reads it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import yaml

SCHEMAS = Path(__file__).parent / "schemas"


class GitHubYamlLoader(yaml.SafeLoader):
    """YAML 1.2's booleans only: GitHub reads the key `on:` as the string "on", where PyYAML's
    YAML 1.1 rules make it True (and a workflow would fail its schema for that alone)."""


GitHubYamlLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
GitHubYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=GitHubYamlLoader)  # noqa: S506 (a SafeLoader subclass)


def problems(schema: str, document: Any) -> list[str]:
    """Every way `document` breaks the vendored schema `schema` (a file name without .json),
    as "path: message" lines; empty when it conforms."""
    data = json.loads((SCHEMAS / f"{schema}.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(data, format_checker=jsonschema.FormatChecker())
    return [
        f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message[:300]}"
        for e in validator.iter_errors(document)
    ]
