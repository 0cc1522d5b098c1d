'use strict';
// index.d.ts against docs/decision.schema.json: every definition of the
// schema is a type of the same name, every member of an object definition
// a member of its interface, optional exactly when the schema does not
// require it, of the type the schema gives; and no member the schema lacks.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');

const schema = JSON.parse(fs.readFileSync(
  path.resolve(__dirname, '../../../docs/decision.schema.json'), 'utf8'));
const dts = fs.readFileSync(path.resolve(__dirname, '../index.d.ts'), 'utf8')
  .replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

const literal = (v) => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v));
const TS = { string: 'string', integer: 'number', number: 'number', boolean: 'boolean', null: 'null' };

// The TypeScript a schema node stands for.
function tsType(node) {
  if (node.$ref) return node.$ref.replace('#/definitions/', '');
  if ('const' in node) return literal(node.const);
  if (node.enum) return node.enum.map(literal).join(' | ');
  if (node.oneOf) return node.oneOf.map(tsType).join(' | ');
  if (node.type === 'array')
    return node.items.oneOf ? `(${tsType(node.items)})[]` : `${tsType(node.items)}[]`;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  return types.map((t) => {
    assert.ok(TS[t], `no TypeScript type for the schema type ${t}`);
    return TS[t];
  }).join(' | ');
}

const norm = (s) => s.replace(/\s+/g, ' ').replace(/"/g, "'").trim();

// The members of `export interface NAME { ... }`: name -> { optional, type }.
function interfaceMembers(name) {
  const m = dts.match(new RegExp(`export interface ${name} \\{([^}]*)\\}`));
  assert.ok(m, `index.d.ts has no interface ${name}`);
  const members = new Map();
  for (const decl of m[1].split(';').map((s) => s.trim()).filter(Boolean)) {
    const d = decl.match(/^(\w+)(\??):\s*([\s\S]+)$/);
    assert.ok(d, `${name}: cannot read the member '${decl}'`);
    members.set(d[1], { optional: d[2] === '?', type: norm(d[3]) });
  }
  return members;
}

for (const [name, def] of Object.entries(schema.definitions)) {
  test(`${name} is as the schema says`, () => {
    if (def.type !== 'object') {
      const m = dts.match(new RegExp(`export type ${name} = ([^;]+);`));
      assert.ok(m, `index.d.ts has no type ${name}`);
      assert.strictEqual(norm(m[1]), norm(tsType(def)), `the type ${name}`);
      return;
    }
    const members = interfaceMembers(name);
    const required = new Set(def.required || []);
    for (const [member, node] of Object.entries(def.properties)) {
      const got = members.get(member);
      assert.ok(got, `${name}.${member} is in the schema but not in index.d.ts`);
      assert.strictEqual(got.optional, !required.has(member),
        `${name}.${member}: ${required.has(member) ? 'required' : 'optional'} in the schema`);
      assert.strictEqual(got.type, norm(tsType(node)), `${name}.${member}'s type`);
    }
    for (const member of members.keys())
      assert.ok(member in def.properties, `${name}.${member} is in index.d.ts but not in the schema`);
  });
}

test('the members the stream and eval emit for requests and decisions are all typed', () => {
  // The ones an earlier index.d.ts lacked, by name.
  const request = interfaceMembers('Request');
  for (const m of ['sandboxed', 'approve', 'escalate', 'actor']) assert.ok(request.has(m), m);
  const decision = interfaceMembers('Decision');
  for (const m of ['analysed', 'approval', 'run_status']) assert.ok(decision.has(m), m);
  const operation = interfaceMembers('Operation');
  for (const m of ['contained', 'grant']) assert.ok(operation.has(m), m);
});

test('the error classes index.js exports are declared, and no others', () => {
  const lib = require('..');
  const declared = [...dts.matchAll(/export class (\w+)/g)].map((m) => m[1]).sort();
  const exported = Object.keys(lib).filter((k) => typeof lib[k] === 'function').sort();
  assert.deepStrictEqual(declared, exported);
  assert.deepStrictEqual(Object.keys(lib.EXIT).sort(),
    [...dts.match(/export const EXIT: \{([^}]*)\}/)[1].matchAll(/readonly (\w+)/g)].map((m) => m[1]).sort());
});
