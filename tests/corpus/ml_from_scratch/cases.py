"""ML-From-Scratch by Erik Linder-Norén (MIT): the deep-learning layers' forward_pass against their
backward_pass, the activation functions through the Activation layer, and the two losses against
their `gradient`.

A layer's backward_pass hands its weight gradients to an optimizer's `update(w, grad)`; the cases
give it `Record`, which keeps the gradient and returns the weights unchanged, so the author's
weight gradients are read from their own code."""
import numpy as np
from harness import Case, load

layers = load(__file__, "mlfromscratch/deep_learning/layers.py")
losses = load(__file__, "mlfromscratch/deep_learning/loss_functions.py", stubs={"mlfromscratch.utils": ("accuracy_score",)})

rng = np.random.default_rng(1)


class Record:
    """An optimizer that keeps the gradient it is given and leaves the weights as they are."""

    def update(self, w, grad_wrt_w):
        self.grad = grad_wrt_w
        return w


def built(layer, input_shape):
    layer.set_input_shape(input_shape)
    if hasattr(layer, "initialize"):
        layer.initialize(Record())
    return layer


# --- activations, through the Activation layer -------------------------------------------------

x = rng.normal(size=(4, 5))
up = rng.normal(size=(4, 5))
ACTIVATIONS = {name: built(layers.Activation(name), (5,)) for name in layers.activation_functions}


def activation_case(name, wrong=None):
    layer = ACTIVATIONS[name]

    def author(x, up):
        layer.forward_pass(x)
        return layer.backward_pass(up)

    return Case(f"activation_{name}", f"activation_functions.{type(layer.activation_func).__name__}",
                lambda x, up: np.sum(layer.forward_pass(x) * up), (x, up), author, wrong=wrong)


ACTIVATION_CASES = [
    activation_case(name, wrong="gradient is p(1 - p), the Jacobian's diagonal, not its product with the "
                    "upstream gradient" if name == "softmax" else None)
    for name in layers.activation_functions]

# --- losses -------------------------------------------------------------------------------------

SQUARE, XENT = losses.SquareLoss(), losses.CrossEntropy()
y_true = rng.normal(size=(4, 3))
y_pred = rng.normal(size=(4, 3))
onehot = np.eye(3)[rng.integers(0, 3, size=4)]
probs = rng.uniform(0.05, 0.95, size=(4, 3))
lup = rng.normal(size=(4, 3))

LOSS_CASES = [
    Case("square_loss", "loss_functions.SquareLoss", lambda p, y, up: np.sum(SQUARE.loss(y, p) * up),
         (y_pred, y_true, lup), lambda p, y, up: SQUARE.gradient(y, p) * up),
    Case("cross_entropy", "loss_functions.CrossEntropy", lambda p, y, up: np.sum(XENT.loss(y, p) * up),
         (probs, onehot, lup), lambda p, y, up: XENT.gradient(y, p) * up),
]

# --- layers -------------------------------------------------------------------------------------

X2 = rng.normal(size=(4, 5))
X4 = rng.normal(size=(2, 2, 4, 4))
DENSE = built(layers.Dense(3), (5,))
DENSE.W, DENSE.w0 = rng.normal(size=(5, 3)), rng.normal(size=(1, 3))
CONV = built(layers.Conv2D(3, (3, 3), padding="same"), (2, 4, 4))
CONV.W, CONV.w0 = rng.normal(size=CONV.W.shape), rng.normal(size=CONV.w0.shape)
BN = built(layers.BatchNormalization(), (5,))
BN.gamma, BN.beta = rng.normal(size=5), rng.normal(size=5)


def dense_loss(X, W, w0, up):
    DENSE.W, DENSE.w0 = W, w0
    return np.sum(DENSE.forward_pass(X) * up)


def dense_author(X, W, w0, up):
    DENSE.W, DENSE.w0 = W, w0
    DENSE.forward_pass(X)
    dx = DENSE.backward_pass(up)
    return dx, DENSE.W_opt.grad, DENSE.w0_opt.grad


def conv_loss(X, W, w0, up):
    CONV.W, CONV.w0 = W, w0
    return np.sum(CONV.forward_pass(X) * up)


def conv_author(X, W, w0, up):
    CONV.W, CONV.w0 = W, w0
    CONV.forward_pass(X)
    dx = CONV.backward_pass(up)
    return dx, CONV.W_opt.grad, CONV.w0_opt.grad


def bn_loss(X, gamma, beta, up):
    BN.gamma, BN.beta = gamma, beta
    return np.sum(BN.forward_pass(X) * up)


def bn_author(X, gamma, beta, up):
    BN.gamma, BN.beta = gamma, beta
    BN.forward_pass(X)
    dx = BN.backward_pass(up)
    return dx, BN.gamma_opt.grad, BN.beta_opt.grad


def shape_layer_case(name, function, layer, X, upshape, wrong=None, refused=None):
    """A layer without weights: its forward against an upstream gradient of the output's shape."""
    u = rng.normal(size=upshape)

    def author(X, up):
        layer.forward_pass(X)
        return layer.backward_pass(up)

    return Case(name, function, lambda X, up: np.sum(layer.forward_pass(X) * up), (X, u), author,
                wrong=wrong, refused=refused)


DROPOUT = built(layers.Dropout(0.4), (5,))


def dropout_loss(X, up):
    np.random.seed(7)
    return np.sum(DROPOUT.forward_pass(X) * up)


def dropout_author(X, up):
    np.random.seed(7)
    DROPOUT.forward_pass(X)
    return DROPOUT.backward_pass(up)


# the pooling layers' forward takes padding="valid" (their default, 0, fails in determine_padding);
# their backward_pass passes 0 to column_to_image whatever the padding, so it always fails there
POOL_WRONG = "backward_pass raises: it calls column_to_image with padding 0, which determine_padding does not handle"

LAYER_CASES = [
    Case("dense", "layers.Dense", dense_loss, (X2, DENSE.W, DENSE.w0, rng.normal(size=(4, 3))), dense_author,
         argnums=(0, 1, 2)),
    Case("conv2d", "layers.Conv2D", conv_loss, (X4, CONV.W, CONV.w0, rng.normal(size=(2, 3, 4, 4))), conv_author,
         argnums=(0, 1, 2)),
    Case("batch_normalization", "layers.BatchNormalization", bn_loss, (X2, BN.gamma, BN.beta, rng.normal(size=(4, 5))),
         bn_author, argnums=(0, 1, 2)),
    shape_layer_case("max_pooling2d", "layers.MaxPooling2D", built(layers.MaxPooling2D((2, 2), stride=2, padding="valid"),
                     (2, 4, 4)), X4, (2, 2, 2, 2), wrong=POOL_WRONG),
    shape_layer_case("average_pooling2d", "layers.AveragePooling2D",
                     built(layers.AveragePooling2D((2, 2), stride=2, padding="valid"), (2, 4, 4)), X4, (2, 2, 2, 2),
                     wrong=POOL_WRONG),
    shape_layer_case("constant_padding2d", "layers.ConstantPadding2D",
                     built(layers.ConstantPadding2D((1, 2), padding_value=0.5), (2, 4, 4)), X4, (2, 2, 6, 8)),
    shape_layer_case("zero_padding2d", "layers.ZeroPadding2D", built(layers.ZeroPadding2D((1, 1)), (2, 4, 4)),
                     X4, (2, 2, 6, 6)),
    shape_layer_case("flatten", "layers.Flatten", built(layers.Flatten(), (2, 4, 4)), X4, (2, 32)),
    shape_layer_case("up_sampling2d", "layers.UpSampling2D", built(layers.UpSampling2D((2, 2)), (2, 4, 4)), X4,
                     (2, 2, 8, 8), wrong="the backward takes every second entry of the upstream gradient "
                     "instead of summing each block the forward repeated"),
    shape_layer_case("reshape", "layers.Reshape", built(layers.Reshape((4, 8)), (2, 4, 4)), X4, (2, 4, 8)),
    Case("dropout", "layers.Dropout", dropout_loss, (X2, rng.normal(size=(4, 5))), dropout_author),
]

CASES = ACTIVATION_CASES + LOSS_CASES + LAYER_CASES
