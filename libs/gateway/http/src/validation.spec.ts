/**
 * How the merchant API reads a JSON body (validateBody): types as sent, never coerced; every bad
 * field named once, with the message of its most basic rule; a misspelt field reported, not ignored.
 */
import { mobileMoneyRequest } from '@paygate/testing';
import { RetryDeliveriesDto } from './dto/callbacks.dto';
import { ConfirmCollectionDto, InitializeCollectionDto } from './dto/initialize-collection.dto';
import { validateBody, ValidationFailed } from './validation';

const collection = mobileMoneyRequest();

const fieldErrors = async (body: unknown, required: Record<string, string> = {}) =>
  (await validateBody(InitializeCollectionDto, body, required)).errors;

describe('validateBody', () => {
  it('accepts a valid body as sent', async () => {
    const { value, errors } = await validateBody(InitializeCollectionDto, collection);
    expect(errors).toEqual([]);
    expect({ ...value }).toEqual(collection);
  });

  it.each([
    ['a JSON array', [collection]],
    ['null', null],
    ['a string', 'order-1001'],
  ])('refuses %s as the body with a 400 naming the body', async (_what, body) => {
    const refusal = await validateBody(ConfirmCollectionDto, body).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ValidationFailed);
    expect((refusal as ValidationFailed).getStatus()).toBe(400);
    expect((refusal as ValidationFailed).getResponse()).toEqual({
      message: 'the request body must be a JSON object',
      data: { errors: [{ field: 'body', message: 'the request body must be a JSON object' }] },
    });
  });

  it('coerces nothing: a number or boolean sent as a string is an error', async () => {
    expect(await fieldErrors({ ...collection, amount: '81000', charge_customer: 'true' })).toEqual([
      { field: 'amount', message: 'amount must be a JSON number' },
      { field: 'charge_customer', message: 'charge_customer must be true or false' },
    ]);
  });

  it('names a misspelt optional field, and one named like an Object method, instead of ignoring it', async () => {
    expect(await fieldErrors({ ...collection, descripton: 'Order 1001', toString: 'x' })).toEqual([
      { field: 'descripton', message: 'descripton is not a field of this request' },
      { field: 'toString', message: 'toString is not a field of this request' },
    ]);
  });

  it('says a missing field is required, in the words the caller gives for a conditional one', async () => {
    const body = mobileMoneyRequest();
    delete body.customer_name;
    delete body.msisdn;
    expect(await fieldErrors(body, { msisdn: 'msisdn is required for MOBILE_MONEY' })).toEqual([
      { field: 'msisdn', message: 'msisdn is required for MOBILE_MONEY' },
      { field: 'customer_name', message: 'customer_name is required' },
    ]);
  });

  it('names each bad field once, with the message of its first rule', async () => {
    expect(await fieldErrors({ ...collection, merchant_reference: 1001, customer_name: 42 })).toEqual([
      { field: 'merchant_reference', message: 'merchant_reference must be a string' },
      { field: 'customer_name', message: 'customer_name must be a string' },
    ]);
    expect(await fieldErrors({ ...collection, customer_name: ' '.repeat(101) })).toEqual([
      { field: 'customer_name', message: 'customer_name must not be blank' },
    ]);
  });

  it('leaves an optional field out when it is absent, and applies its rules when it is there', async () => {
    expect((await validateBody(RetryDeliveriesDto, {})).errors).toEqual([]);
    const ids = Array.from({ length: 1001 }, (_, i) => `msg_${i}`);
    expect((await validateBody(RetryDeliveriesDto, { webhook_ids: ids })).errors).toEqual([
      { field: 'webhook_ids', message: 'webhook_ids takes at most 1000 ids' },
    ]);
  });
});
