/**
 * The rehearsal's reading of the forwarder's Deployment and image (infra/rehearsal/forwarder.ts),
 * on the shipped manifest and Dockerfile: command, env, memory limit, placeholders.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { dockerfileEnv, quantityBytes, readForwarderContainer, substitute } from '../../../infra/rehearsal/forwarder.ts';
import { repoPath } from '../../repoFiles.ts';

describe('the forwarder as shipped', () => {
  it('reads the Deployment container: command, every env entry, the memory limit', () => {
    const container = readForwarderContainer(readFileSync(repoPath('infra/manifests/forwarder.yaml'), 'utf8'));
    assert.equal(container.command[0], 'node');
    assert.ok(container.command.some((part) => part.startsWith('/app/')), 'the command runs a file of the image');
    assert.ok(container.env.some((entry) => entry.name === 'LINEUP_EVENT_BUS_NAME'));
    assert.equal(container.memoryLimitBytes, quantityBytes(container.memoryLimit ?? ''));
  });

  it("reads the image's final stage ENV", () => {
    assert.deepEqual(dockerfileEnv('FROM a AS b\nENV X=1\nFROM c\nENV NODE_ENV=production\n'), { NODE_ENV: 'production' });
    assert.ok('NODE_ENV' in dockerfileEnv(readFileSync(repoPath('infra/forwarder.Dockerfile'), 'utf8')));
  });
});

describe('the parts', () => {
  it('fills placeholders and names one left without a value', () => {
    assert.equal(substitute('"${A}-${B}"', { A: '1', B: '2' }, 'x'), '"1-2"');
    assert.throws(() => substitute('${C}', {}, 'forwarder env X'), /forwarder env X: placeholder \$\{C\}/);
  });

  it('reads memory quantities', () => {
    assert.equal(quantityBytes('144Mi'), 144 * 1024 * 1024);
    assert.equal(quantityBytes('1G'), 1e9);
    assert.throws(() => quantityBytes('lots'), /expected e\.g\. 144Mi/);
  });

  it('refuses a manifest without a Deployment', () => {
    assert.throws(() => readForwarderContainer('kind: Namespace\n'), /no Deployment/);
  });
});
