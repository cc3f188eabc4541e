/**
 * Reading JobSets from text (CLI input): YAML with one or more documents, as people write
 * manifests: JobSets (jobset.x-k8s.io/v1alpha2, fitting JobSetSchema) beside other kinds (a
 * Workload, a PodGroup, RBAC), which are skipped and named.
 *
 * Outcomes are kept apart because callers act differently on them: `unusable` input is not
 * readable as manifests (unreadable, not YAML, nested too deeply, a document without kind and apiVersion, a JobSet
 * of another apiVersion) or holds no JobSet at all (`lineup validate` exits 2), a `skipped`
 * document is an object of another kind, an `invalid` document is a JobSet that breaks a schema
 * rule (an unknown dependsOn status, a string where a number belongs; exit 1, like a validation
 * error), and a `loaded` one goes on to applyDefaults and validateJobSet.
 */
import { parseAllDocuments } from 'yaml';
import { JOBSET_API_VERSION, JOBSET_KIND } from './api.ts';
import type { FieldError } from '../errors.ts';
import { describeValue, errorDetail, zodIssuesToFieldErrors } from './issues.ts';
import { MAX_YAML_NESTING, tooDeeplyNested } from './nesting.ts';
import { JobSetSchema } from './schema.ts';
import type { JobSet } from './schema.ts';
import { isObject } from '../json.ts';

/** LoadMessage: why a file given to the CLI holds no usable JobSet (exit 2). */
export const LoadMessage = {
  unreadable: (detail: string): string => `cannot read file: ${detail}`,
  noDocument: 'no JobSet found: the file holds no YAML document',
  notYaml: (detail: string): string => `not valid YAML: ${detail}`,
  tooDeep: (limit: number, line: number, column: number): string =>
    `document nested too deeply: more than ${limit} levels of lists and mappings at line ${line}, column ${column}, expected at most ${limit}`,
  notAMapping: (seen: string): string => `not a JobSet: the document is ${seen}, expected a mapping with kind: ${JOBSET_KIND}`,
  wrongKind: (seen: string): string => `not a JobSet: kind is ${seen}, expected ${JOBSET_KIND}`,
  skipped: (label: string, apiVersion: string): string => `skipped ${label} (${apiVersion}): not a ${JOBSET_KIND}`,
  onlyOtherKinds: (skipped: readonly string[]): string =>
    `no JobSet found: the file holds only ${skipped.join(', ')}, expected at least one document with kind: ${JOBSET_KIND}`,
  wrongApiVersion: (seen: string): string => `not a JobSet: apiVersion is ${seen}, expected ${JOBSET_API_VERSION}`,
} as const;

/** What became of one YAML document (or, for `unusable` with no document number, of the whole file). */
export type LoadedDocument =
  | { readonly outcome: 'loaded'; readonly document: number; readonly line: number; readonly jobSet: JobSet }
  | {
      readonly outcome: 'invalid';
      readonly document: number;
      readonly line: number;
      /** metadata.name when the document has one, to say which JobSet is meant. */
      readonly name: string | undefined;
      readonly errors: readonly FieldError[];
    }
  /** An object of another kind, left alone; kind and apiVersion are non-empty strings. */
  | { readonly outcome: 'skipped'; readonly document: number; readonly line: number; readonly kind: string; readonly apiVersion: string; readonly name: string | undefined }
  | { readonly outcome: 'unusable'; readonly document: number | undefined; readonly line: number | undefined; readonly message: string };

/** The outcome of one document, from best to worst. */
export type LoadOutcome = LoadedDocument['outcome'];

/**
 * LoadResult: every non-empty document of a file in order (document numbers count from 1 and
 * include empty documents, so they match the file). A file without any JobSet (no document, or
 * only other kinds), or one that cannot be read, yields a single `unusable` entry without a
 * document number.
 */
export interface LoadResult {
  readonly file: string;
  readonly documents: readonly LoadedDocument[];
}

const OUTCOME_RANK: Readonly<Record<LoadOutcome, number>> = { loaded: 0, skipped: 0, invalid: 1, unusable: 2 };

/** worstOutcome: the worst outcome of any document of the file, which decides the exit code. */
export const worstOutcome = (result: LoadResult): LoadOutcome =>
  result.documents.reduce<LoadOutcome>((worst, doc) => (OUTCOME_RANK[doc.outcome] > OUTCOME_RANK[worst] ? doc.outcome : worst), 'loaded');

/** loadedJobSets: the JobSets of the documents that loaded. */
export const loadedJobSets = (result: LoadResult): JobSet[] =>
  result.documents.flatMap((doc) => (doc.outcome === 'loaded' ? [doc.jobSet] : []));

/** shown: a field's value as a message shows it; a plain string as is. */
const shown = (value: unknown): string => (value === undefined ? 'missing' : typeof value === 'string' ? value : describeValue(value));

/** lineAt: the 1-based line of a character offset. */
const lineAt = (text: string, offset: number): number => {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
};

/** classify: a parsed document's value as a loaded JobSet, an invalid one, or not a JobSet at all. */
const classify = (value: unknown, document: number, line: number): LoadedDocument => {
  if (!isObject(value)) return { outcome: 'unusable', document, line, message: LoadMessage.notAMapping(describeValue(value)) };
  if (value.kind !== JOBSET_KIND) {
    const { kind, apiVersion, metadata } = value;
    // Another kind of object, as multi-document manifests hold beside their JobSets.
    if (typeof kind === 'string' && kind !== '' && typeof apiVersion === 'string' && apiVersion !== '') {
      const name = isObject(metadata) && typeof metadata.name === 'string' ? metadata.name : undefined;
      return { outcome: 'skipped', document, line, kind, apiVersion, name };
    }
    return { outcome: 'unusable', document, line, message: LoadMessage.wrongKind(shown(value.kind)) };
  }
  if (value.apiVersion !== JOBSET_API_VERSION) return { outcome: 'unusable', document, line, message: LoadMessage.wrongApiVersion(shown(value.apiVersion)) };
  const parsed = JobSetSchema.safeParse(value, { reportInput: true });
  if (parsed.success) return { outcome: 'loaded', document, line, jobSet: parsed.data };
  const metadata = value.metadata;
  const name = isObject(metadata) && typeof metadata.name === 'string' ? metadata.name : undefined;
  return { outcome: 'invalid', document, line, name, errors: zodIssuesToFieldErrors(parsed.error.issues) };
};

/** skippedLabel: how a skipped document is named: `Workload gang-training` (its kind, and its name when it has one). */
export const skippedLabel = (doc: Extract<LoadedDocument, { outcome: 'skipped' }>): string => (doc.name ? `${doc.kind} ${doc.name}` : doc.kind);

/**
 * skippedNotes: one line per skipped document of the file, `FILE: document N (line L): skipped
 * Workload gang (scheduling.k8s.io/v1alpha1): not a JobSet`, for the CLI commands to print.
 */
export const skippedNotes = (result: LoadResult): string[] =>
  result.documents.flatMap((doc) =>
    doc.outcome === 'skipped' ? [`${result.file}: document ${doc.document} (line ${doc.line}): ${LoadMessage.skipped(skippedLabel(doc), doc.apiVersion)}`] : [],
  );

/**
 * loadJobSets: every JobSet in `text`, a YAML stream of one or more documents; empty
 * documents are skipped. `file` only labels the result.
 * @example worstOutcome(loadJobSets(readFileSync(f, 'utf8'), f)) // 'loaded' | 'invalid' | 'unusable'
 */
export const loadJobSets = (text: string, file: string): LoadResult => {
  // Measured first: composing a document nested hundreds of levels deep overflows the call stack.
  const tooDeep = tooDeeplyNested(text);
  if (tooDeep !== undefined) {
    return { file, documents: [{ outcome: 'unusable', document: undefined, line: undefined, message: LoadMessage.tooDeep(MAX_YAML_NESTING, tooDeep.line, tooDeep.column) }] };
  }
  const documents: LoadedDocument[] = [];
  parseAllDocuments(text).forEach((doc, index) => {
    const document = index + 1;
    const line = lineAt(text, doc.range[0]);
    if (doc.errors.length > 0) {
      documents.push({ outcome: 'unusable', document, line, message: LoadMessage.notYaml(doc.errors.map(errorDetail).join('; ')) });
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS();
    } catch (error) {
      // e.g. an alias to an anchor that does not exist.
      documents.push({ outcome: 'unusable', document, line, message: LoadMessage.notYaml(errorDetail(error)) });
      return;
    }
    // A document with nothing but comments, or a bare `---`, holds nothing to load.
    if (value === null || value === undefined) return;
    documents.push(classify(value, document, line));
  });
  if (documents.length === 0) return { file, documents: [{ outcome: 'unusable', document: undefined, line: undefined, message: LoadMessage.noDocument }] };
  const skipped = documents.flatMap((doc) => (doc.outcome === 'skipped' ? [skippedLabel(doc)] : []));
  if (skipped.length === documents.length) return { file, documents: [{ outcome: 'unusable', document: undefined, line: undefined, message: LoadMessage.onlyOtherKinds(skipped) }] };
  return { file, documents };
};

// Node's error codes for the usual reasons a file cannot be read, in plain words.
const READ_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
};

/** readErrorDetail: why a file could not be read, in a few words (`no such file`), for any file the CLI reads. */
export const readErrorDetail = (error: unknown): string => {
  const code = error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  return (code && READ_ERRORS[code]) ?? errorDetail(error);
};

/**
 * readJobSetFile: loadJobSets on a file's content, read with the given function (never fs
 * directly, so callers and tests choose where files come from); a file that cannot be read is
 * `unusable`.
 * @example readJobSetFile('js.yaml', (path) => readFileSync(path, 'utf8'))
 */
export const readJobSetFile = (file: string, readFile: (path: string) => string): LoadResult => {
  let text: string;
  try {
    text = readFile(file);
  } catch (error) {
    return { file, documents: [{ outcome: 'unusable', document: undefined, line: undefined, message: LoadMessage.unreadable(readErrorDetail(error)) }] };
  }
  return loadJobSets(text, file);
};
