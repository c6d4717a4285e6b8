import { redactAddresses } from '../../lib/redact';

/** Error messages that reach Temporal (activity results and failures) must not name recipients. */
describe('redactAddresses', () => {
  it.each([
    ['550 5.1.1 <ann.lee+news@example.com>: Recipient address rejected', '550 5.1.1 <<address>>: Recipient address rejected'],
    ['The to address "bo@mail.example.co.uk" is invalid', 'The to address "<address>" is invalid'],
    ['recipients: a@x.org, b@y.net', 'recipients: <address>, <address>'],
  ])('removes the address from %s', (message, expected) => {
    expect(redactAddresses(message)).toBe(expected);
  });

  it('leaves messages without an address, and empty values, alone', () => {
    expect(redactAddresses('421 4.7.0 try again later')).toBe('421 4.7.0 try again later');
    expect(redactAddresses(null)).toBeNull();
    expect(redactAddresses(undefined)).toBeUndefined();
  });
});
