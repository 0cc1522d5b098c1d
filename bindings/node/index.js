'use strict';
// A client for cordon: decisions through one long-lived `cordon eval --stdin`
// stream, multiplexed by request id; sandboxed runs and approvals through
// the cordon command.  Everything that goes wrong rejects with a CordonError
// whose `decision` is 'deny': a host that treats a rejection as anything but
// a refusal has failed open on its own.

const { spawn } = require('node:child_process');
const readline = require('node:readline');

class CordonError extends Error {
  constructor(message, props = {}) {
    super(message);
    this.name = this.constructor.name;
    this.decision = 'deny';
    Object.assign(this, props);
  }
}
// The policy cannot be loaded or compiled (cordon exits 1 or 2 at start).
class PolicyError extends CordonError {}
// cordon answered the request with an error object (a malformed request).
class RequestError extends CordonError {}
// The cordon process ended or could not start while the request was in flight.
class ProcessError extends CordonError {}
// No answer within the request's timeout.
class TimeoutError extends CordonError {}
// `cordon run`: the policy denies the command or it needs approval (126).
class DeniedError extends CordonError {}
// `cordon run`: no sandbox could be set up, so nothing ran (125).
class SandboxUnavailableError extends CordonError {}

const OPS = new Set(['read', 'write', 'exec', 'net', 'tool']);

function commonArgs(opts) {
  const args = [];
  if (opts.policy) args.push('-p', opts.policy);
  if (opts.preset) args.push('--preset', opts.preset);
  for (const [k, v] of Object.entries(opts.context || {})) args.push('--context', `${k}=${v}`);
  return args;
}

class Cordon {
  // options: { bin = 'cordon', policy, preset, context: {k: v}, timeoutMs = 10000, env }
  constructor(options = {}) {
    this.bin = options.bin || process.env.CORDON || 'cordon';
    this.options = options;
    this.timeoutMs = options.timeoutMs ?? 10000;
    this.nextId = 1;
    this.pending = new Map(); // id -> { resolve, reject, timer }
    this.order = [];          // ids in the order they were written
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
    proc.stderr.on('data', (d) => {
      this.stderr = (this.stderr + d).slice(-4096);
    });
    proc.stdin.on('error', () => {}); // reported through 'exit'
    readline.createInterface({ input: proc.stdout }).on('line', (line) => this._answer(line));
    proc.on('error', (e) => this._died(proc, `cannot start ${this.bin}: ${e.message}`, null));
    proc.on('exit', (code, sig) =>
      this._died(proc, `cordon exited (${sig || code})${this.stderr ? ': ' + this.stderr.trim() : ''}`, code));
  }

  _died(proc, message, code, Kind = code === 1 || code === 2 ? PolicyError : ProcessError) {
    if (this.proc !== proc) return;
    this.proc = null;
    for (const id of this.order) {
      const p = this.pending.get(id);
      if (!p) continue;
      clearTimeout(p.timer);
      p.reject(new Kind(message, { id }));
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
    if (msg.error) p.reject(new RequestError(msg.error, { id, line: msg.line }));
    else p.resolve(msg);
  }

  // Something broke the stream: fail everything in flight and start afresh.
  _fail(err) {
    const proc = this.proc;
    if (!proc) return;
    this._died(proc, err.message, null, err.constructor);
    proc.kill('SIGKILL');
  }

  // request: { op, target } or { op: 'exec', argv: [...] }, with optional
  // { preset, context }.  Resolves with cordon's decision object
  // ({ decision: 'allow'|'ask'|'deny', reason, rule, operations, ... }).
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

  // Run a shell command (a string) or an argv (an array) under cordon run.
  // Resolves with { status, stdout, stderr } when the command ran; rejects
  // with DeniedError (126), SandboxUnavailableError (125) or TimeoutError.
  run(command, opts = {}) {
    const o = { ...this.options, ...opts };
    const args = ['run', ...commonArgs(o)];
    if (o.workspace) args.push('--workspace', o.workspace);
    if (o.timeout) args.push('--timeout', String(o.timeout));
    if (Array.isArray(command)) args.push('--', ...command);
    else args.push('--shell', String(command));
    return this._spawn(args, o).then((r) => {
      if (r.status === 126) throw new DeniedError(r.stderr.trim() || 'denied', r);
      if (r.status === 125) throw new SandboxUnavailableError(r.stderr.trim(), r);
      if (r.status === 124) throw new TimeoutError(`the command ran past ${o.timeout} s`, r);
      return r;
    });
  }

  // { kind: 'write', path, content } | { kind: 'edit', path, old, new, all }
  // issue a one-call approval and resolve with its id; { kind: 'tool', name }
  // grants a named tool for the session (context.session_dir).
  approve(what, opts = {}) {
    const o = { ...this.options, ...opts };
    let args, input;
    if (what.kind === 'tool') {
      args = ['approve', '--session', ...commonArgs(o), 'tool', what.name];
    } else if (what.kind === 'write') {
      args = ['approve', ...commonArgs(o), 'write', what.path];
      input = what.content;
    } else if (what.kind === 'edit') {
      args = ['approve', ...commonArgs(o), 'edit', what.path, '--old', what.old, '--new', what.new];
      if (what.all) args.push('--all');
    } else {
      return Promise.reject(new RequestError(`approve: kind must be write, edit or tool`));
    }
    return this._spawn(args, o, input).then((r) => {
      if (r.status !== 0) throw new DeniedError(r.stderr.trim() || `approve exited ${r.status}`, r);
      const id = r.stdout.trim().split(/\s+/).pop();
      return what.kind === 'tool' ? { granted: what.name } : { approval: id };
    });
  }

  _spawn(args, o, input) {
    return new Promise((resolve, reject) => {
      const child = spawn(this.bin, args, { env: o.env || process.env, cwd: o.cwd });
      let stdout = '', stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', (e) => reject(new ProcessError(`cannot start ${this.bin}: ${e.message}`)));
      child.on('close', (status, signal) => {
        if (signal) return reject(new ProcessError(`cordon was killed (${signal})`, { stdout, stderr }));
        resolve({ status, stdout, stderr });
      });
      child.stdin.on('error', () => {});
      child.stdin.end(input === undefined ? '' : input);
    });
  }

  // End the stream; requests in flight reject.
  close() {
    const proc = this.proc;
    if (!proc) return;
    this._died(proc, 'the client was closed', null, ProcessError);
    proc.stdin.end();
  }
}

module.exports = {
  Cordon,
  CordonError,
  PolicyError,
  RequestError,
  ProcessError,
  TimeoutError,
  DeniedError,
  SandboxUnavailableError,
};
