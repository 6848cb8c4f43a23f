"""autograd's `check_grads(f, argnum, modes, order)(*args, **kwargs)`, `combo_check` and
`scalar_close`, over `s2s.test_util.check_grads` (central finite differences)."""
from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from s2s import S2SError, test_util
from s2s.base.tree import tree_flatten, tree_leaves, tree_map

from ._bind import at_argnum, derivative_function

TOL = 1e-6
RTOL = 1e-6

__all__ = ["check_equivalent", "check_grads", "combo_check", "scalar_close"]


def scalar_close(a: Any, b: Any) -> bool:
    """autograd's closeness of two scalars: within 1e-6, absolutely or relatively."""
    return abs(a - b) < TOL or abs(a - b) / abs(a + b) < RTOL


def check_equivalent(x: Any, y: Any) -> None:
    """Assert that `x` and `y` have the same structure and shapes and values within 1e-6."""
    x_leaves, x_def = tree_flatten(x)
    y_leaves, y_def = tree_flatten(y)
    assert x_def == y_def, f"Structure mismatch:\nx: {x_def}\ny: {y_def}"
    for a, b in zip(x_leaves, y_leaves):
        assert np.shape(a) == np.shape(b), f"Shape mismatch:\nx: {np.shape(a)}\ny: {np.shape(b)}"
        assert np.allclose(a, b, rtol=RTOL, atol=TOL), f"Value mismatch:\nx: {x}\ny: {y}"


def check_grads(f: Callable, argnum: Any = 0, modes: Sequence[str] = ("fwd", "rev"), order: int = 2) -> Callable:
    """A function of `f`'s arguments that checks `f`'s derivatives with respect to argument
    `argnum` (an int or a tuple of them; the other arguments and the keywords held fixed) against
    finite differences, in the given modes up to `order`. Raises AssertionError, with autograd's
    "Derivative (VJP) check of <name> failed" in its message, when they differ."""
    if not all(m in ("fwd", "rev") for m in modes):
        raise ValueError(f"check_grads: modes must be 'fwd' and/or 'rev', got {modes!r}")

    def check(*args: Any, **kwargs: Any) -> None:
        g, xs = at_argnum(f, argnum, args, kwargs)
        if any(np.iscomplexobj(leaf) for leaf in tree_leaves(xs)):
            raise S2SError("s2s.compat.autograd.check_grads: complex arguments are not supported "
                           "(s2s differentiates real float64 arrays only)")
        _check(g, xs, tuple(modes), order, getattr(f, "__name__", repr(f)), np.random.default_rng(0))
    return check


def _check(g: Callable, xs: tuple, modes: tuple, order: int, name: str, rng: np.random.Generator) -> None:
    """autograd's recursion: the first-order checks of `g` at `xs`, then, for a higher order, the
    same checks of `(xs, v) -> vjp(g, xs)(v)` and `(xs, v) -> jvp(g, xs, v)`, which take the
    direction `v` (a random one) as an argument."""
    try:
        test_util.check_grads(g, xs, order=1, modes=modes, seed=int(rng.integers(1 << 30)))
    except AssertionError as err:
        raise AssertionError(f"{_autograd_words(str(err), name)}\n{err}") from None
    if order > 1:
        n = len(xs)
        for mode, kind in (("fwd", "jvp"), ("rev", "vjp")):
            if mode in modes:
                if kind == "jvp":
                    vs = tuple(_random_like(rng, x) for x in xs)
                else:
                    vs = (_random_like(rng, g(*xs)),)
                _check(derivative_function(kind, g, n), xs + vs, modes, order - 1, f"{kind}_{name}", rng)


def _random_like(rng: np.random.Generator, x: Any) -> Any:
    """A standard normal draw shaped as `x` (a tree of the same structure)."""
    return tree_map(lambda leaf: float(rng.standard_normal()) if np.ndim(leaf) == 0 and not isinstance(leaf, np.ndarray)
                    else rng.standard_normal(np.shape(leaf)), x)


def _autograd_words(message: str, name: str) -> str:
    """autograd's first line for a failed check: the mode and the function checked, named as
    autograd names the derivative functions of higher orders (`vjp_f`, `jvp_vjp_f`)."""
    found = re.search(r"mode '(\w+)', order (\d+), (.*?)(?::|$)", message)
    if not found:
        return f"Derivative check of {name} failed"
    mode = found.group(1)
    return f"Derivative ({'VJP' if mode == 'rev' else 'JVP'}) check of {name} failed"


def combo_check(fun: Callable, *args: Any, **kwargs: Any) -> Callable:
    """`check_grads(fun, *args, **kwargs)` at every combination of the argument values and
    keyword values it is then called with (lists of candidates per position / per keyword)."""
    def combos(*arg_lists: Sequence, **kwarg_lists: Sequence) -> None:
        pairs = [[(k, v) for v in vs] for k, vs in kwarg_lists.items()]
        for values in itertools.product(*arg_lists):
            for chosen in itertools.product(*pairs):
                check_grads(fun, *args, **kwargs)(*values, **dict(chosen))
    return combos
