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

/**
 * The language an answer's words are in (step summaries): the request's, with `Vary: Accept-Language`
 * set, so a cache never hands a French answer to a German client.
 */
export function answerLanguage(ctx: Pick<Context, 'get' | 'acceptsLanguages' | 'vary'>): SentenceLanguage {
  ctx.vary('Accept-Language');
  return requestLanguage(ctx);
}
