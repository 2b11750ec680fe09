"""np_models.py -- the bench's training steps written with numpy, the way a
numpy user writes them: closed-form gradients, vectorised with matmul.

The same code runs in IEEE double (float64 arrays) and, for the 256-bit
replay, on numpy object arrays of mpmath numbers (MpOps): every function
below only uses +, -, *, /, matmul, sums, max and the elementwise functions
of the `ops` object.

Each model is a class with reset() (back to the initial point), step() (one
training step) and iterate() (the trained parameters, flattened in the order
lemmata's bench uses)."""
import numpy as np


class F64Ops:
    """IEEE double."""
    name = "float64"

    def __init__(self):
        self.exp = np.exp
        self.sqrt = np.sqrt
        self.log1p = np.log1p
        self.abs = np.abs
        self.sign = np.sign
        self.power = np.power

    def arr(self, a, shape=None):
        x = np.asarray(a["v"] if isinstance(a, dict) else a, dtype=np.float64)
        return x.reshape(shape if shape is not None else a["shape"])

    def num(self, x):
        return float(x)

    def zeros(self, shape):
        return np.zeros(shape, dtype=np.float64)

    def out(self, x):
        return repr(float(x))


class MpOps:
    """mpmath numbers at `prec` bits in numpy object arrays.  Inputs are
    parsed as doubles first, so they are the same numbers lemmata converts
    exactly into MPFR."""

    def __init__(self, mpmath, prec):
        mpmath.mp.prec = prec
        self.mp = mpmath
        self.name = "mpmath%d" % prec
        self.exp = np.frompyfunc(mpmath.exp, 1, 1)
        self.log1p = np.frompyfunc(mpmath.log1p, 1, 1)
        self.abs = np.frompyfunc(abs, 1, 1)
        self.sign = np.frompyfunc(mpmath.sign, 1, 1)
        self.power = np.frompyfunc(mpmath.power, 2, 1)
        self.sqrt = mpmath.sqrt
        self.digits = int(prec * 0.30103) + 3

    def arr(self, a, shape=None):
        v = a["v"] if isinstance(a, dict) else a
        x = np.array([self.mp.mpf(float(t)) for t in v], dtype=object)
        return x.reshape(shape if shape is not None else a["shape"])

    def num(self, x):
        return self.mp.mpf(float(x))

    def zeros(self, shape):
        z = np.empty(shape, dtype=object)
        z.fill(self.mp.mpf(0))
        return z

    def out(self, x):
        return self.mp.nstr(x, self.digits, min_fixed=1, max_fixed=0)


def softmax_rows(ops, A):
    A = A - A.max(axis=-1, keepdims=True)
    E = ops.exp(A)
    return E / E.sum(axis=-1, keepdims=True)


class Dyn:
    """GD on W^Q, W^K, W^V (block-diagonal W^V) of the multi-head attention
    regression model, softmax or Gaussian kernel."""

    def __init__(self, inst, ops):
        self.o = ops
        N, n, D, d, H = (inst[k] for k in ("N", "n", "D", "d", "H"))
        self.N, self.n, self.D, self.d, self.H = N, n, D, d, H
        self.gauss = inst["kernel"] == "gauss"
        self.X = ops.arr(inst["X"])
        self.y = ops.arr(inst["y"], (N, n))
        self.Wq0 = ops.arr(inst["Wq"])
        self.Wk0 = ops.arr(inst["Wk"])
        self.Wv0 = ops.arr(inst["Wv"])
        self.Wo = ops.arr(inst["Wo"])
        self.eta = ops.num(inst["eta"])
        mask = np.zeros((H * D, H * d))
        for h in range(H):
            mask[h * D:(h + 1) * D, h * d:(h + 1) * d] = 1.0
        self.mask = ops.arr(mask.ravel(), mask.shape)
        sd = ops.sqrt(ops.num(d))
        self.isd = 1 / sd
        self.gscale = ops.num(inst["cG"]) * sd
        self.reset()

    def reset(self):
        self.Wq, self.Wk, self.Wv = self.Wq0.copy(), self.Wk0.copy(), self.Wv0.copy()

    def step(self):
        o, N, n, D, H = self.o, self.N, self.n, self.D, self.H
        X, Wq, Wk = self.X, self.Wq, self.Wk
        u = (self.Wv @ self.Wo)[:, 0]
        r = -self.y
        cache = []
        for i in range(N):
            mh = o.zeros(n)
            for h in range(H):
                Q = X[i] @ Wq[h]
                K = X[i] @ Wk[h]
                if self.gauss:
                    diff = Q[:, None, :] - K[None, :, :]
                    S = o.exp(-(diff * diff).sum(axis=2) / self.gscale)
                else:
                    S = softmax_rows(o, (Q @ K.T) * self.isd)
                v = X[i] @ u[h * D:(h + 1) * D]
                mh = mh + S @ v
                cache.append((Q, K, S, v))
            r[i] = r[i] + mh
        gQ, gK, du = o.zeros(Wq.shape), o.zeros(Wk.shape), o.zeros(H * D)
        for i in range(N):
            for h in range(H):
                Q, K, S, v = cache[i * H + h]
                G = r[i][:, None] * v[None, :]
                if self.gauss:
                    Gam = G * S
                    c = -2 / self.gscale
                    gQ[h] = gQ[h] + (X[i].T @ (Gam.sum(axis=1)[:, None] * Q - Gam @ K)) * c
                    gK[h] = gK[h] + (X[i].T @ (Gam.sum(axis=0)[:, None] * K - Gam.T @ Q)) * c
                else:
                    Gam = S * (G - (G * S).sum(axis=1, keepdims=True))
                    gQ[h] = gQ[h] + (X[i].T @ (Gam @ K)) * self.isd
                    gK[h] = gK[h] + (X[i].T @ (Gam.T @ Q)) * self.isd
                du[h * D:(h + 1) * D] = du[h * D:(h + 1) * D] + X[i].T @ (S.T @ r[i])
        gV = (du[:, None] * self.Wo[:, 0][None, :]) * self.mask
        self.Wq = Wq - self.eta * gQ
        self.Wk = Wk - self.eta * gK
        self.Wv = self.Wv - self.eta * gV

    def iterate(self):
        return list(self.Wq.ravel()) + list(self.Wk.ravel()) + list(self.Wv.ravel())


def _scores_grad(ops, X, Zq, W, gam, loss, n):
    """logits a_it = x_it^T W zq_i, softmax, margin m_i = s_i . gam_i and the
    gradient of (1/n) sum ell(m_i) in W: sum_i coef_i^T X_i zq_i^T."""
    q = Zq @ W.T                                   # W zq_i
    a = np.matmul(X, q[:, :, None])[:, :, 0]       # n x T
    s = softmax_rows(ops, a)
    m = (s * gam).sum(axis=1)
    if loss == "exp":
        lp = -ops.exp(-m) / n                      # ell'(m) / n
    else:
        lp = -1 / (1 + ops.exp(m)) / n
    coef = lp[:, None] * (s * (gam - m[:, None]))  # d ell / d a
    V = np.matmul(coef[:, None, :], X)[:, 0, :]    # X_i^T coef_i
    return V.T @ Zq


class IbNgd:
    """Normalised GD on W of the implicit-bias classifier, u fixed."""

    def __init__(self, inst, ops):
        self.o = ops
        self.n, self.T, self.d = inst["n"], inst["T"], inst["d"]
        self.X = ops.arr(inst["X"])
        y = ops.arr(inst["y"], (self.n,))
        self.gam = y[:, None] * (self.X @ ops.arr(inst["u"], (self.d,)))
        self.X1 = self.X[:, 0, :]
        self.eta = ops.num(inst["eta"])
        self.reset()

    def reset(self):
        self.W = self.o.zeros((self.d, self.d))

    def step(self):
        G = _scores_grad(self.o, self.X, self.X1, self.W, self.gam, "exp", self.n)
        self.W = self.W - (self.eta / self.o.sqrt((G * G).sum())) * G

    def iterate(self):
        return list(self.W.ravel())


class Md:
    """Normalised l_p-AttGD on the dual variable Theta, logistic loss."""

    def __init__(self, inst, ops):
        self.o = ops
        self.n, self.T, self.d = inst["n"], inst["T"], inst["d"]
        self.X = ops.arr(inst["X"])
        self.Z = ops.arr(inst["Z"])
        y = ops.arr(inst["y"], (self.n,))
        self.gam = y[:, None] * (self.X @ ops.arr(inst["v"], (self.d,)))
        self.p = ops.num(inst["p"])
        self.q = self.p / (self.p - 1)
        self.eta = ops.num(inst["eta"])
        self.eps = ops.num(2.0 ** -52)
        self.reset()

    def reset(self):
        self.W = self.o.zeros((self.d, self.d))
        self.Th = self.o.zeros((self.d, self.d))

    def step(self):
        o = self.o
        G = _scores_grad(o, self.X, self.Z, self.W, self.gam, "logistic", self.n)
        nq = o.power(o.abs(G), self.q).sum() ** (1 / self.q)
        self.Th = self.Th - (self.eta / (nq + self.eps)) * G
        self.W = o.sign(self.Th) * o.power(o.abs(self.Th), 1 / (self.p - 1))

    def iterate(self):
        return list(self.W.ravel())


class Pr:
    """GD with heavy-ball momentum on the pruning mask M."""

    def __init__(self, inst, ops):
        self.o = ops
        self.X = ops.arr(inst["X"])
        self.W = ops.arr(inst["W"])
        self.d = inst["d"]
        self.lam = ops.num(inst["lambda"])
        self.eta = ops.num(inst["eta"])
        self.mom = ops.num(inst["momentum"])
        self.f0 = softmax_rows(ops, self.X @ self.W @ self.X.T)
        self.reset()

    def reset(self):
        self.M = self.o.zeros((self.d, self.d)) + 1
        self.Vel = self.o.zeros((self.d, self.d))

    def step(self):
        X, M = self.X, self.M
        f = softmax_rows(self.o, (X @ (M * self.W)) @ X.T)
        c = f - self.f0
        p1 = f * c
        p = p1 - p1.sum(axis=1, keepdims=True) * f
        G = self.W * ((X.T @ p) @ X) + self.lam * M
        self.Vel = self.mom * self.Vel + G
        self.M = M - self.eta * self.Vel

    def iterate(self):
        return list(self.M.ravel())


class Pc:
    """Algorithm 1's step on a fixed minibatch: grad(L_hat + R_hat),
    preconditioned by Sigma_hat^-1 (variant V0 of the regulariser)."""

    def __init__(self, inst, ops):
        self.o = ops
        self.X = ops.arr(inst["X"])
        self.Y = ops.arr(inst["Y"])
        self.V0 = ops.arr(inst["V0"])
        self.KQ0 = ops.arr(inst["KQ0"])
        self.P = ops.arr(inst["Pinv"])
        self.B = inst["B"]
        self.lam = ops.num(inst["lambda"])
        self.eta = ops.num(inst["eta"])
        self.reset()

    def reset(self):
        self.V, self.KQ = self.V0.copy(), self.KQ0.copy()

    def step(self):
        X, Y, V, KQ, B, lam = self.X, self.Y, self.V, self.KQ, self.B, self.lam
        A = X @ (X @ KQ).T                  # A[j, i] = x_i^T KQ x_j
        P = softmax_rows(self.o, A)
        Z = P @ X
        R = Y - Z @ V.T
        GV = (R.T @ Z) * (-2.0 / B)
        Vr = R @ V                          # v_j = V^T r_j
        CV = ((Vr @ X.T) * P) @ X - Z * (Z * Vr).sum(axis=1, keepdims=True)
        GK = (CV.T @ X) * (-2.0 / B)
        S = (X.T @ X) / B
        M = V.T @ V - (KQ @ S) @ KQ.T
        SMS = S @ (M @ S)
        GV = GV + (V @ SMS) * (4 * lam)
        GK = GK - ((SMS @ KQ) @ S) * (4 * lam)
        self.V = V - self.eta * (GV @ self.P)
        self.KQ = KQ - self.eta * ((self.P @ GK) @ self.P)

    def iterate(self):
        return list(self.V.ravel()) + list(self.KQ.ravel())


MODELS = {"dyn": Dyn, "ib": IbNgd, "md": Md, "pr": Pr, "pc": Pc}
