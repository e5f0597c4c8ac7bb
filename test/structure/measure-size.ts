/**
 * Measures the size of source files and of every function in them with the TypeScript compiler:
 * function declarations and expressions, arrow functions, methods, constructors and accessors,
 * closures included (a closure counts in its own right and inside the function that holds it).
 * A function's size is the number of lines from its first token to its last, comments inside
 * included; a file's size is its number of lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface FunctionSize {
  /** Enclosing named functions and classes, outermost first, joined by `>`: `createLocalBus>deliver`. */
  readonly name: string;
  readonly line: number;
  readonly lines: number;
}

export interface FileSize {
  readonly path: string;
  readonly lines: number;
  readonly functions: readonly FunctionSize[];
}

function lineCount(text: string): number {
  if (text.length === 0) return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

function nameOf(node: ts.Node, source: ts.SourceFile): string | undefined {
  const named = node as { name?: ts.Node };
  if (named.name && !ts.isComputedPropertyName(named.name)) return named.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  ) {
    return parent.name.getText(source);
  }
  return undefined;
}

function isMeasured(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    (ts.isFunctionDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node)) &&
    node.body !== undefined
  );
}

/** Every function in one source text, with its qualified name and size. */
export function measureSource(path: string, text: string): FileSize {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const functions: FunctionSize[] = [];
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node, scope: readonly string[]) => {
    let inner = scope;
    if (ts.isClassLike(node) && node.name) inner = [...scope, node.name.text];
    if (isMeasured(node)) {
      const line = lineOf(node.getStart(source));
      inner = [...scope, nameOf(node, source) ?? `(anonymous:${line})`];
      functions.push({ name: inner.join('>'), line, lines: lineOf(node.getEnd()) - line + 1 });
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, []);
  return { path, lines: lineCount(text), functions };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every `.ts` file under the given folders of `root`, with paths relative to `root`. */
export function measureTree(root: string, folders: readonly string[]): FileSize[] {
  return folders
    .flatMap((folder) => sourceFiles(join(root, folder)))
    .map((path) => measureSource(relative(root, path).split('\\').join('/'), readFileSync(path, 'utf8')))
    .sort((a, b) => a.path.localeCompare(b.path));
}
