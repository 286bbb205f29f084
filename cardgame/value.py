"""The base of the engine's shared values: cards, actions, rules, the catalogue.

These objects are shared by every seat and every game of a process (an action singleton, the
printed cards, the rules a view carries), so they must be truly immutable: a frozen dataclass
still yields to ``object.__setattr__``, a tuple does not. Each value class is a
``typing.NamedTuple`` of its fields with this mixin first in its bases, which makes equality
strict (equal only to the same class with the same fields, never to a bare tuple or another
empty value) and every value true, as a dataclass instance was.
"""

from __future__ import annotations

from typing import Any

_TUPLE_EQ: Any = tuple.__eq__


class Value:
    """Mixin for a tuple-backed value class (put it before the NamedTuple base)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and _TUPLE_EQ(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    # the hash of the field tuple: what a frozen dataclass's hash was, so orders built from
    # hashes (sets of actions) are unchanged
    __hash__: Any = tuple.__hash__

    def __bool__(self) -> bool:  # an empty action (DrawDeck()) is still a value, not "nothing"
        return True
