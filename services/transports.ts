import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import { dkimKeyLookup } from './dkim';
import { allAccepted, Transport } from './transport';
import { MAX_BATCH_RECIPIENTS, sendgridTransport, splitForSendgrid } from './sendgridTransport';
import { smtpTransport } from './smtpTransport';
import { sesTransport } from './sesTransport';

/**
 * Stores nothing beyond the email rows themselves: the activities record each rendered message
 * there (campaign batches too, one row per recipient, in the same groups as SendGrid would get).
 */
const logTransport: Transport = {
  name: 'log',
  reofferInterrupted: true,
  // In SendGrid's groups, as its comment says.
  maxBatch: MAX_BATCH_RECIPIENTS,
  async send(m) {
    return { messageId: `log-${m.emailId}` };
  },
  splitBatch: splitForSendgrid,
  async sendBatch(batch) {
    return allAccepted(batch, `log-${batch.recipients[0].emailId}`);
  },
};

/** `knex` serves what a transport reads at send time (the DKIM keys SMTP signs with); without it SMTP mail goes unsigned. */
export function createTransport(config: Config, deps?: { knex: Knex }): Transport {
  if (config.email.transport === 'ses') return sesTransport(config);
  if (config.email.transport === 'smtp') return smtpTransport(config, deps ? dkimKeyLookup(deps.knex, config) : async () => null);
  return config.email.transport === 'sendgrid' ? sendgridTransport(config) : logTransport;
}
