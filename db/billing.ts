import type { Knex } from 'knex';
import { verifiedSenderDomainQuery } from './domains';
import { prepared } from './prepared';

const BILLING_CATEGORIES = ['emails', 'contacts'] as const;
export type BillingCategory = (typeof BILLING_CATEGORIES)[number];
export type BillingLimits = Record<BillingCategory, number | null>;

/** The billing period is the calendar month in UTC. */
export function currentPeriod(now = new Date()): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

const emailsIn = (knex: Knex, projectId: string, { start, end }: { start: Date; end: Date }) =>
  knex('emails').where({ project_id: projectId }).where('created_at', '>=', start).where('created_at', '<', end);

/**
 * Emails count every row created this period (whatever became of it), plus those a reset deleted;
 * contacts count what the project holds now.
 */
export async function consumption(knex: Knex, projectId: string, now = new Date()): Promise<Record<BillingCategory, number>> {
  const period = currentPeriod(now);
  const [emails, carried, contacts] = await Promise.all([
    emailsIn(knex, projectId, period).count<{ count: number }>({ count: '*' }).first(),
    knex('billing_usage_carry').where({ project_id: projectId, period_start: period.start }).first('emails'),
    knex('contacts').where({ project_id: projectId }).count<{ count: number }>({ count: '*' }).first(),
  ]);
  return { emails: Number(emails?.count ?? 0) + Number(carried?.emails ?? 0), contacts: Number(contacts?.count ?? 0) };
}

/** Called by a project reset before it deletes the emails: a reset must not hand out a fresh email allowance. */
export async function carryOverEmailUsage(trx: Knex.Transaction, projectId: string, now = new Date()): Promise<void> {
  const period = currentPeriod(now);
  const row = await emailsIn(trx, projectId, period).count<{ count: number }>({ count: '*' }).first();
  const emails = Number(row?.count ?? 0);
  if (!emails) return;
  await trx('billing_usage_carry')
    .insert({ project_id: projectId, period_start: period.start, emails })
    .onConflict(['project_id', 'period_start'])
    .merge({ emails: trx.raw('billing_usage_carry.emails + excluded.emails') });
}

export async function getLimits(knex: Knex, projectId: string): Promise<BillingLimits> {
  return limitsOf(await knex('billing_limits').where({ project_id: projectId }).first());
}

/** A `billing_limits` row (or its absence) as limits. */
export const limitsOf = (row: { emails?: number | null; contacts?: number | null } | null | undefined): BillingLimits => ({
  emails: row?.emails ?? null,
  contacts: row?.contacts ?? null,
});

/** Categories left out keep their cap; null removes it. */
export async function setLimits(knex: Knex, projectId: string, patch: Partial<BillingLimits>): Promise<BillingLimits> {
  const [row] = await knex('billing_limits')
    .insert({ project_id: projectId, ...patch })
    .onConflict('project_id')
    .merge({ ...patch, updated_at: knex.fn.now() })
    .returning('*');
  return { emails: row.emails, contacts: row.contacts };
}

export interface LimitBreach {
  category: BillingCategory;
  limit: number;
  used: number;
  requested: number;
}

/**
 * The first category whose cap `requested` more would exceed, or null. A check before the work,
 * not a reservation: concurrent requests may together overshoot by their own size.
 */
export async function limitBreach(
  knex: Knex,
  projectId: string,
  requested: Partial<Record<BillingCategory, number>>,
  /** Already read by the caller (in a statement of its own); read here when omitted. */
  known?: BillingLimits,
): Promise<LimitBreach | null> {
  const limits = known ?? (await getLimits(knex, projectId));
  const capped = BILLING_CATEGORIES.filter((c) => limits[c] !== null && (requested[c] ?? 0) > 0);
  if (!capped.length) return null;
  const used = await consumption(knex, projectId);
  for (const category of capped) {
    const want = requested[category]!;
    if (used[category] + want > limits[category]!) return { category, limit: limits[category]!, used: used[category], requested: want };
  }
  return null;
}

// ───────────────────────────── billing provider state ─────────────────────────────

export interface BillingAccount {
  projectId: string;
  customerId: string;
  subscriptionId: string | null;
  subscriptionStatus: string | null;
  currentPeriodEnd: Date | null;
}

const presentAccount = (r: any): BillingAccount => ({
  projectId: r.project_id,
  customerId: r.customer_id,
  subscriptionId: r.subscription_id,
  subscriptionStatus: r.subscription_status,
  currentPeriodEnd: r.current_period_end,
});

export async function billingAccount(knex: Knex, projectId: string): Promise<BillingAccount | null> {
  const row = await knex('billing_accounts').where({ project_id: projectId }).first();
  return row ? presentAccount(row) : null;
}

export async function projectOfCustomer(knex: Knex, customerId: string): Promise<string | null> {
  const row = await knex('billing_accounts').where({ customer_id: customerId }).first('project_id');
  return row?.project_id ?? null;
}

export async function linkCustomer(knex: Knex, projectId: string, customerId: string, subscriptionId: string | null): Promise<void> {
  await knex('billing_accounts')
    .insert({ project_id: projectId, customer_id: customerId, subscription_id: subscriptionId })
    .onConflict('project_id')
    .merge({ customer_id: customerId, ...(subscriptionId ? { subscription_id: subscriptionId } : {}), updated_at: knex.fn.now() });
}

export async function updateSubscription(
  knex: Knex,
  customerId: string,
  s: { subscriptionId: string; status: string; currentPeriodEnd: Date | null },
): Promise<boolean> {
  const n = await knex('billing_accounts')
    .where({ customer_id: customerId })
    .update({ subscription_id: s.subscriptionId, subscription_status: s.status, current_period_end: s.currentPeriodEnd, updated_at: knex.fn.now() });
  return n > 0;
}

export interface Invoice {
  id: string;
  number: string | null;
  status: string | null;
  amountDue: number | null;
  amountPaid: number | null;
  currency: string | null;
  hostedInvoiceUrl: string | null;
  invoicePdf: string | null;
  periodStart: Date | null;
  periodEnd: Date | null;
  createdAt: Date;
}

export async function upsertInvoice(knex: Knex, projectId: string, i: Invoice): Promise<void> {
  const row = {
    id: i.id,
    project_id: projectId,
    number: i.number,
    status: i.status,
    amount_due: i.amountDue,
    amount_paid: i.amountPaid,
    currency: i.currency,
    hosted_invoice_url: i.hostedInvoiceUrl,
    invoice_pdf: i.invoicePdf,
    period_start: i.periodStart,
    period_end: i.periodEnd,
    created_at: i.createdAt,
  };
  // The invoice id is globally unique at the provider: a later event never moves it to another project.
  await knex('billing_invoices').insert(row).onConflict('id').merge(['status', 'amount_due', 'amount_paid', 'hosted_invoice_url', 'invoice_pdf', 'number']);
}

export async function listInvoices(knex: Knex, projectId: string): Promise<Invoice[]> {
  const rows = await knex('billing_invoices').where({ project_id: projectId }).orderBy('created_at', 'desc').limit(100);
  return rows.map((r: any) => ({
    id: r.id,
    number: r.number,
    status: r.status,
    amountDue: r.amount_due === null ? null : Number(r.amount_due),
    amountPaid: r.amount_paid === null ? null : Number(r.amount_paid),
    currency: r.currency,
    hostedInvoiceUrl: r.hosted_invoice_url,
    invoicePdf: r.invoice_pdf,
    periodStart: r.period_start,
    periodEnd: r.period_end,
    createdAt: r.created_at,
  }));
}

/** Records a provider event id; false when it was seen before (a redelivery). */
export async function claimBillingEvent(knex: Knex, id: string, type: string): Promise<boolean> {
  const rows = await knex('billing_events').insert({ id, type }).onConflict('id').ignore().returning('id');
  return rows.length > 0;
}

/**
 * Whether the sender's domain is verified for the project, and the project's billing limits, in
 * one prepared statement: what every /v1/send checks before writing.
 */
export async function senderVerifiedWithLimits(knex: Knex, projectId: string, from: string): Promise<{ verified: boolean; limits: BillingLimits }> {
  const domains = verifiedSenderDomainQuery(knex, projectId, from);
  if (!domains) return { verified: false, limits: limitsOf(null) };
  const limits = knex('billing_limits').where({ project_id: projectId }).select(knex.raw('row_to_json(billing_limits)'));
  const { sql, bindings } = knex.raw('SELECT EXISTS (?) AS verified, (?) AS limits', [domains.select(knex.raw('1')), limits]).toSQL();
  const { rows } = await prepared(knex, sql, bindings);
  return { verified: rows[0].verified, limits: limitsOf(rows[0].limits) };
}
