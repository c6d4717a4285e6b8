import { SMTPServer } from 'smtp-server';
import { simpleParser, ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';

/** One message as the server received it: the envelope and the raw MIME bytes. */
export interface SinkMail {
  from: string;
  to: string[];
  raw: Buffer;
}

export interface SmtpRefusal {
  /** Where the server refuses: at `RCPT TO` (the address) or after `DATA` (the message). */
  at: 'RCPT' | 'DATA';
  code: number;
  /** Refusals left; unset: every time. */
  times?: number;
}

export interface SmtpSink {
  /** `smtp://user:pass@127.0.0.1:<port>`, ready for SMTP_URL. */
  url: string;
  mails: SinkMail[];
  /** Accepted messages addressed to `address`. */
  mailsTo(address: string): SinkMail[];
  parse(mail: SinkMail): Promise<ParsedMail>;
  /** Answers `code` to mail for `address` at RCPT or DATA. */
  refuse(address: string, refusal: SmtpRefusal): void;
  /** Times each address was refused so far. */
  refusals(address: string): number;
  /** Times `address` was offered at `RCPT TO` so far, accepted or refused: 0 means the relay never saw it. */
  offered(address: string): number;
  /** Holds every DATA answer this long (keeps hand-overs in flight). */
  delay(ms: number): void;
  stop(): Promise<void>;
}

export const SINK_USER = 'svc-user';
export const SINK_PASS = 'svc pass/word';

/**
 * A local SMTP server (the `smtp-server` package) that the real nodemailer pool talks to: it
 * requires AUTH with the sink's credentials, records every accepted message, and refuses chosen
 * addresses with chosen replies. Plain text on 127.0.0.1 (no STARTTLS), as a relay on localhost is.
 */
export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: SinkMail[] = [];
  const refusals = new Map<string, SmtpRefusal>();
  const refused = new Map<string, number>();
  const offered = new Map<string, number>();
  let delayMs = 0;

  const refusalFor = (address: string, at: SmtpRefusal['at']): Error | null => {
    const key = address.toLowerCase();
    const r = refusals.get(key);
    if (!r || r.at !== at || r.times === 0) return null;
    if (r.times !== undefined) r.times--;
    refused.set(key, (refused.get(key) ?? 0) + 1);
    const err: Error & { responseCode?: number } = new Error(r.code >= 500 ? '5.1.1 mailbox unavailable' : '4.2.0 try again later');
    err.responseCode = r.code;
    return err;
  };

  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    // Idle pooled connections are the client's to keep; stop() should not wait for them.
    closeTimeout: 100,
    onAuth(auth, _session, cb) {
      if (auth.username === SINK_USER && auth.password === SINK_PASS) cb(null, { user: auth.username });
      else cb(Object.assign(new Error('5.7.8 bad credentials'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, cb) {
      const key = address.address.toLowerCase();
      offered.set(key, (offered.get(key) ?? 0) + 1);
      cb(refusalFor(address.address, 'RCPT'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
        const to = session.envelope.rcptTo.map((a) => a.address);
        const refusal = to.map((a) => refusalFor(a, 'DATA')).find(Boolean);
        if (refusal) return cb(refusal);
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        mails.push({ from, to, raw: Buffer.concat(chunks) });
        cb(null, `queued as ${mails.length}`);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://${encodeURIComponent(SINK_USER)}:${encodeURIComponent(SINK_PASS)}@127.0.0.1:${port}`,
    mails,
    mailsTo: (address) => mails.filter((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase())),
    parse: (mail) => simpleParser(mail.raw),
    refuse: (address, refusal) => void refusals.set(address.toLowerCase(), { ...refusal }),
    refusals: (address) => refused.get(address.toLowerCase()) ?? 0,
    offered: (address) => offered.get(address.toLowerCase()) ?? 0,
    delay: (ms) => void (delayMs = ms),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
