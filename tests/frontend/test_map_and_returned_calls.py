"""`map(f, xs, ...)` (a global, a lambda, a partial made here), `for a, b in zip(*xs)` with
`xs`'s length unknown when transforming, `maker(a)(g)`, a call of the function a call returned
(autograd's VJP makers), and a loop over a list of objects of several classes calling each one's
method (hmm_em, gmm, define_gradient and convnet use these). Each program is
checked under grad (central finite differences), grad of grad, vmap (a loop) and jit."""
import functools

import numpy as np
import pytest

import s2s

X = np.array([0.4, -0.7, 1.3])
XS = np.array([[0.4, -0.7, 1.3], [1.1, 0.2, -0.5]])
H = 1e-5


def _scaled(a, v):
    return a * np.sin(v)


def map_global(x):
    return sum(map(np.tanh, [x[0], x[1] * x[2]]))


def map_partial_made_here(x):
    a = x[0] ** 2
    return np.sum(sum(map(functools.partial(_scaled, a), [x, 2.0 * x])))


def map_lambda_two_sequences(x):
    return sum(map(lambda u, w: u * w * x[2], [x[0], x[1]], [x[1], np.exp(x[0])]))


def map_recursive(x):  # hmm_em's log_partition_function: a list maps to the sum over its items
    return _total(x, [x[:2], x[1:]])


def _total(x, data):
    if isinstance(data, list):
        return sum(map(functools.partial(_total, x), data))
    return np.sum(np.cos(data) * x[0])


def _pieces(x):
    return x[:2], x[1:], np.exp(x)


def zip_star_of_a_call(x):  # gmm's `for a, b, c in zip(*unpack(params))`
    total = 0.0
    for a, b, c in zip(*_pieces(x)):
        total = total + a * b * c
    return total


def _vjp_maker(ans, x):
    s = np.cos(x)
    return lambda g: g * s * ans


def _maker_with_def(ans, x):
    def apply(g):
        return g * x ** 2
    if ans > 100.0:
        return lambda g: g * 0.0
    return apply


def returned_called(x):
    return np.sum(_vjp_maker(np.sum(x), x)(np.tanh(x)))


def returned_def_called(x):
    return np.sum(_maker_with_def(np.sum(x), x)(x))


class Scale:
    def __init__(self, k):
        self.k = k

    def forward(self, x, w):
        return x * w * self.k


class Squash(Scale):
    def forward(self, x, w):
        return np.tanh(x + w) * self.k


class Table:
    """convnet's WeightsParser: a dict keyed by the layer objects."""

    def __init__(self, layers):
        self.where = {layer: i for i, layer in enumerate(layers)}

    def get(self, x, layer):
        return x[self.where[layer]]


LAYERS = [Scale(2.0), Squash(0.5), Scale(-1.5)]
TABLE = Table(LAYERS)


def loop_over_objects(x):
    h = x
    for layer in LAYERS:
        h = layer.forward(h, TABLE.get(x, layer))
    return np.sum(h)


PROGRAMS = [loop_over_objects, map_global, map_partial_made_here, map_lambda_two_sequences, map_recursive,
            zip_star_of_a_call, returned_called, returned_def_called]


def _fd_grad(f, x):
    return np.array([(f(x + H * e) - f(x - H * e)) / (2 * H) for e in np.eye(x.size)])


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_grad_matches_finite_differences(f):
    np.testing.assert_allclose(s2s.grad(f)(X), _fd_grad(f, X), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_grad_of_grad_matches_finite_differences(f):
    v = np.array([0.3, -1.1, 0.5])
    g = s2s.grad(f)
    hv = s2s.grad(lambda x: np.sum(g(x) * v))(X)
    want = np.array([np.sum((g(X + H * e) - g(X - H * e)) * v) / (2 * H) for e in np.eye(X.size)])
    np.testing.assert_allclose(hv, want, rtol=1e-5, atol=1e-7)


# (map_recursive: isinstance(data, list) of a per-example value, one answer for every example)
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_vmap_matches_a_loop(f):
    np.testing.assert_allclose(s2s.vmap(f)(XS), [f(x) for x in XS], rtol=1e-12)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_jit_matches_the_plain_function(f):
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)


def _returns_nothing(x):
    x + 1.0


def called_result_of_nothing(x):
    return _returns_nothing(x)(x)


def map_of_data(x):
    f = x[0]
    return sum(map(f, [x]))


@pytest.mark.parametrize("f, words", [(called_result_of_nothing, "returns nothing"), (map_of_data, "map")])
def test_what_cannot_be_called_is_refused_at_the_users_line(f, words):
    with pytest.raises(s2s.S2SError, match=words) as e:
        s2s.grad(f)(X)
    assert "test_map_and_returned_calls.py" in str(e.value)


def _scaled_by(x, a=1.0):
    return x * a


def unknown_keyword(x):
    return np.sum(_scaled_by(x, b=3.0))


def test_a_keyword_the_callee_does_not_take_is_a_type_error_at_the_users_line():
    with pytest.raises(TypeError):  # plain Python
        unknown_keyword(X)
    with pytest.raises(s2s.S2SError, match="unexpected keyword argument 'b'") as e:
        s2s.grad(unknown_keyword)(X)
    assert "test_map_and_returned_calls.py" in str(e.value)
