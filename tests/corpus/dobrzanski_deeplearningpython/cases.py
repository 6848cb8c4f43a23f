"""DeepLearningPython by Michał Dobrzański (MIT), the Python 3 port of Michael Nielsen's "Neural
Networks and Deep Learning" code (MIT): network.py's and network2.py's sigmoid derivative, cost
deltas, `Network.backprop` and `Network.update_mini_batch`, against the author's backward.

The forward a user would transform closes over a network object, sets its weights and biases and
calls the author's `feedforward` and cost (every call sets all of them, so no call sees another's).
The gradient `update_mini_batch` applies is read back from one step with `eta=1`: old minus new."""
import numpy as np
from harness import Case, load

network = load(__file__, "network.py")
network2 = load(__file__, "network2.py")

rng = np.random.default_rng(2012)
SIZES = (3, 4, 2)
PARAMS = (rng.normal(size=(4, 3)), rng.normal(size=(2, 4)), rng.normal(size=(4, 1)), rng.normal(size=(2, 1)))
x = rng.normal(size=(3, 1))
y = np.array([[1.0], [0.0]])
BATCH = [(rng.normal(size=(3, 1)), np.eye(2)[:, [k]]) for k in (0, 1, 1)]
z = rng.normal(size=(2, 1))
v = rng.normal(size=(5, 2))
zs = rng.normal(size=(5, 2))



def with_params(net, w1, w2, b1, b2):
    net.weights, net.biases = [w1, w2], [b1, b2]
    return net


def grads_of(nabla_b, nabla_w):
    return (*nabla_w, *nabla_b)


def stepped(net, params, step):
    """The gradient one step of the author's update applies with `eta=1`: old minus new."""
    step(net)
    return tuple(p - q for p, q in zip(params, (*net.weights, *net.biases)))


# --- network.py: quadratic cost ------------------------------------------------------------------

NET1 = network.Network(list(SIZES))


def quadratic(w1, w2, b1, b2, x, y):
    NET1.weights, NET1.biases = [w1, w2], [b1, b2]
    return 0.5 * np.sum((NET1.feedforward(x) - y) ** 2)


def quadratic_batch(w1, w2, b1, b2, batch):
    NET1.weights, NET1.biases = [w1, w2], [b1, b2]
    return sum(0.5 * np.sum((NET1.feedforward(x) - y) ** 2) for x, y in batch) / len(batch)


NETWORK = [
    Case("sigmoid_prime", "network.sigmoid_prime", lambda z, v: np.sum(network.sigmoid(z) * v), (zs, v),
         lambda z, v: network.sigmoid_prime(z) * v),
    Case("backprop", "network.Network.backprop", quadratic, (*PARAMS, x, y),
         lambda w1, w2, b1, b2, x, y: grads_of(*with_params(NET1, w1, w2, b1, b2).backprop(x, y)),
         argnums=(0, 1, 2, 3)),
    Case("update_mini_batch", "network.Network.update_mini_batch", quadratic_batch, (*PARAMS, BATCH),
         lambda w1, w2, b1, b2, batch: stepped(with_params(NET1, w1, w2, b1, b2), (w1, w2, b1, b2),
                                               lambda n: n.update_mini_batch(batch, 1.0)),
         argnums=(0, 1, 2, 3)),
]

# --- network2.py: cost classes, backprop per cost, L2-regularized update -------------------------

LMBDA = 0.3


NET2 = network2.Network(list(SIZES))


def total_cost(w1, w2, b1, b2, batch):
    NET2.weights, NET2.biases = [w1, w2], [b1, b2]
    return NET2.total_cost(batch, LMBDA)


def backprop_case(cost):
    net = network2.Network(list(SIZES), cost=cost)

    def cost_of(w1, w2, b1, b2, x, y):
        net.weights, net.biases = [w1, w2], [b1, b2]
        return net.cost.fn(net.feedforward(x), y)

    return Case(f"backprop_{cost.__name__}", f"network2.Network.backprop({cost.__name__})", cost_of,
                (*PARAMS, x, y),
                lambda w1, w2, b1, b2, x, y: grads_of(*with_params(net, w1, w2, b1, b2).backprop(x, y)),
                argnums=(0, 1, 2, 3))


NETWORK2 = [
    Case("QuadraticCost_delta", "network2.QuadraticCost.fn/delta",
         lambda z, y: network2.QuadraticCost.fn(network2.sigmoid(z), y), (z, y),
         lambda z, y: network2.QuadraticCost.delta(z, network2.sigmoid(z), y)),
    Case("CrossEntropyCost_delta", "network2.CrossEntropyCost.fn/delta",
         lambda z, y: network2.CrossEntropyCost.fn(network2.sigmoid(z), y), (z, y),
         lambda z, y: network2.CrossEntropyCost.delta(z, network2.sigmoid(z), y)),
    backprop_case(network2.CrossEntropyCost),
    backprop_case(network2.QuadraticCost),
    Case("update_mini_batch_l2", "network2.Network.update_mini_batch/total_cost", total_cost,
         (*PARAMS, BATCH),
         lambda w1, w2, b1, b2, batch: stepped(
             with_params(NET2, w1, w2, b1, b2), (w1, w2, b1, b2),
             lambda n: n.update_mini_batch(batch, 1.0, LMBDA, len(batch))),
         argnums=(0, 1, 2, 3),
         wrong="total_cost adds the L2 term inside its loop over examples (once per example: "
               "lmbda/2 * |w|^2 for a batch of any size), while update_mini_batch's weight decay "
               "lmbda/n * w is the gradient of adding it once (lmbda/2n * |w|^2)"),
]

CASES = NETWORK + NETWORK2
