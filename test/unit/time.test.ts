// How an instant is printed everywhere (formatInstantMicros, formatInstant), and how a wall-clock
// TIMESTAMP is read in a time zone (zoneReader) with DuckDB's rules for clock changes.
import { describe, expect, it } from 'vitest';
import { formatInstant, formatInstantMicros, zoneReader } from '../../src/shared/time.js';

const micros = (iso: string, extraMicros = 0n) => BigInt(Date.parse(iso)) * 1000n + extraMicros;

describe('formatInstantMicros', () => {
  it('prints UTC with Z and no fraction for whole seconds', () => {
    expect(formatInstantMicros(micros('2026-10-31T23:59:59Z'))).toBe('2026-10-31T23:59:59Z');
    expect(formatInstantMicros(0n)).toBe('1970-01-01T00:00:00Z');
  });

  it('prints milliseconds when the fraction is whole milliseconds, microseconds otherwise', () => {
    expect(formatInstantMicros(micros('2026-10-31T23:59:59.250Z'))).toBe('2026-10-31T23:59:59.250Z');
    expect(formatInstantMicros(micros('2026-10-31T23:59:59.001Z'))).toBe('2026-10-31T23:59:59.001Z');
    expect(formatInstantMicros(micros('2026-10-31T23:59:59.250Z', 125n))).toBe('2026-10-31T23:59:59.250125Z');
    expect(formatInstantMicros(micros('2026-10-31T23:59:59Z', 7n))).toBe('2026-10-31T23:59:59.000007Z');
  });

  it('handles instants before 1970 (negative microseconds) and the edges of years 0001–9999', () => {
    expect(formatInstantMicros(-1n)).toBe('1969-12-31T23:59:59.999999Z');
    expect(formatInstantMicros(-1000n)).toBe('1969-12-31T23:59:59.999Z');
    expect(formatInstantMicros(micros('0001-01-01T00:00:00Z'))).toBe('0001-01-01T00:00:00Z');
    expect(formatInstantMicros(micros('9999-12-31T23:59:59.999Z', 999n))).toBe('9999-12-31T23:59:59.999999Z');
  });

  it('returns null outside years 0001–9999 and for DuckDB infinity', () => {
    expect(formatInstantMicros(micros('0001-01-01T00:00:00Z') - 1n)).toBeNull();
    expect(formatInstantMicros(micros('9999-12-31T23:59:59.999Z', 1000n))).toBeNull();
    expect(formatInstantMicros(9223372036854775807n)).toBeNull();
    expect(formatInstantMicros(-9223372036854775807n)).toBeNull();
  });

  it('formatInstant prints a Date the same way', () => {
    expect(formatInstant(new Date('2026-11-01T08:00:00.000Z'))).toBe('2026-11-01T08:00:00Z');
    expect(formatInstant(new Date('2026-11-01T08:00:00.585Z'))).toBe('2026-11-01T08:00:00.585Z');
  });
});

describe('zoneReader', () => {
  const read = (zone: string, wall: string) => formatInstantMicros(zoneReader(zone)(micros(`${wall}Z`)));

  it('leaves wall times in UTC (any spelling of it) as they are', () => {
    for (const zone of ['UTC', 'Etc/UTC', 'etc/utc', 'GMT']) {
      expect(read(zone, '2026-10-25T02:30:00.125')).toBe('2026-10-25T02:30:00.125Z');
    }
  });

  it('subtracts the offset in force, fractions included', () => {
    expect(read('Europe/Berlin', '2026-07-01T12:00:00.250')).toBe('2026-07-01T10:00:00.250Z');
    expect(read('Europe/Berlin', '2026-01-01T00:30:00')).toBe('2025-12-31T23:30:00Z');
    expect(read('Asia/Kolkata', '2026-11-01T05:30:00')).toBe('2026-11-01T00:00:00Z');
    expect(read('America/New_York', '2026-11-10T19:00:00')).toBe('2026-11-11T00:00:00Z');
    expect(read('Europe/London', '1969-07-20T20:17:40')).toBe('1969-07-20T19:17:40Z');
  });

  // The expected instants are DuckDB's: SET TimeZone = zone; SELECT wall::TIMESTAMP::TIMESTAMPTZ.
  it('reads a skipped hour with the offset before the change, as DuckDB does', () => {
    expect(read('Europe/Berlin', '2026-03-29T01:59:59')).toBe('2026-03-29T00:59:59Z');
    expect(read('Europe/Berlin', '2026-03-29T02:00:00')).toBe('2026-03-29T01:00:00Z');
    expect(read('Europe/Berlin', '2026-03-29T02:30:00')).toBe('2026-03-29T01:30:00Z');
    expect(read('Europe/Berlin', '2026-03-29T03:00:00')).toBe('2026-03-29T01:00:00Z');
    expect(read('America/New_York', '2026-03-08T02:30:00')).toBe('2026-03-08T07:30:00Z');
  });

  it('reads a repeated hour as its later instant, as DuckDB does', () => {
    expect(read('Europe/Berlin', '2026-10-25T01:59:59')).toBe('2026-10-24T23:59:59Z');
    expect(read('Europe/Berlin', '2026-10-25T02:00:00')).toBe('2026-10-25T01:00:00Z');
    expect(read('Europe/Berlin', '2026-10-25T02:30:00')).toBe('2026-10-25T01:30:00Z');
    expect(read('Europe/Berlin', '2026-10-25T03:00:00')).toBe('2026-10-25T02:00:00Z');
    expect(read('America/New_York', '2026-11-01T01:30:00')).toBe('2026-11-01T06:30:00Z');
  });

  it('throws a RangeError for a zone it does not know', () => {
    expect(() => zoneReader('Mars/Olympus')).toThrow(RangeError);
  });
});
