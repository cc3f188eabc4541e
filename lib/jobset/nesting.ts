/**
 * How deeply YAML nests, measured before it is composed. The yaml package composes a document
 * (and toJS converts it) by recursion, one call per level: some 700 levels of `[[[…` or of
 * indented mappings overflow the call stack, and its "Maximum call stack size exceeded" is all
 * the user would see. Its lexer and CST parser keep their own stack instead, so they can
 * measure the depth of any input and stop as soon as it passes the limit.
 */
import { CST, Lexer, Parser } from 'yaml';

/**
 * MAX_YAML_NESTING: the most lists and mappings inside each other Lineup reads. A JobSet needs
 * about 15 (the shipped examples at most 13); well below where the composer's recursion fails.
 */
export const MAX_YAML_NESTING = 100;

/** Where the text first nests deeper than the limit (1-based). */
export interface NestingPosition {
  readonly line: number;
  readonly column: number;
}

// CST node types that hold other nodes: each one open is a level.
const COLLECTIONS: ReadonlySet<string> = new Set(['block-map', 'block-seq', 'flow-collection']);

// Lexemes the lexer inserts that are not in the text (the parser does not count them either).
const MARKERS: ReadonlySet<string | null> = new Set(['doc-mode', 'flow-error-end', 'scalar']);

/** drain: runs a generator for its effect on the parser; the tokens themselves are not needed here. */
const drain = (tokens: Iterable<unknown>): void => {
  for (const token of tokens) void token;
};

/** positionAt: the line and column of a character offset. */
const positionAt = (text: string, offset: number): NestingPosition => {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
};

/**
 * tooDeeplyNested: where `text` (a YAML stream, any number of documents) first holds more than
 * `limit` lists and mappings inside each other, or undefined when it never does. Reads the text
 * once, without recursion and without composing it; stops at the first level too many.
 * @example tooDeeplyNested('['.repeat(101)) // { line: 1, column: 101 }
 */
export const tooDeeplyNested = (text: string, limit: number = MAX_YAML_NESTING): NestingPosition | undefined => {
  const parser = new Parser();
  let offset = 0;
  for (const lexeme of new Lexer().lex(text)) {
    drain(parser.next(lexeme));
    let depth = 0;
    for (const token of parser.stack) if (COLLECTIONS.has(token.type)) depth++;
    if (depth > limit) return positionAt(text, offset);
    if (!MARKERS.has(CST.tokenType(lexeme))) offset += lexeme.length;
  }
  return undefined;
};
