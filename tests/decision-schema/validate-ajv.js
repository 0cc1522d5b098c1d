'use strict';
// Validate JSON lines against docs/decision.schema.json with ajv (CI
// installs ajv@6 for the SARIF schema: CORDON_SARIF_MODULES).
//   node validate-ajv.js MODULES SCHEMA DEFINITION=FILE...
// DEFINITION is a name under "definitions", or empty for the root.
// Exit 0 when every line is valid, 1 otherwise (the failures on stdout).
const fs = require('node:fs');
const path = require('node:path');
const Ajv = require(path.join(process.argv[2], 'ajv'));
const schema = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const ajv = new Ajv({ allErrors: true });
ajv.addSchema(schema, 'decision');
let lines = 0, bad = 0;
for (const spec of process.argv.slice(4)) {
  const eq = spec.indexOf('=');
  const def = spec.slice(0, eq), file = spec.slice(eq + 1);
  const validate = ajv.getSchema(def ? `decision#/definitions/${def}` : 'decision');
  fs.readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    if (!line) return;
    lines++;
    if (!validate(JSON.parse(line))) {
      bad++;
      console.log(`${file}:${i + 1}: ${ajv.errorsText(validate.errors)}`);
    }
  });
}
console.log(`# ${lines} lines, ${bad} invalid`);
process.exit(bad || !lines ? 1 : 0);
