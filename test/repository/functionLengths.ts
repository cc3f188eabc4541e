/**
 * functionLengths: the functions of a TypeScript source and how many lines each spans, found by
 * a bracket scanner. The TypeScript the repository pins (7, a native compiler) has no JavaScript
 * parser API, so this reads the text itself: comments, strings, template text and regular
 * expressions are blanked first, so the brackets left are the code's; then every block or
 * bracketed expression that a function header opens (`function`, an arrow, a method, an
 * accessor, a constructor) is one function, from its header's line to its closing bracket's.
 */

/** FunctionSpan: one function, where it starts (1-based) and how many lines it spans. */
export interface FunctionSpan {
  readonly name: string;
  readonly line: number;
  readonly lines: number;
}

/** REGEX_AFTER: the last code character (or keyword) after which a `/` starts a regular expression, not a division. */
const REGEX_AFTER = /^([(,=:[!&|?{};+\-*%<>~^]|return|typeof|case|)$/;

/** blank: the text with everything but newlines turned to spaces, so lines keep their numbers. */
const blank = (text: string): string => text.replace(/[^\n]/g, ' ');

/** endOfQuoted: the index just past the string literal that opens at `start`. */
const endOfQuoted = (text: string, start: number): number => {
  const quote = text[start];
  let index = start + 1;
  while (index < text.length && text[index] !== quote && text[index] !== '\n') index += text[index] === '\\' ? 2 : 1;
  return index + 1;
};

/** endOfTemplateText: the index just past the template text starting at `start`, and whether a `${` (not the closing backtick) ended it. */
const endOfTemplateText = (text: string, start: number): { end: number; opensSubstitution: boolean } => {
  let index = start;
  while (index < text.length) {
    if (text[index] === '\\') index += 2;
    else if (text[index] === '`') return { end: index + 1, opensSubstitution: false };
    else if (text[index] === '$' && text[index + 1] === '{') return { end: index + 2, opensSubstitution: true };
    else index += 1;
  }
  return { end: index, opensSubstitution: false };
};

/** endOfRegex: the index just past the regular expression literal (and its flags) that opens at `start`. */
const endOfRegex = (text: string, start: number): number => {
  let index = start + 1;
  let inClass = false;
  while (index < text.length && text[index] !== '\n') {
    const char = text[index];
    if (char === '\\') index += 1;
    else if (char === '[') inClass = true;
    else if (char === ']') inClass = false;
    else if (char === '/' && !inClass) break;
    index += 1;
  }
  index += 1;
  while (index < text.length && /[a-z]/.test(text[index] ?? '')) index += 1;
  return index;
};

/** maskedSource: `text` with comments, strings, template text and regular expressions blanked; brackets and line breaks kept. */
export const maskedSource = (text: string): string => {
  let out = '';
  let index = 0;
  let last = '';
  // The word being read, to tell `return /re/` from `a / b`.
  let word = '';
  // For each open `${`, the depth of braces at which its closing `}` resumes the template text.
  const substitutions: number[] = [];
  let depth = 0;
  const take = (end: number, keep: (part: string) => string): void => {
    out += keep(text.slice(index, end));
    index = end;
    last = 'x';
    word = '';
  };
  while (index < text.length) {
    const char = text[index] ?? '';
    const next = text[index + 1];
    if (char === '/' && next === '/') {
      const end = text.indexOf('\n', index);
      take(end < 0 ? text.length : end, blank);
    } else if (char === '/' && next === '*') {
      take(text.indexOf('*/', index + 2) + 2, blank);
    } else if (char === '"' || char === "'") {
      take(endOfQuoted(text, index), (part) => `${char}${blank(part.slice(1, -1))}${char}`);
    } else if (char === '`' || (char === '}' && substitutions.at(-1) === depth)) {
      if (char === '}') substitutions.pop();
      const { end, opensSubstitution } = endOfTemplateText(text, index + 1);
      if (opensSubstitution) substitutions.push(depth);
      take(end, blank);
    } else if (char === '/' && REGEX_AFTER.test(last)) {
      take(endOfRegex(text, index), blank);
    } else {
      if (char === '{') depth += 1;
      else if (char === '}') depth -= 1;
      out += char;
      index += 1;
      if (/\w/.test(char)) {
        word += char;
        last = REGEX_AFTER.test(word) ? word : 'x';
      } else {
        word = '';
        if (!/\s/.test(char)) last = char;
      }
    }
  }
  return out;
};

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
  const lines = maskedSource(text).split('\n');
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
