/* registry.c -- finding claims and parsing their parameters. */
#include "lm_verify.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const lm_claim *lm_claim_find(const char *id)
{
    for (int k = 0; k < lm_registry_count; k++)
        if (strcmp(lm_registry[k]->id, id) == 0) return lm_registry[k];
    return NULL;
}

int lm_claim_param_index(const lm_claim *c, const char *name)
{
    for (int k = 0; c->params && c->params[k].name; k++)
        if (strcmp(c->params[k].name, name) == 0) return k;
    return -1;
}

int lm_claim_nconfigs(const lm_claim *c)
{
    int k = 0;
    if (!c->configs) return 1;
    while (c->configs[k]) k++;
    return k;
}

const char *lm_claim_config(const lm_claim *c, int k)
{
    return c->configs ? c->configs[k] : "default";
}

/* index of `v` in "a|b|c", or -1 */
static int choice_index(const char *choices, const char *v)
{
    int k = 0;
    size_t lv = strlen(v);
    const char *s = choices;
    while (*s) {
        const char *e = strchr(s, '|');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (l == lv && strncmp(s, v, l) == 0) return k;
        k++;
        if (!e) break;
        s = e + 1;
    }
    return -1;
}

int lm_claim_parse_set(const lm_claim *c, const char *kv, int *idx, double *val,
                       char *err, int errlen)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv || !eq[1]) {
        snprintf(err, (size_t)errlen, "malformed --set '%s' (expected name=value)", kv);
        return -1;
    }
    char name[128];
    size_t nl = (size_t)(eq - kv);
    if (nl >= sizeof name) nl = sizeof name - 1;
    memcpy(name, kv, nl);
    name[nl] = 0;
    int k = lm_claim_param_index(c, name);
    if (k < 0) {
        snprintf(err, (size_t)errlen, "claim %s has no parameter '%s' (see: lemmata params %s)",
                 c->id, name, c->id);
        return -1;
    }
    const char *v = eq + 1;
    if (c->params[k].choices) {
        int ci = choice_index(c->params[k].choices, v);
        if (ci < 0) {
            char *end;
            double dv = strtod(v, &end);
            if (*end == 0 && dv == floor(dv) && dv >= 0 &&
                choice_index(c->params[k].choices, "") < 0) {
                int n = 1;
                for (const char *s = c->params[k].choices; *s; s++) n += *s == '|';
                if (dv < n) ci = (int)dv;
            }
        }
        if (ci < 0) {
            snprintf(err, (size_t)errlen, "parameter %s of %s takes one of %s, not '%s'", name,
                     c->id, c->params[k].choices, v);
            return -1;
        }
        *idx = k;
        *val = ci;
        return 0;
    }
    char *end;
    errno = 0;
    double dv = strtod(v, &end);
    if (*end != 0 || errno == ERANGE || !isfinite(dv)) {
        snprintf(err, (size_t)errlen, "parameter %s of %s needs a finite number, not '%s'", name,
                 c->id, v);
        return -1;
    }
    *idx = k;
    *val = dv;
    return 0;
}
