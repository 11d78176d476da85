import type { SessionOutcome } from './card-store';

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** A card is usable through the last day of its expiry month. */
function expiryValid(expiry: string, now: Date): boolean {
  const match = /^(0[1-9]|1[0-2])\/(\d{2})$/.exec(expiry);
  if (!match) return false;
  const [month, year] = [Number(match[1]), 2000 + Number(match[2])];
  return year * 12 + month >= now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
}

/**
 * The card number (spaces removed) when the form is valid, or what the customer must fix.
 * Messages never repeat what was typed.
 */
export function readCardForm(
  form: Record<string, unknown>,
  now = new Date(),
): { number: string } | { errors: string[] } {
  const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string).trim() : '');
  const number = field('card_number').replace(/ /g, '');
  const errors: string[] = [];
  if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) errors.push('Enter a valid card number.');
  if (!expiryValid(field('expiry'), now)) errors.push('Enter an expiry date as MM/YY that is not in the past.');
  if (!/^\d{3,4}$/.test(field('cvv'))) errors.push('Enter the 3 or 4 digit security code (CVV).');
  return errors.length > 0 ? { errors } : { number };
}

const FAILURES: Record<string, string> = {
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
};

/** The test cards' outcomes; any other valid number succeeds. Only the masked number leaves here. */
export function cardOutcome(number: string): SessionOutcome {
  const card = {
    last4: number.slice(-4),
    masked: `${number.slice(0, 6)}${'*'.repeat(number.length - 10)}${number.slice(-4)}`,
  };
  const failureCode = FAILURES[number];
  return failureCode ? { status: 'failed', failureCode, card } : { status: 'succeeded', card };
}
