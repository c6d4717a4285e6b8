import Stripe from 'stripe';
import type { BillingConfig } from './config';

/**
 * Stripe through the official `stripe` client: webhook signatures with its own verifier, and the two
 * calls the dashboard needs. STRIPE_API_URL points the client elsewhere (a local stub in tests).
 */
/** config.billing: on when a Stripe secret key is configured. */
export type StripeSettings = BillingConfig;

/** Stripe's default: an event signed more than five minutes away from now is refused (replays). */
const SIGNATURE_TOLERANCE_SECONDS = 300;

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
  try {
    // The verifier only needs the signing secret; it never calls Stripe.
    verifier.webhooks.signature!.verifyHeader(payload, header, secret, toleranceSeconds, undefined, nowSeconds * 1000);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  // Stripe's verifier refuses only old timestamps; one far in the future is no less a replay risk.
  const timestamp = Number(/(?:^|,)\s*t=(\d+)/.exec(header)?.[1]);
  if (timestamp - nowSeconds > toleranceSeconds) return { ok: false, reason: 'timestamp is outside the tolerance window' };
  return { ok: true, timestamp };
}

const verifier = new Stripe('sk_unused_for_signature_checks');

export class StripeError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const clients = new Map<string, Stripe>();

/** One client per key and URL, created on first use. */
function stripeClient(settings: StripeSettings): Stripe {
  const key = `${settings.secretKey}|${settings.apiUrl}`;
  let client = clients.get(key);
  if (!client) {
    const url = new URL(settings.apiUrl);
    client = new Stripe(settings.secretKey!, {
      host: url.hostname,
      port: url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443,
      protocol: url.protocol === 'http:' ? 'http' : 'https',
      timeout: 15_000,
      maxNetworkRetries: 1,
    });
    clients.set(key, client);
  }
  return client;
}

/** A client call with Stripe's own errors (and unreachability) as StripeError. */
export async function stripeCall<T>(settings: StripeSettings, call: (client: Stripe) => Promise<T>): Promise<T> {
  try {
    return await call(stripeClient(settings));
  } catch (err) {
    const e = err as { statusCode?: number; message?: string };
    if (typeof e.statusCode === 'number') throw new StripeError(`Stripe answered ${e.statusCode}: ${e.message ?? 'no message'}`, e.statusCode);
    throw new StripeError(`Stripe is unreachable: ${e.message ?? String(err)}`, 0);
  }
}
