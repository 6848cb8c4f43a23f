"""Source identity (issue 27, family 2): s2s transforms exactly the function object it is given.

`functools.wraps(g)` sets `wrapper.__wrapped__ = g` and copies g's `__dict__`; `inspect` follows
`__wrapped__`, so s2s used to compile g's source (and take g's signature and s2s record) in
place of the wrapper's. Every check compares with an independent reference: the wrapper's own
plain value, central finite differences, or a jvp/vjp pairing.
"""
import functools
import importlib.util
import sys

import numpy as np
import pytest

import s2s
from s2s.errors import S2SError
from s2s.test_util import check_grads

X = np.array([0.3, -0.7, 1.1])


def decoy(x):
    return np.sum(x ** 3)


@functools.wraps(decoy)
def wrapper(x):
    return np.sum(np.sin(x) * x)


def twice(fn):
    @functools.wraps(fn)
    def inner(x):
        return fn(x) * 2.0 + np.sum(np.cos(x))
    return inner


@twice
def decorated(x):
    return np.sum(np.tanh(x) ** 2)


def decoy2(a, scale=10.0):
    return a ** 4 * scale


@functools.wraps(decoy2)
def wrapped_callee(v, w=0.5):  # other parameter names than the function it claims to be
    return v * w + np.sin(v)


def calls_wrapped(x):
    return np.sum(wrapped_callee(x, w=3.0) ** 2)


@s2s.custom_vjp
def cube(x):
    return x ** 3


def _cube_fwd(x):
    return x ** 3, x


def _cube_bwd(x, g):
    return (g * 100.0,)  # a deliberately wrong rule: a wrapper that borrowed this record would show it


cube.defvjp(_cube_fwd, _cube_bwd)


@functools.wraps(cube)
def not_cube(x):
    return np.sum(x ** 2)


jitted = s2s.jit(decoy)


@functools.wraps(jitted)
def not_jitted(x):
    return np.sum(np.exp(0.5 * x))


def plain_grad_fd(f, x, eps=1e-6):
    return np.array([(f(x + e) - f(x - e)) / (2 * eps) for e in np.eye(len(x)) * eps])


@pytest.mark.parametrize("fn", [wrapper, decorated, not_cube, not_jitted, calls_wrapped],
                         ids=["wraps", "decorator", "wraps_custom_vjp", "wraps_jit", "wrapped_callee"])
def test_transforms_use_the_wrappers_own_code(fn):
    np.testing.assert_allclose(s2s.jit(fn)(X), fn(X), rtol=1e-13)
    np.testing.assert_allclose(s2s.grad(fn)(X), plain_grad_fd(fn, X), rtol=1e-6, atol=1e-8)
    check_grads(fn, (X,), order=2, modes=("fwd", "rev"))
    out, t = s2s.jvp(fn, (X,), (np.ones(3),))
    _, vjp_fn = s2s.vjp(fn, X)
    np.testing.assert_allclose(t, np.sum(vjp_fn(1.0)[0]), rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(fn)(np.stack([X, 2 * X])), [fn(X), fn(2 * X)], rtol=1e-13)


def test_wrapper_keyword_call_binds_by_the_wrappers_parameters():
    assert s2s.grad(wrapped_callee, argnums=1)(1.5, w=2.0) == pytest.approx(1.5)
    assert s2s.jit(wrapped_callee)(1.5, w=2.0) == pytest.approx(wrapped_callee(1.5, w=2.0))


def _module_with(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod, path


def test_source_that_is_not_the_functions_code_is_refused(tmp_path):
    """The file changed after the function was made: its code object no longer matches the text."""
    mod, path = _module_with(tmp_path, "s2s_identity_changed", "import numpy as np\n\n\ndef k(x):\n    return x * 2.0\n")
    path.write_text("import numpy as np\n\n\ndef k(y, z):\n    return y * 3.0\n")
    import linecache
    linecache.checkcache(str(path))
    with pytest.raises(S2SError, match="not the code of the function"):
        s2s.grad(mod.k)(1.0)
    path.write_text("import numpy as np\n\n\n\n\ndef k(x):\n    return x * 3.0\n")  # same name, other line
    linecache.checkcache(str(path))
    with pytest.raises(S2SError, match="not the code of the function"):
        s2s.jit(mod.k)(1.0)


def test_a_body_that_grew_since_import_is_refused(tmp_path):
    """Same name, line and parameters, but the code's line table reaches past the definition now
    in the file: the text is not the function's code."""
    mod, path = _module_with(tmp_path, "s2s_identity_grown",
                             "import numpy as np\n\n\ndef k(x):\n    y = x * 2.0\n    y = y + 1.0\n    return y\n")
    path.write_text("import numpy as np\n\n\ndef k(x):\n    return x * 3.0\n\n\nZ = 1\n")
    import linecache
    linecache.checkcache(str(path))
    with pytest.raises(S2SError, match="not the code of the function"):
        s2s.grad(mod.k)(1.0)
