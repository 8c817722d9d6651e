#!/usr/bin/env node
// Lint: no code under packages/ or examples/ reaches into a dependency's internals.
//
// A dependency's underscore- or tilde-named members (valibot's `_addIssue` and `'~run'`, Node's
// `res._header`, ...) are not its public API: they change in any release that its semver range
// allows. Biome cannot see member access on values of another package's types, so this check
// asks the TypeScript checker instead. It reports:
//   - `x._name` / `x['_name']` (and `A._Name` in a type) whose member is not declared in our
//     sources (declared in node_modules, a dependency's or Node's own types, or nowhere: reached
//     through `any`), and `import { _name } from 'dependency'`;
//   - any tilde-named key or member (`x['~run']`, `{ '~run': f }`, `T['~types']`): nothing of
//     ours is named so. `'~standard'` is allowed: it is the Standard Schema interface, public
//     by that standard.
// Our own private fields (`this._x`, `#x`) are declared in our sources, so they never count.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const PUBLIC_TILDE_NAMES = new Set(['~standard']);
const SCANNED = /^(packages|examples)\//;
const TSCONFIGS = ['tsconfig.json', 'packages/simulator/tsconfig.browser.json'];

const relative = (fileName) => path.relative(root, fileName).split(path.sep).join('/');
const inNodeModules = (fileName) => fileName.split(/[\\/]/).includes('node_modules');
const isTildeName = (text) => /^~[A-Za-z_$][\w$]*$/.test(text) && !PUBLIC_TILDE_NAMES.has(text);
// `__proto__` is the language's own accessor, not a dependency's member.
const isUnderscoreName = (text) => text.startsWith('_') && text !== '__proto__';
const isBareSpecifier = (text) => !text.startsWith('.') && !text.startsWith('/');

/** @type {Map<string, string[]>} file -> findings */
const findings = new Map();
const seen = new Set();

function report(sourceFile, node, message) {
  const file = relative(sourceFile.fileName);
  const { line, character } = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile));
  const entry = `${file}:${line + 1}:${character + 1} ${message}`;
  if (seen.has(entry)) return;
  seen.add(entry);
  findings.set(file, [...(findings.get(file) ?? []), entry]);
}

/** Not declared in our sources: declared in node_modules, or nowhere (a member reached through `any`). */
const notOurs = (symbol) => (symbol?.declarations ?? []).every((declaration) => inNodeModules(declaration.getSourceFile().fileName));

function declaredInDependency(checker, node) {
  let symbol = checker.getSymbolAtLocation(node);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return notOurs(symbol);
}

function scan(checker, sourceFile) {
  const visit = (node) => {
    // Tilde-named keys and members, wherever they are written.
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && isTildeName(node.text)) {
      report(sourceFile, node, `tilde-named member '${node.text}' (a dependency's internal)`);
    }
    // x._name, x?._name
    if (ts.isPropertyAccessExpression(node) && isUnderscoreName(node.name.text) && declaredInDependency(checker, node.name)) {
      report(sourceFile, node.name, `dependency internal '${node.name.text}'`);
    }
    // x['_name']
    if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression) && isUnderscoreName(node.argumentExpression.text)) {
      const property = checker.getTypeAtLocation(node.expression).getProperty(node.argumentExpression.text);
      if (notOurs(property)) {
        report(sourceFile, node.argumentExpression, `dependency internal '${node.argumentExpression.text}'`);
      }
    }
    // A._Name in a type position
    if (ts.isQualifiedName(node) && isUnderscoreName(node.right.text) && declaredInDependency(checker, node.right)) {
      report(sourceFile, node.right, `dependency internal '${node.right.text}'`);
    }
    // import { _name } from 'dependency' / export { _name } from 'dependency'
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (isBareSpecifier(node.moduleSpecifier.text)) {
        const elements = ts.isImportDeclaration(node)
          ? node.importClause?.namedBindings && ts.isNamedImports(node.importClause.namedBindings)
            ? node.importClause.namedBindings.elements
            : []
          : node.exportClause && ts.isNamedExports(node.exportClause)
            ? node.exportClause.elements
            : [];
        for (const element of elements) {
          const imported = (element.propertyName ?? element.name).text;
          if (imported.startsWith('_') || imported.startsWith('~')) {
            report(sourceFile, element, `import of '${imported}' from '${node.moduleSpecifier.text}' (a dependency's internal)`);
          }
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
}

for (const config of TSCONFIGS) {
  const configPath = path.join(root, config);
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath));
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true } });
  const checker = program.getTypeChecker();
  for (const sourceFile of program.getSourceFiles()) {
    if (sourceFile.isDeclarationFile || inNodeModules(sourceFile.fileName)) continue;
    if (!SCANNED.test(relative(sourceFile.fileName))) continue;
    scan(checker, sourceFile);
  }
}

let failed = 0;
for (const [, entries] of [...findings].sort(([a], [b]) => a.localeCompare(b))) {
  for (const entry of entries) console.error(entry);
  failed += entries.length;
}
if (failed > 0) {
  console.error(`dependency internals: ${failed} problem(s)`);
  process.exit(1);
}
console.log('dependency internals: none');
