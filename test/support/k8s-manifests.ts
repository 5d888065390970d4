// The Kubernetes manifests of docs/kubernetes.md as users apply them, read with the `yaml` package
// as kubectl reads them (YAML 1.1: `0440` is octal), and a pod of one of them played on this machine: its container's shell script run by /bin/sh,
// its environment from the manifest, every volume's mount path mapped to a folder of the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { expect } from 'vitest';
import { recipe } from './doc-recipes.js';

export const DOC = 'docs/kubernetes.md';

export interface Container {
  name: string;
  command: string[];
  args: string[];
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface PodTemplate {
  restartPolicy: string;
  containers: Container[];
  volumes: { name: string; secret?: { secretName: string; defaultMode?: number }; persistentVolumeClaim?: { claimName: string } }[];
}

export interface JobSpec {
  completionMode?: string;
  completions?: number;
  parallelism?: number;
  backoffLimit?: number;
  backoffLimitPerIndex?: number;
  podFailurePolicy?: { rules: { action: string; onExitCodes?: { containerName?: string; operator: string; values: number[] }; onPodConditions?: { type: string }[] }[] };
  template: { spec: PodTemplate };
}

export interface CronJob {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: { schedule: string; concurrencyPolicy?: string; jobTemplate: { spec: JobSpec } };
}

/**
 * The one YAML document of the block after `<!-- recipe:NAME -->` in the doc, read as kubectl
 * reads it: YAML 1.1, where `defaultMode: 0440` is the octal 0o440 (YAML 1.2 would read 440).
 */
export function manifest<T>(name: string): T {
  return parse(recipe(DOC, name), { version: '1.1' }) as T;
}

/** The pod's one container and its script: `command` is a shell given the script as its one argument. */
export function containerOf(job: JobSpec): Container & { script: string } {
  const containers = job.template.spec.containers;
  expect(containers).toHaveLength(1);
  const c = containers[0]!;
  expect(c.command, 'the container runs a shell script').toEqual(['/bin/sh', '-c']);
  expect(c.args).toHaveLength(1);
  return { ...c, script: c.args[0]! };
}

/** Every `convoduck …` command line of a script, as written (without a trailing `|| …`). */
export function commandLines(script: string): string[] {
  return script
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('convoduck '))
    .map((l) => l.replace(/\s*\|\|.*$/, ''));
}

/** The text with each mount path (longest first) replaced by the folder it is mapped to. */
export function mapPaths(text: string, folders: Record<string, string>): string {
  const paths = Object.keys(folders).sort((a, b) => b.length - a.length);
  const placeholder = (i: number): string => `\u0000${i}\u0000`;
  paths.forEach((p, i) => (text = text.replaceAll(p, placeholder(i))));
  paths.forEach((p, i) => (text = text.replaceAll(placeholder(i), folders[p]!)));
  return text;
}

/** The container's environment as the manifest sets it: literal values only (a key never is one). */
export function manifestEnv(c: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) {
    expect(e.value, `env ${e.name} is a literal value`).toBeTypeOf('string');
    env[e.name] = e.value!;
  }
  return env;
}

export interface PodRun {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** Starts a pod's script with /bin/sh in a process group of its own (so the whole pod can be killed). */
export function startPod(script: string, env: Record<string, string>, cwd: string): PodRun {
  const child = spawn('/bin/sh', ['-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** The processes of the pod's group (Linux /proc), by pid. */
function podProcesses(pod: PodRun): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid pgrp …: comm may hold spaces, so read after its closing parenthesis
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgrp === pod.child.pid) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * SIGKILL to every process of the pod, as a node that dies or an OOM kill does; resolves once
 * every one of them is gone (reaped, not a zombie), as Kubernetes replaces a pod only once it has
 * terminated.
 */
export async function killPod(pod: PodRun): Promise<void> {
  const pids = podProcesses(pod);
  process.kill(-pod.child.pid!, 'SIGKILL');
  await pod.done;
  const until = Date.now() + 60_000;
  while (pids.some((pid) => existsSync(`/proc/${pid}`))) {
    if (Date.now() > until) throw new Error(`the pod's processes ${pids.join(', ')} were not reaped within 60 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
