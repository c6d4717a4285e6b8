import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** What the receiver answered (0: it never answered). */
  answered: number;
}

/** How a path answers: a status for every call, or one per call in order (the last repeats). */
export type Behaviour = number | number[] | 'hang';

/**
 * A webhook receiver on loopback: records every call (headers, raw body) per path and answers as
 * told. `hang` never answers, so the sender's timeout decides.
 */
export async function startWebhookReceiver() {
  const calls: ReceivedCall[] = [];
  const behaviours = new Map<string, Behaviour>();
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const b = behaviours.get(path) ?? 200;
      const nth = calls.filter((c) => c.path === path).length;
      const status = b === 'hang' ? 0 : Array.isArray(b) ? b[Math.min(nth, b.length - 1)] : b;
      calls.push({ path, headers, body: Buffer.concat(chunks).toString('utf8'), answered: status });
      if (status === 0) return void hanging.add(res);
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path: string, behaviour?: Behaviour) => {
      if (behaviour !== undefined) behaviours.set(path, behaviour);
      return `${base}${path}`;
    },
    calls: (path: string) => calls.filter((c) => c.path === path),
    async stop() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
