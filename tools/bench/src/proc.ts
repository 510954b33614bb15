import { readdirSync, readFileSync } from 'node:fs';

/** Memory and CPU of a process and its descendants, read from /proc (Linux). */
export interface ProcSample {
  /** Resident set size now, bytes (sum over the tree). */
  rss: number;
  /** Peak resident set size, bytes (sum over the tree of each process's VmHWM). */
  hwm: number;
  /** utime + stime, seconds (sum over the tree; children that already exited are not counted). */
  cpu: number;
  /**
   * Time on a CPU, seconds, at nanosecond resolution: the scheduler's own count per thread
   * (`/proc/<pid>/task/<tid>/schedstat`) summed over the tree's live threads. utime + stime moves in
   * clock ticks of 10 ms, i.e. 0.1 s per 5 min from a 30 s window; this resolves an idle window.
   * A thread that ended between two samples takes its time with it: compare with `cpu`.
   */
  cpuPrecise: number;
}

/** Sum of the first field (ns on a CPU) of every thread's schedstat. */
function threadsCpuSeconds(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ns / 1e9;
}

/** Clock ticks per second of /proc/<pid>/stat; 100 on every Linux this runs on (USER_HZ). */
const CLOCK_TICKS = 100;

function statusKb(status: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return m?.[1] ? Number(m[1]) * 1024 : 0;
}

/** utime + stime in seconds: fields 14 and 15 of /proc/<pid>/stat (after the parenthesised name). */
export function cpuSeconds(stat: string): number {
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): utime is field 14, stime field 15.
  return (Number(rest[11]) + Number(rest[12])) / CLOCK_TICKS;
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    } catch {
      // the task ended meanwhile
    }
  }
  return out;
}

/** The process and every descendant still running. */
export function processTree(pid: number): number[] {
  const all: number[] = [];
  const todo = [pid];
  while (todo.length) {
    const p = todo.pop() as number;
    all.push(p);
    todo.push(...childrenOf(p));
  }
  return all;
}

/** Samples the tree under `pid`; a process gone meanwhile counts zero. */
export function sample(pid: number): ProcSample {
  const s: ProcSample = { rss: 0, hwm: 0, cpu: 0, cpuPrecise: 0 };
  for (const p of processTree(pid)) {
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8');
      s.rss += statusKb(status, 'VmRSS');
      s.hwm += statusKb(status, 'VmHWM');
      s.cpu += cpuSeconds(readFileSync(`/proc/${p}/stat`, 'utf8'));
      s.cpuPrecise += threadsCpuSeconds(p);
    } catch {
      // exited between listing and reading
    }
  }
  return s;
}

/** The machine's load average (1, 5, 15 min) and core count, for the report. */
export function machineLoad(): string {
  try {
    const [one, five, fifteen] = readFileSync('/proc/loadavg', 'utf8').split(' ');
    return `load average ${one} ${five} ${fifteen}`;
  } catch {
    return 'load average unknown';
  }
}

/** The 1-minute load average (NaN where unknown): printed next to every scenario's figures. */
export function loadOne(): number {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return Number.NaN;
  }
}
