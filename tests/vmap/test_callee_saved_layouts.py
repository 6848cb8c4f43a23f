"""vmap of a derivative whose callee's record holds an array in Fortran order and a view of it
(np.cov of a gathered batch: the gather gives a Fortran-ordered batch, its centered copy keeps
that order, and the transpose is a view of it). The backward sweep's own copy of the record
(rt.private) copied the base in C order and rebuilt the view with the old strides over it: a
silently wrong gradient (issue 27, fuzz seeds 3027/3017; plain grad too, of a Fortran-ordered
argument). Each case is checked against a Python loop of the same derivative over the examples,
for a callee and the same body inline."""
import importlib.util
import itertools
import zlib

import numpy as np
import pytest

import s2s
from s2s.runtime.tape_copies import private

XS = np.array([[0.73, 0.61, 0.08, -0.3], [0.2, -0.5, 0.9, 0.4], [0.1, 0.3, -0.7, 0.25]])
REDUCTIONS = {"cov": "np.cov({g})", "corrcoef": "np.sum(np.corrcoef({g}, {g} ** 2))",
              "outer": "np.sum(np.atleast_2d({g} - 0.5).T @ np.atleast_2d({g} - 0.5))", "var": "np.var({g})"}
INDEXES = {"list": "x[[2, 0, 1, 3]]", "array": "x[np.array([3, 1, 0, 2])]",
           "mask": "x[np.array([True, False, True, True])]", "reversed": "x[::-1]"}
UPDATES = {"slice": "acc[:2] += {r}", "element": "acc[1] = acc[1] * {r}"}


def _module(tmp_path, red, idx, upd):
    r = REDUCTIONS[red].format(g=INDEXES[idx])
    body = f"    acc = x * 1.0\n    {UPDATES[upd].format(r=r)}\n"
    src = ("import numpy as np\n\n\n"
           f"def _helper(x):\n{body}    return acc\n\n\n"
           "def callee(x):\n    return np.sum(np.sin(_helper(x)))\n\n\n"
           f"def inline(x):\n{body}    return np.sum(np.sin(acc))\n")
    path = tmp_path / f"layouts_{red}_{idx}_{upd}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"layouts_{zlib.crc32(src.encode())}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _loop(fn, *columns):
    return np.stack([fn(*row) for row in zip(*columns)])


@pytest.mark.parametrize("red, idx, upd", list(itertools.product(REDUCTIONS, INDEXES, UPDATES)))
def test_vmap_of_grad_callee_and_inline_match_the_loop(tmp_path, red, idx, upd):
    mod = _module(tmp_path, red, idx, upd)
    for fn in (mod.callee, mod.inline):
        g = s2s.grad(fn)
        np.testing.assert_allclose(s2s.vmap(g)(XS), _loop(g, XS), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("idx", list(INDEXES))
def test_vmap_of_jvp_and_jacfwd_of_grad_of_a_callee_match_the_loop(tmp_path, idx):
    fn = _module(tmp_path, "cov", idx, "slice").callee
    vs = XS[::-1] * 0.5

    def tangent(x, v):
        return s2s.jvp(fn, (x,), (v,))[1]
    np.testing.assert_allclose(s2s.vmap(tangent)(XS, vs), _loop(tangent, XS, vs), rtol=1e-10, atol=1e-12)
    hess = s2s.jacfwd(s2s.grad(fn))
    np.testing.assert_allclose(s2s.vmap(hess)(XS), _loop(hess, XS), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("view_first", [False, True])
def test_private_copies_a_base_and_its_view_in_any_layout(order, view_first):
    base = np.asarray(np.arange(24.0).reshape(2, 3, 4), order=order)
    view = base.transpose(0, 2, 1)[:, 1:]
    record = (view, base) if view_first else (base, view)
    copy = private(record, True)
    got_view, got_base = copy if view_first else copy[::-1]
    np.testing.assert_array_equal(got_view, view)
    np.testing.assert_array_equal(got_base, base)
    assert not np.shares_memory(got_base, base) and not np.shares_memory(got_view, base)
    got_base[...] = -1.0  # the copy of the view is still a view of the copy of its base
    np.testing.assert_array_equal(got_view, -np.ones_like(view))


def _cov_into_row(m):
    acc = m * 1.0
    acc[0] += np.sum(np.cov(m))
    return acc


def cov_into_row(m):
    return np.sum(np.sin(_cov_into_row(m)))


@pytest.mark.parametrize("order", ["C", "F"])
def test_plain_grad_of_a_fortran_ordered_argument(order):
    """No vmap needed: a Fortran-ordered argument makes the callee's centered copy Fortran-ordered
    too, and its transpose a view of it (wrong before, for order="F" only)."""
    m = np.asarray(np.random.default_rng(0).normal(size=(3, 4)), order=order)
    want = np.zeros_like(m)
    for k in np.ndindex(m.shape):
        e = np.zeros_like(m)
        e[k] = 1e-6
        want[k] = (cov_into_row(m + e) - cov_into_row(m - e)) / 2e-6
    np.testing.assert_allclose(s2s.grad(cov_into_row)(m), want, rtol=1e-6, atol=1e-8)
