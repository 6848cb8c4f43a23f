"""autograd's `check_grads(f, modes, order)(*args)` over `s2s.test_util.check_grads`."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from s2s import test_util


def check_grads(f: Callable, modes: Sequence[str] = ("fwd", "rev"), order: int = 2) -> Callable:
    """A function of `f`'s arguments that checks `f`'s derivatives there against finite
    differences, in the given modes up to `order` (raises AssertionError when they differ)."""
    def check(*args: Any) -> None:
        test_util.check_grads(f, args, order=order, modes=tuple(modes))
    return check
