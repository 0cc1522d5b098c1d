'use strict';
// The client against the real cordon ($CORDON): decisions, ids and order,
// failures that reject as deny, restarts, sandboxed runs and approvals.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  Cordon, CordonError, PolicyError, RequestError, ProcessError, TimeoutError, DeniedError,
} = require('..');

const bin = process.env.CORDON;
const policy = path.resolve(__dirname, '../../../tests/hook/policy.cordon');
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cordon-node-')));
const ws = path.join(root, 'ws');
const home = path.join(root, 'home');
fs.mkdirSync(ws);
fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'secret\n');
const context = { workspace: ws, cwd: ws, home, session_dir: path.join(root, 'session') };
const client = (extra = {}) => new Cordon({ bin, policy, preset: 'agent', context, ...extra });

test('decisions: a credential read is denied, a workspace write allowed', async () => {
  const c = client();
  const deny = await c.decide({ op: 'read', target: path.join(home, '.ssh/id_ed25519') });
  assert.strictEqual(deny.decision, 'deny');
  assert.match(deny.reason, /credentials stay outside/);
  const allow = await c.decide({ op: 'write', target: path.join(ws, 'a.txt') });
  assert.strictEqual(allow.decision, 'allow');
  const push = await c.decide({ op: 'exec', target: 'git push origin main' });
  assert.strictEqual(push.decision, 'deny');
  assert.ok(push.operations.length >= 1);
  c.close();
});

test('many requests at once each get their own answer', async () => {
  const c = client();
  const targets = Array.from({ length: 200 }, (_, i) =>
    i % 2 ? path.join(home, `.ssh/k${i}`) : path.join(ws, `f${i}`));
  const answers = await Promise.all(targets.map((t) => c.decide({ op: 'read', target: t })));
  answers.forEach((a, i) => assert.strictEqual(a.decision, i % 2 ? 'deny' : 'allow', targets[i]));
  c.close();
});

test('a request cordon refuses rejects, and the stream goes on', async () => {
  const c = client();
  await assert.rejects(c.decide({ op: 'frobnicate', target: 'x' }), RequestError);
  await assert.rejects(c.decide({ op: 'read' }), RequestError);
  const bad = c.decide({ op: 'tool', target: 'x', preset: 'no-such-preset' });
  await assert.rejects(bad, (e) => e instanceof CordonError && e.decision === 'deny');
  const ok = await c.decide({ op: 'read', target: path.join(ws, 'x') });
  assert.strictEqual(ok.decision, 'allow');
  c.close();
});

test('a policy that does not compile rejects as PolicyError', async () => {
  const broken = path.join(root, 'broken.cordon');
  fs.writeFileSync(broken, 'cordon 1;\npreset "p" { read "/**" allw; }\n');
  const c = new Cordon({ bin, policy: broken });
  await assert.rejects(c.decide({ op: 'read', target: '/etc/hosts' }), (e) => {
    assert.ok(e instanceof PolicyError, e.constructor.name);
    assert.strictEqual(e.decision, 'deny');
    return true;
  });
});

test('cordon dying with requests in flight rejects them; the next request restarts it', async () => {
  const c = client();
  await c.decide({ op: 'read', target: path.join(ws, 'warm') });
  // Stopped first, so that the request cannot be answered before the kill.
  c.proc.kill('SIGSTOP');
  const inflight = c.decide({ op: 'read', target: path.join(ws, 'x') });
  c.proc.kill('SIGKILL');
  await assert.rejects(inflight, (e) => e instanceof ProcessError && e.decision === 'deny');
  const after = await c.decide({ op: 'read', target: path.join(home, '.ssh/id_ed25519') });
  assert.strictEqual(after.decision, 'deny');
  c.close();
});

test('a missing cordon binary rejects, never allows', async () => {
  const c = new Cordon({ bin: path.join(root, 'no-such-cordon') });
  await assert.rejects(c.decide({ op: 'read', target: '/etc/hosts' }), ProcessError);
});

test('no answer in time rejects as TimeoutError', async () => {
  // A "cordon" that reads and never answers.
  const fake = path.join(root, 'silent');
  fs.writeFileSync(fake, '#!/bin/sh\nexec cat > /dev/null\n', { mode: 0o755 });
  const c = new Cordon({ bin: fake, timeoutMs: 200 });
  await assert.rejects(c.decide({ op: 'read', target: '/etc/hosts' }), TimeoutError);
});

test('run: a command runs in the sandbox; a denied one rejects as DeniedError', async (t) => {
  const c = client();
  const probe = require('node:child_process').spawnSync(bin, ['probe']);
  if (probe.status !== 0) return t.skip('no sandbox here');
  const r = await c.run('echo sandboxed > out.txt && cat out.txt', { workspace: ws, cwd: ws });
  assert.strictEqual(r.status, 0);
  assert.strictEqual(r.stdout, 'sandboxed\n');
  // What the analysis cannot see, the sandbox still hides.
  fs.writeFileSync(path.join(ws, 'probe.sh'), 'cat "$HOME/.ssh/id_ed25519" 2>/dev/null || echo hidden\n');
  const argv = await c.run(['sh', 'probe.sh'],
    { workspace: ws, cwd: ws, env: { ...process.env, HOME: home } });
  assert.strictEqual(argv.stdout, 'hidden\n');
  await assert.rejects(c.run('git push origin main', { workspace: ws, cwd: ws }), (e) => {
    assert.ok(e instanceof DeniedError);
    assert.strictEqual(e.status, 126);
    return true;
  });
});

test('approve: a session grant for a named tool', async () => {
  const c = client();
  const before = await c.decide({ op: 'tool', target: 'mcp:github/create_issue' });
  assert.strictEqual(before.decision, 'ask');
  assert.deepStrictEqual(await c.approve({ kind: 'tool', name: 'mcp:github/create_issue' }),
    { granted: 'mcp:github/create_issue' });
  c.close();
  const c2 = client();
  const after = await c2.decide({ op: 'tool', target: 'mcp:github/create_issue' });
  c2.close();
  assert.strictEqual(after.decision, 'allow');
});

test.after(() => fs.rmSync(root, { recursive: true, force: true }));
