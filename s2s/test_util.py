"""Check derivatives computed by s2s against central finite differences.

``check_grads`` follows ``jax.test_util.check_grads``: it draws random directions, differences
the function in float64 along them, and compares with ``s2s.jvp`` (mode ``"fwd"``) and
``s2s.vjp`` (mode ``"rev"``). Higher orders recurse on the derivative functions themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import s2s
from s2s.base.tree import PyTreeDef, tree_flatten, tree_map, tree_unflatten, tree_vdot

__all__ = ["check_grads"]


def _is_scalar(x: Any) -> bool:
    """Python numbers (and NumPy scalars, which behave like them) are scalar leaves."""
    return isinstance(x, (int, float, np.number)) and not isinstance(
        x, (bool, np.bool_)
    )


def _to_f64(x: Any) -> Any:
    """A leaf as float64: Python scalars stay Python floats, everything else becomes an array."""
    if _is_scalar(x):
        return float(x)
    return np.asarray(x, dtype=np.float64)


def _random_like(rng: np.random.Generator, x: Any) -> Any:
    """A standard normal draw with the shape and scalar-ness of leaf ``x``."""
    if isinstance(x, float):
        return float(rng.standard_normal())
    return rng.standard_normal(np.shape(x))


def _axpy(a: float, x: Any, y: Any) -> Any:
    """``y + a * x`` leafwise."""
    return tree_map(lambda xi, yi: yi + a * xi, x, y)


def _leaves_as(tree: Any, ref: PyTreeDef, what: str, where: str) -> list[np.ndarray]:
    """Leaves of ``tree`` as float64 arrays, asserting the structure is ``ref``."""
    leaves, treedef = tree_flatten(tree)
    if treedef != ref:
        raise AssertionError(
            f"check_grads: {where}: {what} has structure {treedef}, expected {ref}"
        )
    return [np.asarray(leaf, dtype=np.float64) for leaf in leaves]


def _max_excess(
    got: list[np.ndarray],
    want: list[np.ndarray],
    atol: float,
    rtol: float,
    what: str,
    where: str,
) -> tuple[float, bool]:
    """Largest |got - want| over all leaves and whether every entry is within tolerance."""
    worst, ok = 0.0, True
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape:
            raise AssertionError(
                f"check_grads: {where}: {what} leaf {i} has shape {g.shape}, expected {w.shape}"
            )
        if g.size == 0:
            continue
        diff = np.abs(g - w)
        worst = max(worst, float(np.max(diff)))
        ok = ok and bool(np.all(diff <= atol + rtol * np.abs(w)))
    return worst, ok


def _finite_difference(
    f: Callable, args: tuple, v: tuple, eps: float, out_def: PyTreeDef, where: str
) -> list[np.ndarray]:
    """Central difference of ``f`` at ``args`` along ``v``, as a list of float64 output leaves."""
    plus = _leaves_as(f(*_axpy(eps, v, args)), out_def, "f(args + eps*v)", where)
    minus = _leaves_as(f(*_axpy(-eps, v, args)), out_def, "f(args - eps*v)", where)
    return [(p - m) / (2.0 * eps) for p, m in zip(plus, minus)]


def _check_primal(
    out: Any,
    y0: list[np.ndarray],
    out_def: PyTreeDef,
    atol: float,
    rtol: float,
    where: str,
) -> None:
    got = _leaves_as(out, out_def, "primal output", where)
    err, ok = _max_excess(got, y0, atol, rtol, "primal output", where)
    if not ok:
        raise AssertionError(
            f"check_grads: {where}: primal output differs from f(*args); max error {err:.3g} "
            f"(atol={atol:g}, rtol={rtol:g})"
        )


def _check(
    f: Callable,
    args: tuple,
    order: int,
    modes: Sequence[str],
    eps: float,
    atol: float,
    rtol: float,
    rng: np.random.Generator,
    depth: int,
    path: str,
) -> None:
    args = tuple(tree_map(_to_f64, a) for a in args)
    y = f(*args)
    y_leaves, out_def = tree_flatten(y)
    y0 = [np.asarray(leaf, dtype=np.float64) for leaf in y_leaves]
    v = tuple(tree_map(lambda x: _random_like(rng, x), a) for a in args)

    if "fwd" in modes:
        where = f"mode 'fwd', order {depth}, {('JVP of ' + path) if path else 'JVP'}"
        fd = _finite_difference(f, args, v, eps, out_def, where)
        out, t_out = s2s.jvp(f, args, v)
        _check_primal(out, y0, out_def, atol, rtol, where)
        got = _leaves_as(t_out, out_def, "tangent output", where)
        err, ok = _max_excess(got, fd, atol, rtol, "tangent output", where)
        if not ok:
            raise AssertionError(
                f"check_grads: {where}: JVP disagrees with central finite differences; "
                f"max error {err:.3g} (atol={atol:g}, rtol={rtol:g}, eps={eps:g})"
            )

    if "rev" in modes:
        where = f"mode 'rev', order {depth}, {('VJP of ' + path) if path else 'VJP'}"
        u = tree_unflatten(
            out_def, [_random_like(rng, _to_f64(leaf)) for leaf in y_leaves]
        )
        fd = _finite_difference(f, args, v, eps, out_def, where)
        out, pullback = s2s.vjp(f, *args)
        _check_primal(out, y0, out_def, atol, rtol, where)
        cts = pullback(u)
        if not isinstance(cts, tuple) or len(cts) != len(args):
            raise AssertionError(
                f"check_grads: {where}: vjp_fn must return a tuple of {len(args)} cotangents "
                f"(one per argument), got {type(cts).__name__}"
                + (f" of length {len(cts)}" if isinstance(cts, (tuple, list)) else "")
            )
        v_leaves, args_def = tree_flatten(v)
        ct_leaves = _leaves_as(cts, args_def, "cotangent", where)
        for i, (c, d) in enumerate(zip(ct_leaves, v_leaves)):
            if c.shape != np.shape(d):
                raise AssertionError(
                    f"check_grads: {where}: cotangent leaf {i} has shape {c.shape}, "
                    f"expected {np.shape(d)}"
                )
        lhs = tree_vdot(tree_flatten(u)[0], fd)
        rhs = tree_vdot(ct_leaves, v_leaves)
        err = abs(lhs - rhs)
        if not err <= atol + rtol * max(abs(lhs), abs(rhs)):
            raise AssertionError(
                f"check_grads: {where}: VJP disagrees with central finite differences; "
                f"<u, fd> = {lhs!r} but <vjp(u), v> = {rhs!r}; max error {err:.3g} "
                f"(atol={atol:g}, rtol={rtol:g}, eps={eps:g})"
            )

    if order > 1:  # the next order: the same checks of the JVP along v / the VJP along u as functions
        for mode, kind in (("fwd", "jvp"), ("rev", "vjp")):
            if mode in modes:
                name = kind.upper()
                lin = s2s.api.entry_points.linear_map(kind, f, len(args), v if mode == "fwd" else u)
                _check(lin, args, order - 1, modes,
                       eps, atol, rtol, rng, depth + 1, f"{name} of {path}" if path else name)


def check_grads(
    f: Callable[..., Any],
    args: tuple,
    order: int = 1,
    modes: Sequence[str] = ("fwd", "rev"),
    atol: float | None = None,
    rtol: float | None = None,
    eps: float | None = None,
    seed: int = 0,
) -> None:
    """Assert that s2s's derivatives of ``f`` at ``args`` match central finite differences, with
    ``jax.test_util.check_grads``'s signature (both modes by default; None takes the tolerance and
    step s2s uses for float64: atol = rtol = 1e-5, eps = 1e-6).

    ``args`` is a tuple of pytrees (tuples, lists, dicts of Python floats and arrays); every
    leaf is treated as a float64 input. Mode ``"fwd"`` compares ``s2s.jvp`` along a random
    direction ``v``; mode ``"rev"`` compares ``<u, df·v>`` with ``<s2s.vjp(u), v>`` for a random
    cotangent ``u``. For ``order > 1`` the same checks run on ``a -> jvp(f, a, v)[1]`` and
    ``a -> vjp(f, *a)[1](u)``, generated by s2s so that they are transformed again. Raises
    ``AssertionError`` naming the mode, order and error.
    """
    atol = 1e-5 if atol is None else atol
    rtol = 1e-5 if rtol is None else rtol
    eps = 1e-6 if eps is None else eps
    if not isinstance(args, tuple):
        raise TypeError(
            f"check_grads: args must be a tuple of arguments, got {type(args).__name__}"
        )
    if isinstance(modes, str):
        modes = (modes,)
    unknown = set(modes) - {"fwd", "rev"}
    if unknown or not modes:
        raise ValueError(
            f"check_grads: modes must be a non-empty subset of ('fwd', 'rev'), got {modes!r}"
        )
    if order < 1:
        raise ValueError(f"check_grads: order must be >= 1, got {order}")
    rng = np.random.default_rng(seed)
    _check(f, args, order, tuple(modes), eps, atol, rtol, rng, 1, "")
