'use strict';
// A client for cordon: decisions through one long-lived `cordon eval --stdin`
// stream, multiplexed by request id; sandboxed runs and approvals through
// the cordon command.  Nothing that goes wrong resolves: every failure
// rejects with a CordonError of its kind, and only a command that cordon
// ran resolves, with its own status (cordon run --status-fd says which).
// A host that treats a rejection as anything but a refusal has failed
// open on its own.

const { spawn } = require('node:child_process');
const readline = require('node:readline');

// What `cordon run` exits with besides the command's own status
// (include/cordon.h, README "Exit statuses").
const EXIT = Object.freeze({
  POLICY: 1, // the policy cannot be loaded or does not compile
  USAGE: 2, // a usage or I/O error: a missing policy file, an unknown preset
  DENIED: 121, // the policy denies the command; nothing can approve it
  ASK: 122, // it needs an approval it was not given, or its approval is void
  TIMEOUT: 124,
  SANDBOX_UNAVAILABLE: 125,
});

class CordonError extends Error {
  constructor(message, props = {}) {
    super(message);
    this.name = this.constructor.name;
    // Never 'allow': a rejection is a refusal.
    this.decision = 'deny';
    Object.assign(this, props);
  }
}
// cordon's usage or I/O error (exit 2): a policy file that cannot be read,
// an unknown preset, a bad option.
class UsageError extends CordonError {}
// The policy cannot be loaded or does not compile (exit 1).
class PolicyError extends CordonError {}
// cordon answered a stream request with an error object (a malformed request).
class RequestError extends CordonError {}
// The cordon process ended, could not start, or said something out of step.
class ProcessError extends CordonError {}
// No answer within the request's timeout, or the command ran past --timeout (124).
class TimeoutError extends CordonError {}
// `cordon run`: the policy denies the command (121); no approval changes that.
class DeniedError extends CordonError {}
// `cordon run`: the command needs a person's approval (122), or the approval
// given is void.  `preview` is the decision a person approves (when it could
// be had); approveExec() issues the approval, run(cmd, { approval }) uses it.
class ApprovalRequiredError extends CordonError {
  constructor(message, props = {}) {
    super(message, props);
    this.decision = 'ask';
  }
}
// `cordon run`: no sandbox could be set up, so nothing ran (125).
class SandboxUnavailableError extends CordonError {}

// The error of a cordon exit status that is not a command's own.
function errorForStatus(status, message, props) {
  const Kind = {
    [EXIT.POLICY]: PolicyError,
    [EXIT.USAGE]: UsageError,
    [EXIT.DENIED]: DeniedError,
    [EXIT.ASK]: ApprovalRequiredError,
    [EXIT.TIMEOUT]: TimeoutError,
    [EXIT.SANDBOX_UNAVAILABLE]: SandboxUnavailableError,
  }[status] || ProcessError;
  return new Kind(message, { status, ...props });
}

// cordon's own lines of a refusal or failure: what it said, not the command.
function cordonMessage(stderr, status) {
  const text = stderr.trim();
  return text || `cordon exited with status ${status}`;
}

const OPS = new Set(['read', 'write', 'exec', 'net', 'tool']);

function commonArgs(opts) {
  const args = [];
  if (opts.policy) args.push('-p', opts.policy);
  if (opts.preset) args.push('--preset', opts.preset);
  for (const [k, v] of Object.entries(opts.context || {})) args.push('--context', `${k}=${v}`);
  return args;
}

// The options of a call that runs or approves a command, as cordon run takes them.
function callArgs(o) {
  const args = commonArgs(o);
  if (o.workspace) args.push('--workspace', o.workspace);
  if (o.cwd) args.push('--cwd', o.cwd);
  return args;
}

function commandArgs(command) {
  return Array.isArray(command) ? ['--', ...command.map(String)] : ['--shell', String(command)];
}

class Cordon {
  // options: { bin = $CORDON or 'cordon', policy, preset, context: {k: v},
  //            timeoutMs = 10000, env }
  constructor(options = {}) {
    this.bin = options.bin || process.env.CORDON || 'cordon';
    this.options = options;
    this.timeoutMs = options.timeoutMs ?? 10000;
    this.nextId = 1;
    this.pending = new Map(); // id -> { resolve, reject, timer }
    this.order = []; // ids in the order they were written
    this.proc = null;
    this.stderr = '';
  }

  // Start the stream now (decide() starts it on demand otherwise).
  start() {
    if (this.proc) return;
    const args = ['eval', ...commonArgs(this.options), '--stdin'];
    const proc = spawn(this.bin, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: this.options.env || process.env,
    });
    this.proc = proc;
    this.stderr = '';
    // The stream alone does not keep the host's process alive: a request
    // in flight does, by its timer.  A host that forgets close() exits.
    proc.unref();
    for (const s of [proc.stdin, proc.stdout, proc.stderr]) if (s.unref) s.unref();
    proc.stderr.on('data', (d) => {
      this.stderr = (this.stderr + d).slice(-4096);
    });
    proc.stdin.on('error', () => {}); // reported through 'exit'
    readline.createInterface({ input: proc.stdout }).on('line', (line) => this._answer(line));
    proc.on('error', (e) => this._died(proc, new ProcessError(`cannot start ${this.bin}: ${e.message}`)));
    proc.on('exit', (code, sig) => {
      const message = `cordon exited (${sig || code})${this.stderr ? ': ' + this.stderr.trim() : ''}`;
      this._died(proc, code === EXIT.POLICY || code === EXIT.USAGE
        ? errorForStatus(code, message) : new ProcessError(message, { status: code }));
    });
  }

  // The stream is gone: everything in flight rejects with err's kind.
  _died(proc, err) {
    if (this.proc !== proc) return;
    this.proc = null;
    for (const id of this.order) {
      const p = this.pending.get(id);
      if (!p) continue;
      clearTimeout(p.timer);
      p.reject(new err.constructor(err.message, { status: err.status, id }));
    }
    this.pending.clear();
    this.order = [];
  }

  _answer(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this._fail(new ProcessError(`cordon wrote a line that is not JSON: ${line.slice(0, 200)}`));
      return;
    }
    // Answers come in order; the id, when cordon echoes it, must agree.
    const id = this.order.shift();
    if (id === undefined || (msg.id !== undefined && msg.id !== id)) {
      this._fail(new ProcessError(`cordon's answer (id ${msg.id}) is out of step with the requests`));
      return;
    }
    const p = this.pending.get(id);
    this.pending.delete(id);
    clearTimeout(p.timer);
    // A preset or context the policy does not know is the host's usage
    // error, as cordon run's exit 2 is; anything else a malformed request.
    const Kind = /^unknown (preset|context variable) /.test(msg.error || '') ? UsageError : RequestError;
    if (msg.error) p.reject(new Kind(msg.error, { id, line: msg.line }));
    else if (!['allow', 'ask', 'deny'].includes(msg.decision))
      p.reject(new ProcessError(`cordon's answer has no decision: ${line.slice(0, 200)}`, { id }));
    else p.resolve(msg);
  }

  // Something broke the stream: fail everything in flight and start afresh.
  _fail(err) {
    const proc = this.proc;
    if (!proc) return;
    this._died(proc, err);
    proc.kill('SIGKILL');
  }

  // request: a Request of docs/decision.schema.json ({ op, target } or
  // { op: 'exec', argv: [...] }, with optional preset, context, sandboxed,
  // escalate, justification, canonical, actor, approve).  Resolves with
  // cordon's Decision; a request cordon cannot decide rejects.
  decide(request, { timeoutMs = this.timeoutMs } = {}) {
    return new Promise((resolve, reject) => {
      if (!request || !OPS.has(request.op))
        return reject(new RequestError(`op must be one of ${[...OPS].join(', ')}`));
      if (request.target === undefined && request.argv === undefined)
        return reject(new RequestError('a request needs a target (or, for exec, an argv)'));
      this.start();
      const id = this.nextId++;
      const timer = setTimeout(() => {
        // The stream is now out of step: restart it.
        this._fail(new TimeoutError(`no decision within ${timeoutMs} ms`, { id }));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.order.push(id);
      this.proc.stdin.write(JSON.stringify({ ...request, id }) + '\n');
    });
  }

  // The preview of a command: its Decision as `cordon run` makes it (in the
  // preset's sandbox), every operation it will perform with its effect --
  // what a person approves.  command: a shell string or an argv array.
  preview(command, opts = {}) {
    const o = { ...this.options, ...opts };
    const req = Array.isArray(command)
      ? { op: 'exec', argv: command.map(String) } : { op: 'exec', target: String(command) };
    const context = { ...(o.context || {}) };
    if (o.workspace) context.workspace = o.workspace;
    if (o.cwd) context.cwd = o.cwd;
    return this.decide({
      ...req, sandboxed: true,
      ...(opts.preset ? { preset: opts.preset } : {}),
      ...(Object.keys(context).length ? { context } : {}),
    });
  }

  // Run a shell command (a string) or an argv (an array) under cordon run.
  // Resolves with { status, stdout, stderr, refusals } only when the command ran
  // (status is then its own, whatever the number).  Rejects with
  // DeniedError (121), ApprovalRequiredError (122, with the preview),
  // TimeoutError (124), SandboxUnavailableError (125), PolicyError (1),
  // UsageError (2) or ProcessError.  opts.approval: an approval id (or
  // what approveExec resolved with) to redeem for this one call.
  run(command, opts = {}) {
    const o = { ...this.options, ...opts };
    const args = ['run', '--status-fd', '3', ...callArgs(o)];
    if (o.timeout) args.push('--timeout', String(o.timeout));
    const approval = o.approval && typeof o.approval === 'object' ? o.approval.id : o.approval;
    if (approval) args.push('--approval', String(approval));
    args.push(...commandArgs(command));
    return this._spawn(args, o, undefined, true).then(async (r) => {
      const st = r.statusLine;
      // What the call's egress proxy refused (cordon run --status-fd).
      const refusals = st && Array.isArray(st.refusals) ? st.refusals : [];
      if (st && st.ran === true && st.status === r.status)
        return { status: r.status, stdout: r.stdout, stderr: r.stderr, refusals };
      const props = { stdout: r.stdout, stderr: r.stderr, outcome: st ? st.outcome : undefined, refusals };
      if (r.status === EXIT.DENIED || r.status === EXIT.ASK)
        props.preview = await this.preview(command, opts).catch(() => undefined);
      throw errorForStatus(r.status, cordonMessage(r.stderr, r.status), props);
    });
  }

  // Issue a one-call approval of a command, as `cordon approve exec` does,
  // after a person approved its preview.  Resolves with { id, command,
  // preview } (id null when the command needs none: it is allowed); pass it
  // to run(command, { approval }).  A denied command rejects with
  // DeniedError: nothing can approve it.
  approveExec(command, opts = {}) {
    const o = { ...this.options, ...opts };
    return this.preview(command, opts).then((preview) => {
      if (preview.decision === 'deny')
        throw new DeniedError(preview.reason || 'denied', { status: EXIT.DENIED, preview });
      if (preview.decision === 'allow') return { id: null, command, preview };
      const args = ['approve', ...callArgs(o)];
      if (o.ttl) args.push('--ttl', String(o.ttl));
      args.push('exec', ...(Array.isArray(command) ? ['--argv', '--', ...command.map(String)] : [String(command)]));
      return this._spawn(args, o).then((r) => {
        const id = r.stdout.trim().split('\n').pop();
        if (r.status === 0 && /^[0-9a-f]{32,}$/.test(id)) return { id, command, preview, text: r.stdout };
        const props = { stdout: r.stdout, stderr: r.stderr, preview };
        // 1 is a policy error, or a command denied at approval time.
        if (r.status === EXIT.POLICY && /^cordon: the preview:/m.test(r.stderr))
          throw new DeniedError(cordonMessage(r.stderr, r.status), { status: EXIT.DENIED, ...props });
        throw errorForStatus(r.status === 0 ? -1 : r.status, cordonMessage(r.stderr, r.status), props);
      });
    });
  }

  // { kind: 'exec', command } as approveExec; { kind: 'write', path, content }
  // | { kind: 'edit', path, old, new, all } issue a one-call approval and
  // resolve with its id; { kind: 'tool', name } grants a named tool for the
  // session (context.session_dir).
  approve(what, opts = {}) {
    const o = { ...this.options, ...opts };
    let args, input;
    if (what.kind === 'exec') {
      return this.approveExec(what.command, opts).then((a) => ({ approval: a.id, preview: a.preview }));
    } else if (what.kind === 'tool') {
      args = ['approve', '--session', ...commonArgs(o), 'tool', what.name];
    } else if (what.kind === 'write') {
      args = ['approve', ...commonArgs(o), 'write', what.path];
      input = what.content;
    } else if (what.kind === 'edit') {
      args = ['approve', ...commonArgs(o), 'edit', what.path, '--old', what.old, '--new', what.new];
      if (what.all) args.push('--all');
    } else {
      return Promise.reject(new RequestError(`approve: kind must be exec, write, edit or tool`));
    }
    return this._spawn(args, o, input).then((r) => {
      if (r.status !== 0) {
        // approve write/edit exits 1 for a denied write as for a broken policy.
        const denied = r.status === EXIT.POLICY && !/: error: /.test(r.stderr);
        throw denied
          ? new DeniedError(cordonMessage(r.stderr, r.status), { status: r.status, stdout: r.stdout, stderr: r.stderr })
          : errorForStatus(r.status, cordonMessage(r.stderr, r.status), { stdout: r.stdout, stderr: r.stderr });
      }
      const id = r.stdout.trim().split(/\s+/).pop();
      return what.kind === 'tool' ? { granted: what.name } : { approval: id };
    });
  }

  // statusFd: give cordon a pipe as descriptor 3 and read its one line.
  _spawn(args, o, input, statusFd = false) {
    return new Promise((resolve, reject) => {
      const stdio = statusFd ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'];
      const child = spawn(this.bin, args, { env: o.env || process.env, cwd: o.cwd, stdio });
      let stdout = '', stderr = '', status = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      if (statusFd) child.stdio[3].on('data', (d) => (status += d));
      child.on('error', (e) => reject(new ProcessError(`cannot start ${this.bin}: ${e.message}`)));
      child.on('close', (code, signal) => {
        if (signal) return reject(new ProcessError(`cordon was killed (${signal})`, { stdout, stderr }));
        let statusLine = null;
        try {
          statusLine = status ? JSON.parse(status) : null;
        } catch {
          statusLine = null; // not cordon's line: the call counts as failed
        }
        resolve({ status: code, stdout, stderr, statusLine });
      });
      child.stdin.on('error', () => {});
      child.stdin.end(input === undefined ? '' : input);
    });
  }

  // End the stream; requests in flight reject.
  close() {
    const proc = this.proc;
    if (!proc) return;
    this._died(proc, new ProcessError('the client was closed'));
    proc.stdin.end();
  }
}

module.exports = {
  Cordon,
  EXIT,
  CordonError,
  UsageError,
  PolicyError,
  RequestError,
  ProcessError,
  TimeoutError,
  DeniedError,
  ApprovalRequiredError,
  SandboxUnavailableError,
};
