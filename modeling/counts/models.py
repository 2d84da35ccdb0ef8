"""Count models (scikit-learn estimators): input sizes -> one count per block, all blocks at once.

Every model sees the same inputs: the sizes' logarithms (counts of loops grow as powers of the sizes, which
are linear in log space), and predicts each block's count. Targets are validated (>= 0, finite); blocks whose
training counts are all zero predict zero.

- :class:`PoissonNetwork` - BB-ML's PNN (sec. 4.2): counts as Poisson variables (eq. 1) with a mean given by
  a network with one hidden layer of 10 units, trained on the Poisson negative log-likelihood (eq. 2, here
  scikit-learn's half Poisson deviance, the same minimiser) with adam. Choices the paper leaves open, made
  here: one network with every block as an output (not one network per block); inputs are the standardized
  log sizes; each block's counts are divided by its largest training count (raw counts up to 1e9 underfit or
  overflow the exponential output), predictions multiplied back; activation and learning rate per preset.
- :class:`PoissonGLM` - one Poisson GLM per block on the log sizes: log E[count] = b + sum a_i log n_i,
  exact for a count that is a monomial c * prod n_i^a_i. The per-block scaling leaves its fitted mean
  unchanged.
- :class:`PolynomialCounts` - counts as polynomials in the sizes (monomials up to a degree chosen on an inner
  split of the training points), fitted by non-negative least squares; a block whose training counts an
  (unconstrained) integer-exact polynomial reproduces with points to spare is marked *exact*.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
from scipy.optimize import nnls
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import PoissonRegressor
from sklearn.neural_network import MLPRegressor
from sklearn.utils.validation import check_is_fitted, validate_data

from modeling.counts.splits import inner_split
from modeling.errors import DataError

#: the paper's settings (sec. 4.2) and a tuned preset that extrapolates better on the shipped kernels
PNN_PRESETS = {
    "paper": {"activation": "tanh", "epochs": 300, "batch_size": 10, "learning_rate": 1e-3},
    "tuned": {"activation": "tanh", "epochs": 1000, "batch_size": 32, "learning_rate": 3e-3},
}

#: what a user may set for the custom network (the form's bounds and the link parameters' checks)
NETWORK_BOUNDS = {"hidden": (1, 200), "epochs": (10, 5000), "batch_size": (1, 1024), "learning_rate": (1e-5, 1.0)}
ACTIVATIONS = ("tanh", "relu", "logistic")


def preset_text(preset: str) -> str:
    """A preset's settings in a few words: "tanh, 300 epochs, batch 10, lr 1e-3"."""
    s = PNN_PRESETS[preset]
    return f"{s['activation']}, {s['epochs']} epochs, batch {s['batch_size']}, lr {s['learning_rate']:g}"


def check_counts(Y) -> np.ndarray:
    Y = np.asarray(Y, dtype=float)
    if not np.all(np.isfinite(Y)):
        raise DataError("counts must be finite numbers")
    if (Y < 0).any():
        raise DataError("counts must be zero or more (a Poisson model cannot be trained on negative counts)")
    return Y


#: the smallest size a logarithm is taken of: a size of zero (which the count tables refuse, see
#: modeling/counts/table.py) is read as this rather than giving -inf
LOG_FLOOR = 1e-12


def _log(X) -> np.ndarray:
    return np.log(np.maximum(np.asarray(X, dtype=float), LOG_FLOOR))


class _CountModel(RegressorMixin, BaseEstimator):
    """The scikit-learn contract shared by the count models (checked by ``check_estimator`` in the tests):
    inputs validated (2-D, finite, not sparse, sizes not negative), ``n_features_in_``, ``NotFittedError``
    before ``fit``, and a 1-D target (one block) answered with 1-D predictions."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True     # input sizes
        tags.target_tags.positive_only = True    # counts
        tags.target_tags.multi_output = True     # one output per block
        tags.regressor_tags.poor_score = True    # count laws, not arbitrary regression surfaces
        return tags

    def _validate_fit(self, X, Y):
        X, Y = validate_data(self, X, Y, multi_output=True, y_numeric=True, dtype=float)
        if (X < 0).any():
            raise ValueError(f"Negative values in data passed to {type(self).__name__}: input sizes must be "
                             "positive.")
        self.one_block_ = Y.ndim == 1
        return X, check_counts(Y.reshape(len(Y), -1))

    def _validate_predict(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=float)
        if (X < 0).any():
            raise ValueError(f"Negative values in data passed to {type(self).__name__}: input sizes must be "
                             "positive.")
        return X

    def _answer(self, P: np.ndarray) -> np.ndarray:
        return P[:, 0] if self.one_block_ else P


class _LogSizes:
    """Standardized log sizes (fitted on the training points)."""

    def fit(self, X):
        L = _log(X)
        self.mu, self.sd = L.mean(axis=0), L.std(axis=0)
        self.sd[self.sd == 0] = 1.0
        return self

    def __call__(self, X):
        return (_log(X) - self.mu) / self.sd


class _PerBlockScale(_CountModel):
    """Shared plumbing: log-size inputs, per-block scaling by the largest training count, zero blocks."""

    def _prepare(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        self.n_blocks_ = Y.shape[1]
        self.scale_ = Y.max(axis=0)
        self.active_ = self.scale_ > 0
        self.inputs_ = _LogSizes().fit(X)
        return self.inputs_(X), Y[:, self.active_] / self.scale_[self.active_]

    def _expand(self, part, n):
        out = np.zeros((n, self.n_blocks_))
        out[:, self.active_] = part * self.scale_[self.active_]
        return out


class PoissonNetwork(_PerBlockScale):
    def __init__(self, hidden=10, activation="tanh", epochs=300, batch_size=10, learning_rate=1e-3, seed=0):
        self.hidden, self.activation, self.epochs = hidden, activation, epochs
        self.batch_size, self.learning_rate, self.seed = batch_size, learning_rate, seed

    def fit(self, X, Y):
        Z, T = self._prepare(X, Y)
        self.net_ = None
        if T.shape[1]:
            self.net_ = MLPRegressor(hidden_layer_sizes=(self.hidden,), activation=self.activation, loss="poisson",
                                     solver="adam", batch_size=min(self.batch_size, len(Z)),
                                     learning_rate_init=self.learning_rate, max_iter=self.epochs,
                                     n_iter_no_change=self.epochs + 1, tol=0.0, random_state=self.seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                self.net_.fit(Z, T if T.shape[1] > 1 else T.ravel())
            if not np.isfinite(self.net_.loss_):
                raise DataError("the Poisson network diverged (non-finite loss)")
        return self

    def predict(self, X):
        X = self._validate_predict(X)
        Z = self.inputs_(X)
        part = self.net_.predict(Z).reshape(len(Z), -1) if self.net_ is not None else np.zeros((len(Z), 0))
        return self._answer(self._expand(part, len(Z)))


class PoissonGLM(_PerBlockScale):
    def __init__(self, alpha=0.0):
        self.alpha = alpha

    def fit(self, X, Y):
        Z, T = self._prepare(X, Y)
        self.glms_ = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for b in range(T.shape[1]):
                glm = PoissonRegressor(alpha=self.alpha, solver="newton-cholesky", max_iter=200, tol=1e-10)
                self.glms_.append(glm.fit(Z, T[:, b]))
        return self

    def predict(self, X):
        X = self._validate_predict(X)
        Z = self.inputs_(X)
        part = np.column_stack([g.predict(Z) for g in self.glms_]) if self.glms_ else np.zeros((len(Z), 0))
        return self._answer(self._expand(part, len(Z)))


def monomials(X: np.ndarray, degree: int) -> np.ndarray:
    """Every product of the columns of X with total degree <= ``degree`` (a column of ones first)."""
    n, p = X.shape
    cols = [np.ones(n)]
    for d in range(1, degree + 1):
        for combo in itertools.combinations_with_replacement(range(p), d):
            cols.append(np.prod(X[:, combo], axis=1))
    return np.column_stack(cols)


def _max_degree(p: int) -> int:
    return 4 if p <= 2 else 3


class PolynomialCounts(_CountModel):
    def __init__(self, max_degree=None, seed=0):
        self.max_degree, self.seed = max_degree, seed

    def _design(self, X, degree):
        return monomials(np.asarray(X, dtype=float) / self.unit_, degree)

    def _fit_block(self, A, y):
        coef, _ = nnls(A, y, maxiter=50 * A.shape[1])
        return coef

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        self.unit_ = X.max(axis=0)
        self.unit_[self.unit_ == 0] = 1.0
        top = self.max_degree or _max_degree(X.shape[1])
        fit_i, val_i = inner_split(X, self.seed)
        n_blocks = Y.shape[1]
        self.degree_ = np.ones(n_blocks, dtype=int)
        self.exact_ = np.zeros(n_blocks, dtype=bool)
        self.coef_ = []
        best_err = np.full(n_blocks, np.inf)
        designs = [self._design(X, d) for d in range(top + 1)]  # the monomials of degree <= d, built once
        for d in range(0, top + 1):
            A_fit, A_val = designs[d][fit_i], designs[d][val_i]
            if A_fit.shape[1] > len(fit_i):
                break
            for b in range(n_blocks):
                pred = A_val @ self._fit_block(A_fit, Y[fit_i, b])
                err = np.mean(np.abs(pred - Y[val_i, b]) / np.maximum(Y[val_i, b], 1.0))
                if err < best_err[b] - 1e-12:
                    best_err[b], self.degree_[b] = err, d
        for b in range(n_blocks):
            d = int(self.degree_[b])
            coef = self._fit_block(designs[d], Y[:, b])
            exact = self._exact(designs, Y[:, b])
            if exact is not None:
                d, coef = exact
                self.exact_[b] = True
            self.degree_[b] = d
            self.coef_.append(coef)
        return self

    def _exact(self, designs, y):
        """(degree, coefficients) of the lowest-degree least-squares polynomial that reproduces every training
        count to the integer, with at least max(3, half the monomials) more points than monomials: the extra
        points check the fit (it is not interpolation). ``designs[d]``: the monomials of degree <= d."""
        for d, A in enumerate(designs):
            if A.shape[1] + max(3, A.shape[1] // 2) > len(y):
                return None
            coef, *_ = np.linalg.lstsq(A, y, rcond=None)
            if np.all(np.abs(A @ coef - y) < 0.5) and np.all(np.abs(A @ coef - y) <= 1e-6 * np.maximum(y, 1)):
                return d, coef
        return None

    def predict(self, X):
        X = self._validate_predict(X)
        cols = [np.maximum(self._design(X, int(d)) @ c, 0.0) for d, c in zip(self.degree_, self.coef_)]
        return self._answer(np.column_stack(cols))


def make(model: str, seed: int = 0, pnn_settings: dict | None = None):
    """A fresh estimator by name: pnn-paper, pnn-tuned, pnn (custom settings), glm, poly."""
    if model.startswith("pnn"):
        preset = model.partition("-")[2] or "paper"
        settings = dict(PNN_PRESETS.get(preset, PNN_PRESETS["paper"]))
        if model == "pnn" and pnn_settings:
            settings.update(pnn_settings)
        return PoissonNetwork(seed=seed, **settings)
    if model == "glm":
        return PoissonGLM()
    if model == "poly":
        return PolynomialCounts(seed=seed)
    raise DataError(f"unknown count model {model!r}")
