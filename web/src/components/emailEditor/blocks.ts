import type { Block, BlockType, EmailDocument, LeafBlock } from '../../api/emailEditor';

/** The palette, in its order; each block's name as people read it is the catalogue's (editor:blocks.name). */
export const PALETTE: BlockType[] = ['heading', 'text', 'button', 'image', 'divider', 'spacer', 'columns', 'social', 'html', 'footer'];

const newId = () => `b${Math.random().toString(36).slice(2, 10)}`;

/** The words a new block starts with, in the person's language (starterWords.ts). */
export interface BlockWords {
  heading: string;
  message: string;
  button: string;
  html: string;
}

const ENGLISH: BlockWords = { heading: 'A heading', message: 'Write your message here.', button: 'Read more', html: 'Your HTML' };

/** A new block of `type` with content that shows what it is; unset settings fall back to the brand. */
export function newBlock(type: BlockType, words: BlockWords = ENGLISH): Block {
  const id = newId();
  switch (type) {
    case 'heading':
      return { id, type, text: words.heading, level: 1 };
    case 'text':
      return { id, type, html: `<p>${words.message}</p>` };
    case 'button':
      return { id, type, text: words.button, href: 'https://example.com', align: 'center' };
    case 'image':
      return { id, type, src: '', alt: '' };
    case 'divider':
      return { id, type };
    case 'spacer':
      return { id, type, height: 24 };
    case 'columns':
      return { id, type, columns: [{ blocks: [] }, { blocks: [] }] };
    case 'social':
      return { id, type, links: [{ network: 'web', href: 'https://example.com' }], align: 'center' };
    case 'html':
      return { id, type, html: `<p>${words.html}</p>` };
    case 'footer':
      return { id, type };
  }
}

export const emptyDocument = (): EmailDocument => ({ version: 1, settings: {}, blocks: [] });

/** The block with `id`, at the top level or inside a column. */
export function findBlock(doc: EmailDocument, id: string | null): Block | null {
  if (!id) return null;
  for (const b of doc.blocks) {
    if (b.id === id) return b;
    if (b.type === 'columns') for (const c of b.columns) for (const inner of c.blocks) if (inner.id === id) return inner;
  }
  return null;
}

/** The list holding `id` (the document's or a column's) with a function that rebuilds the document from a new list. */
function siblingsOf(doc: EmailDocument, id: string): { list: Block[]; put(list: Block[]): EmailDocument } | null {
  if (doc.blocks.some((b) => b.id === id)) return { list: doc.blocks, put: (list) => ({ ...doc, blocks: list }) };
  for (const b of doc.blocks) {
    if (b.type !== 'columns') continue;
    const ci = b.columns.findIndex((c) => c.blocks.some((inner) => inner.id === id));
    if (ci < 0) continue;
    return {
      list: b.columns[ci].blocks,
      put: (list) => ({
        ...doc,
        blocks: doc.blocks.map((x) => (x.id === b.id ? { ...b, columns: b.columns.map((c, i) => (i === ci ? { blocks: list as LeafBlock[] } : c)) } : x)),
      }),
    };
  }
  return null;
}

export function updateBlock(doc: EmailDocument, id: string, patch: Partial<Block>): EmailDocument {
  const s = siblingsOf(doc, id);
  return s ? s.put(s.list.map((b) => (b.id === id ? ({ ...b, ...patch } as Block) : b))) : doc;
}

export function removeBlock(doc: EmailDocument, id: string): EmailDocument {
  const s = siblingsOf(doc, id);
  return s ? s.put(s.list.filter((b) => b.id !== id)) : doc;
}

/** Moves `id` one place up (-1) or down (+1) within its list; at an end nothing changes. */
export function moveBlock(doc: EmailDocument, id: string, by: -1 | 1): EmailDocument {
  const s = siblingsOf(doc, id);
  if (!s) return doc;
  const i = s.list.findIndex((b) => b.id === id);
  const j = i + by;
  if (j < 0 || j >= s.list.length) return doc;
  const list = [...s.list];
  [list[i], list[j]] = [list[j], list[i]];
  return s.put(list);
}

/** Moves a top-level block to the index of another (drag and drop). */
export function moveTo(doc: EmailDocument, id: string, overId: string): EmailDocument {
  const from = doc.blocks.findIndex((b) => b.id === id);
  const to = doc.blocks.findIndex((b) => b.id === overId);
  if (from < 0 || to < 0 || from === to) return doc;
  const list = [...doc.blocks];
  const [moved] = list.splice(from, 1);
  list.splice(to, 0, moved);
  return { ...doc, blocks: list };
}

/** Inserts `block` after `afterId` (in its list), or at `index` of the document, or at the end. */
export function insertBlock(doc: EmailDocument, block: Block, where: { afterId?: string | null; index?: number }): EmailDocument {
  if (where.afterId && block.type !== 'columns') {
    const s = siblingsOf(doc, where.afterId);
    if (s) {
      const i = s.list.findIndex((b) => b.id === where.afterId);
      return s.put([...s.list.slice(0, i + 1), block, ...s.list.slice(i + 1)]);
    }
  }
  if (where.afterId) {
    const i = doc.blocks.findIndex((b) => b.id === where.afterId);
    if (i >= 0) return { ...doc, blocks: [...doc.blocks.slice(0, i + 1), block, ...doc.blocks.slice(i + 1)] };
  }
  const at = where.index ?? doc.blocks.length;
  return { ...doc, blocks: [...doc.blocks.slice(0, at), block, ...doc.blocks.slice(at)] };
}

/** Adds a block at the end of column `column` of the columns block `columnsId`. */
export function addToColumn(doc: EmailDocument, columnsId: string, column: number, block: LeafBlock): EmailDocument {
  return {
    ...doc,
    blocks: doc.blocks.map((b) =>
      b.id === columnsId && b.type === 'columns' ? { ...b, columns: b.columns.map((c, i) => (i === column ? { blocks: [...c.blocks, block] } : c)) } : b,
    ),
  };
}
