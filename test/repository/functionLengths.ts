/**
 * functionLengths: the functions of a TypeScript source and how many lines each spans, found by
 * a bracket scanner over the code `test/repository/sourceScanner.ts` leaves (comments, strings,
 * template text and regular expressions blanked), so the brackets left are the code's; then every block or
 * bracketed expression that a function header opens (`function`, an arrow, a method, an
 * accessor, a constructor) is one function, from its header's line to its closing bracket's.
 */
import { scanSource } from './sourceScanner.ts';

/** FunctionSpan: one function, where it starts (1-based) and how many lines it spans. */
export interface FunctionSpan {
  readonly name: string;
  readonly line: number;
  readonly lines: number;
}

/** HEADER_LINES: how many lines above its opening bracket a function's header may start (parameters on lines of their own). */
const HEADER_LINES = 8;

/** Where a function's name is written in the header line that starts it, tried in order. */
const NAME_PATTERNS: readonly RegExp[] = [
  /(?:const|let|var)\s+(\w+)\s*(?::[^=]*)?=/,
  /function\s*\*?\s*(\w+)/,
  /^\s*(?:(?:public|private|protected|static|async|readonly|override|get|set)\s+)*(\w+)\s*(?:<[^>]*>)?\(/,
  /(\w+)\s*:\s*(?:async\s*)?(?:\(|function)/,
  /(\w+)\s*\(/,
];

/** STATEMENT_KEYWORDS: words before a parenthesis that open a statement's block, not a function's. */
const STATEMENT_KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with']);

/** headerOf: the name and first line of the function whose body opens at (line, column), or undefined when no function opens it. */
const headerOf = (lines: readonly string[], line: number, column: number, bracket: string): { name: string; line: number } | undefined => {
  const before = lines[line]?.slice(0, column) ?? '';
  const context = [...lines.slice(Math.max(0, line - HEADER_LINES), line), before].join('\n');
  const isArrow = /=>\s*$/.test(context);
  if (bracket !== '{' && !isArrow) return undefined;
  if (!isArrow) {
    // A block is a function body when a parameter list (and perhaps a return type) comes just before it.
    if (!/\)\s*(:\s*[^{};=]+)?\s*$/.test(context)) return undefined;
    if (/\b(if|for|while|switch|catch|with)\s*\(/.test(before)) return undefined;
  }
  for (let index = line; index >= Math.max(0, line - HEADER_LINES); index -= 1) {
    const text = index === line ? before : (lines[index] ?? '');
    for (const pattern of NAME_PATTERNS) {
      const match = pattern.exec(text);
      if (match === null) continue;
      const name = match[1] ?? '(anonymous)';
      // `if (a) {`, or a condition over several lines: the block of a statement.
      return !isArrow && STATEMENT_KEYWORDS.has(name) ? undefined : { name, line: index };
    }
  }
  return { name: '(anonymous)', line };
};

/** functionSpans: every function in `text` (nested ones too), in the order their bodies close. */
export const functionSpans = (text: string): FunctionSpan[] => {
  const lines = scanSource(text).code.split('\n');
  const open: ({ name: string; line: number } | undefined)[] = [];
  const spans: FunctionSpan[] = [];
  lines.forEach((line, lineIndex) => {
    for (let column = 0; column < line.length; column += 1) {
      const char = line[column] ?? '';
      if (char === '{' || char === '(' || char === '[') open.push(headerOf(lines, lineIndex, column, char));
      else if (char === '}' || char === ')' || char === ']') {
        const header = open.pop();
        if (header !== undefined) spans.push({ name: header.name, line: header.line + 1, lines: lineIndex - header.line + 1 });
      }
    }
  });
  return spans;
};
