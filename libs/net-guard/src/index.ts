/*
 * The address guard against server-side request forgery: one table of the IANA special-purpose
 * ranges, one decision (addressRefusal), and the checks built on it for configuration
 * (callbackUrlRefusal) and connect time (connectRefusal before a request, guardedLookup when a
 * name resolves). Every outbound call to an address a client chose goes through it.
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
export { freePort } from './free-port';
