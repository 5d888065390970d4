// The check digits the simulator's card numbers and IBANs carry, computed forward (the digit
// that makes a number valid) rather than tested: the simulator generates what redact/ detects,
// so it keeps its own arithmetic and shares nothing with the detectors it is there to exercise.

/** The Luhn check digit (ISO/IEC 7812) that completes `head`, a string of ASCII digits. */
export function luhnCheckDigit(head: string): number {
  const sum = [...head].reverse().reduce((acc, ch, i) => {
    const d = Number(ch) * (i % 2 === 0 ? 2 : 1);
    return acc + (d > 9 ? d - 9 : d);
  }, 0);
  return (10 - (sum % 10)) % 10;
}

/** The two IBAN check digits (ISO 7064 MOD 97-10) of a numeric `bban` in `country` (two letters). */
export function ibanCheckDigits(country: string, bban: string): string {
  const letters = [...country].map((ch) => String(ch.charCodeAt(0) - 55)).join('');
  const check = 98n - (BigInt(`${bban}${letters}00`) % 97n);
  return check.toString().padStart(2, '0');
}
