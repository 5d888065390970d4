// Reads a systemd service unit and runs its commands the way systemd runs a Type=oneshot service,
// for machines without a running systemd: the environment built from Environment=, EnvironmentFile=,
// LoadCredential= and StateDirectory= alone, WorkingDirectory=, the Exec lines in order (a leading
// "-" ignores a failure, otherwise a failure ends the start and ExecStopPost= still runs;
// SuccessExitStatus= codes count as success for ExecStart=; ExecStartPost= runs only after every
// ExecStart= succeeded), and on
// stop SIGTERM followed by SIGKILL after TimeoutStopSec=. Directives it cannot honour are refused.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/** Every section's settings in file order; a key may repeat (ExecStart=, Environment=, …). */
export type Unit = Map<string, [key: string, value: string][]>;

export function parseUnit(text: string): Unit {
  const unit: Unit = new Map();
  let section: [string, string][] | undefined;
  // A backslash at the end of a line continues the setting on the next line.
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      section = [];
      unit.set(header[1]!, section);
      return;
    }
    const eq = line.indexOf('=');
    if (!section || eq < 1) throw new Error(`unit line ${i + 1} is not "Key=value" inside a section: ${line}`);
    section.push([line.slice(0, eq).trim(), line.slice(eq + 1).trim()]);
  });
  return unit;
}

export function values(unit: Unit, section: string, key: string): string[] {
  return (unit.get(section) ?? []).filter(([k]) => k === key).map(([, v]) => v);
}

/** Words of a command line or an Environment= value: whitespace-separated, with "…" / '…' quoting and C escapes. */
export function splitWords(text: string): { word: string; quoted: boolean }[] {
  const words: { word: string; quoted: boolean }[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) break;
    let word = '';
    let quoted = false;
    while (i < text.length && !/\s/.test(text[i]!)) {
      const c = text[i]!;
      if (c === '"' || c === "'") {
        quoted = true;
        const end = text.indexOf(c, i + 1);
        if (end < 0) throw new Error(`unbalanced quote in: ${text}`);
        word += unescape(text.slice(i + 1, end));
        i = end + 1;
      } else if (c === '\\') {
        word += unescape(text.slice(i, i + 2));
        i += 2;
      } else {
        word += c;
        i++;
      }
    }
    words.push({ word, quoted });
  }
  return words;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', '\\': '\\', '"': '"', "'": "'", ' ': ' ' };
function unescape(text: string): string {
  return text.replace(/\\(.)/g, (_, c: string) => {
    if (!(c in ESCAPES)) throw new Error(`escape \\${c} is not handled here`);
    return ESCAPES[c]!;
  });
}

/** Resolves %-specifiers; only the ones a recipe may need are known, any other is refused. */
function specifiers(text: string, known: Record<string, string>): string {
  return text.replace(/%(.)/g, (_, c: string) => {
    if (c === '%') return '%';
    if (!(c in known)) throw new Error(`specifier %${c} is not handled here`);
    return known[c]!;
  });
}

export interface ExecLine {
  /** "-" prefix: a failure is logged and then ignored */
  ignoreFailure: boolean;
  argv: string[];
}

/**
 * One Exec*= value with ${VAR} expanded inside words and a word that is exactly $VAR split on
 * whitespace, as systemd does; "$$" is a literal "$".
 */
export function parseExec(value: string, env: Record<string, string>, known: Record<string, string>): ExecLine {
  let text = specifiers(value, known);
  let ignoreFailure = false;
  while (/^[-@:+!]/.test(text)) {
    if (text[0] !== '-') throw new Error(`Exec prefix "${text[0]}" is not handled here: ${value}`);
    ignoreFailure = true;
    text = text.slice(1);
  }
  const argv: string[] = [];
  for (const { word, quoted } of splitWords(text)) {
    const whole = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(word);
    if (whole && !quoted) {
      argv.push(...(env[whole[1]!] ?? '').split(/\s+/).filter(Boolean));
      continue;
    }
    argv.push(word.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (m, name?: string) => (name ? (env[name] ?? '') : '$')));
  }
  if (!argv[0] || !isAbsolute(argv[0])) throw new Error(`Exec command must be an absolute path here: ${value}`);
  return { ignoreFailure, argv };
}

/** Simple "1min 30s" / "15" / "500ms" time spans, in milliseconds. */
export function timeSpanMs(value: string): number {
  const units: Record<string, number> = { ms: 1, s: 1000, sec: 1000, min: 60_000, m: 60_000, h: 3_600_000 };
  let total = 0;
  for (const part of value.trim().split(/\s+/)) {
    const m = /^(\d+(?:\.\d+)?)([a-z]*)$/.exec(part);
    if (!m || !((m[2] || 's') in units)) throw new Error(`time span "${value}" is not handled here`);
    total += Number(m[1]) * units[m[2] || 's']!;
  }
  return total;
}

// [Service] directives this runner carries out; the rest of the list only matter to a real systemd
// (user switching, ordering), and anything else is refused so that a recipe cannot silently outgrow it.
const HONOURED = new Set(['Type', 'WorkingDirectory', 'Environment', 'EnvironmentFile', 'LoadCredential', 'StateDirectory', 'ExecStart', 'ExecStartPost', 'ExecStopPost', 'SuccessExitStatus', 'TimeoutStopSec']);
const NOT_EMULATED = new Set(['User', 'Group']);

export interface ServiceRunOptions {
  /** stands for /var/lib: StateDirectory=NAME is created as stateRoot/NAME */
  stateRoot: string;
  /** where LoadCredential= files are copied ($CREDENTIALS_DIRECTORY) */
  credentialsDir: string;
  /** HOME of the service's user */
  home: string;
}

export interface StepResult {
  directive: 'ExecStart' | 'ExecStartPost' | 'ExecStopPost';
  line: ExecLine;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface ServiceRun {
  /** resolves when the start and every ExecStopPost= are done */
  done: Promise<{ result: 'success' | 'exit-code' | 'signal'; steps: StepResult[] }>;
  /** `systemctl stop`: SIGTERM to the running command, SIGKILL after TimeoutStopSec=, no further ExecStart= */
  stop(): void;
  /** the command running now, if any */
  current(): ChildProcess | undefined;
}

/** The environment systemd would give the service's processes (manager defaults, then the unit's). */
export function serviceEnvironment(unit: Unit, options: ServiceRunOptions): Record<string, string> {
  const known = { S: options.stateRoot, d: options.credentialsDir, h: options.home };
  const env: Record<string, string> = {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: options.home,
    SHELL: '/bin/sh',
  };
  for (const value of values(unit, 'Service', 'Environment')) {
    for (const { word } of splitWords(specifiers(value, known))) {
      const eq = word.indexOf('=');
      if (eq < 1) throw new Error(`Environment= entry without "=": ${word}`);
      env[word.slice(0, eq)] = word.slice(eq + 1);
    }
  }
  // Later than Environment=: a variable set in both takes the file's value.
  for (let file of values(unit, 'Service', 'EnvironmentFile')) {
    const optional = file.startsWith('-');
    file = specifiers(optional ? file.slice(1) : file, known);
    if (!existsSync(file)) {
      if (optional) continue;
      throw new Error(`EnvironmentFile ${file} does not exist (systemd would refuse to start)`);
    }
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
      if (!m || /^\s*[#;]/.test(line)) continue;
      const raw = m[2]!.trim();
      env[m[1]!] = /^(["']).*\1$/.test(raw) ? raw.slice(1, -1) : raw;
    }
  }
  const states = values(unit, 'Service', 'StateDirectory').flatMap((v) => v.split(/\s+/));
  if (states.length) env.STATE_DIRECTORY = states.map((s) => join(options.stateRoot, s)).join(':');
  if (values(unit, 'Service', 'LoadCredential').length) env.CREDENTIALS_DIRECTORY = options.credentialsDir;
  return env;
}

export function runService(unit: Unit, options: ServiceRunOptions): ServiceRun {
  for (const [key] of unit.get('Service') ?? []) {
    if (!HONOURED.has(key) && !NOT_EMULATED.has(key)) throw new Error(`[Service] ${key}= is not handled by this runner`);
  }
  const type = values(unit, 'Service', 'Type').at(-1);
  if (type !== 'oneshot') throw new Error(`only Type=oneshot is handled here, not ${type}`);
  const known = { S: options.stateRoot, d: options.credentialsDir, h: options.home };

  for (const dir of values(unit, 'Service', 'StateDirectory').flatMap((v) => v.split(/\s+/))) {
    mkdirSync(join(options.stateRoot, dir), { recursive: true, mode: 0o755 });
  }
  mkdirSync(options.credentialsDir, { recursive: true, mode: 0o700 });
  for (const value of values(unit, 'Service', 'LoadCredential')) {
    const [id, source] = specifiers(value, known).split(/:(.*)/s);
    if (!id || !source || !isAbsolute(source)) throw new Error(`LoadCredential=${value}: expected ID:/absolute/path`);
    copyFileSync(source, join(options.credentialsDir, id));
    chmodSync(join(options.credentialsDir, id), 0o400);
  }
  const env = serviceEnvironment(unit, options);

  let cwd = values(unit, 'Service', 'WorkingDirectory').at(-1) ?? options.home;
  const cwdOptional = cwd.startsWith('-');
  cwd = specifiers(cwdOptional ? cwd.slice(1) : cwd, known).replace(/^~$/, options.home);
  if (!existsSync(cwd)) {
    if (!cwdOptional) throw new Error(`WorkingDirectory ${cwd} does not exist (systemd would fail with 200/CHDIR)`);
    cwd = options.home;
  }

  const timeoutStopMs = timeSpanMs(values(unit, 'Service', 'TimeoutStopSec').at(-1) ?? '90s');
  let stopping = false;
  let running: ChildProcess | undefined;
  let killTimer: NodeJS.Timeout | undefined;

  const exec = (directive: StepResult['directive'], line: ExecLine): Promise<StepResult> =>
    new Promise((resolve, reject) => {
      const child = spawn(line.argv[0]!, line.argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      running = child;
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code, signal) => {
        running = undefined;
        clearTimeout(killTimer);
        resolve({ directive, line, code, signal, stdout, stderr });
      });
    });

  // SuccessExitStatus= (exit codes only: a signal name is refused here) applies to the main
  // processes, which for Type=oneshot are the ExecStart= commands
  const successCodes = new Set(
    values(unit, 'Service', 'SuccessExitStatus').flatMap((v) =>
      v.split(/\s+/).filter(Boolean).map((c) => {
        if (!/^\d+$/.test(c)) throw new Error(`SuccessExitStatus=${c}: only exit codes are handled here`);
        return Number(c);
      }),
    ),
  );
  const failed = (s: StepResult): boolean => s.code !== 0 && !(s.directive === 'ExecStart' && s.code !== null && successCodes.has(s.code));

  const done = (async () => {
    const steps: StepResult[] = [];
    let result: 'success' | 'exit-code' | 'signal' = 'success';
    for (const directive of ['ExecStart', 'ExecStartPost'] as const) {
      for (const value of values(unit, 'Service', directive)) {
        if (stopping || result !== 'success') break;
        const step = await exec(directive, parseExec(value, env, known));
        steps.push(step);
        if (failed(step) && !step.line.ignoreFailure) result = step.signal ? 'signal' : 'exit-code';
      }
    }
    for (const value of values(unit, 'Service', 'ExecStopPost')) {
      steps.push(await exec('ExecStopPost', parseExec(value, { ...env, SERVICE_RESULT: result }, known)));
    }
    return { result, steps };
  })();

  return {
    done,
    stop() {
      stopping = true;
      const child = running;
      if (!child) return;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), timeoutStopMs);
    },
    current: () => running,
  };
}
