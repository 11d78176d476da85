import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { parseKafkaUrl } from '@paygate/messaging';

const REPO_ROOT = join(__dirname, '..', '..', '..');

export interface KafkaScriptResult {
  status: number | null;
  output: string;
}

/**
 * Runs scripts/kafka.sh start|stop for a broker of a suite's own (`env`: its ports, data dir,
 * security), asynchronously: the clients under test keep running while the broker changes.
 */
export function runKafkaScript(command: 'start' | 'stop', env: Record<string, string>): Promise<KafkaScriptResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', [join(REPO_ROOT, 'scripts', 'kafka.sh'), command], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => resolve({ status: null, output: `${output}${String(error)}` }));
    child.on('close', (status) => resolve({ status, output }));
  });
}

/**
 * A bare kafkajs producer on `brokerUrl`, as anyone who can reach the broker could run one: what
 * the forged-message specs write with. Connect it before sending; disconnect it after.
 */
export function bareKafkaProducer(brokerUrl: string): Producer {
  return new Kafka({ clientId: 'forger', brokers: parseKafkaUrl(brokerUrl), logLevel: logLevel.NOTHING }).producer();
}
