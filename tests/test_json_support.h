/* test_json_support.h -- JSON files in a Criterion test (Jansson; apart from test_support.h,
 * whose users may define names Jansson takes). */
#ifndef LM_TEST_JSON_SUPPORT_H
#define LM_TEST_JSON_SUPPORT_H

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>

/* a JSON file's root (the caller releases it) / written with one-space indents; the test
 * fails when it cannot be read or written */
static inline json_t *lm_test_json_load(const char *path)
{
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    cr_assert_not_null(j, "%s: %s", path, e.text);
    return j;
}

static inline void lm_test_json_save(const json_t *j, const char *path)
{
    cr_assert_eq(json_dump_file(j, path, JSON_INDENT(1)), 0, "cannot write %s", path);
}

/* a copy of the JSON file `from` changed by edit, written as dir/name into path; returns path */
typedef void (*lm_test_json_edit)(json_t *root);
static inline const char *lm_test_json_variant(char *path, size_t n, const char *dir, const char *from,
                                               const char *name, lm_test_json_edit edit)
{
    json_t *j = lm_test_json_load(from);
    edit(j);
    snprintf(path, n, "%s/%s", dir, name);
    lm_test_json_save(j, path);
    json_decref(j);
    return path;
}

#endif
