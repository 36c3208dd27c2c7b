#!/usr/bin/env bash
# Sourced by the scripts: PG_STAGED holds pg_virtualenv options that make a
# throwaway server load mrfdp from $MRFDP_DESTDIR (a staged install, so tests
# can run beside other builds without touching the system's), or nothing.
PG_STAGED=()
if [ -n "${MRFDP_DESTDIR:-}" ]; then
	PG_STAGED=(-o "extension_destdir=$MRFDP_DESTDIR"
		-o "dynamic_library_path=$MRFDP_DESTDIR/usr/lib/postgresql/15/lib:\$libdir")
fi
