import type { Knex } from 'knex';
import type { Config } from '../../lib/config';
import type { Logger } from '../../lib/logger';
import type { Runtime } from '../runtime';
import type { TemporalGateway } from '../temporal';
import type { EventRow } from '../../db/events';
import type { InboundAuth, InboundKind } from '../../db/inbound';
import { insertInboundMessage, insertPostmasterMessage, projectEmailForReply } from '../../db/inbound';
import { recordEvent } from '../../db/events';
import { upsertContact } from '../../db/contactWriters';
import { deterministicUuid, uuid } from '../../lib/ids';
import { afterProviderEvents, applyProviderEventIn } from '../providerEvents';
import { parseInbound, type InboundMail } from './parse';
import type { InboundTarget } from './recipients';

/**
 * What the inbound server does with a message once DATA ended (docs/inbound.md): parse it (a
 * malformed one is refused and nothing is stored), then in ONE transaction store it and apply
 * what it says: a bounce or complaint through the provider-event path (services/providerEvents),
 * mail to a project as `email.received` (and `email.replied` for a reply to one of our emails).
 * The server answers 250 only after that commit; the events it recorded are handed to Temporal
 * afterwards (`afterCommit`), and the maintenance sweep routes any a crash left behind.
 */

export interface ReceivedMessage {
  raw: Buffer;
  mailFrom: string | null;
  recipients: Array<{ address: string; target: InboundTarget }>;
  remoteAddress: string;
  helo: string;
}

export type AcceptOutcome = { accepted: true; ids: string[]; toRoute: EventRow[] } | { accepted: false; reason: string };

export type Authenticator = (raw: Buffer, session: { ip: string; helo: string; mailFrom: string }) => Promise<InboundAuth>;

type Deps = { knex: Knex; temporal: TemporalGateway; log: Logger; config: Config; runtime: Pick<Runtime, 'events'> };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Our Message-IDs are `<emailId@sender domain>` (services/smtpTransport.ts): the email ids a thread names. */
export const threadEmailIds = (thread: string[]): string[] => [
  ...new Set(thread.map((id) => id.slice(0, id.lastIndexOf('@')).toLowerCase()).filter((local) => UUID.test(local))),
];

const kindOfReport = (mail: InboundMail): InboundKind => {
  const r = mail.report;
  if (r.kind === 'bounce') return r.hard ? 'HARD_BOUNCE' : 'SOFT_BOUNCE';
  return r.kind === 'complaint' ? 'COMPLAINT' : 'REPORT';
};

export function inboundMail(deps: Deps, authenticate: Authenticator) {
  /** A report to a return path: stored, and a bounce or complaint applied to the email it names. */
  async function applyReport(
    trx: Knex,
    msg: ReceivedMessage,
    mail: InboundMail,
    target: Extract<InboundTarget, { kind: 'bounce' }>,
    toRoute: EventRow[],
  ): Promise<string> {
    const id = uuid();
    const kind = kindOfReport(mail);
    const r = mail.report;
    const email = await trx('emails').where({ id: target.emailId }).first('contact_id');
    await insertInboundMessage(trx, {
      ...common(id, target.projectId, msg, mail, (r) => r.kind === 'bounce' && r.emailId === target.emailId),
      kind,
      email_id: target.emailId,
      contact_id: email?.contact_id ?? null,
      status: r.kind === 'bounce' ? r.status : r.kind === 'complaint' ? r.feedbackType : null,
      diagnostic: r.kind === 'bounce' ? r.diagnostic : r.kind === 'other' ? r.why : null,
      auth: null,
    });
    if (r.kind === 'bounce' || r.kind === 'complaint') {
      await applyProviderEventIn(
        trx,
        {
          provider: 'smtp',
          // A reporting server that resends the same report (our 250 lost on the way) applies it once.
          id: `inbound:${target.emailId}:${kind}:${mail.messageId ?? id}`,
          kind: r.kind === 'bounce' ? 'bounce' : 'spamreport',
          emailId: target.emailId,
          projectId: target.projectId,
          at: new Date(),
          softBounce: r.kind === 'bounce' && !r.hard,
          reason: r.kind === 'bounce' ? (r.diagnostic ?? r.status ?? 'bounced (no diagnostic given)') : undefined,
        },
        toRoute,
      );
    }
    return id;
  }

  /** Mail to `<anything>@inbound.<domain>`: the sender's contact gets `email.received`, unless DMARC failed. */
  async function applyProjectMail(
    trx: Knex,
    msg: ReceivedMessage,
    mail: InboundMail,
    projectId: string,
    auth: InboundAuth,
    toRoute: EventRow[],
  ): Promise<string> {
    const id = uuid();
    const base = common(id, projectId, msg, mail, (r) => r.kind === 'project' && r.projectId === projectId);
    // Feedback loops send their reports to the address registered with them, often an inbound one,
    // not to the return path: an abuse report quoting one of this project's emails is its complaint.
    const complainedOf =
      mail.report.kind === 'complaint' && auth.dmarc !== 'fail'
        ? await projectEmailForReply(trx, projectId, threadEmailIds(mail.originalMessageId ? [mail.originalMessageId] : []))
        : undefined;
    if (complainedOf) {
      await insertInboundMessage(trx, {
        ...base,
        kind: 'COMPLAINT',
        email_id: complainedOf.id,
        contact_id: complainedOf.contact_id,
        status: 'abuse',
        diagnostic: null,
        auth,
      });
      await applyProviderEventIn(
        trx,
        {
          provider: 'smtp',
          id: `inbound:${complainedOf.id}:COMPLAINT:${mail.messageId ?? id}`,
          kind: 'spamreport',
          emailId: complainedOf.id,
          projectId,
          at: new Date(),
        },
        toRoute,
      );
      return id;
    }
    // A forged sender must not create contacts or start workflows: the message is kept for the owner to read, nothing more.
    if (auth.dmarc === 'fail') {
      await insertInboundMessage(trx, { ...base, kind: 'DMARC_FAILED', email_id: null, contact_id: null, status: null, diagnostic: 'DMARC fail', auth });
      return id;
    }
    const contact = await upsertContact(trx, { projectId, email: mail.from.address, defaultSubscribed: false, source: 'inbound' });
    const replied = await projectEmailForReply(trx, projectId, threadEmailIds(mail.thread));
    await insertInboundMessage(trx, {
      ...base,
      kind: 'MESSAGE',
      email_id: replied?.id ?? null,
      contact_id: contact.contact.id,
      status: null,
      diagnostic: null,
      auth,
    });
    toRoute.push(
      await recordEvent(trx, {
        id: deterministicUuid(id, 'email.received'),
        projectId,
        contactId: contact.contact.id,
        name: 'email.received',
        data: {
          inboundId: id,
          to: base.rcpt_to,
          from: mail.from.address,
          subject: mail.subject,
          text: mail.text,
          messageId: mail.messageId,
          inReplyTo: mail.inReplyTo,
          attachments: mail.attachments,
          auth,
        },
      }),
    );
    if (replied?.contact_id) {
      toRoute.push(
        await recordEvent(trx, {
          id: deterministicUuid(id, 'email.replied'),
          projectId,
          contactId: replied.contact_id,
          name: 'email.replied',
          data: { emailId: replied.id, inboundId: id, from: mail.from.address, subject: mail.subject },
        }),
      );
    }
    return id;
  }

  /**
   * Mail to postmaster@ (RFC 5321 §4.5.1): kept for the operator in `postmaster_messages`, outside
   * every project, and logged (envelope and headers, never the body) so it is seen without SQL. It
   * creates no contact and no event: it is not a project's mail.
   */
  async function keepForPostmaster(trx: Knex, msg: ReceivedMessage, mail: InboundMail, to: string[], kept: object[]): Promise<string> {
    const id = uuid();
    const row = {
      id,
      mail_from: msg.mailFrom,
      rcpt_to: to,
      from_address: mail.from.address,
      subject: mail.subject?.slice(0, 998) ?? null,
      message_id: mail.messageId,
      remote_address: msg.remoteAddress,
      size: msg.raw.length,
    };
    await insertPostmasterMessage(trx, { ...row, raw: msg.raw });
    kept.push(row);
    return id;
  }

  return {
    async accept(msg: ReceivedMessage): Promise<AcceptOutcome> {
      const parsed = await parseInbound(msg.raw);
      if (!parsed.ok) return { accepted: false, reason: parsed.reason };
      const mail = parsed.mail;
      const bounces = new Map<string, Extract<InboundTarget, { kind: 'bounce' }>>();
      const projects = new Set<string>();
      const postmaster: string[] = [];
      for (const { address, target } of msg.recipients) {
        if (target.kind === 'bounce') bounces.set(target.emailId, target);
        else if (target.kind === 'postmaster') postmaster.push(address);
        else projects.add(target.projectId);
      }
      // DNS lookups before the transaction: no connection is held while they run.
      const auth = projects.size ? await authenticate(msg.raw, { ip: msg.remoteAddress, helo: msg.helo, mailFrom: msg.mailFrom ?? '' }) : null;
      const toRoute: EventRow[] = [];
      const kept: object[] = [];
      const ids = await deps.knex.transaction(async (trx) => {
        const out: string[] = [];
        for (const target of bounces.values()) out.push(await applyReport(trx, msg, mail, target, toRoute));
        for (const projectId of projects) out.push(await applyProjectMail(trx, msg, mail, projectId, auth!, toRoute));
        if (postmaster.length) out.push(await keepForPostmaster(trx, msg, mail, postmaster, kept));
        return out;
      });
      // Logged once committed, so the line names only mail that is kept.
      for (const row of kept) deps.log.info({ postmasterMessage: row }, 'inbound: mail to postmaster kept in postmaster_messages');
      return { accepted: true, ids, toRoute };
    },

    /** After the 250: routes the recorded events and checks the bounce and complaint rates. Never throws. */
    async afterCommit(toRoute: EventRow[]): Promise<void> {
      try {
        await afterProviderEvents(deps, toRoute);
      } catch (err) {
        deps.log.warn({ err }, 'inbound: handing events over failed; the maintenance sweep routes them');
      }
    },
  };
}

/** The columns every row has; `mine` picks the recipients of this row (never another project's addresses). */
function common(id: string, projectId: string, msg: ReceivedMessage, mail: InboundMail, mine: (t: InboundTarget) => boolean) {
  return {
    id,
    project_id: projectId,
    mail_from: msg.mailFrom,
    rcpt_to: msg.recipients.filter((r) => mine(r.target)).map((r) => r.address),
    from_address: mail.from.address,
    subject: mail.subject?.slice(0, 998) ?? null,
    message_id: mail.messageId,
    in_reply_to: mail.inReplyTo,
    remote_address: msg.remoteAddress,
    size: msg.raw.length,
    raw: msg.raw,
  };
}
