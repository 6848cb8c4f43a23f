"""The operation spec table: one entry per operation (or variant), swept by tests/test_op_sweep.py.

Each `@spec(category, *draws)` function applies one NumPy operation; its name is `op_<name>` or
`op_<name>__<variant>` (`linalg_` stands for `linalg.`). `draws` build its float arguments from a
random generator, inside the operation's domain (away from kinks, ties and singular points).
`category` says how the operation batches (elementwise, reduction, linalg, shape, indexing,
creation) for the vmap sweep. Static arguments (axis, shape, indices) live in the function body.
"""
import numpy as np

SPECS = []


class Spec:
    def __init__(self, fn, category, draws, order, f32, tol):
        self.fn, self.category, self.draws, self.order, self.f32, self.tol = fn, category, draws, order, f32, tol
        name = fn.__name__[3:]
        self.id = name
        self.op = name.split("__")[0].replace("linalg_", "linalg.").replace("fft_", "fft.", 1) \
            .replace("lib_stride_tricks_", "lib.stride_tricks.", 1)

    def args(self, rng, dtype=np.float64):
        return tuple(np.asarray(d(rng), dtype=dtype) for d in self.draws)


def spec(category, *draws, order=2, f32=True, tol=1e-5):
    def register(fn):
        SPECS.append(Spec(fn, category, draws, order, f32, tol))
        return fn
    return register


# ---- draws ----

def N(*shape):
    return lambda rng: rng.standard_normal(shape)


def P(*shape):
    """Values in [0.5, 2): safe for log, sqrt, division."""
    return lambda rng: rng.uniform(0.5, 2.0, shape)


def U(lo, hi, *shape):
    return lambda rng: rng.uniform(lo, hi, shape)


def A(*shape):
    """|values| in [0.3, 1.5) with random signs: away from the kink of abs and sign."""
    return lambda rng: rng.uniform(0.3, 1.5, shape) * np.where(rng.random(shape) < 0.5, -1.0, 1.0)


def separated(*shape):
    """Two draws whose entries differ by at least 0.3 (no ties for max/min)."""
    base = N(*shape)
    gap = A(*shape)
    state = {}

    def first(rng):
        state["x"] = base(rng)
        return state["x"]

    def second(rng):
        return state["x"] + gap(rng)
    return first, second


def distinct(*shape):
    """Entries at least 0.1 apart (no ties for sort, max, median)."""
    def draw(rng):
        n = int(np.prod(shape))
        return (rng.permutation(n) * 0.25 + rng.uniform(0, 0.1, n)).reshape(shape) - n * 0.125
    return draw


def WC(n, m=None):
    """A well-conditioned matrix: random plus a multiple of the identity."""
    m = n if m is None else m
    return lambda rng: rng.standard_normal((n, m)) * 0.3 + 2.0 * np.eye(n, m)


def SEPVALS(n, m=None):
    """A matrix with well separated singular values."""
    m = n if m is None else m
    def draw(rng):
        u, _ = np.linalg.qr(rng.standard_normal((n, n)))
        v, _ = np.linalg.qr(rng.standard_normal((m, m)))
        s = np.zeros((n, m))
        k = min(n, m)
        s[np.arange(k), np.arange(k)] = 1.0 + np.arange(k)[::-1] * 0.8
        return u @ s @ v.T
    return draw


def sym(a):
    """A symmetric matrix from any square matrix (the input of eigh and cholesky tests)."""
    return 0.5 * (a + a.T)


# ---- elementwise: one argument, then two with broadcasting ----

@spec("elementwise", A(3, 4))
def op_abs(x):
    return np.abs(x)


@spec("elementwise", A(3, 4))
def op_absolute(x):
    return np.absolute(x)


@spec("elementwise", A(3, 4))
def op_fabs(x):
    return np.fabs(x)


@spec("elementwise", A(3, 4))
def op_sign(x):  # a step at real x; z / |z| at complex z (the spectrum of each row)
    z = np.fft.fft(x) + (0.5 - 0.25j)
    return np.sign(x) * x, np.real(np.sign(z)), np.imag(np.sign(z))


@spec("elementwise", U(-0.9, 0.9, 3, 4))
def op_arccos(x):
    return np.arccos(x)


@spec("elementwise", U(-0.9, 0.9, 3, 4))
def op_arcsin(x):
    return np.arcsin(x)


@spec("elementwise", N(3, 4))
def op_arctan(x):
    return np.arctan(x)


@spec("elementwise", U(1.2, 3.0, 3, 4))
def op_arccosh(x):
    return np.arccosh(x)


@spec("elementwise", N(3, 4))
def op_arcsinh(x):
    return np.arcsinh(x)


@spec("elementwise", U(-0.9, 0.9, 3, 4))
def op_arctanh(x):
    return np.arctanh(x)


@spec("elementwise", P(3, 4))
def op_cbrt(x):
    return np.cbrt(x)


@spec("elementwise", N(3, 4))
def op_cos(x):
    return np.cos(x)


@spec("elementwise", N(3, 4))
def op_cosh(x):
    return np.cosh(x)


@spec("elementwise", N(3, 4))
def op_exp(x):
    return np.exp(x)


@spec("elementwise", N(3, 4))
def op_exp2(x):
    return np.exp2(x)


@spec("elementwise", N(3, 4))
def op_expm1(x):
    return np.expm1(x)


@spec("elementwise", P(3, 4))
def op_log(x):
    return np.log(x)


@spec("elementwise", P(3, 4))
def op_log10(x):
    return np.log10(x)


@spec("elementwise", P(3, 4))
def op_log1p(x):
    return np.log1p(x)


@spec("elementwise", P(3, 4))
def op_log2(x):
    return np.log2(x)


@spec("elementwise", P(3, 4))
def op_reciprocal(x):
    return np.reciprocal(x)


@spec("elementwise", N(3, 4))
def op_sin(x):
    return np.sin(x)


@spec("elementwise", A(3, 4))
def op_sinc(x):
    return np.sinc(x)


@spec("elementwise", N(3, 4))
def op_i0(x):
    return np.i0(x)


@spec("elementwise", N(3, 4))
def op_sinh(x):
    return np.sinh(x)


@spec("elementwise", P(3, 4))
def op_sqrt(x):
    return np.sqrt(x)


@spec("elementwise", N(3, 4))
def op_square(x):
    return np.square(x)


@spec("elementwise", U(-1.2, 1.2, 3, 4))
def op_tan(x):
    return np.tan(x)


@spec("elementwise", N(3, 4))
def op_tanh(x):
    return np.tanh(x)


@spec("elementwise", N(3, 4))
def op_negative(x):
    return np.negative(x)


@spec("elementwise", N(3, 4))
def op_positive(x):
    return np.positive(x)


@spec("elementwise", N(3, 4))
def op_deg2rad(x):
    return np.deg2rad(x)


@spec("elementwise", N(3, 4))
def op_degrees(x):
    return np.degrees(x)


@spec("elementwise", N(3, 4))
def op_rad2deg(x):
    return np.rad2deg(x)


@spec("elementwise", N(3, 4))
def op_radians(x):
    return np.radians(x)


@spec("elementwise", N(3, 4))
def op_conj(x):
    return np.conj(x)


@spec("elementwise", N(3, 4))
def op_conjugate(x):
    return np.conjugate(x)


@spec("elementwise", N(3, 4))
def op_real(x):
    return np.real(x)


@spec("elementwise", N(3, 4))
def op_imag(x):
    return np.imag(x) + x  # (0 on reals: the sum shows the imaginary part's derivative is 0)


@spec("elementwise", P(3, 4))
def op_angle(x):
    return np.angle(x) + x  # (0 on positive reals, constant away from 0)


@spec("elementwise", P(3, 4))
def op_angle__deg(x):
    return np.angle(-x, deg=True) * x


@spec("elementwise", N(3, 4))
def op_nan_to_num(x):
    return np.nan_to_num(x)


@spec("elementwise", N(3, 4))
def op_copy(x):
    return np.copy(x)


@spec("elementwise", N(3, 4))
def op_real_if_close(x):
    return np.real_if_close(x)


@spec("elementwise", N(3, 4))
def op_array(x):
    return np.array(x)


@spec("elementwise", N(3, 4))
def op_asarray(x):
    return np.asarray(x)


@spec("elementwise", N(3, 4))
def op_float64(x):
    return np.float64(x)


@spec("elementwise", N(3, 4), N(4))
def op_add(x, y):
    return np.add(x, y)


@spec("elementwise", N(3, 1), N(1, 4))
def op_add__outer(x, y):
    return np.add(x, y)


@spec("elementwise", N(3, 4), N(4))
def op_subtract(x, y):
    return np.subtract(x, y)


@spec("elementwise", N(3, 1), N(1, 4))
def op_subtract__outer(x, y):
    return np.subtract(x, y)


@spec("elementwise", N(3, 4), N(4))
def op_multiply(x, y):
    return np.multiply(x, y)


@spec("elementwise", N(3, 1), N(1, 4))
def op_multiply__outer(x, y):
    return np.multiply(x, y)


@spec("elementwise", N(3, 4), P(4))
def op_divide(x, y):
    return np.divide(x, y)


@spec("elementwise", N(3, 1), P(1, 4))
def op_divide__outer(x, y):
    return np.divide(x, y)


@spec("elementwise", N(3, 4), P(4))
def op_true_divide(x, y):
    return np.true_divide(x, y)


@spec("elementwise", N(3, 1), P(1, 4))
def op_true_divide__outer(x, y):
    return np.true_divide(x, y)


@spec("elementwise", P(3, 4), U(-1.5, 1.5, 4))
def op_power(x, y):
    return np.power(x, y)


@spec("elementwise", P(3, 1), U(-1.5, 1.5, 4))
def op_power__outer(x, y):
    return np.power(x, y)


@spec("elementwise", P(3, 4), U(-1.5, 1.5, 4))
def op_float_power(x, y):
    return np.float_power(x, y)


@spec("elementwise", P(3, 1), U(-1.5, 1.5, 4))
def op_float_power__outer(x, y):
    return np.float_power(x, y)


@spec("elementwise", *separated(3, 4))
def op_maximum(x, y):
    return np.maximum(x, y)


@spec("elementwise", *separated(3, 4))
def op_minimum(x, y):
    return np.minimum(x, y)


@spec("elementwise", *separated(3, 4))
def op_fmax(x, y):
    return np.fmax(x, y)


@spec("elementwise", *separated(3, 4))
def op_fmin(x, y):
    return np.fmin(x, y)


@spec("elementwise", N(3, 4), P(4))
def op_arctan2(x, y):
    return np.arctan2(x, y)


@spec("elementwise", N(3, 1), P(1, 4))
def op_arctan2__outer(x, y):
    return np.arctan2(x, y)


@spec("elementwise", A(3, 4), A(4))
def op_hypot(x, y):
    return np.hypot(x, y)


@spec("elementwise", A(3, 1), A(1, 4))
def op_hypot__outer(x, y):
    return np.hypot(x, y)


@spec("elementwise", N(3, 4), N(4))
def op_logaddexp(x, y):
    return np.logaddexp(x, y)


@spec("elementwise", N(3, 1), N(1, 4))
def op_logaddexp__outer(x, y):
    return np.logaddexp(x, y)


@spec("elementwise", N(3, 4), N(4))
def op_logaddexp2(x, y):
    return np.logaddexp2(x, y)


@spec("elementwise", N(3, 1), N(1, 4))
def op_logaddexp2__outer(x, y):
    return np.logaddexp2(x, y)


@spec("elementwise", A(3, 4), A(4))
def op_copysign(x, y):
    return np.copysign(x, y)


@spec("elementwise", A(3, 1), A(1, 4))
def op_copysign__outer(x, y):
    return np.copysign(x, y)


# x / y away from integers, so finite differences stay on one branch of floor(x / y)
@spec("elementwise", U(2.2, 2.8, 3, 4), U(1.0, 1.05, 4))
def op_mod(x, y):
    return np.mod(x, y)


@spec("elementwise", U(-2.8, -2.2, 3, 1), U(1.0, 1.05, 1, 4))
def op_remainder__outer(x, y):
    return np.remainder(x, y)



@spec("elementwise", N(3, 4), N(3, 4))
def op_where(x, y):
    return np.where(x > 0, x * y, y)


@spec("elementwise", U(-1.5, 1.5, 3, 4))
def op_clip(x):
    return np.clip(np.where(np.abs(np.abs(x) - 0.5) < 0.1, x + 0.25, x), -0.5, 0.5)


@spec("elementwise", *separated(3, 4), N(4))
def op_clip__array_bounds(x, hi, y):
    return np.clip(x + 0.0 * y, x - 1.0 + 0.0 * hi, hi)


@spec("elementwise", N(3, 4))
def op_ldexp(x):
    return np.ldexp(x, np.array([1, 2, -1, 0]))


# ---- operators ----

@spec("elementwise", N(3, 4), N(4))
def op_add__operator(x, y):
    return x + y - y * 2.0 + (-x) + (+y)


@spec("elementwise", N(3, 4), P(3, 4))
def op_div__operator(x, y):
    return x / y * y ** 2.5 + x ** 3


@spec("linalg", N(3, 4), N(4, 2))
def op_matmul(a, b):
    return np.matmul(a, b) + a @ b


@spec("linalg", N(2, 3, 4), N(4, 2))
def op_matmul__batched(a, b):
    return a @ b


@spec("linalg", N(3, 4), N(4))
def op_dot(a, b):
    return np.dot(a, b)


@spec("linalg", N(2, 3, 4), N(5, 4, 2))
def op_dot__nd(a, b):  # N-d . M-d: a's last axis with b's second-to-last (not matmul)
    return np.dot(a, b)


@spec("linalg", N(3, 4), N(2, 4, 3))
def op_dot__method_nd(a, b):
    return a.dot(b)


@spec("linalg", N(3), N(4))
def op_outer(a, b):
    return np.outer(a, b)


@spec("reduction", N(3, 5))
def op_trapezoid(y):
    return np.trapezoid(y) + np.trapezoid(y, dx=0.5, axis=0).sum() + np.trapezoid(y, np.array([0.0, 0.3, 1.0, 1.2, 2.0]))


@spec("linalg", N(3), N(4))
def op_linalg_outer(a, b):
    return np.linalg.outer(a, b) * np.linalg.outer(b, a).T


@spec("linalg", N(3, 4), N(2, 4))
def op_inner(a, b):
    return np.inner(a, b)


@spec("linalg", N(4), N(4))
def op_inner__vectors(a, b):
    return np.inner(a, b)


@spec("linalg", N(2, 3), N(3, 2))
def op_vdot(a, b):
    return np.vdot(a, b)


@spec("linalg", N(2, 3), N(2, 2))
def op_kron(a, b):
    return np.kron(a, b)


@spec("linalg", N(3), N(2))
def op_kron__vectors(a, b):
    return np.kron(a, b)


@spec("linalg", N(4, 3), N(3))
def op_cross(a, b):
    return np.cross(a, b)


@spec("linalg", N(3, 4), N(2, 3, 4))
def op_cross__axisa_axisb_axisc(a, b):
    return np.cross(a, b, axisa=0, axisb=1, axisc=0)


@spec("linalg", N(3, 2), N(3, 2))
def op_cross__axis(a, b):
    return np.cross(a, b, axis=0)


@spec("linalg", N(3, 4))
def op_trace(a):
    return np.trace(a, 1)


@spec("linalg", N(2, 3, 4), N(3, 4, 5))
def op_tensordot(a, b):
    return np.tensordot(a, b, axes=2)


@spec("linalg", N(2, 3, 4), N(4, 2, 5))
def op_tensordot__pairs(a, b):
    return np.tensordot(a, b, axes=([0, 2], [1, 0]))


@spec("linalg", N(3, 4), N(4, 5))
def op_einsum(a, b):
    return np.einsum("ij,jk->ik", a, b)


@spec("linalg", N(3, 3))
def op_einsum__trace(a):
    return np.einsum("ii", a)


@spec("linalg", N(3, 3), N(3))
def op_einsum__diagonal(a, v):
    return np.einsum("ii,i->i", a, v)


@spec("linalg", N(2, 3, 4), N(2, 4, 3))
def op_einsum__ellipsis(a, b):
    return np.einsum("...ij,...jk->...ik", a, b)


@spec("linalg", N(3, 4), N(4), N(3))
def op_einsum__three(a, b, c):
    return np.einsum("ij,j,i", a, b, c)


@spec("linalg", N(3, 4), N(5))
def op_einsum__only_in_one(a, b):
    return np.einsum("ij,k->k", a, b)


@spec("linalg", N(2, 3), N(3, 4))
def op_einsum__sublists(a, b):
    return np.einsum(a, [0, 1], b, [1, 2], [0, 2])


@spec("linalg", N(3, 3), N(3))
def op_einsum__sublists_implicit(a, v):
    return np.einsum(a, [0, 0], v, [1])


# ---- np.linalg ----

@spec("linalg", WC(3))
def op_linalg_inv(a):
    return np.linalg.inv(a)


@spec("linalg", WC(3))
def op_linalg_det(a):
    return np.linalg.det(a)


@spec("linalg", WC(3))
def op_linalg_slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return logdet * sign


@spec("linalg", WC(3), N(3))
def op_linalg_solve(a, b):
    return np.linalg.solve(a, b)


@spec("linalg", WC(3), N(3, 2))
def op_linalg_solve__matrix(a, b):
    return np.linalg.solve(a, b)


@spec("linalg", N(3, 3))
def op_linalg_cholesky(x):
    return np.linalg.cholesky(x @ x.T + 3.0 * np.eye(3, dtype=x.dtype))


@spec("linalg", SEPVALS(3))
def op_linalg_eigh(x):
    w, v = np.linalg.eigh(x @ x.T)
    return w, v * v


@spec("linalg", SEPVALS(3))
def op_linalg_eigvalsh(x):
    return np.linalg.eigvalsh(x + x.T)


@spec("linalg", SEPVALS(3))
def op_linalg_eigh__upper_nonsymmetric(x):  # NumPy reads the upper triangle only
    w, v = np.linalg.eigh(x, UPLO="U")
    return w, v * v


@spec("linalg", SEPVALS(3))
def op_linalg_eigvalsh__lower_nonsymmetric(x):  # NumPy reads the lower triangle only
    return np.linalg.eigvalsh(x)


@spec("linalg", SEPVALS(4, 3))
def op_linalg_svd(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return u * u, s, vh * vh


@spec("linalg", SEPVALS(3, 4))
def op_linalg_svd__wide(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return u * u, s, vh * vh


@spec("linalg", SEPVALS(4, 3))
def op_linalg_svd__values(a):
    return np.linalg.svd(a, compute_uv=False)


@spec("linalg", SEPVALS(4, 3))
def op_linalg_svdvals(a):
    return np.linalg.svdvals(a)


@spec("linalg", WC(4, 3))
def op_linalg_qr(a):
    q, r = np.linalg.qr(a)
    return q, r


@spec("linalg", WC(4, 3))
def op_linalg_pinv(a):
    return np.linalg.pinv(a)


@spec("linalg", WC(3))
def op_linalg_matrix_power(a):
    return np.linalg.matrix_power(a, 3)


@spec("linalg", WC(3))
def op_linalg_matrix_power__negative(a):
    return np.linalg.matrix_power(a, -2)


@spec("reduction", A(3, 4))
def op_linalg_norm(x):
    return np.linalg.norm(x)


@spec("reduction", A(5))
def op_linalg_norm__vector_ords(x):
    return (np.linalg.norm(x, 1) + np.linalg.norm(x, 2) + np.linalg.norm(x, 3) + np.linalg.norm(x, np.inf)
            + np.linalg.norm(x, -np.inf) + np.linalg.norm(x, 0.5))


@spec("reduction", A(3, 4))
def op_linalg_norm__axis(x):
    return np.linalg.norm(x, axis=1) + np.linalg.norm(x, 1, axis=1, keepdims=True)[:, 0]


@spec("reduction", SEPVALS(4, 3))
def op_linalg_norm__matrix_ords(x):
    return (np.linalg.norm(x, "fro") + np.linalg.norm(x, "nuc") + np.linalg.norm(x, 2) + np.linalg.norm(x, -2)
            + np.linalg.norm(x, 1) + np.linalg.norm(x, -1) + np.linalg.norm(x, np.inf) + np.linalg.norm(x, -np.inf))


# ---- reductions ----

@spec("reduction", N(3, 4))
def op_sum(x):
    return np.sum(x, axis=0) + np.sum(x, axis=(0, 1)) + x.sum(1, keepdims=True)[:, 0].sum()


@spec("reduction", N(3, 4))
def op_mean(x):
    return np.mean(x, axis=1) + x.mean()


@spec("reduction", N(3, 4))
def op_prod(x):
    return np.prod(x, axis=0)


@spec("reduction", distinct(3, 4))
def op_max(x):
    return np.max(x, axis=1) + x.max() + np.amax(x, axis=0).sum()


@spec("reduction", distinct(3, 4))
def op_min(x):
    return np.min(x, axis=0) + x.min() + np.amin(x, axis=1).sum()


@spec("reduction", distinct(3, 4))
def op_amax(x):
    return np.amax(x, axis=(0, 1))


@spec("reduction", distinct(3, 4))
def op_amin(x):
    return np.amin(x, axis=1)


@spec("reduction", N(3, 4))
def op_var(x):
    return np.var(x, axis=0) + np.var(x, ddof=1)


@spec("reduction", N(3, 4))
def op_std(x):
    return np.std(x, axis=1) + x.std()


@spec("reduction", N(3, 4))
def op_cumsum(x):
    return np.cumsum(x, axis=0) + np.cumsum(x, axis=1) + np.cumsum(x).reshape(3, 4)


@spec("reduction", A(3, 4))
def op_cumprod(x):
    return np.cumprod(x, axis=1) + np.cumprod(x, axis=0) + np.cumprod(x).reshape(3, 4)


@spec("reduction", N(3, 5))
def op_diff(x):
    return np.diff(x), np.diff(x, 2, axis=0)


@spec("reduction", distinct(3, 4))
def op_ptp(x):
    return np.ptp(x, axis=1) + np.ptp(x)


@spec("reduction", N(3, 4))
def op_average(x):
    return np.average(x, axis=1, weights=np.array([1.0, 2.0, 3.0, 4.0], dtype=x.dtype)) + np.average(x)


@spec("reduction", N(3, 4), P(3, 4))
def op_average__weights(x, w):
    return np.average(x, axis=0, weights=w)


def _with_nan(x):
    return np.where(np.arange(x.size).reshape(x.shape) % 5 == 2, np.nan, x)


@spec("reduction", N(3, 4))
def op_nansum(x):
    return np.nansum(_with_nan(x), axis=0) + np.nansum(_with_nan(x))


@spec("reduction", N(3, 4))
def op_nanmean(x):
    return np.nanmean(_with_nan(x), axis=1)


@spec("reduction", distinct(3, 4))
def op_nanmax(x):
    return np.nanmax(_with_nan(x), axis=1)


@spec("reduction", distinct(3, 4))
def op_nanmin(x):
    return np.nanmin(_with_nan(x), axis=0)


@spec("reduction", A(3, 4))
def op_nanprod(x):
    return np.nanprod(_with_nan(x), axis=1)


@spec("reduction", N(3, 4))
def op_nanvar(x):
    return np.nanvar(_with_nan(x), axis=1) + np.nanvar(_with_nan(x), ddof=1)


@spec("reduction", N(3, 4))
def op_nanstd(x):
    return np.nanstd(_with_nan(x), axis=0)


@spec("reduction", N(3, 4))
def op_nancumsum(x):
    return np.nancumsum(_with_nan(x), axis=1)


@spec("reduction", A(3, 4))
def op_nancumprod(x):
    return np.nancumprod(_with_nan(x), axis=0)


# ---- signals, interpolation, polynomials ----

@spec("linalg", N(5), N(3))
def op_convolve(a, v):
    return np.convolve(a, v), np.convolve(a, v, "same"), np.convolve(a, v, "valid"), np.convolve(v, a, "same")


@spec("linalg", N(5), N(3))
def op_correlate(a, v):
    return np.correlate(a, v), np.correlate(a, v, "same"), np.correlate(a, v, "full"), np.correlate(v, a, "full")


@spec("elementwise", U(-0.5, 3.5, 7), N(5))
def op_interp(x, fp):
    return np.interp(x, np.array([0.0, 0.7, 1.5, 2.2, 3.0]), fp)


@spec("elementwise", N(4), N(3, 2))
def op_polyval(p, x):
    return np.polyval(p, x)


@spec("shape", N(6))
def op_gradient(f):
    return np.gradient(f) + np.gradient(f, 0.5)


@spec("shape", N(4, 5))
def op_gradient__axis(f):
    return np.gradient(f, axis=1) + np.gradient(f, 2.0, axis=0, edge_order=2).sum()


# ---- shape ----

@spec("shape", N(3, 4))
def op_reshape(x):
    return np.reshape(x, (4, 3)) + x.reshape(2, 6).reshape(4, 3)


@spec("shape", N(3, 4))
def op_ravel(x):
    return np.ravel(x) + x.flatten()


@spec("shape", N(3, 1, 4))
def op_squeeze(x):
    return np.squeeze(x, 1)


@spec("shape", N(3, 4))
def op_expand_dims(x):
    return np.expand_dims(x, 1)


@spec("shape", N(3))
def op_atleast_1d(x):
    return np.atleast_1d(x)


@spec("shape", N(3))
def op_atleast_2d(x):
    return np.atleast_2d(x)


@spec("shape", N(3, 4))
def op_atleast_3d(x):
    return np.atleast_3d(x)


@spec("shape", N(4))
def op_broadcast_to(x):
    return np.broadcast_to(x, (3, 4))


@spec("shape", N(2, 3, 4))
def op_transpose(x):
    return np.transpose(x, (2, 0, 1)) + x.transpose(2, 0, 1) + x.T.transpose(0, 2, 1)


@spec("shape", N(2, 3, 4))
def op_permute_dims(x):
    return np.permute_dims(x, (1, 2, 0))


@spec("shape", N(2, 3, 4))
def op_matrix_transpose(x):
    return np.matrix_transpose(x)


@spec("shape", N(2, 3, 4))
def op_swapaxes(x):
    return np.swapaxes(x, 0, 2)


@spec("shape", N(2, 3, 4))
def op_moveaxis(x):
    return np.moveaxis(x, 0, -1)


@spec("shape", N(2, 3, 4))
def op_rollaxis(x):
    return np.rollaxis(x, 2) + np.rollaxis(x, 1, 3).transpose(0, 2, 1).reshape(4, 2, 3) * 0.0


@spec("shape", N(3, 4))
def op_flip(x):
    return np.flip(x, 0) + np.flip(x)


@spec("shape", N(3, 4))
def op_fliplr(x):
    return np.fliplr(x)


@spec("shape", N(3, 4))
def op_flipud(x):
    return np.flipud(x)


@spec("shape", N(3, 4))
def op_rot90(x):
    return np.rot90(x), np.rot90(x, 2), np.rot90(x, -1, axes=(1, 0))


@spec("shape", N(3, 4))
def op_roll(x):
    return np.roll(x, 2) + np.roll(x, -1, axis=1)


@spec("shape", N(2, 3))
def op_tile(x):
    return np.tile(x, (2, 2))


@spec("shape", N(2, 3))
def op_repeat(x):
    return np.repeat(x, 2, axis=1)


@spec("shape", N(4))
def op_diag(x):
    return np.diag(x, 1)


@spec("shape", N(3, 4))
def op_diag__extract(x):
    return np.diag(x)


@spec("shape", N(3, 4))
def op_diagonal(x):
    return np.diagonal(x, 1) + x.diagonal(1) * x.diagonal()


@spec("shape", N(2, 3, 3))
def op_diagonal__axes(x):
    return np.diagonal(x, 0, 1, 2)


@spec("shape", N(4, 4))
def op_triu(x):
    return np.triu(x, 1)


@spec("shape", N(4, 4))
def op_tril(x):
    return np.tril(x, -1)


@spec("shape", N(3, 2), N(3, 2))
def op_stack(x, y):
    return np.stack([x, y], axis=1)


@spec("shape", N(3, 2), N(1, 2))
def op_concatenate(x, y):
    return np.concatenate([x, y])


@spec("shape", N(3, 2), N(3, 1))
def op_hstack(x, y):
    return np.hstack([x, y])


@spec("shape", N(3, 2), N(2))
def op_vstack(x, y):
    return np.vstack([x, y])


@spec("shape", N(3, 2), N(2))
def op_row_stack(x, y):
    return np.row_stack([x, y])


@spec("shape", N(3, 2), N(3))
def op_column_stack(x, y):
    return np.column_stack([x, y])


@spec("shape", N(3, 2), N(3, 2, 2))
def op_dstack(x, y):
    return np.dstack([x, y])


@spec("shape", N(6, 2))
def op_split(x):
    a, b, c = np.split(x, 3)
    return a * b + c


@spec("shape", N(5, 2))
def op_array_split(x):
    a, b = np.array_split(x, 2)
    return a[:2] * b


@spec("shape", N(2, 4))
def op_hsplit(x):
    a, b = np.hsplit(x, 2)
    return a * b


@spec("shape", N(4, 2))
def op_vsplit(x):
    a, b = np.vsplit(x, [1])
    return a * b[0] + b[2]


@spec("shape", N(2, 2, 4))
def op_dsplit(x):
    a, b = np.dsplit(x, 2)
    return a - b * a


@spec("shape", N(2, 3), N(2, 1))
def op_append(x, y):
    return np.append(x, y, axis=1) + 0.0, np.append(x, y)


@spec("shape", N(3), N(2))
def op_meshgrid(x, y):
    a, b = np.meshgrid(x, y)
    return a * b + a


@spec("shape", N(3), N(2))
def op_meshgrid__ij(x, y):
    a, b = np.meshgrid(x, y, indexing="ij")
    return a * b * b


@spec("shape", N(2, 3))
def op_pad(x):
    return np.pad(x, 1), np.pad(x, ((1, 0), (0, 2)), mode="edge"), np.pad(x, 2, mode="reflect")


@spec("shape", N(2, 3))
def op_pad__constant_values(x):
    return np.pad(x, (1, 2), constant_values=3.0)


@spec("shape", N(3, 4))
def op_copy__method(x):
    return x.copy() * np.copy(x)


# ---- sorting and indexing ----

@spec("indexing", distinct(3, 4))
def op_sort(x):
    return np.sort(x), np.sort(x, axis=0), np.sort(x, axis=None)


@spec("indexing", distinct(3, 4))
def op_unique(x):
    """Selections of x's entries (each value's first occurrence): duplicates move together."""
    return np.unique(x), np.unique(x, axis=1), np.unique(np.concatenate([x.ravel(), x[0]]), return_index=True)[0]


@spec("indexing", distinct(3, 4))
def op_unique_values(x):
    return np.unique_values(x)


@spec("indexing", distinct(3, 4))
def op_union1d(x):
    return np.union1d(x[0], x[1:])


@spec("indexing", distinct(3, 4))
def op_intersect1d(x):
    return np.intersect1d(x, x[::2])


@spec("indexing", distinct(3, 4))
def op_setdiff1d(x):
    return np.setdiff1d(x, x[0]), np.setdiff1d(x[1:], x[0], assume_unique=True)


@spec("indexing", distinct(3, 4))
def op_setxor1d(x):
    return np.setxor1d(x[:2], x[1:]), np.setxor1d(x[0], x[2], assume_unique=True)


@spec("indexing", distinct(6))
def op_partition(x):
    return np.partition(x, 2)[2], np.partition(x, 4)[4:]


@spec("indexing", N(3, 4))
def op_take(x):
    return np.take(x, np.array([0, 2, 2])), np.take(x, np.array([[1, 0], [3, 3]]), axis=1)


@spec("indexing", N(3, 4))
def op_take_along_axis(x):
    return np.take_along_axis(x, np.array([[0, 1], [3, 3], [2, 0]]), axis=1)


@spec("indexing", N(3, 4), N(3, 4))
def op_select(x, y):
    return np.select([x > 0.5, y > 0], [x * y, y], 1.0)


@spec("indexing", N(3, 4), N(3, 4), N(3, 4))
def op_select__default(x, y, d):
    return np.select([x > 0.5, y > 0], [x, y * x], d)


@spec("indexing", N(3, 4))
def op_getitem(x):
    return x[1:, ::2] + x[np.array([0, 2]), :2].sum() + x[x > 0].sum() + x[..., None, 1].sum()


# ---- NumPy 2 spellings, tuple results, selections, order statistics ----

@spec("elementwise", U(-0.9, 0.9, 3, 4), N(3, 4))
def op_acos(x, y):
    return np.acos(x) + np.asin(x) + np.atan(y) + np.asinh(y) + np.atanh(x) + np.atan2(y, x + 2.0)


@spec("elementwise", U(-0.9, 0.9, 3, 4), N(3, 4))
def op_asin(x, y):
    return np.asin(x) * y


@spec("elementwise", N(3, 4))
def op_atan(x):
    return np.atan(x)


@spec("elementwise", U(1.2, 3.0, 3, 4))
def op_acosh(x):
    return np.acosh(x)


@spec("elementwise", N(3, 4))
def op_asinh(x):
    return np.asinh(x)


@spec("elementwise", U(-0.9, 0.9, 3, 4))
def op_atanh(x):
    return np.atanh(x)


@spec("elementwise", N(3, 4), P(4))
def op_atan2(x, y):
    return np.atan2(x, y)


@spec("elementwise", P(3, 4), U(-1.5, 1.5, 4))
def op_pow(x, y):
    return np.pow(x, y)


@spec("shape", N(3, 2), N(1, 2))
def op_concat(x, y):
    return np.concat([x, y])


@spec("elementwise", U(-3.0, 3.0, 3, 4))
def op_modf(x):
    frac, whole = np.modf(np.where(np.abs(x - np.round(x)) < 0.1, x + 0.3, x))
    return frac * whole + frac


@spec("elementwise", A(3, 4))
def op_frexp(x):
    m, e = np.frexp(np.where(np.abs(np.abs(x) - 1.0) < 0.1, x * 1.3, x))
    return m * e + m


@spec("linalg", N(3, 4), N(4))
def op_vecdot(a, b):
    return np.vecdot(a, b) + np.vecdot(a, a, axis=0).sum()


@spec("linalg", N(3, 4), N(3, 4))
def op_linalg_vecdot(a, b):
    return np.linalg.vecdot(a, b)


@spec("linalg", N(2, 3, 4), N(4))
def op_matvec(a, v):
    return np.matvec(a, v)


@spec("linalg", N(3), N(2, 3, 4))
def op_vecmat(v, a):
    return np.vecmat(v, a)


@spec("linalg", N(2, 3, 4), N(3, 4, 5))
def op_linalg_tensordot(a, b):
    return np.linalg.tensordot(a, b)


@spec("linalg", N(2, 3, 4), N(4, 2))
def op_linalg_matmul(a, b):
    return np.linalg.matmul(a, b)


@spec("linalg", N(4, 3), N(4, 3))
def op_linalg_cross(a, b):
    return np.linalg.cross(a, b)


@spec("linalg", N(2, 3, 4))
def op_linalg_diagonal(x):
    return np.linalg.diagonal(x, offset=1)


@spec("linalg", N(2, 3, 4))
def op_linalg_trace(x):
    return np.linalg.trace(x)


@spec("linalg", N(2, 3, 4))
def op_linalg_matrix_transpose(x):
    return np.linalg.matrix_transpose(x)


@spec("reduction", A(3, 4))
def op_linalg_vector_norm(x):
    return np.linalg.vector_norm(x) + np.linalg.vector_norm(x, axis=1, ord=1).sum() + np.linalg.vector_norm(x, ord=3)


@spec("reduction", SEPVALS(4, 3))
def op_linalg_matrix_norm(x):
    return np.linalg.matrix_norm(x) + np.linalg.matrix_norm(x, ord="nuc") + np.linalg.matrix_norm(x, ord=1)


@spec("indexing", N(3, 4))
def op_compress(x):
    return np.compress(np.array([True, False, True]), x, axis=0) + np.compress([0, 1, 1], x, axis=0)


@spec("indexing", N(3, 4))
def op_extract(x):
    return np.extract(x > 0, x)


@spec("indexing", N(3, 4))
def op_delete(x):
    return np.delete(x, 1, axis=1), np.delete(x, [0, 5])


@spec("shape", N(3, 4))
def op_unstack(x):
    a, b, c = np.unstack(x)
    return a * b + c


@spec("reduction", N(3, 4))
def op_cumulative_sum(x):
    return np.cumulative_sum(x, axis=1) + np.cumulative_sum(x, axis=0, include_initial=True)[1:]


@spec("reduction", A(3, 4))
def op_cumulative_prod(x):
    return np.cumulative_prod(x, axis=0)


@spec("reduction", N(3, 4))
def op_ediff1d(x):
    return np.ediff1d(x)


@spec("reduction", distinct(3, 5))
def op_median(x):
    return np.median(x, axis=1) + np.median(x) + np.median(x[:, :4], axis=1, keepdims=True)[:, 0]


@spec("reduction", distinct(3, 5))
def op_nanmedian(x):
    return np.nanmedian(_with_nan(x), axis=1)


@spec("reduction", distinct(3, 5))
def op_quantile(x):
    return np.quantile(x, 0.3, axis=0) + np.quantile(x, 0.75)


@spec("reduction", distinct(3, 5))
def op_percentile(x):
    return np.percentile(x, 40.0, axis=1)


@spec("reduction", distinct(3, 5))
def op_nanquantile(x):
    return np.nanquantile(_with_nan(x), 0.3, axis=1)


@spec("reduction", distinct(3, 5))
def op_nanpercentile(x):
    return np.nanpercentile(_with_nan(x), 60.0, axis=1)


@spec("reduction", distinct(3, 4))
def op_cumprod__method(x):
    return x.cumprod(axis=1) + x.take(np.array([1, 2]))[0] + x.conjugate()


@spec("creation", N())
def op_full(v):
    return np.full((2, 3), v)


@spec("creation", N(), N(2))
def op_linspace(a, b):
    return np.linspace(a, b, 5, axis=-1)


@spec("elementwise", U(2.2, 2.8, 3, 4), U(1.0, 1.05, 4))
def op_fmod(x, y):
    return np.fmod(x, y)


@spec("creation", N(3, 4), N())
def op_full_like(x, v):
    return np.full_like(x, v) * x



# ---- batched stacks and less common arguments ----

def WCB(b, n, m=None):
    """A stack of b well-conditioned matrices."""
    m = n if m is None else m
    return lambda rng: rng.standard_normal((b, n, m)) * 0.3 + 2.0 * np.eye(n, m)


@spec("linalg", WCB(2, 3), N(2, 3, 2))
def op_linalg_solve__batched(a, b):
    return np.linalg.solve(a, b)


@spec("linalg", WCB(2, 3))
def op_linalg_det__batched(a):
    return np.linalg.det(a) + np.linalg.slogdet(a)[1] + np.linalg.inv(a).sum(axis=(1, 2))


@spec("linalg", WCB(2, 3))
def op_linalg_svd__batched_values(a):
    return np.linalg.svd(a)[1]


@spec("linalg", N(3, 4), N(4, 2))
def op_einsum__implicit(a, b):
    return np.einsum("ij,jk", a, b, optimize=True)


@spec("linalg", N(2, 3, 4), N(4))
def op_einsum__broadcast_ellipsis(a, b):
    return np.einsum("...i,i->...", a, b)


@spec("linalg", N(3), N(2))
def op_tensordot__outer(a, b):
    return np.tensordot(a, b, axes=0)


@spec("shape", N(3, 4))
def op_pad__symmetric_wrap(a):
    return np.pad(a, 2, mode="symmetric"), np.pad(a, 1, mode="wrap")


@spec("shape", N(2, 5))
def op_split__indices(a):
    p, q, r = np.split(a, [1, 3], axis=1)
    return p * 2.0, q, r


@spec("shape", N(2), N(3), N(4))
def op_meshgrid__three(x, y, z):
    a, b, c = np.meshgrid(x, y, z)
    return a * b * c


@spec("reduction", N(2, 3, 4))
def op_linalg_norm__axis_pair(a):
    return np.linalg.norm(a, axis=(0, 2)) + np.linalg.norm(a[0], 2, axis=0, keepdims=True)[0].sum()


@spec("elementwise", U(-0.5, 3.5, 7), U(-0.05, 0.05, 5), N(5))
def op_interp__knots(x, shift, fp):
    return np.interp(x, xp=np.array([0.0, 0.7, 1.5, 2.2, 3.0]) + shift, fp=fp)


@spec("linalg", SEPVALS(3))
def op_linalg_cond(a):
    return np.linalg.cond(a) + np.linalg.cond(a, -2) + np.linalg.cond(a, "fro") + np.linalg.cond(a, 1)


@spec("linalg", N(2), N(2), N(2), N(2), N(2), N(2))
def op_einsum__six(a, b, c, d, e, f):
    return np.einsum("i,i,j,j,k,k->ijk", a, b, c, d, e, f)


# ---- cov3: a kernel longer than the signal (NumPy centres correlate's "same" the other way) ----
@spec("linalg", N(2), N(5))
def op_correlate__long_kernel(a, v):
    return np.correlate(a, v, "same"), np.correlate(a, v), np.correlate(a, v, "full")


@spec("linalg", N(2), N(6))
def op_convolve__long_kernel(a, v):
    return np.convolve(a, v, "same"), np.correlate(a, v, "same"), np.convolve(a, v, "valid")


# ---- reductions with where= and initial= (every row and column keeps at least one entry) ----
_MASK = np.array([[True, False, True, True], [False, True, True, False], [True, True, False, True]])


@spec("reduction", N(3, 4))
def op_sum__where(x):
    return np.sum(x, axis=1, where=_MASK, initial=0.5), x.sum(where=_MASK), np.sum(x * x, axis=0, where=_MASK)


@spec("reduction", P(3, 4))
def op_prod__where(x):
    return np.prod(x, axis=0, where=_MASK, initial=2.0), x.prod(where=_MASK, keepdims=True)


@spec("reduction", N(3, 4))
def op_mean__where(x):
    return np.mean(x, axis=1, where=_MASK), x.mean(where=_MASK), np.mean(x, axis=0, where=_MASK, keepdims=True)


@spec("reduction", N(3, 4))
def op_var__where(x):
    return np.var(x, axis=1, where=_MASK), np.var(x, ddof=1, where=_MASK), x.var(axis=0, where=_MASK)


@spec("reduction", N(3, 4))
def op_std__where(x):
    return np.std(x, axis=1, where=_MASK), np.std(x, ddof=1, where=_MASK)


@spec("reduction", distinct(3, 4))
def op_max__where(x):
    return np.max(x, axis=1, where=_MASK, initial=-10.0), x.max(where=_MASK, initial=-10.0), \
        np.amax(x, axis=0, where=_MASK, initial=-10.0)


@spec("reduction", distinct(3, 4))
def op_min__where(x):
    return np.min(x, axis=1, where=_MASK, initial=10.0), np.amin(x, axis=0, where=_MASK, initial=10.0)


@spec("reduction", distinct(3, 4))
def op_max__initial_wins(x):
    return np.max(x, axis=1, initial=0.0), np.min(x, axis=0, initial=0.0)


@spec("reduction", N(3, 4))
def op_sum__initial(x):
    return np.sum(x, axis=0, initial=1.5), np.prod(x, initial=3.0)


@spec("reduction", N(3, 4))
def op_nansum__where(x):
    return np.nansum(_with_nan(x), axis=0, where=_MASK, initial=1.0), np.nanmean(_with_nan(x), axis=1, where=_MASK)


@spec("reduction", distinct(3, 4))
def op_nanmax__where(x):
    return np.nanmax(_with_nan(x), axis=1, where=_MASK, initial=-10.0), \
        np.nanmin(_with_nan(x), axis=0, where=_MASK, initial=10.0)


@spec("reduction", P(3, 4))
def op_nanprod__where(x):
    return np.nanprod(_with_nan(x), axis=1, where=_MASK, initial=0.5)


# ---- operations computed from NumPy's definition written with primitives (registry.composite) ----
@spec("reduction", N(3, 5))
def op_cov(x):
    return np.cov(x), np.cov(x[0], x[1], bias=True), np.cov(x.T, rowvar=False, ddof=2)


@spec("reduction", N(3, 5), N(2, 5))
def op_cov__y(x, y):
    return np.cov(x, y, ddof=0)


@spec("reduction", N(3, 5))
def op_corrcoef(x):
    return np.corrcoef(x), np.corrcoef(x[0], x[2])


@spec("shape", N(4))
def op_vander(x):
    return np.vander(x), np.vander(x, 3, increasing=True)


@spec("indexing", N(4), N(2, 4))
def op_insert(v, y):
    return (np.insert(v, 1, 7.0), np.insert(v, [0, 2, 2], y[0, :3]), np.insert(y, 1, v[0], axis=1),
            np.insert(y, 2, v))


@spec("shape", N(3, 1), N(4))
def op_broadcast_arrays(a, b):
    return np.broadcast_arrays(a, b)


@spec("linalg", N(3, 4), N(4, 2), N(2))
def op_linalg_multi_dot(a, b, c):
    return np.linalg.multi_dot([a, b, c]), np.linalg.multi_dot([a[0], b, c]), np.linalg.multi_dot([a, b])


# ---- np.fft: real and imaginary parts of the complex results (complex intermediates, real ends) ----

@spec("linalg", N(6))
def op_fft_fft(a):
    z0 = np.fft.fft(a)
    z1 = np.fft.fft(a, 4, norm="ortho")
    z2 = np.fft.fft(a, 9, norm="forward")
    return np.real(z0), np.imag(z0), np.real(z1), np.imag(z1), np.real(z2), np.imag(z2)


@spec("linalg", N(6))
def op_fft_ifft(a):
    z0 = np.fft.ifft(a)
    z1 = np.fft.ifft(np.fft.fft(a) * (1 + 2j), 5, norm="ortho")
    return np.real(z0), np.imag(z0), np.real(z1), np.imag(z1)


@spec("linalg", N(7))
def op_fft_rfft(a):
    z0 = np.fft.rfft(a)
    z1 = np.fft.rfft(a, 4, norm="forward")
    return np.real(z0), np.imag(z0), np.real(z1), np.imag(z1)


@spec("linalg", N(7))
def op_fft_irfft(a):
    return np.fft.irfft(np.fft.rfft(a) * (1 - 1j)), np.fft.irfft(a, 5, norm="ortho"), np.fft.irfft(np.fft.fft(a), 8)


@spec("linalg", N(3, 4))
def op_fft_fft2(a):
    z0 = np.fft.fft2(a)
    z1 = np.fft.fft2(a, (2, 5), norm="ortho")
    return np.real(z0), np.imag(z0), np.real(z1), np.imag(z1)


@spec("linalg", N(3, 4))
def op_fft_ifft2(a):
    z0 = np.fft.ifft2(a)
    z1 = np.fft.ifft2(a, axes=(0,))
    return np.real(z0), np.imag(z0), np.real(z1), np.imag(z1)


@spec("linalg", N(3, 4))
def op_fft_rfft2(a):
    z0 = np.fft.rfft2(a)
    z1 = np.fft.rfft2(a, (4, 3), norm="forward")
    return np.real(z0), np.imag(z0), np.real(z1), np.imag(z1)


@spec("linalg", N(3, 4))
def op_fft_irfft2(a):
    return np.fft.irfft2(np.fft.rfft2(a) * 1j), np.fft.irfft2(a, (3, 5))


@spec("linalg", N(2, 3, 4))
def op_fft_fftn(a):
    z0 = np.fft.fftn(a)
    z1 = np.fft.fftn(a, (2, 5), axes=(0, 2))
    return np.real(z0), np.imag(z0), np.real(z1), np.imag(z1)


@spec("linalg", N(2, 3, 4))
def op_fft_ifftn(a):
    return np.real(np.fft.ifftn(a, norm="ortho")), np.imag(np.fft.ifftn(a, norm="ortho"))


@spec("linalg", N(2, 3, 4))
def op_fft_rfftn(a):
    z0 = np.fft.rfftn(a)
    z1 = np.fft.rfftn(a, axes=(2, 0))
    return np.real(z0), np.imag(z0), np.real(z1), np.imag(z1)


@spec("linalg", N(2, 3, 4))
def op_fft_irfftn(a):
    return np.fft.irfftn(np.fft.rfftn(a), a.shape, axes=(0, 1, 2)), np.fft.irfftn(a, axes=(1,))


@spec("shape", N(3, 5))
def op_fft_fftshift(x):
    return np.fft.fftshift(x), np.fft.fftshift(x, axes=1)


@spec("shape", N(3, 5))
def op_fft_ifftshift(x):
    return np.fft.ifftshift(x), np.fft.ifftshift(x, axes=(0,))


@spec("linalg", P())
def op_fft_fftfreq(d):
    return np.fft.fftfreq(5, d), np.fft.fftfreq(6)


@spec("linalg", P())
def op_fft_rfftfreq(d):
    return np.fft.rfftfreq(5, d)


@spec("linalg", N(5, 3), N(5, 2))
def op_linalg_lstsq(a, b):
    x, res, rank, s = np.linalg.lstsq(a, b)
    wide = np.linalg.lstsq(a[:2], b[:2, 0], rcond=None)[0]  # under-determined: the minimum-norm solution
    return x, res, s, wide, np.linalg.lstsq(a, b[:, 1])[1]


@spec("shape", N(4, 6))
def op_lib_stride_tricks_sliding_window_view(x):
    windows = np.lib.stride_tricks.sliding_window_view(x, (2, 3))
    return (windows, np.lib.stride_tricks.sliding_window_view(x, 4, axis=-1)[:, ::2],
            np.lib.stride_tricks.sliding_window_view(x, (2, 2), axis=(1, 1)))


@spec("shape", N(3, 4))
def op_lib_stride_tricks_as_strided(x):
    return np.lib.stride_tricks.as_strided(x) * 2.0
