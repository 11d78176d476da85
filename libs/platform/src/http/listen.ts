import type { INestApplication } from '@nestjs/common';
import { APP_URL } from '../tokens';
import type { AppUrl } from '../app-url';
import type { StartupListener } from './startup-listener';

/**
 * Starts serving (on `port`, or on the socket a startup listener has been answering on) and
 * records the reachable base URL for features that need their own address.
 */
export async function listen(app: INestApplication, port: number | StartupListener, host = '0.0.0.0'): Promise<string> {
  if (typeof port === 'number') {
    await app.listen(port, host);
  } else {
    // Nest passes an options object through Fastify to Node's server.listen, which takes the handle.
    await app.listen(port.handOver() as unknown as number);
  }
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('0.0.0.0', '127.0.0.1');
  app.get<AppUrl>(APP_URL).set(url);
  return url;
}
