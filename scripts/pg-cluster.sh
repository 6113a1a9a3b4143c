#!/usr/bin/env bash
# pg-cluster.sh: a throwaway PostgreSQL cluster for CI and database tests.
#
#   scripts/pg-cluster.sh start [DIR]         initdb + start; prints the env file path (last line)
#   scripts/pg-cluster.sh load-chinook DIR    create and load database `chinook`, grant sqlgate_ro
#                                             (from tests/fixtures/chinook/Chinook_PostgreSql.sql)
#   scripts/pg-cluster.sh stop DIR            stop the server (fast) and remove DIR
#   scripts/pg-cluster.sh status DIR          exit 0 when the server in DIR is running
#
# The cluster trusts local (unix socket, inside DIR) and 127.0.0.1 connections only, listens on
# 127.0.0.1 only, on the first free port from $SQLGATE_PG_PORT_BASE (default 54329), with
# fsync=off. Superuser: `postgres`. Role `sqlgate_ro`: LOGIN and nothing else until
# load-chinook grants CONNECT/SELECT on chinook.
#
# $DIR/env holds SQLGATE_PG_URL, SQLGATE_PG_RO_URL, SQLGATE_PG_HOST, SQLGATE_PG_PORT,
# SQLGATE_PG_DIR (and SQLGATE_CHINOOK_URL, SQLGATE_CHINOOK_RO_URL after load-chinook):
#   . "$(scripts/pg-cluster.sh start | tail -n1)"
#
# Run as root, the server runs as an unprivileged user ($SQLGATE_PG_USER, default `sqlgate-pg`,
# created when missing, which it says on stderr, else `nobody`): PostgreSQL refuses to run as root.
# Run as a normal user, everything runs as that user. Client commands (psql) always run as the
# caller, over TCP.
#
# Environment: PG_BINDIR (default `pg_config --bindir`), SQLGATE_PG_PORT_BASE, SQLGATE_PG_USER.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
MARKER=.sqlgate-pg-cluster
PORT_BASE=${SQLGATE_PG_PORT_BASE:-54329}
PORT_TRIES=100

die() { echo "pg-cluster: $*" >&2; exit 1; }
log() { echo "pg-cluster: $*" >&2; }

find_bindir() {
    if [[ -n "${PG_BINDIR:-}" ]]; then
        echo "$PG_BINDIR"
    elif command -v pg_config >/dev/null 2>&1 && [[ -x "$(pg_config --bindir)/initdb" ]]; then
        pg_config --bindir
    else
        local d
        for d in /usr/lib/postgresql/*/bin /usr/local/pgsql/bin; do
            [[ -x "$d/initdb" ]] && { echo "$d"; return; }
        done
        command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return; }
        die "cannot find initdb; set PG_BINDIR"
    fi
}
BINDIR=$(find_bindir)
for b in initdb pg_ctl postgres; do
    [[ -x "$BINDIR/$b" ]] || die "$BINDIR/$b not found (set PG_BINDIR)"
done
PSQL=$BINDIR/psql
[[ -x "$PSQL" ]] || PSQL=$(command -v psql) || die "psql not found"

# ---- privilege handling -------------------------------------------------------------------
PG_USER=""
if [[ $(id -u) -eq 0 ]]; then
    PG_USER=${SQLGATE_PG_USER:-sqlgate-pg}
    if ! id -u "$PG_USER" >/dev/null 2>&1; then
        if command -v useradd >/dev/null 2>&1 &&
            useradd --system --no-create-home --home-dir /nonexistent \
                --shell /usr/sbin/nologin --user-group "$PG_USER" >/dev/null 2>&1; then
            log "created system user $PG_USER (no home, no login shell) to run PostgreSQL," \
                "which refuses root; userdel $PG_USER removes it"
        elif id -u "$PG_USER" >/dev/null 2>&1; then
            : # created concurrently by another run
        else
            log "cannot create user $PG_USER; using nobody"
            PG_USER=nobody
        fi
    fi
fi

# as_pg CMD ARGS...: run a server-side command as the unprivileged user (or as ourselves).
as_pg() {
    if [[ -z "$PG_USER" ]]; then
        "$@"
    elif command -v runuser >/dev/null 2>&1; then
        runuser -u "$PG_USER" -- "$@"
    elif command -v setpriv >/dev/null 2>&1; then
        setpriv --reuid="$PG_USER" --regid="$(id -g "$PG_USER")" --init-groups -- "$@"
    else
        local q
        q=$(printf '%q ' "$@")
        su -s /bin/sh "$PG_USER" -c "$q"
    fi
}

# ---- helpers ------------------------------------------------------------------------------
port_free() {
    local p=$1
    if command -v ss >/dev/null 2>&1; then
        # Listening sockets only: the TIME-WAIT connections a stopped server leaves on its port
        # do not stop PostgreSQL (it binds with SO_REUSEADDR) from listening there again.
        ! ss -Htln "sport = :$p" 2>/dev/null | grep -q .
    else
        ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null
    fi
}

psql_su() { # psql_su PORT DB ARGS...: psql as superuser postgres over TCP, as the caller
    local port=$1 db=$2
    shift 2
    PGCONNECT_TIMEOUT=10 "$PSQL" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d "$db" "$@"
}

is_running() { # is_running DIR
    [[ -f "$1/data/PG_VERSION" ]] && as_pg "$BINDIR/pg_ctl" -D "$1/data" status >/dev/null 2>&1
}

check_dir() { # check_dir DIR: DIR must be a cluster made by this script
    [[ -n "$1" && -d "$1" ]] || die "no such directory: ${1:-<missing>}"
    [[ -f "$1/$MARKER" ]] || die "$1 was not made by pg-cluster.sh (no $MARKER); refusing"
}

env_get() { # env_get DIR VAR: value of VAR from DIR/env
    [[ -f "$1/env" ]] || die "$1/env missing"
    (
        # shellcheck disable=SC1091
        . "$1/env"
        printf '%s\n' "${!2:-}"
    )
}

env_set() { # env_set DIR VAR VALUE: replace or append `export VAR=VALUE` in DIR/env
    local f=$1/env tmp
    tmp=$(mktemp "$1/env.XXXXXX")
    { [[ -f "$f" ]] && grep -v "^export $2=" "$f" || true; } >"$tmp"
    printf 'export %s=%q\n' "$2" "$3" >>"$tmp"
    chmod 644 "$tmp"
    mv -f "$tmp" "$f"
}

write_conf() { # write_conf DIR PORT
    local dir=$1 port=$2
    as_pg tee "$dir/data/postgresql.auto.conf" >/dev/null <<EOF
# written by scripts/pg-cluster.sh: throwaway test cluster, do not use for real data
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir/sock'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 50
shared_buffers = '32MB'
max_wal_size = '256MB'
logging_collector = off
log_min_messages = warning
timezone = 'UTC'
EOF
    as_pg tee "$dir/data/pg_hba.conf" >/dev/null <<'EOF'
# written by scripts/pg-cluster.sh: unix socket (inside the cluster dir) and IPv4 loopback only
# TYPE  DATABASE  USER  ADDRESS       METHOD
local   all       all                 trust
host    all       all   127.0.0.1/32  trust
EOF
}

# ---- commands -----------------------------------------------------------------------------
START_DIR=""
START_CREATED=0
cleanup_on_fail() {
    local rc=$?
    if [[ $rc -ne 0 && -n "$START_DIR" ]]; then
        as_pg "$BINDIR/pg_ctl" -D "$START_DIR/data" stop -m immediate >/dev/null 2>&1 || true
        if [[ $START_CREATED -eq 1 ]]; then rm -rf "$START_DIR"; fi
        log "start failed (rc=$rc)"
    fi
}

write_env() { # write_env DIR PORT
    env_set "$1" SQLGATE_PG_URL "postgres://postgres@127.0.0.1:$2/postgres"
    env_set "$1" SQLGATE_PG_RO_URL "postgres://sqlgate_ro@127.0.0.1:$2/postgres"
    env_set "$1" SQLGATE_PG_HOST 127.0.0.1
    env_set "$1" SQLGATE_PG_PORT "$2"
    env_set "$1" SQLGATE_PG_DIR "$1"
}

cmd_start() {
    local dir=${1:-} created=0
    if [[ -z "$dir" ]]; then
        dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlgate-pg.XXXXXX")
        created=1
    elif [[ ! -e "$dir" ]]; then
        mkdir -p "$dir"
        created=1
    fi
    dir=$(cd "$dir" && pwd)

    # already set up and running: idempotent, just report the env file again
    if [[ -f "$dir/$MARKER" ]] && is_running "$dir"; then
        log "already running in $dir"
        [[ -f "$dir/env" ]] || write_env "$dir" "$(sed -n 4p "$dir/data/postmaster.pid")"
        echo "$dir/env"
        return 0
    fi
    if [[ ! -f "$dir/$MARKER" ]] && [[ -n "$(ls -A "$dir")" ]]; then
        die "$dir is not empty and not a pg-cluster.sh dir; refusing"
    fi

    # clean up what we made if anything below fails
    START_DIR=$dir
    START_CREATED=$created
    trap cleanup_on_fail EXIT

    touch "$dir/$MARKER"
    mkdir -p "$dir/sock" "$dir/log"
    if [[ -n "$PG_USER" ]]; then
        chown "$PG_USER" "$dir" "$dir/sock" "$dir/log"
        chmod 755 "$dir"
        chmod 700 "$dir/sock"
        as_pg test -w "$dir" ||
            die "$PG_USER cannot write $dir (a parent directory is not traversable?); pass a DIR under /tmp"
    fi

    if [[ ! -f "$dir/data/PG_VERSION" ]]; then
        rm -rf "$dir/data"
        as_pg "$BINDIR/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C \
            --no-sync >"$dir/log/initdb.log" 2>&1 ||
            { cat "$dir/log/initdb.log" >&2; die "initdb failed"; }
    fi

    # pick a free port; retry on bind failure (another process may grab it between check and start)
    local port="" p i
    for ((i = 0; i < PORT_TRIES; i++)); do
        p=$((PORT_BASE + i))
        port_free "$p" || continue
        write_conf "$dir" "$p"
        if as_pg "$BINDIR/pg_ctl" -D "$dir/data" -l "$dir/log/postgres.log" -w -t 60 start \
            >/dev/null 2>&1; then
            port=$p
            break
        fi
        if grep -q -e 'could not bind' -e 'could not create any TCP/IP sockets' \
            -e 'already in use' "$dir/log/postgres.log" 2>/dev/null; then
            log "port $p taken, trying the next one"
            : | as_pg tee "$dir/log/postgres.log" >/dev/null
            continue
        fi
        tail -n 30 "$dir/log/postgres.log" >&2 || true
        die "pg_ctl start failed"
    done
    [[ -n "$port" ]] || die "no free port in $PORT_BASE..$((PORT_BASE + PORT_TRIES - 1))"

    psql_su "$port" postgres <<'SQL'
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sqlgate_ro') THEN
    CREATE ROLE sqlgate_ro LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
  END IF;
END
$$;
SQL

    write_env "$dir" "$port"
    trap - EXIT
    log "PostgreSQL $("$BINDIR/postgres" --version | awk '{print $3}') running on 127.0.0.1:$port, dir $dir"
    echo "$dir/env"
}

cmd_stop() {
    local dir=${1:-}
    check_dir "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ -f "$dir/data/postmaster.pid" ]]; then
        local pid i
        pid=$(head -n1 "$dir/data/postmaster.pid" 2>/dev/null || true)
        as_pg "$BINDIR/pg_ctl" -D "$dir/data" stop -m fast -w -t 60 >/dev/null 2>&1 ||
            as_pg "$BINDIR/pg_ctl" -D "$dir/data" stop -m immediate -w -t 30 >/dev/null 2>&1 ||
            log "pg_ctl stop failed (server not running?)"
        # pg_ctl returns once postmaster.pid is gone; wait for the process itself to exit too
        if [[ "$pid" =~ ^[0-9]+$ ]]; then
            for ((i = 0; i < 100; i++)); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
            done
        fi
    fi
    rm -rf "$dir"
    log "stopped and removed $dir"
}

cmd_status() {
    local dir=${1:-}
    check_dir "$dir"
    is_running "$dir"
}

cmd_load_chinook() {
    local dir=${1:-} port sql
    check_dir "$dir"
    dir=$(cd "$dir" && pwd)
    is_running "$dir" || die "server in $dir is not running"
    port=$(env_get "$dir" SQLGATE_PG_PORT)
    # The repository's copy (tests/fixtures/chinook), so that a clone alone can load it.
    sql=$REPO_DIR/tests/fixtures/chinook/Chinook_PostgreSql.sql
    [[ -r "$sql" ]] || die "cannot read $sql"

    # The script drops/creates database chinook and then `\c chinook`s: run it from db postgres.
    psql_su "$port" postgres -f "$sql" >"$dir/log/chinook.log" 2>&1 ||
        { tail -n 20 "$dir/log/chinook.log" >&2; die "loading $sql failed"; }
    psql_su "$port" postgres -c 'GRANT CONNECT ON DATABASE chinook TO sqlgate_ro'
    psql_su "$port" chinook <<'SQL'
GRANT USAGE ON SCHEMA public TO sqlgate_ro;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO sqlgate_ro;
ANALYZE;
SQL
    env_set "$dir" SQLGATE_CHINOOK_URL "postgres://postgres@127.0.0.1:$port/chinook"
    env_set "$dir" SQLGATE_CHINOOK_RO_URL "postgres://sqlgate_ro@127.0.0.1:$port/chinook"
    log "loaded chinook into 127.0.0.1:$port"
    echo "$dir/env"
}

usage() {
    sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

case "${1:-}" in
    start) shift; cmd_start "$@" ;;
    stop) shift; cmd_stop "$@" ;;
    status) shift; cmd_status "$@" ;;
    load-chinook) shift; cmd_load_chinook "$@" ;;
    *) usage ;;
esac
