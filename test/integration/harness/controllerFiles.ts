/**
 * The files a controller run against the harness's kube-apiserver needs (the upstream JobSet
 * controller, Kueue): a copy of kube-apiserver's self-signed serving pair for 127.0.0.1, so
 * `kube.caPem` verifies the controller's webhook and metrics servers too, and a kubeconfig for
 * the admin user (system:masters), so the controller's RBAC is not what a test measures.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { KubeServer } from './kube.ts';

/** copyServingPair: `certDir` created holding kube-apiserver's serving pair as `tls.crt` and `tls.key`. */
export const copyServingPair = (kube: KubeServer, certDir: string): void => {
  mkdirSync(certDir);
  const kubeCertDir = join(kube.dir, 'certs');
  copyFileSync(join(kubeCertDir, 'apiserver.crt'), join(certDir, 'tls.crt'));
  copyFileSync(join(kubeCertDir, 'apiserver.key'), join(certDir, 'tls.key'));
};

/** writeAdminKubeconfig: a kubeconfig at `path` (mode 600) for the admin user of `kube`. */
export const writeAdminKubeconfig = (kube: KubeServer, path: string): void => {
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'lineup-test', cluster: { server: kube.url, 'certificate-authority-data': Buffer.from(kube.caPem).toString('base64') } }],
      users: [{ name: 'admin', user: { token: kube.adminToken } }],
      contexts: [{ name: 'admin', context: { cluster: 'lineup-test', user: 'admin' } }],
      'current-context': 'admin',
    }),
    { mode: 0o600 },
  );
};
