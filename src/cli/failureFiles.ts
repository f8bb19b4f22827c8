// What `podrace fuzz` leaves for each shrunk failure in its --out folder: the minimal scenario
// (`<name>.yaml`, headed by the editor schema line and the podrace version that wrote it), and beside it
// the same run as a Chrome trace (`<name>.trace.json`) and an HTML timeline (`<name>.html`), so that a CI
// artifact of the folder is enough to look at a find without running anything. The trace and the
// timeline are always written when the run has a result (a simulator error has none): a minimal case
// is small, and a failure is rare.
import { readFileSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import type { CampaignFailure } from '../fuzz/campaign.js';
import { SCHEMA_PATH } from '../scenario/genSchema.js';
import { parseScenarioText } from '../scenario/load.js';
import { writeOutputFile } from './output.js';
import { writeRunFiles } from './runFiles.js';

/** The trace and timeline written beside a failure's YAML (`x.yaml` -> `x.trace.json`, `x.html`). */
export function failureCompanions(yamlFile: string): { readonly trace: string; readonly timeline: string } {
  const stem = yamlFile.replace(/\.ya?ml$/, '');
  return { trace: `${stem}.trace.json`, timeline: `${stem}.html` };
}

/**
 * The comment lines a written failure starts with: the yaml-language-server schema line (a path
 * relative to the file, as editors resolve it, to the schema shipped with this podrace) and the version.
 */
export function failureFileHeader(yamlFile: string, version: string, schemaPath = SCHEMA_PATH): string {
  const rel = relative(dirname(yamlFile), schemaPath).split(sep).join('/');
  return [
    `# yaml-language-server: $schema=${rel}`,
    `# Written by podrace ${version} (podrace fuzz); \`npx podrace verify\` of this file checks its claims.`,
    '',
  ].join('\n');
}

/** Writes a failure's files (creating `dir`); returns the YAML's path. */
export function writeFailureFiles(file: string, f: CampaignFailure, version: string): string {
  writeOutputFile(file, failureFileHeader(file, version) + f.yaml, { mkdir: true });
  if (f.run.ok) {
    writeRunFiles(f.run.result, failureCompanions(file));
  }
  return file;
}

/**
 * The 1-based line of a written failure's first claim (what fired with the campaign's fixes), read back
 * from the file, for reports that point at it (JUnit `line`); undefined when it cannot be read.
 */
export function failureClaimLine(yamlFile: string): number | undefined {
  try {
    const line = parseScenarioText(readFileSync(yamlFile, 'utf8'), yamlFile).claims[0]?.line;
    return line === undefined || line < 1 ? undefined : line;
  } catch {
    return undefined;
  }
}
