/**
 * The watch stream's reading: lines split wherever the chunks fall (a multi-byte character
 * included), blank lines skipped, a line that is no event refused, and a connection silent for
 * the idle time ended with WatchIdleError — with the idle clock stopped while the caller handles
 * an event.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { kubeEndpoint } from '../../lib/k8s/endpoint.ts';
import { KubeRestClient } from '../../lib/k8s/rest.ts';
import { parseWatchLine, splitLines, WatchIdleError, WatchLineError, watchEvents } from '../../lib/k8s/watchStream.ts';
import type { WatchLine } from '../../lib/k8s/watchStream.ts';

describe('parseWatchLine and splitLines', () => {
  it('reads {type, object} and refuses what is not JSON or not an event, naming the line', () => {
    assert.deepEqual(parseWatchLine('{"type":"ADDED","object":{"a":1}}'), { type: 'ADDED', object: { a: 1 } });
    assert.throws(() => parseWatchLine('{"type":'), (error: unknown) => error instanceof WatchLineError && error.message.includes('not JSON: {"type":'));
    assert.throws(() => parseWatchLine('{"kind":"Status"}'), (error: unknown) => error instanceof WatchLineError && error.message.includes('not a watch event'));
  });

  it('keeps the unfinished line for the next chunk and drops blank ones', () => {
    assert.deepEqual(splitLines('a\n\n b \nc'), { lines: ['a', 'b'], rest: 'c' });
    assert.deepEqual(splitLines(''), { lines: [], rest: '' });
  });
});

describe('watchEvents', () => {
  /** Scripts by path: what the server writes, chunk by chunk, with pauses. */
  const scripts: Record<string, (res: ServerResponse) => Promise<void>> = {
    '/split': async (res) => {
      const event = JSON.stringify({ type: 'ADDED', object: { name: 'é-1' } });
      const bytes = Buffer.from(`${event}\n\n${JSON.stringify({ type: 'BOOKMARK', object: { v: 2 } })}`, 'utf8');
      // Cut inside the two-byte é and inside the second line; the last line ends without a newline.
      const cut = bytes.indexOf(Buffer.from('é', 'utf8')) + 1;
      for (const part of [bytes.subarray(0, cut), bytes.subarray(cut, cut + 30), bytes.subarray(cut + 30)]) {
        res.write(part);
        await sleep(20);
      }
      res.end();
    },
    '/silent': async (res) => {
      res.write(`${JSON.stringify({ type: 'ADDED', object: {} })}\n`);
      // Then nothing, with the connection open.
    },
    '/steady': async (res) => {
      for (let index = 0; index < 3; index += 1) {
        res.write(`${JSON.stringify({ type: 'MODIFIED', object: { index } })}\n`);
        await sleep(50);
      }
      res.end();
    },
  };
  let server: Server;
  let url: string;
  before(async () => {
    server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      void scripts[req.url ?? '']?.(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const open = (path: string) => new KubeRestClient(kubeEndpoint({ server: url })).stream({ method: 'GET', path });

  it('yields each event whole, however the chunks cut it, and ends with the response', async () => {
    const seen: WatchLine[] = [];
    for await (const line of watchEvents(await open('/split'))) seen.push(line);
    assert.deepEqual(seen, [
      { type: 'ADDED', object: { name: 'é-1' } },
      { type: 'BOOKMARK', object: { v: 2 } },
    ]);
  });

  it('ends with WatchIdleError once the connection is silent for the idle time', async () => {
    const seen: WatchLine[] = [];
    const error = await (async () => {
      for await (const line of watchEvents(await open('/silent'), 150)) seen.push(line);
    })().catch((failure: unknown) => failure);
    assert.ok(error instanceof WatchIdleError, String(error));
    assert.equal(seen.length, 1);
  });

  it('does not count the time the caller spends on an event as silence', async () => {
    const seen: WatchLine[] = [];
    // Each event is handled for longer than the idle time; the server is never silent that long.
    for await (const line of watchEvents(await open('/steady'), 120)) {
      seen.push(line);
      await sleep(200);
    }
    assert.equal(seen.length, 3);
  });
});
