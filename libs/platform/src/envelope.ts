/** The one response envelope of the merchant API: `code` mirrors the HTTP status. */
export type EnvelopeStatus = 'accepted' | 'success' | 'error';

export interface Envelope<Data = Record<string, unknown>> {
  code: number;
  status: EnvelopeStatus;
  message: string;
  data: Data;
}

export function envelope<Data>(code: number, message: string, data: Data): Envelope<Data> {
  return { code, status: code >= 400 ? 'error' : code === 202 ? 'accepted' : 'success', message, data };
}

/** Seconds a 503 (a dependency or service not answering, an app still starting) asks a client to wait. */
export const RETRY_AFTER_SECONDS = 2;
