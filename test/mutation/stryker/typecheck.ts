// Which sampled mutants the project's strict TypeScript would refuse. The catalogue's runner bundles with
// esbuild, which strips types without checking them, so a mutant tsc rejects (Stryker's own
// @stryker-mutator/typescript-checker would report it CompileError and leave it out of the score) still
// runs. One program over src/ (tsconfig.build.json) per mutant, with the one file's text replaced and
// every other file's parse cached; only the mutated file's diagnostics are asked for (a mutant changes a
// body, seldom an exported type).
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

export interface TypeVerdict {
  /** The first error's text, or undefined when the mutated file type-checks. */
  readonly error: string | undefined;
}

export function typeChecker(root: string): (file: string, mutated: string) => TypeVerdict {
  const configPath = join(root, 'tsconfig.build.json');
  const config = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(configPath));
  const options = { ...parsed.options, noEmit: true, declaration: false, sourceMap: false };
  const base = ts.createCompilerHost(options, true);
  const parsedFiles = new Map<string, ts.SourceFile | undefined>();
  return (file, mutated) => {
    const target = resolve(root, file);
    const host: ts.CompilerHost = {
      ...base,
      getSourceFile: (name, lang, onError) => {
        if (resolve(name) === target) return ts.createSourceFile(name, mutated, lang, true);
        if (!parsedFiles.has(name)) parsedFiles.set(name, base.getSourceFile(name, lang, onError));
        return parsedFiles.get(name);
      },
    };
    const program = ts.createProgram(parsed.fileNames, options, host);
    const sf = program.getSourceFile(target);
    if (sf === undefined) throw new Error(`${file}: not part of tsconfig.build.json's program`);
    const diags = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
    const first = diags[0];
    if (first === undefined) return { error: undefined };
    const line =
      first.start === undefined ? '' : `:${sf.getLineAndCharacterOfPosition(first.start).line + 1}`;
    return {
      error: `${file}${line} TS${first.code}: ${ts.flattenDiagnosticMessageText(first.messageText, ' ')}`,
    };
  };
}
