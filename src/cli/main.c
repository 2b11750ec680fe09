/* main.c -- the lemmata command line: dispatches to the commands in src/cli/, and holds the
 * usage text (all of it for `lemmata --help`, one command's for `lemmata CMD --help`). */
#include "cli.h"
#include "lm_proc.h"
#include <fcntl.h>

/* one command's usage: its synopsis line(s) and options, as `lemmata --help` lists them */
static const struct {
    const char *cmd;
    const char *text;
} sections[] = {
    {"papers", "papers                        every paper: its id, claim count, folder, catalogue name, title\n"},
    {"list",
     "list [--paper P]              one registered claim a line, id first; P is a paper's id\n"
     "                                (mypaper), claim-id prefix (mypaper/) or catalogue name\n"
     "                                (as its claims cite it): `lemmata papers` lists them\n"},
    {"params",
     "params ID                     the claim's configurations (reading, instances at budget 64\n"
     "                                and 8, what each tests) and its named constants and switches;\n"
     "                                instances per configuration = round(budget x the claim's\n"
     "                                inst_scale), at least 1, plus budget/16 (1 below 32)\n"
     "                                adversarial-search ones where the claim's search applies\n"},
    {"check",
     "check ID... [options]         run checks and print verdicts (ID may be PAPER/: all its claims)\n"
     "      --prec BITS   first precision: 53 = double (default), up to 8192 = MPFR\n"
     "      --seed S      random seed, a non-negative integer (default 20241122)\n"
     "      --budget N    instances per configuration, 1..100000 (default 64)\n"
     "      --quick       small budget (8, unless --budget is given)\n"
     "      --set k=v     override a named constant (repeatable; the last one counts)\n"
     "      --config C    only configuration C;  --instance K  only instance K (0..count-1)\n"
     "      --size N=V    set the claim's size N (as in a shrunk counterexample; repeatable)\n"
     "      --round B     cut random draws to B significant bits;  --no-shrink  keep breaks as found\n"
     "      --mutate M    check a mutant: scale=F (every right-hand side times F) or flip\n"
     "                    (every inequality reversed); both may be given\n"
     "      --export DIR  also write every judged instance (seed, sizes, parameters, input\n"
     "                    data, outcome; exact numbers) to DIR/<id, / as __>.json (DIR is\n"
     "                    created when missing); docs/instances.md has the format\n"
     "      --instances FILE  judge exactly the instances of FILE (one claim; an export or\n"
     "                    another tool's), by the same rules: MPFR replay, escalation,\n"
     "                    certification; no draws, no search, no shrinking; its budget,\n"
     "                    quick, seed and precision are the file's\n"
     "      --json        one JSON object per claim per line: numbers with 17 significant\n"
     "                    digits; \"counterexample\": the worst violated configuration's\n"
     "                    (shrunk) instance and its reproduce command, or null; per\n"
     "                    configuration \"tests\": the sentence saying what it tests;\n"
     "                    \"phases\": the seconds by phase (random, search, replay,\n"
     "                    escalation, certify, shrink, other), per claim and configuration\n"
     "      --strict      exit 1 when any claim is violated or inconsistent\n"
     "                                a claim that cannot run is reported on stderr, the\n"
     "                                others still run, and the exit status is 3\n"},
    {"tighten",
     "tighten ID PARAM [--seed S] [--budget N] [--quick] [--set k=v]... [--config C]\n"
     "            [--rtol R] [--max-runs M] [--json]   (--json: numbers with 17 digits)\n"
     "                                the sharpest value of constant PARAM with which the claim\n"
     "                                still passes on the same instances (bisection); PARAM\n"
     "                                must be one of the claim's constants (`lemmata constants\n"
     "                                --list ID`), not a switch, size or run length; one\n"
     "                                progress line per claim run on stderr\n"},
    {"mutate",
     "mutate ID... | --paper P | --all [--quick] [--seed S] [--budget N] [--cheap] [--json]\n"
     "                                P as in `lemmata list --paper`;\n"
     "                                the standard mutants of each claim (right-hand side scaled\n"
     "                                to half its worst ratio, inequality flipped, each constant\n"
     "                                moved past its sharpest value, each exponent +-1) run on\n"
     "                                the same instances: killed = violated or inconsistent;\n"
     "                                --cheap reads scale/flip off the claim's run and moves\n"
     "                                constants 16-fold (as make verify does)\n"},
    {"constants", "constants [--quick] [--paper P] [ID...]  sharpest value of every named constant (--help)\n"},
    {"train",
     "train RUN [--steps T] [--prec BITS] [--seed S] [--set k=v]... [--drift BITS]\n"
     "          [--csv | --out FILE.csv] [--data FILE] [--init FILE]\n"
     "          [--iterates FILE [--every K]] [--export-data FILE] [--export-init FILE]\n"
     "                                a live training run; `lemmata train` lists every\n"
     "                                paper's runs and the settings --set takes;\n"
     "                                --drift repeats it wholly in MPFR and writes the drift;\n"
     "                                a summary goes to standard error (the run, its steps and\n"
     "                                step size, the loss first -> last and whether it rose);\n"
     "                                the CSV is written only when asked: --csv to standard\n"
     "                                output, or --out FILE, written whole or not at all (a\n"
     "                                temporary .FILE.XXXXXX beside it, renamed into place);\n"
     "                                --out replaces only a regular file, never a symbolic\n"
     "                                link, device or directory;\n"
     "                                runs exchangeable with other tools (docs/train-io.md,\n"
     "                                JSON with exact numbers): --data/--init start the run\n"
     "                                from given data and W(0), --iterates writes every\n"
     "                                (every K-th, and the last) iterate, --export-data/\n"
     "                                --export-init write the run's own start in that form\n"
     "                                and run nothing; a malformed file is refused (exit 2)\n"
     "                                naming the field, before anything runs or is written\n"},
    {"verify",
     "verify [--quick] [--seed S] [--budget N] [--db FILE] [--out-dir DIR] [--strict]\n"
     "       [-j N] [--force] [--only P] [--no-report] [--no-wait] [--no-mutants]\n"
     "       [--shard K/N [--weights DB]]\n"
     "                                every claim -> results/lemmata.db -> report/lemmata.pdf;\n"
     "                                each claim's check strength is measured on its standard\n"
     "                                mutants (lemmata mutate --cheap) unless --no-mutants;\n"
     "                                -j N worker processes (default: the cores); a claim whose\n"
     "                                file, library sources, seed and budget are unchanged since\n"
     "                                a stored result is not re-run unless --force;\n"
     "                                --only P: just the claims whose id starts with P;\n"
     "                                --no-report: store the results only, weave no PDF\n"
     "                                (pdflatex and gnuplot are then not needed);\n"
     "                                --shard K/N: only the K-th (0..N-1) of N disjoint parts\n"
     "                                of the work, balanced by the seconds each item took in\n"
     "                                the newest finished run of --weights DB (else equal\n"
     "                                weights); no report (lemmata merge joins the shards);\n"
     "                                a claim or live run that cannot run is reported, the\n"
     "                                rest still run, and the exit status is 3\n"},
    {"merge",
     "merge [--no-wait] OUT.db SHARD.db...\n"
     "                                the shards of one `verify --shard K/N` plan (every K once, run\n"
     "                                anywhere) made into one finished run of OUT.db (created when\n"
     "                                missing), as if one verify had run it all; refused, nothing\n"
     "                                written, when a shard did not finish, is given twice or is\n"
     "                                missing, an item is in two shards or none, or the shards\n"
     "                                differ in commit, versions, seed, budget, precision or plan;\n"
     "                                merging the same shards again writes nothing; then\n"
     "                                lemmata report --db OUT.db (docs/slurm.md: on a cluster)\n"},
    {"new",
     "new PAPER                     a new paper folder lemmas/PAPER/ (paper.c, an example claim)\n"
     "                                and tests/PAPER/ (its wrong-constant test); run it at the\n"
     "                                top of the source tree, then make\n"
     "new PAPER/CLAIM [--kind K] [--title T]\n"
     "                                a new claim lemmas/PAPER/CLAIM.c from the template of kind\n"
     "                                K = pointwise (default), identity, trajectory or rate, and\n"
     "                                its wrong-constant test tests/PAPER/test_CLAIM.c; nothing\n"
     "                                existing is ever overwritten (docs/authoring.md)\n"},
    {"report",
     "report [--db FILE] [--out-dir DIR] [--no-wait] [--run N]\n"
     "                                rebuild the report from the database: report/lemmata.pdf\n"
     "                                (the reviewer's edition, no code), lemmata-code.pdf (the\n"
     "                                code of every claim, cross-linked) and report/PAPER.pdf\n"
     "                                per paper (its code in an appendix); each claim shows its\n"
     "                                latest stored result, whatever run holds it (a verify\n"
     "                                --only P replaces P's results and keeps the rest);\n"
     "                                --run N weaves run N alone\n"},
};
#define NSECTIONS ((int)(sizeof sections / sizeof sections[0]))

static const char files_text[] =
    "files: verify and report use DIR/results/lemmata.db and write DIR/report/lemmata.pdf and\n"
    "DIR/figures/, DIR being --out-dir (default: the current directory).  With --db FILE and no\n"
    "--out-dir, report/ and figures/ go beside the results: in the parent of FILE's directory\n"
    "when that directory is named `results`, else in FILE's directory.  Directories are created\n"
    "as needed.  One verify or report at a time per database: a second one says \"another\n"
    "verify is running on FILE (pid N); waiting\" and waits (lock file FILE.lock), or with\n"
    "--no-wait exits 2.\n";

static const char exit_text[] =
    "exit status:\n"
    "  0    the command did its work (check, verify: every check ran, whatever the verdicts)\n"
    "  1    --strict, and a claim came out violated or inconsistent\n"
    "  2    usage error: unknown command, option, claim, run or parameter; a malformed or\n"
    "       out-of-range value; a missing tool (pdflatex, gnuplot); a database, directory or\n"
    "       --out file that cannot be used; another verify holds the database (--no-wait)\n"
    "  3    the work could not be completed: a check or live run that could not run or failed\n"
    "       numerically, an output that could not be written (disk full, file size limit),\n"
    "       out of memory\n"
    "  130  interrupted (SIGINT/SIGTERM); finished work is saved\n";

static void full_usage(FILE *f)
{
    fputs("usage: lemmata COMMAND [options]      (lemmata COMMAND --help: one command)\n\ncommands:\n", f);
    for (int k = 0; k < NSECTIONS; k++) fprintf(f, "  %s", sections[k].text);
    fputs("  --help, --version\n\n", f);
    fputs(files_text, f);
    fputs("\n", f);
    fputs(exit_text, f);
}

int lm_cli_help(const char *cmd)
{
    for (int k = 0; k < NSECTIONS; k++)
        if (!strcmp(sections[k].cmd, cmd)) {
            printf("usage: lemmata %s", sections[k].text);
            if (!strcmp(cmd, "verify") || !strcmp(cmd, "report")) printf("\n%s", files_text);
            printf("\n%s", exit_text);
            return 0;
        }
    full_usage(stdout);
    return 0;
}

/* a closed standard descriptor is reopened on /dev/null (read-only: writes to it fail and are
 * reported), so no file the command opens can land on it */
static void sane_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int n = open("/dev/null", O_RDONLY);
            if (n >= 0 && n != fd) {
                dup2(n, fd);
                close(n);
            }
        }
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        full_usage(stderr);
        return LM_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (lm_cli_is_help(cmd) || !strcmp(cmd, "help")) {
        if (argc > 2 && strcmp(cmd, "help") == 0) return lm_cli_help(argv[2]);
        full_usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("lemmata %s (commit %s)\n%s\n", LM_VERSION, LM_COMMIT, lm_versions());
        return 0;
    }
    /* list and params (info.c) take no --help of their own */
    if (!strcmp(cmd, "list") || !strcmp(cmd, "params"))
        for (int k = 2; k < argc; k++)
            if (lm_cli_is_help(argv[k])) return lm_cli_help(cmd);
    if (!strcmp(cmd, "papers")) return lm_cmd_papers(argc - 2, argv + 2);
    if (!strcmp(cmd, "new")) return lm_cmd_new(argc - 2, argv + 2);
    if (!strcmp(cmd, "list")) return lm_cmd_list(argc - 2, argv + 2);
    if (!strcmp(cmd, "params")) return lm_cmd_params(argc - 2, argv + 2);
    if (!strcmp(cmd, "check")) return lm_cmd_check(argc - 2, argv + 2);
    if (!strcmp(cmd, "tighten")) return lm_cmd_tighten(argc - 2, argv + 2);
    if (!strcmp(cmd, "constants")) return lm_cmd_constants(argc - 2, argv + 2);
    if (!strcmp(cmd, "mutate")) return lm_cmd_mutate(argc - 2, argv + 2);
    if (!strcmp(cmd, "train")) return lm_cmd_train(argc - 2, argv + 2);
    if (!strcmp(cmd, "verify")) return lm_cmd_verify(argc - 2, argv + 2);
    if (!strcmp(cmd, "report")) return lm_cmd_report(argc - 2, argv + 2);
    if (!strcmp(cmd, "merge")) return lm_cmd_merge(argc - 2, argv + 2);
    char shown[80];
    fprintf(stderr, "lemmata: unknown command '%s' (see: lemmata --help)\n", lm_cli_shown(shown, sizeof shown, cmd));
    return LM_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    /* one BLAS thread in every command: a result must not depend on how many threads a
     * reduction was split over, so `check`, `verify -j 1` and `verify -j N` agree bit for bit */
    lm_mat_blas_threads(1);
    lm_proc_malloc_policy();
    sane_std_fds();
    /* past a file size limit a write fails with EFBIG (reported, exit 3) instead of killing us */
    signal(SIGXFSZ, SIG_IGN);
    lm_cli_stdout_init();
    return lm_cli_stdout_finish(dispatch(argc, argv));
}
