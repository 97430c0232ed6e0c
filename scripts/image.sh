#!/usr/bin/env bash
# The container image's build and run steps, one subcommand each: the Dockerfile RUNs them, and
# test/build/image.test.ts runs the same lines in a temporary folder (no container daemon needed).
#
#   image.sh [--dry-run] deps                 npm ci: the build's dependencies, dev included
#   image.sh [--dry-run] pack DIR             npm pack (builds dist/ at prepack) into DIR, with the lock
#   image.sh [--dry-run] install DIR APP      the package from DIR into APP: the lock's versions,
#                                             production dependencies only, no compiler
#   image.sh health [PORT]                    GET /healthz on 127.0.0.1:PORT (8545): exit 0 on 200 within 4 s
#
# --dry-run prints the commands instead of running them.
set -euo pipefail

usage() {
  echo "usage:" >&2
  sed -n '5,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

dry=false
if [ "${1:-}" = "--dry-run" ]; then
  dry=true
  shift
fi

# Runs a command, or prints it under --dry-run (quoted, so it can be pasted).
run() {
  if $dry; then
    printf '%q ' "$@" | sed 's/ $//'
    echo
  else
    "$@"
  fi
}

deps() {
  # Install scripts are off, as npm 11 has them (package.json "allowScripts"): the node image's
  # npm 10 would run them.
  run npm ci --ignore-scripts --no-audit --no-fund
}

pack() {
  local dir="$1"
  run mkdir -p "$dir"
  run npm pack --pack-destination "$dir"
  # npm pack leaves the lock out; install pins the production dependencies with it.
  run cp package-lock.json "$dir/package-lock.json"
}

install_package() {
  local dir="$1" app="$2" tarball
  tarball="$(find "$dir" -maxdepth 1 -name 'blockgate-*.tgz' 2>/dev/null | head -1 || true)"
  if [ -z "$tarball" ] && ! $dry; then
    echo "image.sh install: no blockgate-*.tgz in $dir (run image.sh pack $dir)" >&2
    exit 1
  fi
  run mkdir -p "$app"
  run tar -xzf "${tarball:-$dir/blockgate-VERSION.tgz}" -C "$app" --strip-components=1
  run cp "$dir/package-lock.json" "$app/package-lock.json"
  # The lock's exact versions. --omit=optional drops typescript, which the lock marks devOptional
  # (an optional peer of valibot, a production dependency, and our dev dependency).
  run npm ci --prefix "$app" --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund
  # `blockgate` on PATH (/app/bin), as npm links it for a package installed as a dependency.
  run ln -sf blockgate.js "$app/bin/blockgate"
  if $dry; then return; fi
  local compiler
  for compiler in typescript esbuild tsx; do
    if [ -e "$app/node_modules/$compiler" ]; then
      echo "image.sh install: $compiler was installed in $app" >&2
      exit 1
    fi
  done
}

health() {
  local port="${1:-8545}"
  case "$port" in
    '' | *[!0-9]*) usage ;;
  esac
  # No curl in the slim image: node's fetch, bounded within the HEALTHCHECK's --timeout (5 s) so a
  # hung process fails the check; the reason goes to docker inspect's health log.
  run node -e '
    fetch(`http://127.0.0.1:${process.argv[1]}/healthz`, { signal: AbortSignal.timeout(4000) }).then(
      (r) => {
        if (r.status !== 200) console.error(`/healthz answered ${r.status}`);
        process.exit(r.status === 200 ? 0 : 1);
      },
      (err) => {
        console.error(`/healthz: ${err.cause?.code ?? err.cause?.message ?? err.message}`);
        process.exit(1);
      },
    );
  ' "$port"
}

case "${1:-}" in
  deps) [ $# -eq 1 ] || usage; deps ;;
  pack) [ $# -eq 2 ] || usage; pack "$2" ;;
  install) [ $# -eq 3 ] || usage; install_package "$2" "$3" ;;
  health) [ $# -le 2 ] || usage; health "${2:-8545}" ;;
  *) usage ;;
esac
