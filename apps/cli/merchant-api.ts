import { setTimeout as wait } from 'node:timers/promises';
import { CliError } from '@paygate/analytics';
import type { Env } from '@paygate/config';

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';

/**
 * What `paygate listen` and `paygate trigger` need to act as the merchant: the keys from the environment, the gateway
 * from --api or PAYGATE_API_URL.
 */
export interface MerchantApi {
  apiUrl: string;
  publicKey: string;
  secretKey: string;
}

export function merchantApi(command: string, env: Env, api: string | undefined): MerchantApi {
  const apiUrl = httpUrl(command, '--api (or PAYGATE_API_URL)', api ?? env.PAYGATE_API_URL ?? DEFAULT_API_URL).replace(
    /\/+$/,
    '',
  );
  const publicKey = env.PAYGATE_PUBLIC_KEY;
  const secretKey = env.PAYGATE_SECRET_KEY;
  const missing = [!publicKey && 'PAYGATE_PUBLIC_KEY', !secretKey && 'PAYGATE_SECRET_KEY'].filter(Boolean);
  if (missing.length > 0 || !publicKey || !secretKey)
    throw new CliError(
      `${command}: set ${missing.join(' and ')} to the merchant's keys (npm start prints the demo merchant's)`,
    );
  return { apiUrl, publicKey, secretKey };
}

/** An http(s) URL, or a CliError naming the option (never echoing more than the value given). */
export function httpUrl(command: string, option: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(
      `${command}: ${option} ${JSON.stringify(value)} is not a URL (such as http://localhost:4000/hooks)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`${command}: ${option} must be an http or https URL, got ${JSON.stringify(value)}`);
  return url.toString();
}

/** The envelope's message of a refused request, or the status alone. */
export async function refusal(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') return `${response.status} ${body.message}`;
  } catch {
    // not the envelope: the status says enough
  }
  return `${response.status}`;
}

export const sleep = (ms: number, signal: AbortSignal) => wait(ms, undefined, { signal }).catch(() => undefined);
