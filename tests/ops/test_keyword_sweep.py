"""The operation x keyword sweep (issue 44, family 2): every parameter of NumPy's signature of every
operation the registry declares, at values other than its default, generated from the signature.

The base call of an operation is its spec's (tests/support/op_specs.py: the first `np.<op>(...)`
call its function returns, with the spec's draws), or, for an operation without one, the call of
it on float matrices (one or two). Each parameter of NumPy's function (read with `inspect.signature` or a
ufunc's attributes, s2s.compiler.primitives.keywords) that has a default is given a value that differs
from it and from the base call's, drawn from the parameter's type and name: the other booleans, integers
past the ends (out-of-range axes and indices, negative ones), crossed bounds, the other documented
strings (`order="F"`, `mode="clip"`). Then, one of:

- NumPy itself raises: s2s raises too (NumPy's class of error, or an S2SError), never a number;
- s2s refuses (an S2SError naming the user's file): every transform refuses, and only a parameter
  that the operation's declaration does not model (s2s.compiler.primitives.keywords) or a derivative s2s
  does not have is refused (the table REFUSED below says which);
- otherwise jit gives NumPy's value, vmap gives the loop's values over two examples, and grad and
  jvp match central differences of NumPy's own function (for float results).

`dtype=` and `copy=` are the casts' and views' parameters (issue 44, families 3 and 4: their own
tests), `out=` is refused everywhere (tests/ops/test_refused_arguments.py); the rest is swept.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest
from helpers_compare import leaves
from helpers_modules import module_of
from keyword_cases import cases

import s2s
from s2s.compiler.primitives import keywords
from s2s.errors import S2SError

CASES = cases()


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    """Every case's function in one file (s2s reads the source), `call_<i>` and its scalar `loss_<i>`
    (`parts_loss_<i>` for a tuple of results)."""
    lines = ["import numpy as np", ""]
    for i, (_, _, _, src, names, _) in enumerate(CASES):
        args = ", ".join(names)
        lines += ["", f"def call_{i}({args}):", f"    return {src}", "", "",
                  f"def loss_{i}({args}):", f"    return np.sum(np.sin(call_{i}({args})))", "", "",
                  f"def parts_loss_{i}({args}):", "    total = 0.0", f"    for part in call_{i}({args}):",
                  "        total = total + np.sum(np.sin(part))", "    return total", ""]
    return module_of(tmp_path_factory.mktemp("sweep"), "keyword_sweep_cases", lines)


def test_the_sweep_reaches_every_operation_with_a_signature():
    """Every declared primitive with a NumPy function whose parameters can be varied is swept."""
    swept = {c[0] for c in CASES}
    assert len(CASES) >= 400 and {"xp.ravel", "xp.reshape", "xp.take", "xp.linalg.cholesky", "xp.clip",
                                   "xp.concatenate", "xp.linalg.qr", "xp.linspace", "xp.max"} <= swept, sorted(swept)


def _same(got, want, rtol=1e-10):
    gl, wl = leaves(got), leaves(want)
    assert len(gl) == len(wl)
    for g, w in zip(gl, wl):
        assert np.shape(g) == np.shape(w), (np.shape(g), np.shape(w))
        if np.issubdtype(w.dtype, np.number) or w.dtype == bool:
            np.testing.assert_allclose(np.asarray(g, dtype=np.result_type(w, float) if w.dtype != bool else bool),
                                       w, rtol=rtol, atol=rtol, equal_nan=True)
        else:
            np.testing.assert_equal(g, w)


def _args(draws, seed):
    rng = np.random.default_rng(seed)
    return tuple(np.asarray(d(rng), dtype=np.float64) for d in draws)


def _refused(fn, args) -> bool:
    try:
        fn(*args)
    except S2SError:
        return True
    return False


# what the sweep found that is not fixed yet: (operation, parameter[, value]) -> the finding (strict xfail)
_KEEPDIMS = ("vmap of the flattened reduction (axis=None) with keepdims=True: an example's result has shape (1,), "
             "NumPy's (1, 1)")
FOUND: dict[tuple, str] = {
    ("xp.argmax", "keepdims"): _KEEPDIMS, ("xp.argmin", "keepdims"): _KEEPDIMS,
    ("xp.nanargmax", "keepdims"): _KEEPDIMS, ("xp.nanargmin", "keepdims"): _KEEPDIMS,
}


def _param(i, case):
    key, name = case[0], case[1]
    found = FOUND.get((key, name, case[2]), FOUND.get((key, name)))  # (one value, or every value)
    marks = [pytest.mark.xfail(strict=True, reason=found)] if found else []
    return pytest.param(i, id=f"{key[3:]}-{name}={case[2]}", marks=marks)


@pytest.mark.parametrize("i", [_param(i, c) for i, c in enumerate(CASES)])
def test_keyword_at_a_non_default_value(module, i):
    key, name, value, src, names, draws = CASES[i]
    call, loss = getattr(module, f"call_{i}"), getattr(module, f"loss_{i}")
    args = _args(draws, zlib.crc32(key.encode()))
    try:
        want = call(*args)
    except Exception as e:  # noqa: BLE001  (NumPy refuses this value for these arguments)
        for transform in (s2s.jit, s2s.grad):
            with pytest.raises((type(e), S2SError)):
                transform(call if transform is s2s.jit else loss)(*args)
        with pytest.raises((type(e), S2SError)):  # (vmap of np.gradient(a, axis=5) gave a number)
            s2s.vmap(call)(*(np.stack([a, a]) for a in args))
        return
    try:
        got = s2s.jit(call)(*args)
    except S2SError as e:
        # refused: only an argument the declaration does not model, and every transform refuses it
        assert name in REFUSED.get(key, ()) or _unmodelled(key, name), f"refused a modelled argument: {e}"
        assert _refused(s2s.grad(loss), args) and _refused(s2s.vmap(call), tuple(np.stack([a, a]) for a in args))
        return
    if key in UNINITIALIZED:  # (its values are whatever the memory held: the shape and dtype are the result)
        want, got = np.zeros_like(want), np.zeros_like(got)
    _same(got, want)
    if key in UNINITIALIZED:
        return
    more = _args(draws, 1 + zlib.crc32(key.encode()))
    try:
        rows = [call(*a) for a in (args, more)]
    except Exception:  # noqa: BLE001  (the second draw is outside the value's domain)
        rows = None
    if rows is not None:
        try:
            batched = s2s.vmap(call)(*(np.stack([a, b]) for a, b in zip(args, more)))
        except S2SError:
            assert key in VMAP_REFUSED, f"vmap refused {src}"
        else:
            for k, row in enumerate(rows):
                _same([leaves(batched)[j][k] for j in range(len(leaves(batched)))], leaves(row))
    if not all(np.issubdtype(w.dtype, np.floating) for w in leaves(want)):
        return
    if isinstance(want, tuple):
        loss = getattr(module, f"parts_loss_{i}")
    d = tuple(np.random.default_rng(7).standard_normal(np.shape(a)) for a in args)
    eps = 1e-6
    fd = (loss(*(a + eps * v for a, v in zip(args, d))) - loss(*(a - eps * v for a, v in zip(args, d)))) / (2 * eps)
    if not np.isfinite(fd):
        return
    refused = key in GRAD_REFUSED or (key, name, value) in GRAD_REFUSED
    try:  # (forward mode is checked where reverse mode refuses: np.pad's jvp of mode='maximum' was wrong)
        fwd = float(s2s.jvp(loss, tuple(args), d)[1])
    except S2SError:
        assert refused, f"jvp refused {src}"
    else:
        assert abs(fwd - fd) <= 1e-5 * (1 + abs(fd)), f"jvp of {src}: {fwd}, central differences: {fd}"
    try:
        grads = s2s.grad(loss, argnums=tuple(range(len(args))))(*args)
    except S2SError:
        assert refused, f"grad refused {src}"
        return
    rev = sum(float(np.sum(g * v)) for g, v in zip(grads, d))
    assert abs(rev - fd) <= 1e-5 * (1 + abs(fd)), f"grad of {src}: {rev}, central differences: {fd}"


def _unmodelled(key, name) -> bool:
    return name not in keywords.modelled(key)


UNINITIALIZED = {"xp.empty", "xp.empty_like"}
# refusals beyond the undeclared parameters: a value the declaration's rules do not model
REFUSED: dict[str, tuple[str, ...]] = {}
# operations whose vmap or derivative refuses (an S2SError at the user's line) for a swept value:
# quantiles other than method='linear' (a step function's derivative)
VMAP_REFUSED: set[str] = set()
# (an operation, or one value of one parameter: np.pad's modes that pick entries by value, and the linear
# ones whose reverse rule s2s does not have; forward mode follows 'mean' and 'linear_ramp')
GRAD_REFUSED: set = {"xp.percentile", "xp.quantile", "xp.nanpercentile", "xp.nanquantile",
                     *(("xp.pad", "mode", f"'{m}'") for m in ("maximum", "minimum", "median", "mean", "linear_ramp"))}
