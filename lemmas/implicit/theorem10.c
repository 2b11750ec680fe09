/* lemmas/implicit/theorem10.c
 *
 * \claim{implicit/theorem10}{Theorem~4 with constants: decoder margin and the softmax lower bound}
 * \source{implicit-bias-self-attention, Theorem~10 (App.~B.4), reconstructed}
 * \statement{Theorem~4 restated with its proof (joint training by (13) on DM data from $u_0=0$,
 *   $W_0=0$): there is $t_0$ such that for all $t\ge t_0$
 *   $\min_iy_iu_t^\top x_{i,\mathrm{opt}_i}/\|u_t\|\ge c_4/\|u_{mm}\|-C_4/t^{1/3}$ (reconstructed $c_4=1/4$).
 *   The proof lower-bounds $\langle-\nabla_u\hat L,u_{mm}\rangle$ by the definition of $u_{mm}$, uses the
 *   loss recursion of Theorem~2 and the bound on $\|u_t\|$ of Lemma~12, and the softmax lower bound
 *   $s_{i,\mathrm{opt}}(W_t)\ge1-\exp(-c\|W_t\|/\|W_{mm}\|)$ with $c=1/2$, obtained from Theorem~3 as in
 *   Lemma~1 once $1-\cos(W_t,W_{mm})\le(8D^2\|W_{mm}\|^2)^{-1}$, where
 *   $D=\max_i\max_{\tau\ne\mathrm{opt}_i}\|x_{i,\mathrm{opt}_i}-x_{i\tau}\|\,\|x_{i1}\|$.}
 * \check{Everything of \texttt{implicit/theorem4} (the same code, \texttt{src/models/ibdec.c}, and the
 *   same parameters, defaults and configurations: run R4 with $W_0=0$ and with a small random $W_0$,
 *   $4\cdot10^4$ iterations, $10^4$ when quick), namely (a) $\rho_t\le1$ at every iterate, (b)
 *   $c_4-C_4t^{-1/3}\le\rho_t$ for $t\ge t_0$ with $c_4=\tfrac14\,\texttt{c4\_scale}$, $\texttt{C4}=0$,
 *   $\texttt{t0}=1$ (the strongest instance of the lost constants; the best $C_4$ is reported) and the
 *   proxy (c) for the direction of $u_t$ (non-increasing $1-\cos(u_t,u_{mm})$ over the last two decades,
 *   and, by the project's rate rule \texttt{lm\_rate\_fit\_seq}, a least-squares slope $b$ of
 *   $\log(1-\cos(u_t,u_{mm}))$ against $\log t$ on $[T/8,T]$, stable when it differs from the slope on
 *   $[T/16,T/2]$ by at most $\max(0.1,2\sqrt{s_b^2+s_{b,1/2}^2})$, an unstable fit running the same
 *   trajectory on to $2T$ (recording $1-\cos(u_t,u_{mm})$ only; (a), (b), (s) stay on $[0,T]$) while
 *   $2T$ stays within the bound $2\cdot10^5$ of \texttt{steps}, still unstable not-checkable unless
 *   another observation of the instance broke, and a stable fit inconsistent when its 95\% confidence
 *   interval lies above $-\texttt{cu\_slope\_min}=0$ by more than $0.01$), plus the softmax lower bound
 *   of the proof:
 *   (s) exact, in the log domain and in the working precision,
 *   $\max_i\log(1-s_{i,\mathrm{opt}_i}(W_t))\le-c\|W_t\|/\|W_{mm}\|$ with $c=\tfrac12\,\texttt{c\_scale}$,
 *   where $\log(1-s_{i,\mathrm{opt}})$ is the log-sum-exp of the non-optimal log-softmax entries (never
 *   $1-s$), $\mathrm{opt}_i$ the designated optimal token, $W_{mm}$ the W-SVM solution for it (solved and
 *   certified in the working precision; infeasible: assumption-failed), at every iterate with $W_t\ne0$
 *   and $e^W_t=1-\cos(W_t,W_{mm})\le\texttt{thr\_scale}\cdot(8D^2\|W_{mm}\|^2)^{-1}$ ($e^W_t$ computed
 *   cancellation-free in coefficient space, $\texttt{thr\_scale}=1$).  We read ``once'' pointwise, as
 *   the derivation is: at each iterate inside the regime (the number of iterates that leave it after the
 *   first entry is reported; it was 0 on every run we made).  For $T=2$ the bound follows exactly from
 *   the regime condition ($\|\bar W_t-\bar W_{mm}\|\le1/(2D\|W_{mm}\|)$ keeps every logit gap above
 *   $\|W_t\|/(2\|W_{mm}\|)$ and $1-s_{\mathrm{opt}}\le e^{-\text{gap}}$), so (s) tests the constant and
 *   the harness, and the largest $c$ that holds on the run is reported (about $0.83$--$0.91$ on R4).
 *   The run need not enter the regime: on R4 it does at $t\approx3\cdot10^3$ to $2.5\cdot10^4$, so a
 *   quick run ($10^4$ iterations) may not; then (s) is not observed, the measure
 *   ``(s) regime entered'' is 0 and the instance is judged on (a)--(c) alone; an instance in which
 *   nothing at all could be compared is assumption-failed.  Proxy claim (verdicts consistent or
 *   inconsistent; the runner labels a confirmed break of the exact parts (a), (b), (s) inconsistent as
 *   well, the worst observation's label names the part); breaks in double are replayed wholly in MPFR
 *   at 256 bits up to the breaking iterate (a full replay of $4\cdot10^4$ iterations costs about 35\,s;
 *   at the stated constants nothing comes near a bound).  The wrong-constant test sets
 *   $\texttt{c\_scale}=4$ ($c=2$) with $\texttt{thr\_scale}=1000$ (the gate open from $t=2$, so that the
 *   break comes early and its replay is short) and must come out inconsistent; the tests of
 *   \texttt{implicit/theorem4} cover (a)--(c).}
 */
#include "lm_claim.h"
#include "lm_ibdec.h"

static const lm_param_def params[] = {
    LM_IBDEC_PARAMS,
    {"c_scale", 1.0, "multiplies c = 1/2 of the softmax lower bound", NULL, "[0, 1e6]"},
    {"thr_scale", 1.0, "multiplies the regime threshold (8 D^2 ||W_mm||^2)^-1", NULL, "[0, 1e6]"},
    {NULL, 0, NULL, NULL, NULL}};

static int eval(lm_eval *ev)
{
    lm_ibdec_setup s;
    lm_ibdec_setup_read(&s, ev);
    s.softmax = 1;
    s.c_soft = 0.5 * lm_par(ev, "c_scale");
    s.thr_scale = lm_par(ev, "thr_scale");
    return lm_ibdec_run(ev, &s);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Run R4 from W_0 = 0 (DM d = 600, n = 8, zeta = 1.5, 40000 steps): margin ratio in [c4 - C4 "
     "t^(-1/3), 1], u_t turning to u_mm, and 1 - s_opt <= exp(-||W_t||/(2||W_mm||)) in the "
     "regime.",
     NULL},
    {LM_READ_PAPER,
     "Run R4 from a small random W_0 (entries N(0, (0.01/d)^2), Lemma 4): margin ratio in [c4 - "
     "C4 t^(-1/3), 1], u_t turning to u_mm, and the softmax lower bound in the regime.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_implicit_theorem10) = {
    .kind = LM_KIND_RATE,
    .source = "Theorem 10 and its proof (App. B.4)",
    .origin = "reconstructed",
    .confidence = "low",
    .params = params,
    .configs = lm_ibdec_configs,
    .readings = readings,
    .inst_scale = 0.1875,
    .search_dim = 0,
    .proxy = 1,
    .eval = eval,
};
