"""What a pass is: a function over a body that declares the analyses it reads.

`run(body, params, facts) -> (body, changed)`: `params` are the names the function's callers see
besides what it returns; `facts[name]` is the result of each analysis in `needs`, computed on
the body just before the pass runs (see `ANALYSES`).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

from .. import analysis as an

ANALYSES: dict[str, Callable] = {
    "liveness": lambda body, params: an.Liveness(body),
    "shape_roots": an.shape_roots,
}


@dataclasses.dataclass(frozen=True)
class Pass:
    name: str
    run: Callable
    needs: tuple[str, ...] = ()

    def __call__(self, body: list, params) -> tuple[list, bool]:
        """Compute the declared analyses, then run the pass."""
        facts = {k: ANALYSES[k](body, params) for k in self.needs}
        return self.run(body, params, facts)
