import crypto from 'node:crypto';
import { startHarness, createProjectFixture, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain } from '../helpers/fixtures';
import { smtpDialog } from '../helpers/smtpDialog';
import { reply } from '../helpers/inboundMail';
import { startInboundServer, InboundServer } from '../../inbound/server';
import type { Logger } from '../../lib/logger';

/**
 * RFC 5321 §4.5.1: postmaster@ every domain the inbound server handles (and bare <postmaster>) is
 * accepted, kept for the operator in postmaster_messages and logged without its body; postmaster of
 * a domain the server does not handle is still refused (no relay). Real SMTP, real Postgres.
 */

let h: Harness;
let p: ProjectFixture;
let server: InboundServer;
const DOMAIN = `post-${crypto.randomBytes(4).toString('hex')}.example.com`;
const BOUNCE_DOMAIN = `rp-${crypto.randomBytes(4).toString('hex')}.example.net`;
const logged: Array<{ obj: any; msg: string }> = [];

beforeAll(async () => {
  h = await startHarness({ env: { BOUNCE_DOMAIN } });
  p = await createProjectFixture(h, 'Postmaster');
  await verifiedDomain(h, p.projectId, DOMAIN);
  // The server's log, with its info lines captured (pino's methods are looked up on the prototype).
  const log = Object.assign(Object.create(h.deps.log), {
    info(obj: any, msg: string) {
      logged.push({ obj, msg });
    },
  }) as Logger;
  server = await startInboundServer({ ...h.deps, log }, { port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await server?.close();
  await h?.stop();
});

async function rcpt(to: string): Promise<string> {
  const session = await smtpDialog(server.port);
  try {
    expect(await session.command('EHLO client.example')).toMatch(/^250/);
    expect(await session.command('MAIL FROM:<ops@sender.example.org>')).toMatch(/^250/);
    return await session.command(`RCPT TO:<${to}>`);
  } finally {
    session.close();
  }
}

describe('mail to postmaster', () => {
  it.each([
    ['the inbound domain of a verified domain', () => `postmaster@inbound.${DOMAIN}`],
    ['the bounces domain of a verified domain', () => `postmaster@bounces.${DOMAIN}`],
    ['BOUNCE_DOMAIN', () => `postmaster@${BOUNCE_DOMAIN}`],
    ["the server's own MX name (INBOUND_MX_HOST)", () => `postmaster@${h.config.inbound.mxHost}`],
    ['any case of the local part', () => `PostMaster@bounces.${DOMAIN.toUpperCase()}`],
    ['no domain at all', () => 'postmaster'],
  ])('is accepted at RCPT for %s', async (_name, to) => {
    expect(await rcpt(to())).toMatch(/^250/);
  });

  it('is still refused for a domain the server does not handle, and for a domain not verified', async () => {
    for (const to of ['postmaster@example.org', `postmaster@inbound.unverified-${Date.now()}.example`, `postmaster@${DOMAIN}`]) {
      expect(await rcpt(to)).toMatch(/^550 5\.1\.1/);
    }
  });

  it('is kept for the operator, outside the project, and logged without its body', async () => {
    const to = [`postmaster@bounces.${DOMAIN}`, `postmaster@inbound.${DOMAIN}`];
    const sender = `abuse-desk-${crypto.randomBytes(3).toString('hex')}@isp.example.org`;
    const messageId = `pm-${crypto.randomBytes(4).toString('hex')}@isp.example.org`;
    const projectRowsBefore = await h.deps.knex('inbound_messages').where({ project_id: p.projectId }).count<{ count: string }[]>({ count: '*' });
    const session = await smtpDialog(server.port);
    expect(await session.command('EHLO isp.example.org')).toMatch(/^250/);
    expect(await session.command(`MAIL FROM:<${sender}>`)).toMatch(/^250/);
    for (const address of to) expect(await session.command(`RCPT TO:<${address}>`)).toMatch(/^250/);
    const answer = await session.data(
      reply({ from: sender, to: to[0], subject: 'Your server sends us spam', messageId, text: 'SECRET-BODY-TEXT: see the attached logs' }).toString(),
    );
    session.close();
    expect(answer).toMatch(/^250 2\.0\.0 accepted as /);
    const id = /accepted as ([0-9a-f-]{36})/.exec(answer)![1];

    const row = await h.deps.knex('postmaster_messages').where({ id }).first();
    expect(row).toMatchObject({
      mail_from: sender,
      rcpt_to: to,
      from_address: sender,
      subject: 'Your server sends us spam',
      message_id: messageId,
      remote_address: expect.stringContaining('127.0.0.1'),
    });
    expect(row.raw.toString('utf8')).toContain('SECRET-BODY-TEXT');

    // Not the project's mail: no inbound row, no contact for the sender.
    const projectRowsAfter = await h.deps.knex('inbound_messages').where({ project_id: p.projectId }).count<{ count: string }[]>({ count: '*' });
    expect(projectRowsAfter).toEqual(projectRowsBefore);
    expect(await h.deps.knex('contacts').where({ project_id: p.projectId, email: sender }).first()).toBeUndefined();

    const line = logged.find((l) => l.obj?.postmasterMessage?.id === id);
    expect(line).toBeDefined();
    expect(line!.msg).toMatch(/postmaster/);
    expect(line!.obj.postmasterMessage).toMatchObject({ mail_from: sender, rcpt_to: to, subject: 'Your server sends us spam', size: row.size });
    expect(JSON.stringify(line)).not.toContain('SECRET-BODY-TEXT');
  });
});
