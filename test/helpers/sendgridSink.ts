import http from 'node:http';
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface SinkMessage {
  messageId: string;
  /** Date.now() when the request was accepted (the benches time deliveries by it). */
  receivedAt: number;
  authorization?: string;
  body: any;
}

/** One recipient of an accepted request, as the provider would deliver it (substitutions applied). */
export interface SinkRecipient {
  messageId: string;
  email: string;
  name?: string;
  subject: string;
  html: string;
  headers: Record<string, string>;
  customArgs: Record<string, string>;
}

export interface SendgridSink {
  url: string;
  messages: SinkMessage[];
  /** Every recipient of every accepted request, across personalizations (campaign batches carry up to 1000). */
  recipients(): SinkRecipient[];
  recipientCount(): number;
  /** Answer the next `n` requests with `status` (e.g. 500 to exercise retries). */
  failNext(n: number, status: number): void;
  /** Accept and record the next `n` requests but drop the connection instead of answering: the provider took them, the answer got lost. */
  loseAnswers(n: number): void;
  /** Delay every answer (e.g. to hold a send in flight while a test kills the worker). */
  delay(ms: number): void;
  clear(): void;
  stop(): Promise<void>;
}

function expand(m: SinkMessage): SinkRecipient[] {
  const body = m.body ?? {};
  const content: string = body.content?.find((c: any) => c.type === 'text/html')?.value ?? '';
  return (body.personalizations ?? []).flatMap((p: any) => {
    let html = content;
    for (const [tag, value] of Object.entries<string>(p.substitutions ?? {})) html = html.split(tag).join(value);
    return (p.to ?? []).map((to: any) => ({
      messageId: m.messageId,
      email: to.email,
      ...(to.name ? { name: to.name } : {}),
      subject: p.subject ?? body.subject,
      html,
      headers: { ...body.headers, ...p.headers },
      customArgs: { ...body.custom_args, ...p.custom_args },
    }));
  });
}

/** A local stand-in for SendGrid's v3 `/v3/mail/send`: 202 + `X-Message-Id`, recording what the real client sent. */
/** The environment of a harness whose worker sends through this sink and verifies signed Event Webhook posts with `publicKey`. */
export function sendgridEnv(sink: SendgridSink, publicKey: import('node:crypto').KeyObject): Record<string, string> {
  return {
    EMAIL_TRANSPORT: 'sendgrid',
    SENDGRID_API_KEY: 'SG.test-key',
    SENDGRID_API_URL: sink.url,
    SENDGRID_WEBHOOK_PUBLIC_KEY: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  };
}

export async function startSendgridSink(): Promise<SendgridSink> {
  const messages: SinkMessage[] = [];
  let failures: { left: number; status: number } = { left: 0, status: 500 };
  let delayMs = 0;
  let lostAnswers = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      if (req.method !== 'POST' || req.url !== '/v3/mail/send') {
        res.writeHead(404).end();
        return;
      }
      if (failures.left > 0) {
        failures.left--;
        res.writeHead(failures.status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ errors: [{ message: 'sink failure' }] }));
        return;
      }
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const messageId = crypto.randomBytes(11).toString('base64url');
      messages.push({ messageId, receivedAt: Date.now(), authorization: req.headers.authorization, body });
      if (lostAnswers > 0) {
        lostAnswers--;
        req.socket.destroy();
        return;
      }
      res.writeHead(202, { 'X-Message-Id': messageId }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    messages,
    recipients: () => messages.flatMap(expand),
    recipientCount: () => messages.reduce((n, m) => n + (m.body?.personalizations ?? []).reduce((k: number, p: any) => k + (p.to?.length ?? 0), 0), 0),
    failNext(n, status) {
      failures = { left: n, status };
    },
    loseAnswers(n) {
      lostAnswers = n;
    },
    delay(ms) {
      delayMs = ms;
    },
    clear() {
      messages.length = 0;
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
