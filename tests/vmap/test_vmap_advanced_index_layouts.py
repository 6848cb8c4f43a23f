"""vmap of indexing against NumPy's own layout rule, over a grid of index expressions.

Per example NumPy puts the broadcast dimensions of adjacent advanced indices where they stand
(`x[:, i]` is rows by len(i)) and those of separated ones first (`x[i, :, j]`); vmap's batched key
adds the examples' positions as one more advanced index, so each layout needs its own key (issue
#44: a transposed gather was a silently wrong number). For every expression of 2-4 parts drawn
from `:`, `1:`, literal integers (one negative), an integer argument, 1-d and 2-d integer arrays
(negative entries too), 1-d and 2-d boolean masks, `None` and `...` on a 3-d or 4-d example, with
the array and the index parts per example or shared: vmap of the read equals the loop over
examples exactly; vmap(grad) and grad of vmap of a weighted sum equal the hand-derived gradient
(np.add.at of the weights at the indexed places, per example); the stores `y[idx] = v` and
`y[idx] += v` and their gradients equal the loop and the hand-derived ones. The grid is large: a
fixed sample runs by default and the rest under the `full` marker.
"""
import importlib.util
import itertools
import sys
import zlib

import numpy as np
import pytest

import s2s

N = 3  # examples
SHAPES = {3: (3, 4, 5), 4: (3, 4, 5, 6)}
# token: (source text, axes it consumes, whether it is a function argument)
TOKENS = {":": (":", 1, False), "1:": ("1:", 1, False), "1": ("1", 1, False), "-1": ("-1", 1, False),
          "k": (None, 1, True), "a": (None, 1, True), "b": (None, 1, True), "m": (None, 1, True),
          "M": (None, 2, True), "None": ("None", 0, False), "...": ("...", 0, False)}
ADVANCED = {"a", "b", "m", "M"}
MODES = ("x_batched", "index_batched", "both_batched")


# the grid: every expression of 2 or 3 parts on a 3-d example (at most two index arguments, one
# literal integer or `1:`, one None), and of 4 parts on a 4-d one with a 2-d mask and one more array
GRID = ((3, 2, (":", "1:", "-1", "k", "a", "b", "m", "M", "None", "...")),
        (3, 3, (":", "1:", "-1", "k", "a", "b", "m", "M", "None", "...")),
        (4, 4, (":", "a", "b", "M", "None", "...")))


def _expressions():
    """Every index expression of the grid that NumPy accepts: (ndim, tokens)."""
    out = []
    for ndim, width, vocabulary in GRID:
        for toks in itertools.product(vocabulary, repeat=width):
            if toks.count("...") > 1 or toks.count("M") > 1 or toks.count("None") > 1 \
                    or sum(TOKENS[t][1] for t in toks) > ndim:
                continue
            if not set(toks) & (ADVANCED | {"k"}) or sum(t in ADVANCED | {"k"} for t in toks) > 2 \
                    or sum(t in ("1", "-1", "1:") for t in toks) > 1:
                continue
            if ndim == 4 and ("M" not in toks or sum(t in ADVANCED for t in toks) != 2):
                continue
            out.append((ndim, toks))
    return out


def _case_id(ndim, toks, mode):
    return f"{ndim}d[{','.join(toks)}]-{mode}"


def _in_default(cid) -> bool:
    return zlib.crc32(cid.encode()) % 50 == 0


def _cases():
    cases = []
    for ndim, toks in _expressions():
        for mode in MODES:
            if mode == "index_batched" and not set(toks) & {"a", "b", "k"}:
                continue  # (masks are shared: nothing would be batched)
            cid = _case_id(ndim, toks, mode)
            marks = [] if _in_default(cid) else [pytest.mark.full]
            cases.append(pytest.param(ndim, toks, mode, id=cid, marks=marks))
    return cases


CASES = _cases()


def test_the_default_sample_covers_every_layout_and_mode():
    """The default slice holds each NumPy layout (adjacent at the front, adjacent after basic parts,
    separated, none) and each batching mode, with masks, None and Ellipsis among them."""
    picked = [c.values for c in CASES if not c.marks]
    assert 20 <= len(picked) <= 60
    layouts = {_layout(toks) for _, toks, _ in picked}
    assert layouts == {"front", "inner", "apart", "basic"}
    assert {mode for _, _, mode in picked} == set(MODES)
    used = {t for _, toks, _ in picked for t in toks}
    assert {"m", "M", "None", "...", "b", "-1", "k"} <= used


def _layout(toks):
    """NumPy's case for one example's key (written out here from its documented rule)."""
    adv = [t in ADVANCED or t in ("1", "-1", "k") for t in toks]
    if not set(toks) & ADVANCED:
        return "basic"
    first, last = adv.index(True), len(adv) - 1 - adv[::-1].index(True)
    if not all(adv[first:last + 1]):
        return "apart"
    return "front" if first == 0 else "inner"


def _axes(ndim, toks):
    """The example's axis (or axes) each token indexes."""
    ell = ndim - sum(TOKENS[t][1] for t in toks)
    out, axis = [], 0
    for t in toks:
        out.append(axis)
        axis += ell if t == "..." else TOKENS[t][1]
    return out


def _source(cid, toks):
    names, text = [], []
    for j, t in enumerate(toks):
        src, _, arg = TOKENS[t]
        if arg:
            names.append(f"{t}{j}")
            text.append(f"{t}{j}")
        else:
            text.append(src)
    idx = ", ".join(text)
    args = ", ".join(["x"] + names)
    return names, f"""
import numpy as np
import s2s


def key({", ".join(names)}):
    return np.index_exp[{idx}]


def read({args}):
    return x[{idx}]


def loss({args}, w):
    return np.sum(x[{idx}] * w)


def total({args}, w):
    return np.sum(s2s.vmap(read, in_axes=AXES)({args}) * w)


def store({args}, v):
    y = x * 1.0
    y[{idx}] = v
    return y


def add_store({args}, v):
    y = x * 1.0
    y[{idx}] += v
    return y


def store_loss({args}, v, w):
    y = x * 1.0
    y[{idx}] = v
    return np.sum(y * w)


def add_store_loss({args}, v, w):
    y = x * 1.0
    y[{idx}] += v
    return np.sum(y * w)
"""


@pytest.fixture(scope="module")
def module_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("advanced_index_layouts")


def _module(directory, cid, toks, axes):
    names, src = _source(cid, toks)
    name = "advidx_" + format(zlib.crc32(cid.encode()), "08x")
    path = directory / f"{name}.py"
    path.write_text(src.replace("AXES", repr(axes)))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return names, mod


def _index_values(rng, ndim, toks, batched, distinct):
    """Each argument token's value per example (a list of N) or shared (N copies of one); with
    `distinct`, no place is named twice (a 2-d array on an axis too short for four places is 2x1)."""
    shape = SHAPES[ndim]
    out = []
    for t, axis in zip(toks, _axes(ndim, toks)):
        if not TOKENS[t][2]:
            continue
        size = shape[axis]
        per = batched and t not in ("m", "M")  # a mask that differs per example is refused (its size would)

        def draw(t=t, size=size, axis=axis):
            if t == "k":
                return int(rng.integers(-size, size))
            if t == "a":
                return rng.permutation(size)[:2] - size * rng.integers(0, 2, 2)  # distinct, some negative
            if t == "b":
                if size >= 4:
                    return rng.permutation(size)[:4].reshape(2, 2)
                return rng.permutation(size)[:2].reshape(2, 1) if distinct else rng.integers(-size, size, (2, 2))
            mshape = shape[axis:axis + (2 if t == "M" else 1)]
            m = np.zeros(int(np.prod(mshape)), bool)
            m[rng.permutation(m.size)[:2]] = True  # two places: broadcasts with the arrays' length 2
            return m.reshape(mshape)
        first = draw()
        out.append([draw() for _ in range(N)] if per else [first] * N)
    return out


def _stacked(values, batched):
    return np.stack([np.asarray(v) for v in values]) if batched else values[0]


def _setup(module_dir, ndim, toks, mode, distinct=False):
    cid = _case_id(ndim, toks, mode)
    rng = np.random.default_rng(zlib.crc32(cid.encode()))
    xb, ib = mode != "index_batched", mode != "x_batched"
    xs = [rng.standard_normal(SHAPES[ndim]) for _ in range(N)]
    if not xb:
        xs = [xs[0]] * N
    idx_vals = _index_values(rng, ndim, toks, ib, distinct)
    arg_batched = [ib and t not in ("m", "M") for t in toks if TOKENS[t][2]]
    axes = (0 if xb else None,) + tuple(0 if b else None for b in arg_batched)
    names, mod = _module(module_dir, cid, toks, axes)
    per_example = [(xs[k],) + tuple(v[k] for v in idx_vals) for k in range(N)]
    batched = [_stacked(xs, xb)] + [_stacked(v, b) for v, b in zip(idx_vals, arg_batched)]
    return rng, xb, axes, mod, per_example, batched


def _add_at(shape, key, w):
    z = np.zeros(shape)
    np.add.at(z, key, w)
    return z


@pytest.mark.parametrize("ndim, toks, mode", CASES)
def test_reads_and_their_gradients(module_dir, ndim, toks, mode):
    rng, xb, axes, mod, per_example, batched = _setup(module_dir, ndim, toks, mode)
    want = np.stack([mod.read(*ex) for ex in per_example])
    got = s2s.vmap(mod.read, in_axes=axes)(*batched)
    assert np.shape(got) == want.shape
    np.testing.assert_array_equal(got, want)

    w = rng.standard_normal(want.shape)
    keys = [mod.key(*ex[1:]) for ex in per_example]
    shape = SHAPES[ndim]
    grads = np.stack([_add_at(shape, keys[k], w[k]) for k in range(N)])
    got = s2s.vmap(s2s.grad(mod.loss), in_axes=axes + (0,))(*batched, w)
    np.testing.assert_allclose(got, grads, rtol=1e-13, atol=1e-13)

    got = s2s.grad(mod.total)(*batched, w)
    np.testing.assert_allclose(got, grads if xb else grads.sum(axis=0), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("ndim, toks, mode", CASES)
def test_stores_and_their_gradients(module_dir, ndim, toks, mode):
    rng, xb, axes, mod, per_example, batched = _setup(module_dir, ndim, toks, mode, distinct=True)
    shape = SHAPES[ndim]
    keys = [mod.key(*ex[1:]) for ex in per_example]
    places = [np.arange(int(np.prod(shape))).reshape(shape)[key] for key in keys]
    # (a place named twice: which store wins is not NumPy's documented behaviour; the draw avoids it)
    assert all(np.unique(p).size == p.size for p in places)
    v = rng.standard_normal((N,) + places[0].shape)
    w = rng.standard_normal((N,) + shape)
    for fn, loss_fn, added in ((mod.store, mod.store_loss, False), (mod.add_store, mod.add_store_loss, True)):
        want = np.stack([fn(*ex, v[k]) for k, ex in enumerate(per_example)])
        got = s2s.vmap(fn, in_axes=axes + (0,))(*batched, v)
        assert np.shape(got) == want.shape
        np.testing.assert_array_equal(got, want)
        shared = np.stack([fn(*ex, v[0]) for ex in per_example])  # one value stored by every example
        np.testing.assert_array_equal(s2s.vmap(fn, in_axes=axes + (None,))(*batched, v[0]), shared)

        gx, gv = s2s.vmap(s2s.grad(loss_fn, argnums=(0, len(axes))), in_axes=axes + (0, 0))(*batched, v, w)
        want_gx = []
        for k in range(N):
            g = w[k].copy()
            if not added:
                g[keys[k]] = 0.0
            want_gx.append(g)
        np.testing.assert_allclose(gx, np.stack(want_gx), rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(gv, np.stack([w[k][keys[k]] for k in range(N)]), rtol=1e-13, atol=1e-13)


def _apart(x, i):
    return x[i, :, i]


def _inner(x, i):
    return x[:, i]


def _front(x, i):
    return x[i, 1:]


NESTED = {_apart: lambda i: np.index_exp[i, :, i], _inner: lambda i: np.index_exp[:, i],
          _front: lambda i: np.index_exp[i, 1:]}


@pytest.mark.parametrize("f", list(NESTED), ids=lambda f: f.__name__.strip("_"))
def test_vmap_of_vmap_and_its_gradient(f):
    """The inner vmap's index per inner example, the array per outer one (one gather for both, the
    outer axis placed after the inner one or after the broadcast dimensions NumPy puts first)."""
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((2, 3, 4, 5))
    idx = np.array([[0, 2], [1, -1], [2, 0]])
    want = np.stack([np.stack([f(x, i) for i in idx]) for x in xs])
    got = s2s.vmap(s2s.vmap(f, in_axes=(None, 0)), in_axes=(0, None))(xs, idx)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)

    w = rng.standard_normal(want.shape[1:])

    def loss(x):
        return np.sum(s2s.vmap(f, in_axes=(None, 0))(x, idx) * w)

    grads = np.stack([sum(_add_at(x.shape, NESTED[f](i), w[k]) for k, i in enumerate(idx)) for x in xs])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(loss))(xs), grads, rtol=1e-13, atol=1e-13)


def _take(x, i, w):
    return np.sum(np.take(x, i, axis=1) * w)


def _take_along(x, i, w):
    return np.sum(np.take_along_axis(x, i, axis=1) * w)


@pytest.mark.parametrize("x_axis, i_axis", [(0, None), (None, 0), (0, 0)])
def test_take_and_take_along_axis_follow_the_same_layout(x_axis, i_axis):
    """np.take(x, i, axis=1) is x[:, i] per example, and take_along_axis its elementwise form:
    batched values and gradients against the loop and np.add.at."""
    rng = np.random.default_rng(11)
    xs = rng.standard_normal((N, 4, 5, 6))
    cases = [(_take, rng.integers(-5, 5, (N, 2, 3)), lambda i: np.index_exp[:, i]),
             (_take_along, rng.integers(0, 5, (N, 4, 2, 6)),
              lambda i: (np.arange(4)[:, None, None], i, np.arange(6)[None, None, :]))]
    for fn, idx, key in cases:
        x_of = (lambda k: xs[k]) if x_axis == 0 else (lambda k: xs[0])
        i_of = (lambda k: idx[k]) if i_axis == 0 else (lambda k: idx[0])
        w = rng.standard_normal((N,) + x_of(0)[key(i_of(0))].shape)
        args = (xs if x_axis == 0 else xs[0], idx if i_axis == 0 else idx[0], w)
        picked = np.stack([x_of(k)[key(i_of(k))] for k in range(N)])
        np.testing.assert_allclose(s2s.vmap(fn, in_axes=(x_axis, i_axis, 0))(*args),
                                   np.sum(picked * w, axis=tuple(range(1, w.ndim))), rtol=1e-13)
        grads = np.stack([_add_at(x_of(k).shape, key(i_of(k)), w[k]) for k in range(N)])
        np.testing.assert_allclose(s2s.vmap(s2s.grad(fn), in_axes=(x_axis, i_axis, 0))(*args), grads,
                                   rtol=1e-13, atol=1e-13)


def _separated_shared(x):
    return x[np.array([0, 2, 2]), :, np.array([1, -1, 0])] * 1.5


def test_jacobians_of_a_separated_shared_index():
    """jacfwd and jacrev batch a shared index over the basis (a batched array, a shared index whose
    parts a slice separates: NumPy's broadcast dimensions first per example). The function is
    linear, so its Jacobian is its value at each basis vector, exactly."""
    x = np.random.default_rng(2).standard_normal((3, 4, 2))
    basis = np.eye(x.size).reshape((x.size,) + x.shape)
    want = np.moveaxis(np.stack([_separated_shared(e) for e in basis]), 0, -1).reshape((3, 4) + x.shape)
    np.testing.assert_array_equal(s2s.jacfwd(_separated_shared)(x), want)
    np.testing.assert_array_equal(s2s.jacrev(_separated_shared)(x), want)
