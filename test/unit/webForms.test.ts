import { ApiError, fieldError, fieldsOf, hasFieldErrors, unwrap } from '../../web/src/api/client';
import { fieldErrors } from '../../web/src/api/fieldErrors';
import { parsePreviewData, templateFieldOf } from '../../web/src/api/templates';
import { parseFieldValue, sourceOf, typeOf } from '../../web/src/api/contactFields';
import { reportPollMs } from '../../web/src/api/campaigns';
import { ownMessageIn } from '../../lib/zodSentences';

/** The dashboard's form logic of its own (web/src/api): API errors onto fields, typed values, preview data. */

const answer = (status: number, error: unknown) => Promise.resolve({ error, response: new Response(null, { status }) });

describe('API errors on form fields', () => {
  it("keeps the 422 envelope's first message per field", async () => {
    const body = {
      success: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: 'Request validation failed',
        errors: [
          { field: 'quietHours.start', message: 'Start must be a 24-hour HH:MM time such as 21:00', code: 'invalid_string' },
          { field: 'quietHours.start', message: 'second message', code: 'custom' },
          { field: 'url', message: 'URL must be a full web address, like https://example.com/page', code: 'invalid_string' },
          { field: 'name', message: 'Too small: expected string to have >=1 characters', code: 'too_small' },
        ],
      },
    };
    const url = 'URL must be a full web address, like https://example.com/page';
    // zod's developer English from an older server is never shown as is.
    const plain = 'This value is not valid; check it and try again';
    expect(fieldsOf(body)).toEqual({ 'quietHours.start': 'Start must be a 24-hour HH:MM time such as 21:00', url, name: plain });
    const err = await unwrap(answer(422, body)).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    // The alert a form shows reads as the field sentences, not the envelope's "Request validation failed".
    expect(err).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', message: `Start must be a 24-hour HH:MM time such as 21:00. ${url}. ${plain}.` });
    expect(fieldErrors(err)).toEqual(fieldsOf(body));
    expect(fieldError(err, 'url')).toBe(url);
    expect(fieldError(err, 'name')).toBe(plain);
    expect(fieldError(err, 'other')).toBeUndefined();
    expect(hasFieldErrors(err)).toBe(true);
    expect(fieldsOf({ error: 'flat' })).toEqual({});
    expect(fieldError(new Error('x'), 'url')).toBeUndefined();
  });

  it("puts the template routes' flat sentences on the field they name", async () => {
    const err = await unwrap(answer(400, { error: 'From address must be a valid email address' })).catch((e) => e);
    expect(hasFieldErrors(err)).toBe(false);
    expect(templateFieldOf(err)).toEqual({ field: 'from', message: 'From address must be a valid email address' });
    expect(templateFieldOf(new ApiError(400, 'From name must be at most 200 characters'))?.field).toBe('fromName');
    expect(templateFieldOf(new ApiError(400, 'Subject is not a valid template: tag "if" not closed'))?.field).toBe('subject');
    expect(templateFieldOf(new ApiError(400, 'Nothing to update'))).toBeNull();
    // In French and German the server names the field by its catalogue's label (Accept-Language).
    for (const field of ['from', 'fromName', 'replyTo', 'name', 'description', 'subject', 'body', 'text', 'type']) {
      for (const lang of ['fr', 'de'] as const) {
        const said = ownMessageIn('X is required', [field], lang)!;
        expect([said, templateFieldOf(new ApiError(400, said))?.field]).toEqual([said, field]);
      }
    }
    // A 403 (unverified sender) is not a field's problem.
    expect(templateFieldOf(new ApiError(403, 'The sender domain example.com is not verified'))).toBeNull();
    // The preview's envelope names its field itself.
    expect(templateFieldOf(new ApiError(422, 'The template does not parse', 'VALIDATION_ERROR', { body: 'tag "if" not closed, line:2' }))).toEqual({
      field: 'body',
      message: 'tag "if" not closed, line:2',
    });
  });
});

describe('typed values', () => {
  it('parses a custom field value by its chosen type', () => {
    expect(parseFieldValue('text', 'pro')).toEqual({ value: 'pro' });
    expect(parseFieldValue('text', '')).toHaveProperty('problem');
    expect(parseFieldValue('number', ' 4.5 ')).toEqual({ value: 4.5 });
    expect(parseFieldValue('number', 'four')).toHaveProperty('problem');
    expect(parseFieldValue('number', '')).toHaveProperty('problem');
    expect(parseFieldValue('boolean', 'false')).toEqual({ value: false });
    expect(parseFieldValue('json', '{"tier": 2}')).toEqual({ value: { tier: 2 } });
    expect(parseFieldValue('json', '[1, 2]')).toEqual({ value: [1, 2] });
    expect(parseFieldValue('json', '"a string"')).toHaveProperty('problem');
    expect(parseFieldValue('json', '{')).toEqual({ problem: 'badJson', reason: expect.any(String) });
  });

  it('shows a stored value in the form it was typed in', () => {
    expect([typeOf('x'), typeOf(3), typeOf(true), typeOf({ a: 1 }), typeOf([1])]).toEqual(['text', 'number', 'boolean', 'json', 'json']);
    expect(sourceOf('x')).toBe('x');
    expect(sourceOf(3)).toBe('3');
    expect(sourceOf({ a: 1 })).toBe('{\n  "a": 1\n}');
    for (const v of ['pro', 7, false, { a: [1] }]) expect(parseFieldValue(typeOf(v), sourceOf(v))).toEqual({ value: v });
  });

  it('takes preview data as a JSON object only', () => {
    expect(parsePreviewData('')).toEqual({ data: {} });
    expect(parsePreviewData('{"first name": "Ada"}')).toEqual({ data: { 'first name': 'Ada' } });
    expect(parsePreviewData('[1]')).toHaveProperty('problem');
    expect(parsePreviewData('null')).toHaveProperty('problem');
    expect(parsePreviewData('{"a":')).toEqual({ problem: 'notJson', reason: expect.any(String) });
  });
});

describe("a campaign report's refresh", () => {
  const now = Date.parse('2026-11-28T12:00:00Z');
  it('polls fast while sending, slowly for a week after SENT, then stops', () => {
    expect(reportPollMs({ status: 'SENDING', sentAt: null }, now)).toBe(2000);
    expect(reportPollMs({ status: 'SCHEDULED', sentAt: null }, now)).toBe(2000);
    expect(reportPollMs({ status: 'SENT', sentAt: '2026-11-27T12:00:00Z' }, now)).toBe(15_000);
    expect(reportPollMs({ status: 'SENT', sentAt: '2026-11-20T11:59:00Z' }, now)).toBe(false);
    expect(reportPollMs({ status: 'CANCELLED', sentAt: null }, now)).toBe(false);
    expect(reportPollMs({ status: 'DRAFT', sentAt: null }, now)).toBe(false);
  });
});
