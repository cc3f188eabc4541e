/** The CLI's window on the world, passed in so commands are testable without a process. */
export interface CliIo {
  /** Write to standard output (text as given; add your own newlines). */
  readonly stdout: (text: string) => void;
  /** Write to standard error. */
  readonly stderr: (text: string) => void;
  /** Read a file as UTF-8 text; throws like fs.readFileSync when it cannot. */
  readonly readFile: (path: string) => string;
}

/** Exit codes shared by every command (each command's --help lists its own; the README's Commands section). */
export const ExitCode = {
  Ok: 0,
  /** validate: the JobSet is invalid; simulate: the JobSet was rejected. */
  Invalid: 1,
  /** Unusable input: unparseable, not a JobSet, bad flags. */
  Usage: 2,
} as const;
