import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { decodeMasterKey, type Secret } from '@paygate/config';

/** How long a sign-in or invite form's token holds (its cookie's Max-Age too). */
export const FORM_TOKEN_VALID_SECONDS = 60 * 60;

const TOKEN = /^([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/**
 * The token of a form shown before there is a session (sign-in, invite), sent as a cookie and as
 * the form's field (double submit). Matching copies are not enough: the token carries the
 * server's MAC over a nonce and its issue time, so a pair someone made up, or one older than an
 * hour, is refused. The key comes from MASTER_KEY, so every gateway accepts what another issued.
 */
export class FormTokens {
  private constructor(private readonly key: Buffer) {}

  /** The key derived from the master key (HKDF); without one (it is not configured), a key of this process. */
  static fromMasterKey(masterKey: Secret | undefined): FormTokens {
    const master = masterKey ? decodeMasterKey(masterKey.reveal()) : undefined;
    const key = master
      ? Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'paygate dashboard form token', 32))
      : randomBytes(32);
    return new FormTokens(key);
  }

  issue(nowMs = Date.now()): string {
    const body = `${randomBytes(16).toString('base64url')}.${Math.floor(nowMs / 1_000)}`;
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** Whether this server issued `token` within the last hour. */
  verify(token: string | undefined, nowMs = Date.now()): boolean {
    const match = token === undefined ? null : TOKEN.exec(token);
    if (!match) return false;
    const [, nonce, issuedAt, mac] = match;
    const age = nowMs / 1_000 - Number(issuedAt);
    if (age < -60 || age > FORM_TOKEN_VALID_SECONDS) return false;
    const given = Buffer.from(mac, 'base64url');
    const expected = this.mac(`${nonce}.${issuedAt}`);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest();
  }
}
