/**
 * The local state directory (`--state-dir`, `.lineup` by default): where `lineup run` and
 * `lineup demo --state-dir` keep leases, bookmarks, the registry and the journal, and what
 * `history`, `export`, `replay` and `clusters` read. It holds:
 * - `lineup.db`: the SQLite state database (lib/store/sqliteStore.ts), with `lineup.db-wal` and
 *   `lineup.db-shm` beside it while a writer has it open or after a writer was killed;
 * - `lineup.lock`: while a writer runs, its pid, command and start time.
 *
 * The rules (docs/state-directory.md):
 * - one writer at a time: a second is refused, naming the first (a lock whose pid is gone is
 *   stale and taken over: the writer was killed);
 * - readers need no lock, open the database read-only, and see what the writer committed;
 * - reading never writes: a reader creates, changes and removes nothing;
 * - a damaged database is reported (one line naming the file) and left as it was;
 * - a command that is refused leaves nothing behind that it created.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { StateDirError } from '../errors.ts';
import type { Counters } from '../counters.ts';
import { DatabaseProblem, SqliteCheckpointStore, openStateDatabase, type StateDatabase } from '../store/sqliteStore.ts';

/** JournalSourceMessage: the one line history, export and replay print when the journal's source is unusable (exit 2). */
export const JournalSourceMessage = {
  noState: (command: string, stateDir: string): string => `${command}: no state in ${stateDir}: expected the --state-dir of a lineup run or lineup demo`,
  bothSources: (command: string, stateDir: string, table: string): string =>
    `${command}: --state-dir ${stateDir} and --table ${table} both given: expected one (a local state directory or the deployed table)`,
  noRegion: (command: string, table: string): string => `${command}: --table ${table} without --region: expected the table's AWS region`,
  regionWithoutTable: (command: string, region: string): string => `${command}: --region ${region} without --table: expected --table NAME (stack output TableName) with it`,
  tableWhere: (table: string, region: string): string => `table ${table} (${region})`,
  tableFailed: (command: string, where: string, detail: string): string => `${command}: reading ${where} failed: ${detail}`,
} as const;

/** The state database's file name in a state directory. */
export const STATE_FILE = 'lineup.db';
/** The writer's lock file in a state directory. */
export const LOCK_FILE = 'lineup.lock';
/** Where Lineup kept state before the SQLite database (an embedded DynamoDB-API server's LevelDB). */
export const LEGACY_STATE_DIR = 'dynamo';

/** What a writer's lock file says. */
export interface StateDirLock {
  readonly pid: number;
  readonly command: string;
  /** ISO 8601. */
  readonly startedAt: string;
}

/** An open state directory: its store, and close (which releases a writer's lock). */
export interface OpenStateDir {
  readonly store: SqliteCheckpointStore;
  /** The open database, for a host that builds its own store over it (counted in its own counters). */
  readonly database: StateDatabase;
  /** Whether the state database already existed (a writer may have just created it). */
  readonly existed: boolean;
  close(): void;
}

/** StateDirMessage: the one line of each way a state directory can be unusable (exit 2). */
export const StateDirMessage = {
  noState: JournalSourceMessage.noState,
  notDirectory: (command: string, stateDir: string): string => `${command}: --state-dir ${stateDir} is not a directory: expected a directory (a new one, or one lineup run or lineup demo kept)`,
  cannotCreate: (command: string, stateDir: string, reason: string): string => `${command}: cannot create --state-dir ${stateDir}: ${reason}`,
  cannotWrite: (command: string, stateDir: string, reason: string): string => `${command}: cannot write in --state-dir ${stateDir}: ${reason}`,
  cannotRead: (command: string, stateDir: string, reason: string): string => `${command}: cannot read --state-dir ${stateDir}: ${reason}`,
  inUse: (command: string, stateDir: string, lock: StateDirLock): string =>
    `${command}: ${stateDir} is in use by ${lock.command} (pid ${lock.pid}) since ${lock.startedAt}: expected one writer at a time (stop it, or use another --state-dir)`,
  damaged: (command: string, file: string, problem: string): string =>
    `${command}: ${file} is ${problem}; it was left as it was: move it aside to start afresh, or restore it from a copy`,
  legacy: (command: string, stateDir: string): string =>
    `${command}: ${stateDir} holds state in an earlier Lineup's format (${join(stateDir, LEGACY_STATE_DIR)}, LevelDB), which this Lineup does not read: move it aside to start afresh`,
} as const;

/** reasonOf: a file-system error as a few words. */
const reasonOf = (error: unknown): string => {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOTDIR':
      return 'a part of the path is a file';
    case 'ENOENT':
      return 'no such file or directory';
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return (error as Error).message;
  }
};

/** kindOf: what is at `path`: absent, a directory, or something else. */
const kindOf = (command: string, stateDir: string, path: string): 'absent' | 'directory' | 'other' => {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return 'absent';
    return stat.isDirectory() ? 'directory' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return 'other';
    throw new StateDirError(StateDirMessage.cannotRead(command, stateDir, reasonOf(error)), { cause: error });
  }
};

/**
 * checkStateDirForWriting: what openStateDirForWriting would refuse of the directory as it is now —
 * a path that is not a directory, another writer's lock, a damaged database, an earlier format —
 * found by reading only, creating nothing. For a writer to check before slower work that may fail
 * (`lineup run` contacting its cluster), so its refusal comes first and leaves nothing behind.
 */
export const checkStateDirForWriting = (stateDir: string, command: string): void => {
  if (surveyForWriting(stateDir, command).existed) openStateDirForReading(stateDir, command).close();
};

/**
 * surveyForWriting: refuse what no writer may use — a path that is not a directory, a directory
 * another writer holds (the first thing to say: whatever else is wrong is that writer's to
 * change), an earlier Lineup's state without a database — reading only; then what is there.
 */
const surveyForWriting = (stateDir: string, command: string): { readonly kind: 'absent' | 'directory'; readonly existed: boolean } => {
  const kind = kindOf(command, stateDir, stateDir);
  if (kind === 'other') throw new StateDirError(StateDirMessage.notDirectory(command, stateDir));
  if (kind === 'absent') return { kind, existed: false };
  const holder = readStateDirLock(stateDir);
  if (holder !== undefined) throw new StateDirError(StateDirMessage.inUse(command, stateDir, holder));
  const existed = kindOf(command, stateDir, join(stateDir, STATE_FILE)) !== 'absent';
  if (!existed && kindOf(command, stateDir, join(stateDir, LEGACY_STATE_DIR)) === 'directory') throw new StateDirError(StateDirMessage.legacy(command, stateDir));
  return { kind, existed };
};

/**
 * readStateDirLock: the lock of a writer that is still running, if any. A lock whose pid is gone
 * (the writer was killed) or that does not parse (it was killed while writing it) is stale.
 */
export const readStateDirLock = (stateDir: string): StateDirLock | undefined => {
  let text: string;
  try {
    text = readFileSync(join(stateDir, LOCK_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let lock: StateDirLock;
  try {
    const parsed = JSON.parse(text) as Partial<StateDirLock>;
    if (typeof parsed.pid !== 'number' || typeof parsed.command !== 'string' || typeof parsed.startedAt !== 'string') return undefined;
    lock = { pid: parsed.pid, command: parsed.command, startedAt: parsed.startedAt };
  } catch {
    // A lock that is not JSON was cut short by the writer's death: stale.
    return undefined;
  }
  return processIsAlive(lock.pid) ? lock : undefined;
};

/** processIsAlive: whether a process of that pid exists (EPERM: it does, but is another user's). */
const processIsAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * openStateDirForReading: the state database of `stateDir`, read-only. Creates, changes and
 * removes nothing; a missing directory or database, a damaged database or an earlier format is a
 * StateDirError with one line.
 */
export const openStateDirForReading = (stateDir: string, command: string, counters?: Counters): OpenStateDir => {
  const kind = kindOf(command, stateDir, stateDir);
  if (kind === 'other') throw new StateDirError(StateDirMessage.notDirectory(command, stateDir));
  const file = join(stateDir, STATE_FILE);
  if (kind === 'absent' || kindOf(command, stateDir, file) === 'absent') {
    if (kind === 'directory' && kindOf(command, stateDir, join(stateDir, LEGACY_STATE_DIR)) === 'directory') throw new StateDirError(StateDirMessage.legacy(command, stateDir));
    throw new StateDirError(StateDirMessage.noState(command, stateDir));
  }
  const database = openChecked(command, file, { readOnly: true, exists: true });
  return { store: new SqliteCheckpointStore(database, { counters }), database, existed: true, close: () => database.close() };
};

/** WriterOptions: who writes, and what it requires of the directory. */
export interface WriterOptions {
  /** The command, as the lock names it to a second writer (`lineup run`). */
  readonly command: string;
  readonly counters?: Counters | undefined;
  /** A refusal message when the directory already holds state (the demo starts a new simulated cluster). */
  readonly requireNew?: ((stateDir: string) => string) | undefined;
  /** Refuse a directory without state instead of creating it (`clusters add` edits a kept registry). */
  readonly requireExisting?: boolean | undefined;
}

/**
 * openStateDirForWriting: take `stateDir` for this process: create it when missing, take the
 * writer's lock (refused, naming the holder, while another writer runs), check an existing
 * database before writing to it, and open it read-write. close() closes the database and
 * releases the lock. Every refusal is a StateDirError, and removes what this call created.
 */
export const openStateDirForWriting = (stateDir: string, options: WriterOptions): OpenStateDir => {
  const { command } = options;
  const { kind, existed } = surveyForWriting(stateDir, command);
  if (options.requireExisting === true && !existed) throw new StateDirError(StateDirMessage.noState(command, stateDir));
  let created: string | undefined;
  if (kind === 'absent') {
    try {
      created = makeDirectories(stateDir);
    } catch (error) {
      throw new StateDirError(StateDirMessage.cannotCreate(command, stateDir, reasonOf(error)), { cause: error });
    }
  }
  const undo = (): void => {
    if (created !== undefined) rmSync(created, { recursive: true, force: true });
  };
  let lockTaken = false;
  try {
    takeLock(stateDir, command);
    lockTaken = true;
    const file = join(stateDir, STATE_FILE);
    if (existed && options.requireNew !== undefined) {
      // A damaged database is the news, not that it holds state.
      openChecked(command, file, { readOnly: true, exists: true }).close();
      throw new StateDirError(options.requireNew(stateDir));
    }
    const database = openChecked(command, file, { readOnly: false, exists: existed });
    return {
      store: new SqliteCheckpointStore(database, { counters: options.counters }),
      database,
      existed,
      close: () => {
        try {
          database.close();
        } finally {
          releaseLock(stateDir);
        }
      },
    };
  } catch (error) {
    if (lockTaken) releaseLock(stateDir);
    undo();
    throw error;
  }
};

/**
 * makeDirectories: `mkdir -p`, returning the first directory it created. Not mkdirSync's
 * `recursive`: where the parent refuses with ENOENT although it exists (under /proc), Node's
 * recursive mkdir retries for ever; one level at a time, the refusal comes back at once.
 */
const makeDirectories = (path: string): string => {
  const missing: string[] = [];
  for (let dir = resolve(path); !existsSync(dir); dir = dirname(dir)) missing.unshift(dir);
  for (const dir of missing) mkdirSync(dir);
  return missing[0] ?? resolve(path);
};

/** openChecked: openStateDatabase, its DatabaseProblem as the one line naming the file. */
const openChecked = (command: string, file: string, options: { readonly readOnly: boolean; readonly exists: boolean }): StateDatabase => {
  try {
    return openStateDatabase(file, options);
  } catch (error) {
    if (error instanceof DatabaseProblem) throw new StateDirError(StateDirMessage.damaged(command, file, error.message), { cause: error });
    throw error;
  }
};

/**
 * takeLock: create the lock file exclusively (O_EXCL), with this process's pid, command and
 * start time; a live holder's lock is a StateDirError naming it, a stale one is replaced. Two
 * writers starting together over a stale lock could both replace it; SQLite's own locking still
 * keeps the database whole then, and the window is the few microseconds between read and unlink.
 */
const takeLock = (stateDir: string, command: string): void => {
  const path = join(stateDir, LOCK_FILE);
  const lock: StateDirLock = { pid: process.pid, command, startedAt: new Date().toISOString() };
  for (let attempt = 1; ; attempt += 1) {
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw new StateDirError(StateDirMessage.cannotWrite(command, stateDir, reasonOf(error)), { cause: error });
      const holder = readStateDirLock(stateDir);
      if (holder !== undefined) throw new StateDirError(StateDirMessage.inUse(command, stateDir, holder));
      if (attempt > 1) throw new StateDirError(StateDirMessage.cannotWrite(command, stateDir, `its lock ${path} keeps coming back`));
      unlinkSync(path);
      continue;
    }
    try {
      writeSync(fd, `${JSON.stringify(lock)}\n`);
    } finally {
      closeSync(fd);
    }
    return;
  }
};

/** releaseLock: remove this process's lock (not another's that replaced a lock this one held as stale). */
const releaseLock = (stateDir: string): void => {
  const path = join(stateDir, LOCK_FILE);
  try {
    const held = JSON.parse(readFileSync(path, 'utf8')) as Partial<StateDirLock>;
    if (held.pid === process.pid) unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
};
