/**
 * The project's reusable GitHub workflows (.github/workflows/*.yml) read as data, and a step's script
 * run by bash as a runner runs it, against a stand-in of the installed `goods-conformance` bin.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../contract/paths.js';

export interface WorkflowStep {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}

export interface WorkflowInput {
  required?: boolean;
  type: string;
  default?: unknown;
}

/** A reusable workflow (`on: workflow_call`). */
export interface ReusableWorkflow {
  on: { workflow_call: { inputs: Record<string, WorkflowInput>; secrets?: Record<string, { required?: boolean }> } };
  permissions: Record<string, string>;
  jobs: Record<string, { steps: WorkflowStep[] }>;
}

/** `.github/workflows/<file>` parsed, and the steps of all its jobs in order. */
export function readWorkflow(file: string): { workflow: ReusableWorkflow; steps: WorkflowStep[] } {
  const workflow = parse(readFileSync(join(PROJECT_ROOT, '.github', 'workflows', file), 'utf8')) as ReusableWorkflow;
  return { workflow, steps: Object.values(workflow.jobs).flatMap((job) => job.steps) };
}

export interface StepRun {
  status: number | null;
  stderr: string;
  /** What the stand-in bin printed: each argument it got, a line each. */
  args: string[];
  /** What the script wrote to `$GITHUB_STEP_SUMMARY` ('' when nothing). */
  summary: string;
}

/**
 * Runs `script` with `bash --noprofile --norc -eo pipefail` in a temporary folder (also `HARNESS_DIR`,
 * with `GITHUB_STEP_SUMMARY` a file in it), where `node_modules/.bin/goods-conformance` is a stand-in
 * that prints each argument on a line of its own and then runs `standInTail` (sh lines).
 */
export function runStepScript(script: string, env: Record<string, string>, standInTail = ''): StepRun {
  const dir = mkdtempSync(join(tmpdir(), 'workflow-step-'));
  try {
    const bin = join(dir, 'node_modules', '.bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'goods-conformance'), `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done\n${standInTail}`);
    chmodSync(join(bin, 'goods-conformance'), 0o755);
    const summary = join(dir, 'summary.md');
    const run = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', HARNESS_DIR: dir, GITHUB_STEP_SUMMARY: summary, ...env },
      encoding: 'utf8',
    });
    return {
      status: run.status,
      stderr: run.stderr,
      args: run.stdout.split('\n').filter((line) => line !== ''),
      summary: existsSync(summary) ? readFileSync(summary, 'utf8') : '',
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
