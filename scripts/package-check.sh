#!/usr/bin/env bash
# The package as an operator installs it: `npm pack` (building at prepack), then in an empty
# folder `npm install --omit=dev <tarball>`, no compiler in what arrives, and `npx blockgate
# start` answering its first curl on embedded defaults. Run by hand: it takes minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
port="${PORT:-18545}"
trap 'kill "${gateway:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT

npm pack --pack-destination "$work" >/dev/null
tarball="$(ls "$work"/blockgate-*.tgz)"
echo "packed: $(du -h "$tarball" | cut -f1) $(basename "$tarball")"
mkdir "$work/app" && cd "$work/app"
echo '{"name":"try-blockgate","private":true}' >package.json
npm install --omit=dev --no-audit --no-fund "$tarball"
for compiler in typescript esbuild tsx; do
  if [ -e "node_modules/$compiler" ] || [ -e "node_modules/blockgate/node_modules/$compiler" ]; then
    echo "FAIL: $compiler was installed" >&2
    exit 1
  fi
done
echo "installed: $(du -sh node_modules | cut -f1), no compiler"
cat >blockgate.yaml <<YAML
server: { port: $port }
YAML
# The installed bin itself, as a supervisor runs it (npm exec in between would answer SIGTERM
# with its own exit status).
BLOCKGATE_CONFIG=blockgate.yaml node_modules/.bin/blockgate start >start.log 2>&1 &
gateway=$!
for _ in $(seq 1 120); do grep -q "^blockgate listening" start.log && break; sleep 0.5; done
head -1 start.log
token="$(npx blockgate token issue "$(npx blockgate account create try --credits 1000 --json | node -pe 'JSON.parse(require("fs").readFileSync(0)).name')" --json | node -pe 'JSON.parse(require("fs").readFileSync(0)).token')"
answer="$(curl -s "http://127.0.0.1:$port/node/mainnet/$token" -H 'content-type: application/json' \
  -d '{"jsonrpc":"2.0","id":1,"method":"getblockcount","params":[]}')"
echo "first curl: $answer"
case "$answer" in *'"result":'*) ;; *) echo "FAIL: no result" >&2; exit 1 ;; esac
kill -TERM "$gateway"
wait "$gateway" && echo "stopped: exit 0"
