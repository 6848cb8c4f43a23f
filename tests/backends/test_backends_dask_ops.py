"""Dask through the backend sweep (tests/support/backend_variants.py: value_and_grad and vjp against
NumPy) on the entries of the corpus and the op table whose runtime helpers or Dask spellings
needed a Dask form: in-place updates (`x[i] = v`: the copies of `fresh`/`take_at`), transposes
with computed axes, diagonal writes (a scatter-add where Dask cannot assign), and the Dask
functions whose defaults or results differ from NumPy's (cholesky's triangle, gradient's
list, svd's compute_uv, delete without an axis). The full sweep on Dask takes minutes; this is
its regression slice."""
import numpy as np
import pytest
from backend_variants import check_on_backend
from corpus import CORPUS
from op_specs import SPECS

from s2s.backends import arrays

da = pytest.importorskip("dask.array", reason="the Dask backend needs dask: pip install 's2s[dask]'")

NAMES = ["setitem_zeros", "setitem_2d_augmented", "setitem_overwrite_in_loop", "bubble_sort", "cumulative_in_place",
         "recursion_over_index", "enumerate_rows_setitem", "transpose", "permute_dims", "rollaxis", "diag__extract",
         "diagonal", "diagonal__axes", "gradient", "linalg_cholesky", "linalg_svd__values", "delete", "take_along_axis",
         # rule helpers compiled for Dask (emit/backend_callees.py): Dask's ndim/shape of Python values, roll by an
         # array shift, reshape of a NumPy array; Dask's solve of several right-hand sides
         "roll", "tile", "repeat", "cov", "corrcoef", "linalg_solve", "linalg_solve__matrix", "linalg_solve__batched",
         "take", "pad__constant_values"]  # (take of a 2-D index, as pad_constant's fill map)


def _put(a):
    """Chunked along the first axis, as s2s.device_put chunks a batch (Dask's linear algebra needs
    square or tall-and-skinny chunks)."""
    if not isinstance(a, np.ndarray):
        return a
    return da.from_array(a, chunks=(2,) + a.shape[1:] if a.ndim else ())


def _put_whole(a):
    return da.from_array(a, chunks=a.shape) if isinstance(a, np.ndarray) else a


def _get(a):
    return np.asarray(a.compute() if hasattr(a, "compute") else a)


def _is_dask(a):
    return isinstance(a, da.Array)


def _entry(name):
    for fn, make in CORPUS:
        if fn.__name__ == name:
            return fn, make
    sp = next(s for s in SPECS if s.id == name)
    return sp.fn, sp.args


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", [n for n in NAMES if n != "take_along_axis"])
def test_dask_agrees_with_numpy(name):
    fn, make = _entry(name)
    put = _put_whole if name.startswith("linalg") else _put
    check_on_backend(fn, make(np.random.default_rng(0)), put, _get, _is_dask)


def test_a_function_dask_lacks_is_a_clear_error():
    fn, make = _entry("take_along_axis")
    with pytest.raises(Exception, match="no Dask version"):
        check_on_backend(fn, make(np.random.default_rng(0)), _put, _get, _is_dask)


@pytest.mark.parametrize("index, axis, mode", [
    (np.array([[1, 0], [3, 3]]), 2, "raise"), (np.array([5, -1, 0]), None, "raise"), (np.array([[7, -3]]), 1, "clip"),
    (np.array([[7, -3]]), 1, "wrap"), (2, 1, "raise"), (np.array([[0, 1], [1, 1]]), 0, "raise")])
def test_dask_take_matches_numpy_for_every_index_rank_and_mode(index, axis, mode):
    x = np.arange(24.0).reshape(2, 3, 4)
    xp = arrays.by_name("dask").xp
    for idx in (index, da.from_array(np.asarray(index))):  # a NumPy index, and a lazy one
        got = xp.take(da.from_array(x, chunks=(1, 2, 4)), idx, axis=axis, mode=mode)
        assert _is_dask(got)
        np.testing.assert_array_equal(got.compute(), np.take(x, np.asarray(index), axis=axis, mode=mode))
