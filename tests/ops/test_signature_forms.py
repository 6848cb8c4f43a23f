"""Every optional parameter a primitive's declaration lists, passed by position and by keyword
(issue 27, family 7): the call is generated from the declaration's signature, its array arguments
drawn by the op sweep's spec for that operation (tests/support/op_specs.py), each optional
parameter given its default explicitly. A form NumPy itself rejects (a keyword-only parameter
passed by position) is not one NumPy documents: s2s must reject it too, with NumPy's class of error
or an S2SError (never a number where NumPy has none); every other form must give NumPy's value,
and its derivative (grad and jvp) must match central differences of NumPy's own function.

A declaration that took `x, *args` bound a keyword to the wrong parameter or dropped it; this
test reaches every parameter a declaration names, so none can go untested.
"""
import importlib.util
import zlib

import numpy as np
import pytest
from op_specs import SPECS

import s2s
from s2s.compiler.primitives import registry
from s2s.errors import S2SError

SKIP_PARAMS = {"out"}  # refused (tests/ops: out= is an S2SError)


def _cases():
    specs = {}
    for sp in SPECS:
        specs.setdefault(sp.op, sp)
    for name, p in sorted(registry.PRIMS.items()):
        op = name[3:]
        if not name.startswith("xp.") or any("*" in a for a in p.params) or op not in specs:
            continue
        sp = specs[op]
        required = [a for a in p.params if a not in p.defaults]
        if len(required) != len(sp.draws):
            continue
        for k, a in enumerate(p.params):
            if a in p.defaults and a not in SKIP_PARAMS and _literal(p.defaults[a]):
                for form in ("positional", "keyword"):
                    yield pytest.param(name, sp, k, form, id=f"{op}-{a}-{form}")


def _literal(v) -> bool:
    try:
        return eval(repr(v), {}) == v or v is None
    except Exception:
        return False


CASES = list(_cases())


def _source(name, p, k, form) -> str:
    op = "np." + name[3:]
    required = [a for a in p.params if a not in p.defaults]
    args = list(required)
    if form == "positional":
        args += [repr(p.defaults[a]) for a in p.params[len(required):k + 1]]
    else:
        args.append(f"{p.params[k]}={p.defaults[p.params[k]]!r}")
    return (f"import numpy as np\n\n\ndef call({', '.join(required)}):\n    return {op}({', '.join(args)})\n\n\n"
            f"def scalar({', '.join(required)}):\n    return np.sum(np.sin(call({', '.join(required)})))\n\n\n"
            f"def scalar_parts({', '.join(required)}):\n    z = call({', '.join(required)})\n"
            "    return np.sum(np.sin(np.real(z))) + np.sum(np.cos(np.imag(z)))\n")


def _module(tmp_path, src):
    path = tmp_path / "generated_call.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"generated_call_{zlib.crc32(src.encode())}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_table_reaches_the_declared_parameters():
    ops = {c.values[0] for c in CASES}
    assert len(CASES) >= 200 and {"xp.sum", "xp.cov", "xp.cumulative_sum", "xp.linalg.norm"} <= ops, sorted(ops)


@pytest.mark.parametrize("name, sp, k, form", CASES)
def test_every_declared_parameter_by_position_and_keyword(tmp_path, name, sp, k, form):
    p = registry.PRIMS[name]
    mod = _module(tmp_path, _source(name, p, k, form))
    args = sp.args(np.random.default_rng(zlib.crc32(sp.id.encode())))
    try:
        want = mod.call(*args)
    except Exception as e:  # a keyword-only parameter passed by position; a default these draws do not fit
        # not a form NumPy documents for these arguments: s2s rejects it too (NumPy's error, or an S2SError)
        for transform in (s2s.jit, s2s.grad):
            with pytest.raises((type(e), S2SError)):
                transform(mod.call if transform is s2s.jit else mod.scalar)(*args)
        return
    if isinstance(want, tuple) or not np.issubdtype(np.asarray(want).dtype, np.number):
        np.testing.assert_equal(s2s.jit(mod.call)(*args), want)
        return
    try:
        got = s2s.jit(mod.call)(*args)
    except S2SError as e:
        pytest.fail(f"refused a form NumPy accepts: {e}")
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    if not np.issubdtype(np.asarray(args[0]).dtype, np.floating):
        return
    scalar = mod.scalar_parts if np.iscomplexobj(want) else mod.scalar  # (np.fft: a real function of a complex result)
    rng = np.random.default_rng(1)
    d = tuple(rng.standard_normal(np.shape(a)) for a in args)
    eps = 1e-6
    plus, minus = [a + eps * v for a, v in zip(args, d)], [a - eps * v for a, v in zip(args, d)]
    fd = (scalar(*plus) - scalar(*minus)) / (2 * eps)
    grads = s2s.grad(scalar, argnums=tuple(range(len(args))))(*args)
    rev = sum(float(np.sum(g * v)) for g, v in zip(grads, d))
    fwd = float(s2s.jvp(scalar, tuple(args), d)[1])
    assert abs(rev - fd) <= 1e-5 * (1 + abs(fd)), f"grad: {rev}, central differences: {fd}"
    assert abs(fwd - fd) <= 1e-5 * (1 + abs(fd)), f"jvp: {fwd}, central differences: {fd}"


X = np.array([0.123, 1.456, -2.789, 0.5])


def round_forms(x):
    return (np.round(x, 1) + np.round(x, decimals=2) + np.around(x, 1) + np.around(x, decimals=2, out=None)
            + x.round(1) + x.round(decimals=2)) * x


def index_forms(x):
    s = np.sum(x[np.nonzero(x > 0.0)] ** 2) + np.sum(x[np.flatnonzero(x > 0.0)])
    s = s + np.sum(x[np.argsort(x, -1)] * x) + np.sum(x[np.argsort(x, axis=-1, kind="stable")] * x)
    s = s + np.sum(x[np.argsort(x, stable=True)] * x)
    edges = np.sort(x)
    return s + np.sum(np.searchsorted(edges, x, "right") * x) + np.sum(np.searchsorted(edges, x, side="left") * x)


@pytest.mark.parametrize("f", [round_forms, index_forms])
def test_whole_signatures_of_rounding_and_index_functions(f):
    """np.round/around (decimals=), argsort (axis, kind, stable), nonzero, searchsorted (side) by
    position and keyword: NumPy's values; derivatives against central differences (the rounded
    and index values are constants of x)."""
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)
    fd = np.array([(np.sum(f(X + 1e-6 * e)) - np.sum(f(X - 1e-6 * e))) / 2e-6 for e in np.eye(len(X))])
    np.testing.assert_allclose(s2s.grad(lambda x: np.sum(f(x)))(X), fd, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(s2s.jacfwd(f)(X).sum(axis=0) if np.ndim(f(X)) else s2s.jacfwd(f)(X), fd,
                               rtol=1e-6, atol=1e-6)


def round_into(x):
    y = np.zeros(4)
    np.round(x, 1, y)
    return np.sum(y * x)


def test_out_by_position_is_refused():
    """`np.round(x, 1, y)` writes into y, which s2s would not follow (a silent zero through y)."""
    with pytest.raises(S2SError, match="out="):
        s2s.grad(round_into)(X)


def min_of_a_number_along_an_axis(x):
    return np.amin(x[0], axis=0) * x[1] + np.max(x[2], axis=-1) * x[0] + np.sum(x[1] * x[2], axis=0, keepdims=True) \
        * np.prod(x[0], axis=-1) + np.min(x[1] ** 2, axis=0, keepdims=True) * x[2]


def test_reduction_of_a_number_along_an_axis():
    """A reduction of a NumPy number along axis 0 or -1 (NumPy allows it: the number) in grad, vmap,
    vmap(grad) and hessian; its cotangent kept a trailing axis (grad: ValueError) and vmap shifted
    the axis past the batch (AxisError; axis -1 would have run across the examples). Found by the
    keyword fuzzer."""
    x = np.array([0.3, -0.5, 0.7])
    f = min_of_a_number_along_an_axis
    e = np.eye(3)
    fd = [(f(x + 1e-6 * d) - f(x - 1e-6 * d)) / 2e-6 for d in e]
    np.testing.assert_allclose(s2s.grad(f)(x), np.ravel(fd), rtol=1e-6)
    g = s2s.grad(f)
    fd2 = np.array([(g(x + 1e-6 * d) - g(x - 1e-6 * d)) / 2e-6 for d in e])
    np.testing.assert_allclose(s2s.hessian(f)(x), fd2, rtol=1e-6, atol=1e-8)
    xs = np.stack([x, 2 * x, -x])
    np.testing.assert_allclose(s2s.vmap(f)(xs), np.ravel([f(r) for r in xs]), rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(g)(xs), [g(r) for r in xs], rtol=1e-12)
