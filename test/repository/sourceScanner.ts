/**
 * A script read as text, its code apart from its comments. The TypeScript the repository pins (7,
 * a native compiler) has no JavaScript parser API, so this lexes what matters itself: comments,
 * string literals, template text and regular expressions. `test/repository/functionLengths.ts`
 * measures functions on the code; `test/repository/references.test.ts` reads citations in the
 * comments.
 */

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

/** ScannedSource: a script's text split in two, each the length of the original with line breaks kept. */
export interface ScannedSource {
  /** The code: comments, strings, template text and regular expressions blanked; brackets and line breaks kept. */
  readonly code: string;
  /** The comments, and nothing else. */
  readonly comments: string;
}

/** scanSource: a script's code and its comments, apart, by a small lexer of JavaScript's literals and comments. */
export const scanSource = (text: string): ScannedSource => {
  let out = '';
  let comments = '';
  let index = 0;
  let last = '';
  // The word being read, to tell `return /re/` from `a / b`.
  let word = '';
  // For each open `${`, the depth of braces at which its closing `}` resumes the template text.
  const substitutions: number[] = [];
  let depth = 0;
  const take = (end: number, keep: (part: string) => string, isComment = false): void => {
    const part = text.slice(index, end);
    out += keep(part);
    comments += isComment ? part : blank(part);
    index = end;
    last = 'x';
    word = '';
  };
  while (index < text.length) {
    const char = text[index] ?? '';
    const next = text[index + 1];
    if (char === '/' && next === '/') {
      const end = text.indexOf('\n', index);
      take(end < 0 ? text.length : end, blank, true);
    } else if (char === '/' && next === '*') {
      take(text.indexOf('*/', index + 2) + 2, blank, true);
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
      comments += blank(char);
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
  return { code: out, comments };
};
