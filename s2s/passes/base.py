"""What a pass is: a function over a body that declares the analyses it reads.

`run(body, params, facts) -> (body, changed)`: `params` are the names the function's callers see
besides what it returns; `facts[name]` is the result of each analysis in `needs`, computed on
the body just before the pass runs (see `ANALYSES`); `facts["known"]` is what the caller knows
about the arguments (a jit signature: which parameters are Python floats).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

import gast

from .. import analysis as an
from ..primitives import (
    helpers,  # noqa: F401  (declares the helper facts)
    registry,
)

ANALYSES: dict[str, Callable] = {
    "liveness": lambda body, params: an.Liveness(body),
    "shape_roots": an.shape_roots,
}

_IMPURE = ("call", "list.pop", "print")


def pure(value) -> bool:
    """Whether evaluating core-form right-hand side `value` only computes a value: it may be
    removed, moved, or merged with an equal one. Draws, checks, user calls and mutations may not."""
    kind = an.classify(value)
    if kind in _IMPURE:
        return False
    h = registry.HELPERS.get(kind)
    return h is None or not (h.effect or h.mutates)


def assigns(stmt) -> set[str]:
    """Every name a statement binds, blocks included (targets of item stores count as their base)."""
    out = set()
    for s in an.walk_stmts([stmt]):
        out.update(an.targets(s))
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript):
            base = s.targets[0].value
            while isinstance(base, gast.Subscript):
                base = base.value
            if isinstance(base, gast.Name):
                out.add(base.id)
    return out


def clone(node):
    """A deep copy of an AST (nodes, lists, and the plain values in them), several times faster
    than `copy.deepcopy`, which the first call of every transform pays for."""
    if isinstance(node, list):
        return [clone(n) for n in node]
    if isinstance(node, gast.AST):
        new = node.__class__.__new__(node.__class__)
        new.__dict__.update({k: clone(v) for k, v in node.__dict__.items()})
        return new
    return node


@dataclasses.dataclass(frozen=True)
class Pass:
    name: str
    run: Callable
    needs: tuple[str, ...] = ()

    def __call__(self, body: list, params, known=None) -> tuple[list, bool]:
        """Compute the declared analyses, then run the pass."""
        facts = {k: ANALYSES[k](body, params) for k in self.needs}
        facts["known"] = known or {}
        return self.run(body, params, facts)
