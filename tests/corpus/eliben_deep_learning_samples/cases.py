"""eliben/deep-learning-samples by Eli Bendersky (public domain, the Unlicense): logistic, softmax,
square and hinge regression losses with their gradients; softmax, fully connected and
cross-entropy Jacobians; sigmoid and tanh derivatives; a two-layer net; and a character-level RNN
(the Dinosaur Island helpers the repository carries) over time, against the author's backward.

A Jacobian `D` the author returns (`D[i, j]` the derivative of output i in input j) is compared
through a fixed cotangent `v`: s2s's gradient of `sum(f(x) * v)` against `D.T @ v`."""
import numpy as np
from harness import Case, load

regression = load(__file__, "regression_lib.py")
softmax = load(__file__, "softmax.py")
sigmoid = load(__file__, "sigmoid.py")
tanh = load(__file__, "tanh.py")
neural_net = load(__file__, "neural_net.py")
linear = load(__file__, "simple_linear_regression.py",
              stubs={"matplotlib": ("cm",), "matplotlib.animation": ("FuncAnimation",), "matplotlib.pyplot": (),
                     "mpl_toolkits.mplot3d": ("Axes3D",), "timer": ("Timer",)})
rnn = load(__file__, "rnn_provided.py")

rng = np.random.default_rng(45)


def through(jacobian, v, shape):
    """The author's Jacobian applied to the cotangent `v`, shaped as the input it differentiates."""
    return (jacobian.T @ np.ravel(v)).reshape(shape)


# --- regression_lib: losses returning (loss, gradient) -----------------------------------------

K, N, T = 6, 4, 3
X = regression.augment_1s_column(rng.normal(size=(K, N - 1)))
W = rng.normal(size=(N, T))
classes = rng.integers(0, T, size=K)
theta = rng.normal(size=(N, 1))
labels01 = rng.integers(0, 2, size=(K, 1)).astype(float)
signs = np.where(rng.normal(size=(K, 1)) > 0, 1.0, -1.0)
REG = 0.1


def loss_case(name, loss, params, y):
    return Case(name, f"regression_lib.{name}",
                lambda p, X, y: loss(X, y, p, REG)[0], (params, X, y),
                lambda p, X, y: loss(X, y, p, REG)[1])


REGRESSION = [
    loss_case("softmax_cross_entropy_loss", regression.softmax_cross_entropy_loss, W, classes),
    loss_case("cross_entropy_loss_binary", regression.cross_entropy_loss_binary, theta, labels01),
    loss_case("hinge_loss", regression.hinge_loss, theta, signs),
]

# --- simple_linear_regression.py: the gradient its gradient descent steps along ---------------------

xs = np.linspace(-2.0, 2.0, 9)
ys = 2.25 * xs + 6.0 + rng.normal(size=9)


def first_step(m, b, x, y):
    """The author's gradient at the start of gradient_descent, which is m = b = 0: minus the first
    step, with learning rate 1."""
    assert m == 0 and b == 0
    steps = linear.gradient_descent(x, y, 1, learning_rate=1.0)
    next(steps)
    m1, b1, _ = next(steps)
    return -m1, -b1


LINEAR = [
    Case("simple_linear_regression", "simple_linear_regression.compute_cost/gradient_descent",
         lambda m, b, x, y: linear.compute_cost(x, y, m, b), (np.float64(0.0), np.float64(0.0), xs, ys),
         first_step, argnums=(0, 1)),
]

# --- softmax.py: Jacobians -----------------------------------------------------------------------

z = rng.normal(size=(T, 1))
vT = rng.normal(size=(T, 1))
x_col = rng.normal(size=(N, 1))
x_vec = rng.normal(size=N)
Wsm = rng.normal(size=(T, N))
onehot = np.eye(T)[:, [1]]
probs = softmax.softmax(rng.normal(size=(T, 1)))

SOFTMAX = [
    Case("softmax_gradient", "softmax.softmax_gradient",
         lambda z, v: np.sum(softmax.softmax(z) * v), (z, vT),
         lambda z, v: through(softmax.softmax_gradient(z), v, z.shape)),
    Case("softmax_gradient_simple", "softmax.softmax_gradient_simple",
         lambda z, v: np.sum(softmax.softmax(z) * v), (z, vT),
         lambda z, v: through(softmax.softmax_gradient_simple(z), v, z.shape)),
    Case("fully_connected_gradient", "softmax.fully_connected_gradient",
         lambda W, x, v: np.sum(W.dot(x) * v), (Wsm, x_vec, vT.ravel()),
         lambda W, x, v: through(softmax.fully_connected_gradient(x, W), v, W.shape)),
    Case("softmax_layer_gradient", "softmax.softmax_layer_gradient",
         lambda W, x, v: np.sum(softmax.softmax_layer(x, W) * v), (Wsm, x_vec, vT.ravel()),
         lambda W, x, v: through(softmax.softmax_layer_gradient(x, W), v, W.shape)),
    Case("softmax_layer_gradient_direct", "softmax.softmax_layer_gradient_direct",
         lambda W, x, v: np.sum(softmax.softmax_layer(x, W) * v), (Wsm, x_col, vT),
         lambda W, x, v: through(softmax.softmax_layer_gradient_direct(x, W), v, W.shape)),
    Case("cross_entropy_loss_gradient", "softmax.cross_entropy_loss_gradient",
         lambda p, y: softmax.cross_entropy_loss(p, y), (probs, onehot),
         lambda p, y: softmax.cross_entropy_loss_gradient(p, y).reshape(p.shape)),
    Case("softmax_cross_entropy_loss_gradient_direct", "softmax.softmax_cross_entropy_loss_gradient_direct",
         lambda W, x, y: softmax.cross_entropy_loss(softmax.softmax_layer(x, W), y), (Wsm, x_col, onehot),
         lambda W, x, y: softmax.softmax_cross_entropy_loss_gradient_direct(x, W, y).reshape(W.shape)),
]

# --- gradients/: elementwise derivatives ---------------------------------------------------------

u = rng.normal(size=7) * 3
vu = rng.normal(size=7)

ELEMENTWISE = [
    Case("sigmoid_grad", "sigmoid.sigmoid_grad", lambda x, v: np.sum(sigmoid.sigmoid(x) * v), (u, vu),
         lambda x, v: sigmoid.sigmoid_grad(x) * v),
    Case("tanh_grad", "tanh.tanh_grad", lambda x, v: np.sum(np.tanh(x) * v), (u, vu),
         lambda x, v: tanh.tanh_grad(x) * v),
]

# --- cs231n/neural_net.py: a two-layer net returning (loss, grads) -------------------------------

D_IN, HID, C, M = 5, 6, 3, 8
NET = (rng.normal(size=(D_IN, HID)), rng.normal(size=HID), rng.normal(size=(HID, C)), rng.normal(size=C))
Xnet = rng.normal(size=(M, D_IN))
ynet = rng.integers(0, C, size=M)


def two_layer_loss(W1, b1, W2, b2, X, y):
    return neural_net.two_layer_net(X, {"W1": W1, "b1": b1, "W2": W2, "b2": b2}, y, 0.05)[0]


def two_layer_author(W1, b1, W2, b2, X, y):
    grads = neural_net.two_layer_net(X, {"W1": W1, "b1": b1, "W2": W2, "b2": b2}, y, 0.05)[1]
    return tuple(grads[k] for k in ("W1", "b1", "W2", "b2"))


NETS = [
    Case("two_layer_net", "neural_net.two_layer_net", two_layer_loss, (*NET, Xnet, ynet), two_layer_author,
         argnums=(0, 1, 2, 3),
         wrong="grads['W2'] is Hout.T.dot(dscores), the hidden layer before the ReLU; the forward "
               "multiplies W2 by the ReLU's output"),
]

# --- rnn_provided.py: character-level RNN, one step and over time --------------------------------

VOCAB, HIDDEN = 5, 4
RNN_PARAMS = (rng.normal(size=(HIDDEN, VOCAB)) * 0.5, rng.normal(size=(HIDDEN, HIDDEN)) * 0.5,
              rng.normal(size=(VOCAB, HIDDEN)) * 0.5, rng.normal(size=(HIDDEN, 1)) * 0.1,
              rng.normal(size=(VOCAB, 1)) * 0.1)
NAMES = ("Wax", "Waa", "Wya", "b", "by")
a0 = rng.normal(size=(HIDDEN, 1)) * 0.5
x_step = np.eye(VOCAB)[:, [2]]
CHARS = [None, 3, 1, 4, 0]
NEXT = [3, 1, 4, 0, 2]


def step_loss(Wax, Waa, Wya, b, by, a_prev):
    _, p = rnn.rnn_step_forward({"Wax": Wax, "Waa": Waa, "Wya": Wya, "b": b, "by": by}, a_prev, x_step)
    return -np.log(p[1, 0])


def step_author(Wax, Waa, Wya, b, by, a_prev):
    params = {"Wax": Wax, "Waa": Waa, "Wya": Wya, "b": b, "by": by}
    a, p = rnn.rnn_step_forward(params, a_prev, x_step)
    dy = np.copy(p)
    dy[1] -= 1
    grads = {"d" + k: np.zeros_like(v) for k, v in params.items()}
    grads["da_next"] = np.zeros_like(a)
    grads = rnn.rnn_step_backward(dy, grads, params, x_step, a, a_prev)
    return (*(grads["d" + k] for k in NAMES), grads["da_next"])


def sequence_loss(Wax, Waa, Wya, b, by, a0):
    return rnn.rnn_forward(CHARS, NEXT, a0, {"Wax": Wax, "Waa": Waa, "Wya": Wya, "b": b, "by": by}, VOCAB)[0]


def sequence_author(Wax, Waa, Wya, b, by, a0):
    params = {"Wax": Wax, "Waa": Waa, "Wya": Wya, "b": b, "by": by}
    _, cache = rnn.rnn_forward(CHARS, NEXT, a0, params, VOCAB)
    grads, _ = rnn.rnn_backward(CHARS, NEXT, params, cache)
    return (*(grads["d" + k] for k in NAMES), grads["da_next"])


RNN = [
    Case("rnn_step", "rnn_provided.rnn_step_forward/rnn_step_backward", step_loss, (*RNN_PARAMS, a0),
         step_author, argnums=(0, 1, 2, 3, 4, 5)),
    Case("rnn_over_time", "rnn_provided.rnn_forward/rnn_backward", sequence_loss, (*RNN_PARAMS, a0),
         sequence_author, argnums=(0, 1, 2, 3, 4, 5)),
]

CASES = REGRESSION + LINEAR + SOFTMAX + ELEMENTWISE + NETS + RNN
