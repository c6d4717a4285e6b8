import type { ResponseOf } from '../../api/client';

export type InboundSummary = ResponseOf<'/inbound', 'get'>['data'][number];
export type InboundKind = InboundSummary['kind'];

/** Each kind of received mail as a person names it (docs/inbound.md). */
export const INBOUND_KINDS: Record<InboundKind, { label: string; color: string; about: string }> = {
  MESSAGE: { label: 'Message', color: 'blue', about: 'Mail to the project: a reply, or anything sent to its inbound address.' },
  HARD_BOUNCE: { label: 'Hard bounce', color: 'red', about: 'The address does not exist: it is now suppressed.' },
  SOFT_BOUNCE: { label: 'Soft bounce', color: 'yellow', about: 'A temporary refusal (a full mailbox, a server down).' },
  COMPLAINT: { label: 'Spam complaint', color: 'orange', about: 'The person marked the email as spam: the address is now suppressed.' },
  REPORT: { label: 'Report', color: 'gray', about: 'Other mail to a return path, such as an out-of-office answer.' },
  DMARC_FAILED: { label: 'Failed DMARC', color: 'grape', about: "Mail to the project whose sender's domain did not authenticate it; no event was fired." },
};
