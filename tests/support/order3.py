"""Third derivatives along chosen paths of forward and reverse mode, each level checked against
central differences of the level below it (issue 27, family 7: beyond order 2).

`compose(fn, nargs, tuple_out)` wraps an operation between the elementwise maps `a + 0.1 a**2`
(on every argument) and `y + 0.1 y**2` (on every output): a bilinear or linear operation's own
third derivative is zero, so only the composition exercises the terms a rule's runtime helpers
contribute at order 3 (a helper declared linear in one argument while it depends on another gives
a wrong third derivative of `np.dot(x, x) ** 3`, and none of `np.dot(a, b)`).
`check_path(f, args, path)` checks level k of `path` ("r": the VJP along a random cotangent, "f":
the JVP along a random tangent, applied inner first) as the derivative of level k - 1.
"""
from __future__ import annotations

import numpy as np

import s2s
from s2s.api.entry_points import linear_map
from s2s.base.tree import tree_flatten, tree_map, tree_unflatten, tree_vdot

KIND = {"r": "vjp", "f": "jvp"}


def pre(a):
    return a + 0.1 * a * a


def post(y):
    return y + 0.1 * y * y


def _single(fn, n):
    return {
        1: lambda a: post(fn(pre(a))),
        2: lambda a, b: post(fn(pre(a), pre(b))),
        3: lambda a, b, c: post(fn(pre(a), pre(b), pre(c))),
        4: lambda a, b, c, d: post(fn(pre(a), pre(b), pre(c), pre(d))),
        6: lambda a, b, c, d, e, f: post(fn(pre(a), pre(b), pre(c), pre(d), pre(e), pre(f))),
    }[n]


def _tuple(fn, n):
    def one(a):
        return tuple([post(y) for y in fn(pre(a))])

    def two(a, b):
        return tuple([post(y) for y in fn(pre(a), pre(b))])

    def three(a, b, c):
        return tuple([post(y) for y in fn(pre(a), pre(b), pre(c))])
    return {1: one, 2: two, 3: three}[n]


def compose(fn, nargs: int, tuple_out: bool):
    """`post(fn(pre(a), ...))` leaf by leaf, written so that s2s transforms it (see the module)."""
    return (_tuple if tuple_out else _single)(fn, nargs)


def _draw(rng, tree):
    return tree_map(lambda x: float(rng.standard_normal()) if isinstance(x, float)
                    else rng.standard_normal(np.shape(x)), tree)


def _f64(tree):
    return [np.asarray(leaf, dtype=np.float64) for leaf in tree_flatten(tree)[0]]


def _fd(f, args, v, eps):
    plus = f(*tree_map(lambda a, d: a + eps * d, args, v))
    minus = f(*tree_map(lambda a, d: a - eps * d, args, v))
    return [(p - m) / (2 * eps) for p, m in zip(_f64(plus), _f64(minus))]


def _level(f, args, kind, direction, eps, tol, where):
    """Check the JVP ("f") or VJP ("r") of `f` at `args` against central differences of `f`."""
    rng = np.random.default_rng(len(where))
    v = tuple(_draw(rng, a) for a in args)
    fd = _fd(f, args, v, eps)
    scale = 1.0 + max((float(np.max(np.abs(x))) for x in fd if x.size), default=0.0)
    if kind == "f":
        got = _f64(s2s.jvp(f, args, v)[1])
        err = max((float(np.max(np.abs(g - w))) for g, w in zip(got, fd) if g.size), default=0.0)
        assert all(g.shape == w.shape for g, w in zip(got, fd)), f"{where}: tangent shapes"
    else:
        out, back = s2s.vjp(f, *args)
        cts = back(direction)
        lhs = tree_vdot(tree_flatten(direction)[0], fd)
        rhs = tree_vdot(_f64(cts), _f64(v))
        err, scale = abs(lhs - rhs), 1.0 + abs(lhs)
    assert err <= tol * scale, f"{where}: differs from central differences by {err:.3g} (scale {scale:.3g})"


def check_path(f, args: tuple, path: str, eps: float = 1e-4, tol: float = 1e-4, seed: int = 0,
               checked: set | None = None) -> None:
    """Check every level of `path` (e.g. "rrf": the JVP of the VJP of the VJP) against central
    differences of the level below; levels are built by s2s (`linear_map`), so each is transformed
    again by the next. `checked`: the path prefixes already checked (with the same seed), skipped."""
    rng = np.random.default_rng(seed)
    names = []
    checked = set() if checked is None else checked
    for depth, kind in enumerate(path):
        out = f(*args)
        leaves, tdef = tree_flatten(out)
        u = tree_unflatten(tdef, [_draw(rng, np.asarray(x, dtype=np.float64) if not isinstance(x, float) else x)
                                  for x in leaves])
        v = tuple(_draw(rng, a) for a in args)
        names.append({"r": "VJP", "f": "JVP"}[kind])
        where = " of ".join(reversed(names))
        if path[:depth + 1] not in checked:
            _level(f, args, kind, u, eps, tol, where)
            checked.add(path[:depth + 1])
        f = linear_map(KIND[kind], f, len(args), u if kind == "r" else v)
