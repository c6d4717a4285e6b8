/**
 * Characters no request string may carry. NUL and unpaired UTF-16 surrogates cannot be stored
 * (Postgres refuses NUL in text and jsonb, and a lone surrogate has no UTF-8 form); the other C0
 * controls and DEL mean nothing in text and break CSV exports, mail headers and terminals. TAB, LF
 * and CR stay allowed (template bodies and descriptions use them). Bidi controls (U+202A–U+202E,
 * U+2066–U+2069) are legitimate in right-to-left text and are stored as sent.
 */
const REFUSED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const hasRefusedCharacter = (s: string): boolean => REFUSED.test(s);

const REFUSED_ALL = new RegExp(REFUSED.source, 'g');

/** For text we must store whatever it holds (received mail): each refused character becomes U+FFFD. */
export const replaceRefused = (s: string): string => s.replace(REFUSED_ALL, '\ufffd');

export interface RefusedAt {
  /** Dotted path of the field (for a refused object key: the object holding it). */
  field: string;
  inKey: boolean;
}

/** The first string (value or object key) in `value` carrying a refused character; iterative, so deep input cannot blow the stack. */
export function findRefusedText(value: unknown, base: (string | number)[] = []): RefusedAt | null {
  const stack: [unknown, (string | number)[]][] = [[value, base]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (REFUSED.test(v)) return { field: path.join('.') || '(root)', inKey: false };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      v.forEach((child, i) => {
        stack.push([child, [...path, i]]);
      });
      continue;
    }
    for (const [k, child] of Object.entries(v)) {
      if (REFUSED.test(k)) return { field: path.join('.') || '(root)', inKey: true };
      stack.push([child, [...path, k]]);
    }
  }
  return null;
}

export function refusedMessage(at: RefusedAt): string {
  return at.inKey
    ? `${at.field}: a key contains a control character or an unpaired surrogate, which cannot be stored`
    : `${at.field}: contains a control character or an unpaired surrogate, which cannot be stored`;
}
