import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { localCommandTlsEnv } from '../local/command-tls';

/** Something that happened to an app process, for the report. */
export interface ProcessEvent {
  /** Date.now() when it happened. */
  at: number;
  app: string;
  kind: 'killed' | 'ready' | 'died at start' | 'not ready in time' | 'exited unexpectedly';
  detail?: string;
}

export interface AppSpec {
  /** Unique name of this instance, e.g. collections#2. */
  name: string;
  /** dist/apps/<app>/main.js */
  app: string;
  port: number;
  env: Record<string, string>;
}

/** Starts the lines the supervisor adds to an app's output (start, exit). */
const MARKER = '-----';

/** The last `capacity` lines of a process's output, across its restarts. */
class RingBuffer {
  private readonly lines: string[] = [];
  private partial = '';

  constructor(private readonly capacity: number) {}

  write(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.push(line);
  }

  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.capacity) this.lines.shift();
  }

  text(): string {
    return [...this.lines, this.partial].filter(Boolean).join('\n');
  }

  /**
   * Why a process exited, as well as its output tells: the last `name: message` line (an app's
   * one-line start-up failure, or the error of a crash's stack trace), else its last line.
   */
  reason(): string {
    const all = [...this.lines, this.partial];
    const since = all.slice(
      all.map((line) => line.startsWith(`${MARKER} `) && line.includes(' start ')).lastIndexOf(true) + 1,
    );
    const lines = since.filter((line) => line && !line.startsWith(MARKER)).reverse();
    return lines.find((line) => /^[\w-]+: \S/.test(line)) ?? lines[0] ?? '';
  }
}

type State = 'stopped' | 'starting' | 'running';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One app instance on a fixed port: started until it answers /health/ready (an attempt that
 * exits or is not ready in time is recorded and retried with back-off), restarted whenever it
 * exits without being told to, and killed on request.
 */
export class ManagedApp {
  readonly output = new RingBuffer(400);
  readonly url: string;
  private child?: ChildProcess;
  private state: State = 'stopped';
  private starting?: Promise<void>;
  /** Set while the supervisor itself ends the process: its exit is then expected. */
  private ending = false;

  constructor(
    readonly spec: AppSpec,
    private readonly root: string,
    private readonly record: (event: Omit<ProcessEvent, 'at' | 'app'>) => void,
    private readonly options: { readyTimeoutMs: number; startDeadlineMs: number },
  ) {
    this.url = `http://127.0.0.1:${spec.port}`;
  }

  get name(): string {
    return this.spec.name;
  }

  get running(): boolean {
    return this.state === 'running';
  }

  /** Resolves once ready; throws when no attempt got ready within startDeadlineMs. */
  start(): Promise<void> {
    if (this.state === 'running') return Promise.resolve();
    this.starting ??= this.startUntilReady().finally(() => (this.starting = undefined));
    return this.starting;
  }

  /** kill -9, then start again; resolves when it is ready. */
  async killAndRestart(): Promise<void> {
    this.state = 'stopped';
    await this.end('SIGKILL');
    this.record({ kind: 'killed' });
    await this.start();
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    await this.end('SIGTERM', 10_000);
  }

  private async startUntilReady(): Promise<void> {
    this.state = 'starting';
    const deadline = Date.now() + this.options.startDeadlineMs;
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await this.attempt();
      if (outcome === 'ready') {
        this.state = 'running';
        this.record({ kind: 'ready', detail: attempt > 1 ? `after ${attempt} attempts` : undefined });
        return;
      }
      if ((this.state as State) === 'stopped') return; // stop() while starting
      this.record(outcome);
      if (Date.now() > deadline) {
        this.state = 'stopped';
        throw new Error(
          `${this.name} did not start within ${this.options.startDeadlineMs / 1000} s: ${outcome.detail}`,
        );
      }
      await sleep(Math.min(5_000, 500 * attempt));
    }
  }

  private async attempt(): Promise<'ready' | Omit<ProcessEvent, 'at' | 'app'>> {
    this.output.push(`${MARKER} ${new Date().toISOString()} start ${MARKER}`);
    const child = spawn(process.execPath, [join(this.root, 'dist/apps', this.spec.app, 'main.js')], {
      cwd: this.root,
      env: { ...process.env, ...localCommandTlsEnv(this.spec.app), ...this.spec.env, PORT: String(this.spec.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => this.output.write(chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => this.output.write(chunk));
    child.once('exit', (code, signal) => this.exited(child, code, signal));
    const deadline = Date.now() + this.options.readyTimeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null)
        return { kind: 'died at start', detail: this.exitDetail(child.exitCode, child.signalCode) };
      const ready = await fetch(`${this.url}/health/ready`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (ready && child.exitCode === null) return 'ready';
      await sleep(200);
    }
    await this.end('SIGKILL');
    return { kind: 'not ready in time', detail: `${this.options.readyTimeoutMs / 1000} s: ${this.output.reason()}` };
  }

  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    this.output.push(`${MARKER} ${new Date().toISOString()} exit ${code ?? signal} ${MARKER}`);
    if (child !== this.child || this.ending || this.state !== 'running') return;
    // Nobody asked it to stop: a crash. Recorded, and started again like after a kill.
    this.state = 'starting';
    this.record({ kind: 'exited unexpectedly', detail: this.exitDetail(code, signal) });
    this.start().catch((error: Error) => this.record({ kind: 'died at start', detail: error.message }));
  }

  /**
   * An exit the supervisor did not cause: a signal or a clean exit came from elsewhere; otherwise what the app said.
   */
  private exitDetail(code: number | null, signal: NodeJS.Signals | null): string {
    if (signal) return `killed by ${signal}, which the soak did not send`;
    if (code === 0) return 'exit 0: a clean shutdown, after a SIGTERM or SIGINT the soak did not send';
    return `exit ${code}: ${this.output.reason()}`;
  }

  /** Ends the current process (if any) and waits for its exit; SIGKILL after `graceMs`. */
  private async end(signal: NodeJS.Signals, graceMs = 0): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.ending = true;
    try {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill(signal);
      if (graceMs > 0 && !(await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)])))
        child.kill('SIGKILL');
      await exited;
    } finally {
      this.ending = false;
    }
  }

  /** For exit handlers: no waiting. */
  killNow(): void {
    this.state = 'stopped';
    this.child?.kill('SIGKILL');
  }
}

/** The apps of one run, and everything that happened to their processes. */
export class Supervisor {
  readonly apps: ManagedApp[] = [];
  readonly events: ProcessEvent[] = [];

  constructor(
    private readonly root: string,
    private readonly options = { readyTimeoutMs: 60_000, startDeadlineMs: 180_000 },
  ) {}

  add(spec: AppSpec): ManagedApp {
    const app = new ManagedApp(
      spec,
      this.root,
      (event) => this.events.push({ at: Date.now(), app: spec.name, ...event }),
      this.options,
    );
    this.apps.push(app);
    return app;
  }

  /** Waits until every app is ready (each one that is starting or restarting). */
  async allReady(): Promise<void> {
    await Promise.all(this.apps.map((app) => app.start()));
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.apps.map((app) => app.stop()));
  }

  killAllNow(): void {
    for (const app of this.apps) app.killNow();
  }

  /** Each app's recent output, for a failed run. */
  outputs(): string {
    return this.apps.map((app) => `===== ${app.name} (${app.url}) =====\n${app.output.text()}`).join('\n');
  }
}
