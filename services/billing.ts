/** What a Stripe event changes here: the project's customer link, its subscription, its invoices. */
import type { Knex } from 'knex';
import { claimBillingEvent, linkCustomer, projectOfCustomer, updateSubscription, upsertInvoice } from '../db/billing';
import { findProject } from '../db/projects';
import { Uuid } from '../lib/formats';

type Obj = Record<string, any>;
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 && v.length <= 255 ? v : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
const unixDate = (v: unknown): Date | null => (int(v) === null ? null : new Date((v as number) * 1000));
const customerOf = (o: Obj) => str(o.customer) ?? str(o.customer?.id);

/** The project an object belongs to: by its customer, or by the project id our checkout put in its metadata. */
async function projectFor(trx: Knex.Transaction, o: Obj): Promise<string | null> {
  const customer = customerOf(o);
  const known = customer ? await projectOfCustomer(trx, customer) : null;
  if (known) return known;
  const tagged = [
    o.client_reference_id,
    o.metadata?.project_id,
    o.subscription_details?.metadata?.project_id,
    o.parent?.subscription_details?.metadata?.project_id,
  ]
    .map((v) => Uuid.safeParse(v))
    .find((r) => r.success)?.data;
  if (!tagged || !(await findProject(trx, tagged))) return null;
  // Stripe does not order events: an invoice may arrive before the checkout that created its customer.
  if (customer) await linkCustomer(trx, tagged, customer, null);
  return tagged;
}

/** Applies one Stripe event's object; false when it concerns nothing this server knows. */
async function applyStripeEvent(trx: Knex.Transaction, type: string, o: Obj): Promise<boolean> {
  if (type === 'checkout.session.completed') {
    const projectId = await projectFor(trx, o);
    const customer = customerOf(o);
    if (!projectId || !customer) return false;
    await linkCustomer(trx, projectId, customer, str(o.subscription) ?? str(o.subscription?.id));
    return true;
  }
  if (type.startsWith('customer.subscription.')) {
    const projectId = await projectFor(trx, o);
    const customer = customerOf(o);
    const id = str(o.id);
    if (!projectId || !customer || !id) return false;
    const periodEnd = o.current_period_end ?? o.items?.data?.[0]?.current_period_end;
    return updateSubscription(trx, customer, { subscriptionId: id, status: str(o.status) ?? 'unknown', currentPeriodEnd: unixDate(periodEnd) });
  }
  if (type.startsWith('invoice.')) {
    const projectId = await projectFor(trx, o);
    const id = str(o.id);
    if (!projectId || !id) return false;
    await upsertInvoice(trx, projectId, {
      id,
      number: str(o.number),
      status: str(o.status),
      amountDue: int(o.amount_due),
      amountPaid: int(o.amount_paid),
      currency: str(o.currency),
      hostedInvoiceUrl: str(o.hosted_invoice_url),
      invoicePdf: str(o.invoice_pdf),
      periodStart: unixDate(o.period_start),
      periodEnd: unixDate(o.period_end),
      createdAt: unixDate(o.created) ?? new Date(),
    });
    return true;
  }
  return false;
}

/** Applies an event once: a redelivered event id is a duplicate, whatever its type. */
export async function receiveStripeEvent(knex: Knex, id: string, type: string, object: Obj): Promise<'applied' | 'ignored' | 'duplicate'> {
  return knex.transaction(async (trx) => {
    if (!(await claimBillingEvent(trx, id, type))) return 'duplicate' as const;
    return (await applyStripeEvent(trx, type, object)) ? ('applied' as const) : ('ignored' as const);
  });
}
