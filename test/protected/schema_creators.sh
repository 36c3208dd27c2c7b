#!/usr/bin/env bash
# TAP: mrfdp.protect() warns when a role other than the schema's owner may
# CREATE in the extension's schema, or in a schema the search_path puts
# before it (the trojan overload, PostgreSQL's CVE-2018-1058 pattern;
# docs/ledger.md's threat model), naming the schema and the roles and
# hinting the REVOKE; and stays quiet when only the owner (or a role with
# its rights, or a superuser) may, or the schema comes after mrfdp's.  A
# script, not pgTAP: a WARNING cannot be caught in SQL, so the client's
# messages are read here.  The budget is set either way.
# Run inside pg_virtualenv as a superuser: prove --exec bash test/protected/*.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
. test/dump/tap.bash

echo "1..14"
db=mrfdp_schema_creators
dropdb --if-exists $db 2>/dev/null
for r in sc_creator sc_owner sc_member; do dropuser --if-exists $r 2>/dev/null; done
createdb $db
q $db "CREATE EXTENSION mrfdp" >"$work/setup.log" 2>&1
ok $? "mrfdp installs" "$work/setup.log"
q $db "CREATE ROLE sc_creator; CREATE ROLE sc_owner; CREATE ROLE sc_member IN ROLE sc_owner;
	   CREATE SCHEMA sc_before AUTHORIZATION sc_owner; CREATE SCHEMA sc_after;
	   CREATE TABLE t (a int); CREATE TABLE u (a int)" >>"$work/setup.log" 2>&1
ok $? "roles, schemas and tables" "$work/setup.log"

# protect SQL [SEARCH_PATH]: protect() after SQL, the client's messages in $work/msg
protect() {
	psql -X -q -v ON_ERROR_STOP=1 -d $db -c "$1" -c "SET search_path = ${2:-public}" \
		-c "SELECT mrfdp.protect('public.t', epsilon => 1, delta => 1e-6)" >"$work/out" 2>"$work/msg"
}
warnings() { grep -c '^WARNING:' "$work/msg"; }

# a fresh PostgreSQL 15 database: only the database's owner (a superuser here) creates in public
protect "SELECT 1"
ok $? "protect() runs"
is "$(warnings)" 0 "no warning when only the schema's owner may create in mrfdp's schema"

protect "GRANT CREATE ON SCHEMA public TO PUBLIC"
is "$(warnings)" 1 "one warning when PUBLIC may create in mrfdp's schema"
grep -q 'WARNING:  every role (PUBLIC) may create objects in schema "public", where mrfdp'"'"'s functions are' "$work/msg"
ok $? "it names PUBLIC and the schema" "$work/msg"
grep -q 'HINT:  REVOKE CREATE ON SCHEMA public FROM PUBLIC' "$work/msg"
ok $? "and hints the REVOKE" "$work/msg"
is "$(q $db "SELECT epsilon FROM mrfdp.budget WHERE relation = 'public.t'::regclass")" 1 \
	"the budget is set all the same"

protect "REVOKE CREATE ON SCHEMA public FROM PUBLIC; GRANT CREATE ON SCHEMA public TO sc_creator"
grep -q 'WARNING:  role sc_creator may create objects in schema "public"' "$work/msg" &&
	grep -q 'HINT:  REVOKE CREATE ON SCHEMA public FROM sc_creator' "$work/msg"
ok $? "a role granted CREATE on mrfdp's schema is named, with its REVOKE" "$work/msg"

# a schema before mrfdp's on the search_path: its owner and the owner's members are trusted
protect "REVOKE CREATE ON SCHEMA public FROM sc_creator" "sc_before, public"
is "$(warnings)" 0 "no warning for a schema before mrfdp's where only its owner and the owner's members create"

protect "GRANT CREATE ON SCHEMA sc_before TO sc_creator" "sc_before, public"
is "$(warnings)" 1 "one warning when another role may create in a schema before mrfdp's"
grep -q 'WARNING:  role sc_creator may create objects in schema "sc_before", which the search_path puts before mrfdp' "$work/msg"
ok $? "naming that schema and role" "$work/msg"

# a schema after mrfdp's does not shadow its functions
protect "GRANT CREATE ON SCHEMA sc_after TO PUBLIC" "public, sc_after"
is "$(warnings)" 0 "no warning for a schema after mrfdp's on the search_path"

# every protect() warns, not only the first
protect "GRANT CREATE ON SCHEMA public TO PUBLIC"
psql -X -q -d $db -c "SELECT mrfdp.protect('public.u', epsilon => 1, delta => 1e-6)" >"$work/out" 2>"$work/msg2"
grep -q 'WARNING:  every role (PUBLIC) may create' "$work/msg" && grep -q 'WARNING:  every role (PUBLIC) may create' "$work/msg2"
ok $? "a budget changed, and another relation protected, warn again" "$work/msg2"

dropdb $db
for r in sc_creator sc_member sc_owner; do dropuser --if-exists $r 2>/dev/null; done
