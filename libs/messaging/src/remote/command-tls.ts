import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSecureContext, type ConnectionOptions, type TlsOptions } from 'node:tls';
import { ConfigError, Secret } from '@paygate/config';
import { appNamedBy } from './command-identity';

/**
 * What an app proves itself with, and whom it trusts, on the command transport: a certificate
 * and its key, and the private CA that signed every app's certificate. The folder holds them as
 * a Kubernetes TLS Secret (or cert-manager) mounts them: ca.crt, tls.crt, tls.key.
 */
export interface CommandTls {
  /** The folder it was read from, read again to take up a renewed certificate. */
  dir?: string;
  ca: Buffer;
  cert: Buffer;
  /** PEM. */
  key: Secret;
}

export const COMMAND_TLS_FILES = ['ca.crt', 'tls.crt', 'tls.key'] as const;

/** Reads COMMANDS_TLS_DIR; a missing file or one that is not PEM stops the start naming it. */
export function readCommandTls(dir: string): CommandTls {
  const [ca, cert, key] = COMMAND_TLS_FILES.map((file) => {
    try {
      return readFileSync(join(dir, file));
    } catch (error) {
      throw new ConfigError(
        'COMMANDS_TLS_DIR',
        `cannot read ${join(dir, file)}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
      );
    }
  });
  try {
    createSecureContext({ ca, cert, key });
  } catch (error) {
    // OpenSSL's reason names the problem (a key that does not match, not PEM), never the key's bytes.
    throw new ConfigError(
      'COMMANDS_TLS_DIR',
      `${dir}: ca.crt, tls.crt and tls.key are not a usable certificate and key (${(error as Error).message})`,
    );
  }
  return { dir, ca, cert, key: new Secret(key.toString('utf8')) };
}

/** Whether two readings hold the same CA, certificate and key. */
export function sameCommandTls(a: CommandTls, b: CommandTls): boolean {
  return a.ca.equals(b.ca) && a.cert.equals(b.cert) && a.key.reveal() === b.key.reveal();
}

/**
 * The serving side: only a peer whose certificate the private CA signed gets a connection; the
 * bus then admits only the apps allowed to send what it serves (command-identity.ts). Host names
 * are not checked, since commands go to addresses that DNS expands to pod IPs.
 */
export function serverTlsOptions(tls: CommandTls): TlsOptions {
  return {
    ca: tls.ca,
    cert: tls.cert,
    key: tls.key.reveal(),
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.3',
  };
}

/**
 * The sending side: it presents its certificate and accepts only a server the same CA signed
 * whose certificate names `servingApp`, so no other Paygate app can pose as the service.
 */
export function clientTlsOptions(tls: CommandTls, servingApp: string): ConnectionOptions {
  return {
    ca: tls.ca,
    cert: tls.cert,
    key: tls.key.reveal(),
    rejectUnauthorized: true,
    minVersion: 'TLSv1.3',
    checkServerIdentity: (_host, certificate) => {
      const app = appNamedBy(certificate);
      return app === servingApp
        ? undefined
        : new Error(`the command peer's certificate names ${app ?? 'no Paygate app'}, not ${servingApp}`);
    },
  };
}
