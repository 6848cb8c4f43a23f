"""An S2SError raised while generated code runs (a rule's run-time check) starts at the user's
statement, as compile-time errors do: the file and line of the operation, in the transformed
function or in a callee in another module, under grad, vjp, jvp, jit(grad), hessian, jacfwd(grad)
and vmap(grad) (the generated
code's comments carry the user's lines through every later transform: emit/codegen.py's
places, base/tracebacks.locate)."""
import inspect
import os

import numpy as np
import pytest
import runtime_refusals

import s2s

X = np.array([0.3, 0.5])
CALLEE_LINE = next(i for i, line in enumerate(inspect.getsource(runtime_refusals).splitlines(), 1)
                   if "pinv" in line and "=" in line)


def f(x):
    return runtime_refusals.inverse_sum(np.sin(x)) * 2.0


def by_method(x, m):
    return np.sum(np.quantile(x, 0.3, method=m))


BY_METHOD_LINE = inspect.getsourcelines(by_method)[1] + 1

RUNS = {
    "grad": lambda: s2s.grad(f)(X),
    "vjp": lambda: s2s.vjp(f, X)[1](1.0),
    "jvp": lambda: s2s.jvp(f, (X,), (X,)),
    "jit_grad": lambda: s2s.jit(s2s.grad(f))(X),
    # transforms of generated code (jvp of jacrev's sweeps, vmap of grad's): the comments carrying
    # the user's lines are kept when generated code is normalized again (frontend/normalize.py)
    "hessian": lambda: s2s.hessian(f)(X),
    "vmap_grad": lambda: s2s.vmap(s2s.grad(f))(np.stack([X, 2.0 * X])),
    "jacfwd_grad": lambda: s2s.jacfwd(s2s.grad(f))(X),
    "grad_of_vmap": lambda: s2s.grad(lambda x: np.sum(s2s.vmap(f)(x)))(np.stack([X, 2.0 * X])),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_run_time_refusal_in_a_callee_names_its_file_and_line(name):
    with pytest.raises(s2s.S2SError) as info:
        RUNS[name]()
    first, second, caret = str(info.value).splitlines()[:3]
    assert first == f"{os.path.relpath(runtime_refusals.__file__)}:{CALLEE_LINE}:5"  # (the statement's column)
    assert second.strip() == "z = np.linalg.pinv(np.outer(y, y), rcond=0.5)"
    assert caret == "        ^"
    assert "cutoff drops" in str(info.value)  # (the rule's own message follows)


def test_run_time_refusal_of_a_keyword_known_only_when_it_runs():
    with pytest.raises(s2s.S2SError) as info:
        s2s.grad(by_method)(np.arange(5.0), "inverted_cdf")
    assert str(info.value).splitlines()[0] == f"{os.path.relpath(__file__)}:{BY_METHOD_LINE}:5"
    assert "inverted_cdf" in str(info.value)


def test_the_location_is_added_once_whatever_the_traceback_setting(monkeypatch):
    monkeypatch.setenv("S2S_TRACEBACK", "full")
    with pytest.raises(s2s.S2SError) as info:
        s2s.grad(f)(X)
    assert str(info.value).count(f"{os.path.basename(runtime_refusals.__file__)}:{CALLEE_LINE}") == 1
