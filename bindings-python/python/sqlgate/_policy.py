"""Loading a policy from a mapping, JSON text, or a ``.json`` / ``.toml`` file.

Only the format is handled here; the policy itself is parsed and validated by the Rust core.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ._errors import PolicyError


def _load_toml(text: str) -> dict[str, Any]:
    try:
        import tomllib  # Python 3.11+
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib  # type: ignore[import-not-found, no-redef]
        except ModuleNotFoundError:
            raise PolicyError(
                "policy", "reading TOML on Python 3.10 needs the `tomli` package (pip install tomli)"
            ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PolicyError("policy", f"invalid TOML: {e}") from None


def policy_source(source: object) -> dict[str, Any] | str:
    """The policy in ``source`` for the core to parse: a dict, or JSON text.

    A mapping is taken as a dict; a ``str`` whose first non-blank character is ``{`` is JSON
    text; any other ``str`` or an ``os.PathLike`` is a path to a ``.json`` or ``.toml`` file.
    """
    if isinstance(source, Mapping):
        return dict(source)
    if isinstance(source, str) and source.lstrip().startswith("{"):
        return source
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if path.lower().endswith(".toml"):
            return _load_toml(text)
        if path.lower().endswith(".json"):
            return text
        raise PolicyError("policy", f"{path}: expected a .json or .toml file")
    raise TypeError(
        f"policy must be a mapping, JSON text or a path, not {type(source).__name__}"
    )
