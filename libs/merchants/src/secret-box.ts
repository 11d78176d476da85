import { ConfigError, decodeMasterKey, type Secret } from '@paygate/config';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Seals secrets at rest with AES-256-GCM under the master key. A sealed value is
 * `v1.<iv>.<tag>.<ciphertext>` in base64url, so the key can be rotated by version later.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** `MASTER_KEY`: 32 bytes as 64 hex characters or base64. */
  static fromMasterKey(encoded: string): SecretBox {
    const key = decodeMasterKey(encoded);
    if (!key) throw new Error('must be 32 bytes, as 64 hex characters or base64');
    return new SecretBox(key);
  }

  static generateMasterKey(): string {
    return randomBytes(32).toString('hex');
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/**
 * The SecretBox of the configured MASTER_KEY (config.merchants.masterKey, already checked by
 * loadConfig), for every process that reads or writes merchant secrets; unset fails the start.
 */
export function secretBoxFromConfig(masterKey: Secret | undefined): SecretBox {
  if (!masterKey)
    throw new ConfigError(
      'MASTER_KEY',
      'must be set (32 bytes as 64 hex characters or base64): it encrypts merchant secrets at rest',
    );
  try {
    return SecretBox.fromMasterKey(masterKey.reveal());
  } catch (error) {
    throw new ConfigError('MASTER_KEY', (error as Error).message);
  }
}
