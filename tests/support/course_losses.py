"""cs231n's naive SVM and softmax losses, each with the author's own dW beside the loss, taken from
the corpus's unmodified files (tests/corpus/cs231n_budmitr, Python 2: `xrange` is `range`), and
the loss a user differentiates (`f(...)[0]`, which leaves dW unread): shared by the tests of jit's
deferred outer products, the tape's loop kernels and the record's copies."""
import sys
from pathlib import Path

_CORPUS = Path(__file__).resolve().parents[1] / "corpus"
sys.path.insert(0, str(_CORPUS))
import harness  # noqa: E402  (tests/corpus/harness.py: loads the authors' files)

_CASES = str(_CORPUS / "cs231n_budmitr" / "cases.py")
svm_loss_and_dw = harness.load(_CASES, "assignment1/cs231n/classifiers/linear_svm.py", py2=True).svm_loss_naive
softmax_loss_and_dw = harness.load(_CASES, "assignment1/cs231n/classifiers/softmax.py", py2=True).softmax_loss_naive


def svm_first(W, X, y, reg):
    return svm_loss_and_dw(W, X, y, reg)[0]


def softmax_first(W, X, y, reg):
    return softmax_loss_and_dw(W, X, y, reg)[0]
