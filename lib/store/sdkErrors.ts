/**
 * The boundary between AWS SDK errors and Lineup errors (STYLE: adapters turn SDK errors into
 * Lineup errors; callers branch on `code`). A failed condition is not an error here: each store
 * method decides what it means (a lease held elsewhere, a lease lost).
 */
import { CounterName, type CounterSink } from '../counters.ts';
import { ForbiddenError, LineupError, NotFoundError, StoreInvalidError, UnavailableError } from '../errors.ts';

/** The fields of an SDK service exception this module reads (smithy's ServiceException shape). */
interface ServiceErrorShape {
  readonly name: string;
  readonly message: string;
  readonly $fault?: 'client' | 'server';
  readonly $metadata?: { readonly httpStatusCode?: number | undefined };
}

/** Service errors that mean "too much, too fast" or a server fault: retrying later may succeed. */
const RETRYABLE_NAMES: ReadonlySet<string> = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
]);

/** Service errors that mean the caller may not use the table: credentials or IAM. */
const FORBIDDEN_NAMES: ReadonlySet<string> = new Set([
  'AccessDeniedException',
  'UnrecognizedClientException',
  'MissingAuthenticationTokenException',
  'InvalidSignatureException',
  'ExpiredTokenException',
]);

/** Transport failures (node errno codes, SDK timeouts): the server was not reached or did not answer. */
const TRANSPORT_NAMES: ReadonlySet<string> = new Set(['TimeoutError', 'AbortError', 'RequestTimeout', 'RequestTimeoutException']);

/** isConditionalCheckFailed: the write's condition did not hold — an ordinary outcome where the contract says so. */
export const isConditionalCheckFailed = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/**
 * isItemTooLarge: DynamoDB refused a write because the item would pass its 400 KB limit
 * (ValidationException "Item size to update has exceeded the maximum allowed size"), as thrown
 * by the SDK or as the store's StoreInvalidError around it.
 */
export const isItemTooLarge = (error: unknown): boolean => {
  const cause = error instanceof Error && error.name !== 'ValidationException' && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error && cause.name === 'ValidationException' && /exceeded the maximum allowed size/i.test(cause.message);
};

/** isResourceNotFound: the table (or index) named does not exist. */
export const isResourceNotFound = (error: unknown): boolean => error instanceof Error && error.name === 'ResourceNotFoundException';

/** isResourceInUse: CreateTable found the table already there. */
export const isResourceInUse = (error: unknown): boolean => error instanceof Error && error.name === 'ResourceInUseException';

/** asServiceError: the error as an SDK service exception, or undefined when it never came from the service. */
const asServiceError = (error: unknown): ServiceErrorShape | undefined =>
  error instanceof Error && '$fault' in error ? (error as ServiceErrorShape) : undefined;

/** isTransportError: a socket or timeout failure before any answer came back. */
const isTransportError = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  if (TRANSPORT_NAMES.has(error.name)) return true;
  const code = 'code' in error ? error.code : undefined;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
};

/**
 * toStoreError: the Lineup error for an SDK failure of `operation` on `tableName` —
 * UnavailableError after the SDK's own retries ran out (throttling, 5xx, no answer),
 * ForbiddenError for credentials and IAM, NotFoundError for a missing table, StoreInvalidError for
 * a request the service refused as malformed. The SDK error is kept as `cause`.
 */
export const toStoreError = (operation: string, tableName: string, error: unknown): LineupError => {
  if (error instanceof LineupError) return error;
  const what = `dynamodb ${operation} on table ${tableName}`;
  const service = asServiceError(error);
  if (service !== undefined) {
    const status = service.$metadata?.httpStatusCode;
    const seen = `${service.name}${status === undefined ? '' : ` (http ${status})`}: ${service.message}`;
    if (RETRYABLE_NAMES.has(service.name) || service.$fault === 'server' || (status !== undefined && status >= 500)) {
      return new UnavailableError(`${what} failed after retries: ${seen}`, { cause: error });
    }
    if (FORBIDDEN_NAMES.has(service.name) || status === 401 || status === 403) {
      return new ForbiddenError(`${what} was refused: ${seen}, expected credentials allowed to use the table`, { cause: error });
    }
    if (isResourceNotFound(error)) {
      return new NotFoundError(`${what} failed: ${seen}, expected the table (and its indexes) from tableDefinition() to exist`, {
        cause: error,
      });
    }
    return new StoreInvalidError(`${what} was rejected: ${seen}`, { cause: error });
  }
  if (isTransportError(error)) {
    const seen = error instanceof Error ? error.message : String(error);
    return new UnavailableError(`${what} got no answer: ${seen}`, { cause: error });
  }
  if (error instanceof Error && error.name === 'CredentialsProviderError') {
    return new ForbiddenError(`${what} has no credentials: ${error.message}`, { cause: error });
  }
  const seen = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new StoreInvalidError(`${what} could not be sent: ${seen}`, { cause: error });
};

/**
 * sendCounted: one DynamoDB request, counted as `dynamodb.<operation>` whatever its outcome, its
 * SDK errors turned into Lineup errors — except a failed condition, rethrown for the caller.
 */
export const sendCounted = async <T>(counters: CounterSink, tableName: string, operation: string, request: () => Promise<T>): Promise<T> => {
  counters.add(`${CounterName.DynamoPrefix}${operation}`);
  try {
    return await request();
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw error;
    throw toStoreError(operation, tableName, error);
  }
};
