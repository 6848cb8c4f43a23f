"""deepnet by Paras Dahal (parasdahal/deepnet, MIT): the layer classes' forward against their
backward (which returns the input's gradient and the weights' gradients), SoftmaxLoss against
the gradient it returns, and the L1/L2 penalties against their delta functions."""
import numpy as np
from harness import Case, load

layers = load(__file__, "deepnet/layers.py")
loss = load(__file__, "deepnet/loss.py")

rng = np.random.default_rng(4)
X2 = rng.normal(size=(4, 5))
up2 = rng.normal(size=(4, 5))
X4 = rng.normal(size=(2, 2, 4, 4))

FC = layers.FullyConnected(5, 3)
CONV = layers.Conv((2, 4, 4), 3, 3, 3, 1, 1)
BN = layers.Batchnorm((2, 2, 2))


def fc_loss(X, W, b, up):
    FC.W, FC.b = W, b
    return np.sum(FC.forward(X) * up)


def fc_author(X, W, b, up):
    FC.W, FC.b = W, b
    FC.forward(X)
    dX, (dW, db) = FC.backward(up)
    return dX, dW, db.reshape(b.shape)  # (the author's db drops b's leading axis of 1)


def conv_loss(X, W, b, up):
    CONV.W, CONV.b = W, b
    return np.sum(CONV.forward(X) * up)


def conv_author(X, W, b, up):
    CONV.W, CONV.b = W, b
    CONV.forward(X)
    dX, (dW, db) = CONV.backward(up)
    return dX, dW, db


def bn_loss(X, gamma, beta, up):
    BN.gamma, BN.beta = gamma, beta
    return np.sum(BN.forward(X) * up)


def bn_author(X, gamma, beta, up):
    BN.gamma, BN.beta = gamma, beta
    BN.forward(X)
    dX, (dgamma, dbeta) = BN.backward(up)
    return dX, dgamma.reshape(gamma.shape), dbeta.reshape(beta.shape)


def input_case(name, lay, X, upshape, **kw):
    """A layer without weights (or with them left as they are): its forward against an upstream
    gradient, and the input's gradient from its backward."""
    def author(X, up):
        lay.forward(X)
        return lay.backward(up)[0]

    return Case(name, f"layers.{type(lay).__name__}", lambda X, up: np.sum(lay.forward(X) * up),
                (X, rng.normal(size=upshape)), author, **kw)


DROPOUT = layers.Dropout(0.7)


def dropout_loss(X, up):
    np.random.seed(6)
    return np.sum(DROPOUT.forward(X) * up)


def dropout_author(X, up):
    np.random.seed(6)
    DROPOUT.forward(X)
    return DROPOUT.backward(up)[0]


LAYER_CASES = [
    Case("fully_connected", "layers.FullyConnected", fc_loss, (X2, rng.normal(size=(5, 3)), rng.normal(size=(1, 3)),
         rng.normal(size=(4, 3))), fc_author, argnums=(0, 1, 2)),
    Case("conv", "layers.Conv", conv_loss, (X4, rng.normal(size=(3, 2, 3, 3)), rng.normal(size=(3, 1)),
         rng.normal(size=(2, 3, 4, 4))), conv_author, argnums=(0, 1, 2)),
    Case("batchnorm", "layers.Batchnorm", bn_loss, (rng.normal(size=(4, 2, 2, 2)), rng.normal(size=(1, 8)),
         rng.normal(size=(1, 8)), rng.normal(size=(4, 2, 2, 2))), bn_author, argnums=(0, 1, 2)),
    input_case("maxpool", layers.Maxpool((2, 4, 4), 2, 2), X4, (2, 2, 2, 2)),
    input_case("flatten", layers.Flatten(), X4, (2, 32)),
    input_case("relu", layers.ReLU(), X2, (4, 5)),
    input_case("sigmoid", layers.sigmoid(), X2, (4, 5),
               wrong="the forward is 1 / (1 + exp(X)), a sigmoid of -X; the backward is the derivative of "
                     "a sigmoid of X (the sign is wrong)"),
    input_case("tanh", layers.tanh(), X2, (4, 5)),
    Case("dropout", "layers.Dropout", dropout_loss, (X2, up2), dropout_author),
]

scores = rng.normal(size=(6, 3))
labels = rng.integers(0, 3, size=6)
REG = layers.FullyConnected(4, 3)


def l2_loss(W):
    REG.W = W
    return loss.l2_regularization([REG], lam=0.1)


def l2_author(W):
    REG.W = W
    return loss.delta_l2_regularization([REG], [[np.zeros_like(W), np.zeros(3)]], lam=0.1)[0][0]


def l1_loss(W):
    REG.W = W
    return loss.l1_regularization([REG], lam=0.1)


def l1_author(W):
    REG.W = W
    return loss.delta_l1_regularization([REG], [[np.zeros_like(W), np.zeros(3)]], lam=0.1)[0][0]


LOSS_CASES = [
    Case("softmax_loss", "loss.SoftmaxLoss", lambda X, y: loss.SoftmaxLoss(X, y)[0], (scores, labels),
         lambda X, y: loss.SoftmaxLoss(X, y)[1]),
    Case("l2_regularization", "loss.l2_regularization", l2_loss, (rng.normal(size=(4, 3)),), l2_author),
    Case("l1_regularization", "loss.l1_regularization", l1_loss, (rng.normal(size=(4, 3)),), l1_author),
]

CASES = LAYER_CASES + LOSS_CASES
