"""A spec given as a Python dict, written as the YAML blox reads, with the dict path of every line
so that blox's errors (line and column) can name the field at fault."""

from __future__ import annotations

import json
import math
import numbers
import os
import re
from typing import Any, Dict, List, Mapping, Sequence, Tuple

# Keys written without quotes; anything else (and YAML's special words) is quoted.
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_PLAIN_STRING = re.compile(r"^[A-Za-z_/][A-Za-z0-9_.\-/]*$")
_SPECIAL = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"}


def _path(parent: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else str(key)


def _key(key: Any, path: str) -> str:
    if not isinstance(key, str):
        raise TypeError(f"spec field `{path or '(top level)'}`: key {key!r} is not a string")
    if _PLAIN_KEY.match(key) and key.lower() not in _SPECIAL:
        return key
    return json.dumps(key)


def _scalar(value: Any, path: str) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number):
            return ".nan"
        if math.isinf(number):
            return ".inf" if number > 0 else "-.inf"
        return repr(number)
    if isinstance(value, (str, os.PathLike)):
        text = os.fspath(value)
        if _PLAIN_STRING.match(text) and text.lower() not in _SPECIAL:
            return text
        return json.dumps(text, ensure_ascii=False)
    raise TypeError(
        f"spec field `{path}`: {type(value).__name__} {value!r} is not a spec value "
        "(use dicts, lists, strings, numbers, booleans and None)"
    )


def _is_sequence(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray))


def _lines(value: Any, path: str, indent: int, out: List[Tuple[str, str]]) -> None:
    """Appends (text, path) for each line of `value` as a block at `indent` spaces."""
    pad = " " * indent
    if isinstance(value, Mapping):
        for key, item in value.items():
            item_path = _path(path, key)
            written = _key(key, path)
            if isinstance(item, Mapping) and item:
                out.append((f"{pad}{written}:", item_path))
                _lines(item, item_path, indent + 2, out)
            elif _is_sequence(item) and item:
                out.append((f"{pad}{written}:", item_path))
                _lines(item, item_path, indent + 2, out)
            else:
                out.append((f"{pad}{written}: {_inline(item, item_path)}", item_path))
    elif _is_sequence(value):
        for i, item in enumerate(value):
            item_path = _path(path, i)
            if (isinstance(item, Mapping) or _is_sequence(item)) and item:
                start = len(out)
                _lines(item, item_path, indent + 2, out)
                first_text, first_path = out[start]
                out[start] = (f"{pad}- {first_text[indent + 2:]}", first_path)
            else:
                out.append((f"{pad}- {_inline(item, item_path)}", item_path))
    else:
        out.append((f"{pad}{_inline(value, path)}", path))


def _inline(value: Any, path: str) -> str:
    if isinstance(value, Mapping):
        if value:
            raise AssertionError("non-empty maps are written as blocks")
        return "{}"
    if _is_sequence(value):
        return "[]"
    return _scalar(value, path)


def to_yaml(spec: Mapping[str, Any]) -> Tuple[str, Dict[int, str]]:
    """The spec as YAML text, and the dict path of each (1-based) line."""
    if not isinstance(spec, Mapping):
        raise TypeError(f"a spec is a dict or a path, not {type(spec).__name__}")
    lines: List[Tuple[str, str]] = []
    _lines(spec, "", 0, lines)
    text = "".join(f"{line}\n" for line, _ in lines)
    return text, {number: path for number, (_, path) in enumerate(lines, start=1)}
