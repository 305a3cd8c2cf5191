"""Rule options: frozen dataclasses whose fields are the options of a game, with parsing and validation.

A game declares its options as a dataclass deriving from :class:`Rules`, each field made with
:func:`option` (default, help text, and optionally the allowed choices, bounds or a parser). The same
class serves the command line (``--rule KEY=VALUE`` strings), configs (TOML values) and the Python API.
"""
from __future__ import annotations

import dataclasses
import numbers
import re
import types
import typing
import weakref
from typing import Any, Callable

from .errors import SenseiError

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def option(default: Any, help: str, *, choices: tuple | None = None, min: float | None = None,
           max: float | None = None, parse: Callable[[Any], Any] | None = None,
           show: Callable[[Any], Any] | None = None, names: dict | None = None) -> Any:
    """A rule option field: its default, a one-line help, and how values are checked or parsed. ``names``:
    words for values that mean something of their own (``{-1: "never"}``); a report's plots write those of
    a strategy parameter (``strategies.param``) beside its swept values."""
    meta = {"help": help, "choices": choices, "min": min, "max": max, "parse": parse, "show": show,
            "names": dict(names or {})}
    return dataclasses.field(default=default, metadata=meta)


def _base_type(tp: Any) -> tuple[type, bool]:
    """The plain type of an annotation and whether ``None`` is allowed."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0], True
    return tp, False


def shown(value: Any, longest: int = 80) -> str:
    """A value as an error names it, spelled as TOML spells it (``true``, not ``True``), at most ``longest``
    characters."""
    def text(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(text(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k} = {text(x)}" for k, x in v.items()) + "}"
        return repr(v)

    out = text(value)
    return out if len(out) <= longest else out[:longest - 3] + "..."


_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_NUMBER_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?(inf|infinity|nan)", re.IGNORECASE)


def parse_scalar(name: str, tp: type, value: Any) -> Any:
    """Convert a string or TOML value to ``tp`` (int, float, bool, str), or raise SenseiError. A number
    written as text takes ASCII digits only, as a config's TOML does (Python's own conversion would also
    take other scripts' digits, full-width digits and underscores)."""
    if tp is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise SenseiError(f"{name}: expected true or false, got {shown(value)}")
    if tp is int:
        if isinstance(value, bool):
            raise SenseiError(f"{name}: expected an integer, got {shown(value)}")
        if isinstance(value, int) and abs(value) <= 2 ** 53:
            return value
        if isinstance(value, float):  # (a dict's 15.0 played 15 where the Rules object and a config refuse it)
            raise SenseiError(f"{name}: expected an integer, got {shown(value)}")
        try:
            if isinstance(value, str) and not _INTEGER_TEXT.fullmatch(value.strip()):
                raise ValueError(value)
            out = int(str(value).strip())
        except ValueError:
            raise SenseiError(f"{name}: expected an integer, got {shown(value)}") from None
        if abs(out) > 2 ** 53:
            raise SenseiError(f"{name}: integer too large, got {shown(value)}")
        return out
    if tp is float:
        if isinstance(value, bool):
            raise SenseiError(f"{name}: expected a number, got {shown(value)}")
        try:
            if isinstance(value, str) and not _NUMBER_TEXT.fullmatch(value.strip()):
                raise ValueError(value)
            out = float(value)
        except (TypeError, ValueError):
            raise SenseiError(f"{name}: expected a number, got {shown(value)}") from None
        if out != out or out in (float("inf"), float("-inf")):
            raise SenseiError(f"{name}: expected a finite number, got {shown(value)}")
        return out + 0.0  # -0.0 is 0.0: one setting, one spec (a sweep of [0.0, -0.0] played the same cell twice)
    if tp is str:
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise SenseiError(f"{name}: expected text, got {shown(value)}")
        return str(value).strip()
    raise SenseiError(f"{name}: unsupported option type {tp!r}")


#: the words of :func:`check_native`'s errors (a config's value of the wrong TOML type)
NATIVE = "in a config, a value of its TOML type"


def check_native(cls: type, values: dict[str, Any], owner: str) -> None:
    """Values a TOML config gives as native values have their TOML type: an integer option takes an
    integer (not text, not a float), a float option an integer or a float, a bool option true or false,
    a text option text; an option that may be none also takes the text "none". Options with a parser of
    their own (lists written as text) and unknown keys are left to :func:`build`. The command line's
    ``KEY=VALUE`` strings do not pass here: they are parsed by :func:`parse_scalar` as before."""
    fields, hints = _fields_and_hints(cls)
    for key, value in values.items():
        f = fields.get(key)
        if f is None or f.metadata.get("parse") is not None:
            continue
        tp, nullable = _base_type(hints[f.name])
        if nullable and (value is None or (isinstance(value, str) and value.strip().lower() == "none")):
            continue
        name = f"{owner}.{key}" if owner else key
        if tp is bool and not isinstance(value, bool):
            expected, how = "true or false", "a TOML boolean, not text"
        elif tp is int and (not isinstance(value, int) or isinstance(value, bool)):
            expected, how = "an integer", "a TOML integer, not text or a float"
            how += ' (or the text "none")' if nullable else ""
        elif tp is float and (not isinstance(value, (int, float)) or isinstance(value, bool)):
            expected, how = "a number", "a TOML integer or float, not text"
        elif tp is str and not isinstance(value, str):
            expected, how = "text", "a TOML string"
        else:
            continue
        raise SenseiError(f"{name}: expected {expected}, got {shown(value)} ({NATIVE}: {how})")


def field_value(cls: type, key: str, value: Any, owner: str = "") -> Any:
    """What ``value`` of field ``key`` of ``cls`` means once parsed (raises SenseiError for an unknown key or
    a value the field refuses): two values that parse alike are one setting."""
    fields, hints = _fields_and_hints(cls)
    if key not in fields:
        raise SenseiError(f"unknown field {key!r} of {owner or cls.__name__}")
    return convert_field(owner, fields[key], hints, value)


def convert_field(owner: str, f: dataclasses.Field, hints: dict, value: Any) -> Any:
    """Parse and check one value for field ``f`` (of a Rules or Strategy dataclass)."""
    name = f"{owner}.{f.name}" if owner else f.name
    meta = f.metadata
    if meta.get("parse") is not None:
        try:
            out = meta["parse"](value)
        except SenseiError:
            raise
        except (TypeError, ValueError) as exc:
            raise SenseiError(f"{name}: {exc}") from None
    else:
        tp, nullable = _base_type(hints[f.name])
        if nullable and (value is None or (isinstance(value, str) and value.strip().lower() == "none")):
            return None
        try:
            out = parse_scalar(name, tp, value)
        except SenseiError as exc:  # (an empty value is no longer taken for none: say that none is one)
            if not nullable:
                raise
            raise SenseiError(str(exc).replace(f"{name}: expected ", f"{name}: expected none or ", 1)) from None
    choices = meta.get("choices")
    if choices is not None and out not in choices and isinstance(out, str):
        # a word in other capitals is the choice (as game names are): Count is count
        alike = [c for c in choices if isinstance(c, str) and c.casefold() == out.casefold()]
        if len(alike) == 1:
            out = alike[0]
    if choices is not None and out not in choices:
        raise SenseiError(f"{name}: expected one of {', '.join(map(str, choices))}, got {shown(value)}")
    lo, hi = meta.get("min"), meta.get("max")
    if out is not None and not isinstance(out, (tuple, str)):
        if lo is not None and out < lo:
            raise SenseiError(f"{name}: must be at least {bound_text(lo)}, got {shown(value)}")
        if hi is not None and out > hi:
            raise SenseiError(f"{name}: must be at most {bound_text(hi)}, got {shown(value)}")
    return out


#: a dataclass's init fields and type hints, worked out once per class (resolving the hints is by far the
#: dearest part of building an instance, and a large config's grid builds the same classes many times)
_FIELDS: "weakref.WeakKeyDictionary[type, tuple[dict[str, dataclasses.Field], dict[str, Any]]]" = \
    weakref.WeakKeyDictionary()


def _fields_and_hints(cls: type) -> tuple[dict[str, dataclasses.Field], dict[str, Any]]:
    got = _FIELDS.get(cls)
    if got is None:
        got = ({f.name: f for f in dataclasses.fields(cls) if f.init}, typing.get_type_hints(cls))
        _FIELDS[cls] = got
    return got


def build(cls: type, values: dict[str, Any], owner: str, what: str = "rule option") -> Any:
    """Make a dataclass instance from ``values`` (strings or typed values), checking every key."""
    fields, hints = _fields_and_hints(cls)
    if what == "parameter" and cls not in _DEFAULTS_CHECKED:
        _check_defaults(cls, fields, hints, owner)
    kwargs = {}
    for key, value in values.items():
        if key not in fields:
            known = ", ".join(fields) or "none"
            raise SenseiError(f"unknown {what} {key!r} for {owner} (known: {known})")
        kwargs[key] = convert_field(owner, fields[key], hints, value)
    try:
        return cls(**kwargs)
    except SenseiError:
        raise
    except (TypeError, ValueError) as exc:
        raise SenseiError(f"{owner}: {exc}") from None


def display_name(agent: Any) -> str:
    """The name a strategy goes by in specs, tables, sentences and errors: its class's ``name``, or its class
    name for a subclass made outside sensei's own strategies without a name of its own (it plays its own
    way: the name it inherits, ``threshold``, would label it as the built-in it extends)."""
    cls = type(agent)
    if "name" not in cls.__dict__ and not (cls.__module__ or "").startswith("strategies."):
        return cls.__name__
    return getattr(agent, "name", "") or cls.__name__


def check_shadowing(cls: type, owner: str) -> None:
    """A parameter (dataclass field) of a strategy class named as a method or property of a base class, or as
    anything sensei's ``Strategy`` defines (``params``, ``spec``, ``played``, ``game``, ...), hides it:
    ``made.params()`` failed with "TypeError: 'int' object is not callable". A one-line SenseiError naming the
    first. A constant of a base class may become a parameter (a subclass of ``closer`` that tunes its
    ``kid_value``: the strategy reads ``self.kid_value`` either way)."""
    if not isinstance(cls, type) or not dataclasses.is_dataclass(cls):
        return
    for f in dataclasses.fields(cls):
        if f.name.startswith("__"):
            continue
        for base in cls.__mro__[1:]:
            if f.name not in base.__dict__ or (dataclasses.is_dataclass(base)
                                               and f.name in {b.name for b in dataclasses.fields(base)}):
                continue
            attr = base.__dict__[f.name]
            root = base.__name__ == "Strategy" and base.__module__ == "strategies.base"
            if root or callable(attr) or isinstance(attr, (property, classmethod, staticmethod)):
                raise SenseiError(f"{owner}: parameter {f.name!r} has the name of {base.__name__}'s own "
                                  f"{f.name}; give it another name")


def check_fields(obj: Any, owner: str) -> Any:
    """Each field of a dataclass instance made directly in Python (``Threshold(wake=1.5)``, a Rules
    instance), checked as :func:`build` checks a value: a one-line SenseiError naming the first that is no
    value of its field, where it would otherwise fail deep inside compiled code or play silently.

    Returns the object to play: ``obj`` itself, or, where a value is read as a spec's text is read (the
    text ``"false"`` of a switch, ``"Count"`` of a choice, ``"8"`` of an integer), a copy holding what it
    reads as. (``SenRules(know_what_i_have="false")`` played with the variant on, a non-empty text being
    true, and was reported as ``'false'``.)"""
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return obj
    fields, hints = _fields_and_hints(type(obj))
    changed: dict[str, Any] = {}
    for key, f in fields.items():
        tp = _base_type(hints[key])[0]
        if f.metadata.get("parse") is None and tp not in (bool, int, float, str):
            continue  # a field no spec could set (a list, an array): the object's own business
        value = getattr(obj, key)
        if f.metadata.get("parse") is None and tp is int and isinstance(value, numbers.Real) and \
                not isinstance(value, numbers.Integral):
            # (Threshold(wake=8.0) played and was recorded as threshold:wake=8.0, a spec that a config, the
            # command line and lineup() refuse: an integer parameter takes an integer, as there)
            raise SenseiError(f"{owner}.{key}: expected an integer, got {shown(value)}")
        out = convert_field(owner, f, hints, value)
        if isinstance(value, str) and not (isinstance(out, str) and out == value):
            changed[key] = out
    return dataclasses.replace(obj, **changed) if changed else obj


#: strategy classes whose parameter defaults have been checked (once per class)
_DEFAULTS_CHECKED: "weakref.WeakSet[type]" = weakref.WeakSet()


def check_defaults(cls: type, owner: str) -> None:
    """:func:`_check_defaults` of a parameter class (a strategy), once per class: a SenseiError naming the
    first default that is no value of its parameter."""
    if cls not in _DEFAULTS_CHECKED:
        fields, hints = _fields_and_hints(cls)
        _check_defaults(cls, fields, hints, owner)


def _check_defaults(cls: type, fields: dict[str, dataclasses.Field], hints: dict, owner: str) -> None:
    """A one-line error for a parameter whose own default is no value of its type or range (a user's class
    with ``wake: int = param("ten", ...)`` would otherwise fail deep inside the compiled code)."""
    for key, f in fields.items():
        default = f.default
        if default is dataclasses.MISSING and f.default_factory is not dataclasses.MISSING:
            try:  # (a default_factory's value is checked as a plain default is: it went unchecked to the workers)
                default = f.default_factory()
            except Exception as exc:  # noqa: BLE001 - the user's factory: its failure in one line
                raise SenseiError(f"{owner}: the default of parameter {key!r} could not be made: "
                                  f"{type(exc).__name__}: {exc}") from None
        if default is dataclasses.MISSING:
            continue
        try:
            out = convert_field("", f, hints, default)
        except SenseiError as exc:  # (``owner`` says "strategy NAME"; the message starts with the key)
            text = str(exc).removeprefix(f"{key}: ")
            raise SenseiError(f"{owner}: the default of parameter {key!r} does not fit it: {text}") from None
        if out != default:
            raise SenseiError(f"{owner}: the default of parameter {key!r} does not fit it: "
                              f"{default!r} is read as {out!r}")
    _DEFAULTS_CHECKED.add(cls)


def parse_assignments(items: list[str] | tuple[str, ...], what: str) -> dict[str, str]:
    """Split ``["a=1", "b=x"]`` into a dict, rejecting malformed items and repeated keys."""
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise SenseiError(f"{what} {item!r}: expected KEY=VALUE")
        key, value = item.split("=", 1)
        key = key.strip()
        if not key:
            raise SenseiError(f"{what} {item!r}: empty key")
        if key in out:
            raise SenseiError(f"{what} {key!r} given twice")
        out[key] = value.strip()
    return out


def describe(obj_or_cls: Any) -> list[dict[str, Any]]:
    """Name, type, default, help and allowed values (``choices``, ``min``, ``max``: None when not set) of
    every field, for listings."""
    hints = typing.get_type_hints(obj_or_cls if isinstance(obj_or_cls, type) else type(obj_or_cls))
    rows = []
    for f in dataclasses.fields(obj_or_cls):
        if not f.init:
            continue
        tp, nullable = _base_type(hints[f.name])
        rows.append({"name": f.name, "type": getattr(tp, "__name__", str(tp)) + (" or none" if nullable else ""),
                     "default": show_value(f, f.default), "help": f.metadata.get("help", ""),
                     "choices": f.metadata.get("choices"), "min": f.metadata.get("min"),
                     "max": f.metadata.get("max")})
    return rows


def allowed(row: dict[str, Any]) -> str:
    """The allowed values of a :func:`describe` row in words ("from 0 to 8", "at least 0", "one of: a, b"),
    or "" when any value of its type is allowed."""
    parts = []
    if row.get("choices"):
        parts.append("one of: " + ", ".join(map(str, row["choices"])))
    lo, hi = row.get("min"), row.get("max")
    if lo is not None and hi is not None:
        parts.append(f"from {bound_text(lo)} to {bound_text(hi)}")
    elif lo is not None:
        parts.append(f"at least {bound_text(lo)}")
    elif hi is not None:
        parts.append(f"at most {bound_text(hi)}")
    return "; ".join(parts)


def bound_text(v: Any) -> str:
    """A parameter's or an option's bound in words: integers with thousands separators (200,000), other
    values as they are."""
    if isinstance(v, numbers.Integral) and not isinstance(v, bool) and type(v).__name__ != "bool_":
        return f"{int(v):,}"
    return str(v)


def show_value(f: dataclasses.Field, value: Any) -> Any:
    """A JSON-friendly rendering of an option value (tuples as comma lists where the field says so)."""
    show = f.metadata.get("show")
    return show(value) if show is not None else value


class Rules:
    """Base of every game's rule-option dataclass (derive with ``@dataclass(frozen=True)``)."""

    @classmethod
    def from_values(cls, values: dict[str, Any] | None = None, game: str = "") -> "Rules":
        return build(cls, dict(values or {}), game or cls.__name__, "rule option")

    def as_dict(self) -> dict[str, Any]:
        """Every option with its value, defaults included, JSON-friendly."""
        return {f.name: show_value(f, getattr(self, f.name)) for f in dataclasses.fields(self) if f.init}

    def unit(self) -> str:
        """What one simulated game is under these rules, as the answers name it: ``game``, or ``match`` where
        a game of the batch plays several in a row (Fan & Mallet's ``match_points``)."""
        return "game"

    def inert(self, players: int) -> dict[str, str]:
        """The options that change nothing with these settings and that player count, each with why
        (Sen's ``target`` where ``rounds`` is set): ``{name: reason}``."""
        return {}

    def played(self, players: int) -> tuple:
        """What these rules play with ``players``, to tell two settings apart: every option's value, those
        that change nothing (:meth:`inert`) left out. Two settings with the same value play the same games."""
        skip = self.inert(players)
        return tuple((k, repr(v)) for k, v in sorted(self.as_dict().items()) if k not in skip)
