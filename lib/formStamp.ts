import crypto from 'node:crypto';

/**
 * The hosted form page's time stamp (docs/forms.md "Abuse"): when the page was rendered, signed with
 * the app secret for this form, so a submission can prove a person had the page for a while. A
 * submission whose stamp is forged, malformed, for another form or younger than MIN_FILL_MS is
 * treated like a filled honeypot. The embed snippet carries no stamp (it is static HTML on another
 * site); a submission without one is taken, guarded by the honeypot, the rate limits and double opt-in.
 */

export const MIN_FILL_MS = 2000;

// Signed input of its own, so no other token of the app (subscription links, JWTs) can pass for a stamp.
const PURPOSE = 'form-stamp:';

const sign = (secret: string, formId: string, at: string) => crypto.createHmac('sha256', secret).update(`${PURPOSE}${formId}:${at}`).digest('base64url');

export const signFormStamp = (secret: string, formId: string, now = Date.now()) => `${now}.${sign(secret, formId, String(now))}`;

/** 'ok', or why the stamp does not vouch for a person: 'bad' (forged, malformed, another form's) or 'fast'. */
export function checkFormStamp(secret: string, formId: string, stamp: string, now = Date.now()): 'ok' | 'bad' | 'fast' {
  const [at, signature, extra] = stamp.split('.');
  if (!at || !/^\d{1,15}$/.test(at) || !signature || extra !== undefined) return 'bad';
  const given = Buffer.from(signature);
  const expected = Buffer.from(sign(secret, formId, at));
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return 'bad';
  return now - Number(at) < MIN_FILL_MS ? 'fast' : 'ok';
}
