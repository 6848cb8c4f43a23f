"""Black-box variational inference: fit a diagonal Gaussian q(z) = N(mean, exp(log_std)^2) to an
unnormalized 2-D posterior by stochastic gradient ascent on the ELBO, with the samples drawn
inside the objective (the reparameterization trick):

    eps ~ N(0, I) from rs.randn,  z = mean + exp(log_std) * eps,
    ELBO = mean(log p(z)) + entropy(q)

The draws are constants with respect to the variational parameters and are drawn exactly once
per call, as running the objective itself would: the same seed gives the same numbers.
Checked against central finite differences (the seed fixed inside the objective), then trained:
the negative ELBO goes down and the mean moves to the posterior's mode.
"""

import functools

import numpy as np

import s2s
from s2s.test_util import check_grads

D, SAMPLES = 2, 200
TARGET_MEAN = np.array([1.0, -0.5])
TARGET_STD = np.array([0.7, 0.3])


def log_density(z):
    return -0.5 * np.sum(((z - TARGET_MEAN) / TARGET_STD) ** 2, axis=1)


def neg_elbo(params, seed):
    mean, log_std = params[:D], params[D:]
    rs = np.random.RandomState(seed)
    eps = rs.randn(SAMPLES, D)
    z = mean + np.exp(log_std) * eps
    entropy = np.sum(log_std) + 0.5 * D * (1.0 + np.log(2 * np.pi))
    return -(np.mean(log_density(z)) + entropy)


def main():
    params = np.array([-1.0, 1.0, 0.5, 0.5])
    check_grads(functools.partial(neg_elbo, seed=0), (params,), order=2, modes=("fwd", "rev"))
    print("gradient matches central finite differences")
    want = neg_elbo(params, 7)
    got, _ = s2s.value_and_grad(neg_elbo)(params, 7)
    assert got == want, "the transformed objective must draw the same numbers"
    grad = s2s.value_and_grad(neg_elbo)
    curve = []
    for step in range(150):
        loss, g = grad(params, step)
        curve.append(loss)
        params = params - 0.05 * g
        if step % 25 == 0:
            print(f"step {step:3d}  -ELBO {loss:.4f}")
    print("fitted mean", np.round(params[:D], 2), "std", np.round(np.exp(params[D:]), 2))
    assert np.mean(curve[-10:]) < np.mean(curve[:10]), "training did not reduce the loss"
    np.testing.assert_allclose(params[:D], TARGET_MEAN, atol=0.15)
    np.testing.assert_allclose(np.exp(params[D:]), TARGET_STD, atol=0.15)


if __name__ == "__main__":
    main()
