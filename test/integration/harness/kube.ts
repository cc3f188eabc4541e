/**
 * A real Kubernetes API server for the integration tests: etcd + kube-apiserver on loopback,
 * started the way controller-runtime's envtest starts them (pkg/internal/testing/controlplane),
 * with RBAC on and token authentication for two users:
 *
 * - the admin (`ADMIN_USER`, group system:masters) that tests use to set up and inspect state;
 * - Lineup's own user (`LINEUP_USER`, group `LINEUP_GROUP`), which has no permissions until a
 *   test applies the shipped RBAC manifests, so tests see exactly what the ClusterRole grants.
 *
 * No kube-controller-manager or scheduler runs on this server alone: nothing creates Pods or
 * updates Job status on its own. Tests that need Jobs to run start the real control plane on it
 * (controlPlane.ts; e2e/cluster.ts's startE2eCluster). Tests that need a Job in one exact state
 * write its status once as a fixture through the status subresource, as upstream JobSet's
 * integration tests do: replaced whole, with the fields Kubernetes 1.32+ requires of a finished
 * Job (startTime, completionTime, SuccessCriteriaMet / FailureTarget).
 *
 * Binaries come from $KUBEBUILDER_ASSETS (setup-envtest's layout) when set, otherwise from
 * test/integration/k8s-build/build.sh, which builds them from the Go module proxy into a cache
 * outside the repository.
 */
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { accessSync, constants as fsConstants, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseAllDocuments } from 'yaml';
import { jobSetCrdPath } from '../../repoFiles.ts';
import { LOOPBACK, freePorts } from './ports.ts';
import {
  createServerDir,
  httpRequest,
  removeServerDir,
  runBuildScript,
  startServerProcess,
  type HttpResponse,
  type ServerProcess,
} from './process.ts';
import { isObject, type JsonObject } from '../../../lib/json.ts';

/** ADMIN_USER: the test admin's user name; member of system:masters. */
export const ADMIN_USER = 'lineup-test-admin';
/** LINEUP_USER: the user Lineup's controller authenticates as in tests. */
export const LINEUP_USER = 'lineup';
/** LINEUP_GROUP: the group the shipped ClusterRoleBinding is expected to bind. */
export const LINEUP_GROUP = 'lineup:controllers';
/** FIELD_MANAGER: the server-side-apply field manager of `applyYaml`. */
export const FIELD_MANAGER = 'lineup-test-harness';

/** BUILD_SCRIPT: finds or builds the binaries; see its header. */
const BUILD_SCRIPT = fileURLToPath(new URL('../k8s-build/build.sh', import.meta.url));
/** VERSIONS_FILE: the pinned versions build.sh builds. */
const VERSIONS_FILE = fileURLToPath(new URL('../k8s-build/versions.env', import.meta.url));

/** TokenKind: which of the two token-authenticated users a client acts as. */
export type TokenKind = 'admin' | 'lineup';

// ---------------------------------------------------------------------------------------------
// Binaries.

/** KubeBinaries: where kube-apiserver and etcd are, and where they came from. */
export interface KubeBinaries {
  readonly kubeApiServer: string;
  readonly etcd: string;
  readonly from: 'KUBEBUILDER_ASSETS' | 'build.sh';
}

/** pinnedVersions: KUBE_VERSION and ETCD_VERSION from k8s-build/versions.env. */
export const pinnedVersions = (): { readonly kube: string; readonly etcd: string } => {
  const text = readFileSync(VERSIONS_FILE, 'utf8');
  const read = (key: string): string => {
    const match = new RegExp(`^${key}=(\\S+)$`, 'm').exec(text);
    if (match?.[1] === undefined) throw new Error(`${VERSIONS_FILE}: no ${key}=... line`);
    return match[1];
  };
  return { kube: read('KUBE_VERSION'), etcd: read('ETCD_VERSION') };
};

/** executable: `path`, or a thrown error saying it is missing or not executable. */
const executable = (path: string, hint: string): string => {
  try {
    accessSync(path, fsConstants.X_OK);
  } catch (error) {
    throw new Error(`${path} is missing or not executable (${hint})`, { cause: error });
  }
  return path;
};

/** fromKubebuilderAssets: the binaries in $KUBEBUILDER_ASSETS (setup-envtest lays them out flat). */
const fromKubebuilderAssets = (dir: string): KubeBinaries => ({
  kubeApiServer: executable(join(dir, 'kube-apiserver'), `KUBEBUILDER_ASSETS=${dir}`),
  etcd: executable(join(dir, 'etcd'), `KUBEBUILDER_ASSETS=${dir}`),
  from: 'KUBEBUILDER_ASSETS',
});

/** buildKubeBinaries: runs build.sh (progress on stderr) and reads the paths it prints. */
const buildKubeBinaries = async (): Promise<KubeBinaries> => {
  const { stdout } = await runBuildScript(BUILD_SCRIPT);
  const path = (key: string): string => {
    const match = new RegExp(`^${key}=(.+)$`, 'm').exec(stdout);
    if (match?.[1] === undefined) throw new Error(`${BUILD_SCRIPT} printed no ${key}=... line; stdout was:\n${stdout}`);
    return executable(match[1], BUILD_SCRIPT);
  };
  return { kubeApiServer: path('KUBE_APISERVER'), etcd: path('ETCD'), from: 'build.sh' };
};

let binaries: Promise<KubeBinaries> | undefined;

/**
 * ensureKubeBinaries: kube-apiserver and etcd, from $KUBEBUILDER_ASSETS when set, otherwise
 * found in or built into the cache by k8s-build/build.sh (progress on stderr; a cold build takes
 * minutes, a cached one well under a second). Memoized per process.
 *
 * @example
 * const { kubeApiServer, etcd } = await ensureKubeBinaries();
 */
export const ensureKubeBinaries = (): Promise<KubeBinaries> => {
  binaries ??= (async () => {
    const assets = process.env.KUBEBUILDER_ASSETS;
    if (assets !== undefined && assets !== '') return fromKubebuilderAssets(assets);
    process.stderr.write(`harness: finding kube-apiserver and etcd with ${BUILD_SCRIPT}\n`);
    return buildKubeBinaries();
  })();
  return binaries;
};

// ---------------------------------------------------------------------------------------------
// Small JSON helpers for the admin's raw requests.

/** parseJsonObject: the response body as a JSON object, or undefined. */
const parseJsonObject = (response: HttpResponse): JsonObject | undefined => {
  try {
    const value: unknown = JSON.parse(response.body);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
};

/** hasTrueCondition: true when `status.conditions` holds `{type, status: "True"}`. */
const hasTrueCondition = (object: JsonObject | undefined, type: string): boolean => {
  const status = object?.status;
  if (!isObject(status) || !Array.isArray(status.conditions)) return false;
  return status.conditions.some((condition: unknown) => isObject(condition) && condition.type === type && condition.status === 'True');
};

// ---------------------------------------------------------------------------------------------
// The server.

/** KubeServerOptions: how to start the test API server. */
export interface KubeServerOptions {
  /** Install the upstream JobSet CRD and wait until it is Established and served. @default true */
  readonly installJobSetCrd?: boolean;
  /** Extra kube-apiserver flags, e.g. `['--etcd-compaction-interval=10s']` to provoke 410 Gone. */
  readonly extraApiServerArgs?: readonly string[];
  /** How long kube-apiserver may take to pass /readyz. @default 90000 */
  readonly readyTimeoutMs?: number;
}

/** RequestOptions: who sends a raw API request, and its body's content type. */
export interface RequestOptions {
  /** @default 'admin' */
  readonly as?: TokenKind;
  /** @default 'application/json' when there is a body */
  readonly contentType?: string;
}

/** ApplyOptions: how `applyYaml` applies documents. */
export interface ApplyOptions {
  /** Namespace for namespaced documents that name none. @default 'default' */
  readonly namespace?: string;
  /** Who applies. @default 'admin' */
  readonly as?: TokenKind;
  /** Wait until every applied CustomResourceDefinition is Established and served. @default true */
  readonly waitForCrds?: boolean;
}

/** KubeServer: a running etcd + kube-apiserver pair. */
export interface KubeServer extends AsyncDisposable {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  readonly adminToken: string;
  readonly lineupToken: string;
  /** PEM of the self-signed serving certificate and its CA, from kube-apiserver's --cert-dir. */
  readonly caPem: string;
  /** The temporary directory holding logs, etcd data, certificates and the token file. */
  readonly dir: string;
  readonly binaries: KubeBinaries;
  /** Milliseconds from spawning etcd until kube-apiserver passed /readyz (CRD install excluded). */
  readonly startToReadyMs: number;
  /** A KubeConfig for the admin or the lineup user, verifying the server against `caPem`. */
  kubeConfig(kind?: TokenKind): KubeConfig;
  /**
   * Server-side-applies every document of a YAML text (field manager FIELD_MANAGER, force);
   * returns the objects as stored. Sends the documents as they are: client-node's typed
   * serializers drop `x-kubernetes-*` keys from a CRD schema given as plain JSON.
   */
  applyYaml(yaml: string, options?: ApplyOptions): Promise<KubernetesObject[]>;
  /** `applyYaml` on a file's contents. */
  applyYamlFile(path: string, options?: ApplyOptions): Promise<KubernetesObject[]>;
  /**
   * A raw request (body sent as JSON), by default as the admin, verified against `caPem`.
   * Resolves with any status; e.g. `request('GET', '/version')`.
   */
  request(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<HttpResponse>;
  /** Stops kube-apiserver, then etcd, then removes the directory. Idempotent. */
  stop(): Promise<void>;
}

/** etcdArgs: envtest's etcd flags, plus --unsafe-no-fsync on etcd ≥ 3.5 (test data is disposable). */
const etcdArgs = (etcd: string, dataDir: string, clientPort: number, peerPort: number): string[] => {
  const client = `http://${LOOPBACK}:${clientPort}`;
  const peer = `http://${LOOPBACK}:${peerPort}`;
  const version = /(\d+)\.(\d+)\.\d+/.exec(execFileSync(etcd, ['--version'], { encoding: 'utf8' }));
  const major = Number(version?.[1] ?? 0);
  const minor = Number(version?.[2] ?? 0);
  const noFsync = major > 3 || (major === 3 && minor >= 5) ? ['--unsafe-no-fsync=true'] : [];
  return [
    '--name=default',
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    ...noFsync,
  ];
};

/** writeTokenFile: the --token-auth-file CSV (`token,user,uid,"group,..."`) for both users. */
const writeTokenFile = (path: string, adminToken: string, lineupToken: string): void => {
  writeFileSync(
    path,
    [`${adminToken},${ADMIN_USER},${ADMIN_USER},"system:masters"`, `${lineupToken},${LINEUP_USER},${LINEUP_USER},"${LINEUP_GROUP}"`].join('\n') + '\n',
    { mode: 0o600 },
  );
};

/** writeServiceAccountKeys: an RSA key pair for --service-account-{key,signing-key}-file, as envtest generates. */
const writeServiceAccountKeys = (dir: string): { publicKey: string; privateKey: string } => {
  const pair = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const publicKey = join(dir, 'sa.pub');
  const privateKey = join(dir, 'sa.key');
  writeFileSync(publicKey, pair.publicKey);
  writeFileSync(privateKey, pair.privateKey, { mode: 0o600 });
  return { publicKey, privateKey };
};

/** documentsOf: the non-empty documents of a multi-document YAML text, as Kubernetes objects. */
const documentsOf = (yaml: string, origin: string): KubernetesObject[] => {
  const documents = parseAllDocuments(yaml);
  if (!Array.isArray(documents)) return [];
  return documents.flatMap((document, index) => {
    if (document.errors.length > 0) {
      throw new Error(`${origin}: YAML document ${index + 1}: ${document.errors.map((e) => e.message).join('; ')}`);
    }
    const value: unknown = document.toJS();
    if (value === null || value === undefined) return [];
    if (!isObject(value) || typeof value.apiVersion !== 'string' || typeof value.kind !== 'string') {
      throw new Error(`${origin}: YAML document ${index + 1} is not a Kubernetes object (no apiVersion/kind)`);
    }
    return [value as KubernetesObject];
  });
};

/**
 * startKubeApiServer: etcd and kube-apiserver on random loopback ports in a fresh temporary
 * directory, ready to serve (and, by default, with the JobSet CRD Established). Stop it with
 * `stop()` in an `after` hook, or `await using`; if the test process dies first, its exit hooks
 * kill both servers and remove the directory.
 *
 * kube-apiserver flags (envtest's, plus token auth): --etcd-servers --cert-dir --secure-port
 * --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --service-cluster-ip-range=10.0.0.0/24
 * --allow-privileged=true --authorization-mode=RBAC --disable-admission-plugins=ServiceAccount
 * --service-account-issuer --service-account-key-file --service-account-signing-key-file
 * --token-auth-file --endpoint-reconciler-type=none.
 *
 * @example
 * const kube = await startKubeApiServer();
 * after(() => kube.stop());
 * const batch = kube.kubeConfig('admin').makeApiClient(BatchV1Api);
 */
export const startKubeApiServer = async (options: KubeServerOptions = {}): Promise<KubeServer> => {
  const crdFile = options.installJobSetCrd === false ? undefined : jobSetCrdPath();
  const bins = await ensureKubeBinaries();
  const dir = createServerDir('kube');
  const processes: ServerProcess[] = [];
  const stopAll = async (): Promise<void> => {
    for (const server of processes.reverse()) await server.stop();
    processes.length = 0;
    await removeServerDir(dir);
  };

  try {
    const started = Date.now();
    const [etcdClientPort, etcdPeerPort, securePort] = (await freePorts(3)) as [number, number, number];
    const adminToken = randomBytes(24).toString('hex');
    const lineupToken = randomBytes(24).toString('hex');
    const tokenFile = join(dir, 'tokens.csv');
    writeTokenFile(tokenFile, adminToken, lineupToken);
    const serviceAccount = writeServiceAccountKeys(dir);
    const certDir = join(dir, 'certs');
    mkdirSync(certDir);

    processes.push(
      await startServerProcess({
        name: 'etcd',
        command: bins.etcd,
        args: etcdArgs(bins.etcd, join(dir, 'etcd-data'), etcdClientPort, etcdPeerPort),
        dir,
        readiness: {
          url: `http://${LOOPBACK}:${etcdClientPort}/health`,
          isReady: (response) => response.status === 200 && response.body.includes('"health":"true"'),
          timeoutMs: 30_000,
        },
      }),
    );

    const url = `https://${LOOPBACK}:${securePort}`;
    const bearer = { authorization: `Bearer ${adminToken}` };
    const apiServer = await startServerProcess({
      name: 'kube-apiserver',
      command: bins.kubeApiServer,
      args: [
        `--etcd-servers=http://${LOOPBACK}:${etcdClientPort}`,
        `--cert-dir=${certDir}`,
        `--secure-port=${securePort}`,
        `--bind-address=${LOOPBACK}`,
        `--advertise-address=${LOOPBACK}`,
        '--service-cluster-ip-range=10.0.0.0/24',
        '--allow-privileged=true',
        '--authorization-mode=RBAC',
        '--disable-admission-plugins=ServiceAccount',
        `--service-account-issuer=${url}/`,
        `--service-account-key-file=${serviceAccount.publicKey}`,
        `--service-account-signing-key-file=${serviceAccount.privateKey}`,
        `--token-auth-file=${tokenFile}`,
        '--endpoint-reconciler-type=none',
        ...(options.extraApiServerArgs ?? []),
      ],
      dir,
    });
    processes.push(apiServer);
    // The serving certificate is written during startup, so the first probes cannot verify it;
    // once ready, every later request verifies against it.
    await apiServer.waitUntilReady({
      url: `${url}/readyz`,
      headers: bearer,
      insecure: true,
      timeoutMs: options.readyTimeoutMs ?? 90_000,
    });
    const startToReadyMs = Date.now() - started;

    const caPath = join(certDir, 'apiserver.crt');
    const caPem = readFileSync(caPath, 'utf8');
    const verified = await httpRequest(`${url}/readyz`, { headers: bearer, ca: caPem }).catch((error: unknown) => {
      throw apiServer.failure(`ready, but TLS verification against ${caPath} failed`, error);
    });
    if (verified.status !== 200) throw apiServer.failure(`/readyz with CA verification answered ${verified.status}`);

    const tokens: Record<TokenKind, string> = { admin: adminToken, lineup: lineupToken };

    const kubeConfig = (kind: TokenKind = 'admin'): KubeConfig => {
      const config = new KubeConfig();
      config.loadFromOptions({
        clusters: [{ name: 'lineup-test', server: url, caData: Buffer.from(caPem).toString('base64'), skipTLSVerify: false }],
        users: [{ name: kind, token: tokens[kind] }],
        contexts: [{ name: kind, cluster: 'lineup-test', user: kind, namespace: 'default' }],
        currentContext: kind,
      });
      return config;
    };

    const request = async (method: string, path: string, body?: unknown, requestOptions: RequestOptions = {}): Promise<HttpResponse> => {
      const { as = 'admin', contentType = 'application/json' } = requestOptions;
      return httpRequest(`${url}${path}`, {
        method,
        ca: caPem,
        timeoutMs: 30_000,
        headers: {
          authorization: `Bearer ${tokens[as]}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': contentType }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    };

    /** resourceFor: the API path, plural and scope of a kind, from discovery (cached once found). */
    const discovered = new Map<string, { base: string; plural: string; namespaced: boolean }>();
    const resourceFor = async (apiVersion: string, kind: string, as: TokenKind): Promise<{ base: string; plural: string; namespaced: boolean }> => {
      const key = `${apiVersion}/${kind}`;
      const cached = discovered.get(key);
      if (cached !== undefined) return cached;
      const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
      const response = await request('GET', base, undefined, { as });
      const list = parseJsonObject(response);
      const resource = Array.isArray(list?.resources)
        ? list.resources.find((r: unknown): r is JsonObject => isObject(r) && r.kind === kind && typeof r.name === 'string' && !r.name.includes('/'))
        : undefined;
      if (resource === undefined) {
        throw new Error(`the API server serves no ${kind} in ${apiVersion} (GET ${base}: HTTP ${response.status} ${response.body.slice(0, 300)})`);
      }
      const found = { base, plural: String(resource.name), namespaced: resource.namespaced === true };
      discovered.set(key, found);
      return found;
    };

    /** waitForCrd: polls until the CRD is Established and each served version lists its plural in discovery. */
    const waitForCrd = async (name: string, timeoutMs = 30_000): Promise<void> => {
      const deadline = Date.now() + timeoutMs;
      let last = 'not checked yet';
      while (Date.now() < deadline) {
        const crd = parseJsonObject(await request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`));
        const spec = crd?.spec;
        if (hasTrueCondition(crd, 'Established') && isObject(spec) && isObject(spec.names) && Array.isArray(spec.versions)) {
          const plural = spec.names.plural;
          const served = spec.versions.filter((v: unknown): v is JsonObject => isObject(v) && v.served === true);
          const listed = await Promise.all(
            served.map(async (version) => {
              const list = parseJsonObject(await request('GET', `/apis/${String(spec.group)}/${String(version.name)}`));
              return Array.isArray(list?.resources) && list.resources.some((r: unknown) => isObject(r) && r.name === plural);
            }),
          );
          if (listed.every(Boolean)) return;
          last = 'Established, but not yet in discovery';
        } else {
          last = crd === undefined ? 'not found' : 'not Established';
        }
        await sleep(100);
      }
      throw apiServer.failure(`CustomResourceDefinition ${name} not ready within ${timeoutMs}ms (${last})`);
    };

    const applyYaml = async (yaml: string, applyOptions: ApplyOptions = {}, origin = 'yaml'): Promise<KubernetesObject[]> => {
      const as = applyOptions.as ?? 'admin';
      const applied: KubernetesObject[] = [];
      for (const document of documentsOf(yaml, origin)) {
        const name = document.metadata?.name;
        const what = `${origin}: ${document.kind} ${name ?? '(unnamed)'}`;
        if (name === undefined) throw new Error(`${what}: metadata.name is required to apply`);
        const resource = await resourceFor(String(document.apiVersion), String(document.kind), as);
        const namespace = document.metadata?.namespace ?? applyOptions.namespace ?? 'default';
        const body = resource.namespaced ? { ...document, metadata: { ...document.metadata, namespace } } : document;
        const path =
          `${resource.base}/${resource.namespaced ? `namespaces/${namespace}/` : ''}${resource.plural}/${encodeURIComponent(name)}` +
          `?fieldManager=${FIELD_MANAGER}&force=true`;
        const response = await request('PATCH', path, body, { as, contentType: 'application/apply-patch+yaml' });
        const stored = parseJsonObject(response);
        if (response.status < 200 || response.status > 299 || stored === undefined) {
          throw new Error(`${what}: server-side apply answered HTTP ${response.status}: ${response.body.slice(0, 2_000)}`);
        }
        applied.push(stored as KubernetesObject);
        if (document.kind === 'CustomResourceDefinition' && applyOptions.waitForCrds !== false) await waitForCrd(name);
      }
      return applied;
    };

    const applyYamlFile = (path: string, applyOptions?: ApplyOptions): Promise<KubernetesObject[]> =>
      applyYaml(readFileSync(path, 'utf8'), applyOptions, path);

    if (crdFile !== undefined) await applyYamlFile(crdFile);

    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopping ??= stopAll());
    return {
      url,
      adminToken,
      lineupToken,
      caPem,
      dir,
      binaries: bins,
      startToReadyMs,
      kubeConfig,
      applyYaml: (yaml, applyOptions) => applyYaml(yaml, applyOptions),
      applyYamlFile,
      request,
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
};
