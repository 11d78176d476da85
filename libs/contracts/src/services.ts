/** Names under which services serve commands (request-reply over the broker). */
export const SERVICES = {
  collections: 'collections',
  servicePayments: 'service-payments',
  webhooks: 'webhook-dispatcher',
} as const;
