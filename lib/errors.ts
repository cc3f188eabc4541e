/** Error codes callers branch on; never branch on message text. */
export const ErrorCode = {
  INVALID_INPUT: 'INVALID_INPUT',
  INVALID_JOBSET: 'INVALID_JOBSET',
  STALE_RESOURCE_VERSION: 'STALE_RESOURCE_VERSION',
  NOT_FOUND: 'NOT_FOUND',
  SIMULATION_DIVERGED: 'SIMULATION_DIVERGED',
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
