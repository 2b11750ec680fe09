/* tests/tutorial/test_train.c -- the tutorial paper's live run: `lemmata train` lists tut-gd,
 * `lemmata train tut-gd --steps 5` writes its CSV, and the live entry of `lemmata verify` draws it. */
#include "test_support.h"
#include "lm_paper.h"

Test(tutorial, train_tut_gd_writes_csv)
{
    char out[8192];
    cr_assert_eq(lm_test_cli(out, sizeof out, "train"), 0, "%s", out);
    cr_expect_not_null(strstr(out, "tut-gd"), "lemmata train does not list tut-gd:\n%s", out);
    cr_assert_eq(lm_test_cli(out, sizeof out, "train tut-gd --steps 5 --csv"), 0, "%s", out);
    cr_expect_not_null(strstr(out, "iterate,loss,grad_norm\n0,"), "no CSV header:\n%s", out);
    cr_expect_not_null(strstr(out, "\n5,"), "no iterate 5:\n%s", out);
    cr_expect_null(strstr(out, "\n6,"), "more than 5 steps:\n%s", out);
    cr_expect_neq(lm_test_cli(out, sizeof out, "train tut-gd --set eta=3"), 0, "eta=3 accepted:\n%s", out);
}

/* the live entry of lemmata verify: a figure of the loss and a one-line summary */
Test(tutorial, live_entry_draws_the_loss)
{
    const lm_paper *p = lm_paper_find("tutorial");
    cr_assert_not_null(p);
    cr_assert_not_null(p->live_name);
    cr_assert_str_eq(p->live_name(0), "tut-gd");
    cr_assert_null(p->live_name(1));
    lm_live L;
    char err[256] = "";
    cr_assert_eq(p->live_run(&L, 0, 1, 20241122, err, sizeof err), 0, "%s", err);
    cr_expect_not_null(L.series);
    cr_expect_not_null(strstr(L.series, "loss"), "%s", L.series);
    cr_expect_not_null(L.summary);
    cr_expect_eq(L.steps, 50);
    lm_live_clear(&L);
}
