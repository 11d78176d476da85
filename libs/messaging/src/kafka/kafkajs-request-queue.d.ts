/** The part of kafkajs's per-connection request queue (not in its typings) that request-queue-idle.ts changes. */
declare module 'kafkajs/src/network/requestQueue' {
  class RequestQueue {
    constructor(options: {
      maxInFlightRequests: number | null;
      requestTimeout: number;
      enforceRequestTimeout: boolean;
      clientId: string;
      broker: string;
      logger: unknown;
    });
    pending: unknown[];
    throttledUntil: number;
    throttleCheckTimeoutId: NodeJS.Timeout | null;
    checkPendingRequests(): void;
    scheduleCheckPendingRequests(): void;
  }
  export = RequestQueue;
}
