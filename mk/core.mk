# Compiler and BLAS flags of the numerical core (src/core), shared by the
# extension's Makefile, the C unit tests (test/c) and the benchmarks (bench).
# The includer sets MRF_TOP, the path from its directory to the repository.
MRF_CORE_DIR = $(MRF_TOP)/src/core
MRF_CORE_SRCS = $(wildcard $(MRF_CORE_DIR)/*.c)
MRF_CORE_HDRS = $(wildcard $(MRF_CORE_DIR)/*.h)

# OpenBLAS for the dense products.
MRF_BLAS_CFLAGS := $(shell pkg-config --cflags openblas 2>/dev/null)
MRF_BLAS_LIBS := $(shell pkg-config --libs openblas 2>/dev/null || echo -lopenblas)

# oneDNN (Debian libdnnl-dev) supplies one of the Frank-Wolfe score kernels
# when it is installed (src/core/fwkernel.c); without it the others remain.
MRF_DNNL_CPPFLAGS := $(shell test -f /usr/include/dnnl.h && echo -DMRF_HAVE_DNNL)
MRF_DNNL_LIBS := $(if $(MRF_DNNL_CPPFLAGS),-ldnnl -lgomp)

# What the core's objects are compiled with, wherever they are compiled:
# - the Frank-Wolfe margins must come out bit-identical from the scalar,
#   AVX2 and AVX-512 paths (fwkernel.c): no multiply-add may be fused on one
#   path and not on another (-ffp-contract=off);
# - the core never relies on signed overflow wrapping; PostgreSQL's -fwrapv
#   stops GCC from vectorising its integer and float loops (the Frank-Wolfe
#   gradient weights ran 3x slower with it), so the core turns it off.
MRF_CORE_CFLAGS = -fno-wrapv -ffp-contract=off

MRF_LIBS = $(MRF_BLAS_LIBS) $(MRF_DNNL_LIBS) -lpthread -lm
