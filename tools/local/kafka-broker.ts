import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@paygate/net-guard';

export interface BrokerSettings {
  port: number;
  controllerPort: number;
  dataDir: string;
}

/**
 * A single-node Kafka broker of a suite's or the soak's own (scripts/kafka.sh on ports and a data
 * dir of its own): a test can start apps before it exists, start it fresh beside them, stop and
 * restart it, without disturbing another broker on the machine. `start()` formats a fresh
 * data dir; `start({ keepData: true })` is a restart with topics, messages and offsets kept.
 */
export class KafkaBroker {
  readonly url: string;

  constructor(
    private readonly root: string,
    private readonly settings: BrokerSettings,
  ) {
    this.url = `kafka://127.0.0.1:${settings.port}`;
  }

  /** One on free ports, with a data dir named after them; nothing answers at `url` until `start`. */
  static async reserve(root: string, name: string): Promise<KafkaBroker> {
    const port = await freePort();
    return new KafkaBroker(root, {
      port,
      controllerPort: await freePort(),
      dataDir: `/tmp/paygate-kafka-${name}-${port}`,
    });
  }

  async start({ keepData = false } = {}): Promise<void> {
    // Explicit either way: a KAFKA_KEEP_DATA=1 in the soak's own environment must not keep a stale broker.
    await this.script('start', { KAFKA_KEEP_DATA: keepData ? '1' : '' });
  }

  async stop(): Promise<void> {
    await this.script('stop');
  }

  /** For exit handlers, where nothing asynchronous runs any more. */
  stopNow(): void {
    spawnSync('bash', [this.scriptPath, 'stop'], { env: this.env(), stdio: 'ignore', timeout: 40_000 });
  }

  private get scriptPath(): string {
    return join(this.root, 'scripts/kafka.sh');
  }

  private env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const { port, controllerPort, dataDir } = this.settings;
    return {
      ...process.env,
      KAFKA_PORT: String(port),
      KAFKA_CONTROLLER_PORT: String(controllerPort),
      KAFKA_DATA_DIR: dataDir,
      ...extra,
    };
  }

  /** Runs asynchronously: the apps keep running (and notice the outage) while the broker stops and starts. */
  private script(command: 'start' | 'stop', extra: Record<string, string> = {}): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn('bash', [this.scriptPath, command], {
        env: this.env(extra),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('error', reject);
      child.once('close', (status) =>
        status === 0 ? resolve() : reject(new Error(`scripts/kafka.sh ${command} failed (${status}):\n${output}`)),
      );
    });
  }
}
