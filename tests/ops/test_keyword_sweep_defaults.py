"""Every parameter of every operation given by keyword at NumPy's own default (issue 44, family 2):
`np.full_like(x, v, order='K')`, `np.dot(a, b, out=None)`, `np.quantile(x, q, weights=None)`,
`np.vstack(xs, casting='same_kind')`. Such a call means the call without it, so jit gives NumPy's
value, vmap the loop's, grad and jvp central differences of NumPy's function, or where NumPy
raises (a ufunc's `signature=None`) every transform raises. It found 25 calls whose vmap raised an
internal TypeError (a batching helper without the keyword), which keywords.at_default now leaves
out where the declaration does not list it."""
from __future__ import annotations

import zlib

import numpy as np
import pytest
from helpers_compare import leaves
from helpers_modules import module_of
from keyword_cases import default_cases

import s2s
from s2s.errors import S2SError

UNINITIALIZED = {"xp.empty", "xp.empty_like"}
CASES = [c for c in default_cases() if c[0] not in UNINITIALIZED]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    lines = ["import numpy as np", ""]
    for i, (_, _, _, src, names, _) in enumerate(CASES):
        a = ", ".join(names)
        lines += ["", f"def call_{i}({a}):", f"    return {src}", "", "", f"def loss_{i}({a}):",
                  f"    r = call_{i}({a})", "    if isinstance(r, (tuple, list)):",
                  "        return sum(np.sum(np.sin(np.real(p) * 1.0)) for p in r)",
                  "    return np.sum(np.sin(np.real(r) * 1.0))", ""]
    return module_of(tmp_path_factory.mktemp("defaults"), "keyword_default_cases", lines)


def test_the_defaults_are_swept():
    swept = {(c[0], c[1]) for c in CASES}
    assert len(CASES) >= 500 and {("xp.full_like", "order"), ("xp.dot", "out"), ("xp.quantile", "weights"),
                                  ("xp.vstack", "casting"), ("xp.add", "where")} <= swept


def _same(got, want):
    gl, wl = leaves(got), leaves(want)
    assert len(gl) == len(wl)
    for g, w in zip(gl, wl):
        assert g.shape == w.shape, (g.shape, w.shape)
        if w.dtype.kind in "biufc":
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10, equal_nan=True)
        else:
            np.testing.assert_equal(g, w)


@pytest.mark.parametrize("i", range(len(CASES)), ids=[f"{c[0][3:]}-{c[1]}={c[2]}" for c in CASES])
def test_a_keyword_at_numpy_s_default(module, i):
    key, _, _, _, _, draws = CASES[i]
    call, loss = getattr(module, f"call_{i}"), getattr(module, f"loss_{i}")
    args = tuple(np.asarray(d(np.random.default_rng(zlib.crc32(key.encode()))), dtype=np.float64) for d in draws)
    more = tuple(np.asarray(d(np.random.default_rng(2)), dtype=np.float64) for d in draws)
    try:
        with np.errstate(all="ignore"):
            want = call(*args)
    except Exception as e:  # noqa: BLE001  (NumPy refuses the keyword here: so does every transform)
        for fn in (s2s.jit(call), s2s.grad(loss)):
            with pytest.raises((type(e), S2SError)):
                fn(*args)
        return
    try:
        got = s2s.jit(call)(*args)
    except S2SError:  # (a keyword s2s does not model, even at its default: refused by every transform)
        with pytest.raises(S2SError):
            s2s.vmap(call)(*(np.stack([p, q]) for p, q in zip(args, more)))
        return
    _same(got, want)
    try:
        with np.errstate(all="ignore"):
            rows = [call(*a) for a in (args, more)]
    except Exception:  # noqa: BLE001  (the second draw is outside the call's domain)
        rows = None
    if rows is not None:
        try:
            batched = leaves(s2s.vmap(call)(*(np.stack([p, q]) for p, q in zip(args, more))))
        except S2SError:
            pass  # (vmap refuses what it cannot batch, by its own rules, as without the keyword)
        else:
            for k, row in enumerate(rows):
                _same([b[k] for b in batched], row)
    if not all(w.dtype.kind == "f" and np.all(np.isfinite(w)) for w in leaves(want)):
        return
    d = tuple(np.random.default_rng(7).standard_normal(np.shape(a)) for a in args)
    eps = 1e-6
    with np.errstate(all="ignore"):
        fd = (loss(*(a + eps * v for a, v in zip(args, d))) - loss(*(a - eps * v for a, v in zip(args, d)))) / (2 * eps)
    if not np.isfinite(fd):
        return
    try:
        grads = s2s.grad(loss, argnums=tuple(range(len(args))))(*args)
    except S2SError:
        return  # (a derivative s2s refuses for this operation, as without the keyword)
    rev = sum(float(np.sum(g * v)) for g, v in zip(grads, d))
    fwd = float(s2s.jvp(loss, tuple(args), d)[1])
    assert abs(rev - fd) <= 1e-5 * (1 + abs(fd)), (rev, fd)
    assert abs(fwd - fd) <= 1e-5 * (1 + abs(fd)), (fwd, fd)
