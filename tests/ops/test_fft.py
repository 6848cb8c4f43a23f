"""np.fft (issue 45 item 6): every transform's value under jit and vmap against NumPy, its
gradient and tangent against central differences of NumPy's own function (through real losses of
the complex results: real and imaginary parts, |X|^2, an inverse transform), jvp against vjp,
vmap of grad against a loop, second derivatives through a complex |X|, an FFT convolution layer
against np.convolve, and the refusals (out=, a complex cotangent from an operation outside np.fft's
path)."""
import numpy as np
import pytest
from helpers_compare import fd_grad, fd_hessian

import s2s

RNG = np.random.default_rng(45)
W6 = RNG.standard_normal(64)


def _weigh(z):
    """A real loss of any array: weighted real and imaginary parts (different weights)."""
    flat = np.ravel(z)
    w = W6[: flat.size]  # (every result here has at most 64 entries)
    return np.sum(np.real(flat) * w) + np.sum(np.imag(flat) * (1.0 - w))


# (name, function of a real array, input shape): each call spells the parameters differently
CALLS = [
    ("fft", lambda a: np.fft.fft(a), (6,)),
    ("fft_n_small", lambda a: np.fft.fft(a, 4), (6,)),
    ("fft_n_big_ortho", lambda a: np.fft.fft(a, n=9, norm="ortho"), (6,)),
    ("fft_axis0_forward", lambda a: np.fft.fft(a, axis=0, norm="forward"), (4, 3)),
    ("ifft", lambda a: np.fft.ifft(a), (5,)),
    ("ifft_n_axis", lambda a: np.fft.ifft(a, 3, 0), (4, 2)),
    ("rfft_even", lambda a: np.fft.rfft(a), (8,)),
    ("rfft_odd_ortho", lambda a: np.fft.rfft(a, norm="ortho"), (7,)),
    ("rfft_n", lambda a: np.fft.rfft(a, n=10, axis=-1), (3, 6)),
    ("irfft_of_real", lambda a: np.fft.irfft(a), (5,)),
    ("irfft_n_odd", lambda a: np.fft.irfft(a, 7, norm="forward"), (5,)),
    ("irfft_n_crop", lambda a: np.fft.irfft(a, 4, axis=0), (6, 2)),
    ("fft2", lambda a: np.fft.fft2(a), (3, 4)),
    ("fft2_3d_s", lambda a: np.fft.fft2(a, s=(2, 5), norm="ortho"), (2, 3, 4)),
    ("ifft2_axes", lambda a: np.fft.ifft2(a, axes=(0, 2)), (2, 3, 4)),
    ("rfft2", lambda a: np.fft.rfft2(a), (4, 5)),
    ("irfft2_s", lambda a: np.fft.irfft2(a, s=(3, 6)), (3, 4)),
    ("fftn", lambda a: np.fft.fftn(a), (2, 3, 2)),
    ("fftn_axes_none_3d", lambda a: np.fft.fftn(a, axes=None, norm="forward"), (3, 2, 2)),
    ("ifftn_axes", lambda a: np.fft.ifftn(a, s=(4,), axes=(1,)), (2, 3)),
    ("rfftn_axes", lambda a: np.fft.rfftn(a, axes=(2, 0)), (3, 2, 4)),
    ("irfftn", lambda a: np.fft.irfftn(a, axes=(0, 1)), (3, 4)),
    ("fftshift", lambda a: np.fft.fftshift(a), (3, 5)),
    ("ifftshift_axes", lambda a: np.fft.ifftshift(a, axes=1), (3, 5)),
]
IDS = [c[0] for c in CALLS]


def _loss(op):
    return lambda a: _weigh(op(a))


@pytest.mark.parametrize("name, op, shape", CALLS, ids=IDS)
def test_value_under_jit_is_numpys(name, op, shape):
    a = RNG.standard_normal(shape)
    np.testing.assert_allclose(s2s.jit(op)(a), op(a), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name, op, shape", CALLS, ids=IDS)
def test_grad_and_jvp_match_central_differences(name, op, shape):
    a = RNG.standard_normal(shape)
    f = _loss(op)
    want = fd_grad(f, a)
    np.testing.assert_allclose(s2s.grad(f)(a), want, rtol=1e-6, atol=1e-7)
    v = RNG.standard_normal(shape)
    _, tangent = s2s.jvp(f, (a,), (v,))
    np.testing.assert_allclose(tangent, np.sum(want * v), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name, op, shape", CALLS, ids=IDS)
def test_jvp_of_the_complex_result_is_vjps_transpose(name, op, shape):
    """<u, J v> = <J^T u, v> with the pairing Re(u * dz): the tangent of the complex result against
    the cotangent vjp returns, for random u and v."""
    a, v = RNG.standard_normal(shape), RNG.standard_normal(shape)
    ans = op(a)
    u = RNG.standard_normal(np.shape(ans))
    if np.iscomplexobj(ans):  # a complex result leaves s2s through a real loss: Re(u * z), u complex
        u = u + 1j * RNG.standard_normal(np.shape(ans))
        tangent = s2s.jvp(lambda x: np.sum(np.real(u * op(x))), (a,), (v,))[1]
        ct = s2s.grad(lambda x: np.sum(np.real(u * op(x))))(a)
    else:
        value, tangent_array = s2s.jvp(op, (a,), (v,))
        np.testing.assert_allclose(value, ans, rtol=1e-12, atol=1e-12)
        tangent = np.sum(u * tangent_array)
        (ct,) = s2s.vjp(op, a)[1](u)
    np.testing.assert_allclose(np.sum(ct * v), tangent, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name, op, shape", CALLS, ids=IDS)
def test_vmap_and_vmap_of_grad_match_a_loop(name, op, shape):
    batch = RNG.standard_normal((3,) + shape)
    got = s2s.vmap(op)(batch)
    np.testing.assert_allclose(got, np.stack([op(b) for b in batch]), rtol=1e-12, atol=1e-12)
    f = _loss(op)
    grads = s2s.vmap(s2s.grad(f))(batch)
    np.testing.assert_allclose(grads, np.stack([s2s.grad(f)(b) for b in batch]), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(grads[0], fd_grad(f, batch[0]), rtol=1e-6, atol=1e-7)


def test_grad_of_the_power_spectrum():
    """The issue's example: d/dx sum |rfft(x)|^2 (Parseval: 2 x weighed by the half spectrum's
    multiplicities), against central differences."""
    x = RNG.standard_normal(9)

    def power(x):
        return np.sum(np.abs(np.fft.rfft(x)) ** 2)

    g = s2s.grad(power)(x)
    np.testing.assert_allclose(g, fd_grad(power, x), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(s2s.jit(s2s.grad(power))(x), g, rtol=1e-12)
    # with 9 points, every frequency but 0 is counted once in rfft: sum |X|^2 = (9 sum x^2 + (sum x)^2) / 2
    np.testing.assert_allclose(g, 9 * x + np.sum(x), rtol=1e-10)


def test_second_derivatives_through_a_complex_abs():
    x = RNG.standard_normal(6)

    def f(x):
        return np.sum(np.abs(np.fft.rfft(x, norm="ortho")) ** 3)

    h = s2s.hessian(f)(x)
    np.testing.assert_allclose(h, fd_hessian(f, x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s2s.jacfwd(s2s.grad(f))(x), h, rtol=1e-10, atol=1e-10)


def test_fft_convolution_is_np_convolve_and_differentiates_in_both_operands():
    a, b = RNG.standard_normal(7), RNG.standard_normal(4)
    n = a.size + b.size - 1

    def conv(a, b):
        return np.fft.irfft(np.fft.rfft(a, n) * np.fft.rfft(b, n), n)

    np.testing.assert_allclose(s2s.jit(conv)(a, b), np.convolve(a, b), atol=1e-12)
    w = RNG.standard_normal(n)

    def loss(a, b):
        return np.sum(conv(a, b) * w)

    ga, gb = s2s.grad(loss, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, fd_grad(lambda t: loss(t, b), a), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gb, fd_grad(lambda t: loss(a, t), b), rtol=1e-6, atol=1e-7)
    # the convolution's transpose: a correlation of w with the other operand
    np.testing.assert_allclose(ga, np.correlate(w, b, "valid"), atol=1e-10)


def fft_conv1d(x, kernel, bias):
    """A 1-d convolution layer computed through the FFT (circular, 'same' length), with a bias."""
    n = x.shape[-1]
    spectrum = np.fft.rfft(x, axis=-1) * np.fft.rfft(kernel, n)
    return np.fft.irfft(spectrum, n, axis=-1) + bias


def _naive_circular(x, k):
    n = x.shape[-1]
    out = np.zeros_like(x)
    for i in range(n):
        for j in range(k.size):
            out[..., i] += x[..., (i - j) % n] * k[j]
    return out


def test_an_fft_convolution_layer_in_a_loss():
    x, target = RNG.standard_normal((4, 10)), RNG.standard_normal((4, 10))
    kernel = RNG.standard_normal(3)

    def loss(kernel, bias, x):
        return np.mean((np.tanh(fft_conv1d(x, kernel, bias)) - target) ** 2)

    np.testing.assert_allclose(s2s.jit(fft_conv1d)(x, kernel, 0.1), _naive_circular(x, kernel) + 0.1, atol=1e-12)
    gk, gb, gx = s2s.grad(loss, argnums=(0, 1, 2))(kernel, 0.1, x)
    np.testing.assert_allclose(gk, fd_grad(lambda k: loss(k, 0.1, x), kernel), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb, (loss(kernel, 0.1 + 1e-6, x) - loss(kernel, 0.1 - 1e-6, x)) / 2e-6, rtol=1e-6)
    np.testing.assert_allclose(gx, fd_grad(lambda t: loss(kernel, 0.1, t), x), rtol=1e-6, atol=1e-8)
    per_example = s2s.vmap(s2s.grad(lambda k, xi: loss(k, 0.1, xi[None])), in_axes=(None, 0))(kernel, x)
    np.testing.assert_allclose(per_example, [s2s.grad(lambda k: loss(k, 0.1, xi[None]))(kernel) for xi in x],
                               rtol=1e-12, atol=1e-12)


def test_fftfreq_differentiates_in_the_spacing():
    def f(d):
        return np.sum(np.fft.fftfreq(7, d) ** 2) + np.sum(np.fft.rfftfreq(6, d))

    d = 0.3
    np.testing.assert_allclose(s2s.grad(f)(d), (f(d + 1e-7) - f(d - 1e-7)) / 2e-7, rtol=1e-6)
    ds = np.array([0.3, 0.5, 2.0])
    np.testing.assert_allclose(s2s.vmap(lambda d: np.fft.fftfreq(5, d))(ds), [np.fft.fftfreq(5, d) for d in ds])


def test_out_is_refused_at_the_users_line():
    x = RNG.standard_normal(4)

    def f(x):
        out = np.empty(4, dtype=complex)
        return np.sum(np.abs(np.fft.fft(x, out=out)))

    with pytest.raises(s2s.S2SError, match="out"):
        s2s.grad(f)(x)


def test_a_complex_cotangent_from_outside_np_fft_takes_the_real_part():
    """Outside np.fft too, a real input's cotangent is the real part of a complex one (JAX's
    convention): a complex constant times a real argument, d/dx sum(cos(x)) = -sin(x)."""
    x = RNG.standard_normal(3)
    np.testing.assert_allclose(s2s.grad(lambda x: np.sum(np.real(np.exp(1j * x))))(x), -np.sin(x), rtol=1e-12)


C4 = np.array([1 + 2j, 0.5 - 1j, 2 + 0.3j, -1 + 1j])
# real results of complex spectra multiplied or added to complex arrays again: a real operand's
# cotangent is the real part of a complex product, which s2s takes (JAX's convention)
MIXED = {
    "real_times_complex": lambda x: np.sum(np.abs(np.real(np.fft.rfft(x)) * C4)),
    "imag_times_complex": lambda x: np.sum(np.abs(np.imag(np.fft.rfft(x)) * C4)),
    "abs_times_complex": lambda x: np.sum(np.abs(np.abs(np.fft.rfft(x)) * C4)),
    "abs_plus_complex": lambda x: np.sum(np.abs(np.abs(np.fft.rfft(x)) + C4)),
    "input_times_complex": lambda x: np.sum(np.abs(np.fft.rfft(x * x) + x[:4] * C4)),
}


@pytest.mark.parametrize("name", sorted(MIXED))
def test_real_values_between_complex_ones_are_right(name):
    f, x = MIXED[name], RNG.standard_normal(6)
    want = fd_grad(f, x)
    np.testing.assert_allclose(s2s.jvp(f, (x,), (np.ones(6),))[1], np.sum(want), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2s.grad(f)(x), want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(np.stack([x, 2 * x]))[0], want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", [lambda x: np.linalg.norm(np.fft.rfft(x)), lambda x: np.var(np.fft.fft(x)),
                               lambda x: np.sum(np.linalg.svd(np.fft.fft2(x.reshape(2, 3)), compute_uv=False))],
                         ids=["norm", "var", "svd"])
def test_rules_written_for_real_arrays_refuse_a_complex_one(f):
    """A norm, a variance, a factorization of a complex spectrum: their rules take no conjugates, so
    both modes refuse rather than return the real part of a wrong cotangent."""
    x = RNG.standard_normal(6)
    with pytest.raises(s2s.S2SError, match="complex"):
        s2s.grad(f)(x)
    with pytest.raises(s2s.S2SError, match="complex"):
        s2s.jvp(f, (x,), (x,))
