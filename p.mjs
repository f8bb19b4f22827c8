import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
const text = readFileSync(process.argv[2], 'utf8');
let t = performance.now(); const d = parseDocument(text); console.log('parse', (performance.now() - t).toFixed(0));
t = performance.now(); d.toJS({maxAliasCount: 1000}); console.log('toJS', (performance.now() - t).toFixed(0));
