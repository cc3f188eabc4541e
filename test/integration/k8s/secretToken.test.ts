/**
 * A `token` cluster whose bearer token lives in Secrets Manager, on real servers: moto's Secrets
 * Manager holds the secret, kube-apiserver (the harness, --token-auth-file) judges the token,
 * and the reconciler's own path builds the gateway (resolveClusters → clusterAccessFor →
 * secretsManagerReader). The token file of the test server cannot change while it runs, so a
 * rotation is played the other way round: the secret first holds a token the server does not
 * know (one revoked at rotation), and the rotation completes when the secret is given the
 * token the server accepts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CreateSecretCommand, GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { GetSecretValueCommandOutput } from '@aws-sdk/client-secrets-manager';
import { Counters } from '../../../lib/counters.ts';
import { ErrorCode } from '../../../lib/errors.ts';
import { resolveClusters } from '../../../lib/k8s/registry.ts';
import { secretsManagerReader } from '../../../lib/k8s/secretToken.ts';
import type { ClusterGateway } from '../../../lib/reconcile/types.ts';
import { startMoto } from '../harness/index.ts';
import type { KubeServer, MotoServer } from '../harness/index.ts';
import { assertLineupError, COLD_START_TIMEOUT_MS, startCluster } from './support.ts';

describe('token cluster: bearer token from Secrets Manager (moto) against kube-apiserver', { timeout: COLD_START_TIMEOUT_MS }, () => {
  let kube: KubeServer | undefined;
  let moto: MotoServer | undefined;
  let secrets: SecretsManagerClient;
  let secretArn: string;
  /** GetSecretValue calls Lineup made (the reader's client counts them). */
  let reads = 0;
  let gateway: ClusterGateway;

  before(async () => {
    [kube, moto] = await Promise.all([startCluster(), startMoto()]);
    secrets = new SecretsManagerClient(moto.clientConfig);
    const created = await secrets.send(new CreateSecretCommand({ Name: 'lineup/onprem/token', SecretString: 'revoked-at-rotation' }));
    assert.ok(created.ARN, 'moto returns the new secret ARN');
    secretArn = created.ARN;
    const lineupClient = new SecretsManagerClient(moto.clientConfig);
    const counting = {
      send: (command: GetSecretValueCommand): Promise<GetSecretValueCommandOutput> => {
        reads += 1;
        return lineupClient.send(command);
      },
    };
    const resolve = resolveClusters({
      static: [{ id: 'onprem', endpoint: kube.url, caData: kube.caPem, auth: { type: 'token', tokenSecretArn: secretArn } }],
      counters: new Counters(),
      auth: { resolveSecret: secretsManagerReader(counting) },
    });
    const resolved = await resolve('onprem');
    assert.ok(resolved, 'the static token cluster resolves');
    gateway = resolved;
  });
  after(async () => {
    await Promise.all([kube?.stop(), moto?.stop()]);
  });

  it('a secret still holding a refused token: UNAUTHENTICATED naming the secret, after exactly one re-read', async () => {
    const error = await assertLineupError(gateway.observe('default', 'absent', Date.now()), ErrorCode.UNAUTHENTICATED);
    assert.ok(error.message.includes(`secret ${secretArn} still holds the token it refused`), error.message);
    assert.equal(reads, 2, 'the first read, and one re-read after the 401');
  });

  it('the rotation completes: the next 401 re-reads the secret and the pass reads the cluster with the new token', async () => {
    assert.ok(kube);
    await secrets.send(new PutSecretValueCommand({ SecretId: secretArn, SecretString: `${kube.lineupToken}\n` }));
    const observed = await gateway.observe('default', 'absent', Date.now());
    assert.equal(observed, undefined, 'the API server answered (no such JobSet) instead of 401');
    assert.equal(reads, 3);
    // Cached for the warm process: further requests read no secret.
    await gateway.observe('default', 'absent-too', Date.now());
    assert.equal(reads, 3);
  });
});
