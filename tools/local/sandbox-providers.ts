/**
 * The collections app's settings in a layout with the sandbox as its own process: mobile money
 * and card go to the sandbox at `sandboxUrl`, and checkout returns the payer to `checkoutReturnUrl`.
 */
export function collectionsOnSandbox(sandboxUrl: string, checkoutReturnUrl: string): Record<string, string> {
  return {
    MOMO_API_URL: `${sandboxUrl}/sandbox/momo`,
    CARD_API_URL: `${sandboxUrl}/sandbox/card`,
    CHECKOUT_RETURN_URL: checkoutReturnUrl,
  };
}

/** The service-payments app's settings in such a layout: refunds and payouts go to the sandbox at `sandboxUrl`. */
export function moneyOutOnSandbox(sandboxUrl: string): Record<string, string> {
  return { MOMO_API_URL: `${sandboxUrl}/sandbox/momo`, CARD_API_URL: `${sandboxUrl}/sandbox/card` };
}
