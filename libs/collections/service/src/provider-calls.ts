import type { CollectionCall, CollectionStep } from '@paygate/collections-domain';
import type { CollectOperations } from '@paygate/connectors';
import type { Logger } from '@paygate/logging';

export interface ProviderCallsDeps {
  /** The collect operations of a provider_code's connector. */
  collectors: (providerCode: string) => CollectOperations;
  /** Base URL providers call back, and base URL of the gateway the checkout returns to. */
  urls: { providerCallback: () => string; checkoutReturn: () => string };
  log: Logger;
}

/**
 * The collection process's calls carried out by the provider's connector (keyed by
 * provider_code). What came of a call is the process's next input: a failure is one too, so the
 * process decides whether it ends the run, leaves the collection to its status timer, or refuses.
 */
export function providerCalls({ collectors, urls, log }: ProviderCallsDeps) {
  const carryOut = async (call: CollectionCall): Promise<CollectionStep> => {
    if (call.type === 'QueryProvider')
      return { type: 'ProviderAnswered', outcome: await collectors(call.providerCode).status(call.reference) };
    const { providerCode, ...request } = call.request;
    const initiation = await collectors(providerCode).initiate({
      ...request,
      notifyUrl: `${urls.providerCallback()}/provider-callbacks/${encodeURIComponent(providerCode)}/${request.reference}`,
      returnUrl: `${urls.checkoutReturn()}/v1/checkout/return/${request.reference}`,
    });
    return {
      type: 'ProviderAccepted',
      providerReference: initiation.providerReference,
      paymentUrl: initiation.paymentUrl,
    };
  };
  return (call: CollectionCall, internalReference: string): Promise<CollectionStep> =>
    carryOut(call).catch((error: unknown) => {
      log.warn('provider request failed', { internal_reference: internalReference, error });
      return { type: 'ProviderUnreachable', error };
    });
}
