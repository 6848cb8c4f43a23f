"""One small program per Python idiom that real numerical code is written in (issue 10):
`*args`, `functools.partial`, functions as values, dicts, `operator`, `functools.reduce`,
random sampling inside a loss, lambdas on continuation lines, array methods and attributes,
NumPy scalars as globals and defaults, and methods of user classes.

Each entry of ``IDIOMS`` is ``(name, fn, make_args)``; ``fn`` is what a user would pass to
``s2s.grad`` (a function, a partial, a bound method or a callable instance).
"""

import functools
import operator

import numpy as np

import s2s

IDIOMS = []


def register(make_args, name=None):
    def deco(fn):
        IDIOMS.append((name or fn.__name__, fn, make_args))
        return fn
    return deco


def vec(n=4):
    return lambda rng: (rng.uniform(-1.0, 1.0, n),)


def vec_mat(n=3):
    return lambda rng: (rng.uniform(-1.0, 1.0, n), rng.uniform(-1.0, 1.0, (n, n)))


# ---------------------------------------------------------------- *args and **kw

def concat_and_multiply(weights, *args):
    cat_state = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return np.dot(cat_state, weights)


@register(lambda rng: (rng.uniform(-1, 1, (5, 3)), rng.uniform(-1, 1, (2, 2)), rng.uniform(-1, 1, (2, 2))))
def star_args_callee(w, a, b):
    return np.sum(np.tanh(concat_and_multiply(w, a, b)) ** 2)


def weighted(x, y=0.0, scale=1.0, shift=0.0):
    return scale * x + shift * y


@register(vec())
def star_call_tuple(x):
    xs = (x, 2.0 * x)
    kw = {"scale": 3.0, "shift": 0.5}
    return np.sum(weighted(*xs, **kw) * np.sin(weighted(*(x,), **dict(scale=2.0))))


def sum_all(*args):
    total = 0.0
    for a in args:
        total = total + np.sum(a * a)
    return total


@register(vec())
def star_args_loop(x):
    parts = [x, np.sin(x), x ** 3]
    return sum_all(*parts)


SQUARE_SUM = lambda *args: sum(np.sum(a ** 2) for a in args)  # noqa: E731


@register(vec())
def star_lambda(x):
    return SQUARE_SUM(x, np.cos(x))


# ---------------------------------------------------------------- functools.partial

def data_loss(w, data, reg=0.1):
    return np.sum((np.tanh(data @ w)) ** 2) + reg * np.sum(w ** 4)


DATA = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
register(lambda rng: (rng.uniform(-1, 1, 3),), "partial_keyword")(functools.partial(data_loss, data=DATA))
register(lambda rng: (rng.uniform(-1, 1, 3),), "partial_two_keywords")(
    functools.partial(data_loss, data=DATA, reg=0.5))
PARTIAL = functools.partial(data_loss, data=DATA)


@register(lambda rng: (rng.uniform(-1, 1, 3),))
def partial_called_inside(w):
    return PARTIAL(w) + PARTIAL(2.0 * w)


# ---------------------------------------------------------------- functions as values

def mlp(x, w, nonlinearity=np.tanh):
    return np.sum(nonlinearity(x * w))


@register(vec())
def function_default(x):
    return mlp(x, 0.7) + mlp(x, 1.3, np.sin)


register(lambda rng: (rng.uniform(-1, 1, 4), 0.8), "function_default_top_level")(mlp)


def apply(f, x):
    return f(x)


def softplus(x):
    return np.log1p(np.exp(x))


@register(vec())
def function_argument(x):
    return np.sum(apply(np.tanh, x) + apply(softplus, x) * apply(np.cos, x))


ACTIVATIONS = {"tanh": np.tanh, "softplus": softplus}
LAYERS = [np.sin, softplus]


@register(vec())
def dict_and_list_of_functions(x):
    return np.sum(ACTIVATIONS["softplus"](x) * LAYERS[0](x))


@register(vec())
def loop_over_functions(x):
    total = 0.0
    for f in [np.sin, softplus]:
        total = total + np.sum(f(x) * x)
    for layer in LAYERS:
        x = layer(x)
    return total * np.sum(x)


@register(vec())
def nested_def_passed(x):
    def inner(z):
        return np.exp(z) * 0.5
    return np.sum(apply(inner, x))


@register(vec())
def numpy_functions_taking_functions(x):
    m = np.outer(x, x[::-1])
    rows = np.apply_along_axis(lambda r: np.sum(np.sin(r) * r), 1, m)
    pieces = np.piecewise(x, [x < 0.0, x > 0.5], [lambda v: v ** 3, 0.25, np.cos])
    elems = np.vectorize(lambda v, w: v * w if v > 0.0 else np.tanh(v) * w)(x, x[::-1])
    return np.sum(rows) + np.sum(pieces * x) + np.sum(elems)


@register(vec())
def tolist_and_tree_map(x):
    total = 0.0
    for v in x.tolist():
        total = total + v * np.sin(v)
    tree = {"a": x, "b": (x[:2], np.exp(x))}
    scaled = s2s.tree_util.tree_map(lambda a, b: a * b, tree, s2s.tree_util.tree_map(np.cos, tree))
    return total + s2s.tree_util.tree_reduce(lambda acc, v: acc + np.sum(v ** 2), scaled, 0.0)


# ---------------------------------------------------------------- dicts

@register(vec())
def dict_iteration(x):
    d = {"a": x, "b": np.sin(x), "c": x * x}
    total = 0.0
    for k in d:
        total = total + np.sum(d[k]) * len(k)
    for k, v in d.items():
        total = total + np.sum(v * v)
    for v in d.values():
        total = total + np.sum(np.cos(v))
    return total + len(d)


@register(vec())
def dict_get_keys_sorted(x):
    d = dict(w=x, b=2.0 * x)
    total = np.sum(d.get("w", 0.0) * d.get("missing", 3.0))
    for k in sorted(d.keys()):
        total = total * 0.5 + np.sum(d[k] ** 2)
    return total


@register(vec())
def dict_comprehension(x):
    scales = {"a": 1.0, "b": 2.0}
    d = {k: s * x for k, s in scales.items()}
    return np.sum(d["a"] * np.exp(d["b"]))


@register(lambda rng: ({"w": rng.uniform(-1, 1, 3), "b": rng.uniform(-1, 1, 3)},), "dict_params")
def dict_params(params):
    total = 0.0
    for k in sorted(params):
        total = total + np.sum(np.tanh(params[k]) * len(k))
    return total


# ---------------------------------------------------------------- operator and reduce

@register(vec())
def operator_functions(x):
    y = operator.add(x, operator.mul(x, x))
    z = operator.sub(y, operator.mod(x, 3.0))
    first, last = operator.itemgetter(0, -1)(z)
    return np.sum(z) + first * last


@register(vec())
def reduce_arrays(x):
    parts = [x, np.sin(x), np.exp(x)]
    total = functools.reduce(operator.add, parts)
    prod = functools.reduce(operator.mul, parts, 1.0)
    mixed = functools.reduce(lambda a, b: a * 0.5 + np.tanh(b) * x, parts)
    return np.sum(total * prod) + np.sum(mixed)


# ---------------------------------------------------------------- random sampling

@register(lambda rng: (rng.uniform(-1, 1, 3), rng.uniform(0.5, 1.0, 3)))
def sampling_random_state(loc, scale):
    rs = np.random.RandomState(0)
    eps = rs.randn(5, 3)
    return np.mean(np.sum((loc + scale * eps) ** 2, axis=1))


@register(lambda rng: (rng.uniform(-1, 1, 3), rng.uniform(0.5, 1.0, 3)))
def sampling_default_rng(loc, log_scale):
    eps = np.random.default_rng(1).standard_normal((4, 3))
    samples = loc + np.exp(log_scale) * eps
    return np.mean(np.sin(samples))


@register(lambda rng: (rng.uniform(-1, 1, 3),))
def sampling_global_normal(loc):
    np.random.seed(3)
    noise = np.random.normal(0.0, 1.0, size=3)
    return np.sum(np.tanh(loc + noise) ** 2)


# ---------------------------------------------------------------- lambdas in brackets

PAIR = (lambda x: np.sum(x ** 2),
        lambda x: np.sum(np.sin(x) * x))
register(vec(), "lambda_continuation_line")(PAIR[1])
SAME_LINE = [lambda x: np.sum(x ** 3), lambda x: np.sum(np.exp(x))]
register(vec(), "two_lambdas_one_line")(SAME_LINE[1])


# ---------------------------------------------------------------- methods and attributes

@register(vec_mat())
def array_methods(x, m):
    y = m.T.dot(x).clip(-0.5, 0.5)
    z = x.astype(np.float64).real
    return np.sum(y * z) + x.flat[1] * m.flat[0] + (x * x).sum().item()


# ---------------------------------------------------------------- NumPy scalars

SCALE = np.sqrt(2.0)
ZERO_D = np.array(0.25)


@register(vec())
def numpy_scalar_globals(x, gain=np.float64(1.5)):
    return np.sum(SCALE * np.sin(x) * ZERO_D) * gain


# ---------------------------------------------------------------- classes

class Model:
    """Hyperparameters held on the instance."""

    def __init__(self, l2, power):
        self.l2 = l2
        self.power = power

    def loss(self, params, x):
        return np.sum(np.tanh(x * params) ** self.power) + self.l2 * self.penalty(params)

    def penalty(self, params):
        return np.sum(params ** 2)

    @staticmethod
    def log_sum_exp(z):
        return np.log(np.sum(np.exp(z)))

    def __call__(self, params):
        return self.loss(params, 0.5) + Model.log_sum_exp(params)


MODEL = Model(0.1, 2)
register(vec_mat(3) and (lambda rng: (rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3))), "method_of_instance")(
    MODEL.loss)
register(vec(3), "call_of_instance")(MODEL)
register(vec(3), "staticmethod")(Model.log_sum_exp)


@register(vec(3))
def method_called_inside(p):
    return MODEL.loss(p, 2.0) * MODEL.penalty(p)


# ---------------------------------------------------------------- *args at the top level; grad inside

def star_params_top_level(w, *args):
    return np.sum(w * sum(args)) + np.sum(np.sin(args[0]) * w)


register(lambda rng: (rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3)),
         "star_params_top_level")(star_params_top_level)


@register(vec(3))
def grad_of_local_def_and_lambda(x):
    def inner(z):
        return np.sum(np.sin(z) * x)
    g = s2s.grad(inner)(x * 2.0)
    h = s2s.grad(lambda z: np.sum(z ** 3))(x)
    return np.sum(g * x) + np.sum(h)


@register(vec(3))
def local_star_lambda_and_def(x):
    total = lambda *args: sum(np.sum(np.sin(a) * x) for a in args)  # noqa: E731

    def scaled(s, *args):
        return s * np.sum(args[0] * args[-1])
    return total(x, x * x) + total(x) + scaled(2.0, x, np.cos(x))
