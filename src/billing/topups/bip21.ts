import { encodeQR } from "@paulmillr/qr";

/** Satoshis as BIP21's `amount`: bitcoins in decimal, no exponent, no trailing zeros. */
export function btcAmount(sats: number): string {
  const whole = Math.floor(sats / 100_000_000);
  const frac = String(sats % 100_000_000)
    .padStart(8, "0")
    .replace(/0+$/, "");
  return frac === "" ? String(whole) : `${whole}.${frac}`;
}

/** The BIP21 URI a wallet opens to pay `sats` to `address`; `label` names the payee. */
export function bip21Uri(address: string, sats: number, label: string): string {
  const params = new URLSearchParams({ amount: btcAmount(sats), label });
  // BIP21 percent-encodes; URLSearchParams writes spaces as '+', which BIP21 does not define.
  return `bitcoin:${address}?${params.toString().replaceAll("+", "%20")}`;
}

/**
 * The URI as a QR code, SVG (scales to any size, needs no image library in the browser). Medium
 * error correction: what wallets' own receive screens use for a URI of this length.
 */
export function qrSvg(text: string): string {
  return encodeQR(text, "svg", { ecc: "medium", border: 2 });
}
