import { EMAIL_NAME, HONEYPOT_NAME, STAMP_NAME, type FormField } from './formFields';
import { en } from './publicCopy/en';

/**
 * The markup of a signup form (docs/forms.md), one function for the hosted page (api/routes/formPages.ts),
 * the embed snippet and the dashboard's preview (its copy, web/src/components/forms/formMarkup.ts): a plain HTML form that needs no script.
 * test/unit/formMarkup.test.ts holds the copy to the same output.
 */

const escapeText = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export interface FormMarkupOptions {
  /** Absolute for the embed (it posts from another site), the path on the hosted page. */
  action: string;
  fields: readonly FormField[];
  /** What was posted, when the form is shown again with errors. */
  values?: Record<string, string>;
  /** A message per field name, shown under the field and named by its aria-describedby. */
  errors?: Record<string, string>;
  /** The hosted page's signed time stamp (lib/formStamp.ts); the embed carries none. */
  stamp?: string;
  /**
   * How the honeypot is hidden: by the pages' stylesheet class (the hosted page, whose CSP refuses
   * style attributes) or by a style attribute (the embed, which brings no stylesheet).
   */
  honeypot: 'class' | 'inline';
  /** The form's own words in the visitor's language (the hosted page); English otherwise (the embed, the preview). */
  words?: FormWords;
}

export interface FormWords {
  email: string;
  honeypot: string;
  subscribe: string;
}

const ENGLISH: FormWords = { email: en['form.email'], honeypot: en['form.honeypot'], subscribe: en['form.subscribe'] };

const idOf = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;

function control(name: string, label: string, input: string, error: string | undefined, required: boolean): string {
  const err = error ? `\n<span class="error" id="${idOf(name)}-error">${escapeText(error)}</span>` : '';
  // One span: the pages' labels are grids, and the asterisk stays on the label's line.
  return `<label for="${idOf(name)}"><span>${escapeText(label)}${required ? ' <span aria-hidden="true">*</span>' : ''}</span></label>\n${input}${err}`;
}

const common = (name: string, required: boolean, error: string | undefined) =>
  `id="${idOf(name)}" name="${escapeText(name)}"${required ? ' required' : ''}${error ? ` aria-invalid="true" aria-describedby="${idOf(name)}-error"` : ''}`;

function fieldMarkup(f: FormField, value: string, error: string | undefined): string {
  const attrs = common(f.key, f.required, error);
  switch (f.type) {
    case 'checkbox': {
      const err = error ? `\n<span class="error" id="${idOf(f.key)}-error">${escapeText(error)}</span>` : '';
      return `<label><span><input type="checkbox" ${attrs} value="true"${value ? ' checked' : ''}> ${escapeText(f.label)}</span></label>${err}`;
    }
    case 'select': {
      const options = (f.options ?? []).map((o) => `<option value="${escapeText(o)}"${o === value ? ' selected' : ''}>${escapeText(o)}</option>`);
      return control(f.key, f.label, `<select ${attrs}>\n<option value=""></option>\n${options.join('\n')}\n</select>`, error, f.required);
    }
    case 'number':
      return control(f.key, f.label, `<input type="number" step="any" ${attrs} value="${escapeText(value)}">`, error, f.required);
    case 'date':
      return control(f.key, f.label, `<input type="date" ${attrs} value="${escapeText(value)}">`, error, f.required);
    default:
      return control(f.key, f.label, `<input type="text" ${attrs} value="${escapeText(value)}">`, error, f.required);
  }
}

export function formMarkup(o: FormMarkupOptions): string {
  const words = o.words ?? ENGLISH;
  const values = o.values ?? {};
  const errors = o.errors ?? {};
  const hidden = o.honeypot === 'class' ? 'class="hp"' : 'style="position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden"';
  const parts = [
    `<form method="post" action="${escapeText(o.action)}" accept-charset="utf-8">`,
    control(
      EMAIL_NAME,
      words.email,
      `<input type="email" ${common(EMAIL_NAME, true, errors[EMAIL_NAME])} autocomplete="email" value="${escapeText(values[EMAIL_NAME] ?? '')}">`,
      errors[EMAIL_NAME],
      true,
    ),
    ...o.fields.map((f) => fieldMarkup(f, values[f.key] ?? '', errors[f.key])),
    // People never see or reach it; a bot filling every input fills it too.
    `<div ${hidden} aria-hidden="true"><label>${escapeText(words.honeypot)} <input type="text" name="${HONEYPOT_NAME}" tabindex="-1" autocomplete="off" value=""></label></div>`,
    ...(o.stamp ? [`<input type="hidden" name="${STAMP_NAME}" value="${escapeText(o.stamp)}">`] : []),
    `<button type="submit">${escapeText(words.subscribe)}</button>`,
    '</form>',
  ];
  return parts.join('\n');
}
