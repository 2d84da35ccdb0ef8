"""The compiled neighbourhood systems of eq. 4.1 against a plain per-phase computation: members within eps
or the k nearest, Q = X_D^T X_D / |D| and c = X_D^T y_D / |D|, in trace order (consecutive phases alike, so
the sums are updated from the previous phase's) and shuffled."""

import numpy as np
import pytest

from modeling.phases.model import neighbourhood_problems


def reference(X, y, U, eps, k):
    Q, c, small = [], [], []
    for u in U:
        d2 = ((X - u) ** 2).sum(axis=1)
        members = np.flatnonzero(d2 <= eps * eps)
        small.append(len(members) < k)
        if len(members) < k:
            members = np.argsort(d2, kind="stable")[:k]
        Xd = X[members]
        Q.append(Xd.T @ Xd / len(members))
        c.append(Xd.T @ y[members] / len(members))
    return np.array(Q), np.array(c), np.array(small)


def trace(rng, n, d, walk=0.05):
    """A phase trace: a random walk with jumps, as a program's phases move between states."""
    steps = rng.normal(scale=walk, size=(n, d))
    steps[rng.random(n) < 0.05] *= 40
    return np.cumsum(steps, axis=0)


@pytest.mark.parametrize("shuffle", [False, True])
def test_systems_equal_the_plain_computation(shuffle):
    rng = np.random.default_rng(3)
    d = 6
    X = np.vstack([trace(rng, 400, d), rng.normal(size=(200, d)) * 3])
    y = X @ rng.uniform(0, 1, d) + rng.normal(size=len(X))
    walk = np.clip(np.cumsum(rng.choice([-1, 0, 1], size=900)) + 200, 0, 399)  # along the training trace
    U = X[walk] + rng.normal(scale=0.3, size=(900, d))
    U = np.vstack([U, rng.normal(size=(100, d)) * 6 + 10])  # and 100 phases far from every training phase
    if shuffle:
        U = U[rng.permutation(len(U))]
    eps, k = 1.0, 12
    Q, c, small = neighbourhood_problems(X, y, U, eps, k)
    Qr, cr, smallr = reference(X, y, U, eps, k)
    assert 0.1 < small.mean() < 0.9  # both kinds of neighbourhood are exercised
    assert np.array_equal(small, smallr)
    assert np.abs(Q - Qr).max() <= 1e-12 * np.abs(Qr).max()
    assert np.abs(c - cr).max() <= 1e-12 * np.abs(cr).max()
    assert np.array_equal(Q, np.swapaxes(Q, 1, 2))


def test_k_nearest_with_tied_and_duplicate_training_phases():
    rng = np.random.default_rng(4)
    X = np.repeat(rng.normal(size=(30, 4)), 3, axis=0)  # every phase three times
    y = rng.normal(size=len(X))
    U = rng.normal(size=(200, 4)) + 5
    Q, c, small = neighbourhood_problems(X, y, U, 0.0, 9)  # nobody within eps: the 9 nearest = 3 phases x 3
    Qr, cr, _ = reference(X, y, U, 0.0, 9)
    assert small.all()
    assert np.abs(Q - Qr).max() <= 1e-12 * np.abs(Qr).max()
    assert np.abs(c - cr).max() <= 1e-12 * np.abs(cr).max()


def test_k_min_above_the_training_phases_takes_them_all():
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(7, 3)), rng.normal(size=7)
    Q, c, small = neighbourhood_problems(X, y, rng.normal(size=(3, 3)), 0.0, 10)
    assert small.all()
    assert np.allclose(Q, X.T @ X / 7) and np.allclose(c, X.T @ y / 7)


def test_a_phase_that_is_not_a_number_does_not_reach_outside_the_training_rows():
    rng = np.random.default_rng(6)
    X, y = rng.normal(size=(50, 3)), rng.normal(size=50)
    U = rng.normal(size=(4, 3))
    U[2, 1] = np.nan
    Q, c, small = neighbourhood_problems(X, y, U, 0.5, 10)
    assert small[2] and np.isfinite(Q[2]).all()
    Qr, _, _ = reference(X, y, U[[0, 1, 3]], 0.5, 10)
    assert np.allclose(Q[[0, 1, 3]], Qr)


def test_a_forked_child_computes_the_same_systems():
    """Local jobs are forked from a process whose kernel threads already exist: the child starts its own."""
    import os
    import time

    rng = np.random.default_rng(7)
    X, y, U = rng.normal(size=(300, 5)), rng.normal(size=300), rng.normal(size=(1000, 5))
    Q0, _, _ = neighbourhood_problems(X, y, U, 0.8, 12)  # the parent's threads are running now
    pid = os.fork()
    if pid == 0:
        Q1, _, _ = neighbourhood_problems(X, y, U, 0.8, 12)
        os._exit(0 if np.array_equal(Q0, Q1) else 3)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child did not finish in 60 s")
