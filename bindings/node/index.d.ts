// Types of the cordon client (index.js).

export type Op = 'read' | 'write' | 'exec' | 'net' | 'tool';
export type Effect = 'allow' | 'ask' | 'deny';

export interface Context {
  workspace?: string;
  cwd?: string;
  home?: string;
  tmp?: string;
  agent_dir?: string;
  session_dir?: string;
  user?: string;
}

export interface Options {
  /** The cordon binary (default: $CORDON, else `cordon` on PATH). */
  bin?: string;
  /** A policy file (default: the installed or embedded policy). */
  policy?: string;
  preset?: string;
  context?: Context;
  /** How long a decision may take before the request rejects (10000). */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

export type Request =
  | { op: Op; target: string; preset?: string; context?: Context }
  | { op: 'exec'; argv: string[]; preset?: string; context?: Context };

export interface Operation {
  op: Op;
  target: string;
  detail?: string;
  decision: Effect;
  reason?: string;
  rule?: string;
}

export interface Decision {
  decision: Effect;
  reason: string;
  rule?: string;
  preset: string;
  sandbox: 'bwrap' | 'seatbelt' | 'none';
  operations: Operation[];
  id?: string | number;
}

export interface RunOptions extends Options {
  workspace?: string;
  /** Seconds before the command's process tree is killed. */
  timeout?: number;
  cwd?: string;
}

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
}

export type Approval =
  | { kind: 'write'; path: string; content: string }
  | { kind: 'edit'; path: string; old: string; new: string; all?: boolean }
  | { kind: 'tool'; name: string };

/** Every error means "deny": its decision is always 'deny'. */
export class CordonError extends Error {
  readonly decision: 'deny';
}
export class PolicyError extends CordonError {}
export class RequestError extends CordonError {
  readonly line?: number;
}
export class ProcessError extends CordonError {}
export class TimeoutError extends CordonError {}
export class DeniedError extends CordonError {
  readonly status?: number;
  readonly stdout?: string;
  readonly stderr?: string;
}
export class SandboxUnavailableError extends CordonError {}

export class Cordon {
  constructor(options?: Options);
  start(): void;
  decide(request: Request, options?: { timeoutMs?: number }): Promise<Decision>;
  run(command: string | string[], options?: RunOptions): Promise<RunResult>;
  approve(what: Approval, options?: Options): Promise<{ approval: string } | { granted: string }>;
  close(): void;
}
