"""The derivative raises what the plain function raises (issue 44, issue 45 section 2): for each
program of a table whose plain call raises (a singular inverse, a bad reshape, an index out of
range, a ragged list, a division by zero, a broadcast mismatch, a bad axis, the user's own
`raise` or a failing `assert`), every transform raises the same exception class instead of
returning a number. The raising statement is placed where dead-code elimination used to drop it
(its value never read, read only by a branch, overwritten, inside a loop) and where it is live.

The programs are written to a module file so that s2s reads their source as a user's."""
import importlib.util
import inspect
import itertools
import os

import numpy as np
import pytest
from helpers_modules import module_of

import s2s

# (label, the raising expression over x, the class NumPy or Python raises)
RAISING = [
    ("inv", "np.linalg.inv(SINGULAR * x[0])", np.linalg.LinAlgError),
    ("reshape", "np.reshape(x, (5, 7))", ValueError),
    ("index", "x[10]", IndexError),
    ("ragged", "np.log([x, x[:2]])", ValueError),
    ("zerodiv", "x.shape[0] / (x.shape[0] - 3)", ZeroDivisionError),
    ("float_zerodiv", "float(np.sum(x)) / 0.0", ZeroDivisionError),
    ("broadcast", "x + np.ones(4)", ValueError),
    ("axis", "np.sum(x, axis=3)", np.exceptions.AxisError),
    ("cholesky", "np.linalg.cholesky(-np.eye(2) * x[0])", np.linalg.LinAlgError),
    ("matmul", "x @ np.ones((4, 2))", ValueError),
    ("accumulate", "np.maximum.accumulate(x[0] * 2.0)", TypeError),
    ("reduceat", "np.add.reduceat(np.sum(x), [0])", TypeError),
]

# where the raising value goes: {e} is the expression; each body returns a float of x
PLACES = {
    "dead": "    y = {e}\n    return np.sum(x ** 2)\n",
    "overwritten": "    y = {e}\n    y = x * 2.0\n    return np.sum(y ** 2)\n",
    "dead_in_branch": "    if x.shape[0] > 1:\n        y = {e}\n    return np.sum(np.sin(x))\n",
    "dead_in_loop": "    s = 0.0\n    for i in range(2):\n        y = {e}\n        s = s + np.sum(x * i)\n    return s\n",
    "live": "    y = {e}\n    return np.sum(np.sin(y)) + np.sum(x ** 2)\n",
    "dead_callee": "    def inner(v):\n        return v * 2.0, {e}\n    y = inner(x)\n    return np.sum(x ** 2)\n",
}

# the user's own raises: (label, body, class)
GUARDS = [
    ("raise", "    if x[0] > 0:\n        raise ValueError('positive')\n    return np.sum(x ** 2)\n", ValueError),
    ("assert", "    assert x[0] < 0, 'positive'\n    return np.sum(x ** 2)\n", AssertionError),
    ("raise_after", "    z = np.sin(x)\n    if np.sum(z) > 0:\n        raise RuntimeError(f'sum {np.sum(z)}')\n"
                    "    return np.sum(z)\n", RuntimeError),
]

X = np.array([0.3, 0.7, 1.1])
XS = np.stack([X, X + 0.2])
TRANSFORMS = {
    "grad": lambda f: s2s.grad(f)(X),
    "value_and_grad": lambda f: s2s.value_and_grad(f)(X),
    "vjp": lambda f: s2s.vjp(f, X)[1](1.0),
    "jvp": lambda f: s2s.jvp(f, (X,), (X,)),
    "jacfwd": lambda f: s2s.jacfwd(f)(X),
    "jacrev": lambda f: s2s.jacrev(f)(X),
    "hessian": lambda f: s2s.hessian(f)(X),
    "vmap": lambda f: s2s.vmap(f)(XS),
    "jit": lambda f: s2s.jit(f)(X),
    "jit_grad": lambda f: s2s.jit(s2s.grad(f))(X),
}

# known gaps, reported as strict xfails (a fix makes them fail here, so the entry goes): none now
KNOWN: dict = {}

PROGRAMS = {f"{r}-{p}": (PLACES[p].format(e=e), exc) for (r, e, exc), p in itertools.product(RAISING, PLACES)}
PROGRAMS.update({g: (body, exc) for g, body, exc in GUARDS})


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    """Every program as a function `f_<n>` of one module file (s2s reads its source)."""
    lines = ["import numpy as np", "SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])", ""]
    for n, (label, (body, _)) in enumerate(sorted(PROGRAMS.items())):
        lines += [f"def f_{n}(x):  # {label}", body.rstrip("\n"), ""]
    return module_of(tmp_path_factory.mktemp("raising"), "raising_programs", lines)


def _function(module, label):
    return getattr(module, f"f_{sorted(PROGRAMS).index(label)}")


@pytest.mark.parametrize("label", sorted(PROGRAMS))
def test_the_plain_function_raises(module, label):
    """The table is right: each plain call (one example, and each example of vmap's batch) raises."""
    f, exc = _function(module, label), PROGRAMS[label][1]
    for x in (X, *XS):
        with pytest.raises(exc):
            f(x)


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
@pytest.mark.parametrize("label", sorted(PROGRAMS))
def test_every_transform_raises_the_plain_functions_class(module, label, transform, request):
    if (label, transform) in KNOWN:
        request.applymarker(pytest.mark.xfail(strict=True, reason=KNOWN[label, transform]))
    f, exc = _function(module, label), PROGRAMS[label][1]
    with pytest.raises(Exception) as info:
        TRANSFORMS[transform](f)
    assert type(info.value) is exc, (label, transform, repr(info.value))
    # a note names the user's statement, as the plain function's traceback would (base/tracebacks.py);
    # jit re-forms a live value into the expression that reads it, one line of generated code that
    # names the last of the statements it joins (here, up to the return)
    lines, first = inspect.getsourcelines(f)
    # (a local function's statement: its line, or under reverse mode the line that calls it)
    line = first + next(k for k, text in enumerate(lines) if text.lstrip().startswith(("y = ", "raise ", "assert ",
                                                                                      "return v * 2.0")))
    last = first + len(lines) - 1 if transform.startswith("jit") and label.endswith("-live") \
        else line + 1 if label.endswith("-dead_callee") else line
    notes = getattr(info.value, "__notes__", [])
    named = {f"{os.path.relpath(module.__file__)}:{k}:" for k in range(line, last + 1)}
    assert any(n.startswith(tuple(named)) for n in notes), (notes, line)


def test_a_dead_call_whose_operands_are_good_still_gives_the_plain_values(module):
    """A kept dead call changes no value: the gradient of `np.sum(x ** 2)` beside an unread
    (invertible) inverse is 2x, and the value and the vmap match the plain function."""
    src = "def g(x):\n    y = np.linalg.inv(np.eye(2) * x[0])\n    z = x[1:] * 3.0\n    return np.sum(x ** 2)\n"
    ns = {}
    path = module.__file__.replace("raising_programs.py", "good_programs.py")
    with open(path, "w") as fh:
        fh.write("import numpy as np\n" + src)
    spec = importlib.util.spec_from_file_location("good_programs", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    g = mod.g
    np.testing.assert_allclose(s2s.grad(g)(X), 2 * X)
    np.testing.assert_allclose(s2s.jit(g)(X), g(X))
    np.testing.assert_allclose(s2s.vmap(g)(XS), [g(XS[0]), g(XS[1])])
    np.testing.assert_allclose(s2s.jacfwd(g)(X), 2 * X)
    assert ns == {}


# ---- generated programs: a loss's statements with a dead raising chain drawn among them ----
SAFE = ["a = np.sin(x) * 2.0", "b = np.sum(a * x)", "c = np.tanh(x) + a", "d = np.sum(c ** 2) + b"]


def _generated(seed: int) -> tuple[str, type]:
    """A program of seed `seed`: the loss's statements with a raising expression whose value is
    never read inserted at a drawn place, at the top level, in a branch or in a loop."""
    rng = np.random.default_rng(seed)
    _, e, exc = RAISING[rng.integers(len(RAISING))]
    dead = ["t = " + e] if rng.integers(2) else ["t = " + e, "u = t"]
    nest = rng.integers(3)
    if nest == 1:
        dead = ["if x.shape[0] > 1:"] + ["    " + s for s in dead]
    elif nest == 2:
        dead = ["for i in range(2):"] + ["    " + s for s in dead]
    at = int(rng.integers(len(SAFE) + 1))
    body = SAFE[:at] + dead + SAFE[at:] + ["return d"]
    return "".join("    " + s + "\n" for s in body), exc


SEEDS = range(40)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    lines = ["import numpy as np", "SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])", ""]
    for seed in SEEDS:
        lines += [f"def g_{seed}(x):", _generated(seed)[0].rstrip("\n"), ""]
    path = tmp_path_factory.mktemp("generated") / "generated_raising.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("generated_raising", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("transform", ["grad", "jvp", "jacfwd", "hessian", "vmap", "jit", "jit_grad"])
@pytest.mark.parametrize("seed", SEEDS)
def test_generated_program_with_a_dead_raising_call(generated, seed, transform):
    f, exc = getattr(generated, f"g_{seed}"), _generated(seed)[1]
    with pytest.raises(exc):
        f(X)
    with pytest.raises(Exception) as info:
        TRANSFORMS[transform](f)
    assert type(info.value) is exc, (seed, transform, repr(info.value))
