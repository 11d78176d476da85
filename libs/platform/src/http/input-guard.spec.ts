import * as fc from 'fast-check';
import { exceedsJsonDepth, unstorableInput, unstorableTextPaths } from './input-guard';

/** Nesting depth of a parsed JSON value, the reference the text scan must agree with. */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (typeof value === 'object' && value !== null) return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('exceedsJsonDepth', () => {
  it.each([
    ['1', 0, false],
    ['{}', 1, false],
    ['{}', 0, true],
    ['[[[]]]', 3, false],
    ['[[[]]]', 2, true],
    ['[{},{},{},[]]', 2, false],
    [nested(32), 32, false],
    [nested(33), 32, true],
    ['[[[[[[[[[[' + ']'.repeat(10), 9, true],
  ])('%s within %i levels: exceeded %s', (text, limit, exceeded) => {
    expect(exceedsJsonDepth(text, limit)).toBe(exceeded);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(exceedsJsonDepth(JSON.stringify({ text: '[[[[{{{{' }), 1)).toBe(false);
    expect(exceedsJsonDepth(JSON.stringify({ text: 'quote " then [[[[ and \\ then {{{{' }), 1)).toBe(false);
    expect(exceedsJsonDepth(JSON.stringify(['\\', [[]]]), 2)).toBe(true);
  });

  it('scans 5,000 levels without recursion', () => {
    expect(exceedsJsonDepth('['.repeat(5000) + ']'.repeat(5000), 32)).toBe(true);
  });

  it('agrees with the depth of the parsed value for any JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 0, max: 12 }), (value, limit) => {
        expect(exceedsJsonDepth(JSON.stringify(value), limit)).toBe(depthOf(value) > limit);
      }),
    );
  });
});

describe('unstorableTextPaths', () => {
  it.each([
    ['a plain body', { name: 'Jane', tags: ['a', '😀'], nested: { ok: true } }, []],
    ['NUL in a field', { customer_name: 'Jane\u0000Doe' }, ['customer_name']],
    ['a high surrogate alone', { customer_email: 'a\ud800@b.com' }, ['customer_email']],
    ['a low surrogate alone', { customer_email: '\udc00a@b.com' }, ['customer_email']],
    ['a reversed pair', { description: '\ude00\ud83d' }, ['description']],
    ['a nested field', { payer: { partyIdType: 'MSISDN', partyId: '2567\u0000' } }, ['payer.partyId']],
    ['an array item', { webhook_ids: ['ok', 'bad\ud800'] }, ['webhook_ids[1]']],
    ['a field name', { 'na\u0000me': 'x' }, ['na\ufffdme']],
    ['a field name and its value', { ['\udfff']: '\u0000' }, ['\ufffd', '\udfff']],
    ['a text body', 'text\u0000', ['']],
  ])('%s', (_label, value, paths) => {
    expect(unstorableTextPaths(value)).toEqual(paths);
  });
});

describe('unstorableInput', () => {
  it('names each refused field, and in the message where it was', () => {
    const request = {
      params: { id: 'x\u0000' },
      query: { merchant_reference: ['a', '\ud800'] },
      body: { customer_name: 'ok', customer_email: '\udc00' },
    };
    expect(unstorableInput(request)).toEqual([
      { field: 'id', message: 'path parameter id must not contain NUL characters or unpaired UTF-16 surrogates' },
      {
        field: 'merchant_reference[1]',
        message: 'query parameter merchant_reference[1] must not contain NUL characters or unpaired UTF-16 surrogates',
      },
      {
        field: 'customer_email',
        message: 'customer_email must not contain NUL characters or unpaired UTF-16 surrogates',
      },
    ]);
  });

  it('calls a text body "body"', () => {
    expect(unstorableInput({ params: {}, query: {}, body: '\u0000' })).toEqual([
      { field: 'body', message: 'body must not contain NUL characters or unpaired UTF-16 surrogates' },
    ]);
  });

  it('finds nothing in a request without parameters, query or body', () => {
    expect(unstorableInput({ params: undefined, query: undefined, body: undefined })).toEqual([]);
  });
});
