/*
 * The address guard against server-side request forgery: one table of the IANA special-purpose ranges, one decision
 * (addressRefusal), the checks built on it for configuration (callbackUrlRefusal) and connect time (connectRefusal
 * before a request, guardedLookup when a name resolves), and the keep-alive pool that applies them to each new
 * connection (guardedDispatcher). Every outbound call to an address a client chose goes through it.
 */
export {
  addressRefusal,
  canonicalAddress,
  specialPurposeRange,
  type AddressPolicy,
  type SpecialPurposeRange,
} from './special-purpose-addresses';
export {
  callbackUrlRefusal,
  connectRefusal,
  guardedLookup,
  hostRefusal,
  isLocalhostName,
  TARGET_NOT_ALLOWED,
  TargetNotAllowedError,
  type Resolver,
} from './target-guard';
export { guardedDispatcher, type GuardedDispatcherOptions } from './guarded-dispatcher';
export { freePort } from './free-port';
