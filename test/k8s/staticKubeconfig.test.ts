/**
 * The forwarder image's kubeconfig reader: static credentials (token, token file, client
 * certificate, CA) become an endpoint; what it cannot run (exec, auth providers) or find is
 * refused in one line naming the file.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, LineupError } from '../../lib/errors.ts';
import { readStaticKubeconfig } from '../../lib/k8s/staticKubeconfig.ts';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('readStaticKubeconfig', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lineup-static-kubeconfig-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** write: a kubeconfig file of one context `main` on cluster `c` as user `u`. */
  const write = (name: string, cluster: Record<string, unknown>, user: Record<string, unknown>, extra: Record<string, unknown> = {}): string => {
    const path = join(dir, name);
    writeFileSync(
      path,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster }],
        users: [{ name: 'u', user }],
        contexts: [{ name: 'main', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'main',
        ...extra,
      }),
    );
    return path;
  };

  it('a token and a CA given inline: the CA on the pool, the token on each request', async () => {
    const path = write('inline', { server: 'https://k8s.example.com:6443', 'certificate-authority-data': Buffer.from(PEM).toString('base64') }, { token: 'abc' });
    const endpoint = await readStaticKubeconfig(path, undefined);
    const options = { headers: {} };
    await endpoint.authorize(options);
    assert.equal(endpoint.server.href, 'https://k8s.example.com:6443/');
    assert.ok(endpoint.agent instanceof HttpsAgent);
    assert.equal(endpoint.agent.options.ca, PEM);
    assert.equal(endpoint.agent.options.rejectUnauthorized, true);
    assert.deepEqual(options.headers, { authorization: 'Bearer abc' });
  });

  it('a token file (relative to the kubeconfig) is read again for each request; a CA file too', async () => {
    writeFileSync(join(dir, 'token'), 'first\n');
    writeFileSync(join(dir, 'ca.crt'), PEM);
    const path = write('files', { server: 'https://k8s.example.com', 'certificate-authority': 'ca.crt' }, { tokenFile: 'token' });
    const endpoint = await readStaticKubeconfig(path, 'main');
    const first = { headers: {} };
    await endpoint.authorize(first);
    writeFileSync(join(dir, 'token'), 'rotated\n');
    const second = { headers: {} };
    await endpoint.authorize(second);
    assert.deepEqual([first.headers, second.headers], [{ authorization: 'Bearer first' }, { authorization: 'Bearer rotated' }]);
    assert.equal((endpoint.agent as HttpsAgent).options.ca, PEM);
  });

  it('a client certificate and key, and insecure-skip-tls-verify', async () => {
    const path = write(
      'cert',
      { server: 'https://k8s.example.com', 'insecure-skip-tls-verify': true },
      { 'client-certificate-data': Buffer.from('CERT').toString('base64'), 'client-key-data': Buffer.from('KEY').toString('base64') },
    );
    const endpoint = await readStaticKubeconfig(path, undefined);
    const agent = endpoint.agent as HttpsAgent;
    assert.equal(agent.options.cert, 'CERT');
    assert.equal(agent.options.key, 'KEY');
    assert.equal(agent.options.rejectUnauthorized, false);
  });

  const refused: { name: string; file: () => string; context?: string; message: RegExp }[] = [
    { name: 'a missing file', file: () => join(dir, 'absent'), message: /: no such file, expected a kubeconfig/ },
    { name: 'an exec plugin', file: () => write('exec', { server: 'https://x' }, { exec: { command: 'aws' } }), message: /user "u" authenticates by an exec plugin, which the forwarder image does not run/ },
    { name: 'an auth provider', file: () => write('oidc', { server: 'https://x' }, { 'auth-provider': { name: 'oidc' } }), message: /authenticates by an auth provider/ },
    { name: 'no such context', file: () => write('ctx', { server: 'https://x' }, { token: 't' }), context: 'prod', message: /no context "prod", expected one of: main/ },
    { name: 'not a kubeconfig', file: () => write('bad', { notServer: 1 }, { token: 't' }), message: /not a valid kubeconfig: clusters\.0\.cluster\.server/ },
  ];
  for (const tc of refused) {
    it(`refuses ${tc.name} with INVALID_INPUT naming the file`, async () => {
      const file = tc.file();
      const error = await readStaticKubeconfig(file, tc.context).catch((failure: unknown) => failure);
      assert.ok(error instanceof LineupError && error.code === ErrorCode.INVALID_INPUT, String(error));
      assert.ok(error.message.startsWith(`kubeconfig ${file}: `), error.message);
      assert.match(error.message, tc.message);
    });
  }
});
