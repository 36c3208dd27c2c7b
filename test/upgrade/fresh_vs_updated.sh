#!/usr/bin/env bash
# TAP: ALTER EXTENSION mrfdp UPDATE from every released version builds the
# catalog a fresh CREATE EXTENSION mrfdp builds: the same functions
# (signatures, bodies, attributes, ACLs), aggregates, types, tables, views,
# triggers, casts, comments and initial privileges (test/upgrade/catalog.sql
# lists them).  It fails when a change to sql/parts/ is missing from the
# upgrade script, or the reverse.  Released install scripts never change (a
# checksum each).  Run inside pg_virtualenv as a superuser:
# prove --exec bash test/upgrade/*.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
. test/dump/tap.bash

current=$(sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" mrfdp.control)
# Released install scripts, frozen: version and sha256 of the script.
released="0.1.0 6b6ccd81375e2133afe76a7a6ab856a2f612fe01ef6128f9967caeddd209bace"

echo "1..$((3 + 5 * $(echo "$released" | wc -l)))"

is "$(ls sql/mrfdp--*.sql | grep -v -- '--.*--' | grep -vc -- "--$current.sql")" \
	"$(echo "$released" | wc -l)" "every checked-in install script is a released version listed here"

fresh=mrfdp_upgrade_fresh
dropdb --if-exists $fresh 2>/dev/null
createdb $fresh
q $fresh "CREATE EXTENSION mrfdp" >"$work/fresh.log" 2>&1
is "$(q $fresh "SELECT extversion FROM pg_extension WHERE extname = 'mrfdp'")" "$current" \
	"a fresh install is default_version of mrfdp.control ($current)"
psql -X -q -v ON_ERROR_STOP=1 -d $fresh -f test/upgrade/catalog.sql >"$work/fresh.txt" 2>&1
is "$(q $fresh "SELECT string_agg(pg_describe_object(d.classid, d.objid, 0), ', ' ORDER BY 1)
	FROM pg_depend d
	WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
	  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'mrfdp')
	  AND d.classid IN ('pg_proc'::regclass, 'pg_type'::regclass, 'pg_class'::regclass,
						'pg_namespace'::regclass, 'pg_event_trigger'::regclass)
	  AND NOT (d.classid = 'pg_class'::regclass
			   AND (SELECT relkind FROM pg_class WHERE oid = d.objid) IN ('S', 'i'))
	  AND obj_description(d.objid, (SELECT relname FROM pg_class WHERE oid = d.classid)) IS NULL")" "" \
	"every function, aggregate, type, table, view, schema and event trigger has a description (missing:)"

while read -r version sum; do
	is "$(sha256sum sql/mrfdp--"$version".sql | cut -d' ' -f1)" "$sum" \
		"sql/mrfdp--$version.sql is the released $version, unchanged"
	db=mrfdp_upgrade_from_${version//./_}
	dropdb --if-exists "$db" 2>/dev/null
	createdb "$db"
	q "$db" "CREATE EXTENSION mrfdp VERSION '$version'" >"$work/$db.log" 2>&1
	is "$(q "$db" "SELECT extversion FROM pg_extension WHERE extname = 'mrfdp'")" "$version" \
		"installs $version"
	q "$db" "ALTER EXTENSION mrfdp UPDATE" >>"$work/$db.log" 2>&1
	ok $? "ALTER EXTENSION mrfdp UPDATE from $version" "$work/$db.log"
	is "$(q "$db" "SELECT extversion FROM pg_extension WHERE extname = 'mrfdp'")" "$current" \
		"updated to $current"
	psql -X -q -v ON_ERROR_STOP=1 -d "$db" -f test/upgrade/catalog.sql >"$work/$db.txt" 2>&1
	diff -u "$work/fresh.txt" "$work/$db.txt" >"$work/$db.diff"
	st=$?
	[ "$(wc -l <"$work/fresh.txt")" -gt 100 ] || st=1
	ok $st "$version + UPDATE has the catalog of a fresh $current ($(wc -l <"$work/fresh.txt") lines; diff: fresh, updated)" \
		"$work/$db.diff"
	dropdb "$db"
done <<<"$released"
dropdb $fresh
