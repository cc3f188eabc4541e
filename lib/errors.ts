/** Error codes callers branch on; never branch on message text. */
export const ErrorCode = {
  INVALID_INPUT: 'INVALID_INPUT',
  INVALID_JOBSET: 'INVALID_JOBSET',
  STALE_RESOURCE_VERSION: 'STALE_RESOURCE_VERSION',
  NOT_FOUND: 'NOT_FOUND',
  SIMULATION_DIVERGED: 'SIMULATION_DIVERGED',
  ALREADY_EXISTS: 'ALREADY_EXISTS',
  FORBIDDEN: 'FORBIDDEN',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  UNAVAILABLE: 'UNAVAILABLE',
  WATCH_EXPIRED: 'WATCH_EXPIRED',
  UNKNOWN_CLUSTER: 'UNKNOWN_CLUSTER',
  INVALID_OBJECT: 'INVALID_OBJECT',
  STORE_INVALID: 'STORE_INVALID',
  ARCHIVE_REPLAY_FAILED: 'ARCHIVE_REPLAY_FAILED',
  STATE_DIR_UNUSABLE: 'STATE_DIR_UNUSABLE',
} as const;
export type ErrorCodeName = (typeof ErrorCode)[keyof typeof ErrorCode];

/** LineupError: the base of every error Lineup raises, with a code to branch on. */
export class LineupError extends Error {
  readonly code: ErrorCodeName;
  constructor(code: ErrorCodeName, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** A single validation finding: where in the object, and what is wrong there. */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

/** InvalidInputError: input that is not what a command expects (unparseable, not a JobSet). */
export class InvalidInputError extends LineupError {
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.INVALID_INPUT, message, options);
  }
}

/** InvalidJobSetError: a JobSet that parses but breaks a validation rule. */
export class InvalidJobSetError extends LineupError {
  readonly errors: readonly FieldError[];
  constructor(errors: readonly FieldError[], options?: ErrorOptions) {
    super(ErrorCode.INVALID_JOBSET, `invalid jobset: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, options);
    this.errors = errors;
  }
}

/** ConflictError: a write was refused because the object changed since it was read. */
export class ConflictError extends LineupError {
  readonly resourceVersion: string | undefined;
  constructor(message: string, resourceVersion?: string, options?: ErrorOptions) {
    super(ErrorCode.STALE_RESOURCE_VERSION, message, options);
    this.resourceVersion = resourceVersion;
  }
}

/** NotFoundError: an object the caller named does not exist. */
export class NotFoundError extends LineupError {
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.NOT_FOUND, message, options);
  }
}

/** SimulationDivergedError: the simulated cluster did not settle (a reconcile loop without end). */
export class SimulationDivergedError extends LineupError {
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.SIMULATION_DIVERGED, message, options);
  }
}

/** AlreadyExistsError: a create found an object of that name (HTTP 409 AlreadyExists). */
export class AlreadyExistsError extends LineupError {
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.ALREADY_EXISTS, message, options);
  }
}

/** ForbiddenError: the server refused the caller (Kubernetes: HTTP 403; AWS: 401/403, access denied); retrying will not help. */
export class ForbiddenError extends LineupError {
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.FORBIDDEN, message, options);
  }
}

/** UnauthenticatedError: the server did not accept the caller's credentials (HTTP 401); retrying will not help. */
export class UnauthenticatedError extends LineupError {
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.UNAUTHENTICATED, message, options);
  }
}

/**
 * UnavailableError: the server answered "not now" (429, 5xx) or not at all — through every retry
 * when it comes from a retrying layer. `retryAfterMs` is the wait the server asked for, when it did.
 */
export class UnavailableError extends LineupError {
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options?: ErrorOptions & { readonly retryAfterMs?: number | undefined }) {
    super(ErrorCode.UNAVAILABLE, message, options);
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/** WatchExpiredError: the watch's resourceVersion is too old (HTTP 410 Gone); re-list. */
export class WatchExpiredError extends LineupError {
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.WATCH_EXPIRED, message, options);
  }
}

/** UnknownClusterError: an event names a cluster the registry does not know, or not its own source. */
export class UnknownClusterError extends LineupError {
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.UNKNOWN_CLUSTER, message, options);
  }
}

/**
 * InvalidObjectError: the API server refused a write as invalid (HTTP 422 Invalid, or 400): the
 * object breaks a rule the server enforces. Carries the server's message and its field causes.
 */
export class InvalidObjectError extends LineupError {
  readonly causes: readonly FieldError[];
  constructor(message: string, causes: readonly FieldError[] = [], options?: ErrorOptions) {
    super(ErrorCode.INVALID_OBJECT, message, options);
    this.causes = causes;
  }
}

/**
 * StoreInvalidError: the checkpoint store refused a request as malformed (an item over the size
 * limit, a bad expression) or holds an item that does not parse; retrying will not help.
 */
export class StoreInvalidError extends LineupError {
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.STORE_INVALID, message, options);
  }
}

/** ArchiveReplayError: an archive replay could not be started, failed, was cancelled or did not end in time. */
export class ArchiveReplayError extends LineupError {
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.ARCHIVE_REPLAY_FAILED, message, options);
  }
}

/**
 * StateDirError: a local state directory that cannot be used as asked — in use by another
 * writer, damaged, not a directory, not writable, holding no state — with one line saying which
 * and leaving every byte of it as it was.
 */
export class StateDirError extends LineupError {
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.STATE_DIR_UNUSABLE, message, options);
  }
}
