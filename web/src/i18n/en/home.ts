/** The project's setup checklist (pages/Overview.tsx). */
export const home = {
  heading: 'Set up your project',
  addedBy: 'Added by {{name}}',
  checklist: 'Setup checklist',
  progress: 'Setup progress',
  doneCount: '{{completed}} of {{total}} done',
  done: '(done)',
  todo: '(to do)',
  item: {
    domain: 'Add a sender domain',
    verifiedDomain: 'Verify the domain (publish its DNS records)',
    contact: 'Add a contact',
    template: 'Create a template',
    event: 'Track an event',
    email: 'Send an email',
  },
  seeKeys: 'See the API keys and how to send',
};
