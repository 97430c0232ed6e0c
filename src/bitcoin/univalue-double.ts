/**
 * The text Core's UniValue gives a double (`UniValue(double)` → setFloat): an ostream with
 * `setprecision(16)` and the default float field, i.e. C's `%.16g` — 16 significant digits, the
 * exact binary value rounded half-to-even, trailing zeros dropped, exponent form (`1e+16`,
 * `1e-05`) below 1e-4 or from 1e16 up. JavaScript's shortest round-trip text differs (it may print
 * 17 digits, or fewer than Core keeps), so difficulty is formatted here, digit by digit.
 */
export function univalueDouble(value: number, precision = 16): string {
  if (!Number.isFinite(value)) {
    // UniValue refuses text that is not a JSON number, so Core never prints these.
    throw new RangeError(`${value} has no JSON form`);
  }
  if (value === 0) return Object.is(value, -0) ? "-0" : "0";
  const sign = value < 0 ? "-" : "";
  const { digits, exponent } = roundSignificant(exactDecimal(Math.abs(value)), precision);
  const s = digits.replace(/0+$/, "");
  if (exponent < -4 || exponent >= precision) {
    const mantissa = s.length > 1 ? `${s[0]}.${s.slice(1)}` : s;
    const e = Math.abs(exponent).toString().padStart(2, "0");
    return `${sign}${mantissa}e${exponent < 0 ? "-" : "+"}${e}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${s}`;
  const whole = s.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const fraction = s.slice(exponent + 1);
  return `${sign}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** Every decimal digit of a positive finite double, and the power of ten of the first one. */
function exactDecimal(value: number): { digits: string; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const high = view.getUint32(0);
  const biased = (high >>> 20) & 0x7ff;
  const fraction = (BigInt(high & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  // value = mantissa × 2^power, exactly.
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const power = biased === 0 ? -1074 : biased - 1075;
  if (power >= 0) {
    const digits = (mantissa << BigInt(power)).toString();
    return { digits, exponent: digits.length - 1 };
  }
  // m / 2^k = m × 5^k / 10^k: an integer's digits with the decimal point k places in.
  const digits = (mantissa * 5n ** BigInt(-power)).toString();
  return { digits, exponent: digits.length - 1 + power };
}

/** Round to `precision` significant digits, half to even, as glibc's printf does. */
function roundSignificant(
  exact: { digits: string; exponent: number },
  precision: number,
): { digits: string; exponent: number } {
  const { digits, exponent } = exact;
  if (digits.length <= precision) return exact;
  const head = digits.slice(0, precision);
  const rest = digits.slice(precision);
  const tie = rest[0] === "5" && /^50*$/.test(rest);
  const up = rest[0]! > "5" || (rest[0] === "5" && !tie) || (tie && Number(head.at(-1)) % 2 === 1);
  if (!up) return { digits: head, exponent };
  const bumped = (BigInt(head) + 1n).toString();
  // 999… rounded up gains a digit: one more power of ten, same significant digits.
  return bumped.length > precision
    ? { digits: bumped.slice(0, precision), exponent: exponent + 1 }
    : { digits: bumped, exponent };
}
