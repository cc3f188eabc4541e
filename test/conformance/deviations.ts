/**
 * The table of where Lineup differs from upstream, and why: the rows a verdict of the
 * differential comparison may quote. Read in this one place, so that moving the table to another
 * document changes one path.
 */
import { readFileSync } from 'node:fs';
import { repoPath } from '../repoFiles.ts';

/** DEVIATIONS_FILE: the document holding the table. */
const DEVIATIONS_FILE = 'docs/conformance.md';
/** DEVIATIONS_HEADING: the heading the table follows. */
const DEVIATIONS_HEADING = '## Where Lineup differs from upstream, and why';

/** deviationRows: the table's rows, each as its upstream cell (backticks removed), in table order. */
export const deviationRows = (): string[] => {
  const text = readFileSync(repoPath(DEVIATIONS_FILE), 'utf8');
  const start = text.indexOf(DEVIATIONS_HEADING);
  if (start < 0) throw new Error(`${DEVIATIONS_FILE} has no heading "${DEVIATIONS_HEADING}"`);
  const lines = text.slice(start).split('\n').slice(1);
  const table = lines.slice(lines.findIndex((line) => line.startsWith('|')));
  const end = table.findIndex((line) => !line.startsWith('|'));
  const rows = end < 0 ? table : table.slice(0, end);
  return rows.slice(2).map((row) => (row.split(' | ')[0] ?? '').replace(/^\| /, '').replaceAll('`', ''));
};

/** quotedRows: the rows a verdict's text quotes as deviation "…". */
export const quotedRows = (why: string): string[] => [...why.matchAll(/deviation "([^"]+)"/g)].map((match) => match[1] ?? '');
