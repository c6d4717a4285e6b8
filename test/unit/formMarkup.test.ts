import { formMarkup } from '../../lib/formMarkup';
import { formMarkup as dashboardCopy } from '../../web/src/components/forms/formMarkup';
import type { FormField } from '../../lib/formFields';

/** The form editor's preview renders the hosted page's markup: its copy in web/ must not drift. */

const FIELDS: FormField[] = [
  { key: 'company', label: 'Company <Inc>', type: 'text', required: true },
  { key: 'seats', label: 'Seats', type: 'number', required: false },
  { key: 'terms', label: 'I agree', type: 'checkbox', required: true },
  { key: 'born', label: 'Birthday', type: 'date', required: false },
  { key: 'plan', label: 'Plan', type: 'select', required: false, options: ['free', 'pro "x"'] },
];

it.each([
  ['the hosted page', { action: '/f/1', fields: FIELDS, stamp: '1.abc', honeypot: 'class' as const }],
  ['the embed', { action: 'https://x.example/f/1', fields: FIELDS, honeypot: 'inline' as const }],
  [
    'a page with errors',
    {
      action: '/f/1',
      fields: FIELDS,
      honeypot: 'class' as const,
      values: { email: 'a@', plan: 'pro "x"', terms: 'true' },
      errors: { email: 'Bad', seats: 'Number' },
    },
  ],
])('the dashboard copy renders %s as the server does', (_, options) => {
  expect(dashboardCopy(options)).toBe(formMarkup(options));
});
