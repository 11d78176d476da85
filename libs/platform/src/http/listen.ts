import type { INestApplication } from '@nestjs/common';
import { APP_URL } from '../tokens';
import type { AppUrl } from '../app-url';

/** Starts serving and records the reachable base URL for features that need their own address. */
export async function listen(app: INestApplication, port: number, host = '0.0.0.0'): Promise<string> {
  await app.listen(port, host);
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('0.0.0.0', '127.0.0.1');
  app.get<AppUrl>(APP_URL).set(url);
  return url;
}
