import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What BENCH_TRACING=1 points the apps at: an OTLP/HTTP traces endpoint on 127.0.0.1 that reads
 * each export and answers 200, as a collector next to the app would, so the figures hold the
 * apps' whole cost of tracing (spans made, batched, encoded and sent) and none of a backend's.
 */
export interface OtlpSink {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for the apps. */
  url: string;
  /** Exports received, and their bytes. */
  received(): { exports: number; bytes: number };
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  let exports = 0;
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => {
      exports += 1;
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  // Exporters keep their connection between batches: outlive their 5 s schedule.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => ({ exports, bytes }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
