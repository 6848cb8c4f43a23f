"""CS224n assignment 2 solution by Hanchung Lee (MIT): word2vec's naive-softmax and negative-sampling
losses, skip-gram and the SGD wrapper against the gradients they return (tests/corpus/word2vec_cases.py)."""
import sys

from harness import load
from word2vec_cases import word2vec_cases


def load_word2vec():
    """The author's word2vec.py, with the `utils` package it imports (the assignment's own, under
    upstream/) seen by it alone: another source ships a `utils` of the same name."""
    ours = [n for n in sys.modules if n == "utils" or n.startswith("utils.")]
    saved = {n: sys.modules.pop(n) for n in ours}
    try:
        return load(__file__, "word2vec.py")
    finally:
        for n in [n for n in sys.modules if n == "utils" or n.startswith("utils.")]:
            del sys.modules[n]
        sys.modules.update(saved)


CASES = word2vec_cases(load_word2vec())
