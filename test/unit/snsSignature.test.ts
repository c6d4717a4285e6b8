import crypto from 'node:crypto';
import { snsStringToSign, snsUrlAllowed, verifySnsSignature, SnsSignedFields } from '../../lib/snsSignature';
import { selfSigned } from '../helpers/snsSigner';

const notification: SnsSignedFields = {
  Type: 'Notification',
  MessageId: '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324',
  TopicArn: 'arn:aws:sns:us-west-2:123456789012:MyTopic',
  Subject: 'My First Message',
  Message: 'Hello world!\nSecond line',
  Timestamp: '2012-05-02T00:54:06.655Z',
  SignatureVersion: '1',
  Signature: '',
};

const confirmation: SnsSignedFields = {
  Type: 'SubscriptionConfirmation',
  MessageId: '165545c9-2a5c-472c-8df2-7ff2be2b3b1b',
  Token: '2336412f37f',
  TopicArn: 'arn:aws:sns:us-west-2:123456789012:MyTopic',
  Message: 'You have chosen to subscribe to the topic arn:aws:sns:us-west-2:123456789012:MyTopic.',
  SubscribeURL: 'https://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:us-west-2:123456789012:MyTopic&Token=2336412f37f',
  Timestamp: '2012-04-26T20:45:04.751Z',
  SignatureVersion: '1',
  Signature: '',
};

describe('snsStringToSign', () => {
  it('concatenates "Key\\nValue\\n" for Message, MessageId, Subject, Timestamp, TopicArn, Type of a notification', () => {
    expect(snsStringToSign(notification)).toBe(
      'Message\nHello world!\nSecond line\nMessageId\n22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324\nSubject\nMy First Message\nTimestamp\n2012-05-02T00:54:06.655Z\nTopicArn\narn:aws:sns:us-west-2:123456789012:MyTopic\nType\nNotification\n',
    );
  });

  it('leaves Subject out when a notification has none (absent or null)', () => {
    const expected =
      'Message\nHello world!\nSecond line\nMessageId\n22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324\nTimestamp\n2012-05-02T00:54:06.655Z\nTopicArn\narn:aws:sns:us-west-2:123456789012:MyTopic\nType\nNotification\n';
    const { Subject: _, ...withoutSubject } = notification;
    expect(snsStringToSign(withoutSubject)).toBe(expected);
    expect(snsStringToSign({ ...notification, Subject: null })).toBe(expected);
  });

  it('uses Message, MessageId, SubscribeURL, Timestamp, Token, TopicArn, Type for (un)subscribe confirmations', () => {
    const expected = (type: string) =>
      `Message\n${confirmation.Message}\nMessageId\n${confirmation.MessageId}\nSubscribeURL\n${confirmation.SubscribeURL}\nTimestamp\n${confirmation.Timestamp}\nToken\n2336412f37f\nTopicArn\n${confirmation.TopicArn}\nType\n${type}\n`;
    expect(snsStringToSign(confirmation)).toBe(expected('SubscriptionConfirmation'));
    expect(snsStringToSign({ ...confirmation, Type: 'UnsubscribeConfirmation' })).toBe(expected('UnsubscribeConfirmation'));
    // A Subject is not part of a confirmation's signature.
    expect(snsStringToSign({ ...confirmation, Subject: 'x' })).toBe(expected('SubscriptionConfirmation'));
  });

  it('cannot build a string for an unknown type or a confirmation without its Token', () => {
    expect(snsStringToSign({ ...notification, Type: 'Other' })).toBeNull();
    expect(snsStringToSign({ ...notification, Type: 'toString' })).toBeNull();
    const { Token: _, ...noToken } = confirmation;
    expect(snsStringToSign(noToken)).toBeNull();
  });
});

describe('verifySnsSignature', () => {
  const pair = selfSigned('sns.us-west-2.amazonaws.com');
  const cert = new crypto.X509Certificate(pair.cert);
  const sign = (m: SnsSignedFields, digest: string) => ({
    ...m,
    Signature: crypto.sign(digest, Buffer.from(snsStringToSign(m)!), pair.key).toString('base64'),
  });

  it('verifies version 1 as SHA1withRSA and version 2 as SHA256withRSA, and not the other way round', () => {
    const v1 = sign({ ...notification, SignatureVersion: '1' }, 'sha1');
    const v2 = sign({ ...notification, SignatureVersion: '2' }, 'sha256');
    expect(verifySnsSignature(v1, cert)).toBe(true);
    expect(verifySnsSignature(v2, cert)).toBe(true);
    expect(verifySnsSignature({ ...v1, SignatureVersion: '2' }, cert)).toBe(false);
    expect(verifySnsSignature({ ...v2, SignatureVersion: '1' }, cert)).toBe(false);
    expect(verifySnsSignature({ ...v2, SignatureVersion: '3' }, cert)).toBe(false);
    expect(verifySnsSignature(sign({ ...confirmation, SignatureVersion: '2' }, 'sha256'), cert)).toBe(true);
  });

  it('fails on any change to a signed field, but not to an unsigned one', () => {
    const m = sign({ ...notification, SignatureVersion: '2' }, 'sha256');
    expect(verifySnsSignature({ ...m, Message: `${m.Message} ` }, cert)).toBe(false);
    expect(verifySnsSignature({ ...m, Subject: undefined }, cert)).toBe(false);
    expect(verifySnsSignature({ ...m, TopicArn: 'arn:aws:sns:us-west-2:123456789012:Other' }, cert)).toBe(false);
    expect(verifySnsSignature({ ...m, Signature: 'garbage!' }, cert)).toBe(false);
    expect(verifySnsSignature({ ...m, Token: 'not signed in a notification' }, cert)).toBe(true);
  });

  it('fails outside the certificate validity period', () => {
    const m = sign({ ...notification, SignatureVersion: '2' }, 'sha256');
    expect(verifySnsSignature(m, cert, new Date(Date.now() + 3 * 24 * 3600_000))).toBe(false);
    expect(verifySnsSignature(m, cert, new Date(Date.now() - 3600_000))).toBe(false);
  });
});

describe('snsUrlAllowed', () => {
  it("by default allows https on AWS's SNS hosts only", () => {
    expect(snsUrlAllowed('https://sns.us-east-1.amazonaws.com/SimpleNotificationService-abc.pem')).toBe(true);
    expect(snsUrlAllowed('https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-abc.pem')).toBe(true);
    expect(snsUrlAllowed('http://sns.us-east-1.amazonaws.com/x.pem')).toBe(false);
    expect(snsUrlAllowed('https://sns.us-east-1.amazonaws.com.evil.example/x.pem')).toBe(false);
    expect(snsUrlAllowed('https://evil.example/sns.us-east-1.amazonaws.com/x.pem')).toBe(false);
    expect(snsUrlAllowed('https://sns.us-east-1.amazonaws.com@evil.example/x.pem')).toBe(false);
    expect(snsUrlAllowed('https://user@sns.us-east-1.amazonaws.com/x.pem')).toBe(false);
    expect(snsUrlAllowed('https://sns.us-east-1.amazonaws.com:8443/x.pem')).toBe(false);
    expect(snsUrlAllowed('not a url')).toBe(false);
  });

  it('with configured hosts, matches host:port entries exactly and bare hosts on the default port', () => {
    const hosts = ['127.0.0.1:8443', 'sns.localstack.test'];
    expect(snsUrlAllowed('https://127.0.0.1:8443/c.pem', hosts)).toBe(true);
    expect(snsUrlAllowed('https://127.0.0.1:8444/c.pem', hosts)).toBe(false);
    expect(snsUrlAllowed('https://127.0.0.1/c.pem', hosts)).toBe(false);
    expect(snsUrlAllowed('https://SNS.localstack.test/c.pem', hosts)).toBe(true);
    expect(snsUrlAllowed('https://sns.localstack.test:444/c.pem', hosts)).toBe(false);
    expect(snsUrlAllowed('http://127.0.0.1:8443/c.pem', hosts)).toBe(false);
    expect(snsUrlAllowed('https://sns.us-east-1.amazonaws.com/c.pem', hosts)).toBe(false);
  });
});
