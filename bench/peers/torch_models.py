"""torch_models.py -- the bench's training steps written with PyTorch the
way a PyTorch user writes them: float64 tensors on the CPU, the loss as a
batched forward pass, gradients by autograd, plain updates (torch.optim.SGD
where the update is plain or heavy-ball GD).  Same classes and iterate
order as np_models.py."""
import torch

DT = torch.float64


def T(a, shape=None):
    x = torch.tensor(a["v"] if isinstance(a, dict) else a, dtype=DT)
    return x.reshape(shape if shape is not None else a["shape"])


class Dyn:
    def __init__(self, inst):
        N, n, D, d, H = (inst[k] for k in ("N", "n", "D", "d", "H"))
        self.N, self.n, self.D, self.d, self.H = N, n, D, d, H
        self.gauss = inst["kernel"] == "gauss"
        self.X = T(inst["X"])                      # N x n x D
        self.y = T(inst["y"], (N, n))
        self.Wq0, self.Wk0, self.Wv0 = T(inst["Wq"]), T(inst["Wk"]), T(inst["Wv"])
        self.Wo = T(inst["Wo"])
        self.eta = float(inst["eta"])
        self.cG = float(inst["cG"])
        self.mask = torch.zeros(H * D, H * d, dtype=DT)
        for h in range(H):
            self.mask[h * D:(h + 1) * D, h * d:(h + 1) * d] = 1.0
        self.reset()

    def reset(self):
        self.Wq = self.Wq0.clone().requires_grad_(True)
        self.Wk = self.Wk0.clone().requires_grad_(True)
        self.Wv = self.Wv0.clone().requires_grad_(True)
        self.opt = torch.optim.SGD([self.Wq, self.Wk, self.Wv], lr=self.eta)

    def loss(self):
        X = self.X
        Q = torch.einsum("ind,hde->ihne", X, self.Wq)  # N x H x n x d
        K = torch.einsum("ind,hde->ihne", X, self.Wk)
        if self.gauss:
            diff = Q.unsqueeze(-2) - K.unsqueeze(-3)
            S = torch.exp(-(diff * diff).sum(-1) / (self.cG * self.d ** 0.5))
        else:
            S = torch.softmax(Q @ K.transpose(-1, -2) / self.d ** 0.5, dim=-1)
        u = (self.Wv @ self.Wo).reshape(self.H, self.D)
        v = torch.einsum("ind,hd->ihn", X, u)
        mh = (S @ v.unsqueeze(-1)).squeeze(-1).sum(1)    # N x n
        return 0.5 * ((mh - self.y) ** 2).sum()

    def step(self):
        self.opt.zero_grad()
        self.loss().backward()
        self.Wv.grad.mul_(self.mask)                     # W^V stays block-diagonal
        self.opt.step()

    def iterate(self):
        return torch.cat([self.Wq.detach().ravel(), self.Wk.detach().ravel(), self.Wv.detach().ravel()]).tolist()


def _margins(X, Zq, W, gam):
    a = (X @ (Zq @ W.T).unsqueeze(-1)).squeeze(-1)       # a_it = x_it^T W zq_i
    return (torch.softmax(a, dim=1) * gam).sum(1)


class IbNgd:
    def __init__(self, inst):
        self.n, self.T, self.d = inst["n"], inst["T"], inst["d"]
        self.X = T(inst["X"])
        y = T(inst["y"], (self.n,))
        self.gam = y[:, None] * (self.X @ T(inst["u"], (self.d,)))
        self.X1 = self.X[:, 0, :]
        self.eta = float(inst["eta"])
        self.reset()

    def reset(self):
        self.W = torch.zeros(self.d, self.d, dtype=DT, requires_grad=True)

    def step(self):
        L = torch.exp(-_margins(self.X, self.X1, self.W, self.gam)).mean()
        (g,) = torch.autograd.grad(L, self.W)
        with torch.no_grad():
            self.W -= self.eta * g / g.norm()

    def iterate(self):
        return self.W.detach().ravel().tolist()


class Md:
    def __init__(self, inst):
        self.n, self.T, self.d = inst["n"], inst["T"], inst["d"]
        self.X, self.Z = T(inst["X"]), T(inst["Z"])
        y = T(inst["y"], (self.n,))
        self.gam = y[:, None] * (self.X @ T(inst["v"], (self.d,)))
        self.p = float(inst["p"])
        self.q = self.p / (self.p - 1)
        self.eta = float(inst["eta"])
        self.reset()

    def reset(self):
        self.W = torch.zeros(self.d, self.d, dtype=DT, requires_grad=True)
        self.Th = torch.zeros(self.d, self.d, dtype=DT)

    def step(self):
        L = torch.nn.functional.softplus(-_margins(self.X, self.Z, self.W, self.gam)).mean()
        (g,) = torch.autograd.grad(L, self.W)
        with torch.no_grad():
            nq = g.abs().pow(self.q).sum().pow(1 / self.q)
            self.Th -= self.eta * g / (nq + 2.0 ** -52)
            self.W.copy_(self.Th.sign() * self.Th.abs().pow(1 / (self.p - 1)))

    def iterate(self):
        return self.W.detach().ravel().tolist()


class Pr:
    def __init__(self, inst):
        self.X, self.W = T(inst["X"]), T(inst["W"])
        self.d = inst["d"]
        self.lam = float(inst["lambda"])
        self.eta, self.mom = float(inst["eta"]), float(inst["momentum"])
        self.f0 = torch.softmax(self.X @ self.W @ self.X.T, dim=1)
        self.reset()

    def reset(self):
        self.M = torch.ones(self.d, self.d, dtype=DT, requires_grad=True)
        self.opt = torch.optim.SGD([self.M], lr=self.eta, momentum=self.mom)

    def step(self):
        self.opt.zero_grad()
        f = torch.softmax(self.X @ (self.M * self.W) @ self.X.T, dim=1)
        L = 0.5 * ((f - self.f0) ** 2).sum() + 0.5 * self.lam * (self.M ** 2).sum()
        L.backward()
        self.opt.step()

    def iterate(self):
        return self.M.detach().ravel().tolist()


class Pc:
    def __init__(self, inst):
        self.X, self.Y = T(inst["X"]), T(inst["Y"])
        self.V0, self.KQ0, self.P = T(inst["V0"]), T(inst["KQ0"]), T(inst["Pinv"])
        self.B = inst["B"]
        self.lam, self.eta = float(inst["lambda"]), float(inst["eta"])
        self.reset()

    def reset(self):
        self.V = self.V0.clone().requires_grad_(True)
        self.KQ = self.KQ0.clone().requires_grad_(True)

    def step(self):
        X, V, KQ = self.X, self.V, self.KQ
        P = torch.softmax(X @ (X @ KQ).T, dim=1)
        Lhat = ((self.Y - P @ X @ V.T) ** 2).sum() / self.B
        S = X.T @ X / self.B
        M = V.T @ V - KQ @ S @ KQ.T
        MS = M @ S
        L = Lhat + self.lam * torch.trace(MS @ MS)
        gV, gK = torch.autograd.grad(L, (V, KQ))
        with torch.no_grad():
            V -= self.eta * gV @ self.P
            KQ -= self.eta * self.P @ gK @ self.P

    def iterate(self):
        return torch.cat([self.V.detach().ravel(), self.KQ.detach().ravel()]).tolist()


MODELS = {"dyn": Dyn, "ib": IbNgd, "md": Md, "pr": Pr, "pc": Pc}
