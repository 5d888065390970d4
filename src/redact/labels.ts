// What stands right before a number, when it says the number is not a phone or card number.
//
// A number the speaker just named as something else is not a phone or card number, whatever
// its digits: "order number 0151234567", "Sendungsnummer 4111111111111111", "IMEI 3520…". The
// phone and card detectors skip a candidate when such a label stands right before it. The list
// is short on purpose: a label that is not there costs precision, a label that is there but
// wrong (a card number read out after "customer number") costs recall.

// Only the text shortly before a number counts, and only up to the previous digit or sentence
// end, so that "my order is late, call 030 1234567" still finds the phone number.
const WINDOW = 32;

// Words that name a number as a record of some kind, alone or with "number", "Nr.", "ID", "#".
const RECORD_WORDS =
  'order|bestellung|bestell|auftrag|auftrags|tracking|sendung|sendungs|paket|invoice|rechnung|rechnungs|' +
  'customer|kunden|account|konto|contract|vertrag|vertrags|ticket|case|vorgang|vorgangs|reference|referenz|' +
  'serial|serien|transaction|transaktion|transaktions|article|artikel|item|product|produkt|member|mitglieds|' +
  'policy|police|versicherungs|booking|buchung|buchungs|reservation|reservierung|reservierungs|shipment|parcel';
const NUMBER_WORDS = 'number|nummer|no\\.?|nr\\.?|id|#|code';
const STANDALONE = 'imei|blz|aktenzeichen|az\\.|sku|ean|gtin|isbn|ref\\.?';
// The label must end the window: "Kundennummer: 0123…", "order no. #…", "Ticket 4711 …"; the
// number may be enclosed in brackets or quotes: "order number (4111…)", „0151…“.
const LABEL_AT_END = new RegExp(
  `(?:^|[^\\p{L}])(?:(?:${RECORD_WORDS})[\\s-]*(?:${NUMBER_WORDS})?|${STANDALONE})[\\s:#.=-]*(?:(?:is|ist|lautet|war|was)[\\s:]*)?[([{<"'«‹„“‘]?$`,
  'iu',
);

/** True when the text right before `start` names the number that follows as an id of some kind. */
export function labelledAsId(text: string, start: number): boolean {
  let from = Math.max(0, start - WINDOW);
  const before = text.slice(from, start);
  // cut at the last digit or sentence end: the label must belong to this number
  const cut = Math.max(before.search(/[\d!?;][^\d!?;]*$/) + 1, 0);
  from += cut;
  return LABEL_AT_END.test(text.slice(from, start));
}

/** True when the number at `start` continues an IBAN-like string ("DE89 ", "NL91 ABNA "), checked or not. */
export function afterIbanHead(text: string, start: number): boolean {
  return IBAN_HEAD_AT_END.test(text.slice(Math.max(0, start - 48), start));
}
const IBAN_HEAD_AT_END = /(?:^|[^\p{L}\p{N}])[A-Za-z]{2} ?\d{2}(?: [A-Za-z0-9]{4})* $/u;
