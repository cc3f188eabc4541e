/**
 * The note (message) of a Kubernetes Event as the API server accepts it: at most
 * EVENT_NOTE_MAX_BYTES bytes once eventTime is set. Both gateways record Events through it (the
 * simulated one too: this module needs no Kubernetes client), so a long message reads the same in
 * the simulated cluster as in a real one.
 */

/** Most bytes of an Event message the API server accepts once eventTime is set (NoteLengthLimit). */
export const EVENT_NOTE_MAX_BYTES = 1024;

/**
 * truncateUtf8: at most `maxBytes` bytes of `text`, cut on a character boundary, with an
 * ellipsis when cut.
 */
export const truncateUtf8 = (text: string, maxBytes: number): string => {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const ellipsis = '…';
  let budget = maxBytes - Buffer.byteLength(ellipsis, 'utf8');
  let out = '';
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (size > budget) break;
    out += char;
    budget -= size;
  }
  return out + ellipsis;
};

/** eventNote: an Event message cut to what the API server accepts (NoteLengthLimit). */
export const eventNote = (message: string): string => truncateUtf8(message, EVENT_NOTE_MAX_BYTES);
