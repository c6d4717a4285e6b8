import { parseInbound } from '../../services/inbound/parse';
import { mimeLeaves } from '../../services/inbound/mimeParts';
import { findRefusedText } from '../../lib/hostileText';
import { arf, dsn, qmailBounce, reply } from '../helpers/inboundMail';

/**
 * Hostile MIME at the parser the inbound server runs on every DATA: it must answer (a mail, or a
 * reason to refuse it) and never throw, whatever the bytes. Mutations come from a seeded generator,
 * so a failure replays.
 */

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const TO = 'bounces+abc@bounces.example.com';
const SEEDS = [
  dsn({ to: TO, status: '5.1.1' }),
  arf({ to: TO }),
  qmailBounce({ to: TO }),
  reply({ from: 'a@example.org', to: 'x@inbound.example.com', attachment: true }),
];

async function survives(raw: Buffer): Promise<void> {
  const started = Date.now();
  const r = await parseInbound(raw);
  expect(typeof r.ok).toBe('boolean');
  if (r.ok) {
    expect(typeof r.mail.from.address).toBe('string');
    // Every string is storable: Postgres refuses NUL in text and jsonb, and the 451 that would follow makes the sender retry forever.
    expect(findRefusedText(r.mail)).toBeNull();
  } else expect(r.reason.length).toBeGreaterThan(0);
  // A message must not hold a connection's DATA answer for long either.
  expect(Date.now() - started).toBeLessThan(5000);
}

describe('inbound parser under hostile MIME', () => {
  it('survives multiparts nested thousands deep', async () => {
    const depth = 5000;
    let body = 'leaf\r\n';
    for (let i = depth; i > 0; i--) body = `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n${body}--b${i}--\r\n`;
    await survives(Buffer.from(`From: a@example.org\r\nTo: ${TO}\r\nSubject: deep\r\nMIME-Version: 1.0\r\n${body}`));
    expect(mimeLeaves(body).length).toBeLessThanOrEqual(64);
  });

  it('refuses huge headers, and survives one huge folded header under the cap', async () => {
    const many = Array.from({ length: 50_000 }, (_, i) => `X-H${i}: ${'v'.repeat(20)}`).join('\r\n');
    const huge = await parseInbound(Buffer.from(`From: a@example.org\r\n${many}\r\n\r\nbody`));
    expect(huge).toMatchObject({ ok: false });
    const folded = `Subject: ${Array.from({ length: 2000 }, () => 'word').join('\r\n ')}`;
    await survives(Buffer.from(`From: a@example.org\r\nTo: ${TO}\r\n${folded}\r\n\r\nbody`));
    await survives(Buffer.from(`From: a@example.org\r\nTo: ${TO}\r\nX-Long: ${'a'.repeat(200_000)}\r\n\r\nbody`));
  });

  it('survives bad encodings: broken base64 and quoted-printable, unknown charsets, encoded words, NUL and 8-bit bytes', async () => {
    const parts = [
      'Content-Type: text/plain; charset=x-unknown-charset\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not base64 at all%%%\r\n',
      'Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=ZZ=\r\n=E2=28=A1 broken =\r\n',
      'Content-Type: message/delivery-status\r\nContent-Transfer-Encoding: base64\r\n\r\n====\r\n',
      'Content-Type: text/html; charset=utf-16\r\n\r\n<p>\u0000\u0000<b><i><table>',
      'Content-Type: application/octet-stream; name="=?utf-8?B?////?="\r\nContent-Disposition: attachment; filename*=utf-8\'\'%ZZ%FF\r\n\r\n\u0000\u0001\u0002',
    ];
    const body = `${parts.map((p) => `--X\r\n${p}\r\n`).join('')}--X--\r\n`;
    await survives(
      Buffer.concat([
        Buffer.from(
          `From: =?utf-8?B?AA==?= <a@example.org>\r\nTo: ${TO}\r\nSubject: =?x-bogus?Q?=FF=FE?= =?utf-8?B?4pyT?= =?utf-8?Q?nul=00here?=\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=X\r\n\r\n`,
        ),
        Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28]),
        Buffer.from(body),
      ]),
    );
  });

  it('answers every malformed shape with a reason instead of throwing', async () => {
    for (const raw of [
      '',
      '\r\n\r\n',
      'not a message at all',
      'From a@example.org Thu Nov 26\r\n\r\nmbox line',
      'Subject: no sender\r\n\r\nbody',
      ': empty name\r\n\r\n',
      'From: \r\n\r\n',
    ]) {
      const r = await parseInbound(Buffer.from(raw));
      expect(r.ok).toBe(false);
    }
  });

  it('survives 400 random mutations of real bounces, reports and replies', async () => {
    const next = rng(27);
    const pick = <T>(a: T[]) => a[Math.floor(next() * a.length)];
    const junk = [
      '\r\n',
      '--',
      '--DSN-B1',
      'Content-Type: multipart/mixed; boundary="',
      '=?',
      '?=',
      '\u0000',
      ':',
      ';',
      '"',
      '\r\n\r\n',
      'Status: 9.9.9',
      'boundary=""',
    ];
    for (let i = 0; i < 400; i++) {
      const bytes = Buffer.from(pick(SEEDS));
      const edits = 1 + Math.floor(next() * 20);
      let out = bytes;
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(next() * out.length);
        const op = next();
        if (op < 0.3) out = Buffer.concat([out.subarray(0, at), out.subarray(at + Math.floor(next() * 50))]);
        else if (op < 0.6) out = Buffer.concat([out.subarray(0, at), Buffer.from(pick(junk)), out.subarray(at)]);
        else if (op < 0.8) {
          out = Buffer.from(out);
          out[at] = Math.floor(next() * 256);
        } else out = Buffer.concat([out.subarray(0, at), out.subarray(Math.floor(next() * out.length), Math.floor(next() * out.length)), out.subarray(at)]);
      }
      await survives(out);
    }
  });
});
