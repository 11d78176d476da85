export const PAYMENTS = Symbol('PaymentsService');
