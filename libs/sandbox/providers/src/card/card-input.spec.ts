/**
 * The hosted checkout's card form (readCardForm) and the test cards' outcomes (cardOutcome): what a
 * customer must fix, told without repeating the number, and only a masked number kept.
 */
import { cardOutcome, readCardForm } from './card-input';

const JUNE_2031 = new Date('2031-06-15T12:00:00Z');
const form = (fields: Record<string, unknown>) =>
  readCardForm({ card_number: '4242 4242 4242 4242', expiry: '12/31', cvv: '123', ...fields }, JUNE_2031);

describe('the card form', () => {
  it('gives the number without the spaces a customer types', () => {
    expect(form({})).toEqual({ number: '4242424242424242' });
  });

  it.each([
    ['fails the Luhn check', '4242 4242 4242 4241'],
    ['is too short', '42424242424'],
    ['has letters', '4242 4242 4242 424a'],
  ])('refuses a number that %s', (_why, card_number) => {
    expect(form({ card_number })).toEqual({ errors: ['Enter a valid card number.'] });
  });

  it('takes a card through the last day of its expiry month, and none from before it', () => {
    expect(form({ expiry: '06/31' })).toEqual({ number: '4242424242424242' });
    expect(form({ expiry: '05/31' })).toEqual({ errors: ['Enter an expiry date as MM/YY that is not in the past.'] });
    expect(form({ expiry: '13/31' })).toEqual({ errors: ['Enter an expiry date as MM/YY that is not in the past.'] });
  });

  it('lists every field to fix at once, never echoing what was typed', () => {
    const typed = { card_number: '5555 5555 5555 5555 0', expiry: '2031-12', cvv: '12' };
    const read = form(typed);
    expect(read).toEqual({
      errors: [
        'Enter a valid card number.',
        'Enter an expiry date as MM/YY that is not in the past.',
        'Enter the 3 or 4 digit security code (CVV).',
      ],
    });
    for (const value of Object.values(typed)) expect(JSON.stringify(read)).not.toContain(value);
  });

  it('treats a field that is not text as empty', () => {
    expect(readCardForm({ card_number: 4242424242424242, expiry: ['12/31'], cvv: 123 }, JUNE_2031)).toEqual({
      errors: [
        'Enter a valid card number.',
        'Enter an expiry date as MM/YY that is not in the past.',
        'Enter the 3 or 4 digit security code (CVV).',
      ],
    });
  });
});

describe('the test cards', () => {
  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
  ])('%s fails with %s', (number, failureCode) => {
    expect(cardOutcome(number)).toMatchObject({ status: 'failed', failureCode });
  });

  it('any other valid number succeeds', () => {
    expect(cardOutcome('5555555555554444')).toEqual({
      status: 'succeeded',
      card: { last4: '4444', masked: '555555******4444' },
    });
  });

  it('keeps only the first six and last four digits, whatever the length', () => {
    expect(cardOutcome('4242424242424242').card).toEqual({ last4: '4242', masked: '424242******4242' });
    expect(cardOutcome('6011000990139424123').card).toEqual({ last4: '4123', masked: '601100*********4123' });
  });
});
