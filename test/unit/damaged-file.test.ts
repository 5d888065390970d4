// Which errors of an opening say the file is damaged: the one test a sync's restore from the
// last-good copy (store/restore-last-good.ts) and a reader's hint share. The damaged ones are as
// DuckDB 1.5.5 gave them here for files damaged on purpose; the others as DuckDB words them.
import { describe, expect, it } from 'vitest';
import { isDamagedFileError } from '../../src/store/last-good.js';

describe('isDamagedFileError', () => {
  it.each([
    // a torn metadata block (repro/duckdb-torn-metadata.mjs), and a torn database header
    'IO Error: Corrupt database file: computed checksum 3015095448457938546 does not match stored checksum 16834428681597389495 in block at location 12288',
    'IO Error: Corrupt database file: computed checksum 6978147412983232700 does not match stored checksum 8497736971858889697 in block at location 4096',
    // a file cut short
    'IO Error: Could not read enough bytes from file "/data/convoduck.duckdb": attempted to read 262144 bytes from location 798720',
  ])('damaged: %s', (message) => {
    expect(isDamagedFileError(message)).toBe(true);
  });

  it.each([
    'IO Error: Could not set lock on file "/data/convoduck.duckdb": Conflicting lock is held in /usr/bin/node (PID 4242)',
    'IO Error: Cannot open file "/data/convoduck.duckdb": Permission denied',
    'IO Error: The file "/data/convoduck.duckdb" exists, but it is not a valid DuckDB database file!',
    'Serialization Error: Failed to deserialize: field id mismatch, expected: 200, got: 103',
    'IO Error: Trying to read a database file with version number 99, but we can only read versions 64 and up',
    'Out of Memory Error: failed to allocate data of size 256.0 KiB (60.3 MiB/61.0 MiB used)',
  ])('not damaged: %s', (message) => {
    expect(isDamagedFileError(message)).toBe(false);
  });
});
