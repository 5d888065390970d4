// The test-only failing disk of recordings (src/recordings/disk.ts): what CONVODUCK_TEST_RECORDINGS_DISK may say.
import { describe, expect, it } from 'vitest';
import { FILE_FAULTS, fileFault, parseDiskFault } from '../../src/recordings/disk.js';

describe('the failing disk of recordings', () => {
  it('reads a size, a fault, or both, and refuses anything else', () => {
    expect(parseDiskFault('size=163840')).toEqual({ sizeBytes: 163_840 });
    expect(parseDiskFault('fail=EIO')).toEqual({ failWith: 'EIO' });
    expect(parseDiskFault('size=10, fail=each')).toEqual({ sizeBytes: 10, failWith: 'each' });
    expect(parseDiskFault('size=big')).toBeNull();
    expect(parseDiskFault('full')).toBeNull();
  });

  it('gives each file one fault by its name, the same on every try', () => {
    const id = '0b6e3c52-8a1f-4f7e-9c55-2d1b7e0a9f31';
    expect(FILE_FAULTS).toContain(fileFault(`/a/${id}.part`));
    expect(fileFault(`/a/${id}.part`)).toBe(fileFault(`/b/${id}.part`));
  });
});
