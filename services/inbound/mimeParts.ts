/**
 * The leaf parts of a message by content type, for the report parts mailparser folds into the
 * text body (`message/delivery-status`) or hides. Bounded on purpose: hostile input may nest
 * multiparts without end, so the walk stops at MAX_DEPTH and MAX_PARTS and never recurses on the stack.
 */

export interface MimeLeaf {
  contentType: string;
  body: string;
}

const MAX_DEPTH = 4;
const MAX_PARTS = 64;

/** Splits at the first blank line; a message without one is all header. */
export function splitHeader(text: string): { header: string; body: string } {
  const m = /\r?\n\r?\n/.exec(text);
  return m ? { header: text.slice(0, m.index), body: text.slice(m.index + m[0].length) } : { header: text, body: '' };
}

/** The unfolded value of the first `name` field of a header section. */
export function headerValue(header: string, name: string): string | null {
  const re = new RegExp(`^${name}[ \\t]*:(.*(?:\\r?\\n[ \\t].*)*)`, 'im');
  const m = re.exec(header);
  return m ? m[1].replace(/\r?\n[ \t]/g, ' ').trim() : null;
}

/** Every field of a header section in order, each value unfolded; at most `max` of them (hostile mail may carry thousands). */
export function headerFields(header: string, max = 200): Array<{ name: string; value: string }> {
  const out: Array<{ name: string; value: string }> = [];
  for (const m of header.matchAll(/^([\x21-\x39\x3b-\x7e]+)[ \t]*:(.*(?:\r?\n[ \t].*)*)/gm)) {
    if (out.length === max) break;
    out.push({ name: m[1], value: m[2].replace(/\r?\n[ \t]/g, ' ').trim() });
  }
  return out;
}

const decode = (body: string, encoding: string | null): string => {
  const e = (encoding ?? '').toLowerCase();
  if (e === 'base64') return Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64').toString('utf8');
  if (e === 'quoted-printable') {
    return body.replace(/=\r?\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(Number.parseInt(h, 16)));
  }
  return body;
};

export function mimeLeaves(raw: string): MimeLeaf[] {
  const out: MimeLeaf[] = [];
  const queue: Array<{ text: string; depth: number }> = [{ text: raw, depth: 0 }];
  while (queue.length && out.length < MAX_PARTS) {
    const { text, depth } = queue.shift()!;
    const { header, body } = splitHeader(text);
    const contentType = (headerValue(header, 'content-type') ?? 'text/plain').toLowerCase();
    const type = contentType.split(';')[0].trim();
    const boundary = /boundary\s*=\s*(?:"([^"]{1,200})"|([^;\s]{1,200}))/i.exec(headerValue(header, 'content-type') ?? '');
    if (type.startsWith('multipart/') && boundary && depth < MAX_DEPTH) {
      const delimiter = `--${boundary[1] ?? boundary[2]}`;
      const pieces = body.split(delimiter);
      // pieces[0] is the preamble; a piece starting with `--` is the epilogue after the close delimiter.
      for (const piece of pieces.slice(1, MAX_PARTS + 1)) {
        if (piece.startsWith('--')) break;
        queue.push({ text: piece.replace(/^[ \t]*\r?\n/, ''), depth: depth + 1 });
      }
      continue;
    }
    out.push({ contentType: type, body: decode(body, headerValue(header, 'content-transfer-encoding')) });
  }
  return out;
}
