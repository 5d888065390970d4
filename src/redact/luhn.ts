// The Luhn check digit every payment card number carries (ISO/IEC 7812). A random digit string
// passes one time in ten, so the card detector also checks issuer prefixes and lengths (card.ts).

/** True when a string of ASCII digits passes the Luhn check. */
export function luhnValid(digits: string): boolean {
  if (digits.length === 0) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}
