import { Module } from '@nestjs/common';
import { ProbesController } from './probes.controller';

/** The merchant-facing HTTP API: turns requests into commands. */
@Module({ controllers: [ProbesController] })
export class GatewayHttpModule {}
