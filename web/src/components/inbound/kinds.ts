import type { ResponseOf } from '../../api/client';

export type InboundSummary = ResponseOf<'/inbound', 'get'>['data'][number];
export type InboundKind = InboundSummary['kind'];

/**
 * Each kind of received mail's colour (docs/inbound.md); its label and sentence are the catalogue's
 * (mail:inbound.kinds), so the order here is the order the filter lists them in.
 */
export const INBOUND_KINDS: Record<InboundKind, { color: string }> = {
  MESSAGE: { color: 'blue' },
  HARD_BOUNCE: { color: 'red' },
  SOFT_BOUNCE: { color: 'yellow' },
  COMPLAINT: { color: 'orange' },
  REPORT: { color: 'gray' },
  DMARC_FAILED: { color: 'grape' },
};
