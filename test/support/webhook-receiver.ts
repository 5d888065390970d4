// A webhook receiver on 127.0.0.1 for the alert tests: it answers as told (taking posts, 500, or
// never answering), keeps the Alertmanager bodies it took and counts every post it was sent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceiverMode = 'down' | 'hang' | 'up';

/** An Alertmanager webhook body (version 4), as much of it as the tests read. */
export interface PostedAlerts {
  status: string;
  alerts: { status: string; labels: Record<string, string>; startsAt: string; endsAt: string; fingerprint: string }[];
}

export interface WebhookReceiver {
  /** the URL to post to, with `token` in its path */
  url: string;
  mode: ReceiverMode;
  /** the bodies taken (answered 200), in order */
  accepted: PostedAlerts[];
  /** every post sent, whatever the answer */
  requests: number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(token: string, mode: ReceiverMode = 'up'): Promise<WebhookReceiver> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      receiver.requests++;
      if (receiver.mode === 'hang') return; // never answers
      if (receiver.mode === 'down') return void res.writeHead(500).end('down');
      receiver.accepted.push(JSON.parse(body) as PostedAlerts);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/${token}`,
    mode,
    accepted: [],
    requests: 0,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return receiver;
}
