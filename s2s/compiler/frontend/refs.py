"""`Ref`, a function known when transforming with the local variables it closes over: what
function_values.py finds and idioms.specialize binds."""
from __future__ import annotations


class Ref:
    """A function known when transforming, with the local variables it closes over (its lifted
    form takes their values first)."""

    __slots__ = ("fn", "free")

    def __init__(self, fn, free=()):
        self.fn, self.free = fn, tuple(free)

    def __repr__(self):
        return f"Ref({getattr(self.fn, '__name__', self.fn)!r}, {self.free})"
