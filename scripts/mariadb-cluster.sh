#!/usr/bin/env bash
# mariadb-cluster.sh: a throwaway MariaDB server for the engine differential suite (tests/engines).
#
#   scripts/mariadb-cluster.sh start [DIR]   install a data dir + start; prints the env file path (last line)
#   scripts/mariadb-cluster.sh stop DIR      stop the server and remove DIR
#   scripts/mariadb-cluster.sh status DIR    exit 0 when the server in DIR answers
#   scripts/mariadb-cluster.sh load-chinook DIR   load tests/fixtures/chinook/Chinook_MySql.sql
#                                            (database `Chinook`; adds SQLGATE_MARIADB_CHINOOK_URL)
#
# The server listens on 127.0.0.1 only (first free port from $SQLGATE_MARIADB_PORT_BASE, default
# 33069) and on a unix socket inside DIR, runs with --skip-grant-tables (no accounts: any client
# is all-powerful, which is the worst case the suite wants) and --secure-file-priv DIR/files, the
# only directory INTO OUTFILE / LOAD_FILE may touch, which the suite watches. Run as root, mariadbd
# runs as root too (--user=root); as a normal user, as that user. Nothing outside DIR is touched.
#
# $DIR/env holds SQLGATE_MARIADB_HOST, SQLGATE_MARIADB_PORT, SQLGATE_MARIADB_SOCKET,
# SQLGATE_MARIADB_FILES, SQLGATE_MARIADB_DIR:   . "$(scripts/mariadb-cluster.sh start | tail -n1)"
set -euo pipefail

MARKER=.sqlgate-mariadb-cluster
PORT_BASE=${SQLGATE_MARIADB_PORT_BASE:-33069}
PORT_TRIES=100

die() { echo "mariadb-cluster: $*" >&2; exit 1; }
log() { echo "mariadb-cluster: $*" >&2; }

find_bin() { # find_bin NAME...: the first of NAME... on PATH or in /usr/sbin
    local n
    for n in "$@"; do
        if command -v "$n" >/dev/null 2>&1; then command -v "$n"; return; fi
        if [[ -x /usr/sbin/$n ]]; then echo "/usr/sbin/$n"; return; fi
    done
    return 1
}

port_free() {
    local p=$1
    if command -v ss >/dev/null 2>&1; then
        ! ss -Htln "sport = :$p" 2>/dev/null | grep -q .
    else
        ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null
    fi
}

check_dir() {
    [[ -n "$1" && -d "$1" ]] || die "no such directory: ${1:-<missing>}"
    [[ -f "$1/$MARKER" ]] || die "$1 was not made by mariadb-cluster.sh (no $MARKER); refusing"
}

answers() { # answers DIR
    local admin
    admin=$(find_bin mariadb-admin mysqladmin) || return 1
    "$admin" --no-defaults --socket="$1/sock" --user=root --connect-timeout=2 ping >/dev/null 2>&1
}

cmd_start() {
    local dir=${1:-}
    local mariadbd install_db
    mariadbd=$(find_bin mariadbd mysqld) || die "mariadbd not found (apt-get install mariadb-server)"
    install_db=$(find_bin mariadb-install-db mysql_install_db) || die "mariadb-install-db not found"
    if [[ -z "$dir" ]]; then
        dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlgate-mariadb.XXXXXX")
    else
        mkdir -p "$dir"
        [[ -f "$dir/$MARKER" || -z "$(ls -A "$dir")" ]] || die "$dir is not empty; refusing"
    fi
    dir=$(cd "$dir" && pwd)
    if [[ -f "$dir/$MARKER" ]] && answers "$dir"; then
        log "already running in $dir"
        echo "$dir/env"
        return 0
    fi
    touch "$dir/$MARKER"
    mkdir -p "$dir/data" "$dir/tmp" "$dir/files" "$dir/log"
    local user_opt=()
    if [[ $(id -u) -eq 0 ]]; then user_opt=(--user=root); fi

    if [[ ! -d "$dir/data/mysql" ]]; then
        # Its own tmpdir (passed on to the bootstrap mariadbd), like the server's below: in the
        # shared /tmp, concurrent installs lost their temporary tables ("Error on delete of
        # '/tmp/#sql-temptable-...'"). The head of the log holds the error, the tail boilerplate.
        "$install_db" --no-defaults --datadir="$dir/data" "${user_opt[@]}" --skip-test-db \
            --auth-root-authentication-method=normal --tmpdir="$dir/tmp" \
            >"$dir/log/install.log" 2>&1 ||
            { head -n 20 "$dir/log/install.log" >&2; die "mariadb-install-db failed"; }
    fi

    local port="" p i pid
    for ((i = 0; i < PORT_TRIES; i++)); do
        p=$((PORT_BASE + i))
        port_free "$p" || continue
        : >"$dir/log/error.log"
        "$mariadbd" --no-defaults "${user_opt[@]}" --datadir="$dir/data" --tmpdir="$dir/tmp" \
            --socket="$dir/sock" --pid-file="$dir/mariadbd.pid" --port="$p" \
            --bind-address=127.0.0.1 --skip-grant-tables --skip-name-resolve \
            --secure-file-priv="$dir/files" --log-error="$dir/log/error.log" \
            --innodb-buffer-pool-size=32M --innodb-log-file-size=16M --skip-log-bin \
            --max-connections=50 --character-set-server=utf8mb4 --collation-server=utf8mb4_bin \
            </dev/null >/dev/null 2>&1 &
        pid=$!
        echo "$pid" >"$dir/server.pid"
        local t
        for ((t = 0; t < 300; t++)); do
            if answers "$dir"; then port=$p; break; fi
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        [[ -n "$port" ]] && break
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        if grep -q -e 'Address already in use' -e 'Do you already have another' "$dir/log/error.log"; then
            log "port $p taken, trying the next one"
            continue
        fi
        tail -n 30 "$dir/log/error.log" >&2 || true
        rm -rf "$dir"
        die "mariadbd did not start"
    done
    [[ -n "$port" ]] || { rm -rf "$dir"; die "no free port in $PORT_BASE..$((PORT_BASE + PORT_TRIES - 1))"; }
    {
        printf 'export SQLGATE_MARIADB_HOST=127.0.0.1\n'
        printf 'export SQLGATE_MARIADB_PORT=%q\n' "$port"
        printf 'export SQLGATE_MARIADB_SOCKET=%q\n' "$dir/sock"
        printf 'export SQLGATE_MARIADB_FILES=%q\n' "$dir/files"
        printf 'export SQLGATE_MARIADB_DIR=%q\n' "$dir"
    } >"$dir/env"
    log "MariaDB $("$mariadbd" --version | awk '{print $3}') running on 127.0.0.1:$port, dir $dir"
    echo "$dir/env"
}

cmd_stop() {
    local dir=${1:-} pid="" i
    check_dir "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ -f "$dir/mariadbd.pid" ]]; then pid=$(cat "$dir/mariadbd.pid" 2>/dev/null || true); fi
    if [[ -z "$pid" && -f "$dir/server.pid" ]]; then pid=$(cat "$dir/server.pid" 2>/dev/null || true); fi
    if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < 300; i++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            log "mariadbd $pid did not stop in 30 s; killing it"
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -rf "$dir"
    log "stopped and removed $dir"
}

cmd_load_chinook() {
    local dir=${1:-} client sql port
    check_dir "$dir"
    dir=$(cd "$dir" && pwd)
    client=$(find_bin mariadb mysql) || die "the mariadb client was not found"
    # The repository's copy (tests/fixtures/chinook), so that a clone alone can load it.
    sql="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/fixtures/chinook/Chinook_MySql.sql"
    [[ -f "$sql" ]] || die "no $sql"
    "$client" --no-defaults --socket="$dir/sock" --user=root <"$sql" ||
        die "loading $sql failed"
    port=$(sed -n 's/^export SQLGATE_MARIADB_PORT=//p' "$dir/env")
    grep -q SQLGATE_MARIADB_CHINOOK_URL "$dir/env" ||
        printf 'export SQLGATE_MARIADB_CHINOOK_URL=mysql://root@127.0.0.1:%s/Chinook\n' "$port" >>"$dir/env"
    log "loaded Chinook into 127.0.0.1:$port"
}

cmd_status() {
    check_dir "${1:-}"
    answers "$1"
}

case "${1:-}" in
    start) shift; cmd_start "$@" ;;
    stop) shift; cmd_stop "$@" ;;
    status) shift; cmd_status "$@" ;;
    load-chinook) shift; cmd_load_chinook "$@" ;;
    *) sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
