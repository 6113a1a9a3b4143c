# Sourced by .ci/run and scripts/test.sh: `stage NAME COMMAND...` runs one stage, prints its
# name, and appends its duration and result to $SQLGATE_STAGES (one file for the whole run, so a
# script called by another adds to the same table); `print_stages` prints the table. The table is
# how a slow stage shows up: read it at the end of every CI log.
# The script that made the table prints it; one called by it only adds rows.
if [ -z "${SQLGATE_STAGES:-}" ]; then
  SQLGATE_STAGES="$(mktemp "${TMPDIR:-/tmp}/sqlgate-stages.XXXXXX")"
  SQLGATE_STAGES_OWNER=$$
  export SQLGATE_STAGES
fi

# The command runs in a subshell with `set -e` in force (a `||` around it would switch `set -e`
# off inside shell functions): it cannot change the caller's variables.
stage() {
  local name="$1" start=$SECONDS status
  shift
  echo "== $name"
  set +e
  (set -e; "$@")
  status=$?
  set -e
  printf '%6d s  %-4s %s\n' "$((SECONDS - start))" "$([ "$status" -eq 0 ] && echo ok || echo FAIL)" "$name" >>"$SQLGATE_STAGES"
  return "$status"
}

# `skip_stage NAME WHY`: a row for what did not run, and why.
skip_stage() {
  printf '%6s    %-4s %s: %s\n' - skip "$1" "$2" >>"$SQLGATE_STAGES"
}

print_stages() {
  [ "${SQLGATE_STAGES_OWNER:-}" = "$$" ] && [ -s "$SQLGATE_STAGES" ] || return 0
  echo "== stage durations"
  cat "$SQLGATE_STAGES"
}
