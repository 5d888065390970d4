// The check digits and shapes behind the detectors, one at a time.
import { describe, expect, it } from 'vitest';
import {
  detectPersonalData,
  ibanValid,
  isCardNumber,
  isPhoneNumber,
  issuerAccepts,
  luhnValid,
  mod97,
  redactText,
  redactUrlQuery,
} from '../../src/redact/index.js';

describe('Luhn', () => {
  it('accepts the published test card numbers and rejects one changed digit', () => {
    for (const n of ['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117', '4222222222222', '79927398713']) {
      expect(luhnValid(n), n).toBe(true);
    }
    for (const n of ['4111111111111112', '5555555555554445', '378282246310006', '79927398710']) expect(luhnValid(n), n).toBe(false);
  });
  it('rejects what is not a string of digits', () => {
    expect(luhnValid('')).toBe(false);
    expect(luhnValid('4111 1111 1111 1111')).toBe(false);
    expect(luhnValid('411111111111111a')).toBe(false);
  });
  it('is not enough alone: a Luhn-valid IMEI is no card, an issuer range must match', () => {
    expect(luhnValid('352099001761481')).toBe(true);
    expect(issuerAccepts('352099001761481')).toBe(false);
    expect(isCardNumber('352099001761481')).toBe(false);
    expect(isCardNumber('378282246310005')).toBe(true); // Amex: 34/37 and 15 digits
    expect(isCardNumber('4111111111111')).toBe(false); // Visa length, but fails Luhn
    expect(isCardNumber('1111111111111116')).toBe(false); // Luhn-valid, no issuer starts with 1
  });
});

describe('IBAN mod-97', () => {
  it('accepts the registry examples, in either case, and rejects a changed digit', () => {
    for (const iban of ['DE89370400440532013000', 'GB29NWBK60161331926819', 'NL91ABNA0417164300', 'NO9386011117947', 'de89370400440532013000']) {
      expect(ibanValid(iban), iban).toBe(true);
    }
    expect(ibanValid('DE89370400440532013001')).toBe(false);
    expect(ibanValid('DE88370400440532013000')).toBe(false);
  });
  it('rejects a string of the wrong length for its country even when mod-97 holds', () => {
    expect(ibanValid('XX89370400440532013000')).toBe(false); // no such country
    expect(ibanValid('DE8937040044053201300')).toBe(false);
  });
  it('computes ISO 7064 MOD 97-10 digit by digit', () => {
    expect(mod97('3704004405320130001314' + '89')).toBe(1);
    expect(mod97('12-3')).toBe(-1);
  });
});

describe('phone number shapes', () => {
  it.each([
    '+49 30 1234567', '+1 (415) 555-0132', '0151 23456789', '030/1234567', '(415) 555-0132', '415-555-0132',
    '+44 20 7946 0958', '+49 (0)30 1234567', '0049 30 1234567', '415.555.0132', '1-800-555-0199', '(030) 123 45 67',
  ])('%s is a phone number', (s) => expect(isPhoneNumber(s)).toBe(true));
  it.each(['2024-03-15', '15.03.2024', '10115', '1.234.567', '4155550132', '555-0132', '0000 123456', '010.100.200.300', '(415 555-0132'])(
    '%s is not',
    (s) => expect(isPhoneNumber(s)).toBe(false),
  );
});

describe('redactText', () => {
  it('replaces each kind by its placeholder and leaves the rest as it was', () => {
    expect(redactText('Mail a.b@example.de, call +49 30 1234567, card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00.')).toBe(
      'Mail [email], call [phone], card [card], IBAN [iban].',
    );
  });
  it('replaces only the kinds asked for', () => {
    expect(redactText('a.b@example.de 030 1234567', { kinds: ['phone'] })).toBe('a.b@example.de [phone]');
  });
  it('gives overlapping detections to the more specific kind', () => {
    // the IBAN's tail "0044 0532 0130 00" would be a phone number on its own
    expect(detectPersonalData('DE89 3704 0044 0532 0130 00').map((s) => s.kind)).toEqual(['iban']);
  });
  it('keeps a card number apart from the CVV after it', () => {
    expect(redactText('4111 1111 1111 1111 123')).toBe('[card] 123');
  });
  it('skips a number labelled as an order or customer number', () => {
    expect(redactText('Kundennummer 0151 23456789, order no. 4111111111111111')).toBe('Kundennummer 0151 23456789, order no. 4111111111111111');
    expect(redactText('my order is late, call 0151 23456789')).toBe('my order is late, call [phone]');
    expect(redactText('order number (4111111111111111), Kundennummer [0151 23456789]')).toBe(
      'order number (4111111111111111), Kundennummer [0151 23456789]',
    );
  });
  it('finds a phone number in parentheses, and keeps the parentheses', () => {
    expect(redactText('me (+49 30 1234567)')).toBe('me ([phone])');
    expect(redactText('x (0171 1234567) y')).toBe('x ([phone]) y');
    expect(redactText('(+1 (415) 555-0132) or (+44 (0)20 7946 0958) 12')).toBe('([phone]) or ([phone]) 12');
    expect(redactText('call 0171 1234567 (+33 6 12 34 56 78)')).toBe('call [phone] ([phone])');
  });
});

describe('URL query strings', () => {
  const url = 'https://shop.example/checkout?email=max%40example.de&step=2&q=call+0151+23456789#top';
  it('drops the query and fragment', () => {
    expect(redactUrlQuery(url, 'drop')).toBe('https://shop.example/checkout?[query]');
    expect(redactUrlQuery('https://shop.example/', 'drop')).toBe('https://shop.example/');
  });
  it('cleans only the values that hold personal data', () => {
    expect(redactUrlQuery(url, 'values')).toBe('https://shop.example/checkout?email=[email]&step=2&q=call+[phone]#top');
  });
  it('keeps every character of a value around the datum as it was written', () => {
    expect(redactUrlQuery('https://x.example/p?q=%C2%AB0151+23456789%C2%BB%2C+ok', 'values')).toBe('https://x.example/p?q=%C2%AB[phone]%C2%BB%2C+ok');
    expect(redactText('«https://x.example/p?email=(max%40web.de)»')).toBe('«https://x.example/p?email=([email])»');
  });
  it('keeps the URL in keep mode, and a sentence’s final full stop outside it', () => {
    expect(redactUrlQuery(url, 'keep')).toBe(url);
    expect(redactText('see https://x.example/p?a=1&b=2.', { urlQuery: 'drop' })).toBe('see https://x.example/p?[query].');
  });
});
