"""vmap(jacrev(f)) of a function whose backward tape has per-example control flow (a data-dependent
while loop, a list built in a loop): the batched tape cannot be masked, so vmap runs it as jacrev of
the batched f summed over the examples (each example's rows are its own Jacobian). Against a loop
of jacrev over the examples, at several in_axes/out_axes (found by tools/fuzz.py --props vmap_grad)."""
import numpy as np
import pytest
from helpers_vmap import assert_stacked

import s2s


def tape_with_per_example_trips(x, y):
    acc = x * 1.0
    j = 0
    while np.sum(acc * acc) < 2.5 and j < 4:
        acc = acc + 0.3 * np.tanh(acc * y) + 0.3
        j = j + 1
    lst = []
    for i in range(2):
        lst.append(np.sin(acc) * i)
    return acc * np.stack(lst)[1]


RNG = np.random.default_rng(3)
XS = RNG.uniform(-1.0, 1.0, (4, 3))
YS = RNG.uniform(-1.0, 1.0, (4, 3))


def test_trip_counts_differ_between_the_examples():
    """The case needs the fallback: the examples run the while loop a different number of times."""
    trips = set()
    for x, y in zip(XS, YS):
        acc, j = x * 1.0, 0
        while np.sum(acc * acc) < 2.5 and j < 4:
            acc, j = acc + 0.3 * np.tanh(acc * y) + 0.3, j + 1
        trips.add(j)
    assert len(trips) > 1


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_vmap_jacrev_matches_loop(argnums):
    got = s2s.vmap(s2s.jacrev(tape_with_per_example_trips, argnums))(XS, YS)
    assert_stacked(got, [s2s.jacrev(tape_with_per_example_trips, argnums)(x, y) for x, y in zip(XS, YS)])


def test_vmap_jacrev_shared_argument_and_out_axes():
    f = tape_with_per_example_trips
    got = s2s.vmap(s2s.jacrev(f, 1), in_axes=(0, None), out_axes=1)(XS, YS[0])
    want = np.stack([s2s.jacrev(f, 1)(x, YS[0]) for x in XS], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_vmap_jacrev_matches_differences():
    f = tape_with_per_example_trips
    got = s2s.vmap(s2s.jacrev(f))(XS, YS)
    for b in range(len(XS)):
        fd = np.stack([(f(XS[b] + e, YS[b]) - f(XS[b] - e, YS[b])) / 2e-6 for e in np.eye(3) * 1e-6], axis=-1)
        np.testing.assert_allclose(got[b], fd, rtol=1e-6, atol=1e-7)
