/**
 * Java `double` text as fastjson 1.2.69 writes it. SerializeWriter.writeDouble uses its own RyuDouble
 * (not Double.toString), so the digits are the shortest that round-trip, on every JDK:
 *  - |x| in [1e-3, 1e7): plain notation, always with a fraction (`0.0`, `100.0`, `0.001`);
 *  - otherwise `d.dddE<exp>` with at least two significant digits (`1.0E7`, `1.0E-4`, `4.9E-324`);
 *  - NaN and the infinities are not numbers: DoubleSerializer writes `null` for them (the caller does).
 * JS's shortest round-trip digits are the same as Ryu's; where Ryu keeps a second digit that the shortest
 * form would drop, that digit is the value correctly rounded to two digits, which toExponential(1) gives.
 */
export function formatJavaDouble(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(x);
  if (abs >= 1e-3 && abs < 1e7) {
    // JS prints plain notation in this range with the same shortest digits.
    const s = String(x);
    return s.includes('.') ? s : `${s}.0`;
  }
  let e = x.toExponential();
  let mark = e.indexOf('e');
  let mantissa = e.slice(0, mark);
  if (!mantissa.includes('.')) {
    e = x.toExponential(1);
    mark = e.indexOf('e');
    mantissa = e.slice(0, mark);
  }
  const expSign = e.charCodeAt(mark + 1) === 0x2d ? '-' : '';
  return `${mantissa}E${expSign}${e.slice(mark + 2)}`;
}
