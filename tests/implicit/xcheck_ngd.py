#!/usr/bin/python3
"""xcheck_ngd.py DATA INIT ITERATES -- an independent reference of the implicit-bias runs'
(normalized) gradient descent on W, written from the paper's model, sharing no code with
lemmata (python3 and numpy only).

The model (Vasudeva, Deora, Thrampoulidis): sequence X_i (T x d, first row the query token
x_i1), label y_i, fixed head u,

    Phi_i(W) = u^T X_i^T softmax(X_i W x_i1),   L(W) = (1/n) sum_i exp(-y_i Phi_i(W)),

    ngd:  W(k+1) = W(k) - eta grad L(W(k)) / ||grad L(W(k))||_F
    gd:   W(k+1) = W(k) - eta grad L(W(k))

with eta and the optimizer taken from the head of the iterates file.  The gradient is formed
naively: d L / d a_i = -(y_i / n) exp(-y_i Phi_i) (diag(s_i) - s_i s_i^T) X_i u with a_i = X_i W
x_i1, and grad L = sum_i X_i^T (dL/da_i) x_i1^T.  Every iterate of the file is compared with the
reference's, printing one line

    xcheck compared=31 maxrel=... maxrel_loss=... minprob=...

maxrel the largest max|W_file(k) - W_ref(k)| / max|W_ref(k)| (the absolute difference where
W_ref(k) = 0), maxrel_loss the same for the loss, minprob the smallest softmax probability
seen (how far from saturation the comparison went).  Exit 2 on a file it cannot read."""
import json
import sys

import numpy as np


def num(v):
    """a number as lemmata writes it: a hex float string, a decimal string, "nan"/"inf", or a
    plain JSON number"""
    if isinstance(v, (int, float)):
        return float(v)
    s = v.strip()
    if "0x" in s.lower() and "p" in s.lower():
        return float.fromhex(s)
    return float(s)


def mat(m):
    if isinstance(m, list):  # a flat list: a column
        return np.array([[num(v)] for v in m])
    a = np.array([[num(v) for v in row] for row in m["values"]], dtype=float)
    assert a.shape == (m["rows"], m["cols"]), "shape"
    return a


def main():
    if len(sys.argv) != 4:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    data, init, its = (json.load(open(p)) for p in sys.argv[1:])
    n = data["n"]
    X = [mat(data["data"]["X_%d" % (i + 1)]) for i in range(n)]
    y = mat(data["data"]["y"])[:, 0]
    u = mat(data["data"]["u (head)"])[:, 0]
    W = mat(init["init"]["W(0)"])
    opt, eta = its["optimizer"], num(its["eta"])
    if opt not in ("ngd", "gd"):
        print("xcheck_ngd.py: optimizer %s is not gd or ngd" % opt, file=sys.stderr)
        return 2
    want = {it["k"]: it for it in its["iterates"]}
    last = max(want)
    v = [Xi @ u for Xi in X]  # the token scores u^T x_it
    maxrel = maxrel_loss = 0.0
    minprob = 1.0
    compared = 0
    for k in range(last + 1):
        G = np.zeros_like(W)
        L = 0.0
        for i in range(n):
            x1 = X[i][0]
            a = X[i] @ (W @ x1)
            s = np.exp(a - a.max())
            s /= s.sum()
            minprob = min(minprob, s.min())
            phi = s @ v[i]
            e = np.exp(-y[i] * phi)
            L += e / n
            dphi_da = s * (v[i] - phi)  # (diag(s) - s s^T) v
            G += np.outer(X[i].T @ (-y[i] * e / n * dphi_da), x1)
        if k in want:
            Wf = mat(want[k]["W"])
            ref = np.abs(W).max()
            diff = np.abs(Wf - W).max()
            maxrel = max(maxrel, diff / ref if ref > 0 else diff)
            Lf = num(want[k]["loss"])
            maxrel_loss = max(maxrel_loss, abs(Lf - L) / abs(L))
            compared += 1
        if k == last:
            break
        if opt == "ngd":
            W = W - eta * G / np.linalg.norm(G)
        else:
            W = W - eta * G
    print("xcheck compared=%d maxrel=%.3e maxrel_loss=%.3e minprob=%.3e" % (compared, maxrel, maxrel_loss, minprob))
    return 0


if __name__ == "__main__":
    sys.exit(main())
