/**
 * What /proc tells of processes the bench did not start (Linux; nothing elsewhere), for bench:e2e's
 * cost table: the CPU of PostgreSQL's processes and of the Kafka broker, and which PostgreSQL
 * backends serve the bench's own apps.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

const pids = (): number[] => {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
};

const argv = (pid: number): string[] => (read(`/proc/${pid}/cmdline`) ?? '').split('\0');

/**
 * utime + stime of `pid` in clock ticks, plus cutime + cstime (its children that exited and were
 * waited for) with `children`: a PostgreSQL backend that ends within a window is then still
 * counted, in the postmaster's figure. 0 when the process is gone.
 */
export function ticksOf(pid: number, children = false): number {
  const text = read(`/proc/${pid}/stat`);
  if (text === undefined) return 0;
  // The fields after the command name; [0] is proc(5)'s field 3 (state), so utime (14) is [11].
  const fields = text.slice(text.lastIndexOf(') ') + 2).split(' ');
  const own = Number(fields[11]) + Number(fields[12]);
  return children ? own + Number(fields[13]) + Number(fields[14]) : own;
}

/** The postmaster (argv[0] `…/postgres`) and every backend and worker (whose title is `postgres: …`). */
const POSTGRES = /^(\S*\/)?postgres(:|$)/;

/** Every PostgreSQL process of the machine: pid → its title (argv[0]). */
export function postgresProcesses(): Map<number, string> {
  const found = new Map<number, string>();
  for (const pid of pids()) {
    const title = argv(pid)[0].trim();
    if (POSTGRES.test(title)) found.set(pid, title);
  }
  return found;
}

/** The process listening on TCP `port` among `candidates`, or the only candidate when that cannot be told. */
function listenerOf(port: number, candidates: number[]): number | undefined {
  const listening = new Set(
    sockets()
      .filter((socket) => socket.listening && socket.local === port)
      .map((socket) => socket.inode),
  );
  const owner = candidates.find((pid) => [...socketInodes(pid)].some((inode) => listening.has(inode)));
  return owner ?? (candidates.length === 1 ? candidates[0] : undefined);
}

/** The Kafka broker (java running kafka.Kafka) listening on `port`. */
export function kafkaBroker(port: number): number | undefined {
  const brokers = pids().filter((pid) => {
    const args = argv(pid);
    return /(^|\/)java$/.test(args[0]) && args.includes('kafka.Kafka');
  });
  return listenerOf(port, brokers);
}

/** The backends among `postgres` whose client end is a TCP socket of one of `clientPids` (to PostgreSQL's `port`). */
export function backendsOf(clientPids: number[], postgres: Map<number, string>, port: number): number[] {
  const inodes = new Set(clientPids.flatMap((pid) => [...socketInodes(pid)]));
  const clientPorts = new Set(
    sockets()
      .filter((socket) => socket.remote === port && inodes.has(socket.inode))
      .map((socket) => socket.local),
  );
  // A backend's title names its client: `postgres: 15/main: root test 127.0.0.1(54321) idle`.
  return [...postgres].filter(([, title]) => clientPorts.has(Number(/\((\d+)\)/.exec(title)?.[1]))).map(([pid]) => pid);
}

interface Socket {
  local: number;
  remote: number;
  listening: boolean;
  inode: string;
}

/** The machine's TCP sockets (IPv4 and IPv6), from /proc/net. */
function sockets(): Socket[] {
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((path) =>
    (read(path) ?? '')
      .split('\n')
      .slice(1)
      .flatMap((line) => {
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
        const fields = line.trim().split(/\s+/);
        if (fields.length < 10) return [];
        const port = (address: string) => parseInt(address.split(':').pop() ?? '', 16);
        return [{ local: port(fields[1]), remote: port(fields[2]), listening: fields[3] === '0A', inode: fields[9] }];
      }),
  );
}

/** The inodes of the sockets `pid` holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode) inodes.add(inode);
      } catch {
        // Closed meanwhile.
      }
    }
  } catch {
    // Gone, or not ours to read.
  }
  return inodes;
}
