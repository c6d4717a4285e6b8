import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { TemporalGateway } from './temporal';
import type { Runtime } from './runtime';
import type { FormRow } from '../db/forms';
import type { Submission } from '../lib/formFields';
import type { ConsentOrigin } from '../db/consent';
import { formSource } from '../lib/consentSources';
import { upsertContact } from '../db/contactWriters';
import { recordEvent } from '../db/events';
import { inTransaction } from '../db/transaction';
import { doubleOptInSettings, type DoubleOptInSettings } from '../db/doubleOptIn';
import { CONTACT_SUBSCRIBED } from '../lib/contactData';
import { DomainError } from '../lib/domainErrors';
import { doubleOptInFor, heldSubscription, needsConfirmation, requestConfirmation } from './doubleOptIn';
import { countIpAttempt } from '../db/authThrottle';

type Deps = { knex: Knex; temporal: TemporalGateway; log: Logger; config: Config; runtime: Runtime };

/**
 * The two limits of a form's submissions (docs/forms.md "Abuse"), kept in Postgres by the sign-in
 * throttle's GCRA (db/authThrottle.ts) so every replica counts together: per client address across
 * all forms, and per form. Seconds to wait when refused, else null.
 */
export async function formThrottle(deps: Pick<Deps, 'knex' | 'config'>, formId: string, ip: string): Promise<number | null> {
  const byAddress = await countIpAttempt(deps.knex, `form-ip:${ip}`, deps.config.forms.perAddressPerMinute);
  if (!byAddress.allowed) return byAddress.retryAfterSeconds;
  const byForm = await countIpAttempt(deps.knex, `form:${formId}`, deps.config.forms.perFormPerMinute);
  return byForm.allowed ? null : byForm.retryAfterSeconds;
}

/**
 * The double opt-in a form's submissions go through: the form's choice, else the project's settings
 * (services/doubleOptIn.ts doubleOptInFor); 'unavailable' when the form asks for it and the project
 * no longer has settings for it (a signup is then refused rather than subscribed unconfirmed).
 */
export async function formOptIn(knex: Knex, form: FormRow): Promise<DoubleOptInSettings | null | 'unavailable'> {
  try {
    return doubleOptInFor(await doubleOptInSettings(knex, form.project_id), form.double_opt_in ?? undefined);
  } catch (err) {
    if (err instanceof DomainError) return 'unavailable';
    throw err;
  }
}

/**
 * A valid submission: the contact is created or updated with the typed fields and the form's topics,
 * subscribed, or, under double opt-in (`doi`, from formOptIn), left as it was and mailed the
 * confirmation of services/doubleOptIn.ts, whose link subscribes it. Every change is in the consent
 * record with source `form:<id>`. A contact.subscribed event marks the subscription: the flip of an
 * existing contact records it already (db/contactWriters); a contact the form creates subscribed
 * records it here, in the same transaction, since a signup is the subscription. Under double opt-in
 * the confirmation's flip records it (source double_opt_in).
 */
export async function submitForm(deps: Deps, form: FormRow, doi: DoubleOptInSettings | null, sub: Submission, origin: ConsentOrigin): Promise<void> {
  const source = formSource(form.id);
  // Topics deleted since the form was saved drop out; the form keeps working.
  const topics = form.topics.length
    ? (await deps.knex('topics').where({ project_id: form.project_id }).whereIn('slug', form.topics)).map((topic) => ({ topic, subscribed: true }))
    : [];
  const written = await inTransaction(deps.knex, async (trx) => {
    const r = await upsertContact(trx, {
      projectId: form.project_id,
      email: sub.email,
      data: sub.data,
      subscribed: heldSubscription(doi, true),
      defaultSubscribed: !doi,
      topics,
      source,
      origin,
    });
    if (!r.isNew || !r.contact.subscribed) return r;
    const event = await recordEvent(trx, { projectId: form.project_id, contactId: r.contact.id, name: CONTACT_SUBSCRIBED, data: { source } });
    return { ...r, events: [...r.events, event] };
  });
  await deps.runtime.events.handOff(written.events);
  if (doi && needsConfirmation(doi, true, written)) await requestConfirmation(deps, form.project_id, written.contact, doi);
}
