"""tinynn by borgwang (MIT): the layers' forward against their backward (weight gradients from the
layer's own `grads`), the activations, and the losses against their `grad`.

Some of tinynn's layers compute in float32 (`layer.empty`, the backward's `d_in`), so those cases
compare to float32's precision."""
import numpy as np
from harness import Case, load

layer = load(__file__, "tinynn/core/layer.py")
loss = load(__file__, "tinynn/core/loss.py")

rng = np.random.default_rng(2)
F32 = {"rtol": 1e-4, "atol": 1e-5}

# --- activations --------------------------------------------------------------------------------

x = rng.normal(size=(4, 5))
up = rng.normal(size=(4, 5))


def activation_case(cls, wrong=None):
    act = cls()

    def author(x, up):
        act.forward(x)
        return act.backward(up)

    return Case(f"activation_{cls.__name__.lower()}", f"layer.{cls.__name__}",
                lambda x, up: np.sum(act.forward(x) * up), (x, up), author, wrong=wrong)


ACTIVATION_CASES = [
    activation_case(layer.Sigmoid), activation_case(layer.Softplus), activation_case(layer.Tanh),
    activation_case(layer.ReLU), activation_case(layer.LeakyReLU), activation_case(layer.GELU),
    activation_case(layer.ELU, wrong="derivative parses as x > (0.0 + (x < 0) * alpha * exp(x)), a comparison"),
]

# --- losses -------------------------------------------------------------------------------------

pred = rng.normal(size=(4, 3))
target = rng.normal(size=(4, 3))
labels = np.eye(3)[rng.integers(0, 3, size=4)]
binary = rng.integers(0, 2, size=(4, 3)).astype(float)


def loss_case(name, obj, a, b, wrong=None):
    return Case(name, f"loss.{type(obj).__name__}", lambda p, t: obj.loss(p, t), (a, b), lambda p, t: obj.grad(p, t),
                wrong=wrong)


LOSS_CASES = [
    loss_case("mse", loss.MSE(), pred, target),
    loss_case("mae", loss.MAE(), pred, target),
    loss_case("huber", loss.Huber(delta=0.8), pred, target),
    loss_case("softmax_cross_entropy", loss.SoftmaxCrossEntropy(), pred, labels),
    loss_case("softmax_cross_entropy_temperature", loss.SoftmaxCrossEntropy(T=2.0), pred, labels,
              wrong="with a temperature T the gradient lacks the factor 1/T"),
    loss_case("softmax_cross_entropy_weights", loss.SoftmaxCrossEntropy(weights=[0.5, 1.0, 2.0]), pred, labels,
              wrong="the loss weighs each example by its label's class, the gradient each column by its class"),
    loss_case("sigmoid_cross_entropy", loss.SigmoidCrossEntropy(), pred, binary),
    loss_case("sigmoid_cross_entropy_weights", loss.SigmoidCrossEntropy(weights=[0.7, 1.5]), pred, binary),
]

# --- layers -------------------------------------------------------------------------------------

X2 = rng.normal(size=(4, 5))
X4 = rng.normal(size=(2, 4, 4, 2))
DENSE = layer.Dense(3)
DENSE.forward(X2)  # initializes the weights from the input's shape
CONV = layer.Conv2D((3, 3, 2, 3))
CONV.forward(X4)
DECONV = layer.ConvTranspose2D((3, 3, 2, 3), stride=(2, 2))
DECONV.forward(X4)
BN = layer.BatchNormalization()
BN.forward(X2)


def with_params(lay, name):
    """The loss a user writes to differentiate a layer in its input and its parameters: the
    parameters stored into the layer, then its forward against an upstream gradient."""
    def fn(X, w, b, up):
        lay.params[name[0]] = w
        lay.params[name[1]] = b
        return np.sum(lay.forward(X) * up)

    def author(X, w, b, up):
        lay.params[name[0]] = w
        lay.params[name[1]] = b
        lay.forward(X)
        d_in = lay.backward(up)
        return d_in, lay.grads[name[0]], lay.grads[name[1]]

    return fn, author


def param_case(case_name, lay, names, X, upshape, **kw):
    fn, author = with_params(lay, names)
    w = rng.normal(size=np.shape(lay.params[names[0]]))
    b = rng.normal(size=np.shape(lay.params[names[1]]))
    return Case(case_name, f"layer.{type(lay).__name__}", fn, (X, w, b, rng.normal(size=upshape)), author,
                argnums=(0, 1, 2), **kw)


def shape_case(case_name, lay, X, upshape, **kw):
    def author(X, up):
        lay.forward(X)
        return lay.backward(up)

    return Case(case_name, f"layer.{type(lay).__name__}", lambda X, up: np.sum(lay.forward(X) * up),
                (X, rng.normal(size=upshape)), author, **kw)


DROPOUT = layer.Dropout(keep_prob=0.7)


def dropout_loss(X, up):
    np.random.seed(5)
    return np.sum(DROPOUT.forward(X) * up)


def dropout_author(X, up):
    np.random.seed(5)
    DROPOUT.forward(X)
    return DROPOUT.backward(up)


LAYER_CASES = [
    param_case("dense", DENSE, ("w", "b"), X2, (4, 3)),
    param_case("conv2d", CONV, ("w", "b"), X4, (2, 4, 4, 3), **F32),
    param_case("conv_transpose2d", DECONV, ("w", "b"), X4, (2, 8, 8, 3), **F32),
    param_case("batch_normalization", BN, ("gamma", "beta"), X2, (4, 5)),
    shape_case("max_pool2d", layer.MaxPool2D(), X4, (2, 2, 2, 2), **F32),
    shape_case("reshape", layer.Reshape(8, 4), X4, (2, 8, 4)),
    shape_case("flatten", layer.Flatten(), X4, (2, 32)),
    Case("dropout", "layer.Dropout", dropout_loss, (X2, rng.normal(size=(4, 5))), dropout_author),
]

CASES = ACTIVATION_CASES + LOSS_CASES + LAYER_CASES
