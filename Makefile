# lemmata -- make verify | make test | make report | make clean
# One configuration point: CFLAGS/LDLIBS below.  SAN=1 builds with ASan/UBSan.

CC      ?= cc
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
WARN    := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wdouble-promotion -Wno-unused-parameter
ifeq ($(SAN),1)
  CFLAGS += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
  BUILD ?= build-san
else
  BUILD ?= build
endif
CPPFLAGS += -Iinclude
LDLIBS  := -lflint-arb -lflint -lgsl -lopenblas -lmpfr -lgmp -lsqlite3 -ljansson -lsleef -lm

# The core (src/, include/) knows no paper; each paper is one folder lemmas/<paper>/ (its
# claim files at the top, its model/, kit/ and runs/ below) with its tests in tests/<paper>/.
LIB_SRC    ?= $(wildcard src/num/*.c src/linalg/*.c src/sys/*.c src/attn/*.c src/live/*.c \
                src/verify/*.c src/store/*.c src/report/*.c)
LEMMA_SRC  ?= $(wildcard lemmas/*/*.c lemmas/*/*/*.c)
TEST_SRC   ?= $(wildcard tests/*.c tests/*/*.c)
CLI_SRC    := $(wildcard src/cli/*.c)
# lists given on the command line as $(ls ...) may hold newlines
override LIB_SRC   := $(strip $(LIB_SRC))
override LEMMA_SRC := $(strip $(LEMMA_SRC))
override TEST_SRC  := $(strip $(TEST_SRC))
LIB_OBJ    := $(LIB_SRC:%.c=$(BUILD)/%.o) $(LEMMA_SRC:%.c=$(BUILD)/%.o) $(BUILD)/registry.o
TEST_OBJ   := $(TEST_SRC:%.c=$(BUILD)/%.o)

ifeq ($(SAN),1)
  BIN ?= bin/lemmata-san
  TBIN ?= bin/test_lemmata-san
else
  BIN ?= bin/lemmata
  TBIN ?= bin/test_lemmata
endif

VERIFY_FLAGS :=
ifeq ($(QUICK),1)
  VERIFY_FLAGS += --quick
endif
ifdef SEED
  VERIFY_FLAGS += --seed $(SEED)
endif
ifeq ($(FORCE),1)
  VERIFY_FLAGS += --force
endif
ifdef JOBS
  VERIFY_FLAGS += -j $(JOBS)
endif

.PHONY: all deps verify test report clean san FORCE
all: deps $(BIN)

deps:
	@sh tools/deps.sh

# regenerated on every build, replaced only when the set of claims changed
$(BUILD)/registry.c: FORCE
	@mkdir -p $(BUILD)
	@sh tools/gen_registry.sh $(LEMMA_SRC) > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

FORCE:

$(BUILD)/registry.o: $(BUILD)/registry.c
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -c $< -o $@

# the commit recorded with every result: regenerated on every build
$(BUILD)/commit.c: FORCE
	@mkdir -p $(BUILD)
	@c=$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown); \
	 git diff --quiet HEAD -- 2>/dev/null || c="$$c+dirty"; \
	 echo "const char lm_commit[] = \"$$c\";" > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(BUILD)/commit.o: $(BUILD)/commit.c
	$(CC) $(CFLAGS) -c $< -o $@

# what every result depends on besides its own claim file (incremental verify re-runs a claim
# when one of these or its claim file changed): the core's sources and headers, and its own
# paper folder's non-claim files (tools/gen_srchash.sh).  The weave (src/report/, lm_report.h)
# only reads results, so editing it re-weaves but re-runs nothing.
HASHED_SRC := $(sort $(filter-out src/report/%,$(LIB_SRC)) \
                $(filter-out include/lm_report.h,$(wildcard include/*.h))) data/costs.tsv
$(BUILD)/srchash.c: FORCE
	@mkdir -p $(BUILD)
	@sh tools/gen_srchash.sh $(HASHED_SRC) > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(BUILD)/srchash.o: $(BUILD)/srchash.c
	$(CC) $(CFLAGS) -c $< -o $@

# the reference cost of every claim and live run (data/costs.tsv, tools/gen_costs.sh)
$(BUILD)/costs.c: data/costs.tsv tools/gen_costs_c.sh
	@mkdir -p $(BUILD)
	@sh tools/gen_costs_c.sh data/costs.tsv > $@.tmp && mv $@.tmp $@

$(BUILD)/costs.o: $(BUILD)/costs.c
	$(CC) $(CFLAGS) -c $< -o $@

# An object of paper P (lemmas/P/... or tests/P/...) sees include/ and P's own folders, never
# another paper's; tests see tests/ (test_support.h).  Dependencies on headers are the ones the
# compiler reports (-MMD): editing a header rebuilds the objects that include it.
pathw      = $(subst /, ,$1)
paper_inc  = $(if $(and $(filter lemmas tests,$(word 1,$(call pathw,$1))),$(word 3,$(call pathw,$1))),\
               $(addprefix -I,$(wildcard lemmas/$(word 2,$(call pathw,$1)) lemmas/$(word 2,$(call pathw,$1))/*/)))
test_inc   = $(if $(filter tests,$(word 1,$(call pathw,$1))),-Itests)
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(call paper_inc,$<) $(call test_inc,$<) $(WARN) $(CFLAGS) -MMD -MP -c $< -o $@

# the templates of `lemmata new` (src/cli/templates/*.in), embedded as C strings
$(BUILD)/templates.c: $(wildcard src/cli/templates/*.in) tools/gen_templates.sh
	@mkdir -p $(BUILD)
	@sh tools/gen_templates.sh $(wildcard src/cli/templates/*.in) > $@.tmp && mv $@.tmp $@

$(BUILD)/templates.o: $(BUILD)/templates.c
	$(CC) $(CFLAGS) -c $< -o $@

$(BIN): $(LIB_OBJ) $(CLI_SRC:%.c=$(BUILD)/%.o) $(BUILD)/commit.o $(BUILD)/srchash.o $(BUILD)/costs.o $(BUILD)/templates.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(TBIN): $(LIB_OBJ) $(TEST_OBJ) $(BUILD)/commit.o $(BUILD)/srchash.o $(BUILD)/costs.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS) -lcriterion
# make bench's audit section is a function over a database: the tests link it (test_bench_audit.c)
$(TBIN): $(BUILD)/bench/bm_audit.o $(BUILD)/bench/bm_util.o

# The main job: every registered claim, the database and the PDF.
# BUDGET=64,256,1024 SEEDS=1..3: one run per budget and seed, then one weave (tools/verify-ladder.sh)
verify: deps $(BIN)
	@mkdir -p results report figures
	@sh tools/verify-ladder.sh ./$(BIN) "$(BUDGET)" "$(SEEDS)" $(VERIFY_FLAGS)

report: deps $(BIN)
	./$(BIN) report

test: deps $(BIN) $(TBIN)
	sh tools/check_layout.sh
	LEMMATA_BIN=$(BIN) ./$(TBIN) --jobs 2

san:
	$(MAKE) SAN=1 bin/lemmata-san bin/test_lemmata-san && LSAN_OPTIONS=suppressions=$(CURDIR)/tools/lsan.supp:print_suppressions=0 LEMMATA_BIN=bin/lemmata-san ./bin/test_lemmata-san --jobs 2

# lemmata new end to end in a fresh clone of HEAD (tools/check_new.sh; CI runs it)
.PHONY: check-new
check-new: deps
	sh tools/check_new.sh

clean:
	rm -rf build build-san bin figures/*.gp figures/*.dat figures/*.pdf figures/*.stamp report/lemmata.tex report/build report/*.aux report/*.log report/*.fls report/*.fdb_latexmk

# ---- constant slack (issue 7): `lemmata tighten` on every named constant of every claim,
# stored in the table `constants` of results/lemmata.db; `make report` then shows the
# "Constant slack" section.  Quick budget by default; QUICK=0 bisects at the full budget
# (about 8x longer); SEED=... as for make verify (the report matches rows by seed).
CONSTANTS_FLAGS := $(if $(filter 0,$(QUICK)),,--quick) $(if $(SEED),--seed $(SEED))
.PHONY: constants
constants: deps $(BIN)
	@mkdir -p results
	./$(BIN) constants $(CONSTANTS_FLAGS)

# ---- make bench: training-step throughput against PyTorch, numpy and mpmath
# (bench/README.md).  Writes results/bench.json, report/bench.tex and
# figures/bench_*.pdf.  The peers run under Debian's python3 (where
# python3-torch, python3-numpy and python3-mpmath install); a missing one is
# installed when run as root (BENCH_INSTALL=0: never) or else skipped with a
# message.  QUICK=1: a short ladder.
BENCH_SRC := $(wildcard bench/*.c)
BENCH_OBJ := $(BENCH_SRC:%.c=$(BUILD)/%.o)
BENCH_BIN ?= $(BUILD)/lemmata-bench
BENCH_PY  ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
# the bench measures every paper's model: it sees all their folders
$(BENCH_OBJ): bench/bm.h
$(BENCH_OBJ): CPPFLAGS += $(addprefix -I,$(wildcard lemmas/*/*/))
$(BENCH_BIN): $(LIB_OBJ) $(BENCH_OBJ) $(BUILD)/commit.o $(BUILD)/srchash.o $(BUILD)/costs.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)
.PHONY: bench
bench: deps $(BENCH_BIN)
	@mkdir -p results report figures
	@peers=$$(sh bench/peers/check.sh $(BENCH_PY)); \
	 ./$(BENCH_BIN) --python $(BENCH_PY) --peers "$$peers" $(if $(filter 1,$(QUICK)),--quick,)

# ---- make fuzz: the hostile-input sweep (tools/fuzz.c) under the ASan/UBSan build:
# every claim x every parameter x {0, -1, 1, max, max+1, 1e300, NaN, "abc"} and every
# size x {0, -1, 1, max, max+1, 100000}; out-of-range values must be refused, in-range
# ones must run (first instance of each configuration, quick) without a signal, a
# sanitizer report or going over FUZZ_TIMEOUT seconds.  It first checks every value of every
# claim at parse time (--no-run, a second), then runs the in-range ones.  FUZZ_ONLY=dynamics/
# (or several prefixes) narrows the runs; a full sweep takes about 40 minutes on 2 cores.
FUZZ_BIN ?= $(BUILD)/lemmata-fuzz
FUZZ_TIMEOUT ?= 120
$(FUZZ_BIN): $(LIB_OBJ) $(BUILD)/tools/fuzz.o $(BUILD)/commit.o $(BUILD)/srchash.o $(BUILD)/costs.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)
.PHONY: fuzz fuzz-plain
fuzz: deps
	$(MAKE) SAN=1 build-san/lemmata-fuzz
	ASAN_OPTIONS=detect_leaks=0 ./build-san/lemmata-fuzz --no-run
	ASAN_OPTIONS=detect_leaks=0 ./build-san/lemmata-fuzz --timeout $(FUZZ_TIMEOUT) -j 2 $(FUZZ_ONLY)
fuzz-plain: deps $(FUZZ_BIN)
	./$(FUZZ_BIN) --timeout $(FUZZ_TIMEOUT) -j 2 $(FUZZ_ONLY)

# make verify-slurm SHARDS=N, make test-slurm (docs/slurm.md)
include mk/slurm.mk

# the header dependencies the compiler wrote (-MMD)
-include $(wildcard $(BUILD)/*/*.d $(BUILD)/*/*/*.d $(BUILD)/*/*/*/*.d)
