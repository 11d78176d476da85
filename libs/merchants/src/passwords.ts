import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Dashboard passwords, hashed with scrypt (memory-hard: 32 MiB and about 0.1 s a hash here, so a
 * stolen table costs an attacker that per guess). Stored as `scrypt$<N>$<r>$<p>$<salt>$<hash>`,
 * so the cost can rise later and older hashes still verify.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
/** scrypt's default maxmem (32 MiB) is exactly 128·N·r: allow the hash's own working set and a margin. */
const maxmem = (N: number, r: number) => 256 * N * r;

function derive(password: string, salt: Buffer, { N, r, p }: typeof COST): Promise<Buffer> {
  const options: ScryptOptions = { N, r, p, maxmem: maxmem(N, r) };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from; false for anything not a hash of ours. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(N), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash to verify against when there is no user, so an unknown email takes as long as a wrong password. */
let decoy: Promise<string> | undefined;
export const decoyHash = () => (decoy ??= hashPassword(randomBytes(16).toString('base64url')));
