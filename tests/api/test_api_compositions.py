"""The vmap compositions that do not batch the derivative code directly run generated functions
built in core form (transforms/compose.py), compiled and loaded like every other generated
function: vmap(grad(f)) and vmap(jacrev(f)) as the derivative of the examples' sum, and
vmap(vmap(grad(f))) as one vmap over both batch axes merged. Values against Python loops;
the wrappers' trees pass the core-form validator and their source is what `s2s.source` shows."""
import ast
import linecache
import pathlib

import numpy as np
import pytest

import s2s
from s2s.base import record
from s2s.compiler.ir.validate import validate
from s2s.compiler.transforms import compose
from s2s.compiler.transforms.compose import merge_batch_axes, split_batch_axes

RNG = np.random.default_rng(7)
W = np.abs(RNG.normal(size=(4, 5, 3))) + 0.1
X = np.abs(RNG.normal(size=(4, 5, 3)))


def until(w, x):
    """A while loop whose trip count depends on the example: its gradient's tape is not batched."""
    y = w * 1.0
    while np.sum(y) < 3.0:
        y = y * 1.5 + x
    return np.sum(y ** 2)


def until_aux(w, x):
    y = w * 1.0
    while np.sum(y) < 3.0:
        y = y * 1.5 + x
    return np.sum(y ** 2), y[0]


def until_rows(w, x):
    y = w * 1.0
    while np.sum(y) < 3.0:
        y = y * 1.5 + x
    return y ** 2


def _wrappers(fn):
    """The generated functions `fn` runs (itself and every one it calls)."""
    return record.generated_closure([fn])


def _assert_generated(fn, name_start: str):
    """`fn` is a generated function in core form whose source is registered for tracebacks."""
    rec = record.of(fn)
    assert rec is not None and rec.core is not None, fn
    assert fn.__name__.startswith(name_start), fn.__name__
    validate(rec.core[0])
    lines = linecache.getlines(fn.__code__.co_filename)
    assert "".join(lines) in rec.source
    assert f"def {fn.__name__}(" in rec.source


@pytest.mark.parametrize("has_aux,with_value", [(False, False), (True, False), (False, True), (True, True)])
def test_vmap_of_grad_runs_the_gradient_of_the_sum(has_aux, with_value):
    f = until_aux if has_aux else until
    g = (s2s.value_and_grad if with_value else s2s.grad)(f, argnums=(0, 1), has_aux=has_aux)
    batched = s2s.vmap(g)
    got = batched(W[0], X[0])
    want = [g(W[0, i], X[0, i]) for i in range(5)]
    flat_got, flat_want = s2s.base.tree.tree_leaves(got), [s2s.base.tree.tree_leaves(w) for w in want]
    for k, leaf in enumerate(flat_got):
        np.testing.assert_allclose(leaf, np.array([w[k] for w in flat_want]), rtol=1e-12, atol=1e-14)
    names = [fn.__name__ for fn in _wrappers(batched.compiled)]
    assert names[0] == "jit_vmap_grad_" + f.__name__, names  # the wrapper, optimized as jit


@pytest.mark.parametrize("has_aux,with_value", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("argnums", [0, (0, 1)])
def test_wrappers_are_built_in_core_form(has_aux, with_value, argnums):
    """What the builders return passes the core-form validator as it is (before any pass)."""
    core = s2s.compiler.driver.core_of(until)
    names = ("w", "x")
    in_axes = (0, None)
    for kind in ("grad", "jacrev"):
        validate(compose.summed_fn(core, names, until, kind, has_aux, with_value).node)
    validate(compose.batched_grad_fn(core, names, until, [True, True], with_value, in_axes, 0, None).node)
    validate(compose.batched_jacrev_fn(core, names, until, [True, False], argnums, in_axes, 1, 5).node)
    validate(compose.merged_vmap_fn(core, "grad", names, until, (in_axes, 0, None), (0, 1, None),
                                    (0, None), (0, 0)).node)


def test_vmap_of_grad_is_built_once():
    batched = s2s.vmap(s2s.grad(until))
    batched(W[0], X[0])
    src = record.of(batched.compiled).source
    assert src.startswith("# s2s: jit of vmap_grad_until")
    assert "rt.vmap_size(" in src and "rt.vmap_out(" in src
    assert s2s.compiler.driver.grad_of_batched(until, ("w", "x"), 0, False, False, 0, 0, None) is batched.compiled


def test_vmap_of_jacrev_runs_the_jacobian_of_the_sum():
    jac = s2s.jacrev(until_rows, argnums=(0, 1))
    batched = s2s.vmap(jac, in_axes=(0, None), out_axes=1)
    got = batched(W[0], X[0, 0])
    want = [jac(W[0, i], X[0, 0]) for i in range(5)]
    for k in range(2):
        np.testing.assert_allclose(got[k], np.moveaxis(np.array([w[k] for w in want]), 0, 1), rtol=1e-12)
    fn = batched.compiled
    _assert_generated(fn, "vmap_jacrev_until_rows")
    assert "xp.moveaxis(" in record.of(fn).source
    closure = [f.__name__ for f in _wrappers(fn)]
    assert "jacrev_summed_vmap_until_rows" in closure, closure
    summed = next(f for f in _wrappers(fn) if f.__name__ == "fwd_summed_vmap_until_rows")
    assert "xp.sum(v, axis=0)" in record.of(summed).source


def test_vmap_vmap_grad_runs_the_merged_wrapper_that_source_shows():
    w, x = W[0], np.moveaxis(X, 1, 2)  # w shared by the outer batch; x: inner batch at axis -1
    v = s2s.vmap(s2s.vmap(s2s.grad(until), in_axes=(0, -1)), in_axes=(None, 0))
    got = v(w, x)
    want = np.array([[s2s.grad(until)(w[j], x[i, :, j]) for j in range(5)] for i in range(4)])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    merged = v.merged_version((w, x))
    _assert_generated(merged, "merged_")
    text = s2s.source(v, w, x)
    assert text.startswith(record.of(merged).source)  # then the generated functions it calls
    assert text.startswith("# s2s: vmap of vmap of grad of until")
    assert "merge_batch_axes(x, 0, -1, n_outer, n_inner)" in text
    assert "split_batch_axes(" in text
    # a dump of it imports the helpers it calls
    from s2s.compiler.emit.dump import module_source
    dumped = module_source(_wrappers(merged), "merged")
    assert "from s2s.compiler.transforms.compose import merge_batch_axes" in dumped


def test_vmap_vmap_grad_other_arguments_run_nested():
    """An argument that is not a NumPy array or a Python number (a float32 scalar) does not fit
    the merge: the nested transform runs, with the same values."""
    def f(w, s):
        return np.sum(np.sin(w) * s)
    s = np.float32(2.0)
    v = s2s.vmap(s2s.vmap(s2s.grad(f), in_axes=(0, None)), in_axes=(0, None))
    assert v.merged_version((W, s)) is None
    assert v.merged_version((W, 2.0)) is not None
    got = v(W, s)
    want = np.array([[s2s.grad(f)(W[i, j], s) for j in range(5)] for i in range(4)])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got, np.cos(W) * 2.0, rtol=1e-6)


@pytest.mark.parametrize("outer,inner", [(0, 0), (1, -1), (None, 0), (2, None), (-1, 1)])
def test_merge_batch_axes_against_indexing(outer, inner):
    a = RNG.normal(size=(3, 4, 2, 5))
    n0 = 3 if outer is None else a.shape[outer]
    ex_rank = a.ndim - (outer is not None)
    example = a if outer is None else np.take(a, 0, axis=outer)
    n1 = 2 if inner is None else example.shape[inner % ex_rank]
    merged = merge_batch_axes(a, outer, inner, n0, n1)
    for i in range(n0):
        e = a if outer is None else np.take(a, i, axis=outer)
        for j in range(n1):
            want = e if inner is None else np.take(e, j, axis=inner)
            np.testing.assert_array_equal(merged[i * n1 + j], want)


@pytest.mark.parametrize("out0,out1", [(0, 0), (1, 0), (0, 1), (-1, -1)])
def test_split_batch_axes_against_indexing(out0, out1):
    n0, n1 = 3, 4
    flat = RNG.normal(size=(n0 * n1, 2, 5))
    out = split_batch_axes((flat, flat[:, 0]), n0, n1, out0, out1)
    for leaf, src in zip(out, (flat, flat[:, 0])):
        for i in range(n0):
            outer = np.take(leaf, i, axis=out0)
            for j in range(n1):
                np.testing.assert_array_equal(np.take(outer, j, axis=out1), src[i * n1 + j])


def test_compositions_are_not_exec_strings():
    """The call objects, the api and the composition builders run no `exec` of their own: what
    they build goes through codegen and the loader."""
    root = pathlib.Path(s2s.__file__).parent
    for rel in ("api/entry_points.py", "api/calls.py", "api/jitted.py", "api/sources.py", "compiler/transforms/compose.py"):
        tree = ast.parse((root / rel).read_text())
        calls = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
        assert "exec" not in calls and "compile" not in calls, rel
        names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        assert "_exec_function" not in names, rel
