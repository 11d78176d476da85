import { Global, Module, type DynamicModule, type INestApplication, type Type } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '@paygate/config';
import type { Infrastructure } from '../infrastructure';
import type { Logger } from '@paygate/logging';
import { APP_URL, CONFIG, DRAIN, INFRASTRUCTURE, LOGGER, METRICS, RATE_LIMITER } from '../tokens';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { limitOutsideControllers, SourceRateLimitGuard } from '../rate-limit/rate-limit.guard';
import { AppUrl } from '../app-url';
import { envelope } from '../envelope';
import { Drain } from './drain';
import { answerProtocolRefusals, answerUnservedRequests, ServedRoutes } from './edge-answers';
import { EnvelopeExceptionFilter } from './envelope-exception.filter';
import { HealthController } from './health.controller';
import { guardInput } from './input-guard';
import { NestJsonLogger } from './nest-json-logger';
import { observeRequests } from './request-observability';

@Global()
@Module({})
class PlatformModule {
  static with({ config, infrastructure, log }: AppContext, drain: Drain): DynamicModule {
    return {
      module: PlatformModule,
      controllers: [HealthController],
      providers: [
        { provide: DRAIN, useValue: drain },
        { provide: CONFIG, useValue: config },
        { provide: INFRASTRUCTURE, useValue: infrastructure },
        { provide: LOGGER, useValue: log },
        { provide: APP_URL, useValue: new AppUrl() },
        { provide: RATE_LIMITER, useFactory: () => RateLimiter.open(config.rateLimits, infrastructure.sql) },
        { provide: APP_GUARD, useClass: SourceRateLimitGuard },
        { provide: METRICS, useValue: infrastructure.metrics },
      ],
      exports: [CONFIG, INFRASTRUCTURE, LOGGER, APP_URL, RATE_LIMITER, METRICS, DRAIN],
    };
  }
}

/** What the platform provides to every feature: the configuration, the infrastructure, the log. */
export interface AppContext {
  config: Config;
  infrastructure: Infrastructure;
  log: Logger;
}

/** A feature module that also configures the application it is part of. */
export interface FeatureWithAppSetup {
  configure(app: INestApplication): void;
}

/** One Nest application on Fastify holding the platform (health, metrics, envelope errors) and `features`. */
export async function createHttpApp(features: Type[], context: AppContext): Promise<INestApplication> {
  const { config, log } = context;
  const drain = new Drain();
  // One CommandBus/QueryBus per process: each service's handlers register on it.
  @Module({ imports: [PlatformModule.with(context, drain), CqrsModule.forRoot(), ...features] })
  class AppModule {}

  const { requestTimeoutMs, headersTimeoutMs, keepAliveTimeoutMs } = config.http;
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule,
    new FastifyAdapter({
      bodyLimit: config.input.maxBodyBytes,
      // request.ip: the peer, or the client named by X-Forwarded-For when the peer is a trusted proxy.
      trustProxy: config.platform.trustProxy,
      requestTimeout: requestTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      http: {
        requestTimeout: requestTimeoutMs,
        headersTimeout: headersTimeoutMs,
        // Node looks for late requests this often (30 s by default), so a deadline can only be
        // as precise as this.
        connectionsCheckingInterval: Math.min(1_000, headersTimeoutMs),
        // answerProtocolRefusals answers a missing Host, in the envelope.
        requireHostHeader: false,
      },
      clientErrorHandler: answerClientError,
      // A request that reaches a closing server is still served: the drain closes its
      // connection after the response, and the infrastructure is open until the last one.
      return503OnClosing: false,
      // Long path parameters reach the handlers, which answer them (404, 400) in the envelope.
      routerOptions: { maxParamLength: 1024 },
      // Errors of Fastify's router (a URL that is not valid UTF-8) get the envelope too.
      frameworkErrors: (error: { statusCode?: number }, _request: unknown, reply: FastifyReply) => {
        const status =
          typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500
            ? error.statusCode
            : 400;
        void reply.status(status).send(envelope(status, 'the request URL is not valid', {}));
      },
    }),
    {
      logger: new NestJsonLogger(log),
      abortOnError: false,
      // guardInput registers the body parsers, with the depth limit in front of JSON.
      bodyParser: false,
    },
  );
  const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
  // Records the routes' path patterns as Nest adds the routes (at init, after this).
  const routes = new ServedRoutes(fastify);
  guardInput(fastify, config.input);
  // Hooks of one stage run in the order added: the request id comes first, so every answer
  // carries it; path and query are checked, then a request no route serves takes its token
  // before its 404 or 405.
  observeRequests(fastify, context.infrastructure.metrics, log, config.platform.metricsToken);
  answerProtocolRefusals(fastify);
  limitOutsideControllers(app, (request) => !routes.serves(request));
  answerUnservedRequests(fastify, routes, config.input.maxBodyBytes);
  drain.attach(app.getHttpServer());
  app.useGlobalFilters(new EnvelopeExceptionFilter(log));
  // A feature that needs the application itself (e.g. to serve OpenAPI) has a static `configure`.
  for (const feature of features) (feature as Partial<FeatureWithAppSetup>).configure?.(app);
  return app;
}

/**
 * A request that fails before it reaches a route (it timed out, or is not valid HTTP) is
 * answered here, in the envelope, and its connection closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'the request did not arrive in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'the request headers are too large']
        : [400, 'the request is not valid HTTP'];
  // Node's own rule: once a response has started on the connection, nothing more can be said.
  const started = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent ?? false;
  if (socket.writable && !started) {
    const body = JSON.stringify(envelope(status, message, {}));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
