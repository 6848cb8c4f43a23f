"""hipsternet by Agustinus Kristiadi (wiseodd/hipsternet, the Unlicense): layer.py's forward
functions against their backward, loss.py's losses against their d-functions (in the network's
output), and regularization.py's penalties against their derivatives."""
import numpy as np
from harness import Case, load

layer = load(__file__, "hipsternet/layer.py")
loss = load(__file__, "hipsternet/loss.py")
regularization = load(__file__, "hipsternet/regularization.py")

rng = np.random.default_rng(3)
X = rng.normal(size=(4, 5))
up = rng.normal(size=(4, 5))


def pair_case(name, forward, backward, args, **kw):
    """forward(X) -> (out, cache) against backward(up, cache), for args (X, up)."""
    return Case(name, f"layer.{forward.__name__}", lambda X, up: np.sum(forward(X)[0] * up), args,
                lambda X, up: backward(up, forward(X)[1]), **kw)


W, b = rng.normal(size=(5, 3)), rng.normal(size=3)
gamma, beta = rng.normal(size=5), rng.normal(size=5)
X4 = rng.normal(size=(2, 2, 4, 4))
Wc, bc = rng.normal(size=(3, 2, 3, 3)), rng.normal(size=(3, 1))


def bn_loss(X, gamma, beta, up):
    out, _, _, _ = layer.bn_forward(X, gamma, beta, (np.zeros(5), np.ones(5)))
    return np.sum(out * up)


def bn_author(X, gamma, beta, up):
    _, cache, _, _ = layer.bn_forward(X, gamma, beta, (np.zeros(5), np.ones(5)))
    return layer.bn_backward(up, cache)


def dropout_loss(X, up):
    np.random.seed(4)
    return np.sum(layer.dropout_forward(X, 0.7)[0] * up)


def dropout_author(X, up):
    np.random.seed(4)
    return layer.dropout_backward(up, layer.dropout_forward(X, 0.7)[1])


LAYER_CASES = [
    Case("fc", "layer.fc_forward", lambda X, W, b, up: np.sum(layer.fc_forward(X, W, b)[0] * up),
         (X, W, b, rng.normal(size=(4, 3))), lambda X, W, b, up: layer.fc_backward(up, layer.fc_forward(X, W, b)[1]),
         argnums=(0, 1, 2)),
    pair_case("relu", layer.relu_forward, layer.relu_backward, (X, up)),
    pair_case("lrelu", layer.lrelu_forward, layer.lrelu_backward, (X, up)),
    pair_case("sigmoid", layer.sigmoid_forward, layer.sigmoid_backward, (X, up)),
    pair_case("tanh", layer.tanh_forward, layer.tanh_backward, (X, up)),
    Case("dropout", "layer.dropout_forward", dropout_loss, (X, up), dropout_author),
    Case("bn", "layer.bn_forward", bn_loss, (X, gamma, beta, up), bn_author, argnums=(0, 1, 2)),
    Case("conv", "layer.conv_forward", lambda X, W, b, up: np.sum(layer.conv_forward(X, W, b)[0] * up),
         (X4, Wc, bc, rng.normal(size=(2, 3, 4, 4))),
         lambda X, W, b, up: layer.conv_backward(up, layer.conv_forward(X, W, b)[1]), argnums=(0, 1, 2)),
    pair_case("maxpool", layer.maxpool_forward, layer.maxpool_backward, (X4, rng.normal(size=(2, 2, 2, 2)))),
    pair_case("avgpool", layer.avgpool_forward, layer.avgpool_backward, (X4, rng.normal(size=(2, 2, 2, 2)))),
]

MODEL = {"W1": rng.normal(size=(5, 3)), "b1": rng.normal(size=3)}
scores = rng.normal(size=(6, 3))
labels = rng.integers(0, 3, size=6)
column = rng.normal(size=(6, 1))
targets = rng.normal(size=6)
REGRESSION_WRONG = ("the loss broadcasts y_train (m,) against y_pred (m, 1) to an (m, m) table; "
                    "the gradient reshapes y_train to (m, 1) and differentiates another loss")


def loss_case(name, forward, backward, y_pred, y, wrong=None):
    return Case(name, f"loss.{forward.__name__}", lambda p, y: forward(MODEL, p, y), (y_pred, y),
                lambda p, y: backward(p, y), wrong=wrong)


LOSS_CASES = [
    loss_case("cross_entropy", loss.cross_entropy, loss.dcross_entropy, scores, labels),
    loss_case("hinge_loss", loss.hinge_loss, loss.dhinge_loss, scores, labels),
    loss_case("squared_loss", loss.squared_loss, loss.dsquared_loss, scores, labels),
    loss_case("l2_regression", loss.l2_regression, loss.dl2_regression, column, targets, wrong=REGRESSION_WRONG),
    loss_case("l1_regression", loss.l1_regression, loss.dl1_regression, column, targets, wrong=REGRESSION_WRONG),
]

Wr = rng.normal(size=(4, 3))
REG_CASES = [
    Case("l2_reg", "regularization.l2_reg", lambda W: regularization.l2_reg(W, 0.1), (Wr,),
         lambda W: regularization.dl2_reg(W, 0.1)),
    Case("l1_reg", "regularization.l1_reg", lambda W: regularization.l1_reg(W, 0.1), (Wr,),
         lambda W: regularization.dl1_reg(W, 0.1)),
]

CASES = LAYER_CASES + LOSS_CASES + REG_CASES
