import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './processes';

const script = join(__dirname, '..', '..', 'scripts', 'kafka.sh');

/**
 * A Kafka broker of the suite's own (scripts/kafka.sh on free ports and a data directory of its
 * own), so a test can start apps before it exists, start it fresh beside them, stop and restart
 * it, without disturbing the broker the other suites share.
 */
export class PrivateKafka {
  private constructor(
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  static async reserve(name: string): Promise<PrivateKafka> {
    const port = await freePort();
    const env = {
      KAFKA_PORT: String(port),
      KAFKA_CONTROLLER_PORT: String(await freePort()),
      KAFKA_DATA_DIR: `/tmp/paygate-kafka-${name}-${port}`,
    };
    return new PrivateKafka(port, env);
  }

  /** BROKER_URL of this broker; nothing answers there until `start`. */
  get url(): string {
    return `kafka://127.0.0.1:${this.port}`;
  }

  /** Starts it; fresh (no topics, no offsets) unless `keepData`. Resolves once it answers. */
  start({ keepData = false } = {}): Promise<void> {
    return this.run('start', keepData ? { KAFKA_KEEP_DATA: '1' } : {});
  }

  stop(): Promise<void> {
    return this.run('stop', {});
  }

  private run(command: 'start' | 'stop', extra: Record<string, string>): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn('bash', [script, command], { env: { ...process.env, ...this.env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`scripts/kafka.sh ${command} exited ${code}:\n${output}`))));
    });
  }
}
