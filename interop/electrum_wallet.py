"""Drives a stock Electrum wallet library (Debian's python3-electrum 4.3) through the gateway.

Run by interop/electrum-wallet.sh, with Debian's /usr/bin/python3:

    electrum_wallet.py --server NAME --port TLS_PORT --mine 'COMMAND' --datadir DIR

NAME is the TLS server name with the token in its first label. Electrum's own Network connects
to it as it connects to any server (regtest, one server, the self-signed certificate pinned on
first use), and an imported-address wallet syncs through it. Nothing of Electrum is changed: the
one thing supplied from outside is name resolution. A deployment publishes a wildcard DNS record
for the token names; here, Electrum's ordinary proxy setting points at a small SOCKS5 proxy in
this process that sends every name under the listener's suffix to 127.0.0.1, as that record would.

Each step prints one line, `step N <what>: ok <details>`; the first that fails ends the run with a
non-zero exit code.
"""

import argparse
import asyncio
import shlex
import subprocess
import sys
import time

from electrum import bitcoin, constants, ecc, util
from electrum.network import Network
from electrum.simple_config import SimpleConfig
from electrum.transaction import Transaction
from electrum.verifier import SPV
from electrum.wallet import restore_wallet_from_text

# P2WSH(OP_TRUE): devnet pays every block's coinbase to it, and anyone may spend it.
OP_TRUE_SCRIPT = "51"
WAIT_SECONDS = 60


class StepFailed(Exception):
    pass


def say(step, what, details=""):
    print(f"step {step} {what}: ok {details}".rstrip(), flush=True)


def wait_until(condition, what, seconds=WAIT_SECONDS):
    """Polls `condition` until it holds; fails the step after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise StepFailed(f"{what}: not within {seconds} s")


async def serve_wildcard_socks(suffix, listen_port_holder):
    """SOCKS5 (no authentication, CONNECT) sending names under `suffix` to 127.0.0.1."""

    async def pipe(reader, writer):
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def handle(reader, writer):
        try:
            _version, methods = await reader.readexactly(2)
            await reader.readexactly(methods)
            writer.write(b"\x05\x00")
            _v, _cmd, _rsv, atyp = await reader.readexactly(4)
            if atyp != 3:
                raise ConnectionError("only names are resolved here")
            (length,) = await reader.readexactly(1)
            name = (await reader.readexactly(length)).decode()
            port = int.from_bytes(await reader.readexactly(2), "big")
            if not name.lower().endswith("." + suffix):
                writer.write(b"\x05\x02\x00\x01" + bytes(6))
                raise ConnectionError(f"{name} is not under {suffix}")
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"\x05\x00\x00\x01" + bytes([127, 0, 0, 1]) + port.to_bytes(2, "big"))
            await writer.drain()
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        except (ConnectionError, asyncio.IncompleteReadError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    listen_port_holder.append(server.sockets[0].getsockname()[1])
    return server


def run(coro, timeout=WAIT_SECONDS):
    return Network.run_from_another_thread(coro, timeout=timeout)


def mine(command, blocks):
    out = subprocess.run(
        shlex.split(command) + ["--blocks", str(blocks)],
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout


def spend_op_true(prevout_txid, vout, value, address, fee=1000):
    """A segwit transaction spending a P2WSH(OP_TRUE) output (its witness: the script) to `address`."""
    script = bytes.fromhex(bitcoin.address_to_script(address))
    tx = (
        (2).to_bytes(4, "little")
        + b"\x00\x01"  # segwit marker and flag
        + b"\x01"
        + bytes.fromhex(prevout_txid)[::-1]
        + vout.to_bytes(4, "little")
        + b"\x00"  # empty scriptSig
        + (0xFFFFFFFD).to_bytes(4, "little")
        + b"\x01"
        + (value - fee).to_bytes(8, "little")
        + bytes([len(script)])
        + script
        + b"\x01\x01" + bytes.fromhex(OP_TRUE_SCRIPT)  # one witness item: the script
        + (0).to_bytes(4, "little")
    )
    return tx.hex()


def check_spv(network, iface, txid, height):
    """The merkle branch the server gives must fold to the root of the header Electrum holds."""
    merkle = run(iface.get_merkle_for_transaction(txid, height))
    root = SPV.hash_merkle_root(merkle["merkle"], txid, merkle["pos"])
    header = network.blockchain().read_header(height)
    if header is None or header["merkle_root"] != root:
        raise StepFailed(f"merkle root {root} is not header {height}'s")
    return merkle


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--port", required=True, type=int)
    parser.add_argument("--suffix", required=True)
    parser.add_argument("--mine", required=True, help="command that mines blocks (--blocks K added)")
    parser.add_argument("--datadir", required=True)
    args = parser.parse_args()

    constants.set_regtest()
    loop, stopping_fut, loop_thread = util.create_and_start_event_loop()
    holder = []
    socks = asyncio.run_coroutine_threadsafe(serve_wildcard_socks(args.suffix, holder), loop).result()
    config = SimpleConfig(
        {
            "electrum_path": args.datadir,
            "regtest": True,
            "server": f"{args.server}:{args.port}:s",
            "oneserver": True,
            "auto_connect": False,
            "proxy": f"socks5:127.0.0.1:{holder[0]}::",
        }
    )
    network = Network(config)
    network.start()
    try:
        steps(network, args)
    except StepFailed as e:
        print(f"FAILED: {e}", flush=True)
        return 1
    finally:
        run(network.stop(full_shutdown=True))
        socks.close()
        loop.call_soon_threadsafe(stopping_fut.set_result, 1)
        loop_thread.join(timeout=10)
    print("all steps passed", flush=True)
    return 0


def steps(network, args):
    # 1. Connected, identified, and still connected after Electrum's server-info requests.
    wait_until(network.is_connected, "connect")
    iface = network.interface
    # Electrum asks banner, donation address, peers, relay fee and fee histogram together at
    # connect, and drops a server that refuses any of them.
    wait_until(lambda: network.banner != "" and network.relay_fee is not None, "server info")
    if not network.is_connected():
        raise StepFailed("disconnected after the server-info requests")
    # The token is the name's first label: not printed.
    server = "<token>." + str(iface.server).split(".", 1)[1]
    say(1, "connect", f"server={server} banner={network.banner!r} "
        f"donation={network.donation_address!r} relayfee={network.relay_fee} sat/kB")

    # 2. Headers synced from genesis to the server's tip, Electrum checking each link.
    tip = wait_until(lambda: network.get_server_height() or None, "server height")
    wait_until(lambda: network.get_local_height() >= tip, "headers to the tip")
    genesis = network.blockchain().get_hash(0)
    if genesis != constants.net.GENESIS:
        raise StepFailed(f"genesis {genesis}")
    say(2, "sync headers", f"local height {network.get_local_height()} = server height {tip}")

    # 3. Balance, history and unspent outputs of the address devnet mines to.
    op_true_address = bitcoin.script_to_p2wsh(OP_TRUE_SCRIPT)
    sh = bitcoin.address_to_scripthash(op_true_address)
    history = run(iface.get_history_for_scripthash(sh))
    utxos = run(iface.listunspent_for_scripthash(sh))
    balance = run(iface.get_balance_for_scripthash(sh))
    if not history or not utxos or balance["confirmed"] <= 0:
        raise StepFailed(f"{op_true_address}: nothing found")
    say(3, "address", f"{op_true_address} balance={balance} history={len(history)} txs "
        f"utxos={len(utxos)}")

    # 4. An SPV proof: a coinbase's merkle branch against the header chain Electrum synced.
    first = min((h for h in history if h["height"] > 0), key=lambda h: h["height"])
    raw = run(iface.get_transaction(first["tx_hash"]))
    merkle = check_spv(network, iface, first["tx_hash"], first["height"])
    say(4, "SPV proof", f"tx {first['tx_hash'][:16]}… at height {first['height']} pos "
        f"{merkle['pos']}: root matches header ({len(raw) // 2} B tx)")

    # 5. Fees as Electrum reads them.
    relay = run(iface.get_relay_fee())
    estimate = run(iface.get_estimatefee(2))
    histogram = run(iface.get_fee_histogram())
    say(5, "fees", f"relayfee={relay} sat/kB estimatefee(2)={estimate} histogram={histogram}")

    # 6. A block mined: a new header reaches Electrum, and a new status for a subscribed script.
    statuses = asyncio.Queue()
    run(iface.session.subscribe("blockchain.scripthash.subscribe", [sh], statuses))
    first_status = run(statuses.get())
    before = network.get_local_height()
    mine(args.mine, 1)
    wait_until(lambda: network.get_local_height() == before + 1, "the new header")
    notified = run(statuses.get())
    if notified[1] == first_status[1]:
        raise StepFailed("the status did not change")
    say(6, "new block", f"header {before + 1} received; {op_true_address} status "
        f"{str(first_status[1])[:12]}… → {str(notified[1])[:12]}…")

    pay(network, iface, args, history, utxos)


def pay(network, iface, args, history, utxos):
    # 7. A payment to a new wallet address: seen in the mempool, then mined and SPV-verified by
    # Electrum's own synchronizer and verifier.
    key = ecc.ECPrivkey.generate_random_key()
    address = bitcoin.pubkey_to_address("p2wpkh", key.get_public_key_hex(compressed=True))
    wallet = restore_wallet_from_text(address, path=None, config=network.config)["wallet"]
    wallet.start_network(network)
    wait_until(wallet.is_up_to_date, "wallet synced")
    height = network.get_local_height()
    mature = [u for u in utxos if 0 < u["height"] <= height - 100]
    if not mature:
        raise StepFailed("no mature coinbase to spend")
    coin = min(mature, key=lambda u: u["height"])
    raw = spend_op_true(coin["tx_hash"], coin["tx_pos"], coin["value"], address)
    tx = Transaction(raw)
    txid = tx.txid()
    run(network.broadcast_transaction(tx))
    unconfirmed = wait_until(lambda: wallet.get_balance()[1] or None, "the payment in the mempool")
    say(7, "payment sent", f"{txid[:16]}… {coin['value'] - 1000} sat to {address}; wallet "
        f"unconfirmed={unconfirmed}")
    mine(args.mine, 1)
    verified = wait_until(lambda: wallet.db.get_verified_tx(txid), "the payment verified")
    confirmed = wallet.get_balance()[0]
    merkle = check_spv(network, iface, txid, verified.height)
    say(8, "payment mined", f"height {verified.height} pos {verified.txpos}, verified by "
        f"Electrum's SPV verifier (branch of {len(merkle['merkle'])}); wallet confirmed={confirmed}")
    run(wallet.stop())


if __name__ == "__main__":
    sys.exit(main())
