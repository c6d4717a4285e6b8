import i18n from 'i18next';
import type { common } from '../i18n/en/common';

/**
 * The API's error sentences in the dashboard's language. The server writes English (api/errors.ts and
 * its callers, lib/contactData.ts, the domain errors of db/ and services/); where a sentence is fixed
 * (by its code, or by its words under a code that has many) the dashboard says its catalogue's
 * (common `apiError`) instead, and anything it does not know keeps the server's words.
 * test/unit/errorWords.test.ts holds every entry to en, fr and de. A 422's field sentences come in the
 * dashboard's language already (client.ts sends Accept-Language): these are for the other errors, the
 * sentences the server still writes in English, and older servers.
 */

type Key = keyof typeof common.apiError;
type Values = Record<string, string>;

/** Codes whose message is always one sentence (or one sentence plus a technical detail a person cannot use). */
export const CODE_SENTENCES: Record<string, Key> = {
  PROJECT_DISABLED: 'projectDisabled',
  TWO_FACTOR_REQUIRED: 'twoFactorRequired',
  PAYLOAD_TOO_LARGE: 'tooLarge',
  INTERNAL_SERVER_ERROR: 'unexpected',
  NOT_IMPLEMENTED: 'notImplemented',
  TEMPORAL_UNAVAILABLE: 'temporalUnavailable',
  BILLING_DISABLED: 'billingDisabled',
  BILLING_MISCONFIGURED: 'billingMisconfigured',
  INVALID_TOKEN: 'invalidToken',
  IDEMPOTENCY_KEY_REUSED: 'idempotencyKeyReused',
  DNS_UNAVAILABLE: 'dnsUnavailable',
};

/** The things a 404 names (`notFound('Contact')` → "Contact not found"), as the catalogue's `thing` keys. */
export const NOT_FOUND_THINGS: Record<string, keyof typeof common.apiError.thing> = {
  Template: 'template',
  Contact: 'contact',
  Project: 'project',
  Campaign: 'campaign',
  Form: 'form',
  'Webhook endpoint': 'webhookEndpoint',
  'Subscription link': 'subscriptionLink',
  Email: 'email',
  Version: 'version',
  'Tracking domain': 'trackingDomain',
  Invite: 'invite',
  Domain: 'domain',
  Workflow: 'workflow',
  Topic: 'topic',
  'Single sign-on': 'singleSignOn',
  Segment: 'segment',
  Job: 'job',
  Execution: 'execution',
  'Contact view': 'contactView',
  'Webhook delivery': 'webhookDelivery',
  Suppression: 'suppression',
  Starter: 'starter',
  Session: 'session',
  Member: 'member',
  'Inbound message': 'inboundMessage',
  Image: 'image',
  Field: 'field',
  'Confirmation link': 'confirmationLink',
  'API key': 'apiKey',
  Step: 'step',
  Transition: 'transition',
};

/**
 * Sentences the server writes under codes that carry many (UNAUTHORIZED, FORBIDDEN, CONFLICT, a 422's
 * field sentences), by their words, with the values they name.
 */
export const MESSAGE_SENTENCES: Array<[RegExp, Key, (m: RegExpExecArray) => Values]> = [
  [/^Invalid email or password$/, 'badCredentials', () => ({})],
  [/^Not signed in\b/, 'notSignedIn', () => ({})],
  [/^Signups are disabled on this server$/, 'signupsDisabled', () => ({})],
  [/^No sign-in is waiting for a second factor\b/, 'noSecondFactorWaiting', () => ({})],
  [/^The authentication code is wrong or was already used$/, 'badCode', () => ({})],
  [/^The recovery code is wrong or was already used$/, 'badRecoveryCode', () => ({})],
  [/^Two-factor authentication is already enabled\b/, 'twoFactorAlreadyOn', () => ({})],
  [/^Start the enrolment first\b/, 'enrolFirst', () => ({})],
  [/^This invite is for another address\b/, 'inviteForAnother', () => ({})],
  [/^Your role \((\w+)\) may not do this on the project$/, 'roleRefused', (m) => ({ role: say(`role.${m[1]}`, { defaultValue: m[1] }) ?? m[1] })],
  [/^The file is not a PNG, JPEG, GIF or WebP image$/, 'notAnImage', () => ({})],
  [/^Send exactly one file$/, 'oneFile', () => ({})],
  [/^The database did not answer in time\b/, 'databaseSlow', () => ({})],
  [/^Forbidden$/, 'forbidden', () => ({})],
  // A contact's custom data (lib/contactData.ts).
  [/^keys must be 1 to (\d+) characters$/, 'keyLength', (m) => ({ max: m[1] })],
  [/^keys may not contain "\."/, 'keyDot', () => ({})],
  [/^objects may be nested at most (\d+) levels deep$/, 'nesting', (m) => ({ max: m[1] })],
  [/^at most (\d+) keys per object \(got (\d+)\)$/, 'keysPerObject', (m) => ({ max: m[1], got: m[2] })],
];

const NOT_FOUND = /^(.+) not found$/;

/** The catalogue's words, or undefined before the dashboard's i18n is started (the server's unit tests compile this module). */
function say(key: string, values: Record<string, unknown> = {}): string | undefined {
  if (!i18n.isInitialized) return undefined;
  // Keys built from the tables above: test/unit/errorWords.test.ts checks them against the catalogues.
  const t = i18n.getFixedT(null, 'common') as unknown as (key: string, options: Record<string, unknown>) => string;
  return t(`apiError.${key}`, values);
}

/** A sentence of the server's in the dashboard's words, when its words are known (any code). */
export function sentenceWords(message: string): string | undefined {
  // The contacts routes' flat errors name the path first ("data.: keys must be…"): a path is no word for people.
  const bare = message.replace(/^[\w.[\]-]*: /, '');
  for (const [pattern, key, values] of MESSAGE_SENTENCES) {
    const m = pattern.exec(message) ?? pattern.exec(bare);
    if (m) return say(key, values(m));
  }
  const missing = NOT_FOUND.exec(message);
  const thing = missing ? NOT_FOUND_THINGS[missing[1]] : undefined;
  if (thing) {
    const what = say(`thing.${thing}`);
    return what === undefined ? undefined : say('notFound', { what });
  }
  return undefined;
}

/** The message a failed request shows for its code and the server's sentence: the catalogue's when known, else the server's. */
export function errorWords(message: string, code?: string): string {
  const byCode = code && Object.hasOwn(CODE_SENTENCES, code) ? say(CODE_SENTENCES[code]) : undefined;
  return byCode ?? sentenceWords(message) ?? message;
}

/** "The server answered 502", when a failure carries no message of its own. */
export const serverAnswered = (status: number) => say('serverAnswered', { status: String(status) }) ?? `The server answered ${status}`;

/** In place of zod's developer English (fieldErrors.ts). */
export const notValid = () => say('notValid') ?? 'This value is not valid; check it and try again';
