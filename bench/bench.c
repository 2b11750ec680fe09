/* bench.c -- `make bench`: training-step throughput of lemmata in double and
 * MPFR, against the BLAS-bound time and against Python peers (PyTorch
 * float64, numpy, mpmath) doing the same work; writes results/bench.json,
 * report/bench.tex and figures/bench_*.pdf (see bench/README.md).
 *
 *   lemmata-bench [--python PY] [--peers torch,numpy,mpmath] [--quick]
 *                 [--json results/bench.json] [--tex report/bench.tex]
 *                 [--figdir figures] [--db results/lemmata.db] [--keep]
 *
 * Method.  Every timing is the median of repeated samples with their min
 * and max; a sample averages `inner` consecutive steps when a step is
 * shorter than the sample length.  Comparisons are ratios of timings taken
 * in the same run.  A peer's timing counts only when its final iterate
 * agrees with lemmata's (relative 2-norm difference below 1e-10 in double,
 * below 1e-60 for mpmath at 256 bits); otherwise it is reported as a
 * mismatch. */
#include "bm.h"
#include "lm_proc.h"
#include "lm_stats.h"
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern const char lm_commit[]; /* build/commit.c */
int openblas_get_num_threads(void);

const char *const bm_ctx_names[BM_NCTX] = {"double", "mpfr128", "mpfr256"};
const char *const bm_peer_names[BM_NPEER] = {"torch", "numpy"};

#define TOL_DOUBLE 1e-10
#define TOL_MP256 1e-60
#define MP_SKIP 0.7       /* s: an MPFR ladder point predicted slower than this is not run */
#define MP_SKIP_PAPER 6.0 /* s: the same for a paper size */

static const int LADDER[] = {8, 16, 32, 64, 128, 256, 512};
static const int LADDER_QUICK[] = {8, 32, 128};

typedef struct {
    const char *py, *peerdir, *json, *tex, *figdir, *db;
    int have[3]; /* torch, numpy, mpmath */
    int quick, keep;
    char tmp[256];
} opts;

/* per point, kept for the comparison with the peers */
typedef struct {
    double *it;
    int n;
    char job[128];
} keep_iter;

static uint64_t seed_of(const bm_model *m, bm_point pt)
{
    const char *id = m->same_as ? m->same_as : m->id;
    return lm_hash_u64(lm_hash_str(20261127, id), (uint64_t)(pt.paper >= 0 ? 100000 + pt.paper : pt.size));
}

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

/* ------------------------------------------------------------ K-step runs */

typedef struct {
    const bm_model *m;
    void *inst;
    int K;
} krun_arg;

static int per_call(const bm_model *m) { return m->per_call > 0 ? m->per_call : 1; }

static void scale_time(bm_time *t, int k)
{
    t->med /= k;
    t->min /= k;
    t->max /= k;
    t->inner *= k;
}

/* R runs of K calls of step() (K per_call steps) from the initial point;
 * per-step time of each run */
static bm_time krun(const bm_model *m, void *inst, int K, int R)
{
    bm_time t;
    memset(&t, 0, sizeof t);
    double *v = malloc(sizeof(double) * (size_t)R);
    for (int r = 0; r < R; r++) {
        m->reset(inst);
        double a = bm_now();
        for (int k = 0; k < K; k++)
            if (m->step(inst)) {
                free(v);
                return t;
            }
        v[r] = (bm_now() - a) / ((double)K * per_call(m));
    }
    bm_stats(&t, v, R);
    t.inner = K * per_call(m);
    free(v);
    return t;
}

static void write_job(const char *path, const char *job, const bm_model *m, void *inst, int K, int R, int prec)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        msg("bench: cannot write %s\n", path);
        return;
    }
    fprintf(f, "{\"job\": \"%s\", \"model\": \"%s\", \"id\": \"%s\", \"steps\": %d, \"reps\": %d, \"prec\": %d,\n", job,
            m->peer, m->id, K, R, prec);
    m->reset(inst);
    m->write(inst, f);
    fputs("}\n", f);
    fclose(f);
}

/* ------------------------------------------------------------ peer results */

typedef struct {
    int ok;
    char status[200];
    double med, min, max;
    int reps, steps;
} peer_out;

static void read_out(peer_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(o->status, sizeof o->status, "failed: no result (the peer crashed or was not run)");
        return;
    }
    char line[512];
    snprintf(o->status, sizeof o->status, "failed: empty result");
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *v = strchr(line, ' ');
        if (!v) continue;
        *v++ = 0;
        if (!strcmp(line, "status")) {
            snprintf(o->status, sizeof o->status, "%s", v);
            o->ok = !strcmp(v, "ok");
        } else if (!strcmp(line, "median")) o->med = atof(v);
        else if (!strcmp(line, "min")) o->min = atof(v);
        else if (!strcmp(line, "max")) o->max = atof(v);
        else if (!strcmp(line, "reps")) o->reps = atoi(v);
        else if (!strcmp(line, "steps")) o->steps = atoi(v);
    }
    fclose(f);
}

/* relative 2-norm difference of the peer's iterate (file) against ref */
static double compare_d(const char *path, const double *ref, int n, char *why, size_t wl)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, wl, "no iterate written");
        return BM_NAN;
    }
    double num = 0, den = 0, x;
    int k = 0;
    while (fscanf(f, "%lf", &x) == 1) {
        if (k < n) {
            num += (x - ref[k]) * (x - ref[k]);
            den += ref[k] * ref[k];
        }
        k++;
    }
    fclose(f);
    if (k != n) {
        snprintf(why, wl, "iterate has %d numbers, lemmata's %d", k, n);
        return BM_NAN;
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

static double compare_mp(const char *path, mpfr_t *ref, int n, char *why, size_t wl)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, wl, "no iterate written");
        return BM_NAN;
    }
    mpfr_t x, num, den;
    mpfr_inits2(320, x, num, den, (mpfr_ptr)0);
    mpfr_set_zero(num, 1);
    mpfr_set_zero(den, 1);
    char tok[256];
    int k = 0;
    while (fscanf(f, "%255s", tok) == 1) {
        if (k < n) {
            if (mpfr_set_str(x, tok, 10, MPFR_RNDN)) {
                snprintf(why, wl, "unreadable number '%.40s'", tok);
                k = -1;
                break;
            }
            mpfr_sub(x, x, ref[k], MPFR_RNDN);
            mpfr_fma(num, x, x, num, MPFR_RNDN);
            mpfr_fma(den, ref[k], ref[k], den, MPFR_RNDN);
        }
        k++;
    }
    fclose(f);
    double r = BM_NAN;
    if (k == n) {
        if (!mpfr_zero_p(den)) mpfr_div(num, num, den, MPFR_RNDN);
        mpfr_sqrt(num, num, MPFR_RNDN);
        r = mpfr_get_d(num, MPFR_RNDN);
    } else if (k >= 0) {
        snprintf(why, wl, "iterate has %d numbers, lemmata's %d", k, n);
    }
    mpfr_clears(x, num, den, (mpfr_ptr)0);
    return r;
}

/* ------------------------------------------------------------ a model */

static void choose_KR(double t, int *K, int *R)
{
    double k = 0.02 / (t > 0 ? t : 1e-6);
    *K = k < 3 ? 3 : k > 40 ? 40 : (int)k;
    double run = *K * t;
    *R = run < 0.05 ? 5 : 3;
}

/* the predicted MPFR step time at size s from the ladder measured so far:
 * the time of the smallest measured size >= s (an over-estimate), else an
 * extrapolation with the cost exponent of the last two sizes */
static double predict(const bm_mres *mr, int c, int s)
{
    const bm_res *hi = NULL, *a = NULL, *b = NULL;
    for (int i = 0; i < mr->nr; i++) {
        const bm_res *r = &mr->r[i];
        if (r->pt.paper >= 0 || !r->t[c].ok) continue;
        if (r->size >= s && (!hi || r->size < hi->size)) hi = r;
        if (!b || r->size > b->size) a = b, b = r;
        else if (!a || r->size > a->size) a = r;
    }
    if (hi) return hi->t[c].med;
    if (!b) return 0;
    double e = 2.0;
    if (a) {
        e = log(b->t[c].med / a->t[c].med) / log((double)b->size / a->size);
        if (!(e >= 1.0)) e = 1.0;
        if (e > 3.5) e = 3.5;
    }
    return b->t[c].med * pow((double)s / b->size, e);
}

static void measure_point(bm_res *r, const bm_model *m, const opts *o, keep_iter *ki, int *stopped, bm_mres *mr)
{
    const int any_peer = o->have[0] || o->have[1];
    uint64_t seed = seed_of(m, r->pt);
    void *I = m->make(r->pt, seed);
    for (int c = 0; c < BM_NCTX; c++) snprintf(r->note[c], sizeof r->note[c], "not run");
    if (!I) {
        for (int c = 0; c < BM_NCTX; c++) snprintf(r->note[c], sizeof r->note[c], "instance failed");
        return;
    }
    /* double */
    r->t[BM_DBL] = bm_time_fn(m->step, I, o->quick ? 0.1 : 0.2, 9, 0.005);
    scale_time(&r->t[BM_DBL], per_call(m));
    snprintf(r->note[BM_DBL], sizeof r->note[BM_DBL], "%s",
             r->t[BM_DBL].ok ? "" : "a step returned a non-finite value");
    bm_gemm g[BM_MAXGEMM];
    int ng = m->gemms(r->pt, g, BM_MAXGEMM);
    r->flops = bm_gemm_flops(g, ng);
    r->blas = bm_blas_bound(g, ng, o->quick ? 0.05 : 0.15);
    msg("  %-14s %s=%-4d double %.3g s", m->id, m->xname, r->size, r->t[BM_DBL].med);
    /* the same K-step runs the peers do */
    if (m->peer && any_peer && r->t[BM_DBL].ok) {
        choose_KR(r->t[BM_DBL].med * per_call(m), &r->K, &r->R);
        r->lrun = krun(m, I, r->K, r->R);
        r->K *= per_call(m); /* steps per run */
        int cap = 1 << 22;
        ki->it = malloc(sizeof(double) * (size_t)cap);
        ki->n = m->iterate(I, ki->it, cap);
        snprintf(ki->job, sizeof ki->job, "d_%s_%s%d", m->job_as ? m->job_as : m->id,
                 r->pt.paper >= 0 ? "p" : "", r->size);
        char path[512];
        snprintf(path, sizeof path, "%s/%s.json", o->tmp, ki->job);
        struct stat sb;
        if (stat(path, &sb) != 0) write_job(path, ki->job, m, I, r->K, r->R, 53);
        else { /* shared with an earlier model: use that job's K and R */
            FILE *f = fopen(path, "r");
            int K = 0, R = 0;
            if (f && fscanf(f, "{\"job\": \"%*[^\"]\", \"model\": \"%*[^\"]\", \"id\": \"%*[^\"]\", \"steps\": %d, \"reps\": %d",
                            &K, &R) == 2 && (K != r->K || R != r->R) && K % per_call(m) == 0) {
                r->K = K;
                r->R = R;
                r->lrun = krun(m, I, K / per_call(m), R);
                ki->n = m->iterate(I, ki->it, cap);
            }
            if (f) fclose(f);
        }
    }
    /* MPFR */
    for (int c = BM_M128; c <= BM_M256; c++) {
        if (stopped[c] && r->pt.paper < 0) {
            snprintf(r->note[c], sizeof r->note[c], "skipped (ladder stopped)");
            continue;
        }
        double pred = predict(mr, c, r->size), lim = r->pt.paper < 0 ? MP_SKIP : MP_SKIP_PAPER;
        if (pred > lim) {
            snprintf(r->note[c], sizeof r->note[c], "skipped: predicted %.3g s per step (> %.3g s)", pred, lim);
            if (r->pt.paper < 0) {
                stopped[c] = 1;
                snprintf(mr->stop[c], sizeof mr->stop[c],
                         "the ladder stops before %s = %d: a step was predicted to take %.3g s (> %.3g s) "
                         "from the cost exponent of the last two sizes",
                         m->xname, r->size, pred, lim);
            }
            continue;
        }
        lm_ctx ctx = lm_ctx_mpfr(c == BM_M128 ? 128 : 256);
        void *J = m->convert(I, &ctx);
        if (!J) {
            snprintf(r->note[c], sizeof r->note[c], "not applicable: this path runs in double only");
            continue;
        }
        r->t[c] = bm_time_fn(m->step, J, o->quick ? 0.2 : 0.4, 5, 0.02);
        scale_time(&r->t[c], per_call(m));
        snprintf(r->note[c], sizeof r->note[c], "%s", r->t[c].ok ? "" : "a step returned a non-finite value");
        m->free(J);
        msg("  %s %.3g s", bm_ctx_names[c], r->t[c].med);
    }
    msg("\n");
    m->free(I);
}

static void fit_model(bm_mres *mr)
{
    for (int c = 0; c < BM_NCTX; c++) {
        double x[16], y[16];
        int n = 0, from = 32;
        for (int pass = 0; pass < 2 && n < 3; pass++) {
            n = 0;
            from = pass ? 0 : 32;
            for (int i = 0; i < mr->nr; i++) {
                const bm_res *r = &mr->r[i];
                if (r->pt.paper >= 0 || !r->t[c].ok || r->size < from || n >= 16) continue;
                x[n] = log((double)r->size);
                y[n] = log(r->t[c].med);
                n++;
            }
        }
        lm_fit f;
        if (n >= 2 && !lm_fit_line(&f, x, y, n, 0.95)) {
            mr->fit_ok[c] = 1;
            mr->fit_slope[c] = f.slope;
            mr->fit_se[c] = f.se;
            mr->fit_lo[c] = f.lo;
            mr->fit_hi[c] = f.hi;
            mr->fit_n[c] = n;
            mr->fit_from[c] = (int)lround(exp(x[0]));
        }
    }
}

/* ------------------------------------------------------------ products */

static int mul_step(void *p)
{
    lm_mat **M = p;
    lm_mat_mul(M[2], M[0], 0, M[1], 0);
    return 0;
}

typedef struct {
    int n;
    mpfr_t *a, *b, *c, s;
} fma_arg;

/* the plain triple loop of the design notes: one mpfr_fma per term */
static int fma_step(void *p)
{
    fma_arg *f = p;
    const int n = f->n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            mpfr_set_zero(f->s, 1);
            for (int k = 0; k < n; k++) mpfr_fma(f->s, f->a[i * n + k], f->b[k * n + j], f->s, MPFR_RNDN);
            mpfr_set(f->c[i * n + j], f->s, MPFR_RNDN);
        }
    return 0;
}

static int proto_step(void *p)
{
    lm_mat **M = p;
    bm_mul_mp_arbdot(M[2], M[0], M[1]);
    return 0;
}

/* entries where the prototype differs from lm_mat_mul (value or sign of zero) */
static long proto_check(const lm_mat *A, const lm_mat *B, long *fallback)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_mat *C1 = lm_mat_new(A->r, B->c, &c), *C2 = lm_mat_new(A->r, B->c, &c);
    lm_mat_mul(C1, A, 0, B, 0);
    long f0 = bm_mpdot_fallbacks, bad = 0;
    bm_mul_mp_arbdot(C2, A, B);
    *fallback = bm_mpdot_fallbacks - f0;
    for (int i = 0; i < C1->r * C1->c; i++)
        if (!mpfr_equal_p(C1->m[i], C2->m[i]) || mpfr_signbit(C1->m[i]) != mpfr_signbit(C2->m[i])) bad++;
    lm_mat_free(C1);
    lm_mat_free(C2);
    return bad;
}

static void products(bm_all *A, const opts *o, mpfr_t **Cmp, int *ncmp)
{
    static const int NS[2] = {32, 128};
    for (int q = 0; q < 2; q++) {
        bm_prod *P = &A->prod[q];
        memset(P, 0, sizeof *P);
        const int n = NS[q];
        P->n = n;
        lm_rng g;
        lm_rng_init(&g, lm_hash_u64(777, (uint64_t)n));
        lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256), ca = lm_ctx_arb(256);
        lm_mat *Ad = lm_mat_new(n, n, &cd), *Bd = lm_mat_new(n, n, &cd);
        lm_mat_randn(Ad, &g, 1.0);
        lm_mat_randn(Bd, &g, 1.0);
        lm_mat *M[3];
        const lm_ctx *cs[3] = {&cd, &cm, &ca};
        bm_time *ts[3] = {&P->dbl, &P->mp, &P->arb};
        for (int c = 0; c < 3; c++) {
            M[0] = lm_mat_new(n, n, cs[c]);
            M[1] = lm_mat_new(n, n, cs[c]);
            M[2] = lm_mat_new(n, n, cs[c]);
            lm_mat_copy(M[0], Ad);
            lm_mat_copy(M[1], Bd);
            *ts[c] = bm_time_fn(mul_step, M, o->quick ? 0.2 : 0.5, 9, 0.01);
            if (c == 1) { /* the prototype on the same operands, and on integer operands */
                P->proto = bm_time_fn(proto_step, M, o->quick ? 0.2 : 0.5, 9, 0.01);
                P->proto_entries = (long)n * n;
                P->proto_mismatch = proto_check(M[0], M[1], &P->proto_fallback);
                lm_mat *I0 = lm_mat_new(n, n, &cm), *I1 = lm_mat_new(n, n, &cm);
                for (int i = 0; i < n * n; i++) {
                    lm_mat_set_d(I0, i / n, i % n, (double)(lm_rng_int(&g, -3, 3)));
                    lm_mat_set_d(I1, i / n, i % n, (double)(lm_rng_int(&g, -3, 3)));
                }
                lm_mat_set_d(I0, 0, 0, 1.0); /* a tie: 1 + 2^-256 rounds to even */
                lm_mat_set_d(I0, 0, 1, ldexp(1.0, -256));
                lm_mat_set_d(I1, 0, 0, 1.0);
                lm_mat_set_d(I1, 1, 0, 1.0);
                for (int l = 2; l < n; l++) lm_mat_set_d(I1, l, 0, 0.0);
                P->int_entries = (long)n * n;
                P->int_mismatch = proto_check(I0, I1, &P->int_fallback);
                lm_mat_free(I0);
                lm_mat_free(I1);
            }
            if (c == 1) { /* keep lemmata's MPFR-256 product for the mpmath check */
                Cmp[q] = malloc(sizeof(mpfr_t) * (size_t)(n * n));
                for (int i = 0; i < n * n; i++) {
                    mpfr_init2(Cmp[q][i], 256);
                    mpfr_set(Cmp[q][i], M[2]->m[i], MPFR_RNDN);
                }
                ncmp[q] = n * n;
            }
            for (int k = 0; k < 3; k++) lm_mat_free(M[k]);
        }
        fma_arg f;
        f.n = n;
        f.a = malloc(sizeof(mpfr_t) * (size_t)(n * n));
        f.b = malloc(sizeof(mpfr_t) * (size_t)(n * n));
        f.c = malloc(sizeof(mpfr_t) * (size_t)(n * n));
        mpfr_init2(f.s, 256);
        for (int i = 0; i < n * n; i++) {
            mpfr_inits2(256, f.a[i], f.b[i], f.c[i], (mpfr_ptr)0);
            mpfr_set_d(f.a[i], Ad->d[i], MPFR_RNDN);
            mpfr_set_d(f.b[i], Bd->d[i], MPFR_RNDN);
        }
        P->fma = bm_time_fn(fma_step, &f, o->quick ? 0.2 : 0.5, 9, 0.01);
        for (int i = 0; i < n * n; i++) mpfr_clears(f.a[i], f.b[i], f.c[i], (mpfr_ptr)0);
        mpfr_clear(f.s);
        free(f.a); free(f.b); free(f.c);
        msg("  product %dx%d at 256 bits: lemmata MPFR %.3g s, Arb %.3g s, mpfr_fma loop %.3g s, double %.3g s, "
            "arb_dot prototype %.3g s (%ld/%ld entries differ, %ld fallbacks; integers: %ld/%ld differ, %ld "
            "fallbacks)\n",
            n, n, P->mp.med, P->arb.med, P->fma.med, P->dbl.med, P->proto.med, P->proto_mismatch, P->proto_entries,
            P->proto_fallback, P->int_mismatch, P->int_entries, P->int_fallback);
        snprintf(P->status, sizeof P->status, "%s", o->have[2] ? "pending" : A->peers_avail[2]);
        if (o->have[2]) {
            char path[512];
            snprintf(path, sizeof path, "%s/mp_mul%d.json", o->tmp, n);
            FILE *fj = fopen(path, "w");
            if (fj) {
                fprintf(fj, "{\"job\": \"mp_mul%d\", \"model\": \"matmul\", \"id\": \"matmul\", \"steps\": 1, "
                            "\"reps\": %d, \"prec\": 256, \"n\": %d,\n",
                        n, n <= 32 ? 5 : 1, n);
                bm_json_mat(fj, "A", Ad);
                fputs(",\n", fj);
                bm_json_mat(fj, "B", Bd);
                fputs("}\n", fj);
                fclose(fj);
            }
        }
        lm_mat_free(Ad);
        lm_mat_free(Bd);
    }
    A->nprod = 2;
}

/* ------------------------------------------------------------ mpmath replays */

static void replays(bm_all *A, const opts *o, mpfr_t **Rmp, int *nrmp)
{
    const bm_model *m = bm_models[0]; /* dyn-softmax */
    struct {
        bm_point pt;
        int K, R;
        const char *what;
    } cases[2] = {{{5, 0}, 20, 3, "dynamics t2-softmax run (N=2, n=2, D=5, d=2, H=1)"},
                  {{32, -1}, 2, 1, "dynamics, issue size (N=4, n=4, D=32, d=8, H=2)"}};
    A->nrep = o->quick ? 1 : 2;
    for (int q = 0; q < A->nrep; q++) {
        bm_replay *P = &A->rep[q];
        memset(P, 0, sizeof *P);
        snprintf(P->what, sizeof P->what, "%s, %d GD steps", cases[q].what, cases[q].K);
        P->K = cases[q].K;
        P->R = cases[q].R;
        void *I = m->make(cases[q].pt, seed_of(m, cases[q].pt));
        lm_ctx cm = lm_ctx_mpfr(256);
        void *J = m->convert(I, &cm);
        P->dbl = krun(m, I, P->K, 5);
        P->lm = krun(m, J, P->K, 3);
        const int cap = 1 << 20;
        double *tmp = malloc(sizeof(double) * (size_t)cap);
        int n = m->iterate(J, tmp, cap);
        free(tmp);
        Rmp[q] = malloc(sizeof(mpfr_t) * (size_t)(n + 1));
        for (int i = 0; i < n; i++) mpfr_init2(Rmp[q][i], 256);
        nrmp[q] = m->iterate_mp(J, Rmp[q], n);
        msg("  replay %d: lemmata MPFR-256 %.3g s per step, double %.3g s\n", q, P->lm.med, P->dbl.med);
        snprintf(P->status, sizeof P->status, "%s", o->have[2] ? "pending" : A->peers_avail[2]);
        if (o->have[2]) {
            char path[512];
            snprintf(path, sizeof path, "%s/mp_rep%d.json", o->tmp, q);
            write_job(path, q ? "mp_rep1" : "mp_rep0", m, I, P->K, P->R, 256);
        }
        m->free(J);
        m->free(I);
    }
}

/* ------------------------------------------------------------ provenance */

static void machine(bm_all *A)
{
    A->nproc = (int)sysconf(_SC_NPROCESSORS_ONLN);
    A->blas_threads = openblas_get_num_threads();
    snprintf(A->cpu, sizeof A->cpu, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10)) {
                char *v = strchr(line, ':');
                if (v) {
                    v++;
                    while (*v == ' ') v++;
                    v[strcspn(v, "\n")] = 0;
                    snprintf(A->cpu, sizeof A->cpu, "%s", v);
                }
                break;
            }
        fclose(f);
    }
    snprintf(A->commit, sizeof A->commit, "%s", lm_commit);
    snprintf(A->versions, sizeof A->versions, "%s", lm_versions());
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(A->date, sizeof A->date, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

static void verify_times(bm_all *A, const char *db)
{
    A->verify_full = A->verify_quick = -1;
    snprintf(A->verify_full_info, sizeof A->verify_full_info, "no finished full run recorded in %s", db);
    snprintf(A->verify_quick_info, sizeof A->verify_quick_info, "no finished full QUICK=1 run recorded in %s", db);
    sqlite3 *s = NULL;
    if (sqlite3_open_v2(db, &s, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        if (s) sqlite3_close(s);
        return;
    }
    for (int q = 0; q < 2; q++) {
        sqlite3_stmt *st = NULL;
        const char *sql = "SELECT seconds, commit_id, finished_date FROM runs WHERE finished = 1 AND quick = ? "
                          "AND seconds IS NOT NULL "
                          /* an incremental run that reused results is no measure of a full one */
                          "AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.run_id = runs.id AND c.reused_from > 0) "
                          "AND NOT EXISTS (SELECT 1 FROM live l WHERE l.run_id = runs.id AND l.reused_from > 0) "
                          "ORDER BY id DESC LIMIT 1";
        if (sqlite3_prepare_v2(s, sql, -1, &st, NULL) != SQLITE_OK) break;
        sqlite3_bind_int(st, 1, q);
        if (sqlite3_step(st) == SQLITE_ROW) {
            double sec = sqlite3_column_double(st, 0);
            const unsigned char *c = sqlite3_column_text(st, 1), *d = sqlite3_column_text(st, 2);
            *(q ? &A->verify_quick : &A->verify_full) = sec;
            snprintf(q ? A->verify_quick_info : A->verify_full_info, sizeof A->verify_full_info,
                     "the runner's own time of the last finished %srun that re-ran every claim, in %s (commit %s, finished %s); excludes "
                     "compiling and LaTeX; not re-measured by make bench",
                     q ? "QUICK=1 " : "", db, c ? (const char *)c : "?", d ? (const char *)d : "?");
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(s);
}

/* ------------------------------------------------------------ main */

static int usage_profile(void)
{
    fprintf(stderr, "usage: lemmata-bench --profile MODEL SIZE double|mpfr128|mpfr256 SECONDS\n");
    return 2;
}

/* --profile ID SIZE CTX SECONDS: steps in a loop, for perf */
static int profile(const char *id, int size, const char *ctxname, double secs)
{
    const bm_model *m = NULL;
    for (int i = 0; bm_models[i]; i++)
        if (!strcmp(bm_models[i]->id, id)) m = bm_models[i];
    if (!m) return usage_profile();
    bm_point pt = {size, size == m->paper_size && m->npaper ? 0 : -1};
    void *I = m->make(pt, seed_of(m, pt)), *J = I;
    if (!I) return 1;
    lm_ctx c = !strcmp(ctxname, "mpfr128") ? lm_ctx_mpfr(128) : lm_ctx_mpfr(256);
    if (strcmp(ctxname, "double")) J = m->convert(I, &c);
    if (!J) {
        fprintf(stderr, "%s runs in double only\n", id);
        m->free(I);
        return 1;
    }
    long k = 0;
    double t0 = bm_now();
    while (bm_now() - t0 < secs) {
        if (m->step(J)) m->reset(J);
        k++;
    }
    printf("%s %s=%d %s: %ld steps, %.3g s per step\n", id, m->xname, size, ctxname, k * per_call(m),
           (bm_now() - t0) / ((double)k * per_call(m)));
    if (J != I) m->free(J);
    m->free(I);
    return 0;
}

/* --audit DB: the audit section alone (bm_audit.c), its JSON on stdout; --rerun S re-runs the
 * slowest claims for their phases within S seconds (default 0: the database only); --run ID
 * reads that run, finished or not, instead of the last complete one */
static int audit_usage(void)
{
    fprintf(stderr, "usage: lemmata-bench --audit DB [--run ID] [--rerun SECONDS] [--tex FILE] [--figdir DIR]\n");
    return 2;
}

static int audit_mode(int argc, char **argv)
{
    const char *db = argv[2], *tex = NULL, *figdir = "figures";
    double cap = 0;
    long long run = -1;
    for (int k = 3; k < argc; k += 2) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        char *end = NULL;
        if (!v) return audit_usage();
        if (!strcmp(a, "--rerun")) {
            cap = strtod(v, &end);
            if (end == v || *end || !(cap >= 0 && cap <= 86400)) return audit_usage();
        } else if (!strcmp(a, "--run")) {
            run = strtoll(v, &end, 10);
            if (end == v || *end || run < 0) return audit_usage();
        } else if (!strcmp(a, "--tex")) tex = v;
        else if (!strcmp(a, "--figdir")) figdir = v;
        else return audit_usage();
    }
    bm_audit au;
    if (bm_audit_read_run(&au, db, run)) {
        /* asked for this database's audit: a missing, foreign or damaged one is an error here
         * (make bench only notes it in its section) */
        fprintf(stderr, "lemmata-bench: audit: %s\n", au.status);
        bm_audit_free(&au);
        return 1;
    }
    bm_audit_profile(&au, cap);
    bm_audit_json(stdout, &au);
    fputc('\n', stdout);
    int rc = 0;
    if (tex) {
        FILE *f = fopen(tex, "w");
        if (!f) {
            fprintf(stderr, "bench: cannot write %s\n", tex);
            rc = 1;
        } else {
            bm_audit_tex(f, &au, figdir);
            if (fclose(f)) rc = 1;
        }
    }
    bm_audit_free(&au);
    mpfr_free_cache();
    return rc;
}

static int usage(void)
{
    fprintf(stderr, "usage: lemmata-bench [--python PY] [--peers torch,numpy,mpmath] [--quick] [--json FILE] "
                    "[--tex FILE] [--figdir DIR] [--db FILE] [--peerdir DIR] [--keep]\n");
    return 2;
}

int main(int argc, char **argv)
{
    opts o = {"python3", "bench/peers", "results/bench.json", "report/bench.tex", "figures", "results/lemmata.db",
              {0, 0, 0}, 0, 0, ""};
    const char *peers = NULL;
    lm_proc_malloc_policy(); /* as every lemmata process runs */
    if (argc >= 2 && !strcmp(argv[1], "--profile"))
        return argc == 6 ? profile(argv[2], atoi(argv[3]), argv[4], atof(argv[5])) : usage_profile();
    if (argc >= 3 && !strcmp(argv[1], "--audit")) return audit_mode(argc, argv);
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (!strcmp(a, "--quick")) o.quick = 1;
        else if (!strcmp(a, "--keep")) o.keep = 1;
        else if (!v) return usage();
        else if (!strcmp(a, "--python")) o.py = v, k++;
        else if (!strcmp(a, "--peers")) peers = v, k++;
        else if (!strcmp(a, "--json")) o.json = v, k++;
        else if (!strcmp(a, "--tex")) o.tex = v, k++;
        else if (!strcmp(a, "--figdir")) o.figdir = v, k++;
        else if (!strcmp(a, "--db")) o.db = v, k++;
        else if (!strcmp(a, "--peerdir")) o.peerdir = v, k++;
        else return usage();
    }
    bm_all A;
    memset(&A, 0, sizeof A);
    double wall0 = bm_now();
    A.quick = o.quick;
    machine(&A);
    static const char *const pk[3] = {"torch", "numpy", "mpmath"};
    static const char *const deb[3] = {"python3-torch", "python3-numpy", "python3-mpmath"};
    for (int p = 0; p < 3; p++) {
        if (peers) { /* the Makefile checked (and said why a peer is skipped) */
            const char *s = strstr(peers, pk[p]);
            o.have[p] = s != NULL;
        } else {
            char cmd[512];
            snprintf(cmd, sizeof cmd, "'%s' -c 'import %s' >/dev/null 2>&1", o.py, pk[p]);
            o.have[p] = system(cmd) == 0;
        }
        if (!o.have[p]) {
            snprintf(A.peers_avail[p], sizeof A.peers_avail[p], "skipped: %s not installed (apt-get install %s)",
                     deb[p], deb[p]);
            if (!peers) /* else bench/peers/check.sh has said so */
                msg("skipping %s peer: %s not installed (apt-get install %s)\n", p ? pk[p] : "PyTorch", deb[p],
                    deb[p]);
        }
    }
    snprintf(o.tmp, sizeof o.tmp, "/tmp/lemmata-bench-XXXXXX");
    if (!mkdtemp(o.tmp)) {
        perror("bench: mkdtemp");
        return 1;
    }
    const int *lad = o.quick ? LADDER_QUICK : LADDER;
    const int nlad = o.quick ? 3 : 7;
    int nm = 0;
    while (bm_models[nm]) nm++;
    A.mr = calloc((size_t)nm, sizeof *A.mr);
    A.nm = nm;
    keep_iter **KI = calloc((size_t)nm, sizeof *KI);
    msg("bench: training steps (double, MPFR-128, MPFR-256), %d sizes, machine: %d x %s\n", nlad, A.nproc, A.cpu);
    for (int mi = 0; mi < nm; mi++) {
        const bm_model *m = bm_models[mi];
        bm_mres *mr = &A.mr[mi];
        mr->m = m;
        mr->nr = nlad + m->npaper;
        mr->r = calloc((size_t)mr->nr, sizeof *mr->r);
        KI[mi] = calloc((size_t)mr->nr, sizeof **KI);
        int stopped[BM_NCTX] = {0, 0, 0};
        int nl = 0;
        while (nl < nlad && (!m->max_size || lad[nl] <= m->max_size)) nl++;
        mr->nr = nl + m->npaper;
        for (int i = 0; i < mr->nr; i++) {
            bm_res *r = &mr->r[i];
            if (i < nl) {
                r->pt = (bm_point){lad[i], -1};
                r->size = lad[i];
                r->label = m->mark_size == lad[i] ? m->mark_label : NULL;
            } else {
                r->pt = (bm_point){m->paper_size, 0};
                r->size = m->paper_size;
                r->label = m->paper_label;
            }
            measure_point(r, m, &o, &KI[mi][i], stopped, mr);
        }
        fit_model(mr);
        msg("  (%s: %.0f s so far)\n", m->id, bm_now() - wall0);
    }
    msg("bench: 256-bit products and the MPFR replays\n");
    mpfr_t *Cmp[2] = {NULL, NULL}, *Rmp[2] = {NULL, NULL};
    int ncmp[2] = {0, 0}, nrmp[2] = {0, 0};
    products(&A, &o, Cmp, ncmp);
    replays(&A, &o, Rmp, nrmp);

    /* ---- the peers: one process per library over every job ---- */
    for (int p = 0; p < 3; p++) {
        if (!o.have[p]) continue;
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "'%s' '%s/peer.py' %s '%s' %s", o.py, o.peerdir, pk[p], o.tmp,
                 o.quick ? "--quick" : "");
        msg("bench: peer %s: %s\n", pk[p], cmd);
        double t0 = bm_now();
        int rc = system(cmd);
        msg("bench: peer %s done in %.1f s%s\n", pk[p], bm_now() - t0, rc ? " (exit status nonzero)" : "");
    }
    {
        char path[512];
        snprintf(path, sizeof path, "%s/versions.txt", o.tmp);
        /* each peer appends "lib version" lines */
        FILE *f = fopen(path, "r");
        if (f) {
            char line[256];
            size_t used = 0;
            while (fgets(line, sizeof line, f) && used + strlen(line) + 2 < sizeof A.pyver) {
                line[strcspn(line, "\n")] = 0;
                used += (size_t)snprintf(A.pyver + used, sizeof A.pyver - used, "%s%s", used ? "; " : "", line);
            }
            fclose(f);
        }
    }
    for (int mi = 0; mi < nm; mi++) {
        bm_mres *mr = &A.mr[mi];
        for (int i = 0; i < mr->nr; i++) {
            bm_res *r = &mr->r[i];
            keep_iter *ki = &KI[mi][i];
            for (int p = 0; p < BM_NPEER; p++) {
                bm_peer_res *P = &r->peer[p];
                P->agree = BM_NAN;
                if (!mr->m->peer) {
                    snprintf(P->status, sizeof P->status, "no peer for this model");
                    continue;
                }
                if (!o.have[p]) {
                    snprintf(P->status, sizeof P->status, "%s", A.peers_avail[p]);
                    continue;
                }
                if (!ki->it) {
                    snprintf(P->status, sizeof P->status, "not run: lemmata's double step failed here");
                    continue;
                }
                char path[600], why[160] = "";
                peer_out po;
                snprintf(path, sizeof path, "%s/%s.%s.out", o.tmp, ki->job, pk[p]);
                read_out(&po, path);
                if (!po.ok) {
                    snprintf(P->status, sizeof P->status, "%s", po.status);
                    continue;
                }
                snprintf(path, sizeof path, "%s/%s.%s.iter", o.tmp, ki->job, pk[p]);
                P->agree = compare_d(path, ki->it, ki->n, why, sizeof why);
                P->t = (bm_time){po.med, po.min, po.max, po.reps, po.steps, 1};
                if (!(P->agree <= TOL_DOUBLE)) {
                    if (isnan(P->agree))
                        snprintf(P->status, sizeof P->status, "mismatch: %s", why);
                    else
                        snprintf(P->status, sizeof P->status,
                                 "mismatch: final iterates differ by %.3g (relative) > %.0e", P->agree, TOL_DOUBLE);
                    P->t.ok = 0;
                    continue;
                }
                P->ok = 1;
                snprintf(P->status, sizeof P->status, "ok");
            }
        }
    }
    if (o.have[2]) {
        for (int q = 0; q < A.nprod; q++) {
            char path[600], why[160] = "";
            peer_out po;
            snprintf(path, sizeof path, "%s/mp_mul%d.mpmath.out", o.tmp, A.prod[q].n);
            read_out(&po, path);
            A.prod[q].agree = BM_NAN;
            if (!po.ok) {
                snprintf(A.prod[q].status, sizeof A.prod[q].status, "%s", po.status);
                continue;
            }
            snprintf(path, sizeof path, "%s/mp_mul%d.mpmath.iter", o.tmp, A.prod[q].n);
            A.prod[q].agree = compare_mp(path, Cmp[q], ncmp[q], why, sizeof why);
            A.prod[q].mpm = (bm_time){po.med, po.min, po.max, po.reps, 1, 1};
            if (A.prod[q].agree <= TOL_MP256) snprintf(A.prod[q].status, sizeof A.prod[q].status, "ok");
            else {
                A.prod[q].mpm.ok = 0;
                snprintf(A.prod[q].status, sizeof A.prod[q].status, "mismatch: %s%.3g > %.0e", why,
                         A.prod[q].agree, TOL_MP256);
            }
        }
        for (int q = 0; q < A.nrep; q++) {
            char path[600], why[160] = "";
            peer_out po;
            snprintf(path, sizeof path, "%s/mp_rep%d.mpmath.out", o.tmp, q);
            read_out(&po, path);
            A.rep[q].agree = BM_NAN;
            if (!po.ok) {
                snprintf(A.rep[q].status, sizeof A.rep[q].status, "%s", po.status);
                continue;
            }
            snprintf(path, sizeof path, "%s/mp_rep%d.mpmath.iter", o.tmp, q);
            A.rep[q].agree = compare_mp(path, Rmp[q], nrmp[q], why, sizeof why);
            A.rep[q].mpm = (bm_time){po.med, po.min, po.max, po.reps, po.steps, 1};
            if (A.rep[q].agree <= TOL_MP256) snprintf(A.rep[q].status, sizeof A.rep[q].status, "ok");
            else {
                A.rep[q].mpm.ok = 0;
                snprintf(A.rep[q].status, sizeof A.rep[q].status, "mismatch: %s%.3g > %.0e", why, A.rep[q].agree,
                         TOL_MP256);
            }
        }
    }
    verify_times(&A, o.db);
    if (bm_audit_read(&A.audit, o.db)) msg("bench: audit: %s\n", A.audit.status);
    else {
        int bt = openblas_get_num_threads();
        bm_audit_profile(&A.audit, o.quick ? 20 : 120);
        lm_mat_blas_threads(bt);
    }
    bm_vmath_run(o.quick); /* issue 21: bm_vmath.c */
    if (A.verify_full < 0) A.verify_full = BM_NAN;
    if (A.verify_quick < 0) A.verify_quick = BM_NAN;
    A.wall = bm_now() - wall0;
    int rc = 0;
    if (bm_write_json(&A, o.json)) rc = 1;
    if (bm_write_tex(&A, o.tex, o.figdir)) rc = 1;
    msg("bench: wrote %s and %s (%.0f s)\n", o.json, o.tex, A.wall);

    /* ---- cleanup ---- */
    if (!o.keep) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", o.tmp);
        if (system(cmd)) msg("bench: could not remove %s\n", o.tmp);
    } else {
        msg("bench: peer jobs kept in %s\n", o.tmp);
    }
    for (int q = 0; q < 2; q++) {
        if (Cmp[q]) {
            for (int i = 0; i < ncmp[q]; i++) mpfr_clear(Cmp[q][i]);
            free(Cmp[q]);
        }
        if (Rmp[q]) {
            for (int i = 0; i < nrmp[q]; i++) mpfr_clear(Rmp[q][i]);
            free(Rmp[q]);
        }
    }
    for (int mi = 0; mi < nm; mi++) {
        for (int i = 0; i < A.mr[mi].nr; i++) free(KI[mi][i].it);
        free(KI[mi]);
        free(A.mr[mi].r);
    }
    free(KI);
    free(A.mr);
    bm_audit_free(&A.audit);
    mpfr_free_cache();
    return rc;
}
