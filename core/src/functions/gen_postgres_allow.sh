#!/usr/bin/env bash
# gen_postgres_allow.sh: regenerate data/postgres_allow.txt from pg_proc of a real PostgreSQL.
#
#   core/src/functions/gen_postgres_allow.sh [OUTPUT]     (default: data/postgres_allow.txt)
#
# Starts a throwaway cluster with scripts/pg-cluster.sh (PG_BINDIR picks the server version),
# queries pg_proc, writes the list, stops the cluster. The output is deterministic for a given
# server version. Rules (also written into the header of the generated file):
#
#  1. Candidates: every function name in schema pg_catalog with prokind f (normal), a (aggregate)
#     or w (window) whose overloads are ALL immutable or stable (provolatile i/s). A name with any
#     volatile overload is out (e.g. ts_rewrite(tsquery, text) runs a query given as text).
#  2. Plumbing out: names whose every overload is type I/O or support machinery callers never
#     call by name: referenced by pg_type (typinput/typoutput/typreceive/typsend/typmodin/
#     typmodout/typanalyze/typsubscript) or by pg_aggregate (transition/final/combine/serial
#     functions), or taking/returning a pseudo-type SQL cannot supply (internal, cstring, trigger,
#     event_trigger, *_handler). Operator implementations (int4pl, jsonb_exists ...) are kept:
#     harmless, and some are called by name on purpose.
#  3. Default deny for pg_*: every name starting with pg_ is out (admin, statistics, WAL,
#     replication, locks, files, catalog lookups by OID/name), except the short keep list below.
#     This is the simplest sound rule: pg_* is where PostgreSQL puts everything that reaches
#     outside the query.
#  4. Explicit deny (DENY below, glob patterns): functions that read files, other sessions,
#     settings, sequences, large objects, whole tables/queries given by name or as text,
#     privileges/catalog entries by name or OID, or that reveal server internals or the role.
#     Applied to every name, including the additions.
#  5. Additions: harmless volatile functions (random, clock_timestamp, gen_random_uuid ...),
#     functions of newer servers (random_normal, pg_input_is_valid ...) and SQL-standard
#     keyword forms that sqlparser renders as function calls (coalesce, current_date, trim ...).
#  6. Syntax-level names (SYNTAX below): sqlparser renders ROW(...), ARRAY(subquery) and the
#     SQL-standard session functions CURRENT_USER, SESSION_USER, USER, CURRENT_ROLE,
#     CURRENT_CATALOG, CURRENT_SCHEMA, current_database() (and the ALL/ANY/SOME of
#     `x LIKE ALL (array)`) as function calls. They are syntax
#     or read only the session's own role and database name, so they are allowed; the list is
#     explicit here so regeneration keeps them (they must not match a DENY pattern).
#
# Table functions in FROM (data/postgres_table_allow.txt): the functions of pg_catalog that
# return rows (set-returning, pg_proc.proretset, or returning a record or composite type, such
# as json_populate_record or pg_input_error_info) and survived rules 1-4 above, minus
# TABLE_DENY. A function in FROM that is not on that list is refused even when it is allowed in
# an expression.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
OUT=${1:-$HERE/data/postgres_allow.txt}

# pg_* names that stay allowed (rule 3)
PG_KEEP=(pg_typeof pg_column_size pg_input_is_valid pg_input_error_info pg_size_pretty
    pg_size_bytes pg_collation_for pg_client_encoding)

# rule 4: glob patterns (only `*` is special), matched against the whole lower-case name
DENY=(
    # files, directories, server logs
    'pg_read_file*' 'pg_read_binary_file*' 'pg_ls_*' 'pg_stat_file' 'pg_file*'
    # whole tables / queries / cursors / schemas / databases given by name or as text
    '*_to_xml*' '*xmlschema*' 'query_to_*' 'cursor_to_*' 'table_to_*' 'schema_to_*'
    'database_to_*' 'ts_stat' 'ts_rewrite'
    # settings
    'current_setting' 'set_config' 'setseed' 'get_current_ts_config' 'current_schemas'
    # transactions, snapshots, other sessions, locks, notifications
    'txid_*' 'pg_current_xact_id*' 'pg_export_snapshot' 'pg_*lock*' 'pg_try_advisory*'
    'pg_safe_snapshot_blocking_pids' 'pg_isolation_test_session_is_blocked' 'mxid_age'
    'pg_notify' 'pg_listening_channels' 'pg_notification_queue_usage'
    # large objects, sequences, remote databases
    'lo_*' 'loread' 'lowrite' 'dblink*' 'nextval' 'setval' 'currval' 'lastval'
    # server control and server internals
    'pg_sleep*' 'pg_cancel_backend' 'pg_terminate_backend' 'pg_reload_conf' 'pg_rotate_logfile*'
    'pg_switch_wal' 'pg_create_*' 'pg_drop_*' 'pg_replication_*' 'pg_logical_*' 'pg_stat_*'
    'pg_backend_pid' 'pg_postmaster_start_time' 'pg_conf_load_time' 'inet_server_*'
    'inet_client_*' 'version' 'pg_wal*' 'pg_walfile*' 'pg_control_*' 'pg_current_*'
    'pg_last_*' 'pg_is_*' 'pg_promote' 'pg_event_trigger_*' 'pg_import_system_collations'
    'pg_settings_*' 'pg_show_*' 'pg_options_to_table' 'binary_upgrade_*' 'brin_summarize*'
    'brin_desummarize*' 'gin_clean_pending_list' 'amvalidate' 'fmgr_*' '*_validator'
    'plpgsql_*' 'ri_fkey_*' '*_trigger' 'unique_key_recheck'
    # other roles and privileges (the session's own role is rule 6: SYNTAX)
    'getpgusername' 'has_*_privilege' 'pg_has_role' 'current_query'
    # other objects' definitions, sizes, descriptions, catalog entries by name or OID
    'pg_get_*' 'pg_*_is_visible' 'pg_relation_size' 'pg_total_relation_size' 'pg_*_size'
    'pg_tablespace_*' 'pg_database_*' 'pg_sequence_*' 'pg_partition_*' 'pg_index_*'
    'pg_indexam_*' 'obj_description' 'col_description' 'shobj_description' 'pg_describe_object'
    'pg_identify_object*' 'format_type' 'oidvectortypes' 'to_reg*' 'regclass'
    'row_security_active' 'satisfies_hash_partition'
)

# rule 5: harmless volatile functions and functions of newer servers
ADD_FUNCS=(random random_normal clock_timestamp statement_timestamp transaction_timestamp now
    timeofday gen_random_uuid any_value array_sample array_shuffle)
# rule 5: SQL-standard keyword forms, aggregates and window functions that must be present
ADD_SQL=(coalesce nullif greatest least current_date current_time current_timestamp localtime
    localtimestamp current_catalog current_schema current_database extract date_part position
    substring trim btrim ltrim rtrim overlay normalize grouping
    count sum avg min max string_agg array_agg json_agg jsonb_agg json_object_agg
    jsonb_object_agg bool_and bool_or every bit_and bit_or bit_xor stddev stddev_pop stddev_samp
    variance var_pop var_samp corr covar_pop covar_samp regr_avgx regr_avgy regr_count
    regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy percentile_cont
    percentile_disc mode xmlagg range_agg range_intersect_agg
    row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value
    nth_value)

# rule 6: syntax-level names sqlparser renders as calls
# (`x LIKE ALL (array[...])` / `LIKE ANY` / `LIKE SOME` come out as calls named all/any/some)
SYNTAX=(row array current_user session_user user current_role current_catalog current_schema
    current_database all any some)

# set-returning functions that pass rules 1-4 but stay out of FROM: privilege lists
TABLE_DENY=(aclexplode)
# row-returning functions the query cannot see: polymorphic results (anyelement, a composite
# when called on a row type) and functions of newer servers; each must be on the allowlist
TABLE_ADD=(json_populate_record jsonb_populate_record pg_input_error_info)

TABLE_QUERY="SELECT DISTINCT lower(p.proname) FROM pg_proc p JOIN pg_type t ON t.oid = p.prorettype
  WHERE p.pronamespace = 'pg_catalog'::regnamespace
    AND (p.proretset OR p.prorettype = 'record'::regtype OR t.typtype = 'c')
  ORDER BY 1"

QUERY=$(
    cat <<'SQL'
WITH plumbing AS (
  SELECT typinput::oid AS f FROM pg_type UNION SELECT typoutput FROM pg_type
  UNION SELECT typreceive FROM pg_type UNION SELECT typsend FROM pg_type
  UNION SELECT typmodin FROM pg_type UNION SELECT typmodout FROM pg_type
  UNION SELECT typanalyze FROM pg_type UNION SELECT typsubscript FROM pg_type
  UNION SELECT aggtransfn FROM pg_aggregate UNION SELECT aggfinalfn FROM pg_aggregate
  UNION SELECT aggcombinefn FROM pg_aggregate UNION SELECT aggserialfn FROM pg_aggregate
  UNION SELECT aggdeserialfn FROM pg_aggregate UNION SELECT aggmtransfn FROM pg_aggregate
  UNION SELECT aggminvtransfn FROM pg_aggregate UNION SELECT aggmfinalfn FROM pg_aggregate
), pseudo AS (
  SELECT array_agg(oid) AS a FROM pg_type
  WHERE typname IN ('internal', 'cstring', 'trigger', 'event_trigger', 'language_handler',
                    'fdw_handler', 'index_am_handler', 'table_am_handler', 'tsm_handler')
)
SELECT lower(p.proname)
FROM pg_proc p CROSS JOIN pseudo
WHERE p.pronamespace = 'pg_catalog'::regnamespace
GROUP BY p.proname
HAVING bool_and(p.prokind IN ('f', 'a', 'w'))
   AND bool_and(p.provolatile IN ('i', 's'))
   AND NOT bool_and(p.oid IN (SELECT f FROM plumbing)
                    OR p.prorettype = ANY (pseudo.a)
                    OR p.proargtypes::oid[] && pseudo.a
                    OR coalesce(p.proallargtypes, '{}') && pseudo.a)
ORDER BY 1
SQL
)

glob_re() { # glob -> anchored ERE; names are [a-z0-9_], only * is special
    local g=${1//\*/.*}
    printf '^%s$' "$g"
}
DENY_RE=()
for g in "${DENY[@]}"; do DENY_RE+=("$(glob_re "$g")"); done
denied() { # denied NAME: exit 0 when NAME is excluded by rule 3 or 4
    local n=$1 k re
    for k in "${PG_KEEP[@]}"; do [[ $n == "$k" ]] && return 1; done
    [[ $n == pg_* ]] && return 0
    for re in "${DENY_RE[@]}"; do [[ $n =~ $re ]] && return 0; done
    return 1
}

ENVFILE=$("$REPO/scripts/pg-cluster.sh" start | tail -n1)
CLUSTER_DIR=$(dirname "$ENVFILE")
trap '"$REPO/scripts/pg-cluster.sh" stop "$CLUSTER_DIR" >/dev/null 2>&1 || true' EXIT
# shellcheck disable=SC1090
. "$ENVFILE"

SERVER_VERSION=$(psql -X -At "$SQLGATE_PG_URL" -c 'SHOW server_version')
RAW=$(psql -X -At -v ON_ERROR_STOP=1 "$SQLGATE_PG_URL" -c "$QUERY")
SRF=$(psql -X -At -v ON_ERROR_STOP=1 "$SQLGATE_PG_URL" -c "$TABLE_QUERY")
[[ -n "$RAW" ]] || { echo "gen_postgres_allow: empty result" >&2; exit 1; }

TMP=$(mktemp)
{
    printf '%s\n' "$RAW"
    printf '%s\n' "${PG_KEEP[@]}" "${ADD_FUNCS[@]}" "${ADD_SQL[@]}" "${SYNTAX[@]}"
} | LC_ALL=C sort -u | while IFS= read -r name; do
    [[ $name =~ ^[a-z_][a-z0-9_]*$ ]] || { echo "gen_postgres_allow: skipping odd name '$name'" >&2; continue; }
    if denied "$name"; then continue; fi
    printf '%s\n' "$name"
done >"$TMP"

# every name the brief requires must have survived
for n in "${ADD_FUNCS[@]}" "${ADD_SQL[@]}" "${PG_KEEP[@]}" "${SYNTAX[@]}"; do
    grep -qx "$n" "$TMP" || { echo "gen_postgres_allow: $n denied by a rule" >&2; exit 1; }
done

COUNT=$(wc -l <"$TMP")
{
    cat <<EOF
# postgres_allow.txt: PostgreSQL functions sqlgate allows by default (dialect postgres).
# GENERATED by core/src/functions/gen_postgres_allow.sh from pg_proc of PostgreSQL
# $SERVER_VERSION; do not edit by hand.
# $COUNT names, one lower-case name per line, sorted.
#
# Rules:
#  1. Names in schema pg_catalog, prokind f/a/w, every overload immutable or stable.
#  2. Minus plumbing: names whose every overload is type I/O (pg_type in/out/recv/send/typmod/
#     analyze/subscript), an aggregate support function, or takes/returns internal, cstring,
#     trigger, event_trigger or a *_handler pseudo-type.
#  3. Minus every pg_* name (default deny), except:
EOF
    printf '%s\n' "${PG_KEEP[@]}" | fmt -w 92 | sed 's/^/#       /'
    cat <<EOF
#  4. Minus names matching (files, other sessions, settings, sequences, large objects,
#     tables/queries by name or text, privileges, catalog lookups, server internals, role):
EOF
    printf '%s\n' "${DENY[@]}" | fmt -w 92 | sed 's/^/#       /'
    cat <<EOF
#  5. Plus harmless volatile / newer-server functions:
EOF
    printf '%s\n' "${ADD_FUNCS[@]}" | fmt -w 92 | sed 's/^/#       /'
    cat <<EOF
#     Plus SQL-standard keyword forms, aggregates and window functions sqlparser renders as
#     calls (coalesce, nullif, greatest, least, current_date, trim, grouping, ...).
#  6. Plus syntax-level names (constructors and the session's own role/database/schema):
EOF
    printf '%s\n' "${SYNTAX[@]}" | fmt -w 92 | sed 's/^/#       /'
    cat "$TMP"
} >"$OUT"

# table functions in FROM: set-returning functions still on the list, minus TABLE_DENY
TABLE_OUT=$(dirname "$OUT")/postgres_table_allow.txt
TTMP=$(mktemp)
printf '%s\n' "$SRF" "${TABLE_ADD[@]}" | LC_ALL=C sort -u | while IFS= read -r name; do
    grep -qx "$name" "$TMP" || continue
    for d in "${TABLE_DENY[@]}"; do [[ $name == "$d" ]] && continue 2; done
    printf '%s\n' "$name"
done >"$TTMP"
TCOUNT=$(wc -l <"$TTMP")
{
    cat <<EOF
# postgres_table_allow.txt: PostgreSQL table functions sqlgate allows in FROM (dialect postgres).
# GENERATED by core/src/functions/gen_postgres_allow.sh from pg_proc of PostgreSQL
# $SERVER_VERSION; do not edit by hand. $TCOUNT names, sorted.
#
# Rule: functions of pg_catalog that return rows (proretset, or a record or composite result)
# and are on postgres_allow.txt, plus (polymorphic row results, newer servers):
EOF
    printf '%s\n' "${TABLE_ADD[@]}" | fmt -w 92 | sed 's/^/#       /'
    cat <<EOF
#     minus:
EOF
    printf '%s\n' "${TABLE_DENY[@]}" | fmt -w 92 | sed 's/^/#       /'
    cat "$TTMP"
} >"$TABLE_OUT"
rm -f "$TMP" "$TTMP"
echo "gen_postgres_allow: wrote $COUNT names to $OUT and $TCOUNT to $TABLE_OUT (PostgreSQL $SERVER_VERSION)" >&2
