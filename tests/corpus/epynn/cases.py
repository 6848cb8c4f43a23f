"""EpyNN by Florian Malard and Stéphanie Olivier-Van Stichelen (GPL-3.0): the RNN, LSTM and GRU
layers, returning the last hidden state or the whole sequence, against the author's backward
(`layer.backward(dA)` for the input's gradient, then `layer.compute_gradients()` for the weights').

The forward a user would transform closes over a layer, sets its parameters dict `layer.p` and
returns the layer's output against a fixed cotangent `dA`, which is what the author's backward
takes. Gradient clipping is off (the layers' own option), so the author's gradients are exact."""
import numpy as np
from harness import Case, load

rnn = load(__file__, "epynn/rnn/models.py")
lstm = load(__file__, "epynn/lstm/models.py")
gru = load(__file__, "epynn/gru/models.py")

M, STEPS, FEATURES, UNITS = 3, 4, 2, 3
rng = np.random.default_rng(2021)
X = rng.normal(size=(M, STEPS, FEATURES))
# s2s today: the layer's forward stores into the layer's dict (`self.fc['A'] = ...`), and so does the
# function it calls (`layer.fc['h'][:, s] = h`, `layer.fc.update(...)`).
STORED = "stores into `layer.fc`, an attribute this function also stores into"


def author_gradient(layer, names, params, X, dA):
    layer.p = dict(zip(names, params))
    layer.forward(X)
    dX = layer.backward(dA)
    layer.compute_gradients()
    return (*(layer.g["d" + k] for k in names), dX)


def rnn_case(sequences):
    layer = rnn.RNN(UNITS, sequences=sequences, clip_gradients=False)
    names = ("U", "V", "b")

    def loss(U, V, b, X, dA):
        layer.p = {"U": U, "V": V, "b": b}
        return np.sum(layer.forward(X) * dA)

    return layer, names, loss


def lstm_case(sequences):
    layer = lstm.LSTM(UNITS, sequences=sequences)
    names = ("Uf", "Vf", "bf", "Ui", "Vi", "bi", "Ug", "Vg", "bg", "Uo", "Vo", "bo")

    def loss(Uf, Vf, bf, Ui, Vi, bi, Ug, Vg, bg, Uo, Vo, bo, X, dA):
        layer.p = {"Uf": Uf, "Vf": Vf, "bf": bf, "Ui": Ui, "Vi": Vi, "bi": bi,
                   "Ug": Ug, "Vg": Vg, "bg": bg, "Uo": Uo, "Vo": Vo, "bo": bo}
        return np.sum(layer.forward(X) * dA)

    return layer, names, loss


def gru_case(sequences):
    layer = gru.GRU(UNITS, sequences=sequences)
    names = ("Uz", "Vz", "bz", "Ur", "Vr", "br", "Uhh", "Vhh", "bhh")

    def loss(Uz, Vz, bz, Ur, Vr, br, Uhh, Vhh, bhh, X, dA):
        layer.p = {"Uz": Uz, "Vz": Vz, "bz": bz, "Ur": Ur, "Vr": Vr, "br": br,
                   "Uhh": Uhh, "Vhh": Vhh, "bhh": bhh}
        return np.sum(layer.forward(X) * dA)

    return layer, names, loss


def case(kind, build, sequences):
    layer, names, loss = build(sequences)
    layer.compute_shapes(X)
    params = tuple(rng.normal(size=layer.fs[k]) * 0.5 for k in names)
    dA = rng.normal(size=(M, STEPS, UNITS) if sequences else (M, UNITS))
    n = len(names)
    return Case(f"{kind}_{'sequence' if sequences else 'last'}",
                f"{kind}.models.{type(layer).__name__}(sequences={sequences})", loss, (*params, X, dA),
                lambda *a: author_gradient(layer, names, a[:n], a[n], a[n + 1]),
                argnums=tuple(range(n + 1)), refused=STORED)


CASES = [case(kind, build, sequences) for kind, build in (("rnn", rnn_case), ("lstm", lstm_case), ("gru", gru_case))
         for sequences in (False, True)]
