// What a recording link and its bytes say about themselves: when a signed link expires (S3's
// X-Amz-Date + X-Amz-Expires, GCS's X-Goog-Date + X-Goog-Expires, or a CloudFront-style
// `Expires`/`expires` epoch; a link of any other scheme, or none, does not say), the file
// extension of a content type, the duration a WAV header gives. Pure functions.

/** When the signed link stops working (ms epoch), or null when it does not say. */
export function linkExpiresAt(link: string): number | null {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  const q = url.searchParams;
  for (const vendor of ['Amz', 'Goog']) {
    const date = q.get(`X-${vendor}-Date`);
    const lives = q.get(`X-${vendor}-Expires`);
    if (date === null || lives === null) continue;
    const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(date);
    const seconds = Number(lives);
    if (m && /^\d+$/.test(lives)) return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) + seconds * 1000;
  }
  const epoch = q.get('expires') ?? q.get('Expires');
  if (epoch !== null && /^\d+$/.test(epoch)) return Number(epoch) * 1000;
  return null;
}

/** The link has expired, or will within `marginMs` (a download started then would be refused). */
export function linkExpired(link: string, nowMs: number, marginMs = 2_000): boolean {
  const at = linkExpiresAt(link);
  return at !== null && at <= nowMs + marginMs;
}

const EXTENSIONS: Record<string, string> = {
  'audio/wav': 'wav',
  'audio/wave': 'wav',
  'audio/x-wav': 'wav',
  'audio/vnd.wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/webm': 'webm',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/flac': 'flac',
};

/** The file extension of a content type (its parameters ignored); `bin` for one it does not know. */
export function extensionOf(contentType: string | null): string {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return EXTENSIONS[type] ?? 'bin';
}

/** The duration a RIFF/WAVE header states (data size / byte rate), or null when it is not one. */
export function wavDurationSeconds(head: Buffer, totalBytes: number): number | null {
  if (head.length < 44 || head.toString('ascii', 0, 4) !== 'RIFF' || head.toString('ascii', 8, 12) !== 'WAVE') return null;
  const byteRate = head.readUInt32LE(28);
  if (byteRate === 0) return null;
  // the data chunk right after a 16-byte fmt chunk, as most writers lay it out; else the file's rest
  const dataBytes = head.toString('ascii', 36, 40) === 'data' ? head.readUInt32LE(40) : totalBytes - 44;
  return Math.round((Math.min(dataBytes, totalBytes - 44) / byteRate) * 1000) / 1000;
}
