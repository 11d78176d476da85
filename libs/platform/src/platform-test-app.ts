import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Controller, Get, Module, type INestApplication, type Type } from '@nestjs/common';
import { loadConfig, type Config } from '@paygate/config';
import type { Logger } from '@paygate/logging';
import { createHttpApp } from './http/create-http-app';
import { listen } from './http/listen';
import { openInfrastructure, type Infrastructure } from './infrastructure';

/** Test support for the platform's own specs: an app on loopback, raw connections to it. */

/** Something a test opens when it chooses; whoever waits at it is held until then. */
export class Gate {
  private open!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.open = resolve));
  private arrived!: () => void;
  /** Resolves once someone waits at the gate. */
  readonly reached = new Promise<void>((resolve) => (this.arrived = resolve));

  pass(): Promise<void> {
    this.arrived();
    return this.opened;
  }

  release(): void {
    this.open();
  }
}

/** `GET /test/held`: answers once `gate` is released. */
export function heldRoute(gate: Gate): Type {
  @Controller('test')
  class HeldController {
    @Get('held')
    async held() {
      await gate.pass();
      return { released: true };
    }
  }
  @Module({ controllers: [HeldController] })
  class HeldRouteFeature {}
  return HeldRouteFeature;
}

export interface LogEntry {
  level: string;
  message: string;
  [field: string]: unknown;
}

/** A logger that keeps its entries for the test to read. */
export function recordingLogger(
  entries: LogEntry[] = [],
  bound: Record<string, unknown> = {},
): Logger & { entries: LogEntry[] } {
  const record = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void entries.push({ level, message, ...bound, ...fields });
  return {
    entries,
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    child: (fields) => recordingLogger(entries, { ...bound, ...fields }),
  };
}

export interface TestApp {
  url: string;
  port: number;
  app: INestApplication;
  infrastructure: Infrastructure;
  config: Config;
  log: Logger & { entries: LogEntry[] };
}

/**
 * The platform with `features`, on an embedded store and the in-process broker unless `env` says otherwise, listening
 * on loopback.
 */
export async function startTestApp(features: Type[], env: Record<string, string> = {}): Promise<TestApp> {
  const config = loadConfig({ STORE_URL: 'pglite://memory', BROKER_URL: 'inproc://', SHUTDOWN_DELAY_MS: '0', ...env });
  const log = recordingLogger();
  const infrastructure = await openInfrastructure(config.platform, 'platform-test', log);
  const app = await createHttpApp(features, { config, infrastructure, log });
  const url = await listen(app, 0, '127.0.0.1');
  return { url, port: Number(new URL(url).port), app, infrastructure, config, log };
}

/** A raw TCP connection to loopback `port`, recording what the server sends and whether it closed. */
export interface RawConnection {
  socket: Socket;
  received(): string;
  /** Resolves with everything received once the server has closed the connection. */
  closed: Promise<string>;
}

export async function rawConnection(port: number): Promise<RawConnection> {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  socket.on('error', () => undefined); // a reset is seen as 'close'; the test reads what arrived
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => received, closed };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Each complete HTTP response in `text`: status, headers (lower-case names) and body. */
export function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return responses;
}

/** The outcome of `GET path` on a connection of its own: the status, or the connection error's code. */
export function getOnNewConnection(url: string, path: string): Promise<number | string> {
  return new Promise((resolve) => {
    const request = httpRequest(`${url}${path}`, { agent: false }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
    });
    request.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    request.end();
  });
}
