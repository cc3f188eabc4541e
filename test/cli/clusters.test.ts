/**
 * `lineup clusters list | add | remove | status` through the CLI's main(): its help, and `add`'s
 * checks (each bad flag one line and exit 2). The four verbs against the state a whole
 * `lineup demo` run kept: clusters.process.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from './inProcess.ts';

const CA = fileURLToPath(new URL('../fixtures/cluster-ca.pem', import.meta.url));
const EKS_ARN = 'arn:aws:eks:eu-west-1:123456789012:cluster/prod';

describe('lineup clusters', () => {
  it('--help documents the four verbs', async () => {
    const help = await runCli(['clusters', '--help']);
    assert.equal(help.code, 0);
    for (const verb of ['list', 'add', 'remove', 'status']) assert.match(help.stdout, new RegExp(`\\n  ${verb} `));
    assert.match(help.stdout, /--state-dir\) or the deployed table \(--table NAME --region R\)/);
  });

  describe('add refuses what it cannot use, one line each, exit 2, before touching any store', () => {
    const cases: { name: string; argv: string[]; files?: Record<string, string>; error: RegExp }[] = [
      { name: 'an id that is not a DNS label', argv: ['Prod_1', '--eks-arn', EKS_ARN], error: /^lineup clusters add: cluster id "Prod_1" is not a DNS label: expected \^/ },
      { name: 'no credentials', argv: ['prod'], error: /^lineup clusters add: cluster prod: no credentials: expected --eks-arn ARN \(EKS tokens\) or --token-secret ARN/ },
      { name: 'a malformed EKS ARN', argv: ['prod', '--eks-arn', 'arn:aws:eks:eu-west-1:123:cluster/prod'], error: /^lineup clusters add: --eks-arn "arn:aws:eks:eu-west-1:123:cluster\/prod" is not an EKS cluster ARN: expected arn:aws:eks:REGION:ACCOUNT:cluster\/NAME\n$/ },
      {
        name: 'an EKS ARN without endpoint and CA (says how to get them)',
        argv: ['prod', '--eks-arn', EKS_ARN],
        error: /^lineup clusters add: cluster prod: --endpoint and --ca missing: .*\(aws eks describe-cluster --name prod --region eu-west-1 --query 'cluster\.\[endpoint,certificateAuthority\.data\]' prints both\)\n$/,
      },
      { name: 'an http endpoint', argv: ['prod', '--eks-arn', EKS_ARN, '--endpoint', 'http://10.0.0.1', '--ca', CA], error: /^lineup clusters add: --endpoint http:\/\/10\.0\.0\.1 has protocol http:, expected https:\/\/\n$/ },
      { name: 'a CA file without a certificate', argv: ['prod', '--eks-arn', EKS_ARN, '--endpoint', 'https://k8s.example', '--ca', 'ca.txt'], files: { 'ca.txt': 'hello' }, error: /^lineup clusters add: --ca ca\.txt: no "-----BEGIN CERTIFICATE-----" in it \(nor in its base64\)/ },
      {
        name: 'a CA whose certificate does not parse',
        argv: ['prod', '--eks-arn', EKS_ARN, '--endpoint', 'https://k8s.example', '--ca', 'ca.pem'],
        files: { 'ca.pem': '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' },
        error: /^lineup clusters add: --ca ca\.pem: the certificate does not parse: /,
      },
      { name: 'both credentials', argv: ['prod', '--eks-arn', EKS_ARN, '--token-secret', 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:t'], error: /--eks-arn and --token-secret both given: expected one\n$/ },
      { name: 'a token secret that is not a secret ARN', argv: ['bare', '--token-secret', 'my-secret'], error: /--token-secret "my-secret" is not a Secrets Manager secret ARN/ },
      { name: 'a role without an EKS cluster', argv: ['bare', '--token-secret', 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:t', '--role-arn', 'arn:aws:iam::123456789012:role/x'], error: /--role-arn arn:aws:iam::123456789012:role\/x without --eks-arn/ },
    ];
    for (const tc of cases) {
      it(tc.name, async () => {
        const run = await runCli(['clusters', 'add', ...tc.argv, '--state-dir', '/nonexistent/lineup-state'], tc.files);
        assert.deepEqual([run.code, run.stdout], [2, '']);
        assert.match(run.stderr, tc.error);
      });
    }
  });
});
