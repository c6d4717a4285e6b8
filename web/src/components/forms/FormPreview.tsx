import { formMarkup, type FormField } from './formMarkup';
import { useTranslation } from 'react-i18next';

/**
 * The hosted page as the visitor will see it: the server's own markup (lib/formMarkup.ts) and the
 * pages' stylesheet, in a sandboxed frame (no script, nothing submits).
 */
export function FormPreview({ name, fields }: { name: string; fields: FormField[] }) {
  const { t } = useTranslation('editor');
  const title = name.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const doc = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="stylesheet" href="/pages.css"></head><body><h1>${title}</h1>${formMarkup({ action: '#', fields, honeypot: 'class' })}</body></html>`;
  return (
    <iframe
      title={t('formEditor.frame')}
      sandbox=""
      srcDoc={doc}
      style={{ width: '100%', minHeight: 480, border: '1px solid var(--mantine-color-gray-3)', borderRadius: 4 }}
    />
  );
}
