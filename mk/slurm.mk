# mk/slurm.mk -- lemmata verify on a Slurm cluster (docs/slurm.md); included by the Makefile.
#
#   make verify-slurm SHARDS=64 [QUICK=1] [SEED=S] [BUDGET=B] [JOBS=J] [PARTITION=P]
#        [TIME=T] [ACCOUNT=A] [SBATCH_OPTS='...'] [DB=FILE] [OUT_DIR=DIR] [WEIGHTS=FILE|none]
#       submits the shards as one job array and a merge-and-report job after them
#       (tools/slurm/verify-slurm.sh); the merged run goes to DB (results/lemmata.db), the
#       PDF to report/lemmata.pdf as with make verify.
#   make test-slurm [REF_DB=results/lemmata.db]
#       the end-to-end test on a throwaway single-node cluster (tests/slurm/test_slurm.sh;
#       root, installs slurmctld, slurmd, slurm-client and munge when missing).
#
# Each setting given to make is handed to the script shell-quoted, so values with spaces or
# quotes (SBATCH_OPTS) arrive as they were typed; settings not given stay unset and the script
# picks its defaults.

SLURM_VARS := SHARDS PARTITION TIME ACCOUNT SBATCH_OPTS QUICK SEED BUDGET JOBS DB OUT_DIR WEIGHTS
# NAME='value' for each variable set on the command line or in the environment
slurm_env = $(foreach v,$(1),$(if $(filter undefined default,$(origin $(v))),,$(v)='$(subst ','\'',$($(v)))'))

.PHONY: verify-slurm test-slurm
verify-slurm: $(BIN)
	@$(call slurm_env,$(SLURM_VARS)) LEMMATA='$(subst ','\'',$(BIN))' bash tools/slurm/verify-slurm.sh

test-slurm: $(BIN)
	$(call slurm_env,REF_DB) LEMMATA='$(subst ','\'',$(BIN))' bash tests/slurm/test_slurm.sh
