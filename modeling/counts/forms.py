"""Why a block is irregular, in the words of its count's form (BB-ML 5.2 leaves irregular blocks unexplained).

A block no model predicts within 5 % is explained from its measured counts, the most specific form first:

1. **the sizes it depends on**: a size matters when, with every other size fixed, the count changes with it;
2. **a step or remainder in one size** (an unrolled loop ``for (b = 0; b + 3 < BINS; b += 4)`` runs
   ``floor(BINS/4)`` times, its remainder loop ``BINS mod 4`` times): the count is exactly, on every measured
   input, ``c0 + c1 * g(x_j) * prod(other sizes it depends on)`` with ``g`` one of ``floor(x/m)``,
   ``ceil(x/m)``, ``x mod m`` (m = 2 ... :data:`MAX_STEP`) or ``floor(log2 x)``, whole ``c0, c1``;
   ``g`` must take at least three values on the measured sizes and not be a straight line in them (else the
   polynomial models would have been exact);
3. zero at some inputs and not at others (a branch taken or not);
4. non-monotone in one size (with the others fixed);
5. periodic in a size it depends on: the count per unit of the sizes it depends on differs by the size's
   residue class (mod 2 ... 32);
6. otherwise: not smooth in the sizes.

The reason names the sizes the block does not depend on, so ``floor(BINS/4)`` reads "a step in BINS:
count = ⌊BINS/4⌋ on every measured input; does not depend on N", never a pattern in N.
"""

from __future__ import annotations

import numpy as np

MAX_STEP = 64


def depends_on(X: np.ndarray, y: np.ndarray) -> list[int]:
    """Indices of the sizes the count changes with, other sizes held fixed (a size with one measured value
    does not count)."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    out = []
    for j in range(X.shape[1]):
        if len(np.unique(X[:, j])) < 2:
            continue
        others = np.delete(X, j, axis=1)
        groups: dict = {}
        for row, v in zip(map(tuple, others), y):
            groups.setdefault(row, set()).add(v)
        if any(len(vs) > 1 for vs in groups.values()):
            out.append(j)
    return out


def _steps(x: np.ndarray):
    """(label, g(x)) of every step form tried on one size's values."""
    xi = np.round(x).astype(np.int64)
    if np.all(xi == x) and (xi > 0).all():
        for m in range(2, MAX_STEP + 1):
            yield f"⌊{{p}}/{m}⌋", xi // m
            yield f"⌈{{p}}/{m}⌉", -(-xi // m)
            yield f"({{p}} mod {m})", xi % m
        yield "⌊log2 {p}⌋", np.floor(np.log2(xi)).astype(np.int64)


def step_form(X: np.ndarray, y: np.ndarray, params) -> str | None:
    """``"c0 + c1·⌊BINS/4⌋·N"``-like text when the count is exactly such a step form (module docstring, 2),
    else None. The smallest modulus that fits is reported."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    dep = depends_on(X, y)
    if not dep or not np.all(y == np.round(y)):
        return None
    for j in dep:
        rest = [k for k in dep if k != j]
        other = np.prod(X[:, rest], axis=1) if rest else np.ones(len(X))
        xj = X[:, j]
        for label, g in _steps(xj):
            if len(np.unique(g)) < 3:
                continue
            gv = g.astype(float)
            lin = np.column_stack([np.ones_like(xj), xj])
            if np.allclose(lin @ np.linalg.lstsq(lin, gv, rcond=None)[0], gv, atol=1e-9):
                continue  # g is a straight line on these sizes: no step seen
            A = np.column_stack([np.ones_like(gv), gv * other])
            coef = np.linalg.lstsq(A, y, rcond=None)[0]
            c = np.round(coef)
            if c[1] == 0 or not np.array_equal(A @ c, y):
                continue
            term = label.format(p=params[j]) + "".join(f"·{params[k]}" for k in rest)
            text = term if c[1] == 1 else f"{int(c[1])}·{term}"
            if c[0]:
                text += f" {'+' if c[0] > 0 else '-'} {abs(int(c[0]))}"
            return text
    return None


def _no_dependence(X, params, dep) -> str:
    free = [params[j] for j in range(X.shape[1]) if j not in dep and len(np.unique(X[:, j])) > 1]
    return f"; does not depend on {', '.join(free)}" if free else ""


def irregular_reason(X: np.ndarray, y: np.ndarray, params) -> str:
    """Why a block's counts are irregular, from its measured counts (module docstring)."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    params = list(params)
    dep = depends_on(X, y)
    tail = _no_dependence(X, params, dep)
    form = step_form(X, y, params)
    if form is not None:
        kind = "a remainder" if " mod " in form else "a step"
        sizes = ", ".join(params[j] for j in dep)
        return f"{kind} in {sizes}: count = {form} on every measured input{tail}"
    if (y == 0).any() and (y > 0).any():
        return "zero at some inputs" + tail
    for j in dep:
        others = np.delete(X, j, axis=1)
        keys = [tuple(r) for r in others]
        for key in set(keys):
            idx = [i for i, k in enumerate(keys) if k == key]
            if len(idx) < 3:
                continue
            order = np.array(idx)[np.argsort(X[idx, j])]
            d = np.diff(y[order])
            if (d > 0).any() and (d < 0).any():
                return f"non-monotone in {params[j]}{tail}"
    unit = np.prod(X[:, dep], axis=1) if dep else np.ones(len(X))
    rate = y / np.maximum(unit, 1)
    for j in dep:
        vals = X[:, j]
        if not np.all(vals == np.round(vals)):
            continue
        for m in (2, 4, 8, 16, 32):
            cls = vals.astype(np.int64) % m
            if len(np.unique(cls)) < 2:
                continue
            # counts per unit of the sizes it depends on differ by residue class (a remainder loop, a tile edge)
            means = [np.median(rate[cls == c]) for c in np.unique(cls)]
            if max(means) > 1.05 * min(means) > 0:
                return f"periodic in {params[j]} (mod {m}){tail}"
    return "not smooth in the sizes" + tail

