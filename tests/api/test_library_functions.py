"""NumPy functions transform directly, as in JAX's first examples (`grad(jnp.tanh)`, `vjp(jnp.sin, x)`):
every NumPy ufunc with a derivative rule, checked against central differences."""
import numpy as np
import pytest

import s2s
import s2s.numpy as jnp
from s2s.compiler.primitives.registry import PRIMS
from s2s.test_util import check_grads

UFUNCS = sorted(n for n, p in PRIMS.items() if n.startswith("xp.") and isinstance(getattr(np, n[3:], None), np.ufunc)
                and getattr(np, n[3:]).nin in (1, 2) and getattr(np, n[3:]).nout == 1
                and getattr(np, n[3:]).signature is None  # gufuncs (matmul) need matrices: tested elsewhere
                and n != "xp.ldexp" and not p.nondiff and p.vjp)


def _point(f):
    """Arguments inside the function's smooth domain (arccosh needs > 1, arctanh < 1)."""
    for v in (0.4, 1.4, 2.3):
        args = tuple(np.array([v + 0.55 * k, v + 0.17 + 0.3 * k]) for k in range(f.nin))
        with np.errstate(all="ignore"):
            out = f(*args)
        if np.all(np.isfinite(out)) and np.issubdtype(np.asarray(out).dtype, np.floating):
            return args
    return None


def test_every_ufunc_with_rules_is_covered():
    assert len(UFUNCS) > 30 and "xp.tanh" in UFUNCS and "xp.arctan2" in UFUNCS


@pytest.mark.parametrize("name", UFUNCS)
def test_ufunc_transforms_directly(name):
    f = getattr(np, name[3:])
    args = _point(f)
    if args is None:
        pytest.skip(f"no smooth real point for {name}")  # not counted: the coverage test above counts
    check_grads(lambda *a: f(*a), args, order=1, modes=("fwd", "rev"))
    out, vjp_fn = s2s.vjp(f, *args)
    np.testing.assert_allclose(out, f(*args))
    ct = vjp_fn(np.ones_like(out))
    jac = [s2s.jacfwd(f, argnums=k)(*args) for k in range(f.nin)]
    for k in range(f.nin):
        np.testing.assert_allclose(ct[k], np.ones_like(out) @ jac[k], rtol=1e-10, atol=1e-12)


def test_grad_of_tanh_and_vjp_of_sin_as_in_jax():
    assert np.isclose(s2s.grad(jnp.tanh)(0.5), 1 - np.tanh(0.5) ** 2)
    x = np.array([0.3, -0.5, 1.2])
    (ct,) = s2s.vjp(jnp.sin, x)[1](np.ones(3))
    np.testing.assert_allclose(ct, np.cos(x))
    np.testing.assert_allclose(s2s.grad(np.sum)(x), np.ones(3))
    assert np.isclose(s2s.grad(s2s.grad(np.exp))(1.0), np.e)


@pytest.mark.parametrize("f", [np.exp, np.tanh, np.sin, np.log1p])
def test_check_grads_of_a_numpy_function_at_order_two_in_both_modes(f):
    """A NumPy function given straight to check_grads at order 2: its linear maps (jvp of jvp,
    vjp of vjp) take the adapted function (no `out=`), as jvp and vjp do (forward mode crashed
    with `jvp_exp_() takes 2 positional arguments but 3 were given`)."""
    check_grads(f, (np.array([0.3, 0.5]),), order=2, modes=("fwd", "rev"))
