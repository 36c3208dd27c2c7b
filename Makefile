# mrfdp: PGXS build of the extension, plus the C unit tests and benchmarks.
EXTENSION = mrfdp
MODULE_big = mrfdp
# The version is written once, as default_version in mrfdp.control.  The
# current version's install script is assembled from sql/parts/ (one file per
# concern); released install scripts and every upgrade script
# (sql/mrfdp--A--B.sql) are checked in and installed as they are.  See the
# README, "Changing the SQL".
EXTVERSION := $(shell sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" $(EXTENSION).control)
DATA_built = sql/mrfdp--$(EXTVERSION).sql
DATA = $(filter-out $(DATA_built),$(wildcard sql/mrfdp--*.sql))

CORE_SRCS = $(wildcard src/core/*.c)
PG_SRCS = src/mrfdp.c $(wildcard src/pg/*/*.c)
OBJS = $(CORE_SRCS:.c=.o) $(PG_SRCS:.c=.o)

OPENBLAS_CFLAGS := $(shell pkg-config --cflags openblas 2>/dev/null)
OPENBLAS_LIBS := $(shell pkg-config --libs openblas 2>/dev/null || echo -lopenblas)

# oneDNN (Debian libdnnl-dev) supplies one of the Frank-Wolfe score kernels
# when it is installed (src/core/fwkernel.c); without it the others remain.
DNNL_CPPFLAGS := $(shell test -f /usr/include/dnnl.h && echo -DMRF_HAVE_DNNL)
DNNL_LIBS := $(if $(DNNL_CPPFLAGS),-ldnnl -lgomp)

PG_CPPFLAGS = -I$(srcdir)/src $(OPENBLAS_CFLAGS) $(DNNL_CPPFLAGS)
PG_CFLAGS = -O2 -fno-math-errno
SHLIB_LINK = $(OPENBLAS_LIBS) $(DNNL_LIBS) -lpthread -lm

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

# The numerical core is plain C that never relies on signed overflow
# wrapping; PostgreSQL's -fwrapv stops GCC from vectorising its integer and
# float loops (the Frank-Wolfe gradient weights ran 3x slower with it).
$(CORE_SRCS:.c=.o): CFLAGS += -fno-wrapv
# The Frank-Wolfe margins must come out bit-identical from the scalar, AVX2
# and AVX-512 paths (fwkernel.c): no multiply-add may be fused on one path
# and not on another.
$(CORE_SRCS:.c=.o): CFLAGS += -ffp-contract=off

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
# The throwaway clusters (pg_virtualenv) test the installed build, or a staged
# one with MRFDP_DESTDIR (scripts/pg_options.sh); their logs go to TEST_LOG.
TEST_LOG ?= results/test-logs
CONFIG ?= session_preload
.PHONY: ctest pgtap test-packaging test-stock test-session test-shared test-citus test
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
