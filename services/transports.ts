import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import { dkimKeyLookup } from './dkim';
import { allAccepted, Transport } from './transport';
import { MAX_BATCH_RECIPIENTS, splitForSendgrid } from './sendgridBatches';

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

/**
 * `knex` serves what a transport reads at send time (the DKIM keys SMTP signs with); without it SMTP mail goes unsigned.
 *
 * Only the transport in use is loaded: each provider's SDK (the AWS client, SendGrid's, nodemailer)
 * costs a process 12–18 MB of memory on its own, and a worker or API replica uses one of them.
 */
export function createTransport(config: Config, deps?: { knex: Knex }): Transport {
  switch (config.email.transport) {
    case 'ses':
      return (require('./sesTransport') as typeof import('./sesTransport')).sesTransport(config);
    case 'smtp':
      return (require('./smtpTransport') as typeof import('./smtpTransport')).smtpTransport(config, deps ? dkimKeyLookup(deps.knex, config) : async () => null);
    case 'sendgrid':
      return (require('./sendgridTransport') as typeof import('./sendgridTransport')).sendgridTransport(config);
    default:
      return logTransport;
  }
}
