"""cs231n's naive SVM and softmax losses as the course writes them, each with the author's own dW
beside the loss and the loss a user differentiates (`f(...)[0]`, which leaves dW unread): shared by
the tests of jit's deferred outer products and of shape folding through an inlined call's record."""
import numpy as np


def svm_loss_and_dw(W, X, y, reg):
    """cs231n's naive SVM loss as the course writes it, with the author's own dW."""
    dW = np.zeros(W.shape)
    num_train = X.shape[0]
    loss = 0.0
    for i in range(num_train):
        scores = X[i].dot(W)
        ds = np.zeros(scores.shape)
        correct_class_score = scores[y[i]]
        margins = np.maximum(0, scores - correct_class_score + 1)
        margins[y[i]] = 0
        loss += np.sum(margins)
        ds[margins > 0] = 1
        ds[y[i]] = - np.sum(ds)
        ds /= num_train
        dW += np.outer(X[i], ds)
    loss /= num_train
    loss += 0.5 * reg * np.sum(W * W)
    dW += reg * W
    return loss, dW


def svm_first(W, X, y, reg):
    return svm_loss_and_dw(W, X, y, reg)[0]


def softmax_loss_and_dw(W, X, y, reg):
    """cs231n's naive softmax loss as the course writes it, with the author's own dW."""
    loss = 0.0
    num_examples = X.shape[0]
    dW = np.zeros_like(W)
    for i in range(X.shape[0]):
        scores = X[i].dot(W)
        scores -= np.max(scores)
        probs = np.exp(scores) / np.sum(np.exp(scores))
        loss -= np.log(probs[y[i]])
        ds = probs
        ds[y[i]] -= 1
        dW += np.outer(X[i], ds)
    loss /= num_examples
    dW /= num_examples
    loss += 0.5 * reg * np.sum(W ** 2)
    dW += reg * W
    return loss, dW


def softmax_first(W, X, y, reg):
    return softmax_loss_and_dw(W, X, y, reg)[0]
