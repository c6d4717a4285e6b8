import http from 'node:http';
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';

/** One SendEmail request as the sink understood it (the SESv2 `Content.Simple` form). */
export interface SesSinkMessage {
  messageId: string;
  /** The SigV4 Authorization header the real client sent. */
  authorization?: string;
  from: string;
  to: string[];
  replyTo: string[];
  subject: string;
  html: string;
  headers: Record<string, string>;
  tags: Record<string, string>;
  attachments: Array<{ filename: string; contentType?: string; content: Buffer }>;
  configurationSet?: string;
  body: any;
}

export interface SesSink {
  /** For SES_ENDPOINT. */
  url: string;
  messages: SesSinkMessage[];
  /** Answer the next `n` requests with `status` and SES's error type (e.g. 400 MessageRejected, 429 TooManyRequestsException). */
  failNext(n: number, status: number, errorType: string): void;
  /** Accept and record the next `n` messages but drop the connection instead of answering: SES took them, the answer got lost. */
  loseAnswers(n: number): void;
  clear(): void;
  stop(): Promise<void>;
}

/** A local stand-in for SESv2 `SendEmail` (`POST /v2/email/outbound-emails`, JSON, answers `{ MessageId }`). */
export async function startSesSink(): Promise<SesSink> {
  const messages: SesSinkMessage[] = [];
  let failures = { left: 0, status: 500, type: 'InternalFailure' };
  let lostAnswers = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v2/email/outbound-emails') {
        res.writeHead(404, { 'Content-Type': 'application/json', 'x-amzn-ErrorType': 'NotFoundException' }).end('{"message":"no such route"}');
        return;
      }
      if (failures.left > 0) {
        failures.left--;
        res
          .writeHead(failures.status, { 'Content-Type': 'application/json', 'x-amzn-ErrorType': failures.type })
          .end(JSON.stringify({ message: `sink says ${failures.type}` }));
        return;
      }
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400, { 'Content-Type': 'application/json', 'x-amzn-ErrorType': 'BadRequestException' }).end('{"message":"not JSON"}');
        return;
      }
      const simple = body.Content?.Simple ?? {};
      const messageId = `0100${crypto.randomBytes(12).toString('hex')}-${crypto.randomUUID()}-000000`;
      messages.push({
        messageId,
        authorization: req.headers.authorization,
        from: body.FromEmailAddress,
        to: body.Destination?.ToAddresses ?? [],
        replyTo: body.ReplyToAddresses ?? [],
        subject: simple.Subject?.Data,
        html: simple.Body?.Html?.Data,
        headers: Object.fromEntries((simple.Headers ?? []).map((h: any) => [h.Name, h.Value])),
        tags: Object.fromEntries((body.EmailTags ?? []).map((t: any) => [t.Name, t.Value])),
        attachments: (simple.Attachments ?? []).map((a: any) => ({
          filename: a.FileName,
          contentType: a.ContentType,
          content: Buffer.from(a.RawContent, 'base64'),
        })),
        configurationSet: body.ConfigurationSetName,
        body,
      });
      if (lostAnswers > 0) {
        lostAnswers--;
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ MessageId: messageId }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    messages,
    failNext(n, status, type) {
      failures = { left: n, status, type };
    },
    loseAnswers(n) {
      lostAnswers = n;
    },
    clear() {
      messages.length = 0;
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
