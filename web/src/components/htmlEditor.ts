/**
 * CodeMirror 6 for the template body (HTML with Liquid). Imported only by components/CodeEditor.tsx's
 * dynamic import, so it is a chunk of its own, fetched when the template editor opens and never on the
 * first screen.
 *
 * A small setup instead of `basicSetup`: no auto-closing of tags or brackets, no completion and no
 * re-indenting on input, so what is typed is what is stored; Tab is not bound, so it still moves the
 * focus (keyboard users leave the field as from any other).
 */
import { html } from '@codemirror/lang-html';
import { EditorState } from '@codemirror/state';
import { EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';

export interface HtmlEditorOptions {
  parent: HTMLElement;
  value: string;
  onChange(value: string): void;
  /** Attributes of the editable element (id, aria-labelledby, aria-describedby, aria-invalid, aria-required). */
  attributes: Record<string, string>;
}

export function createHtmlEditor(o: HtmlEditorOptions): EditorView {
  return new EditorView({
    parent: o.parent,
    state: EditorState.create({
      doc: o.value,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        drawSelection(),
        history(),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        html({ autoCloseTags: false }),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ spellcheck: 'false', autocorrect: 'off', autocapitalize: 'off', ...o.attributes }),
        EditorView.theme({
          '&': { fontSize: '13px', border: '1px solid var(--mantine-color-default-border)', borderRadius: 'var(--mantine-radius-default)' },
          '&.cm-focused': { outline: '2px solid var(--mantine-primary-color-filled)', outlineOffset: '-1px' },
          '.cm-scroller': { fontFamily: 'var(--mantine-font-family-monospace)', minHeight: '14em', maxHeight: '36em' },
          // The highlight colours reach 4.5:1 on white only: the active line shows in the gutter instead of under the text.
          '.cm-activeLine': { backgroundColor: 'transparent' },
        }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) o.onChange(u.state.doc.toString());
        }),
      ],
    }),
  });
}

/** Replaces the whole document (the template loaded, or reset) without moving it into the undo history's way. */
export function setHtmlEditorValue(view: EditorView, value: string): void {
  if (view.state.doc.toString() === value) return;
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: value } });
}
