"""A small TOML writer for configs given as Python dicts (the standard library only reads TOML).

It writes what a config can hold: text, booleans, integers, finite floats, lists of those, and tables
(nested tables become ``[section]`` headers or inline tables inside lists of cases).
"""
from __future__ import annotations

import json
import math
import re
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: str) -> str:
    return k if _BARE.match(k) else json.dumps(k)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"cannot write {v!r} in TOML")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    raise ValueError(f"cannot write {type(v).__name__} in TOML")


def dumps(data: dict[str, Any], prefix: str = "") -> str:
    lines: list[str] = []
    tables: list[tuple[str, dict]] = []
    for k, v in data.items():
        if isinstance(v, dict):
            tables.append((k, v))
        else:
            lines.append(f"{_key(k)} = {_value(v)}")
    out = "\n".join(lines)
    for k, v in tables:
        name = f"{prefix}.{_key(k)}" if prefix else _key(k)
        body = dumps(v, name)
        out += ("\n\n" if out else "") + f"[{name}]" + ("\n" + body if body and not body.startswith("[") else
                                                        ("\n\n" + body if body else ""))
    return out + ("\n" if not prefix else "")
