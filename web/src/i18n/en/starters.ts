/**
 * The starting points the dashboard offers, in words: the template starters' names and descriptions
 * on "New template" (GET /templates/starters, keyed by starter id; a starter this catalogue does not
 * know is shown in the server's words: components/emailEditor/starterWords.ts), and the first content
 * of a new template, campaign or block, which the dashboard writes (components/emailEditor/draftWords.ts).
 * test/unit/starterWords.test.ts holds `templates` to the server's starters.
 */
export const starters = {
  templates: {
    welcome: { name: 'Welcome', description: 'Greets a new subscriber and points to the first step' },
    newsletter: { name: 'Newsletter', description: 'A headline story and two side-by-side pieces' },
    'product-update': { name: 'Product update', description: 'Announces a feature with a picture and a button' },
    receipt: { name: 'Receipt', description: 'Confirms a payment with the order details' },
    'password-reset': { name: 'Password reset', description: 'A reset link that expires' },
    'event-invitation': { name: 'Event invitation', description: 'Invites to an event with date, place and RSVP' },
  },
  /**
   * A new email's first content: "<h1>{{hello}} {{ data.firstName ?? "{{there}}" }}</h1><p>{{message}}</p>"
   * (`there` stands in for a contact without a first name, inside the template's own quotes).
   */
  draft: { hello: 'Hello', there: 'there', message: 'Write your message here.' },
  /** A new block's content in the blocks editor. */
  block: { heading: 'A heading', button: 'Read more', html: 'Your HTML' },
};
