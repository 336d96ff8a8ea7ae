#!/usr/bin/env bash
# The steps of the mcpspec GitHub Action (action.yml beside this file), kept here so that
# `make test` runs them as the action does (cmd/mcpspec/action_test.go sets the same environment).
# GITHUB_ACTION_PATH is this directory, cmd/action; mcpspec's module root is two levels up.
#
#   action-run.sh run      build mcpspec from the action's own checkout, run it (mcpspec run, or
#                          with INPUT_CLIENT mcpspec client) with the inputs (INPUT_*), append summary.md to the job summary and set the outputs.
#                          It exits 0 whatever the verdict, so that the next step can upload the
#                          reports; it fails only when nothing could run (no target, no build).
#   action-run.sh verdict  end the job with the run's exit code (MCPSPEC_EXIT_CODE), saying why.
#
# A composite action passes no inputs to its scripts by itself: action.yml maps each input to
# INPUT_<NAME> (upper case, '-' as '_') in the step's env.
set -euo pipefail

fail() {
  echo "::error title=mcpspec::$1"
  echo "mcpspec action: $1" >&2
  exit "$2"
}

run_step() {
  : "${GITHUB_ACTION_PATH:?}" "${RUNNER_TEMP:?}" "${GITHUB_OUTPUT:?}"
  local stdio=${INPUT_STDIO:-} url=${INPUT_URL:-} sse=${INPUT_SSE:-} http_cmd=${INPUT_HTTP_CMD:-}
  local client=${INPUT_CLIENT:-} client_transport=${INPUT_CLIENT_TRANSPORT:-http}
  local server_target="${stdio//[[:space:]]/}${url//[[:space:]]/}${sse//[[:space:]]/}${http_cmd//[[:space:]]/}"
  # An input left empty (an unset variable, a missing secret) must never fall back to mcpspec's
  # bundled reference server and its green run.
  if [ -n "${client//[[:space:]]/}" ]; then
    if [ -n "$server_target" ]; then
      fail "client excludes stdio, url, sse and http-cmd: one target per step" 2
    fi
    case $client_transport in
      http | stdio | sse) ;;
      *) fail "client-transport \"$client_transport\": want http, stdio or sse" 2 ;;
    esac
  elif [ -z "${stdio//[[:space:]]/}${url//[[:space:]]/}${sse//[[:space:]]/}" ]; then
    fail "no target: give the input stdio, url, sse or client (is the variable or secret it names set?)" 2
  fi
  local out=${INPUT_OUT:-mcpspec-report}
  case $out in /*) ;; *) out="$PWD/$out" ;; esac
  local name=${INPUT_NAME:-}
  local artifact=${INPUT_ARTIFACT_NAME:-}
  if [ -z "$artifact" ]; then
    artifact=mcpspec-report${name:+-$name}
  fi

  local bin="$RUNNER_TEMP/mcpspec-action/mcpspec"
  local module="$GITHUB_ACTION_PATH/../.."
  (cd "$module" && GOWORK=off go build -o "$bin" ./cmd/mcpspec) ||
    fail "could not build mcpspec from $module" 3

  # --github: each failure and warning as an annotation, and summary.md appended to the job
  # summary by mcpspec itself (once: the script adds nothing to it).
  local args=(run --out "$out" --no-color --github)
  add() { if [ -n "$2" ]; then args+=("$1" "$2"); fi; }
  if [ -n "${client//[[:space:]]/}" ]; then
    args=(client --out "$out" --no-color --github --cmd "$client")
    if [ "$client_transport" != http ]; then args+=("--$client_transport"); fi
  fi
  add --name "$name"
  add --stdio "$stdio"
  add --url "$url"
  add --sse "$sse"
  add --http-cmd "$http_cmd"
  add --baseline "${INPUT_BASELINE:-}"
  # Further flags, one argument a line, taken as written: no quoting, no expansion.
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line#"${line%%[![:space:]]*}"}
    line=${line%"${line##*[![:space:]]}"}
    if [ -n "$line" ]; then args+=("$line"); fi
  done <<<"${INPUT_ARGS:-}"

  local code=0
  "$bin" "${args[@]}" || code=$?

  {
    echo "exit-code=$code"
    echo "report-dir=$out"
    echo "artifact-name=$artifact"
    echo "mcpspec=$bin"
  } >>"$GITHUB_OUTPUT"
}

verdict_step() {
  local code=${MCPSPEC_EXIT_CODE:-}
  case $code in
    0) echo "mcpspec: conformant (exit 0)"; exit 0 ;;
    1) fail "unexpected failures or stale baseline entries (exit 1): see the job summary or report.html in the artifact" 1 ;;
    2) fail "bad usage or configuration (exit 2): see the log of the run step" 2 ;;
    3) fail "harness or infrastructure error, not a verdict (exit 3): see the errors in the reports" 3 ;;
    4) fail "no check ran (exit 4): widen --focus or --label-filter" 4 ;;
    "") fail "the run step set no exit code" 3 ;;
    *[!0-9]*) fail "the run step set the exit code \"$code\", not a number" 3 ;;
    *) fail "mcpspec exited $code" "$code" ;;
  esac
}

case ${1:-} in
  run) run_step ;;
  verdict) verdict_step ;;
  *) echo "usage: $0 run|verdict" >&2; exit 2 ;;
esac
