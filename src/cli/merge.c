/* merge.c -- `lemmata merge OUT.db SHARD.db...`: the shards of one `verify --shard K/N` plan,
 * each run on its own (a Slurm array task, another machine), made into one finished run of
 * OUT.db, as if one `verify` had run everything.
 *
 * Nothing is written unless every check passes, and each refusal is one line naming the file:
 *   - a shard that cannot be read (missing, damaged, not a lemmata database);
 *   - a file whose newest run is not a shard, or did not finish (re-run that shard);
 *   - shards that differ in commit, library versions, seed, budget, precision, quick flag,
 *     selection (--only), shard count or plan (the weights the shards were balanced with);
 *   - a shard given twice or missing, an item in two shards or in none, an item this
 *     lemmata does not know;
 *   - shards made by another commit than this lemmata (its claims decide what is complete).
 * The merged run copies every claim, configuration and live run with its fingerprint (a later
 * `verify` into OUT reuses them), every constant's slack, and a row per shard (host, seconds,
 * file) for the report's provenance.  Merging the same shards again finds the earlier merge
 * by its key (a hash of what identifies each shard run) and writes nothing. */
#include "cli.h"
#include "lm_constants.h"
#include "lm_rng.h"

#include <string.h>

static int by_k(const void *a, const void *b)
{
    const lm_shard_info *x = a, *y = b;
    return (x->k > y->k) - (x->k < y->k);
}

static int by_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_shards(lm_shard_info *sh, int n)
{
    for (int k = 0; k < n; k++) lm_shard_info_clear(&sh[k]);
    free(sh);
}

/* one refusal line, exit 2 */
static int refuse(lm_shard_info *sh, int n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(lm_shard_info *sh, int n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("lemmata: merge: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    free_shards(sh, n);
    return LM_EXIT_USAGE;
}

/* the first field in which b differs from a: its name and both values, or 0 */
static int differs(const lm_shard_info *a, const lm_shard_info *b, char *what, size_t n)
{
    const lm_run_meta *x = &a->meta, *y = &b->meta;
#define TEXT_FIELD(F, NAME)                                                                  \
    if (strcmp(x->F, y->F)) {                                                                \
        snprintf(what, n, "%s ('%.200s' in %.400s, '%.200s' in %.400s)", NAME, x->F, a->path, y->F, b->path); \
        return 1;                                                                            \
    }
#define INT_FIELD(V, NAME)                                                                              \
    if ((a->V) != (b->V)) {                                                                             \
        snprintf(what, n, "%s (%lld in %.400s, %lld in %.400s)", NAME, (long long)(a->V), a->path, (long long)(b->V), \
                 b->path);                                                                              \
        return 1;                                                                                       \
    }
    TEXT_FIELD(commit, "commit")
    TEXT_FIELD(versions, "library versions")
    INT_FIELD(meta.seed, "seed")
    INT_FIELD(meta.budget, "budget")
    INT_FIELD(meta.prec, "precision")
    INT_FIELD(meta.quick, "quick flag")
    TEXT_FIELD(selection, "selection (--only)")
    INT_FIELD(n, "shard count")
    TEXT_FIELD(plan, "shard plan (balanced with other --weights)")
#undef TEXT_FIELD
#undef INT_FIELD
    return 0;
}

/* what identifies the merge: every shard run, in K order */
static void merge_key(char key[24], const lm_shard_info *sh, int n)
{
    uint64_t h = lm_hash_u64(0x6d65726765ULL, (uint64_t)n);
    for (int k = 0; k < n; k++) {
        const lm_shard_info *s = &sh[k];
        h = lm_hash_str(h, s->meta.shard);
        h = lm_hash_str(h, s->meta.commit);
        h = lm_hash_str(h, s->meta.plan);
        h = lm_hash_str(h, s->meta.date);
        h = lm_hash_str(h, s->finished_date);
        h = lm_hash_str(h, s->meta.host);
        h = lm_hash_u64(h, s->meta.seed);
        h = lm_hash_u64(h, (uint64_t)s->nitems);
        for (int j = 0; j < s->nitems; j++) h = lm_hash_str(h, s->items[j]);
    }
    snprintf(key, 24, "%016llx", (unsigned long long)h);
}

/* copies the slack rows of shard s's claims (its seed, budget and quick flag) into OUT */
static int copy_constants(lm_constdb *out, const lm_shard_info *s, long *copied)
{
    lm_constant_row *rows = NULL;
    int nr = 0;
    char err[600];
    if (lm_constdb_load(s->path, s->meta.seed, s->meta.budget, s->meta.quick, &rows, &nr, err, sizeof err)) {
        fprintf(stderr, "lemmata: merge: %s\n", err);
        return -1;
    }
    int rc = 0;
    for (int k = 0; !rc && k < nr; k++) {
        char item[300];
        snprintf(item, sizeof item, "claim %s", rows[k].claim_id);
        char *key = item;
        if (!bsearch(&key, s->items, (size_t)s->nclaims, sizeof *s->items, by_str)) continue;
        rc = lm_constdb_copy(out, &rows[k]);
        *copied += !rc;
    }
    free(rows);
    return rc;
}

int lm_cmd_merge(int argc, char **argv)
{
    for (int k = 0; k < argc; k++)
        if (lm_cli_is_help(argv[k])) return lm_cli_help("merge");
    int nowait = 0, first = 0;
    if (argc > 0 && !strcmp(argv[0], "--no-wait")) nowait = 1, first = 1;
    for (int k = first; k < argc; k++)
        if (argv[k][0] == '-')
            return die_usage("merge: unknown option '%s' (see: lemmata merge --help)", argv[k]);
    if (argc - first < 2) return die_usage("%s", "merge: give the output database and at least one shard: "
                                                 "lemmata merge OUT.db SHARD.db...");
    const char *out = argv[first];
    int n = argc - first - 1;
    char **paths = argv + first + 1;
    struct stat so;
    int have_out = stat(out, &so) == 0;
    for (int k = 0; k < n; k++) {
        struct stat sk;
        if (!strcmp(paths[k], out) ||
            (have_out && stat(paths[k], &sk) == 0 && sk.st_dev == so.st_dev && sk.st_ino == so.st_ino))
            return die_usage("merge: %s is both the output and a shard", paths[k]);
    }
    lm_shard_info *sh = calloc((size_t)n, sizeof *sh);
    if (!sh) {
        fprintf(stderr, "lemmata: merge: out of memory\n");
        return LM_EXIT_FAILED;
    }
    /* each shard on its own: readable, a shard, finished */
    for (int k = 0; k < n; k++) {
        char err[700];
        if (lm_store_shard_info(paths[k], &sh[k], err, sizeof err))
            return refuse(sh, n, "%s", err);
        if (sh[k].run < 0) return refuse(sh, n, "%s holds no run: not a shard (run: lemmata verify --shard K/N)", paths[k]);
        if (sh[k].k < 0)
            return refuse(sh, n, "%s: its newest run (%lld) is not a shard (made by verify without --shard)", paths[k],
                          sh[k].run);
        if (!sh[k].finished)
            return refuse(sh, n, "%s: shard %s did not finish (run %lld is unfinished): run its verify --shard %s again",
                          paths[k], sh[k].meta.shard, sh[k].run, sh[k].meta.shard);
    }
    /* one plan: the same settings everywhere, each K once */
    for (int k = 1; k < n; k++) {
        char what[1600];
        if (differs(&sh[0], &sh[k], what, sizeof what)) return refuse(sh, n, "shards differ in %s", what);
    }
    if (strcmp(sh[0].meta.commit, LM_COMMIT))
        return refuse(sh, n, "the shards were made by commit %s, this lemmata is %s: merge with the lemmata that ran them",
                      sh[0].meta.commit, LM_COMMIT);
    qsort(sh, (size_t)n, sizeof *sh, by_k);
    const int N = sh[0].n;
    for (int k = 1; k < n; k++)
        if (sh[k].k == sh[k - 1].k)
            return refuse(sh, n, "shard %s is given twice (%s and %s)", sh[k].meta.shard, sh[k - 1].path, sh[k].path);
    if (n != N) {
        int want = 0;
        for (int k = 0; k < n && sh[k].k == want; k++) want++;
        return refuse(sh, n, "shard %d/%d is missing (%d of %d given)", want, N, n, N);
    }
    /* every item of the selection in exactly one shard */
    char **names = NULL;
    int ni = lm_sched_items(sh[0].meta.selection[0] ? sh[0].meta.selection : NULL, &names);
    if (ni < 0) {
        free_shards(sh, n);
        fprintf(stderr, "lemmata: merge: out of memory\n");
        return LM_EXIT_FAILED;
    }
    int *seen = calloc((size_t)(ni ? ni : 1), sizeof *seen);
    if (!seen) {
        lm_sched_items_free(names, ni);
        free_shards(sh, n);
        fprintf(stderr, "lemmata: merge: out of memory\n");
        return LM_EXIT_FAILED;
    }
    qsort(names, (size_t)ni, sizeof *names, by_str);
    char bad[1200] = "";
    for (int k = 0; k < n && !bad[0]; k++)
        for (int j = 0; j < sh[k].nitems && !bad[0]; j++) {
            char **hit = bsearch(&sh[k].items[j], names, (size_t)ni, sizeof *names, by_str);
            if (!hit)
                snprintf(bad, sizeof bad, "%s: %s is not among the items this lemmata runs for the selection", sh[k].path,
                         sh[k].items[j]);
            else if (seen[hit - names])
                snprintf(bad, sizeof bad, "%s is in two shards (%d/%d and %s)", sh[k].items[j], seen[hit - names] - 1, N,
                         sh[k].meta.shard);
            else
                seen[hit - names] = sh[k].k + 1;
        }
    int missing = 0;
    for (int j = 0; j < ni; j++) missing += !seen[j];
    if (!bad[0] && missing)
        for (int j = 0; j < ni; j++)
            if (!seen[j]) {
                snprintf(bad, sizeof bad, "%s is in no shard (%d item%s missing: a shard stopped early?)", names[j],
                         missing, missing == 1 ? "" : "s");
                break;
            }
    free(seen);
    lm_sched_items_free(names, ni);
    if (bad[0]) return refuse(sh, n, "%s", bad);
    /* the output: one writer at a time, and merging the same shards twice is a no-op */
    int prc = lm_cli_check_regular(out, "database");
    if (prc) {
        free_shards(sh, n);
        return prc;
    }
    char err[700];
    struct stat sb;
    if (stat(out, &sb) == 0 && lm_store_check(out, err, sizeof err)) return refuse(sh, n, "%s", err);
    if (lm_cli_lock(out, "merge", nowait) < 0) {
        free_shards(sh, n);
        return LM_EXIT_USAGE;
    }
    lm_store *st = lm_store_open(out, err, sizeof err);
    if (!st) return refuse(sh, n, "%s", err);
    char key[24];
    merge_key(key, sh, n);
    long long done = lm_store_find_merge(st, key);
    if (done != 0) {
        lm_store_close(st);
        free_shards(sh, n);
        if (done < 0) return LM_EXIT_FAILED;
        printf("these %d shards are already merged in %s as run %lld: nothing to do\n", N, out, done);
        return 0;
    }
    /* the slack rows first (keyed by claim, seed and budget: copying them again is harmless),
     * then the run in one transaction: a merge killed in between leaves no run, and the next
     * one does it all */
    lm_constdb *cdb = lm_constdb_open(out, err, sizeof err);
    long nconst = 0;
    int crc = cdb ? 0 : -1;
    if (!cdb) fprintf(stderr, "lemmata: merge: %s\n", err);
    for (int k = 0; cdb && !crc && k < n; k++) crc = copy_constants(cdb, &sh[k], &nconst);
    lm_constdb_close(cdb);
    if (crc) {
        lm_store_close(st);
        free_shards(sh, n);
        fprintf(stderr, "lemmata: merge: the constants' slack could not be copied into %s (no run was merged)\n", out);
        return LM_EXIT_FAILED;
    }
    long long run = lm_store_merge(st, sh, n, key);
    lm_store_close(st);
    if (run < 0) {
        free_shards(sh, n);
        fprintf(stderr, "lemmata: merge: could not write %s (nothing was merged)\n", out);
        return LM_EXIT_FAILED;
    }
    long claims = 0, live = 0;
    double longest = 0, total = 0;
    for (int k = 0; k < n; k++) {
        claims += sh[k].nclaims;
        live += sh[k].nlive;
        if (sh[k].seconds > longest) longest = sh[k].seconds;
        if (sh[k].seconds > 0) total += sh[k].seconds;
    }
    printf("merged %d shard%s (%ld claims, %ld live runs, %ld constants' slack) into %s as run %lld; "
           "longest shard %.1f s, all shards %.1f s\n",
           N, N == 1 ? "" : "s", claims, live, nconst, out, run, longest, total);
    free_shards(sh, n);
    return 0;
}
