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
import { parse } from 'yaml';
import { loadConfig } from '../../src/config';
import { checkConfigSections } from '../../src/config-sections';
import { startTestApp } from '../helpers/app';

// The kustomize manifests under deploy/kubernetes: every object valid against the Kubernetes
// API schemas (kubernetes-models), and wired to what svc really serves and needs.
const folder = join(import.meta.dir, '..', '..', 'deploy', 'kubernetes');
const dir = mkdtempSync(join(tmpdir(), 'svc-k8s-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MODELS = { Deployment, HorizontalPodAutoscaler, ConfigMap, Secret, Service, PodDisruptionBudget } as const;
type Manifest = { apiVersion: string; kind: keyof typeof MODELS; metadata: { name: string }; [key: string]: unknown };

const kustomization = parse(readFileSync(join(folder, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
const manifests: Manifest[] = kustomization.resources.map((file) => parse(readFileSync(join(folder, file), 'utf8')));
const byKind = <K extends keyof typeof MODELS>(kind: K) =>
  manifests.find((m) => m.kind === kind) as unknown as InstanceType<(typeof MODELS)[K]>;

describe('the Kubernetes manifests', () => {
  test('every resource the kustomization lists exists and validates against its Kubernetes schema', () => {
    expect(kustomization.resources.length).toBe(6);
    for (const file of kustomization.resources) expect(existsSync(join(folder, file))).toBe(true);
    for (const manifest of manifests) {
      const Model = MODELS[manifest.kind];
      expect(Model).toBeDefined();
      expect(manifest.apiVersion).toBe(Model.apiVersion);
      expect(() => new Model(manifest as never).validate()).not.toThrow();
    }
  });

  test('a broken object fails the schema check (the check can fail)', () => {
    const deployment = structuredClone(manifests.find((m) => m.kind === 'Deployment')!) as Manifest & { spec: { replicas: unknown } };
    deployment.spec.replicas = 'two';
    expect(() => new Deployment(deployment as never).validate()).toThrow();
  });

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

  test('the Secret carries what several instances must share, the PDB and HPA keep two serving', () => {
    const secret = byKind('Secret');
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'SVC_TOKEN_SECRET']) expect(secret.stringData?.[name]).toBeTruthy();
    expect(byKind('PodDisruptionBudget').spec?.minAvailable).toBe(1);
    const hpa = byKind('HorizontalPodAutoscaler');
    expect(hpa.spec?.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec?.scaleTargetRef.name).toBe(byKind('Deployment').metadata!.name!);
    expect(byKind('Service').spec?.ports?.[0]?.targetPort).toBe('http');
  });
});
