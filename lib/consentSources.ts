/**
 * Where a consent change came from: the `source` of a consent record (db/consent.ts) and of the
 * `contact.subscribed`/`unsubscribed` events. Every writer names one of these; a signup form names
 * itself (`form:<id>`, formSource). api/openapi.ts publishes the list as the component
 * `ConsentSources`, so the dashboard's words are held to it (web/src/i18n/en/contacts.ts). Rows
 * written before this list may hold other strings: readers name those as they are.
 */
export const CONSENT_SOURCES = [
  /** A call with the secret key or an API key (the default). */
  'api',
  /** A person signed in to the dashboard. */
  'dashboard',
  /** POST /v1/send created or changed the contact. */
  'send',
  /** POST /v1/track (or /events/track) did. */
  'track',
  /** A CSV import. */
  'import',
  /** A bulk subscribe or unsubscribe. */
  'bulk',
  /** Adding addresses to a static segment's list. */
  'segment',
  /** The person, on a link page of an email (unsubscribe, preferences). */
  'link',
  /** The person, through their mail client's one-click unsubscribe (RFC 8058). */
  'one-click',
  /** The person, confirming a double opt-in. */
  'double_opt_in',
  /** A workflow's UPDATE_CONTACT step. */
  'workflow',
  /** An inbound email from a new address. */
  'inbound',
  /** A hard bounce. */
  'bounce',
  /** A spam complaint. */
  'complaint',
  /** The email provider's own unsubscribe. */
  'provider',
  /** A signup form: written as `form:<id>` (formSource). */
  'form',
] as const;

export type ConsentSourceKind = (typeof CONSENT_SOURCES)[number];
/** What a writer records: a kind, or a form by its id. */
export type ConsentSource = Exclude<ConsentSourceKind, 'form'> | `form:${string}`;

/** The source a signup form's changes record. */
export const formSource = (formId: string): ConsentSource => `form:${formId}`;
