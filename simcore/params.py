"""The parameter tuples that compiled decisions receive (``prm``): one named tuple class per list of
field names, shared by every generated lineup module.

A decision's machine code depends on the type of its ``prm``, and numba types a named tuple by its
class. With one class per list of field names, a built-in decision compiled (and cached) for some
parameters serves every lineup that hands it the same fields: a subclass with other default values,
the search's rollouts, another lineup module. A class is found by its name, which spells its fields
(``P__wake__risk``; ``P`` for none), so that numba's cache, which refers to the class by module and
name, finds it again in any process.
"""
from __future__ import annotations

from collections import namedtuple
from typing import Sequence

_SEP = "__"


def shareable(fields: Sequence[str]) -> bool:
    """Whether a list of field names can be spelt in a class name (names that start or end with an
    underscore or hold a double one cannot; such parameters get a tuple class of their lineup module)."""
    return all(f.isidentifier() and not f.startswith("_") and not f.endswith("_") and _SEP not in f
               for f in fields)


def class_name(fields: Sequence[str]) -> str:
    """The name of the shared class of ``fields`` (see :func:`shareable`)."""
    return "P" + "".join(_SEP + f for f in fields)


def params_class(fields: Sequence[str]) -> type:
    """The shared named tuple class of ``fields``."""
    name = class_name(fields)
    return globals().get(name) or __getattr__(name)


def __getattr__(name: str) -> type:
    """The class ``name`` (made on first use; the module's attribute from then on)."""
    if name in globals():
        return globals()[name]
    if name == "P" or (name.startswith("P" + _SEP) and len(name) > 3):
        fields = name.split(_SEP)[1:] if name != "P" else []
        if shareable(fields) and class_name(fields) == name:
            cls = namedtuple(name, fields)
            cls.__module__ = __name__
            globals()[name] = cls
            return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
