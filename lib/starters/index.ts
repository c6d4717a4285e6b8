import type { EmailDocument } from '../emailDocument';

/**
 * The starting points the editor offers ("Start from a template", GET /templates/starters). Each
 * compiles in MJML's strict mode without a warning and stays far under Gmail's 102 KB
 * (test/unit/starters.test.ts). Colours are left to the brand.
 */
export interface Starter {
  id: string;
  name: string;
  description: string;
  subject: string;
  document: EmailDocument;
}

const doc = (preheader: string, blocks: EmailDocument['blocks']): EmailDocument => ({ version: 1, settings: { preheader }, blocks });
const footer = { id: 'footer', type: 'footer' } as const;

export const STARTERS: Starter[] = [
  {
    id: 'welcome',
    name: 'Welcome',
    description: 'Greets a new subscriber and points to the first step',
    subject: 'Welcome, {{ firstName ?? "friend" }}!',
    document: doc('Thanks for joining us. Here is how to get started.', [
      { id: 'title', type: 'heading', level: 1, text: 'Welcome aboard, {{ firstName ?? "friend" }}' },
      {
        id: 'intro',
        type: 'text',
        html: '<p>Thanks for signing up. We are glad you are here.</p><p>Here is what you can do first:</p><ul><li>Complete your profile</li><li>Explore the features</li><li>Invite your team</li></ul>',
      },
      { id: 'cta', type: 'button', text: 'Get started', href: 'https://example.com/start' },
      { id: 'rule', type: 'divider' },
      footer,
    ]),
  },
  {
    id: 'newsletter',
    name: 'Newsletter',
    description: 'A headline story and two side-by-side pieces',
    subject: 'This month: what is new',
    document: doc('The stories of the month, in two minutes.', [
      { id: 'title', type: 'heading', level: 1, text: 'The monthly letter' },
      { id: 'hero', type: 'image', src: 'https://placehold.co/600x300/png', alt: 'This month in one picture' },
      { id: 'lead', type: 'text', html: '<p><strong>The big story.</strong> Tell your readers what happened and why it matters to them.</p>' },
      {
        id: 'pair',
        type: 'columns',
        columns: [
          {
            blocks: [
              { id: 'left-title', type: 'heading', level: 3, text: 'First piece' },
              { id: 'left-text', type: 'text', html: '<p>A short summary with a <a href="https://example.com/one">link</a>.</p>' },
            ],
          },
          {
            blocks: [
              { id: 'right-title', type: 'heading', level: 3, text: 'Second piece' },
              { id: 'right-text', type: 'text', html: '<p>A short summary with a <a href="https://example.com/two">link</a>.</p>' },
            ],
          },
        ],
      },
      {
        id: 'social',
        type: 'social',
        links: [
          { network: 'x', href: 'https://x.com/example' },
          { network: 'linkedin', href: 'https://www.linkedin.com/company/example' },
        ],
      },
      footer,
    ]),
  },
  {
    id: 'product-update',
    name: 'Product update',
    description: 'Announces a feature with a picture and a button',
    subject: 'New: a feature you asked for',
    document: doc('It is live today for everyone.', [
      { id: 'title', type: 'heading', level: 1, text: 'Something new is here' },
      { id: 'shot', type: 'image', src: 'https://placehold.co/600x340/png', alt: 'The new feature' },
      {
        id: 'what',
        type: 'text',
        html: '<p>You asked, we built it. Here is what changes for you:</p><ol><li>Faster</li><li>Simpler</li><li>Yours to try now</li></ol>',
      },
      { id: 'cta', type: 'button', text: 'Try it', href: 'https://example.com/new' },
      footer,
    ]),
  },
  {
    id: 'receipt',
    name: 'Receipt',
    description: 'Confirms a payment with the order details',
    subject: 'Your receipt {{ orderId }}',
    document: doc('Thanks for your purchase.', [
      { id: 'title', type: 'heading', level: 2, text: 'Thanks for your order' },
      { id: 'intro', type: 'text', html: '<p>Order <strong>{{ orderId }}</strong> is paid. Keep this email for your records.</p>' },
      {
        id: 'lines',
        type: 'columns',
        columns: [
          { blocks: [{ id: 'item', type: 'text', html: '<p>{{ item ?? "Your order" }}</p>' }] },
          { blocks: [{ id: 'amount', type: 'text', html: '<p><strong>{{ amount }}</strong></p>', align: 'right' }] },
        ],
      },
      { id: 'rule', type: 'divider' },
      { id: 'help', type: 'text', html: '<p>Questions? Reply to this email.</p>', fontSize: 14 },
      footer,
    ]),
  },
  {
    id: 'password-reset',
    name: 'Password reset',
    description: 'A reset link that expires',
    subject: 'Reset your password',
    document: doc('Use this link within the hour.', [
      { id: 'title', type: 'heading', level: 2, text: 'Reset your password' },
      {
        id: 'intro',
        type: 'text',
        html: '<p>Someone asked to reset the password of {{ email }}. If it was you, use the button below. The link expires in one hour.</p>',
      },
      { id: 'cta', type: 'button', text: 'Choose a new password', href: '{{ resetUrl }}' },
      { id: 'ignore', type: 'text', html: '<p>If you did not ask for this, ignore this email: your password stays the same.</p>', fontSize: 14 },
      footer,
    ]),
  },
  {
    id: 'event-invitation',
    name: 'Event invitation',
    description: 'Invites to an event with date, place and RSVP',
    subject: 'You are invited: {{ eventName ?? "our event" }}',
    document: doc('Save the date and let us know if you can come.', [
      { id: 'banner', type: 'image', src: 'https://placehold.co/600x200/png', alt: 'Event banner' },
      { id: 'title', type: 'heading', level: 1, text: 'You are invited', align: 'center' },
      {
        id: 'details',
        type: 'columns',
        columns: [
          { blocks: [{ id: 'when', type: 'text', html: '<p><strong>When</strong><br>{{ eventDate ?? "Date to come" }}</p>', align: 'center' }] },
          { blocks: [{ id: 'where', type: 'text', html: '<p><strong>Where</strong><br>{{ eventPlace ?? "Place to come" }}</p>', align: 'center' }] },
          { blocks: [{ id: 'cost', type: 'text', html: '<p><strong>Cost</strong><br>Free</p>', align: 'center' }] },
        ],
      },
      { id: 'rsvp', type: 'button', text: 'RSVP', href: 'https://example.com/rsvp', align: 'center' },
      { id: 'space', type: 'spacer', height: 16 },
      footer,
    ]),
  },
];
