"""The batched SCQP solvers (the active-set method and projected gradient) against independent solvers
(exact NNLS + multiplier bisection, OSQP), the projection, the KKT conditions, and recovery of a planted
sparse non-negative theta."""

import numpy as np
import pytest

from modeling.errors import DataError
from modeling.phases.scqp import Problem, project_weighted_simplex, solve, solve_active_set, solve_exact


def problems(B=40, d=13, m=300, seed=0, scale_spread=3.0):
    rng = np.random.default_rng(seed)
    X = rng.lognormal(size=(m, d)) * rng.lognormal(0, scale_spread, size=d)  # badly scaled columns
    theta = np.zeros(d)
    theta[[1, 4, 7]] = rng.uniform(0.05, 0.5, 3)
    y = X @ theta * (1 + 0.02 * rng.normal(size=m))
    W = (rng.random((B, m)) < 0.6).astype(float)
    Q = np.einsum("bj,jk,jl->bkl", W, X, X) / W.sum(1)[:, None, None]
    c = np.einsum("bj,jk,j->bk", W, X, y) / W.sum(1)[:, None]
    return Q, c


def test_projection_is_the_euclidean_projection():
    rng = np.random.default_rng(1)
    v = rng.normal(size=(2000, 6)) * 3
    a = rng.uniform(0.2, 4, size=(2000, 6))
    T = rng.uniform(0.1, 3, 2000)
    x = project_weighted_simplex(v, a, T)
    assert x.min() >= 0 and ((a * x).sum(1) - T).max() <= 1e-12
    # optimality: no feasible direction improves |x - v|; compare with random feasible points
    for _ in range(50):
        z = project_weighted_simplex(x + rng.normal(scale=0.3, size=x.shape), a, T)
        assert np.all(((x - v) ** 2).sum(1) <= ((z - v) ** 2).sum(1) + 1e-9)
    # the unweighted case: the simplex {x >= 0, sum x <= 1}
    x1 = project_weighted_simplex(np.array([[0.8, 0.6, -0.2]]), np.ones(3), np.array([1.0]))
    assert np.allclose(x1, [[0.6, 0.4, 0.0]])


METHODS = ["active-set", "apg"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("t_frac", [0.2, 0.6, 2.0])
def test_solver_matches_the_exact_solver_and_kkt_holds(t_frac, method):
    Q, c = problems()
    free = np.array([solve_exact(Q[i], c[i], 1e12).sum() for i in range(len(c))])
    T = t_frac * free
    sol = solve(Problem(Q, c, T), tol=1e-11, method=method)
    if method == "active-set":
        assert solve_active_set(Problem(Q, c, T), tol=1e-11).found.all()  # on its own, no fallback
    assert sol.found.all() and sol.primal_residual.max() <= 1e-9
    for i in range(len(c)):
        ex = solve_exact(Q[i], c[i], T[i])
        fe = Problem(Q[i:i + 1], c[i:i + 1], T[i:i + 1]).objective(ex[None])[0]
        assert abs(sol.objective[i] - fe) <= 1e-6 * abs(fe)
        th = sol.theta[i]
        g = Q[i] @ th - c[i]
        bound_active = th.sum() >= T[i] * (1 - 1e-7)
        mu = max(0.0, -g[th > 1e-9 * th.max()].mean()) if bound_active else 0.0
        # KKT: on the support g + mu = 0, off it g + mu >= 0 (scaled to the gradient's size)
        tol = 1e-5 * np.abs(c[i]).max()
        assert np.all(np.abs((g + mu)[th > 1e-9 * th.max()]) <= tol)
        assert np.all((g + mu)[th <= 1e-9 * th.max()] >= -tol)


@pytest.mark.parametrize("method", METHODS)
def test_solver_agrees_with_osqp_where_well_scaled(method):
    osqp = pytest.importorskip("osqp")
    from scipy import sparse

    Q, c = problems(B=10, scale_spread=0.3)
    d = c.shape[1]
    T = 0.5 * np.array([solve_exact(Q[i], c[i], 1e12).sum() for i in range(len(c))])
    sol = solve(Problem(Q, c, T), tol=1e-11, method=method)
    A = sparse.csc_matrix(np.vstack([np.eye(d), np.ones((1, d))]))
    for i in range(len(c)):
        m = osqp.OSQP()
        m.setup(P=sparse.csc_matrix(np.triu(Q[i])), q=-c[i], A=A, l=np.r_[np.zeros(d), -np.inf],
                u=np.r_[np.full(d, np.inf), T[i]], eps_abs=1e-10, eps_rel=1e-10, max_iter=200000, polish=True,
                verbose=False)
        r = m.solve()
        fo = Problem(Q[i:i + 1], c[i:i + 1], T[i:i + 1]).objective(np.asarray(r.x)[None])[0]
        assert abs(sol.objective[i] - fo) <= 1e-6 * abs(fo)


@pytest.mark.parametrize("method", METHODS)
def test_a_planted_sparse_theta_is_recovered_from_noise_free_data(method):
    rng = np.random.default_rng(3)
    X = rng.uniform(0.5, 2, size=(200, 10))
    theta = np.zeros(10)
    theta[[2, 5]] = [1.5, 0.7]
    y = X @ theta
    Q, c = (X.T @ X / 200)[None], (X.T @ y / 200)[None]
    sol = solve(Problem(Q, c, np.array([theta.sum() * 1.5])), tol=1e-12, max_iter=100000, method=method)
    assert np.allclose(sol.theta[0], theta, atol=1e-6)


def test_bad_problems_are_refused():
    Q, c = problems(B=2)
    with pytest.raises(DataError, match="positive"):
        Problem(Q, c, np.array([1.0, 0.0]))
    with pytest.raises(DataError, match="shape"):
        Problem(Q[:, :3, :3], c, 1.0)
    with pytest.raises(DataError, match="NaN"):
        Problem(Q, np.where(c > 0, np.nan, c), 1.0)


def test_the_active_set_method_on_nearly_rank_one_neighbourhood_systems():
    """Neighbourhood systems of nearby phases are nearly rank one: the exact method still reaches the
    optimum (checked against the exact solver), never worse than projected gradient."""
    rng = np.random.default_rng(5)
    base = rng.lognormal(size=13)
    X = base * (1 + 1e-4 * rng.normal(size=(60, 13)))  # 60 phases, almost the same counters
    y = X @ np.r_[0.3, np.zeros(12)] * (1 + 0.01 * rng.normal(size=60))
    Q, c = (X.T @ X / 60)[None].repeat(3, 0), (X.T @ y / 60)[None].repeat(3, 0)
    T = np.array([0.05, 0.3, 10.0]) * solve_exact(Q[0], c[0], 1e12).sum()
    sol = solve_active_set(Problem(Q, c, T), tol=1e-11)
    apg = solve(Problem(Q, c, T), tol=1e-11, method="apg")
    assert sol.found.all() and sol.primal_residual.max() <= 1e-12
    for i in range(3):
        ex = solve_exact(Q[i], c[i], T[i])
        fe = Problem(Q[i:i + 1], c[i:i + 1], T[i:i + 1]).objective(ex[None])[0]
        assert sol.objective[i] <= fe + 1e-9 * abs(fe) and sol.objective[i] <= apg.objective[i] + 1e-12


def test_a_large_batch_on_two_threads_equals_each_problem_solved_alone():
    """700 problems go to two threads in pieces; each result equals that problem solved in a batch of one."""
    Q, c = problems(B=700, d=8, m=120, seed=7)
    T = np.random.default_rng(7).uniform(0.02, 2.0, 700)
    sol = solve_active_set(Problem(Q, c, T), tol=1e-10)
    assert sol.found.all()
    for i in range(0, 700, 7):
        one = solve_active_set(Problem(Q[i:i + 1], c[i:i + 1], T[i:i + 1]), tol=1e-10)
        assert np.array_equal(one.theta[0], sol.theta[i]) and one.iterations[0] == sol.iterations[i]
