/**
 * `lineup validate FILE…`: check JobSets the way a cluster with the upstream CRD and webhook
 * would on create (load → applyDefaults → validateJobSet), plus Lineup's own rules.
 */
import { applyDefaults } from '../jobset/defaults.ts';
import { readJobSetFile, skippedLabel, LoadMessage } from '../jobset/load.ts';
import { jobSetSize, counted } from '../jobset/size.ts';
import type { LoadedDocument, LoadOutcome } from '../jobset/load.ts';
import { validateJobSet } from '../jobset/validation.ts';
import type { FieldError } from '../errors.ts';
import { KueueMessage, kueueQueueOf } from '../kueue.ts';
import { ExitCode } from './io.ts';
import type { CliIo } from './io.ts';

/** ValidateOutput: the fixed words `lineup validate` prints around FieldErrors. */
export const ValidateOutput = {
  /** After `FILE: ` (and `NAME: ` in a file of several JobSets) when a JobSet has no error: what it makes (lib/jobset/size.ts). */
  valid: (replicatedJobs: number, jobs: number, pods: number): string =>
    `valid: ${counted(replicatedJobs, 'replicatedJob')}, ${counted(jobs, 'Job')}, ${counted(pods, 'Pod')}`,
  /** Usage error: the command was given no file. */
  noFiles: 'lineup validate: expected at least one FILE',
  /** Names a document without metadata.name in a file of several. */
  unnamedDocument: (document: number, line: number | undefined): string => `document ${document} (line ${line ?? '?'})`,
} as const;

// Exit code per outcome; the worst document of all files decides.
const EXIT_BY_OUTCOME: Readonly<Record<LoadOutcome, number>> = {
  loaded: ExitCode.Ok,
  skipped: ExitCode.Ok,
  invalid: ExitCode.Invalid,
  unusable: ExitCode.Usage,
};

/** documentLabel: how a line names a JobSet document of a file that holds several, or '' when it holds one. */
const documentLabel = (doc: LoadedDocument, several: boolean): string => {
  if (!several || doc.document === undefined) return '';
  const name = doc.outcome === 'loaded' ? doc.jobSet.metadata.name : doc.outcome === 'invalid' ? doc.name : undefined;
  return `${name || ValidateOutput.unnamedDocument(doc.document, doc.line)}: `;
};

const errorLines = (prefix: string, errors: readonly FieldError[]): string => errors.map((e) => `${prefix}${e.path}: ${e.message}\n`).join('');

/** reportDocument: prints one document's verdict and returns its outcome (a loaded JobSet with errors counts as invalid). */
const reportDocument = (file: string, doc: LoadedDocument, several: boolean, io: CliIo): LoadOutcome => {
  const prefix = `${file}: ${documentLabel(doc, several)}`;
  switch (doc.outcome) {
    case 'skipped':
      // Said on stderr, like the other notes: stdout keeps one verdict line per JobSet.
      io.stderr(`${file}: ${ValidateOutput.unnamedDocument(doc.document, doc.line)}: ${LoadMessage.skipped(skippedLabel(doc), doc.apiVersion)}\n`);
      return 'skipped';
    case 'unusable':
      io.stderr(`${prefix}${doc.message}\n`);
      return 'unusable';
    case 'invalid':
      io.stdout(errorLines(prefix, doc.errors));
      return 'invalid';
    case 'loaded': {
      const jobSet = applyDefaults(doc.jobSet);
      const errors = validateJobSet(jobSet);
      if (errors.length === 0) {
        const size = jobSetSize(jobSet);
        io.stdout(`${prefix}${ValidateOutput.valid(size.replicatedJobs, size.jobs, size.pods)}\n`);
        const queue = kueueQueueOf(jobSet);
        if (queue !== undefined) io.stderr(`${prefix}${KueueMessage.validateNote(queue)}\n`);
        return 'loaded';
      }
      io.stdout(errorLines(prefix, errors));
      return 'invalid';
    }
  }
};

/**
 * runValidate: `lineup validate FILE…`. For every JobSet prints `FILE: valid: 2 replicatedJobs,
 * 3 Jobs, 7 Pods` (what it makes, lib/jobset/size.ts), or one line
 * `FILE: path: message` per error on stdout; input that is not usable (a file that cannot be
 * read, not YAML, no JobSet in it) is reported as `FILE: message` on stderr, and so is each
 * document of another kind, which is skipped: `FILE: document N (line L): skipped KIND NAME
 * (APIVERSION): not a JobSet`. A file holding
 * several YAML documents prefixes each line with the JobSet's metadata.name (or
 * `document N (line L)` when it has none): `FILE: NAME: path: message`, `FILE: NAME: valid: …`.
 * Every file is checked even after a bad one.
 *
 * Returns the exit code: 0 when every JobSet is valid, 1 when any is invalid (schema or
 * validation), 2 when any input is unusable or no FILE was given (2 wins over 1).
 * @example runValidate(['jobset.yaml'], { stdout, stderr, readFile }) // 0
 */
export const runValidate = (files: readonly string[], io: CliIo): number => {
  if (files.length === 0) {
    io.stderr(`${ValidateOutput.noFiles}\n`);
    return ExitCode.Usage;
  }
  let exitCode: number = ExitCode.Ok;
  for (const file of files) {
    const { documents } = readJobSetFile(file, io.readFile);
    const several = documents.length > 1;
    for (const doc of documents) exitCode = Math.max(exitCode, EXIT_BY_OUTCOME[reportDocument(file, doc, several, io)]);
  }
  return exitCode;
};
