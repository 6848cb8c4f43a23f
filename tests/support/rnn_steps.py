"""An RNN-like step loop over dicts of arrays (`hs[t]`, `ps[t]`), the shape of the char RNN's
forward pass, shared by the tests of the passes that rewrite its records and slots
(tests/passes/test_record_tapes.py, test_slot_takes.py)."""
import numpy as np

KS = [2, 0, 3, 1, 1]


def loss_of(step):
    """The loss (first result) of a step loop that returns (loss, ps)."""
    def loss(w, h0):
        return step(w, h0)[0]
    return loss


def by_step(w, h0):
    hs, ps = {}, {}
    hs[-1] = np.copy(h0)
    total = 0.0
    for t in range(len(KS)):
        hs[t] = np.tanh(np.dot(w, hs[t - 1]))
        ps[t] = hs[t] * hs[t]
        total -= np.log(ps[t][KS[t], 0] + 1.0)  # (`ps[t]` read for one item: its value is not needed back)
    return total, ps


def by_step_read(w, h0):
    hs, ps = {}, {}
    hs[-1] = np.copy(h0)
    total = 0.0
    for t in range(len(KS)):
        hs[t] = np.tanh(np.dot(w, hs[t - 1]))
        ps[t] = hs[t] * hs[t]
        total -= np.log(np.sum(ps[t] * ps[t]) + 1.0)  # (`ps[t]` read whole: its value is needed back)
    return total, ps


step_loss = loss_of(by_step)  # (the loss alone: `ys[t]` stored, then one item of it read in the step)
