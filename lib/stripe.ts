import crypto from 'node:crypto';
import type { BillingConfig } from './config';

/**
 * Stripe without the official `stripe` package (it is not a dependency, and this code must run
 * where Stripe is unreachable): webhook signatures are checked per Stripe's documented scheme and
 * the two calls the dashboard needs are plain form-encoded HTTPS requests.
 */
/** config.billing: on when a Stripe secret key is configured. */
export type StripeSettings = BillingConfig;

/** Stripe's default: an event signed more than five minutes away from now is refused (replays). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: string };

/**
 * `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`: v1 is HMAC-SHA256 of `<t>.<raw body>`
 * with the endpoint's signing secret. Several v1 values appear while a secret is being rolled.
 */
export function verifyStripeSignature(
  payload: Buffer,
  header: string | undefined,
  secret: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): SignatureCheck {
  if (!header) return { ok: false, reason: 'missing Stripe-Signature header' };
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === undefined) return { ok: false, reason: 'Stripe-Signature has no timestamp' };
  if (!signatures.length) return { ok: false, reason: 'Stripe-Signature has no v1 signature' };
  const expected = crypto.createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest();
  if (!signatures.some((s) => crypto.timingSafeEqual(s, expected))) return { ok: false, reason: 'signature does not match the payload' };
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return { ok: false, reason: 'timestamp is outside the tolerance window' };
  return { ok: true, timestamp };
}

export class StripeError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** One form-encoded call to the Stripe API; keys are given already flattened (`line_items[0][price]`). */
export async function stripeRequest(settings: StripeSettings, path: string, form: Record<string, string | undefined>): Promise<any> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) if (v !== undefined) body.append(k, v);
  let res: Response;
  try {
    res = await fetch(`${settings.apiUrl}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${settings.secretKey}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
      signal: AbortSignal.timeout(15_000),
    });
  } catch (err) {
    throw new StripeError(`Stripe is unreachable: ${(err as Error).message}`, 0);
  }
  const json = (await res.json().catch(() => null)) as any;
  if (!res.ok) throw new StripeError(`Stripe answered ${res.status}: ${json?.error?.message ?? 'no message'}`, res.status);
  return json;
}
