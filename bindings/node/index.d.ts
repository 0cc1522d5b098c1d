// Types of the cordon client (index.js).
//
// The types from Op to StreamError are docs/decision.schema.json's
// definitions, member for member and type for type: test/types.test.js
// fails when they differ.  Change the schema first.

// ---- the decision JSON (docs/decision.schema.json) ---------------------------

/** What a request or an operation does. */
export type Op = 'read' | 'write' | 'exec' | 'net' | 'tool';
/** allow: it may run; ask: a person must approve it first; deny: never. */
export type Effect = 'allow' | 'ask' | 'deny';
/** A request's id, echoed first in its answer. */
export type Id = string | number;

/** Context variables for one request. */
export interface Context {
  workspace?: string;
  cwd?: string;
  home?: string;
  tmp?: string;
  agent_dir?: string;
  session_dir?: string;
  user?: string;
}

/** One line of the decision stream's input: a target, or for exec an argv. */
export interface Request {
  id?: Id;
  op: Op;
  /** A path, a shell command, host[:port] or a tool name. */
  target?: string;
  /** exec only, in place of target: the command's words, analysed as they are. */
  argv?: string[];
  /** Default: the client's preset, else the policy's default. */
  preset?: string;
  context?: Context;
  /** exec: asks to run outside the sandbox; needs a justification. */
  escalate?: boolean;
  justification?: string;
  /** The target is a canonical path already: denied when it is not spelled as one. */
  canonical?: boolean;
  /** Who asks, for the audit log. */
  actor?: string;
  /** exec: also issue an approval for `cordon run --approval` (the answer's approval). */
  approve?: boolean;
  /** The command will run under cordon run's sandbox. */
  sandboxed?: boolean;
}

/** What an approval grants for an operation. */
export type Grant = 'file' | 'tree' | 'rule' | 'sandbox' | 'host';

/** One thing the request will do, as the policy decides it: the preview. */
export interface Operation {
  op: Op;
  target: string;
  detail?: string;
  decision: Effect;
  reason: string | null;
  /** file:line:col of the deciding rule; null when none matched. */
  rule: string | null;
  /** Decided by what the sandbox itself refuses. */
  contained?: true;
  /** In an answer to a request with approve: what an approval grants for it. */
  grant?: Grant;
  grant_reason?: string;
}

/** A request decided: the most severe effect over its operations. */
export interface Decision {
  /** The stream only: the request's id. */
  id?: Id;
  decision: Effect;
  reason: string | null;
  rule: string | null;
  preset: string;
  /** Under a managed layer: which layer's decision this is, the stricter of the two. */
  layer?: 'managed' | 'user';
  operations: Operation[];
  sandbox: 'bwrap' | 'seatbelt' | 'none';
  /** exec that asks or is denied: what `cordon run` exits with instead (121 deny, 122 ask). */
  run_status?: 121 | 122;
  /** exec only: analysed as a shell string, or as the argv's words. */
  analysed?: 'shell' | 'argv';
  /** An escalated exec: it would run outside the sandbox. */
  unsandboxed?: true;
  /** A request with approve: the approval's id, or null when none is needed or it cannot be given. */
  approval?: string | null;
  approval_error?: string;
}

/** The stream's answer to a line it cannot decide. */
export interface StreamError {
  id?: Id;
  error: string;
  line: number;
}

// ---- the client -----------------------------------------------------------------

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

/** A command: a shell string, or an argv run word for word. */
export type Command = string | string[];

export interface CallOptions extends Options {
  workspace?: string;
  cwd?: string;
}

export interface RunOptions extends CallOptions {
  /** Seconds before the command's process tree is killed. */
  timeout?: number;
  /** An exec approval to redeem for this one call (its id, or what approveExec resolved with). */
  approval?: string | ExecApproval;
}

export interface ApproveExecOptions extends CallOptions {
  /** Seconds the approval stays valid (cordon's default: 600). */
  ttl?: number;
}

/** A contact the call's egress proxy refused (the schema's Refusal); every
 * string is escaped: printable characters as they are, other bytes \xHH. */
export interface Refusal {
  op: 'net';
  /** host:port as the command asked for it. */
  target: string;
  host: string | null;
  port: number;
  /** rule: the policy decided; address: allowed, but the name resolves to an
   * internal address; request: refused before any rule; approved-only: the
   * call's proxy serves its approval's hosts alone. */
  kind: 'rule' | 'address' | 'request' | 'approved-only';
  decision: 'deny' | 'ask';
  /** "file:line:col" of the deciding rule, or null. */
  rule: string | null;
  reason: string;
  /** How many times the command was refused this. */
  count: number;
  /** The change that would allow it. */
  fix: RefusalFix;
}

/** A path the sandbox refused a write to during the call (cordon run
 * watches the calls that write, unless --no-watch-writes). */
export interface FsRefusal {
  op: 'write';
  /** The path, under the home as ~/... */
  target: string;
  /** The absolute path, as the sandbox sees it. */
  path: string;
  /** The first system call refused on it: openat, mkdir, renameat2, ... */
  call: string;
  /** read-only: a read-only mount; outside: no write root covers it. */
  kind: 'read-only' | 'outside';
  /** What the preset decides for a write there (allow: a protection of the
   * sandbox refuses what the preset allows). */
  decision: 'deny' | 'ask' | 'allow';
  rule: string | null;
  reason: string;
  count: number;
  fix: RefusalFix;
}

/** rule: add rule to a preset that extends the preset named extends;
 * approve: run commands[0], then commands[1] with the id it printed; none:
 * no change of the policy in force lets it through (why says so). */
export interface RefusalFix {
  kind: 'rule' | 'approve' | 'none';
  rule?: string;
  extends?: string;
  commands?: string[];
  why: string | null;
}

/** The line `cordon run --status-fd` writes when the call ends. */
export interface RunStatus {
  status: number;
  ran: boolean;
  outcome: string;
  refusals: (Refusal | FsRefusal)[];
}

/** A command that ran: status is its own, whatever the number. */
export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
  /** What the call's egress proxy refused, in order, each once; then each
   * path the sandbox refused a write to. */
  refusals: (Refusal | FsRefusal)[];
}

/** An approval of one call of a command, from approveExec. */
export interface ExecApproval {
  /** The id for `cordon run --approval`; null when the command needs none. */
  id: string | null;
  command: Command;
  /** What the approval covers. */
  preview: Decision;
  /** cordon's own account of it. */
  text?: string;
}

export type Approval =
  | { kind: 'exec'; command: Command }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'edit'; path: string; old: string; new: string; all?: boolean }
  | { kind: 'tool'; name: string };

/** cordon run's own exit statuses (the README's "Exit statuses"). */
export const EXIT: {
  readonly POLICY: 1;
  readonly USAGE: 2;
  readonly DENIED: 121;
  readonly ASK: 122;
  readonly TIMEOUT: 124;
  readonly SANDBOX_UNAVAILABLE: 125;
};

/** Every error is a refusal: its decision is never 'allow'. */
export class CordonError extends Error {
  readonly decision: 'deny' | 'ask';
  /** cordon's exit status, when a cordon process ended with one. */
  readonly status?: number;
  readonly stdout?: string;
  readonly stderr?: string;
  /** How cordon run says the call ended (its --status-fd outcome). */
  readonly outcome?: string;
  /** run(): what the call's egress proxy refused. */
  readonly refusals?: (Refusal | FsRefusal)[];
}
/** A usage or I/O error (exit 2): an unreadable policy, an unknown preset or context variable. */
export class UsageError extends CordonError {
  /** decide(): the stream's line number of the request. */
  readonly line?: number;
}
/** The policy cannot be loaded or does not compile (exit 1). */
export class PolicyError extends CordonError {}
export class RequestError extends CordonError {
  readonly id?: number;
  readonly line?: number;
}
export class ProcessError extends CordonError {}
export class TimeoutError extends CordonError {}
/** The policy denies the command (121): nothing can approve it. */
export class DeniedError extends CordonError {
  readonly decision: 'deny';
  readonly preview?: Decision;
}
/** The command needs a person's approval (122), or its approval is void. */
export class ApprovalRequiredError extends CordonError {
  readonly decision: 'ask';
  readonly preview?: Decision;
}
/** No sandbox could be set up; nothing ran (125). */
export class SandboxUnavailableError extends CordonError {}

export class Cordon {
  constructor(options?: Options);
  start(): void;
  decide(request: Request, options?: { timeoutMs?: number }): Promise<Decision>;
  /** The command's decision as cordon run makes it: what a person approves. */
  preview(command: Command, options?: CallOptions): Promise<Decision>;
  run(command: Command, options?: RunOptions): Promise<RunResult>;
  approveExec(command: Command, options?: ApproveExecOptions): Promise<ExecApproval>;
  approve(what: { kind: 'exec'; command: Command }, options?: ApproveExecOptions):
    Promise<{ approval: string | null; preview: Decision }>;
  approve(what: Approval, options?: Options): Promise<{ approval: string } | { granted: string }>;
  close(): void;
}
