"""Dataclasses to JSON-ready dicts and back, so a step's output can cross a Lambda boundary."""

from __future__ import annotations

import dataclasses
import types
import typing
from datetime import datetime
from enum import Enum


def to_jsonable(value):
    if dataclasses.is_dataclass(value):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    return value


def _convert(tp, value):
    if value is None:
        return None
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        return _convert(inner[0], value)
    if origin in (list, tuple):
        (item, *_) = typing.get_args(tp) or (typing.Any,)
        items = [_convert(item, v) for v in value]
        return tuple(items) if origin is tuple else items
    if isinstance(tp, type):
        if dataclasses.is_dataclass(tp):
            return from_jsonable(tp, value)
        if issubclass(tp, Enum):
            return tp(value)
        if issubclass(tp, datetime):
            return datetime.fromisoformat(value)
    return value


def from_jsonable(cls, data: dict):
    hints = typing.get_type_hints(cls)
    return cls(**{f.name: _convert(hints[f.name], data[f.name]) for f in dataclasses.fields(cls) if f.name in data})
