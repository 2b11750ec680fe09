#!/usr/bin/env python3
"""peer.py LIB JOBDIR [--quick] -- run the bench's peer jobs in one library.

LIB is torch, numpy or mpmath.  JOBDIR holds the jobs lemmata's bench wrote:
d_*.json (double: run by torch and numpy) and mp_*.json (256 bits: run by
mpmath).  A job names a model, its instance (data, initial point, step size),
`steps` and `reps`.  For each job this script builds the model, then `reps`
times resets it to the initial point and times `steps` training steps
(time.perf_counter around the steps only), and writes

  JOBDIR/<job>.<LIB>.out    status ok | failed: ..., median/min/max seconds
                            per step over the runs, reps, steps
  JOBDIR/<job>.<LIB>.iter   the final iterate, one number per line

lemmata's bench compares the iterate with its own before it uses the time.
It also appends the library versions to JOBDIR/versions.txt."""
import glob
import json
import os
import platform
import sys
import time
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

BUDGET = 60.0  # seconds of timed runs per job at most (the first run always completes)


def timed_runs(model, steps, reps):
    times = []
    start = time.perf_counter()
    for r in range(reps):
        model.reset()
        t0 = time.perf_counter()
        for _ in range(steps):
            model.step()
        times.append((time.perf_counter() - t0) / steps)
        if time.perf_counter() - start > BUDGET:
            break
    return times


def write_result(jobdir, job, lib, times, it, fmt, status="ok"):
    base = os.path.join(jobdir, "%s.%s" % (job["job"], lib))
    if it is not None:
        with open(base + ".iter", "w") as f:
            for x in it:
                f.write(fmt(x) + "\n")
    with open(base + ".out", "w") as f:
        f.write("status %s\n" % status)
        if times:
            s = sorted(times)
            k = len(s)
            med = s[k // 2] if k % 2 else 0.5 * (s[k // 2 - 1] + s[k // 2])
            f.write("median %.9g\nmin %.9g\nmax %.9g\n" % (med, s[0], s[-1]))
            f.write("reps %d\nsteps %d\n" % (k, job["steps"]))


def versions(jobdir, lib):
    lines = []
    if lib == "torch":
        import torch
        lines.append("PyTorch %s (threads %d)" % (torch.__version__, torch.get_num_threads()))
    elif lib == "numpy":
        import numpy
        lines.append("numpy %s" % numpy.__version__)
    else:
        import mpmath
        lines.append("mpmath %s (backend %s)" % (mpmath.__version__, mpmath.libmp.BACKEND))
    path = os.path.join(jobdir, "versions.txt")
    first = not os.path.exists(path)
    with open(path, "a") as f:
        if first:
            f.write("Python %s\n" % platform.python_version())
        for l in lines:
            f.write(l + "\n")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("torch", "numpy", "mpmath"):
        sys.stderr.write(__doc__)
        return 2
    lib, jobdir = sys.argv[1], sys.argv[2]
    if lib == "torch":
        import torch  # default threads: what a user gets
        import torch_models as M
        make = lambda job: M.MODELS[job["model"]](job)
        fmt = lambda x: repr(float(x))
        pattern = "d_*.json"
    elif lib == "numpy":
        import np_models as M
        ops = M.F64Ops()
        make = lambda job: M.MODELS[job["model"]](job, ops)
        fmt = ops.out
        pattern = "d_*.json"
    else:
        import mpmath
        pattern = "mp_*.json"
    versions(jobdir, lib)
    for path in sorted(glob.glob(os.path.join(jobdir, pattern))):
        with open(path) as f:
            job = json.load(f)
        try:
            if lib == "mpmath":
                mpmath.mp.prec = job["prec"]
                fmt = lambda x: mpmath.nstr(x, int(job["prec"] * 0.30103) + 3, min_fixed=1, max_fixed=0)
                if job["model"] == "matmul":
                    times, it = matmul(job, mpmath)
                    write_result(jobdir, job, lib, times, it, fmt)
                    continue
                try:
                    import np_models as M  # the replay runs the numpy code on mpmath numbers
                except ImportError:
                    write_result(jobdir, job, lib, None, None, str,
                                 "failed: the mpmath replay runs on numpy object arrays: python3-numpy not installed")
                    continue
                model = M.MODELS[job["model"]](job, M.MpOps(mpmath, job["prec"]))
            else:
                model = make(job)
            times = timed_runs(model, job["steps"], job["reps"])
            write_result(jobdir, job, lib, times, model.iterate(), fmt)
        except Exception as e:  # a failed peer is reported, never a pass
            traceback.print_exc()
            write_result(jobdir, job, lib, None, None, str, "failed: %s: %s" % (type(e).__name__, e))
    return 0


def matmul(job, mpmath):
    """one n x n product at the job's precision with mpmath.matrix"""
    n = job["n"]
    A = mpmath.matrix(n, n)
    B = mpmath.matrix(n, n)
    a, b = job["A"]["v"], job["B"]["v"]
    for i in range(n):
        for j in range(n):
            A[i, j] = mpmath.mpf(float(a[i * n + j]))
            B[i, j] = mpmath.mpf(float(b[i * n + j]))
    times = []
    start = time.perf_counter()
    for _ in range(job["reps"]):
        t0 = time.perf_counter()
        C = A * B
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - start > BUDGET:
            break
    return times, [C[i, j] for i in range(n) for j in range(n)]


if __name__ == "__main__":
    sys.exit(main())
