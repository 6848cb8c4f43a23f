"""The operation x keyword sweep's cases written as array methods (issue 44, family 2): `x.clip(...)`,
`x.std(ddof=2)`, `x.take(i, mode="clip")`, `x.conj(order="F")`. A method is lowered by its own
NumPy signature, which is not always its function's (`ndarray.clip`'s bounds are both optional,
`ndarray.conj` takes no argument), so each case of tests/ops/test_keyword_sweep.py whose operation
is a method is run again in that form: NumPy raises and every transform raises too, or jit gives
NumPy's value, and grad of a float case gives the gradient of the function form, which that sweep
checks against central differences."""
from __future__ import annotations

import re
import zlib

import numpy as np
import pytest
from helpers_modules import module_of
from keyword_cases import cases

import s2s
from s2s.compiler.primitives import registry
from s2s.errors import S2SError

METHODS = {m for p in registry.PRIMS.values() for m in p.methods} - {"astype", "item"}


def _method_cases() -> list:
    """(case, the method's source) for each sweep case `np.op(x, ...)` whose op is a method."""
    out = []
    for case in cases():
        op, src = case[0][3:], case[3]
        found = re.match(rf"np\.{re.escape(op)}\(([A-Za-z_]\w*)(?=[,)])(?:, )?(.*)\)$", src)
        if op in METHODS and found:
            out.append((case, f"{found.group(1)}.{op}({found.group(2)})"))
    return out


CASES = _method_cases()


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    lines = ["import numpy as np", ""]
    for i, ((_, _, _, src, names, _), method) in enumerate(CASES):
        args = ", ".join(names)
        for kind, text in (("method", method), ("function", src)):
            lines += ["", f"def {kind}_{i}({args}):", f"    return {text}", "", "",
                      f"def {kind}_loss_{i}({args}):", f"    return np.sum(np.sin({kind}_{i}({args})))", ""]
    return module_of(tmp_path_factory.mktemp("methods"), "keyword_sweep_methods", lines)


def test_the_methods_are_swept():
    assert len(CASES) >= 90 and {c[0][0] for c in CASES} >= {"xp.take", "xp.std", "xp.conj", "xp.max", "xp.cumsum"}


@pytest.mark.parametrize("i", range(len(CASES)), ids=[f"{c[1]}" for c in CASES])
def test_the_method_with_a_keyword_is_numpy_s(module, i):
    (key, _, _, _, _, draws), _ = CASES[i]
    call, loss = getattr(module, f"method_{i}"), getattr(module, f"method_loss_{i}")
    args = tuple(np.asarray(d(np.random.default_rng(zlib.crc32(key.encode()))), dtype=np.float64) for d in draws)
    try:
        want = call(*args)
    except Exception as e:  # noqa: BLE001  (NumPy refuses these arguments: so does every transform)
        for transform, fn in ((s2s.jit, call), (s2s.grad, loss)):
            with pytest.raises((type(e), S2SError)):
                transform(fn)(*args)
        return
    try:
        got = s2s.jit(call)(*args)
    except S2SError:  # (refused: the function form is refused too, by the same declaration)
        with pytest.raises(S2SError):
            s2s.jit(getattr(module, f"function_{i}"))(*args)
        return
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(np.asarray(got, dtype=complex), np.asarray(want, dtype=complex), rtol=1e-10,
                               atol=1e-10, equal_nan=True)
    if np.asarray(want).dtype.kind != "f" or not np.all(np.isfinite(want)):
        return
    try:
        g = s2s.grad(loss)(*args)
    except S2SError:
        with pytest.raises(S2SError):
            s2s.grad(getattr(module, f"function_loss_{i}"))(*args)
        return
    np.testing.assert_allclose(g, s2s.grad(getattr(module, f"function_loss_{i}"))(*args), rtol=1e-12, atol=1e-14)
