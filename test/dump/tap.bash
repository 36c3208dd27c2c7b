# TAP helpers shared by the dump tests (sourced; not *.sh, so prove does not run it).

# ok STATUS DESCRIPTION [LOG]: a failure shows the log on stderr
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && [ -f "$3" ] && sed 's/^/#  /' "$3" >&2
	fi
	return 0
}

# is GOT WANT DESCRIPTION
is() {
	n=$((n + 1))
	if [ "$1" == "$2" ]; then
		echo "ok $n - $3"
	else
		echo "not ok $n - $3"
		# diagnostics on stderr, which prove shows without -v
		printf '#   got: %s\n#  want: %s\n' "$1" "$2" | sed 's/^\([^#]\)/#        \1/' >&2
	fi
}

# q DB SQL: one query, unaligned, tuples only; errors to stderr
q() {
	psql -X -q -A -t -v ON_ERROR_STOP=1 -d "$1" -c "$2"
}
