import { describe, expect, test } from 'bun:test';
import Ajv from 'ajv';
import { validate as validateDockerfile } from 'dockerfile-utils';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

// Static checks of the container files: CI machines have no Docker engine. The compose file
// is validated against the Compose Specification's JSON schema (vendored from
// compose-spec/compose-spec, schema/compose-spec.json), the Dockerfile by dockerfile-utils
// (the linter behind the VS Code Docker extension) plus the rules this project sets itself.
const root = join(import.meta.dir, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('Dockerfile', () => {
  const text = read('Dockerfile');
  const lines = text.split('\n').filter((l) => /^[A-Z]+\s/.test(l));
  const stages = text.split(/^FROM /m).slice(1);
  const final = stages.at(-1) ?? '';

  test('has no problems dockerfile-utils reports', () => {
    const problems = validateDockerfile(text, {}).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
    expect(problems).toEqual([]);
  });

  test('is multi-stage with pinned base images, and the runtime stage runs as a non-root user', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const from of lines.filter((l) => l.startsWith('FROM '))) expect(from).toMatch(/^FROM [a-z0-9./-]+:[\w.-]+( AS \w+)?$/);
    expect(text).not.toContain(':latest');
    const user = /^USER (\S+)/m.exec(final)?.[1];
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user!);
  });

  test('runs Bun from the npm package, with a health check on /health and SIGTERM as stop signal', () => {
    expect(final).toMatch(/^HEALTHCHECK .*\n?.*\/health/m);
    expect(final).toMatch(/^ENTRYPOINT \["\/app\/node_modules\/\.bin\/bun", "src\/index\.ts"\]/m);
    expect(final).toMatch(/^STOPSIGNAL SIGTERM/m);
    expect(text).toContain('npm ci --omit=dev');
    expect(final).toMatch(/^ARG SVC_VERSION/m);
  });

  test('copies every source folder the server imports', () => {
    for (const dir of ['src', 'providers', 'plugins', 'seed']) expect(final).toContain(`COPY ${dir} ./${dir}`);
  });
});

describe('compose.yaml', () => {
  // merge: the file shares the svc settings through a YAML merge key (`<<: *svc`), as Compose reads it.
  const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, Record<string, unknown>> };
  // Its `$schema` names draft-07 by an https URL Ajv does not know; Ajv's default meta-schema is draft-07.
  const { $schema: _draft, ...schema } = JSON.parse(read('.ci/schemas/compose-spec.json'));

  test('is valid against the Compose Specification schema', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const check = ajv.compile(schema);
    const ok = check(compose);
    expect(check.errors?.map((e) => `${e.instancePath} ${e.message}`) ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  test('the schema check catches a mistake (so the test above can fail)', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const broken = structuredClone(compose);
    (broken.services.redis as Record<string, unknown>).healthcheck = { test: ['CMD', 'redis-cli', 'ping'], intervall: '5s' };
    expect(ajv.validate(schema, broken)).toBe(false);
  });

  test('runs Postgres, Redis and two svc instances behind a load balancer, each dependency checked healthy', () => {
    const { services } = compose;
    expect(Object.keys(services).sort()).toEqual(['lb', 'postgres', 'redis', 'svc-1', 'svc-2']);
    for (const name of ['svc-1', 'svc-2']) {
      const svc = services[name] as {
        build: { context: string; args: Record<string, string> };
        environment: Record<string, string>;
        depends_on: Record<string, { condition: string }>;
      };
      expect(svc.build.context).toBe('.');
      expect(svc.build.args).toHaveProperty('SVC_VERSION');
      expect(svc.environment.DATABASE_URL).toContain('@postgres:5432/');
      expect(svc.environment.REDIS_URL).toBe('redis://redis:6379');
      expect(svc.environment.SVC_TOKEN_SECRET).toBeDefined();
      expect(svc.depends_on.postgres?.condition).toBe('service_healthy');
      expect(svc.depends_on.redis?.condition).toBe('service_healthy');
    }
    const lb = services.lb as { volumes: string[]; depends_on: Record<string, unknown> };
    expect(Object.keys(lb.depends_on).sort()).toEqual(['svc-1', 'svc-2']);
    const caddyfile = lb.volumes[0]!.split(':')[0]!;
    expect(existsSync(join(root, caddyfile))).toBe(true);
    expect(read(caddyfile)).toContain('reverse_proxy {$SVC_UPSTREAMS:svc-1:8080 svc-2:8080}');
    expect(read(caddyfile)).toMatch(/health_uri \/ready/);
  });

  test('refuses to start without its secrets: no published default password or token secret', () => {
    const text = read('compose.yaml');
    for (const secret of ['POSTGRES_PASSWORD', 'SVC_TOKEN_SECRET']) {
      const uses = [...text.matchAll(new RegExp(`\\$\\{${secret}([^}]*)\\}`, 'g'))].map((m) => m[1]!);
      expect(uses.length).toBeGreaterThan(0);
      // `${NAME:?message}`: Compose stops with the message when NAME is unset or empty.
      for (const use of uses) expect(use.startsWith(':?')).toBe(true);
      expect(read('.env.example')).toMatch(new RegExp(`^${secret}=`, 'm'));
    }
  });
});
