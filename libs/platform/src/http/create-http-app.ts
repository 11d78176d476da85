import { Global, Module, type DynamicModule, type INestApplication, type Type } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '@paygate/config';
import type { Infrastructure } from '../infrastructure';
import type { Logger } from '@paygate/logging';
import { APP_URL, CONFIG, INFRASTRUCTURE, LOGGER, METRICS, RATE_LIMITER } from '../tokens';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { SourceRateLimitGuard } from '../rate-limit/rate-limit.guard';
import { AppUrl } from '../app-url';
import { envelope } from '../envelope';
import { EnvelopeExceptionFilter } from './envelope-exception.filter';
import { HealthController } from './health.controller';
import { guardInput } from './input-guard';
import { NestJsonLogger } from './nest-json-logger';
import { observeRequests } from './request-observability';

@Global()
@Module({})
class PlatformModule {
  static with({ config, infrastructure, log }: AppContext): DynamicModule {
    return {
      module: PlatformModule,
      controllers: [HealthController],
      providers: [
        { provide: CONFIG, useValue: config },
        { provide: INFRASTRUCTURE, useValue: infrastructure },
        { provide: LOGGER, useValue: log },
        { provide: APP_URL, useValue: new AppUrl() },
        { provide: RATE_LIMITER, useFactory: () => RateLimiter.open(config.rateLimits, infrastructure.sql) },
        { provide: APP_GUARD, useClass: SourceRateLimitGuard },
        { provide: METRICS, useValue: infrastructure.metrics },
      ],
      exports: [CONFIG, INFRASTRUCTURE, LOGGER, APP_URL, RATE_LIMITER, METRICS],
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
  // One CommandBus/QueryBus per process: each service's handlers register on it.
  @Module({ imports: [PlatformModule.with(context), CqrsModule.forRoot(), ...features] })
  class AppModule {}

  const app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter({
      bodyLimit: config.input.maxBodyBytes,
      // request.ip: the peer, or the client named by X-Forwarded-For when the peer is a trusted proxy.
      trustProxy: config.platform.trustProxy,
      // Long path parameters reach the handlers, which answer them (404, 400) in the envelope.
      routerOptions: { maxParamLength: 1024 },
      // Errors of Fastify's router (a URL that is not valid UTF-8) get the envelope too.
      frameworkErrors: (error: { statusCode?: number }, _request: unknown, reply: FastifyReply) => {
        const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
        void reply.status(status).send(envelope(status, 'the request URL is not valid', {}));
      },
    }), {
    logger: new NestJsonLogger(log),
    abortOnError: false,
    // guardInput registers the body parsers, with the depth limit in front of JSON.
    bodyParser: false,
  });
  guardInput(app.getHttpAdapter().getInstance(), config.input);
  observeRequests(app.getHttpAdapter().getInstance() as FastifyInstance, context.infrastructure.metrics, log);
  app.useGlobalFilters(new EnvelopeExceptionFilter(log));
  // A feature that needs the application itself (e.g. to serve OpenAPI) has a static `configure`.
  for (const feature of features) (feature as Partial<FeatureWithAppSetup>).configure?.(app);
  return app;
}
