/**
 * The words of the public pages (subscription links, the preference center, double opt-in, signup
 * forms) in English: the catalogue every other language is checked against (a missing key there is
 * a type error). `{{name}}` is a value filled in when the page is rendered.
 */
export const en = {
  // Subscription links (api/routes/unsubscribe.ts)
  'sub.unsubscribe': 'Unsubscribe',
  'sub.subscribe': 'Subscribe',
  'sub.subscribeAgain': 'Subscribe again',
  'sub.unsubscribeAll': 'Unsubscribe from everything',
  'sub.manageAll': 'Manage all your email preferences',
  'sub.askUnsubscribe.title': 'Unsubscribe?',
  'sub.askUnsubscribe.all': 'Press the button to stop receiving these emails at {{email}}.',
  'sub.askUnsubscribe.topic': 'Press the button to stop receiving {{topic}} emails at {{email}}.',
  'sub.askSubscribe.title': 'Subscribe again?',
  'sub.askSubscribe.all': 'Press the button to receive these emails at {{email}} again.',
  'sub.askSubscribe.topic': 'Press the button to receive {{topic}} emails at {{email}} again.',
  'sub.unsubscribed.title': 'You have been unsubscribed',
  'sub.unsubscribed.topicTitle': 'You have been unsubscribed from {{topic}}',
  'sub.subscribed.title': 'You are subscribed',
  'sub.subscribed.topicTitle': 'You are subscribed to {{topic}}',
  'sub.state.subscribed': '{{email}} is subscribed to these emails.',
  'sub.state.unsubscribed': '{{email}} is unsubscribed from these emails.',
  'sub.state.topicSubscribed': '{{email}} is subscribed to {{topic}} emails.',
  'sub.state.topicUnsubscribed': '{{email}} is unsubscribed from {{topic}} emails.',
  'prefs.title': 'Your email preferences',
  'prefs.topics': 'Topics',
  'prefs.save': 'Save preferences',
  'prefs.saved': 'Your preferences were saved.',
  // Double opt-in
  'confirm.title': 'Confirm your subscription',
  'confirm.body': 'Press the button to receive our emails at {{email}}.',
  'confirm.button': 'Confirm subscription',
  'confirm.done.title': 'Your subscription is confirmed',
  'confirm.expired.title': 'This link has expired',
  'confirm.expired.body': 'This confirmation link was already used or has expired. Sign up again to get a new one.',
  // Signup forms (api/routes/formPages.ts, lib/formMarkup.ts, lib/formFields.ts)
  'form.email': 'Email',
  'form.subscribe': 'Subscribe',
  'form.honeypot': 'Leave this empty',
  'form.fix': 'Please correct the fields marked below.',
  'form.thanks.title': 'Thank you',
  'form.thanks.body': 'Thank you for signing up.',
  'form.checkInbox.title': 'Check your inbox',
  'form.checkInbox.body': 'We have sent you an email: press the link in it to confirm your subscription.',
  'form.tooMany.title': 'Too many signups',
  'form.tooMany.body': 'Too many signups came from here just now. Please try again in a minute.',
  'form.closed.title': 'This form is not taking signups',
  'form.closed.body': 'This form cannot take signups right now. Please try again later.',
  'form.error.emailMissing': 'Enter your email address.',
  'form.error.emailInvalid': 'Enter a valid email address, like name@example.com.',
  'form.error.checkbox': 'Check this box to continue.',
  'form.error.required': 'This field is required.',
  'form.error.tooLong': 'At most {{max}} characters.',
  'form.error.number': 'Enter a number.',
  'form.error.date': 'Enter a date as YYYY-MM-DD.',
  'form.error.option': 'Choose one of the options.',
} as const;

export type CopyKey = keyof typeof en;
