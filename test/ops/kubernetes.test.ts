import { afterAll, describe, expect, test } from 'bun:test';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config';
import { checkConfigSections } from '../../src/config-sections';
import { isPlaceholder } from '../../src/config-secrets';
import { startTestApp } from '../helpers/app';

// The kustomize manifests under deploy/kubernetes: every object valid against the Kubernetes
// API schemas (kubernetes-models), strictly (a misspelt field fails), and wired to what svc
// really serves and needs.
const root = join(import.meta.dir, '..', '..');
const folder = join(root, 'deploy', 'kubernetes');
const dir = mkdtempSync(join(tmpdir(), 'svc-k8s-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MODELS = { Deployment, HorizontalPodAutoscaler, ConfigMap, Secret, Service, PodDisruptionBudget } as const;
type Kind = keyof typeof MODELS;
type Manifest = { apiVersion: string; kind: Kind; metadata: { name: string }; [key: string]: unknown };
/** Where each kind's TypeScript interface lives: the strict check is TypeScript's excess-property check. */
const TYPES: Record<Kind, [string, string]> = {
  Deployment: ['kubernetes-models/apps/v1/Deployment', 'IDeployment'],
  HorizontalPodAutoscaler: ['kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler', 'IHorizontalPodAutoscaler'],
  ConfigMap: ['kubernetes-models/v1/ConfigMap', 'IConfigMap'],
  Secret: ['kubernetes-models/v1/Secret', 'ISecret'],
  Service: ['kubernetes-models/v1/Service', 'IService'],
  PodDisruptionBudget: ['kubernetes-models/policy/v1/PodDisruptionBudget', 'IPodDisruptionBudget'],
};

const kustomization = parse(readFileSync(join(folder, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
const manifests: Manifest[] = kustomization.resources.map((file) => parse(readFileSync(join(folder, file), 'utf8')));
const secretFile = parse(readFileSync(join(folder, 'secret.yaml'), 'utf8')) as Manifest & { stringData: Record<string, string> };
const byKind = <K extends Kind>(kind: K) => manifests.find((m) => m.kind === kind) as unknown as InstanceType<(typeof MODELS)[K]>;

/** What `kubectl apply -k` would send (labels applied), when kubectl is installed. */
const KUBECTL = Bun.which('kubectl');
if (!KUBECTL) console.warn('kubernetes: the rendered kustomization is not checked, kubectl is not installed');
function rendered(): Manifest[] {
  const out = Bun.spawnSync([KUBECTL!, 'kustomize', folder], { stderr: 'pipe' });
  if (out.exitCode !== 0) throw new Error(`kubectl kustomize failed: ${out.stderr.toString()}`);
  return parseAllDocuments(out.stdout.toString()).map((d) => d.toJS() as Manifest);
}

/**
 * The schema errors of `objects`: kubernetes-models' validators accept unknown fields, so each
 * object is also written as a literal of its kind's interface and type-checked, which names
 * any field the API does not have (`readinessProb`).
 */
function schemaErrors(objects: Manifest[]): string[] {
  const errors: string[] = [];
  for (const m of objects)
    try {
      new MODELS[m.kind](m as never).validate();
    } catch (error) {
      errors.push(`${m.kind}: ${String(error)}`);
    }
  const check = mkdtempSync(join(root, '.k8s-check-'));
  try {
    const file = join(check, 'manifests.ts');
    writeFileSync(
      file,
      objects
        .map((m, i) => {
          const [module, type] = TYPES[m.kind];
          return `import type { ${type} as T${i} } from '${module}';\nexport const m${i}: T${i} = ${JSON.stringify(m)};\n`;
        })
        .join(''),
    );
    const tsc = Bun.spawnSync(
      [
        process.execPath,
        join(root, 'node_modules/typescript/lib/tsc.js'),
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--module',
        'esnext',
        '--moduleResolution',
        'bundler',
        '--target',
        'esnext',
        file,
      ],
      { cwd: root, stdout: 'pipe' },
    );
    if (tsc.exitCode !== 0) errors.push(...tsc.stdout.toString().trim().split('\n'));
  } finally {
    rmSync(check, { recursive: true, force: true });
  }
  return errors;
}

/** The ports a container declares, by name and by number. */
const declaredPorts = (c: { ports?: { name?: string; containerPort: number }[] }) =>
  new Set<string | number>((c.ports ?? []).flatMap((p) => [p.containerPort, ...(p.name ? [p.name] : [])]));

/** Probes whose port the container does not declare. */
function strayProbes(objects: Manifest[]): string[] {
  const stray: string[] = [];
  for (const d of objects.filter((m) => m.kind === 'Deployment') as unknown as Deployment[])
    for (const c of d.spec?.template.spec?.containers ?? []) {
      const ports = declaredPorts(c);
      for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'] as const) {
        const port = c[probe]?.httpGet?.port ?? c[probe]?.tcpSocket?.port;
        if (port !== undefined && !ports.has(port)) stray.push(`${c.name}.${probe} port ${port}`);
      }
    }
  return stray;
}

describe('the Kubernetes manifests', () => {
  test('every resource the kustomization lists exists and validates strictly against its Kubernetes schema', () => {
    expect(kustomization.resources.length).toBe(5);
    for (const file of kustomization.resources) expect(existsSync(join(folder, file))).toBe(true);
    for (const manifest of manifests) expect(manifest.apiVersion).toBe(MODELS[manifest.kind].apiVersion);
    expect(schemaErrors([...manifests, secretFile])).toEqual([]);
    expect(strayProbes(manifests)).toEqual([]);
  }, 120_000);

  test.skipIf(!KUBECTL)(
    'the kustomization renders (kubectl kustomize), and what it renders validates strictly',
    () => {
      const objects = rendered();
      expect(objects.map((m) => m.kind).sort()).toEqual(manifests.map((m) => m.kind).sort());
      expect(schemaErrors(objects)).toEqual([]);
      expect(strayProbes(objects)).toEqual([]);
    },
    120_000,
  );

  test('a misspelt field, a bad value and a probe on an undeclared port fail the checks (they can fail)', () => {
    const deployment = structuredClone(manifests.find((m) => m.kind === 'Deployment')!) as unknown as Deployment & Manifest;
    const container = deployment.spec!.template.spec!.containers[0]! as unknown as Record<string, unknown>;
    container.readinessProb = container.readinessProbe;
    (deployment.spec as unknown as Record<string, unknown>).replicas = 'two';
    const errors = schemaErrors([deployment]).join('\n');
    expect(errors).toContain("'\"readinessProb\"' does not exist in type 'IContainer'");
    expect(errors).toContain('replicas');
    deployment.spec!.template.spec!.containers[0]!.livenessProbe!.httpGet!.port = 'metrics';
    expect(strayProbes([deployment])).toEqual(['svc.livenessProbe port metrics']);
  }, 120_000);

  test('the ConfigMap holds a config that svc loads with every section valid', () => {
    const file = join(dir, 'svc.config.yaml');
    writeFileSync(file, byKind('ConfigMap').data!['svc.config.yaml']!);
    const config = loadConfig({ SVC_CONFIG: file }, checkConfigSections);
    expect(config.shutdownDrainSeconds).toBeGreaterThan(0);
  });

  test('the probes name routes svc serves, and the pod outlives the drain and the grace', async () => {
    const pod = byKind('Deployment').spec!.template.spec!;
    const container = pod.containers[0]!;
    expect(container.readinessProbe?.httpGet?.path).toBe('/ready');
    expect(container.livenessProbe?.httpGet?.path).toBe('/health/live');
    expect(container.startupProbe?.httpGet?.path).toBe('/health/live');
    const t = await startTestApp();
    try {
      for (const path of ['/ready', '/health/live']) expect((await t.app.handle(new Request(`http://localhost${path}`))).status).toBe(200);
    } finally {
      await t.close();
    }
    const file = join(dir, 'grace.yaml');
    writeFileSync(file, byKind('ConfigMap').data!['svc.config.yaml']!);
    const config = loadConfig({ SVC_CONFIG: file });
    // The readiness probe must see the drain's 503 before the listener closes.
    const probe = container.readinessProbe!;
    expect(config.shutdownDrainSeconds).toBeGreaterThan((probe.periodSeconds ?? 10) * (probe.failureThreshold ?? 3));
    expect(pod.terminationGracePeriodSeconds!).toBeGreaterThan(config.shutdownDrainSeconds + config.shutdownGraceSeconds);
    expect(container.env?.find((e) => e.name === 'SVC_CONFIG')?.value).toBe('/etc/svc/svc.config.yaml');
    expect(container.volumeMounts?.find((v) => v.name === 'config')?.mountPath).toBe('/etc/svc');
  });

  test('no secret is shipped: the Secret is created by hand, and its template holds no value', () => {
    expect(kustomization.resources).not.toContain('secret.yaml');
    const envFrom = byKind('Deployment').spec!.template.spec!.containers[0]!.envFrom ?? [];
    // Not optional: without the Secret the pods wait instead of starting on defaults.
    expect(envFrom.find((e) => e.secretRef?.name === secretFile.metadata.name)?.secretRef?.optional ?? false).toBe(false);
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'SVC_TOKEN_SECRET']) expect(secretFile.stringData[name]).toBe('');
    expect(readFileSync(join(folder, 'secret.yaml'), 'utf8')).toContain('kubectl create secret generic svc-secrets');
    expect(isPlaceholder('change-me-to-32-random-characters')).toBe(true);
  });

  test('the PDB and HPA keep two serving', () => {
    expect(byKind('PodDisruptionBudget').spec?.minAvailable).toBe(1);
    const hpa = byKind('HorizontalPodAutoscaler');
    expect(hpa.spec?.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec?.scaleTargetRef.name).toBe(byKind('Deployment').metadata!.name!);
    expect(byKind('Service').spec?.ports?.[0]?.targetPort).toBe('http');
  });
});
