"""Scalar-factor collection (s2s/compiler/passes/scalars.py): the number literals of product chains become
one factor, values equal the function's up to the documented reassociation, and nothing moves
where an integer intermediate could wrap around."""
import importlib.util
import itertools

import numpy as np
import pytest

import s2s
from s2s.api.sources import transformed_source
from s2s.test_util import check_grads


def _mults(src: str) -> int:
    """Multiplications and divisions of the generated code (its comment lines aside)."""
    code = "\n".join(line for line in src.splitlines() if not line.strip().startswith("#"))
    return code.count(" * ") + code.count(" / ")


def issue_example(g, t):
    n = g.shape[0]
    return g / n * 2 * t


def test_issue_example_is_one_scalar_times_an_array():
    g, t = np.arange(1.0, 5.0), np.linspace(-1.0, 2.0, 4)
    jf = s2s.jit(issue_example)
    np.testing.assert_allclose(jf(g, t), g / 4 * 2 * t, rtol=1e-15)
    src = s2s.source(jf, g, t)
    assert "return c64_0_5 * (g * t)" in src, src  # (0.5 as a 0-d array: passes/constants.py)


def mean_square(x, y):
    return np.mean((x * 3.0 - y) ** 2)


def test_gradient_of_a_mean_has_one_factor():
    x, y = np.linspace(-1.0, 1.0, 8), np.linspace(0.5, 2.0, 8)
    g = s2s.grad(mean_square)
    want = 2.0 * (x * 3.0 - y) * 3.0 / x.size  # hand-derived
    np.testing.assert_allclose(g(x, y), want, rtol=1e-14)
    np.testing.assert_allclose(s2s.jit(g)(x, y), want, rtol=1e-14)
    assert "c64_0_75 * " in s2s.source(s2s.jit(g), x, y)  # 2 / 8 * 3 as one number (a 0-d array)
    check_grads(mean_square, (x, y), order=2)


def tanh3(x):
    return np.sum(np.tanh(x) ** 3)


def test_diagonal_hessian_collects_its_factors():
    x = np.linspace(-1.5, 1.2, 5)
    t = np.tanh(x)
    want = np.diag((6.0 * t - 12.0 * t ** 3) * (1.0 - t * t))  # hand-derived
    for h in (s2s.hessian(tanh3), s2s.jacfwd(s2s.jacrev(tanh3)), s2s.jit(s2s.hessian(tanh3))):
        np.testing.assert_allclose(h(x), want, rtol=1e-13, atol=1e-15)
    src = transformed_source(tanh3, "hessian")
    diag = src[src.index("def diagonal_"):]
    diag = diag[:diag.index("\n\n")]
    # (7: since issue 45 this diagonal, not specialized to float arrays, ends in rt.real_cotangent, and
    # its two products by 6.0 stay apart; the version for float arrays drops it: test_jacobian_ranked)
    assert "6.0 * " in diag and "3.0 * " not in diag and diag.count(" * ") <= 7, diag  # was 9 before factors


def int_products(a, b):
    return (2.0 * a) * b


def int_double(a, w):
    return (3.0 * w) * (a + a)


def test_integer_intermediates_stay_where_they_are():
    # a * b or a + a in int64 wraps around where the function's float intermediates do not
    a = np.array([4_000_000_000, -3, 5_000_000_000_000_000_000 // 1000], dtype=np.int64)
    b = np.array([4_000_000_000, 7, 3_000_000], dtype=np.int64)
    for fn, args in ((int_products, (a, b)), (int_double, (np.array([2 ** 62, 3]), np.array([1, 2])))):
        want = fn(*args)
        got = s2s.jit(fn)(*args)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype
    w = np.array([1.5, -2.0])
    a2 = np.array([2 ** 62, 3])
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(s2s.jit(int_double)(a2, w), int_double(a2, w))


def rebound(x, w):
    b = 2.0 * w
    c = b * x  # 2.0 * (w * x) would multiply the int arrays
    x = x / 2
    return c + x


def test_a_rebound_parameter_is_not_taken_for_a_float():
    x, w = np.array([4_000_000_000, 5]), np.array([3_000_000_000, -7])
    np.testing.assert_array_equal(s2s.jit(rebound)(x, w), rebound(x, w))


def lists(xs):
    ys = xs * 2
    return ys * 3


def test_sequences_are_not_numbers():
    assert s2s.jit(lists)([1.0]) == [1.0] * 6


def _chain(ops, path):
    """A function of two float arrays applying `ops` (pairs of an operator and a literal or name),
    written to a file under `path` (s2s reads the source)."""
    lines, prev = ["def chain(x, y):", "    v0 = x"], "v0"
    for k, (op, operand) in enumerate(ops, 1):
        left = k % 2 == 0 and op in "*+"  # (never divide by the chain's value: it may be near 0)
        lines.append(f"    v{k} = {operand} {op} {prev}" if left else f"    v{k} = {prev} {op} {operand}")
        prev = f"v{k}"
    lines.append(f"    return {prev}")
    file = path / f"chain_{abs(hash(tuple(ops)))}.py"
    file.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location(file.stem, file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.chain


OPERANDS = ["2.0", "0.5", "3", "1.5", "0.1", "y", "x"]


def total(fn):
    return lambda x, y: np.sum(fn(x, y))


@pytest.mark.parametrize("seed", range(16))
def test_random_chains_agree_with_the_function(seed, tmp_path):
    rng = np.random.default_rng(seed)
    ops = [(str(rng.choice(["*", "/", "+", "-"])), str(rng.choice(OPERANDS))) for _ in range(7)]
    fn = _chain(ops, tmp_path)
    x, y = rng.uniform(0.5, 2.0, size=5), rng.uniform(0.5, 2.0, size=5)
    np.testing.assert_allclose(s2s.jit(fn)(x, y), fn(x, y), rtol=1e-12)
    g = s2s.grad(total(fn), argnums=(0, 1))
    want = g(x, y)
    for got in (s2s.jit(g)(x, y), s2s.jit(s2s.grad(total(s2s.jit(fn)), argnums=(0, 1)))(x, y)):
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    check_grads(total(fn), (x, y), order=2)


def scaled_difference(a, b):
    return 6.0 * a - 6.0 * b


@pytest.mark.parametrize("a,b", list(itertools.product([np.inf, -np.inf, np.nan, 1.0, 0.0, -0.0], repeat=2)))
def test_inf_and_nan_inputs_give_the_same_result(a, b):
    x, y = np.array([a]), np.array([b])
    with np.errstate(invalid="ignore"):
        want = scaled_difference(x, y)
        got = s2s.jit(scaled_difference)(x, y)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_collected_difference_reads_as_documented():
    x = np.ones(3)
    assert "c64_6_0 * (a - b)" in s2s.source(s2s.jit(scaled_difference), x, x)


def unknown_count(x, n, t):
    return x / n * 2 * t


def test_factors_that_meet_nothing_stay_where_they_were():
    x, t = np.arange(1.0, 4.0), np.ones(3)
    src = s2s.source(s2s.jit(unknown_count), x, 4, t)
    assert "x / n * 2 * t" in src.replace("(", "").replace(")", ""), src
    np.testing.assert_array_equal(s2s.jit(unknown_count)(x, 4, t), unknown_count(x, 4, t))


def float32_term(x):  # campaign 7601 at 4ccea98 (--seed 7601007 --views --program 345)
    f32 = np.zeros(3, dtype=np.float32)
    f32 += x * -1.5
    return np.sum(x * 0.5 + 0.5 * np.cos(x) + 1e-4 * np.sin(f32) * x)


def float32_argument(x, h):
    return np.sum(2.0 * np.sin(h) * x + 0.5 * x)


def float32_by_position(x):
    f32 = np.asarray(np.sin(x), "f4")
    return np.sum(0.5 * (1e-4 * np.cos(f32) * x))


def test_no_factor_moves_across_a_float32_value():
    """NumPy rounds `1e-4 * np.sin(f32)` to float32 before the float64 product; moving 1e-4 onto
    the float64 product gave another number in float32's last bits (2e-12 of the result)."""
    x = np.array([-0.9076264449555564, -0.17817854834510682, -0.9727596394608307])
    assert s2s.jit(float32_term)(x) == float32_term(x)
    h = np.linspace(-1.0, 1.0, 3).astype(np.float32)
    assert s2s.jit(float32_argument)(x, h) == float32_argument(x, h)
    assert s2s.jit(float32_by_position)(x) == float32_by_position(x)
