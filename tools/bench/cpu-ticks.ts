import { readFileSync } from 'node:fs';

/** utime + stime of a process in clock ticks (Linux; 0 elsewhere). */
export function cpuTicks(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** Busy and total ticks of the whole machine, to show what ran outside our processes (PostgreSQL, Kafka). */
export function machineTicks(): { busy: number; total: number } {
  try {
    const values = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = values.reduce((a, b) => a + b, 0);
    return { busy: total - values[3] - values[4], total };
  } catch {
    return { busy: 0, total: 0 };
  }
}
