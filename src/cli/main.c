/* main.c -- the lemmata command line: dispatches to the commands in src/cli/. */
#include "cli.h"

static const char usage[] =
    "usage: lemmata COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  list [--paper P]              one registered claim a line, id first\n"
    "  params ID                     the claim's named constants and switches\n"
    "  check ID... [options]         run checks and print verdicts\n"
    "      --prec BITS   first precision: 53 = double (default), up to 8192 = MPFR\n"
    "      --seed S      random seed (default 20241122)\n"
    "      --budget N    instances per configuration (default 64)\n"
    "      --quick       small budget (8)\n"
    "      --set k=v     override a named constant (repeatable)\n"
    "      --config C    only configuration C;  --instance K  only instance K\n"
    "      --size N=V    set the claim's size N (as in a shrunk counterexample; repeatable)\n"
    "      --round B     cut random draws to B significant bits;  --no-shrink  keep breaks as found\n"
    "      --json        one JSON object per claim per line\n"
    "      --strict      exit 1 when any claim is violated or inconsistent\n"
    "  tighten ID PARAM [--seed S] [--budget N] [--quick] [--set k=v]... [--config C]\n"
    "            [--rtol R] [--max-runs M] [--json]\n"
    "                                the sharpest value of constant PARAM with which the claim\n"
    "                                still passes on the same instances (bisection)\n"
    "  constants [--quick] [--paper P] [ID...]  sharpest value of every named constant (--help)\n"
    "  train RUN [--steps T] [--prec BITS] [--seed S] [--set k=v]... [--out FILE.csv]\n"
    "            [--drift BITS]      a live training run; `lemmata train` lists runs\n"
    "                                (dynamics paper, implicit-bias runs ib-*,\n"
    "                                mirror-descent runs md-*, attention-pruning runs pr-*,\n"
    "                                preconditioning runs pc-*);\n"
    "                                --drift repeats it wholly in MPFR and writes the drift\n"
    "  verify [--quick] [--seed S] [--budget N] [--db FILE] [--strict] [-j N] [--force]\n"
    "                                every claim -> results/lemmata.db -> report/lemmata.pdf;\n"
    "                                -j N worker processes (default: the cores); a claim whose\n"
    "                                file, library sources, seed and budget are unchanged since\n"
    "                                a stored result is not re-run unless --force;\n"
    "                                --only P: just the claims whose id starts with P\n"
    "  report [--db FILE]            rebuild report/lemmata.pdf from the database\n"
    "  --help, --version\n"
    "\n"
    "exit status: 0 when all checks ran (whatever the verdicts), 1 with --strict and a\n"
    "violated claim, 2 on bad usage or a missing tool.\n";

int main(int argc, char **argv)
{
    if (argc < 2) { fputs(usage, stderr); return 2; }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) { fputs(usage, stdout); return 0; }
    if (!strcmp(cmd, "--version")) {
        printf("lemmata %s (commit %s)\n%s\n", LM_VERSION, LM_COMMIT, lm_versions());
        return 0;
    }
    if (!strcmp(cmd, "list")) return lm_cmd_list(argc - 2, argv + 2);
    if (!strcmp(cmd, "params")) return lm_cmd_params(argc - 2, argv + 2);
    if (!strcmp(cmd, "check")) return lm_cmd_check(argc - 2, argv + 2);
    if (!strcmp(cmd, "tighten")) return lm_cmd_tighten(argc - 2, argv + 2);
    if (!strcmp(cmd, "constants")) return lm_cmd_constants(argc - 2, argv + 2);
    if (!strcmp(cmd, "train")) return lm_cmd_train(argc - 2, argv + 2);
    if (!strcmp(cmd, "verify")) return lm_cmd_verify(argc - 2, argv + 2);
    if (!strcmp(cmd, "report")) return lm_cmd_report(argc - 2, argv + 2);
    fprintf(stderr, "lemmata: unknown command '%s' (see: lemmata --help)\n", cmd);
    return 2;
}
