/* eval_priv.h -- runner-private state behind an lm_eval. */
#ifndef LM_EVAL_PRIV_H
#define LM_EVAL_PRIV_H
#include "lm_claim.h"
#include <stddef.h>

typedef struct { char *buf; size_t len, cap; } lm_sb;
void lm_sb_init(lm_sb *s);
void lm_sb_free(lm_sb *s);
void lm_sb_printf(lm_sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *lm_sb_take(lm_sb *s);

/* size overrides of the shrinker or of `check --size` */
typedef struct {
    int n;
    const char *name[16];
    int val[16];
    unsigned used; /* bit k: override k was asked for */
} lm_size_ov;

/* an exact state of a trajectory claim (lm_state_keep / lm_state_get) */
#define LM_STATE_MAX 8
typedef struct {
    char name[48];
    int r, c;
    mpfr_t *v; /* r*c values, row-major, each at the precision that holds it exactly */
} lm_state_item;
typedef struct lm_state {
    int t;          /* the iterate */
    int n;
    lm_state_item item[LM_STATE_MAX];
    char err[160];  /* why a value could not be kept ("": none) */
} lm_state;
void lm_state_free(lm_state *s);

struct lm_eval_priv {
    lm_rng rng;
    long nobs;
    double worst_log10;
    int worst_t;
    char worst_where[160];
    int broke, near, first_break_t;
    int last_near_t;        /* latest iterate of a near miss (-1: none or untimed) */
    int near_untimed;       /* a near miss outside a trajectory (t < 0) */
    int break_untimed;      /* a break outside a trajectory (t < 0) */
    int failed, assume_failed, not_checkable;
    int vacuous;            /* lm_vacuous: held only because the hypothesis is not met */
    char why_vacuous[240];
    /* lm_rate_judge found the horizon too short: the instance is not-checkable unless one of
     * its other observations broke (a real break stands; a pass does not) */
    int rate_short;
    /* the observation being recorded is a fitted rate judged in double (lm_rate_judge): its
     * break needs no MPFR replay -- rounding moves a fitted slope far less than its standard
     * error -- and sets rate_broke, not broke */
    int in_rate, rate_broke;
    char why_rate[240];
    double mutate_scale;    /* --mutate scale=F: every right-hand side times F (1: none) */
    int mutate_flip;        /* --mutate flip: every inequality reversed */
    int flip_broke;         /* some observation held strictly: b > a(1+tol), so the flipped
                               inequality b <= a(1+tol) breaks (the flip mutant, measured for free) */
    int cert_broke;         /* in a ball context: some observation broke for every point of its balls */
    char why[400];
    lm_sb measures, series;
    char axes[160];
    lm_size_ov *ov;         /* NULL: the claim's own sizes */
    lm_sb sizes;            /* "name\tvalue\tmin\tmax\n", one line per name asked for */
    char size_err[160];     /* an override outside its size's range ("" if none) */
    int want_data;
    lm_sb data;             /* lm_data_* output */
    /* check --export / --instances (instances.c): the instance whose input data this
     * evaluation reads from a file or captures, and whose worst sides it keeps (NULL: none) */
    struct lm_inst_rec *io;
    lm_state *state_keep;        /* the runner wants the state at state_keep->t (NULL: no) */
    const lm_state *state_given; /* the certifying evaluation's state (NULL: a normal run) */
    /* the observation profile (lm_run_opts.profile): observation j's label skeleton (a hash,
     * lm_result.h) at prof_key[j] and its log10 ratio at prof[j], for j < LM_PROF_MAX;
     * prof_over when the instance recorded more */
    unsigned long long *prof_key;
    double *prof;
    int prof_over;
    /* instance-scoped values (lm_inst_mat, lm_inst_num), freed by lm_eval_priv_release */
    void **tmp;
    unsigned char *tmp_is_num;
    int ntmp, captmp;
};

/* frees the instance-scoped values of p (after the claim's eval returned) */
void lm_eval_priv_release(struct lm_eval_priv *p);

#endif
