#!/usr/bin/env bash
# A stock Electrum wallet (Debian's python3-electrum 4.3) through the gateway's Electrum TLS
# listener, on devnet regtest: starts a gateway from this checkout with a config of its own (a
# self-signed certificate, PGlite in a temporary folder), issues a token, mines 101 blocks so a
# coinbase is spendable, then runs interop/electrum_wallet.py, which drives Electrum's own Network
# and wallet. Installs nothing: it needs `apt-get install -y python3-electrum`, openssl, Node.
# Usage: interop/electrum-wallet.sh   (from anywhere; exit 0 when every step passed)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=/usr/bin/python3  # Debian's, which python3-electrum installs into
if ! "$PYTHON" -c 'import electrum' 2>/dev/null; then
  echo "electrum-wallet.sh: needs Debian's Electrum: apt-get install -y python3-electrum" >&2
  exit 2
fi
command -v openssl >/dev/null || { echo "electrum-wallet.sh: needs openssl" >&2; exit 2; }

SUFFIX=electrum.localhost
work=$(mktemp -d)
gateway=""
cleanup() {
  if [ -n "$gateway" ]; then kill "$gateway" 2>/dev/null && wait "$gateway" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Two free ports on 127.0.0.1, for the HTTP server and the TLS listener.
read -r http_port tls_port < <("$PYTHON" -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -subj "/CN=*.regtest.$SUFFIX" -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null

cat >"$work/config.yaml" <<YAML
server:
  host: 127.0.0.1
  port: $http_port
networks: [regtest]
database:
  pgliteDir: $work/db
electrum:
  tls:
    host: 127.0.0.1
    port: $tls_port
    certFile: $work/cert.pem
    keyFile: $work/key.pem
    serverNameSuffix: $SUFFIX
YAML

export BLOCKGATE_CONFIG="$work/config.yaml"
# PGlite in $work, whatever this shell says; no shared cache tier.
unset DATABASE_URL REDIS_URL
echo "gateway: npm start with $BLOCKGATE_CONFIG (log: $work/gateway.log)"
node scripts/start.mjs >"$work/gateway.log" 2>&1 &
gateway=$!
for _ in $(seq 1 240); do
  if curl -sf "http://127.0.0.1:$http_port/healthz" >/dev/null 2>&1; then break; fi
  kill -0 "$gateway" 2>/dev/null || { cat "$work/gateway.log" >&2; exit 1; }
  sleep 0.5
done
curl -sf "http://127.0.0.1:$http_port/healthz" >/dev/null || { echo "gateway did not start" >&2; exit 1; }

cli() { node bin/blockgate.js "$@"; }
token=$(cli token issue demo | grep -o 'bgt_[A-Za-z0-9_-]*' | head -1)
[ -n "$token" ] || { echo "no token issued" >&2; exit 1; }
server=$(cli electrum-name "$token" regtest | head -1)
echo "token: issued for the demo account; wallet server: <token in DNS form>.regtest.$SUFFIX:$tls_port:s"
cli devnet mine --blocks 101 >/dev/null
echo "devnet: 101 regtest blocks mined (a coinbase is spendable)"

"$PYTHON" interop/electrum_wallet.py --server "$server" --port "$tls_port" --suffix "$SUFFIX" \
  --mine "node bin/blockgate.js devnet mine" --datadir "$work/electrum"
