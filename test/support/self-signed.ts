import { generateKeyPairSync, sign } from "node:crypto";

/**
 * A self-signed certificate for `commonName` (EC P-256, ECDSA with SHA-256), DER-encoded here with
 * node's crypto doing the key and the signature: tests get a TLS certificate at run time without a
 * package or the openssl binary. X.509 v1 fields only (no extensions): clients in tests do not
 * verify it, as Electrum wallets do not verify a server's self-signed certificate.
 */
export function selfSignedCert(commonName: string): { cert: string; key: string } {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const name = seq(set(seq(oid("2.5.4.3"), tlv(0x0c, Buffer.from(commonName, "utf8")))));
  const ecdsaSha256 = seq(oid("1.2.840.10045.4.3.2"));
  const now = Date.now();
  const tbs = seq(
    integer(Buffer.from([1])),
    ecdsaSha256,
    name,
    seq(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    name,
    publicKey.export({ type: "spki", format: "der" }),
  );
  const signature = sign("sha256", tbs, privateKey);
  const der = seq(tbs, ecdsaSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const body = der.toString("base64").replace(/.{64}/g, "$&\n");
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length =
    n < 0x80
      ? Buffer.from([n])
      : Buffer.concat([Buffer.from([0x80 | 2]), Buffer.from([n >> 8, n & 0xff])]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
const integer = (bytes: Buffer) => tlv(0x02, bytes);

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split(".").map(Number);
  const bytes = [40 * a + b];
  for (const n of rest) {
    const base128 = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) base128.unshift((v & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function utcTime(date: Date): Buffer {
  const text = `${date.toISOString().slice(2, 19).replace(/[-T:]/g, "")}Z`;
  return tlv(0x17, Buffer.from(text, "ascii"));
}
