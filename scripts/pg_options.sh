#!/usr/bin/env bash
# Sourced by the scripts: PG_STAGED holds pg_virtualenv options that make a
# throwaway server load mrfdp from $MRFDP_DESTDIR (a staged install, so tests
# can run beside other builds without touching the system's), or nothing.
# MRFDP_SERVER_ENV names a pg_createcluster environment file (lines
# NAME = 'value') whose variables the throwaway server starts with: the way a
# sanitizer runtime reaches the postmaster (src/README.md, "Sanitizers"),
# since pg_ctlcluster starts it with that file's variables only.
PG_STAGED=()
if [ -n "${MRFDP_DESTDIR:-}" ]; then
	PG_STAGED=(-o "extension_destdir=$MRFDP_DESTDIR"
		-o "dynamic_library_path=$MRFDP_DESTDIR/usr/lib/postgresql/15/lib:\$libdir")
fi
if [ -n "${MRFDP_SERVER_ENV:-}" ]; then
	PG_STAGED+=(-c "--environment=$MRFDP_SERVER_ENV")
fi
# MRFDP_SERVER_LOG_DIR keeps the server's log (its stderr too, where sanitizer
# reports go) in that directory, one file a server: pg_dropcluster deletes the
# log pg_virtualenv gives it.
if [ -n "${MRFDP_SERVER_LOG_DIR:-}" ]; then
	PG_STAGED+=(-o logging_collector=on -o "log_directory=$MRFDP_SERVER_LOG_DIR"
		-o "log_filename=postgresql-%Y%m%d-%H%M%S.log")
fi
