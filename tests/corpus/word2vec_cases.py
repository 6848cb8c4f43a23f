"""The cases of a CS224n word2vec solution (assignment 2, `word2vec.py`), which two independent
sources implement with the same signatures: naive-softmax and negative-sampling loss, skip-gram
with each, and the assignment's SGD wrapper over a batch of random contexts, each against the
gradients the author's function returns.

The assignment's dataset object draws its negative samples and contexts with `random.randint`; the
`Dataset` here draws the same kind of values from a fixed cycle, and is an argument of each case,
so the plain function, s2s and the author's backward (each on a fresh copy) see the same draws."""
from __future__ import annotations

import numpy as np
from harness import Case

TOKENS = {"a": 0, "b": 1, "c": 2, "d": 3, "e": 4}
WORDS = list(TOKENS)


class Dataset:
    """The assignment's dummy dataset, with fixed draws (repeats included: a word sampled twice
    must count twice)."""

    DRAWS = (3, 1, 4, 1, 0, 2, 4, 4, 3, 0, 2, 1, 3)

    def __init__(self):
        self.k = 0

    def sampleTokenIdx(self):  # noqa: N802 (the assignment's name)
        self.k += 1
        return self.DRAWS[self.k % len(self.DRAWS)]

    def getRandomContext(self, C):  # noqa: N802 (the assignment's name)
        center = WORDS[self.sampleTokenIdx()]
        return center, [WORDS[self.sampleTokenIdx()] for _ in range(2 * C)]


# What s2s refuses today, by case (the same in both sources): nothing.
REFUSED: dict[str, str] = {}


def word2vec_cases(w2v) -> list[Case]:
    """The cases over `w2v`, the author's word2vec module."""
    rng = np.random.default_rng(224)
    center = rng.normal(size=3)
    outside = rng.normal(size=(5, 3))
    vectors = rng.normal(size=(10, 3))
    centers, outsides = vectors[:5], vectors[5:]
    naive, neg = w2v.naiveSoftmaxLossAndGradient, w2v.negSamplingLossAndGradient

    def skipgram(loss):
        return lambda V, U, ds: w2v.skipgram("c", 2, ["a", "b", "e", "b"], TOKENS, V, U, ds, loss)

    def wrapper(loss):
        return lambda vecs, ds: w2v.word2vec_sgd_wrapper(w2v.skipgram, TOKENS, vecs, ds, 1, loss)

    skip_naive, skip_neg, sgd_naive, sgd_neg = skipgram(naive), skipgram(neg), wrapper(naive), wrapper(neg)
    cases = [
        Case("naiveSoftmaxLossAndGradient", "word2vec.naiveSoftmaxLossAndGradient",
             lambda c, U, ds: naive(c, 2, U, ds)[0], (center, outside, Dataset()),
             lambda c, U, ds: naive(c, 2, U, ds)[1:], argnums=(0, 1)),
        Case("negSamplingLossAndGradient", "word2vec.negSamplingLossAndGradient",
             lambda c, U, ds: neg(c, 2, U, ds)[0], (center, outside, Dataset()),
             lambda c, U, ds: neg(c, 2, U, ds)[1:], argnums=(0, 1)),
        Case("skipgram_naive_softmax", "word2vec.skipgram(naiveSoftmaxLossAndGradient)",
             lambda V, U, ds: skip_naive(V, U, ds)[0], (centers, outsides, Dataset()),
             lambda V, U, ds: skip_naive(V, U, ds)[1:], argnums=(0, 1)),
        Case("skipgram_neg_sampling", "word2vec.skipgram(negSamplingLossAndGradient)",
             lambda V, U, ds: skip_neg(V, U, ds)[0], (centers, outsides, Dataset()),
             lambda V, U, ds: skip_neg(V, U, ds)[1:], argnums=(0, 1)),
        Case("sgd_wrapper_naive_softmax", "word2vec.word2vec_sgd_wrapper(naiveSoftmaxLossAndGradient)",
             lambda vecs, ds: sgd_naive(vecs, ds)[0], (vectors, Dataset()),
             lambda vecs, ds: sgd_naive(vecs, ds)[1]),
        Case("sgd_wrapper_neg_sampling", "word2vec.word2vec_sgd_wrapper(negSamplingLossAndGradient)",
             lambda vecs, ds: sgd_neg(vecs, ds)[0], (vectors, Dataset()),
             lambda vecs, ds: sgd_neg(vecs, ds)[1]),
    ]
    for case in cases:
        case.refused = REFUSED.get(case.name)
    return cases
