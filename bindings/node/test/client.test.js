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
  ApprovalRequiredError, UsageError, SandboxUnavailableError, EXIT,
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
  await assert.rejects(bad, (e) => e instanceof UsageError && e.decision === 'deny' &&
    /unknown preset 'no-such-preset'/.test(e.message));
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

test('a host that never calls close() still exits when its work is done', () => {
  const script = `
    const { Cordon } = require(${JSON.stringify(path.resolve(__dirname, '..'))});
    const c = new Cordon({ bin: ${JSON.stringify(bin)}, policy: ${JSON.stringify(policy)},
      preset: 'agent', context: ${JSON.stringify(context)} });
    c.decide({ op: 'read', target: '/etc/hosts' }).then((d) => console.log(d.decision));`;
  // A generous bound only so that a hang fails rather than stalls the suite.
  const r = require('node:child_process').spawnSync(process.execPath, ['-e', script],
    { encoding: 'utf8', timeout: 120000 });
  assert.strictEqual(r.stdout, 'allow\n', r.stderr);
  assert.strictEqual(r.status, 0);
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

const sandboxReady = require('node:child_process').spawnSync(bin, ['probe']).status === 0;

test('run: a command runs in the sandbox; a denied one rejects as DeniedError', async (t) => {
  const c = client();
  if (!sandboxReady) return t.skip('no sandbox here (cordon probe)');
  const r = await c.run('echo sandboxed > out.txt && cat out.txt', { workspace: ws, cwd: ws });
  assert.strictEqual(r.status, 0);
  assert.strictEqual(r.stdout, 'sandboxed\n');
  // What the analysis cannot see, the sandbox still hides.
  fs.writeFileSync(path.join(ws, 'probe.sh'), 'cat "$HOME/.ssh/id_ed25519" 2>/dev/null || echo hidden\n');
  const argv = await c.run(['sh', 'probe.sh'],
    { workspace: ws, cwd: ws, env: { ...process.env, HOME: home } });
  assert.strictEqual(argv.stdout, 'hidden\n');
  await assert.rejects(c.run('git push origin main', { workspace: ws, cwd: ws }), (e) => {
    assert.ok(e instanceof DeniedError, e.constructor.name);
    assert.strictEqual(e.status, EXIT.DENIED);
    assert.strictEqual(e.status, 121);
    assert.strictEqual(e.decision, 'deny');
    assert.match(e.message, /DENIED.*no pushes from here/);
    // The preview says which operation is denied.
    assert.strictEqual(e.preview.decision, 'deny');
    assert.strictEqual(e.preview.run_status, 121);
    assert.ok(e.preview.operations.some((o) => o.decision === 'deny' && /git push/.test(o.target)));
    c.close();
    return true;
  });
  c.close();
});

// What cordon refuses or fails at never resolves as the command's status:
// before, run() resolved with { status: 1 } or { status: 2 } here.
test('run: a broken policy, a missing one, a misspelled preset reject, never resolve', async (t) => {
  if (!sandboxReady) return t.skip('no sandbox here (cordon probe)');
  const broken = path.join(root, 'broken-run.cordon');
  fs.writeFileSync(broken, 'cordon 1;\npreset "p" { read "/**" allw; }\n');
  const marker = path.join(ws, 'ran-anyway');
  const cmd = `touch ${marker}`;
  const opts = { workspace: ws, cwd: ws };
  await assert.rejects(new Cordon({ bin, policy: broken, context }).run(cmd, opts), (e) => {
    assert.ok(e instanceof PolicyError, e.constructor.name);
    assert.strictEqual(e.status, 1);
    assert.match(e.message, /unknown effect 'allw'/);
    return true;
  });
  await assert.rejects(
    new Cordon({ bin, policy: path.join(root, 'no-such.cordon'), context }).run(cmd, opts), (e) => {
      assert.ok(e instanceof UsageError, e.constructor.name);
      assert.strictEqual(e.status, 2);
      assert.match(e.message, /no-such\.cordon/);
      return true;
    });
  await assert.rejects(client({ preset: 'agnet' }).run(cmd, opts), (e) => {
    assert.ok(e instanceof UsageError, e.constructor.name);
    assert.match(e.message, /unknown preset 'agnet'/);
    assert.strictEqual(e.decision, 'deny');
    return true;
  });
  assert.ok(!fs.existsSync(marker), 'nothing ran');
});

test('run: the command\'s own statuses resolve, whatever the number', async (t) => {
  if (!sandboxReady) return t.skip('no sandbox here (cordon probe)');
  const c = client();
  for (const s of [1, 2, 121, 122, 126]) {
    const r = await c.run(['sh', '-c', `exit ${s}`], { workspace: ws, cwd: ws });
    assert.strictEqual(r.status, s);
  }
  // A file that cannot be executed: the shell's 126, not a refusal.
  fs.writeFileSync(path.join(ws, 'noexec.sh'), 'echo x\n', { mode: 0o644 });
  const r = await c.run([path.join(ws, 'noexec.sh')], { workspace: ws, cwd: ws });
  assert.strictEqual(r.status, 126);
});

test('run: a cordon that says nothing of the command having run rejects', async () => {
  // A "cordon" that exits 0 without --status-fd's line.
  const fake = path.join(root, 'quiet-cordon');
  fs.writeFileSync(fake, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  await assert.rejects(new Cordon({ bin: fake }).run('true'), ProcessError);
});

test('run: no sandbox rejects as SandboxUnavailableError', async (t) => {
  // cordon alone, without its in-sandbox helper next to it.
  const lone = path.join(root, 'lone');
  fs.mkdirSync(lone, { recursive: true });
  fs.copyFileSync(bin, path.join(lone, 'cordon'));
  fs.chmodSync(path.join(lone, 'cordon'), 0o755);
  const c = new Cordon({ bin: path.join(lone, 'cordon'), policy, preset: 'agent', context });
  try {
    const r = await c.run('true', { workspace: ws, cwd: ws });
    t.skip(`a cordon-exec of this build is installed (status ${r.status})`);
  } catch (e) {
    assert.ok(e instanceof SandboxUnavailableError, `${e.constructor.name}: ${e.message}`);
    assert.strictEqual(e.status, 125);
    assert.match(e.message, /SANDBOX_UNAVAILABLE/);
  }
});

test('ask: ApprovalRequiredError with the preview; approveExec, then run redeems it once', async (t) => {
  if (!sandboxReady) return t.skip('no sandbox here (cordon probe)');
  const c = client();
  const outside = path.join(root, 'outside');
  fs.mkdirSync(outside, { recursive: true });
  const target = path.join(outside, 'approved.txt');
  const cmd = `echo yes > ${target}`;
  const opts = { workspace: ws, cwd: ws };
  const err = await c.run(cmd, opts).then(() => null, (e) => e);
  assert.ok(err instanceof ApprovalRequiredError, err && err.constructor.name);
  assert.ok(!(err instanceof DeniedError));
  assert.strictEqual(err.status, EXIT.ASK);
  assert.strictEqual(err.decision, 'ask');
  assert.match(err.message, /NEEDS APPROVAL/);
  assert.strictEqual(err.preview.decision, 'ask');
  assert.ok(err.preview.operations.some((o) => o.op === 'write' && o.target === target && o.decision === 'ask'));
  assert.ok(!fs.existsSync(target));

  const preview = await c.preview(cmd, opts);
  assert.strictEqual(preview.decision, 'ask');
  assert.strictEqual(preview.run_status, 122);
  const approval = await c.approveExec(cmd, opts);
  assert.match(approval.id, /^[0-9a-f]{32,}$/);
  assert.strictEqual(approval.preview.decision, 'ask');
  const r = await c.run(cmd, { ...opts, approval });
  assert.strictEqual(r.status, 0);
  assert.strictEqual(fs.readFileSync(target, 'utf8'), 'yes\n');
  // Used once: the same approval again is void, and nothing runs.
  fs.rmSync(target);
  await assert.rejects(c.run(cmd, { ...opts, approval: approval.id }), (e) => {
    assert.ok(e instanceof ApprovalRequiredError, e.constructor.name);
    assert.match(e.message, /APPROVAL VOID/);
    return true;
  });
  assert.ok(!fs.existsSync(target));
  // A denied command cannot be approved; an allowed one needs no approval.
  await assert.rejects(c.approveExec('git push origin main', opts), DeniedError);
  assert.strictEqual((await c.approveExec(`echo x > ${path.join(ws, 'in.txt')}`, opts)).id, null);
  c.close();
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

test('run: what the call\'s egress proxy refused resolves with the result', async (t) => {
  if (!sandboxReady) return t.skip('no sandbox here (cordon probe)');
  const curl = ['/usr/bin/curl', '/bin/curl'].find((p) => fs.existsSync(p));
  if (!curl) return t.skip('no curl here');
  const p = path.join(root, 'web.cordon');
  fs.writeFileSync(p, `cordon 1;
preset "web" {
  sandbox required;
  read "/**" allow;
  write "/dev/null" allow;
  write "\${workspace}" allow;
  write "\${tmp}" allow;
  exec "*" allow;
  net "*" deny "only the named hosts";
  net "good.test" allow;
}
`);
  // The host is in a file: the command's words name none.
  fs.writeFileSync(path.join(ws, 'host'), 'bad.test:9\n');
  fs.writeFileSync(path.join(ws, 'fetch.sh'),
    'curl -sS -m 5 "http://$(cat host)/" 2>/dev/null; curl -sS -m 5 "http://$(cat host)/" 2>/dev/null; exit 0\n');
  const c = new Cordon({ bin, policy: p, preset: 'web', context });
  const r = await c.run(['sh', 'fetch.sh'], { workspace: ws, cwd: ws });
  assert.strictEqual(r.status, 0);
  assert.strictEqual(r.refusals.length, 1, JSON.stringify(r.refusals));
  const [x] = r.refusals;
  assert.strictEqual(x.target, 'bad.test:9');
  assert.strictEqual(x.decision, 'deny');
  assert.strictEqual(x.count, 2);
  assert.strictEqual(x.reason, 'only the named hosts');
  assert.match(x.rule, /web\.cordon:9:3$/);
  assert.deepStrictEqual(x.fix, { kind: 'rule', rule: 'net "bad.test:9" allow;', extends: 'web', why: null });
  assert.match(r.stderr, /^cordon: refused net bad\.test:9 \(2 times\): deny by /m);
});
