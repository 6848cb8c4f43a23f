"""rnn-lstm-gru-numpy by Raphael Senn (MIT): two Elman RNNs with backpropagation through time by
hand, `RNN_1FC_ALL` (a softmax layer over every step's hidden state, negative log-likelihood) and
`RNN_1FC` (a linear layer over the last hidden state, squared error).

The author's gradients live inside `fit`, which applies them as one SGD step per batch: one epoch
over a single full batch with `learning_rate=1` reads them back as old minus new weights. The
forward a user would transform sets the model's weights and calls the author's `forward`, with the
loss `fit` differentiates (its `verbose` report's for RNN_1FC_ALL; the squared error summed over
outputs and averaged over examples whose gradient `fit` computes for RNN_1FC)."""
import numpy as np
from harness import Case, load

rnn_np = load(__file__, "nn_np/rnn_np.py")

NAMES = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_out", "bias_out")
N, SEQ, FEATURES, HIDDEN, CLASSES = 4, 3, 2, 5, 10

rng = np.random.default_rng(2025)
X = rng.normal(size=(N, SEQ, FEATURES))
labels = rng.integers(0, CLASSES, size=N)
targets = rng.normal(size=(N, 3))

np.random.seed(0)
ALL = rnn_np.RNN_1FC_ALL(FEATURES, HIDDEN, SEQ, CLASSES)
LAST = rnn_np.RNN_1FC(FEATURES, HIDDEN, 3)



def weights(model):
    return tuple(getattr(model, n) for n in NAMES)


def fit_gradient(model, params, X, y):
    """The gradient `fit` applies: one epoch, one batch of every example, learning rate 1."""
    for n, p in zip(NAMES, params):
        setattr(model, n, p.copy())
    model.fit(X, y, epochs=1, batch_size=len(X), learning_rate=1.0, verbose=False)
    return tuple(p - getattr(model, n) for n, p in zip(NAMES, params))


def nll(weight_ih, weight_hh, bias_ih, bias_hh, weight_out, bias_out, X, y):
    ALL.weight_ih, ALL.weight_hh, ALL.bias_ih, ALL.bias_hh = weight_ih, weight_hh, bias_ih, bias_hh
    ALL.weight_out, ALL.bias_out = weight_out, bias_out
    y_pred = ALL.forward(X)
    return -sum(np.log(y_pred[np.arange(len(X)), y])) / len(X)


def squared_error(weight_ih, weight_hh, bias_ih, bias_hh, weight_out, bias_out, X, y):
    LAST.weight_ih, LAST.weight_hh, LAST.bias_ih, LAST.bias_hh = weight_ih, weight_hh, bias_ih, bias_hh
    LAST.weight_out, LAST.bias_out = weight_out, bias_out
    return np.sum((y - LAST.forward(X)) ** 2) / len(X)


CASES = [
    Case("RNN_1FC_ALL", "rnn_np.RNN_1FC_ALL.forward/fit", nll, (*weights(ALL), X, labels),
         lambda *a: fit_gradient(ALL, a[:6], a[6], a[7]), argnums=(0, 1, 2, 3, 4, 5)),
    Case("RNN_1FC", "rnn_np.RNN_1FC.forward/fit", squared_error, (*weights(LAST), X, targets),
         lambda *a: fit_gradient(LAST, a[:6], a[6], a[7]), argnums=(0, 1, 2, 3, 4, 5)),
]
