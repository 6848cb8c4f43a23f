"""JAX's index updates `x.at[index].<op>(v)` inside transformed functions (issue 45, section 5).

A function written with `.at` cannot run as plain NumPy (an ndarray has no `.at`), so each case has
a reference written with NumPy's stores and loops over the updates (JAX's documented semantics:
every update applied at a repeated index, `.set`'s last one wins as NumPy's store). `s2s.jit(f)` is
checked against the reference's value, grad and jvp against central differences of the reference,
and vmap against a loop of the reference.
"""
import numpy as np
import pytest

import s2s

REP = np.array([0, 2, 0])  # an integer index with a repeat


def _ref_scatter(y, index, v, op):
    """`op` applied at each update of `y[index]` in turn (index: an integer array of axis 0)."""
    y = np.array(y, dtype=float)
    v = np.broadcast_to(v, np.shape(y[index]))
    for k, i in enumerate(index):
        y[i] = op(y[i], v[k])
    return y


CASES = {
    "set_scalar": (lambda x: x.at[1].set(x[0] * 3.0),
                   lambda x: np.concatenate([x[:1], x[:1] * 3.0, x[2:]]), (5,)),
    "set_slice": (lambda x: x.at[1:4].set(np.sin(x[:3])),
                  lambda x: np.concatenate([x[:1], np.sin(x[:3]), x[4:]]), (5,)),
    "set_tuple": (lambda x: x.at[1, 1:3].set(x[0, :2] ** 2),
                  lambda x: np.vstack([x[:1], np.concatenate([x[1, :1], x[0, :2] ** 2, x[1, 3:]])[None], x[2:]]),
                  (3, 4)),
    "set_repeats_last_wins": (lambda x: x.at[REP].set(x[1:4] * 2.0),
                              lambda x: _ref_scatter(x, REP, x[1:4] * 2.0, lambda a, b: b), (5,)),
    "add_repeats": (lambda x: x.at[REP].add(x[1:4] ** 2),
                    lambda x: _ref_scatter(x, REP, x[1:4] ** 2, lambda a, b: a + b), (5,)),
    "add_rows": (lambda x: x.at[REP].add(x[1]),
                 lambda x: np.stack([x[0] + 2 * x[1], x[1], x[2] + x[1]]), (3, 2)),
    "subtract_slice": (lambda x: x.at[::2].subtract(x[1] * x[::2]),
                       lambda x: np.where(np.arange(5) % 2 == 0, x - x[1] * x, x), (5,)),
    "multiply_repeats": (lambda x: x.at[REP].multiply(x[1:4]),
                         lambda x: _ref_scatter(x, REP, x[1:4], lambda a, b: a * b), (5,)),
    "divide_repeats": (lambda x: x.at[REP].divide(x[1:4]),
                       lambda x: _ref_scatter(x, REP, x[1:4], lambda a, b: a / b), (5,)),
    "power_repeats": (lambda x: x.at[np.array([1, 3, 1])].power(x[:3] * 0.5),
                      lambda x: x ** np.array([1.0, x[0] * x[2] * 0.25, 1.0, x[1] * 0.5, 1.0]), (5,)),
    "max_repeats": (lambda x: x.at[REP].max(x[1:4] * np.array([1.3, 0.2, 2.1])),
                    lambda x: _ref_scatter(x, REP, x[1:4] * np.array([1.3, 0.2, 2.1]), max), (5,)),
    "min_repeats": (lambda x: x.at[REP].min(x[1:4] * np.array([0.3, 0.2, 0.9])),
                    lambda x: _ref_scatter(x, REP, x[1:4] * np.array([0.3, 0.2, 0.9]), min), (5,)),
    "get_slice": (lambda x: x.at[1:4].get() * x[0], lambda x: x[1:4] * x[0], (5,)),
    "get_array": (lambda x: x.at[REP].get(indices_are_sorted=False, unique_indices=False),
                  lambda x: x[REP], (5,)),
    "clip_set": (lambda x: x.at[np.array([7, -9])].set(x[1:3], mode="clip"),
                 lambda x: np.concatenate([x[2:3], x[1:4], x[1:2]]), (5,)),
    "clip_get": (lambda x: x.at[np.array([7, -9, -1])].get(mode="clip"),
                 lambda x: x[np.array([4, 0, 4])], (5,)),
    "drop_in_bounds": (lambda x: x.at[REP].add(x[1:4], mode="drop"),
                       lambda x: _ref_scatter(x, REP, x[1:4], lambda a, b: a + b), (5,)),
    "chained": (lambda x: x.at[0].set(2.0 * x[1]).at[1].add(x[0]).at[4].multiply(x[3]),
                lambda x: np.array([2.0 * x[1], x[1] + x[0], x[2], x[3], x[4] * x[3]]), (5,)),
}


def _point(shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, size=shape)


def _fd_jvp(f, x, t, eps=1e-6):
    return (f(x + eps * t) - f(x - eps * t)) / (2 * eps)


@pytest.mark.parametrize("name", sorted(CASES))
def test_value_under_jit(name):
    f, ref, shape = CASES[name]
    x = _point(shape)
    np.testing.assert_allclose(s2s.jit(f)(x), ref(x), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_against_central_differences(name):
    f, ref, shape = CASES[name]
    x = _point(shape)
    w = _point(np.shape(ref(x)), seed=1)
    got = s2s.grad(lambda x: np.sum(w * np.sin(f(x))))(x)
    want = np.array([_fd_jvp(lambda x: np.sum(w * np.sin(ref(x))), x, e.reshape(shape))
                     for e in np.eye(x.size)]).reshape(shape)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jvp_against_central_differences(name):
    f, ref, shape = CASES[name]
    x, t = _point(shape), _point(shape, seed=2)
    y, dy = s2s.jvp(f, (x,), (t,))
    np.testing.assert_allclose(y, ref(x), rtol=1e-12)
    np.testing.assert_allclose(dy, _fd_jvp(ref, x, t), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_against_a_loop(name):
    f, ref, shape = CASES[name]
    xs = np.stack([_point(shape, seed=s) for s in range(3)])
    np.testing.assert_allclose(s2s.vmap(f)(xs), np.stack([ref(x) for x in xs]), rtol=1e-12)


def test_the_updated_array_is_a_copy():
    def f(x):
        y = x.at[0].set(0.0)
        return y, x

    x = np.array([1.0, 2.0])
    y, same = s2s.jit(f)(x)
    np.testing.assert_array_equal(y, [0.0, 2.0])
    np.testing.assert_array_equal(same, [1.0, 2.0])
    np.testing.assert_array_equal(x, [1.0, 2.0])


def test_updates_in_a_loop_and_of_a_new_array():
    def f(x):
        y = np.zeros(4).at[0].set(x[0])
        for i in range(1, 4):
            y = y.at[i].set(y[i - 1] * x[i])
        return y

    def ref(x):
        return np.cumprod(x)

    x = np.array([1.5, 0.5, 2.0, 3.0])
    np.testing.assert_allclose(s2s.jit(f)(x), ref(x))
    np.testing.assert_allclose(s2s.jacrev(f)(x), s2s.jacfwd(f)(x))
    fd = np.stack([_fd_jvp(ref, x, e) for e in np.eye(4)], axis=1)
    np.testing.assert_allclose(s2s.jacrev(f)(x), fd, rtol=1e-6)
    np.testing.assert_allclose(s2s.hessian(lambda x: np.sum(f(x)))(x),
                               np.stack([_fd_jvp(s2s.grad(lambda x: np.sum(ref(x))), x, e) for e in np.eye(4)]),
                               rtol=1e-5, atol=1e-7)


def test_a_per_example_index_under_vmap():
    def f(x, i):
        return x.at[i].add(x[0] ** 2)

    xs = _point((3, 4))
    idx = np.array([1, 3, 0])
    want = np.stack([_ref_scatter(x, np.array([i]), x[0] ** 2, lambda a, b: a + b) for x, i in zip(xs, idx)])
    np.testing.assert_allclose(s2s.vmap(f)(xs, idx), want)


def test_out_of_bound_index_with_drop_is_refused_at_the_line():
    def f(x):
        return x.at[np.array([0, 9])].add(1.0, mode="drop")

    with pytest.raises(s2s.S2SError, match=r"(?s)test_at_updates.py.*mode='drop'.*out of bounds"):
        s2s.jit(f)(np.ones(3))


def test_out_of_bound_index_by_default_is_numpys_index_error():
    with pytest.raises(IndexError):
        s2s.jit(lambda x: x.at[5].set(0.0))(np.ones(3))


@pytest.mark.parametrize("body, message", [
    (lambda x: x.at[0].apply(np.sin), r"\.at\[\.\.\.\]\.apply\(\)"),
    (lambda x: x.at[0].set(1.0, wrap=True), "unexpected keyword argument 'wrap'"),
    (lambda x: x.at[0].set(1.0, mode="wrap"), "mode must be written as one of"),
    (lambda x: x.at[0].get(1.0), "takes no positional arguments"),
])
def test_refusals_name_the_line(body, message):
    with pytest.raises(s2s.S2SError, match=message):
        s2s.jit(body)(np.ones(3))


def test_block_until_ready_is_the_identity():
    def f(x):
        y = np.sin(x).block_until_ready()
        return np.sum(y * x)

    x = np.array([0.3, 1.2])
    np.testing.assert_allclose(s2s.jit(f)(x), np.sum(np.sin(x) * x))
    np.testing.assert_allclose(s2s.grad(f)(x), np.cos(x) * x + np.sin(x))
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(np.stack([x, 2 * x])),
                               np.stack([np.cos(z) * z + np.sin(z) for z in (x, 2 * x)]))


def test_a_nested_def_closing_over_a_local_runs_its_updates_as_written():
    """A nested def that reads a local of its caller is lifted and, where no derivative is needed
    (jit of lax.fori_loop calling it), runs as written: its updates then run as NumPy (rt.at_update)."""
    from s2s import lax

    def f(x):
        def body(i, y):
            return y.at[i].set(y[i - 1] * x[i] + 1.0).at[REP].add(x[:3] * 0.1)
        return lax.fori_loop(1, 4, body, np.zeros(4).at[0].set(x[0]))

    def ref(x):
        y = np.zeros(4)
        y[0] = x[0]
        for i in range(1, 4):
            y[i] = y[i - 1] * x[i] + 1.0
            y = _ref_scatter(y, REP, x[:3] * 0.1, lambda a, b: a + b)
        return y

    x = np.array([0.5, 1.5, -0.3, 2.0])
    np.testing.assert_allclose(s2s.jit(f)(x), ref(x), rtol=1e-12)
    fd = np.stack([_fd_jvp(ref, x, e) for e in np.eye(4)], axis=1)
    np.testing.assert_allclose(s2s.jacrev(f)(x), fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jvp(f, (x,), (np.ones(4),))[1], fd @ np.ones(4), rtol=1e-6, atol=1e-8)
    xs = np.stack([x, 2 * x])
    np.testing.assert_allclose(s2s.vmap(f)(xs), np.stack([ref(z) for z in xs]), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_runnable_copy_of_each_update(name):
    """rt.at_update (what a nested def runs as written) against the same references."""
    from s2s.compiler.primitives.rules_updates import AT_METHODS
    from s2s.runtime.index_updates import at_update

    f, ref, shape = CASES[name]
    x = _point(shape)

    class Recorder:  # x.at[index].op(*args, **kw) recorded, then run by at_update
        def __init__(self, value):
            self.value = value

        @property
        def at(self):
            value = self.value

            class Index:
                def __getitem__(self, index):
                    class Op:
                        def __getattr__(self, op):
                            return lambda *args, **kw: Recorder(at_update(value, index, AT_METHODS[op], *args, **kw))
                    return Op()
            return Index()

        def __getitem__(self, i):
            return self.value[i]

        def __mul__(self, other):
            return self.value * other

        def __pow__(self, other):
            return self.value ** other

        def __rmul__(self, other):
            return other * self.value

    got = f(Recorder(x))
    got = got.value if isinstance(got, Recorder) else got
    np.testing.assert_allclose(got, ref(x), rtol=1e-12)
