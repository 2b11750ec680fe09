#!/usr/bin/python3
"""xcheck_lp.py -- an independent reference of the l_p mirror-descent runs (lemmata's md-*),
for the cross-check of `lemmata train --iterates` (tests/mirror/test_md_xcheck.c).

Written from the paper's update rule, not from lemmata's code: python3 and numpy only.

  model   f_i(W) = v^T X_i^T softmax(X_i W z_i)       (X_i: T x d tokens, z_i: query, v: head)
  loss    L(W)   = (1/n) sum_i log(1 + exp(-y_i f_i(W)))
  mirror  psi(W) = (1/p) ||W||_p^p entrywise,  grad psi(W) = sgn(W)|W|^(p-1),
          grad psi^*(Theta) = sgn(Theta)|Theta|^(1/(p-1))
  step    Theta(k+1) = Theta(k) - eta grad L(W(k))                       (normalized = 0)
          Theta(k+1) = Theta(k) - eta grad L / (||grad L||_q + 2^-52)    (normalized = 1, the
                       paper's experiments; q = p/(p-1), entrywise norm)
          W(k+1) = grad psi^*(Theta(k+1))

usage: xcheck_lp.py DATA.json INIT.json ITERATES.json [MIN_PROB]

Reads the data and W(0) lemmata exported (or any peer wrote), the run's p, eta and step rule
from the head of the iterates file, runs the reference from W(0) and compares every iterate in
the file with its own, while the softmax is unsaturated: the smallest softmax probability of any
token at the reference iterate is above MIN_PROB (default 1e-8).  From the first saturated
iterate on, the comparison stops (there the loss and gradient are dominated by probabilities
that the two programs form with different roundings and no longer share 12 digits).

Prints one line:  xcheck compared=N maxrel=X maxrel_loss=Y stop=K minprob=P
  maxrel       max over compared k of max|W_lemmata(k) - W_ref(k)| / max|W_ref(k)|
               (normwise: an entry crossing zero has no meaningful relative error of its own)
  maxrel_loss  max over compared k of |L_lemmata(k) - L_ref(k)| / L_ref(k)
  stop         the first saturated iterate (-1: none within the file)
  minprob      the smallest softmax probability over the compared iterates
Exit status 0 when the files were read, 2 on a malformed file (the verdict is the caller's).
"""
import json
import math
import sys

import numpy as np


def num(s, where):
    if isinstance(s, (int, float)):
        return float(s)
    if not isinstance(s, str):
        raise ValueError("%s: not a number" % where)
    t = s.strip().lower()
    if t in ("nan", "+nan", "-nan"):
        return math.nan
    if t in ("inf", "+inf", "infinity"):
        return math.inf
    if t in ("-inf", "-infinity"):
        return -math.inf
    if "0x" in t:
        return float.fromhex(t)
    return float(t)


def mat(v, where):
    """a matrix object {"rows","cols","values":[[...]]} or a flat list (a column)"""
    if isinstance(v, list):
        return np.array([[num(x, where)] for x in v], dtype=float)
    r, c = v["rows"], v["cols"]
    a = np.array([[num(x, where) for x in row] for row in v["values"]], dtype=float)
    if a.shape != (r, c):
        raise ValueError("%s: shape %s, stated %dx%d" % (where, a.shape, r, c))
    return a


def softmax(a):
    m = np.max(a)
    e = np.exp(a - m)
    return e / np.sum(e)


def loss_grad(W, X, Z, y, v):
    """L(W), grad L(W) and the smallest softmax probability, straight from the definitions"""
    n = len(X)
    L = 0.0
    G = np.zeros_like(W)
    pmin = 1.0
    for i in range(n):
        z = Z[i]
        a = X[i] @ (W @ z)
        s = softmax(a)
        pmin = min(pmin, float(np.min(s)))
        g = X[i] @ v
        f = float(s @ g)
        m = y[i] * f
        L += np.logaddexp(0.0, -m) / n
        # d/dm log(1 + e^-m) = -1 / (1 + e^m)
        dldf = -y[i] / (1.0 + math.exp(m)) / n
        dfda = s * (g - f)
        G += dldf * np.outer(X[i].T @ dfda, z)
    return L, G, pmin


def main(argv):
    if len(argv) < 4:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 2
    minprob = float(argv[4]) if len(argv) > 4 else 1e-8
    with open(argv[1]) as fh:
        data = json.load(fh)
    with open(argv[2]) as fh:
        init = json.load(fh)
    with open(argv[3]) as fh:
        its = json.load(fh)
    n = data["n"]
    dd = data["data"]
    X = [mat(dd["X_%d" % (i + 1)], "X_%d" % (i + 1)) for i in range(n)]
    Z = mat(dd["Z (query tokens)"], "Z")
    y = mat(dd["y"], "y")[:, 0]
    v = mat(dd["v (head)"], "v")[:, 0]
    W = mat(init["init"]["W(0)"], "W(0)")
    p = num(its["p"], "p")
    eta = num(its["eta"], "eta")
    normalized = int(its["normalized"])
    q = p / (p - 1.0)
    Th = np.sign(W) * np.abs(W) ** (p - 1.0)
    W = np.sign(Th) * np.abs(Th) ** (1.0 / (p - 1.0))
    want = {int(it["k"]): it for it in its["iterates"]}
    last = max(want) if want else -1
    compared, maxrel, maxrel_loss, stop, pseen = 0, 0.0, 0.0, -1, 1.0
    for k in range(last + 1):
        L, G, pmin = loss_grad(W, X, Z, y, v)
        if pmin <= minprob and stop < 0:
            stop = k
        if k in want and stop < 0:
            Wl = mat(want[k]["W"], "iterates[k=%d].W" % k)
            Ll = num(want[k]["loss"], "iterates[k=%d].loss" % k)
            scale = float(np.max(np.abs(W)))
            diff = float(np.max(np.abs(Wl - W)))
            rel = diff / scale if scale > 0 else diff
            maxrel = max(maxrel, rel)
            maxrel_loss = max(maxrel_loss, abs(Ll - L) / L)
            pseen = min(pseen, pmin)
            compared += 1
        if stop >= 0:
            break
        if normalized:
            gq = float(np.sum(np.abs(G) ** q)) ** (1.0 / q)
            Th = Th - eta * G / (gq + 2.0 ** -52)
        else:
            Th = Th - eta * G
        W = np.sign(Th) * np.abs(Th) ** (1.0 / (p - 1.0))
    print("xcheck compared=%d maxrel=%.3e maxrel_loss=%.3e stop=%d minprob=%.3e"
          % (compared, maxrel, maxrel_loss, stop, pseen))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("xcheck_lp.py: %s" % e, file=sys.stderr)
        sys.exit(2)
