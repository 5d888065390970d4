// What a recording link and its bytes say: a signed link's expiry, a content type's extension, a WAV header's duration.
import { describe, expect, it } from 'vitest';
import { extensionOf, linkExpired, linkExpiresAt, wavDurationSeconds } from '../../src/recordings/link.js';
import { recordingBytes } from '../../src/simulator/http/recordings.js';

describe('recording links', () => {
  it('reads an S3-style expiry (X-Amz-Date + X-Amz-Expires) and an epoch `expires`', () => {
    const amz = 'http://127.0.0.1:1/r/a.wav?X-Amz-Date=20261127T120000Z&X-Amz-Expires=300&X-Amz-Signature=ab';
    expect(linkExpiresAt(amz)).toBe(Date.UTC(2026, 10, 27, 12, 5, 0));
    expect(linkExpiresAt('http://127.0.0.1:1/a.mp3?expires=1800000000&sig=x')).toBe(1_800_000_000_000);
    expect(linkExpiresAt('http://127.0.0.1:1/a.mp3')).toBeNull();
    expect(linkExpiresAt('not a url')).toBeNull();
    expect(linkExpired(amz, Date.UTC(2026, 10, 27, 12, 4, 0))).toBe(false);
    expect(linkExpired(amz, Date.UTC(2026, 10, 27, 12, 4, 59))).toBe(true); // within the margin
    expect(linkExpired('http://127.0.0.1:1/a.mp3', Date.now())).toBe(false);
  });

  it('reads the expiry of a GCS link (X-Goog-Date + X-Goog-Expires) and of a CloudFront one (Expires), and none of an unsigned one', () => {
    expect(linkExpiresAt('http://127.0.0.1:1/b/a.wav?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Date=20261127T120000Z&X-Goog-Expires=600&X-Goog-Signature=ab')).toBe(Date.UTC(2026, 10, 27, 12, 10, 0));
    expect(linkExpiresAt('http://127.0.0.1:1/a.wav?Expires=1800000000&Signature=x&Key-Pair-Id=K')).toBe(1_800_000_000_000);
    expect(linkExpiresAt('http://127.0.0.1:1/a.wav?X-Amz-Date=20261127T120000Z&X-Amz-Expires=soon')).toBeNull();
  });

  it('names the file by its content type', () => {
    expect(extensionOf('audio/wav')).toBe('wav');
    expect(extensionOf('audio/x-wav; charset=binary')).toBe('wav');
    expect(extensionOf('audio/mpeg')).toBe('mp3');
    expect(extensionOf('application/octet-stream')).toBe('bin');
    expect(extensionOf(null)).toBe('bin');
  });

  it('gives the duration a WAV header states, and none for other bytes', () => {
    const wav = recordingBytes('0b6e3c52-8a1f-4f7e-9c55-2d1b7e0a9f31');
    expect(wavDurationSeconds(wav.subarray(0, 44), wav.length)).toBe((wav.length - 44) / 8000);
    expect(wavDurationSeconds(Buffer.alloc(44), 44)).toBeNull();
  });
});
