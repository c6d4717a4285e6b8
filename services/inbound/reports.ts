/**
 * What a message sent to a VERP return path reports (docs/inbound.md, "Bounces and complaints"):
 * a delivery failure (RFC 3464 `message/delivery-status`, or the plain-text shapes older servers
 * send), a feedback report (RFC 5965 `message/feedback-report`), or nothing we understand. Pure:
 * it reads parts the parser (services/inbound/parse.ts) already separated.
 */

export type Report =
  | {
      kind: 'bounce';
      /** A permanent failure (5.x.x): the address is suppressed; 4.x.x may succeed later. */
      hard: boolean;
      /** The enhanced status code (`5.1.1`), or the basic SMTP code when that is all the report says. */
      status: string | null;
      diagnostic: string | null;
      recipient: string | null;
    }
  | { kind: 'complaint'; feedbackType: string; recipient: string | null }
  | { kind: 'other'; why: string };

/** What the parser hands over: the report parts' text, and the plain-text body for the non-standard shapes. */
export interface ReportParts {
  subject: string | null;
  fromAddress: string | null;
  /** `message/delivery-status` (or `message/global-delivery-status`) bodies. */
  deliveryStatus: string[];
  /** `message/feedback-report` bodies. */
  feedbackReport: string[];
  text: string;
  /** Exim and others name the failed addresses in a header. */
  failedRecipients: string | null;
}

const MAX_FIELD = 1000;

/** Header-style fields (`Name: value`, folded lines joined), grouped by blank lines; names lower-cased. */
export function fieldGroups(body: string): Array<Map<string, string>> {
  const groups: Array<Map<string, string>> = [];
  let current = new Map<string, string>();
  let last: string | null = null;
  for (const line of body.split(/\r?\n/)) {
    if (line.trim() === '') {
      if (current.size) groups.push(current);
      current = new Map();
      last = null;
    } else if (/^[ \t]/.test(line) && last) {
      current.set(last, `${current.get(last)} ${line.trim()}`.slice(0, MAX_FIELD));
    } else {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      last = line.slice(0, colon).trim().toLowerCase();
      // The first occurrence wins: a report repeats nothing it means twice.
      if (!current.has(last))
        current.set(
          last,
          line
            .slice(colon + 1)
            .trim()
            .slice(0, MAX_FIELD),
        );
    }
  }
  if (current.size) groups.push(current);
  return groups;
}

/** `rfc822; someone@example.org` → the address. */
const typedAddress = (v: string | undefined): string | null => {
  if (!v) return null;
  const value = v.includes(';') ? v.slice(v.indexOf(';') + 1) : v;
  return value.trim().replace(/^<|>$/g, '').slice(0, 320) || null;
};

const ENHANCED = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/;
const BASIC = /\b([45])\d\d\b/;

/** The class of a status: `5` hard, `4` soft, `2` success (not a failure at all). */
const classOf = (status: string): string => status[0];

function fromDeliveryStatus(body: string): Report | null {
  const groups = fieldGroups(body);
  // The first group is about the message; the others about one recipient each. A failure beats a delay.
  const recipients = groups.slice(1).filter((g) => g.has('final-recipient') || g.has('original-recipient') || g.has('status') || g.has('action'));
  const action = (g: Map<string, string>) => (g.get('action') ?? '').toLowerCase();
  const chosen = recipients.find((g) => action(g) === 'failed') ?? recipients.find((g) => action(g) === 'delayed') ?? recipients[0];
  if (!chosen) return null;
  const diagnostic = chosen.get('diagnostic-code') ?? null;
  const statusField = ENHANCED.exec(chosen.get('status') ?? '')?.[0] ?? ENHANCED.exec(diagnostic ?? '')?.[0] ?? null;
  const act = action(chosen);
  if (act === 'delivered' || act === 'relayed' || act === 'expanded' || (statusField && classOf(statusField) === '2')) {
    return { kind: 'other', why: `a delivery-status notification of a ${act || 'successful'} delivery` };
  }
  // "failed" without a status is permanent (RFC 3464 §2.3.3); "delayed" is a warning: the sender still retries.
  const hard = statusField ? classOf(statusField) === '5' && act !== 'delayed' : act === 'failed';
  return {
    kind: 'bounce',
    hard,
    status: statusField,
    diagnostic,
    recipient: typedAddress(chosen.get('final-recipient')) ?? typedAddress(chosen.get('original-recipient')),
  };
}

const BOUNCE_SUBJECT =
  /undeliver|undelivered|delivery (status notification|failure|failed|has failed|problem)|returned mail|returned to sender|mail delivery (failed|failure|subsystem)|failure notice|non.?delivery|could not be delivered|delivery incomplete/i;
const DAEMON = /^(mailer-daemon|postmaster)@/i;

/** The shapes without a `message/delivery-status` part (qmail, Exim, many hosted servers): the text says it. */
function fromPlainText(p: ReportParts): Report | null {
  const looksLikeBounce = !!p.failedRecipients || BOUNCE_SUBJECT.test(p.subject ?? '') || DAEMON.test(p.fromAddress ?? '');
  if (!looksLikeBounce) return null;
  const text = p.text.slice(0, 64 * 1024);
  const lines = text.split(/\r?\n/);
  const enhanced = lines.find((l) => ENHANCED.test(l) && !/^\s*2\./.test(ENHANCED.exec(l)![0]));
  const basic = enhanced ? undefined : lines.find((l) => BASIC.test(l));
  const line = enhanced ?? basic;
  const status = line ? (enhanced ? ENHANCED.exec(line)![0] : BASIC.exec(line)![0]) : null;
  return {
    kind: 'bounce',
    // No code at all: only "delivery failed" prose, which a delay warning also says. Recorded, not suppressed.
    hard: status !== null && classOf(status) === '5',
    status,
    diagnostic: line ? line.trim().slice(0, MAX_FIELD) : null,
    recipient: p.failedRecipients?.split(',')[0]?.trim().slice(0, 320) || null,
  };
}

function fromFeedbackReport(body: string): Report {
  const fields = fieldGroups(body)[0] ?? new Map<string, string>();
  const feedbackType = (fields.get('feedback-type') ?? '').toLowerCase();
  const recipient = typedAddress(fields.get('original-rcpt-to')) ?? typedAddress(fields.get('removal-recipient'));
  // Only `abuse` says the person called the mail spam; fraud, virus, auth-failure and not-spam are kept as reports.
  return feedbackType === 'abuse'
    ? { kind: 'complaint', feedbackType, recipient }
    : { kind: 'other', why: `a feedback report of type ${feedbackType || '(none)'}` };
}

export function classifyReport(p: ReportParts): Report {
  if (p.feedbackReport.length) return fromFeedbackReport(p.feedbackReport[0]);
  for (const body of p.deliveryStatus) {
    const r = fromDeliveryStatus(body);
    if (r) return r;
  }
  return fromPlainText(p) ?? { kind: 'other', why: 'neither a delivery-status notification nor a feedback report' };
}
