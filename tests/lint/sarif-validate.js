// Validate a SARIF log against the official SARIF 2.1.0 JSON schema, as
// shipped by the npm package @microsoft/jest-sarif, with ajv 6.
//   node sarif-validate.js NODE_MODULES_DIR FILE.sarif
'use strict';
const fs = require('fs');
const path = require('path');
const [dir, file] = process.argv.slice(2);
const Ajv = require(path.join(dir, 'ajv'));
const schema = require(path.join(dir, '@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'));
const ajv = new Ajv({ schemaId: 'auto', allErrors: true, validateSchema: false });
ajv.addMetaSchema(require(path.join(dir, 'ajv/lib/refs/json-schema-draft-04.json')));
const log = JSON.parse(fs.readFileSync(file, 'utf8'));
if (!ajv.validate(schema, log)) {
	console.log(ajv.errorsText(ajv.errors, { separator: '\n' }));
	process.exit(1);
}
