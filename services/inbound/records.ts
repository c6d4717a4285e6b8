import type { Config } from '../../lib/config';
import type { InboundRecords } from '../../db/domains';
import { signsMail } from '../dkim';

/**
 * The MX records a sender domain is shown (docs/inbound.md, DNS): `inbound.<domain>` always, and
 * `bounces.<domain>` when our SMTP transport sends with return paths there (no BOUNCE_DOMAIN: that
 * one domain's MX is set up once by the operator).
 */
export function inboundRecords(config: Pick<Config, 'email' | 'inbound'>): InboundRecords {
  return { mxHost: config.inbound.mxHost, bounces: signsMail(config) && !config.inbound.bounceDomain };
}
