# mrfdp: PGXS build of the extension, plus the C unit tests and benchmarks.
EXTENSION = mrfdp
MODULE_big = mrfdp
# The version is written once, as default_version in mrfdp.control.  The
# current version's install script is assembled from sql/parts/ (one file per
# concern); released install scripts and every upgrade script
# (sql/mrfdp--A--B.sql) are checked in and installed as they are.  See the
# src/README.md, "Changing the SQL".
EXTVERSION := $(shell sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" $(EXTENSION).control)
DATA_built = sql/mrfdp--$(EXTVERSION).sql
DATA = $(filter-out $(DATA_built),$(wildcard sql/mrfdp--*.sql))

MRF_TOP = .
include mk/core.mk
CORE_SRCS = $(MRF_CORE_SRCS)
PG_SRCS = src/mrfdp.c $(wildcard src/pg/*.c src/pg/*/*.c)
OBJS = $(CORE_SRCS:.c=.o) $(PG_SRCS:.c=.o)

PG_CPPFLAGS = -I$(srcdir)/src $(MRF_BLAS_CFLAGS) $(MRF_DNNL_CPPFLAGS)
PG_CFLAGS = -O2 -fno-math-errno
SHLIB_LINK = $(MRF_LIBS)

# SANITIZE=1: UBSan (with float-to-integer casts, which GCC leaves out of
# -fsanitize=undefined) and ASan, for running the SQL suites against an
# instrumented server (src/README.md, "Sanitizers"; make clean before and
# after).  -fno-wrapv: PostgreSQL's -fwrapv would make a signed overflow in
# the glue wrap silently, out of UBSan's sight.  No JIT bitcode.
ifdef SANITIZE
MRF_SANITIZE = -fsanitize=address,undefined,float-cast-overflow \
	-fno-sanitize-recover=undefined,float-cast-overflow
PG_CFLAGS = -O1 -g -fno-omit-frame-pointer -fno-math-errno -fno-wrapv $(MRF_SANITIZE)
PG_LDFLAGS = $(MRF_SANITIZE)
override with_llvm = no
endif

# pg_regress tests: test/regress/sql/<name>.sql against
# test/regress/expected/<name>.out.
REGRESS = $(patsubst test/regress/sql/%.sql,%,$(wildcard test/regress/sql/*.sql))
REGRESS_OPTS = --inputdir=test/regress --load-extension=mrfdp

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

sql/mrfdp--$(EXTVERSION).sql: $(sort $(wildcard sql/parts/*.sql))
	cat $^ > $@

# Header dependencies: each object lists the headers it included (-MMD), and
# a removed header does not break the build (-MP).  Only the compiler's
# objects write them; the bitcode rule (clang, CPPFLAGS) would overwrite them.
$(OBJS): CFLAGS += -MMD -MP
-include $(OBJS:.o=.d)
EXTRA_CLEAN = $(OBJS:.o=.d)

# The core's own flags (mk/core.mk), after PostgreSQL's.
$(CORE_SRCS:.c=.o): CFLAGS += $(MRF_CORE_CFLAGS)

# Tests.  test/run_all_tests.sh runs every target below (as root on Debian 12,
# after installing packages and building); each also runs alone.
#   make installcheck    pg_regress (test/regress/) against a running
#                        server; a stock one will do (the tests LOAD mrfdp)
#   make ctest           the core's C unit tests (no server)
#   make test-packaging  META.json, LICENSE, every pgTAP file names its
#                        configuration (no server)
#   make pgtap CONFIG=c  the pgTAP files of configuration c (session_preload,
#                        no_preload, shared_preload, pg_cron; test/pgtap.sh)
#                        against a running server so configured, database
#                        $PGDATABASE (default mrfdp_tap) with pgtap and mrfdp
#   make test-stock      installcheck in a throwaway stock cluster
#   make test-session    throwaway cluster, mrfdp in session_preload_libraries
#                        and pg_cron: pg_regress, pgTAP (session, no preload,
#                        pg_cron), dump and upgrade tests
#   make test-shared     throwaway cluster, mrfdp in shared_preload_libraries
#   make test-citus      a Citus coordinator and two workers (test/citus)
#   make test            all of them
#   make check-subject S=<subject>
#                        one subject alone: S=regress (pg_regress in a stock
#                        cluster), S=c (make ctest), S=packaging, S=citus, S=cron
#                        (the session configuration, where the pg_cron
#                        scenario runs), S=fuzz (test/fuzz/run_fuzz.sh, 30 s
#                        a target; installs clang-14), or any test/<subject>/ (its pgTAP
#                        files in throwaway clusters of the configurations
#                        they name, and its TAP scripts)
# The throwaway clusters (pg_virtualenv) test the installed build, or a staged
# one with MRFDP_DESTDIR (scripts/pg_options.sh); their logs go to TEST_LOG.
TEST_LOG ?= results/test-logs
CONFIG ?= session_preload
.PHONY: ctest pgtap test-packaging test-stock test-session test-shared test-citus test check-subject
ctest:
	$(MAKE) -C test/c check
pgtap:
	test/pgtap.sh $(CONFIG)
test-packaging:
	prove --exec bash test/packaging/*.sh
test-stock test-session test-shared:
	test/run_cluster.sh $(patsubst test-%,%,$@) $(TEST_LOG)
test-citus:
	mkdir -p $(TEST_LOG) && test/citus/run_citus_tests.sh $(TEST_LOG)/prove-citus.txt
test: ctest test-packaging test-stock test-session test-shared test-citus
check-subject:
	@test -n "$(S)" || { echo "usage: make check-subject S=<subject> (a folder of test/, or regress, c)"; exit 2; }
	@case "$(S)" in \
		regress) $(MAKE) -s test-stock ;; \
		c) $(MAKE) -s ctest ;; \
		packaging) $(MAKE) -s test-packaging ;; \
		citus) $(MAKE) -s test-citus ;; \
		cron) $(MAKE) -s test-session ;; \
		fuzz) test/fuzz/run_fuzz.sh 30 ;; \
		*) test -d test/$(S) || { echo "no subject test/$(S)"; exit 2; }; \
			mkdir -p $(TEST_LOG) && MRFDP_SUBJECT=$(S) test/run_cluster.sh subject $(TEST_LOG) ;; \
	esac

# PGXN: META.json is META.json.in with EXTVERSION filled in, so the version
# stays written once; `make dist` zips the tree at HEAD with META.json and
# the built install script added (what PGXN's clients download).
META.json: META.json.in $(EXTENSION).control
	sed 's/@EXTVERSION@/$(EXTVERSION)/g' $< > $@

.PHONY: dist
dist: META.json sql/$(EXTENSION)--$(EXTVERSION).sql
	git archive --format zip --prefix=$(EXTENSION)-$(EXTVERSION)/sql/ \
		--add-file=sql/$(EXTENSION)--$(EXTVERSION).sql \
		--prefix=$(EXTENSION)-$(EXTVERSION)/ --add-file=META.json \
		-o $(EXTENSION)-$(EXTVERSION).zip HEAD
