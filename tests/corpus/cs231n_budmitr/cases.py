"""cs231n assignment solutions by Dmitrii Budylskii (budmitr/cs231n, MIT): layers.py's forward
passes and the linear classifiers' losses, each against the author's own backward or dW.

The files are Python 2 (`xrange`): the loader gives their modules `xrange = range`, as a
Python 3 user would. conv_forward_naive and max_pool_forward_naive are left out: they build
arrays of a float shape (`/` on ints), which Python 3's NumPy refuses in the plain function,
and neural_net.py (TwoLayerNet) has Python 2's print statement."""
import numpy as np
from harness import Case, load

layers = load(__file__, "assignment2/cs231n/layers.py")
linear_svm = load(__file__, "assignment1/cs231n/classifiers/linear_svm.py", py2=True)
softmax = load(__file__, "assignment1/cs231n/classifiers/softmax.py", py2=True)

rng = np.random.default_rng(0)
N, D, M, C = 4, 5, 3, 3
x = rng.normal(size=(N, D))
w = rng.normal(size=(D, M))
b = rng.normal(size=M)
dout = rng.normal(size=(N, M))
x4 = rng.normal(size=(N, 2, 3, 3))
w_flat = rng.normal(size=(18, M))
gamma, beta = rng.normal(size=D), rng.normal(size=D)
dbn = rng.normal(size=(N, D))
cg, cb = rng.normal(size=2), rng.normal(size=2)
dsp = rng.normal(size=(N, 2, 3, 3))
scores = rng.normal(size=(N, C))
labels = rng.integers(0, C, size=N)
W = rng.normal(size=(D, C)) * 0.5
reg = 0.1
running = {"mean": rng.normal(size=D), "var": rng.uniform(0.5, 2.0, size=D)}


def bn_train():
    return {"mode": "train"}


def bn_test():
    return {"mode": "test", "running_mean": running["mean"].copy(), "running_var": running["var"].copy()}


def bn_grads(backward, x, gamma, beta, up):
    _, cache = layers.batchnorm_forward(x, gamma, beta, bn_train())
    return backward(up, cache)


def spatial_grads(x, gamma, beta, up):
    _, cache = layers.spatial_batchnorm_forward(x, gamma, beta, bn_train())
    return layers.spatial_batchnorm_backward(up, cache)


def dropout_train_loss(x, up):
    out, _ = layers.dropout_forward(x, {"p": 0.6, "mode": "train", "seed": 3})
    return np.sum(out * up)


def dropout_train_grad(x, up):
    _, cache = layers.dropout_forward(x, {"p": 0.6, "mode": "train", "seed": 3})
    return layers.dropout_backward(up, cache)


def dropout_test_grad(x, up):
    _, cache = layers.dropout_forward(x, {"p": 0.6, "mode": "test"})
    return layers.dropout_backward(up, cache)


CASES = [
    Case("affine", "layers.affine_forward",
         lambda x, w, b, up: np.sum(layers.affine_forward(x, w, b)[0] * up),
         (x4, w_flat, b, dout), lambda x, w, b, up: layers.affine_backward(up, layers.affine_forward(x, w, b)[1]),
         argnums=(0, 1, 2)),
    Case("relu", "layers.relu_forward", lambda x, up: np.sum(layers.relu_forward(x)[0] * up), (x, dbn),
         lambda x, up: layers.relu_backward(up, layers.relu_forward(x)[1])),
    Case("batchnorm_train", "layers.batchnorm_forward",
         lambda x, gamma, beta, up: np.sum(layers.batchnorm_forward(x, gamma, beta, bn_train())[0] * up),
         (x, gamma, beta, dbn), lambda x, g, be, up: bn_grads(layers.batchnorm_backward, x, g, be, up),
         argnums=(0, 1, 2)),
    Case("batchnorm_train_alt", "layers.batchnorm_backward_alt",
         lambda x, gamma, beta, up: np.sum(layers.batchnorm_forward(x, gamma, beta, bn_train())[0] * up),
         (x, gamma, beta, dbn), lambda x, g, be, up: bn_grads(layers.batchnorm_backward_alt, x, g, be, up),
         argnums=(0, 1, 2)),
    Case("spatial_batchnorm", "layers.spatial_batchnorm_forward",
         lambda x, gamma, beta, up: np.sum(layers.spatial_batchnorm_forward(x, gamma, beta, bn_train())[0] * up),
         (x4, cg, cb, dsp), spatial_grads, argnums=(0, 1, 2)),
    Case("dropout_train", "layers.dropout_forward", dropout_train_loss, (x, dbn), dropout_train_grad),
    Case("dropout_test", "layers.dropout_backward",
         lambda x, up: np.sum(layers.dropout_forward(x, {"p": 0.6, "mode": "test"})[0] * up), (x, dbn),
         dropout_test_grad, wrong="test mode: the forward scales by p, the backward returns dout unscaled"),
    Case("svm_loss", "layers.svm_loss", lambda x, y: layers.svm_loss(x, y)[0], (scores, labels),
         lambda x, y: layers.svm_loss(x, y)[1]),
    Case("softmax_loss", "layers.softmax_loss", lambda x, y: layers.softmax_loss(x, y)[0], (scores, labels),
         lambda x, y: layers.softmax_loss(x, y)[1]),
    Case("svm_loss_naive", "linear_svm.svm_loss_naive",
         lambda W, X, y, reg: linear_svm.svm_loss_naive(W, X, y, reg)[0], (W, x, labels, reg),
         lambda W, X, y, reg: linear_svm.svm_loss_naive(W, X, y, reg)[1]),
    Case("svm_loss_vectorized", "linear_svm.svm_loss_vectorized",
         lambda W, X, y, reg: linear_svm.svm_loss_vectorized(W, X, y, reg)[0], (W, x, labels, reg),
         lambda W, X, y, reg: linear_svm.svm_loss_vectorized(W, X, y, reg)[1]),
    Case("softmax_loss_naive", "softmax.softmax_loss_naive",
         lambda W, X, y, reg: softmax.softmax_loss_naive(W, X, y, reg)[0], (W, x, labels, reg),
         lambda W, X, y, reg: softmax.softmax_loss_naive(W, X, y, reg)[1]),
    Case("softmax_loss_vectorized", "softmax.softmax_loss_vectorized",
         lambda W, X, y, reg: softmax.softmax_loss_vectorized(W, X, y, reg)[0], (W, x, labels, reg),
         lambda W, X, y, reg: softmax.softmax_loss_vectorized(W, X, y, reg)[1]),
]
