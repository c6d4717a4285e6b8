import type { Context } from 'koa';
import { SENTENCE_LANGUAGES, type SentenceLanguage } from '../lib/fieldSentences/types';

/**
 * The language a request's field sentences are composed in: the best of en, fr and de by its
 * Accept-Language (q-values, `fr-CH` taken as `fr`; koa's `acceptsLanguages`, the `negotiator` package),
 * English when it sends none or asks for none of them.
 */
export function requestLanguage(ctx: Pick<Context, 'get' | 'acceptsLanguages'>): SentenceLanguage {
  if (!ctx.get('Accept-Language')) return 'en';
  const best = ctx.acceptsLanguages([...SENTENCE_LANGUAGES]);
  return typeof best === 'string' ? (best as SentenceLanguage) : 'en';
}
