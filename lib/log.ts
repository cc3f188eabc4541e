/**
 * Log: the structured logging every adapter takes. Lambda hosts back it with Powertools
 * Logger, local hosts with a console line printer; tests collect the lines.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Log = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

/** silentLog: discards everything (for benchmarks that measure, not report). */
export const silentLog: Log = () => undefined;

/** collectingLog: a Log that keeps its lines, for tests to assert on. */
export const collectingLog = (): { log: Log; lines: { level: LogLevel; message: string; fields?: Record<string, unknown> | undefined }[] } => {
  const lines: { level: LogLevel; message: string; fields?: Record<string, unknown> | undefined }[] = [];
  return { log: (level, message, fields) => lines.push({ level, message, fields }), lines };
};
