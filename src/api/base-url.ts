// The API's base URL: checked once, before any request, so that a typo is a clear one-line error
// and the key can never be sent in plain text to a host that is not this machine.

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * Checks the API's base URL: http(s), path ending in /api/v1 (trailing slash tolerated), https
 * unless the host is loopback, no credentials, query or fragment. Returns it without the trailing
 * slash. Throws an Error with a one-line message.
 */
export function parseBaseUrl(input: string): URL {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new Error(`base URL ${JSON.stringify(input)} is not a URL (expected e.g. https://api.example.com/api/v1)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`base URL must use https:// (got ${url.protocol}//)`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new Error(`base URL ${url.origin} must use https:// (plain http is allowed only on loopback: 127.0.0.1, localhost, [::1])`);
  }
  if (url.username || url.password) {
    throw new Error('base URL must not contain credentials: pass the API key via CONVODUCK_API_KEY or --api-key-file');
  }
  if (url.search || url.hash) throw new Error(`base URL ${url.origin}${url.pathname} must not have a query or fragment`);
  const path = url.pathname.replace(/\/$/, '');
  if (!path.endsWith('/api/v1')) {
    throw new Error(`base URL path ${JSON.stringify(url.pathname)} must end with /api/v1`);
  }
  url.pathname = path;
  return url;
}
