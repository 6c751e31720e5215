// The Dockerfile and compose.yaml as files: what can be checked without a container engine. compose.yaml
// parses as YAML (anchors and merge keys resolved as Compose does), its services are the API (stages off),
// a worker, MariaDB and RabbitMQ (Weaviate behind a profile), every QUIRE_* variable it sets is a real setting
// that loadConfig accepts, the database and queue URLs name the services and users compose creates, every
// Quire process shares one data volume, and health conditions point at services with health checks. The
// Dockerfile is multi-stage on node:20-bookworm-slim, installs the system packages with
// scripts/install-system-deps.sh, runs as a non-root user, keeps its data dir in a volume and checks /readyz.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ENV_VARS, loadConfig, unknownVariables } from '@quire/config';

const root = path.resolve(import.meta.dirname, '..');
const compose = parse(fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, { image?: string; build?: unknown; command?: string[]; environment?: Record<string, string>; volumes?: string[]; depends_on?: Record<string, { condition: string }>; healthcheck?: { test: string[] }; profiles?: string[] }>;
  volumes: Record<string, unknown>;
};
const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');

/** Compose's interpolation: ${X:-default} is the default, ${X:?error} a value a user must set (a 64-hex key here), ${X} empty. */
function interpolate(value: string): string {
  return String(value).replace(/\$\{([A-Z0-9_]+)(?::?([-?])([^}]*))?\}/g, (_, _name, op, arg) => (op === '-' ? arg : op === '?' ? 'ab'.repeat(32) : ''));
}

function envOf(service: string): Record<string, string> {
  const env = compose.services[service]!.environment ?? {};
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolate(String(v))]));
}

test('compose.yaml: the API with stages off, a worker, MariaDB and RabbitMQ; Weaviate behind a profile', () => {
  const names = Object.keys(compose.services).sort();
  assert.deepEqual(names, ['api', 'mariadb', 'rabbitmq', 'weaviate', 'worker']);
  assert.deepEqual(compose.services.weaviate!.profiles, ['weaviate']);
  assert.ok(compose.services.api!.build, 'the API service builds the image');
  assert.equal(compose.services.worker!.image, compose.services.api!.image, 'the worker runs the same image');
  assert.deepEqual(compose.services.api!.command, ['serve']);
  assert.deepEqual(compose.services.worker!.command, ['worker']);
  assert.equal(envOf('api').QUIRE_RUN_STAGES, 'false');
});

test('compose.yaml: every QUIRE_* variable is a Quire setting and the API and worker configurations load', () => {
  const known = new Set(ENV_VARS.map((v) => v.name));
  for (const service of ['api', 'worker']) {
    const env = envOf(service);
    for (const name of Object.keys(env)) if (name.startsWith('QUIRE_') || name === 'PORT' || name === 'HOST') assert.ok(known.has(name), `${service}: ${name} is not a Quire setting`);
    assert.deepEqual(unknownVariables(env), [], service);
    const cfg = loadConfig(env);
    assert.equal(cfg.dataDir, '/data');
    assert.equal(cfg.plugins.selected.transport, 'rabbitmq', `${service} runs its stages over RabbitMQ`);
  }
  assert.ok(envOf('worker').QUIRE_WORKER_HEALTH_PORT, 'the worker answers /readyz on a port of its own');
  // the same secrets on every process: signed links and stored secrets work whichever process reads them
  for (const name of ['QUIRE_SECRETS_KEY', 'QUIRE_SIGNING_SECRET', 'QUIRE_DB_URL', 'QUIRE_QUEUE_URL', 'QUIRE_QUEUE_PREFIX', 'QUIRE_DATA_DIR']) assert.equal(envOf('worker')[name], envOf('api')[name], name);
});

test('compose.yaml: database and queue URLs name the services and the users they create; one data volume for every Quire process', () => {
  const db = new URL(envOf('api').QUIRE_DB_URL!);
  const maria = envOf('mariadb');
  assert.equal(db.protocol, 'mysql:');
  assert.equal(db.hostname, 'mariadb');
  assert.equal(db.username, maria.MARIADB_USER);
  assert.equal(decodeURIComponent(db.password), maria.MARIADB_PASSWORD);
  assert.equal(db.pathname, `/${maria.MARIADB_DATABASE}`);
  const mq = new URL(envOf('api').QUIRE_QUEUE_URL!);
  const rabbit = envOf('rabbitmq');
  assert.equal(mq.hostname, 'rabbitmq');
  assert.equal(mq.username, rabbit.RABBITMQ_DEFAULT_USER);
  assert.equal(decodeURIComponent(mq.password), rabbit.RABBITMQ_DEFAULT_PASS);
  assert.equal(new URL(envOf('api').QUIRE_WEAVIATE_URL!).hostname, 'weaviate');

  const dataVolume = (service: string) => compose.services[service]!.volumes!.map((v) => v.split(':')).find(([, target]) => target === envOf(service).QUIRE_DATA_DIR);
  const api = dataVolume('api');
  assert.ok(api, 'the API keeps its data dir in a volume');
  assert.deepEqual(dataVolume('worker'), api, 'the worker mounts the same volume');
  assert.ok(api![0]! in compose.volumes, 'a named volume');

  for (const [name, s] of Object.entries(compose.services)) {
    for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
      assert.ok(compose.services[dep], `${name} depends on ${dep}, a service`);
      if (condition === 'service_healthy') assert.ok(compose.services[dep]!.healthcheck || (dep === 'api' && /HEALTHCHECK/.test(dockerfile)), `${name} waits for ${dep} to be healthy, which has a health check`);
    }
  }
  assert.match(compose.services.worker!.healthcheck!.test.join(' '), new RegExp(`:${envOf('worker').QUIRE_WORKER_HEALTH_PORT}/readyz`));
});

test('Dockerfile: multi-stage on node:20-bookworm-slim, system packages from scripts/install-system-deps.sh, npm ci, non-root, data volume, health check on /readyz', () => {
  assert.match(dockerfile, /^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
  const stages = [...dockerfile.matchAll(/^FROM (\S+)(?: AS (\S+))?$/gm)];
  assert.equal(stages.length, 2, 'a build stage and a runtime stage');
  for (const s of stages) assert.equal(s[1], '${NODE_IMAGE}');
  assert.match(dockerfile, /npm ci /);
  assert.match(dockerfile, /npm run build/);
  assert.match(dockerfile, /COPY --from=build/);
  const script = /COPY (scripts\/install-system-deps\.sh) /.exec(dockerfile)?.[1];
  assert.ok(script && fs.existsSync(path.join(root, script)), 'installs the system packages with the repository script');
  assert.match(dockerfile, /bash \/tmp\/install-system-deps\.sh/);
  const user = /^USER (\S+)$/m.exec(dockerfile)?.[1];
  assert.ok(user && user !== 'root' && user !== '0', 'runs as a non-root user');
  const dataDir = /QUIRE_DATA_DIR=(\S+)/.exec(dockerfile)?.[1];
  assert.ok(dataDir);
  assert.match(dockerfile, new RegExp(`^VOLUME \\["${dataDir}"\\]$`, 'm'));
  assert.match(dockerfile, /^HEALTHCHECK [\s\S]*?\/readyz/m);
  const port = /PORT=(\d+)/.exec(dockerfile)?.[1];
  assert.match(dockerfile, new RegExp(`^EXPOSE ${port}$`, 'm'));
  // what the entry point runs is what the build makes
  const entry = /ENTRYPOINT \[.*"\/app\/([^"]+\.js)"\]/.exec(dockerfile)?.[1];
  assert.equal(entry, 'server/dist/bin.js');
  assert.ok(fs.existsSync(path.join(root, 'server/src/bin.ts')));
  const ignore = fs.readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n');
  for (const p of ['node_modules', '**/dist', 'data', '.git']) assert.ok(ignore.includes(p), `.dockerignore leaves out ${p}`);
});

test('CI builds the image (a broken Dockerfile fails it)', () => {
  const ci = fs.readFileSync(path.join(root, '.ci/run'), 'utf8');
  assert.match(ci, /^\s*bash scripts\/build-image\.sh$/m);
  const script = fs.readFileSync(path.join(root, 'scripts/build-image.sh'), 'utf8');
  assert.match(script, /-t "\$TAG" \.$/m, 'it builds the Dockerfile of the repository root');
  assert.match(script, /scripts\/container-base\.sh/, 'with a base made from Debian packages when no registry is reachable');
});
