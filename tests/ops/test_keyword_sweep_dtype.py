"""The operation x `dtype=` sweep (issue 44, families 2 and 3): every operation the registry declares
whose NumPy signature has `dtype` (read with `inspect.signature` or a ufunc's attributes), called as
its keyword sweep base call (tests/support/keyword_cases.py) with `dtype=np.float32`, `int` and
`complex`. Then, one of:

- NumPy raises: every transform raises too (NumPy's class of error, or an S2SError);
- s2s refuses (an S2SError at the user's line): grad and vmap refuse too;
- otherwise jit gives NumPy's value and dtype, vmap the loop's over two examples, and the gradient
  is zero through an integer dtype and, through float32, the gradient of the call without `dtype=`
  (a float cast passes the derivative, as JAX's does).

It found vmap of `np.vstack`, `np.hstack`, `np.matmul`, `np.matvec`, `np.vecdot` and `np.vecmat`
with `dtype=` crashing inside s2s (or losing a complex dtype), and `np.cov`/`np.corrcoef` ignoring
it (float64 where NumPy gives float32, a number where NumPy raises for an integer dtype)."""
from __future__ import annotations

import ast
import zlib

import numpy as np
import pytest
from helpers_compare import leaves
from helpers_modules import module_of
from keyword_cases import base_call, base_calls, reads_helpers

import s2s
from s2s.compiler.primitives import keywords, registry
from s2s.errors import S2SError

DTYPES = ("np.float32", "int", "complex")
UNINITIALIZED = {"xp.empty", "xp.empty_like"}


def _cases() -> list[tuple]:
    """(operation, dtype source, the call with it, the call without it, argument names, draws)."""
    bases = base_calls()
    out = []
    for key in sorted(registry.PRIMS):
        params = keywords.numpy_parameters(key)
        if not params or "dtype" not in [n for n, _, _ in params] or key in UNINITIALIZED:
            continue
        base = base_call(key[3:], params, bases)
        if base is None or reads_helpers(*base[:2]):
            continue
        call, names, draws = base
        for dt in DTYPES:
            given = ast.parse(ast.unparse(call), mode="eval").body
            given.keywords = [k for k in given.keywords if k.arg != "dtype"] + \
                [ast.keyword(arg="dtype", value=ast.parse(dt, mode="eval").body)]
            out.append((key, dt, ast.unparse(given), ast.unparse(call), names, draws))
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    lines = ["import numpy as np", ""]
    for i, (_, _, src, plain, names, _) in enumerate(CASES):
        a = ", ".join(names)
        for kind, text in (("call", src), ("plain", plain)):
            lines += ["", f"def {kind}_{i}({a}):", f"    return {text}", "", "", f"def {kind}_loss_{i}({a}):",
                      f"    r = {kind}_{i}({a})", "    if isinstance(r, tuple):",
                      "        return sum(np.sum(np.sin(np.real(p) * 1.0)) for p in r)",
                      "    return np.sum(np.sin(np.real(r) * 1.0))", ""]
    return module_of(tmp_path_factory.mktemp("dtype_sweep"), "dtype_sweep_cases", lines)


def test_the_sweep_reaches_the_dtype_keywords():
    swept = {c[0] for c in CASES}
    assert len(CASES) >= 300 and {"xp.sum", "xp.cumsum", "xp.add", "xp.matmul", "xp.vstack", "xp.cov", "xp.mean",
                                  "xp.trace", "xp.linspace"} <= swept, sorted(swept)


def _same(got, want, rtol):
    gl, wl = leaves(got), leaves(want)
    assert len(gl) == len(wl)
    for g, w in zip(gl, wl):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True)


@pytest.mark.parametrize("i", range(len(CASES)), ids=[f"{c[0][3:]}-{c[1]}" for c in CASES])
def test_dtype_keyword(module, i):
    key, dt, _, _, _, draws = CASES[i]
    call, loss = getattr(module, f"call_{i}"), getattr(module, f"call_loss_{i}")
    args = tuple(np.asarray(d(np.random.default_rng(zlib.crc32(key.encode()))), dtype=np.float64) for d in draws)
    more = tuple(np.asarray(d(np.random.default_rng(1)), dtype=np.float64) for d in draws)
    try:
        with np.errstate(all="ignore"):
            want = call(*args)
    except Exception as e:  # noqa: BLE001  (NumPy refuses this dtype here: so does every transform)
        for fn in (s2s.jit(call), s2s.grad(loss)):
            with pytest.raises((type(e), S2SError)):
                fn(*args)
        return
    try:
        got = s2s.jit(call)(*args)
    except S2SError:
        for fn, a in ((s2s.grad(loss), args), (s2s.vmap(call), tuple(np.stack([p, q]) for p, q in zip(args, more)))):
            with pytest.raises(S2SError):
                fn(*a)
        return
    rtol = 1e-5 if dt == "np.float32" else 1e-10
    _same(got, want, rtol)
    try:
        with np.errstate(all="ignore"):
            rows = [call(*a) for a in (args, more)]
    except Exception:  # noqa: BLE001  (the second draw is outside the call's domain)
        rows = None
    if rows is not None:
        batched = leaves(s2s.vmap(call)(*(np.stack([p, q]) for p, q in zip(args, more))))
        for k, row in enumerate(rows):
            _same([b[k] for b in batched], row, rtol)
    if not all(np.all(np.isfinite(w)) for w in leaves(want)) or dt == "complex":
        return
    argnums = tuple(range(len(args)))
    grads = s2s.grad(loss, argnums=argnums)(*args)
    if dt == "int":
        for g in grads:
            np.testing.assert_array_equal(g, 0.0)
    else:
        ref = s2s.grad(getattr(module, f"plain_loss_{i}"), argnums=argnums)(*args)
        for g, r in zip(grads, ref):
            np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-4)
