import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeSnapshot, parseSnapshot, recommendFixes, withRecommendations } from '@zw/core';

/**
 * The `zonewise` command as users run it: the built binary, real files and pipes, exit codes and
 * stderr. The build is refreshed first (a no-op when nothing changed).
 */

const root = resolve(__dirname, '../../..');
const bin = join(root, 'bin/zonewise.js');
const eksSnapshot = join(__dirname, 'fixtures/eks-snapshot.json');
let scratch: string;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function zonewise(args: string[], input?: string): Run {
  const result = spawnSync(process.execPath, [bin, ...args], { input, encoding: 'utf8', maxBuffer: 256 << 20 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- contract JSON, checked field by field below
function json(run: Run): any {
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout);
}

function expectBadInput(run: Run, ...fragments: string[]): void {
  expect(run.status).toBe(2);
  expect(run.stdout).toBe('');
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^zonewise: /);
  for (const fragment of fragments) expect(lines[0]).toContain(fragment);
}

function writeScratch(name: string, content: string): string {
  const file = join(scratch, name);
  writeFileSync(file, content);
  return file;
}

beforeAll(() => {
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'apps/cli'], { cwd: root });
  scratch = mkdtempSync(join(tmpdir(), 'zonewise-cli-'));
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a reader that stops early (| head)', () => {
  /** Runs `zonewise …args | head -c 100` in bash; zonewise's own exit code and stderr. */
  function intoHead(args: string[]): { status: string; stderr: string; head: string } {
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} ${args.map((arg) => JSON.stringify(arg)).join(' ')} 2>"$ERR" | head -c 100; echo "\${PIPESTATUS[0]}" >"$STATUS"`;
    const err = join(scratch, 'head.err');
    const status = join(scratch, 'head.status');
    const head = execFileSync('bash', ['-c', command], {
      env: { ...process.env, ERR: err, STATUS: status },
      encoding: 'utf8',
    });
    return { status: readFileSync(status, 'utf8').trim(), stderr: readFileSync(err, 'utf8'), head };
  }

  it('ends every command quietly with exit 0, no stack trace, whatever it was writing', () => {
    // Megabytes of output, far past what a pipe buffers, so the write meets the closed pipe.
    const big = join(scratch, 'big.json');
    const out = openSync(big, 'w');
    execFileSync(process.execPath, [bin, 'generate', '--services', '3000', '--nodes', '60'], {
      stdio: ['ignore', out, 'inherit'],
    });
    closeSync(out);
    for (const args of [
      ['generate', '--services', '3000', '--nodes', '60'],
      ['analyze', big],
      ['fix', big],
      ['fix', big, '--json'],
      ['endpoints', big, '--node', 'node-00001'],
    ]) {
      const run = intoHead(args);
      expect(run.head.length, args.join(' ')).toBe(100);
      expect(run.stderr, args.join(' ')).toBe('');
      expect(run.status, args.join(' ')).toBe('0');
    }
  });
});

describe('zonewise cidr', () => {
  it('prints the contract JSON for 10.96.0.0/16, /20 and /24', () => {
    expect(json(zonewise(['cidr', '10.96.0.0/16']))).toEqual({
      cidr: '10.96.0.0/16',
      family: 'IPv4',
      size: 65534,
      bandOffset: 256,
      staticBand: { first: '10.96.0.1', last: '10.96.1.0' },
      dynamicBand: { first: '10.96.1.1', last: '10.96.255.254' },
    });
    expect(json(zonewise(['cidr', '10.96.0.0/24']))).toMatchObject({
      size: 254,
      bandOffset: 16,
      staticBand: { first: '10.96.0.1', last: '10.96.0.16' },
      dynamicBand: { first: '10.96.0.17', last: '10.96.0.254' },
    });
    expect(json(zonewise(['cidr', '10.96.0.0/20']))).toMatchObject({
      size: 4094,
      bandOffset: 256,
      staticBand: { first: '10.96.0.1', last: '10.96.1.0' },
      dynamicBand: { first: '10.96.1.1', last: '10.96.15.254' },
    });
  });

  it('reads a CIDR with host bits set as its network, with a warning on stderr', () => {
    const run = zonewise(['cidr', '10.96.0.5/16']);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).cidr).toBe('10.96.0.0/16');
    expect(run.stderr).toMatch(/^zonewise: warning: .*host bits/);
  });

  it('gives IPv6 bands, a decimal-string size past 2^53, and allocatable false below /64', () => {
    const wide = json(zonewise(['cidr', 'fd00::/64']));
    expect(wide.size).toBe('18446744073709551615');
    expect(wide.staticBand).toEqual({ first: 'fd00::1', last: 'fd00::100' });
    const refused = json(zonewise(['cidr', 'fd00::/48']));
    expect(refused.allocatable).toBe(false);
    expect(refused.reason).toContain('shortest allowed prefix length for service CIDR is 64, got 48');
  });

  it.each([['banana'], ['10.96.0.0/33'], ['10.96.0.300/16']])('rejects %s with exit code 2', (cidr) => {
    expectBadInput(zonewise(['cidr', cidr]), cidr);
  });
});

describe('zonewise analyze', () => {
  it('analyzes real kubectl JSON exactly as the core does, with the contract fields', () => {
    const report = json(zonewise(['analyze', eksSnapshot]));
    const snapshot = parseSnapshot(JSON.parse(readFileSync(eksSnapshot, 'utf8')));
    const analysis = analyzeSnapshot(snapshot);
    const expected = withRecommendations(analysis, recommendFixes(snapshot, analysis));
    expect(report).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(report.schemaVersion).toBe(1);
    expect(report.nodeInfo.sufficient).toBe(true);
    expect(report.nodeInfo.zones.map((zone: { name: string }) => zone.name)).toEqual([
      'us-east-1a',
      'us-east-1b',
      'us-east-1c',
    ]);
    const byName = Object.fromEntries(report.services.map((service: { name: string }) => [service.name, service]));
    expect(byName.checkout).toMatchObject({ routing: 'Auto', hints: { state: 'populated', reason: null } });
    expect(byName.cart).toMatchObject({
      routing: 'Auto',
      hints: { state: 'removed', reason: 'Insufficient number of endpoints (2 endpoints, 3 zones)' },
      events: [
        {
          type: 'Warning',
          reason: 'TopologyAwareHintsDisabled',
          message: 'Insufficient number of endpoints (2 endpoints, 3 zones), addressType: IPv4',
        },
      ],
    });
    expect(byName.search).toMatchObject({ routing: 'PreferClose', hints: { state: 'populated' } });
    expect(byName.ledger).toMatchObject({ routing: 'None', hints: { state: 'none', reason: null }, events: [] });
    for (const service of report.services) {
      expect(Object.keys(service)).toEqual(
        expect.arrayContaining([
          'namespace',
          'name',
          'routing',
          'hints',
          'events',
          'endpointSlices',
          'zones',
          'crossZone',
          'recommendations',
        ]),
      );
    }
    const [cidr] = report.serviceCIDRs;
    expect(cidr).toMatchObject({ cidr: '172.20.0.0/16', source: 'kubernetes', ready: true, bandOffset: 256 });
    expect(cidr.risks.map((risk: { ip: string }) => risk.ip)).toEqual(['172.20.45.3']);
    expect(cidr.wellKnown.find((entry: { ip: string }) => entry.ip === '172.20.0.10')).toMatchObject({
      free: false,
      heldBy: ['kube-system/kube-dns'],
    });
  });

  it('reads the snapshot from stdin with -', () => {
    const fromStdin = json(zonewise(['analyze', '-'], readFileSync(eksSnapshot, 'utf8')));
    expect(fromStdin).toEqual(json(zonewise(['analyze', eksSnapshot])));
  });

  it('malformed JSON: exit 2 naming the file', () => {
    expectBadInput(
      zonewise(['analyze', writeScratch('broken.json', '{"kind":"List","items":[')]),
      'broken.json',
      'not valid JSON',
    );
  });

  it('a CPU quantity that is not a quantity: exit 2 naming the file and JSON path', () => {
    const snapshot = JSON.parse(readFileSync(eksSnapshot, 'utf8'));
    snapshot.items[1].status.allocatable.cpu = '4 cores';
    expectBadInput(
      zonewise(['analyze', writeScratch('bad-cpu.json', JSON.stringify(snapshot))]),
      'bad-cpu.json',
      'items[1].status.allocatable.cpu',
      '"4 cores"',
    );
  });

  it('a wrong type deep inside: exit 2 with the path', () => {
    const snapshot = JSON.parse(readFileSync(eksSnapshot, 'utf8'));
    const sliceIndex = snapshot.items.findIndex((item: { kind: string }) => item.kind === 'EndpointSlice');
    snapshot.items[sliceIndex].endpoints[2].conditions.ready = 'true';
    expectBadInput(
      zonewise(['analyze', '-'], JSON.stringify(snapshot)),
      'stdin',
      `items[${sliceIndex}].endpoints[2].conditions.ready`,
    );
  });

  it('an object listed twice (two kubectl outputs concatenated): exit 2 naming both JSON paths', () => {
    const snapshot = JSON.parse(readFileSync(eksSnapshot, 'utf8'));
    const count = snapshot.items.length;
    const twice = { ...snapshot, items: [...snapshot.items, ...snapshot.items] };
    const first = snapshot.items[0] as { kind: string; metadata: { name: string } };
    for (const command of ['analyze', 'fix']) {
      expectBadInput(
        zonewise([command, writeScratch('twice.json', JSON.stringify(twice))]),
        'twice.json',
        `items[${count}]: the same object as items[0] (${first.kind} ${first.metadata.name}): each object may appear once`,
      );
    }
  });

  it('a captured-at on a day that does not exist: exit 2 naming the annotation', () => {
    const snapshot = JSON.parse(readFileSync(eksSnapshot, 'utf8'));
    snapshot.metadata = { annotations: { 'zonewise.io/captured-at': '2026-02-30T00:00:00Z' } };
    expectBadInput(
      zonewise(['analyze', '-'], JSON.stringify(snapshot)),
      'metadata.annotations["zonewise.io/captured-at"]',
      'expected an RFC 3339 timestamp of a real date and time',
    );
  });

  it('a missing file, a directory, and no argument: exit 2', () => {
    expectBadInput(zonewise(['analyze', join(scratch, 'nope.json')]), 'nope.json', 'ENOENT');
    expectBadInput(zonewise(['analyze', scratch]), 'is a directory');
    expectBadInput(zonewise(['analyze']), "missing required argument 'file'");
  });

  it('an unknown command or option: exit 2', () => {
    expectBadInput(zonewise(['analyse', eksSnapshot]), "unknown command 'analyse'");
    expectBadInput(zonewise(['analyze', eksSnapshot, '--fast']), "unknown option '--fast'");
  });
});

describe('zonewise analyze: recommendations', () => {
  it('each Service carries its fixes in the contract shape; one that routes in-zone carries none', () => {
    const report = json(zonewise(['analyze', eksSnapshot]));
    const byName = Object.fromEntries(report.services.map((service: { name: string }) => [service.name, service]));
    expect(byName.checkout.recommendations).toEqual([]);
    const [first] = byName.cart.recommendations;
    expect(first).toMatchObject({ kind: 'replicas', resultingState: 'populated' });
    // 2 endpoints over CPU shares of about 1/3, 1/2 and 1/6: 3, 4 and 5 still fail, 6 work.
    expect(Object.values(first.endpointsToAdd as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(4);
    expect(first.crossZone).toEqual({ withHints: expect.any(Number) });
    expect(Object.keys(first.expectedOverload)).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
    expect(first.patch).toContain('kubectl scale deployment/cart');
    expect(first.workload).toEqual({ kind: 'Deployment', namespace: 'shop', name: 'cart' });
    expect(typeof first.summary).toBe('string');
    expect(report.nodeBlockers).toBeNull();
  });

  /** The fixture with shop/cart's Pods owned as `owner` says (null: no Pods or ReplicaSets at all). */
  function withCartOwner(owner: { kind: string; name: string } | null): string {
    const list = JSON.parse(readFileSync(eksSnapshot, 'utf8')) as {
      items: { kind: string; metadata: { name: string; namespace?: string; ownerReferences?: unknown[] } }[];
    };
    list.items = list.items.filter((item) => {
      if (owner === null) return item.kind !== 'Pod' && item.kind !== 'ReplicaSet';
      if (item.kind === 'Pod' && item.metadata.name.startsWith('cart-')) {
        item.metadata.ownerReferences = [
          { apiVersion: 'apps/v1', kind: owner.kind, name: owner.name, controller: true },
        ];
      }
      return true;
    });
    return JSON.stringify(list);
  }

  it('a StatefulSet-backed Service (Pod ownerReferences, as kubectl get pods prints them) is scaled as that StatefulSet', () => {
    const report = json(zonewise(['analyze', '-'], withCartOwner({ kind: 'StatefulSet', name: 'cart-store' })));
    const [first] = report.services.find((service: { name: string }) => service.name === 'cart').recommendations;
    expect(first.workload).toEqual({ kind: 'StatefulSet', namespace: 'shop', name: 'cart-store' });
    expect(first.patch).toContain('kubectl scale statefulset/cart-store -n shop --replicas=6');
    expect(first.patch).not.toContain('deployment/');
  });

  it('without Pods the owner is unknown: the fix says so and names no guessed Deployment', () => {
    const report = json(zonewise(['analyze', '-'], withCartOwner(null)));
    const [first] = report.services.find((service: { name: string }) => service.name === 'cart').recommendations;
    expect(first.workload).toBeNull();
    expect(first.patch).toContain('# the workload behind Service shop/cart is not known');
    expect(first.patch).not.toMatch(/^kubectl scale/m);
  });
});

describe('zonewise fix', () => {
  it('prints the fixes for a person: the Service, why, and each fix with its outcome and commands', () => {
    const run = zonewise(['fix', eksSnapshot, '--service', 'shop/cart']);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^shop\/cart \(routing Auto, hints removed: Insufficient number of endpoints/);
    expect(lines[1]).toMatch(/^ {2}1\. replicas: Add 4 ready endpoints/);
    expect(run.stdout).toContain('after: hints populated;');
    expect(run.stdout).toContain('kubectl scale deployment/cart -n shop --replicas=6');
  });

  it('--json prints the same fixes as analyze, for the chosen Service', () => {
    const fixes = json(zonewise(['fix', eksSnapshot, '--service', 'shop/cart', '--json']));
    const report = json(zonewise(['analyze', eksSnapshot]));
    const cart = report.services.find((service: { name: string }) => service.name === 'cart');
    expect(fixes.services).toEqual([{ namespace: 'shop', name: 'cart', recommendations: cart.recommendations }]);
    expect(fixes.nodeBlockers).toBeNull();
  });

  it('--history: a Service seen at counts the controller cannot all allocate gets a replica floor', () => {
    const history = writeScratch('history.json', JSON.stringify({ 'shop/checkout': [4, 5, 6] }));
    const fixes = json(zonewise(['fix', eksSnapshot, '--service', 'shop/checkout', '--history', history, '--json']));
    const [stability] = fixes.services[0].recommendations;
    expect(stability.kind).toBe('replicas');
    expect(stability.stability.countsSeen).toEqual([4, 5, 6]);
    expect(stability.patch).toContain(`"minReplicas":${stability.stability.minReplicas}`);
  });

  it('a ready node without a zone label: the cluster-wide blocker comes first, with the Services that depend on it', () => {
    const snapshot = JSON.parse(readFileSync(eksSnapshot, 'utf8'));
    const node = snapshot.items.find((item: { kind: string }) => item.kind === 'Node');
    delete node.metadata.labels['topology.kubernetes.io/zone'];
    const file = writeScratch('stray-node.json', JSON.stringify(snapshot));
    const run = zonewise(['fix', file]);
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(
      `Cluster: 1 node disables hints for every Service: ${node.metadata.name} (no zone label)`,
    );
    expect(run.stdout).toContain(`kubectl label node ${node.metadata.name} topology.kubernetes.io/zone=`);
    const fixes = json(zonewise(['fix', file, '--json']));
    expect(fixes.nodeBlockers.nodes).toEqual([
      { name: node.metadata.name, problem: 'no zone label', missingZone: true, zeroCpu: false },
    ]);
    expect(fixes.nodeBlockers.services).toBeGreaterThan(0);
  });

  it('bad input: an unknown Service, a malformed --service, a malformed history: exit 2 naming the problem', () => {
    expectBadInput(zonewise(['fix', eksSnapshot, '--service', 'shop/nope']), 'no Service shop/nope');
    expectBadInput(zonewise(['fix', eksSnapshot, '--service', 'cart']), 'expected namespace/name');
    const history = writeScratch('bad-history.json', JSON.stringify({ 'shop/cart': [4, 'five'] }));
    expectBadInput(zonewise(['fix', eksSnapshot, '--history', history]), 'bad-history.json', 'shop/cart');
  });
});

describe('zonewise endpoints', () => {
  it('shows what kube-proxy on a node uses, from the hints in the snapshot', () => {
    const report = json(zonewise(['endpoints', eksSnapshot, '--node', 'ip-10-0-48-12.ec2.internal']));
    expect(report).toMatchObject({ node: 'ip-10-0-48-12.ec2.internal', zone: 'us-east-1b' });
    const search = report.services.find((service: { name: string }) => service.name === 'search');
    // search (PreferClose) has own-zone hints: two of its four endpoints are in us-east-1b.
    expect(search).toMatchObject({ topologyFiltered: true, reason: null, localEndpoints: null });
    expect(search.clusterEndpoints).toHaveLength(2);
    const ledger = report.services.find((service: { name: string }) => service.name === 'ledger');
    expect(ledger.topologyFiltered).toBe(false);
    expect(ledger.clusterEndpoints).toHaveLength(2);
    for (const service of report.services) {
      expect([...(service.clusterEndpoints ?? [])]).toEqual([...(service.clusterEndpoints ?? [])].sort());
    }
  });

  it('--computed uses the hints analyze computes (cart loses its stale hints)', () => {
    const node = ['--node', 'ip-10-0-16-10.ec2.internal'];
    const observed = json(zonewise(['endpoints', eksSnapshot, ...node]));
    const computed = json(zonewise(['endpoints', eksSnapshot, ...node, '--computed']));
    const cart = (report: { services: { name: string; topologyFiltered: boolean }[] }) =>
      report.services.find((service) => service.name === 'cart')!;
    expect(cart(observed).topologyFiltered).toBe(true);
    expect(cart(computed).topologyFiltered).toBe(false);
  });

  it('an unknown node or a missing --node: exit 2', () => {
    expectBadInput(zonewise(['endpoints', eksSnapshot, '--node', 'ghost']), 'node "ghost" is not in the snapshot');
    expectBadInput(zonewise(['endpoints', eksSnapshot]), "required option '--node <name>' not specified");
  });
});

describe('zonewise generate', () => {
  it('writes a synthetic snapshot that analyze accepts', () => {
    const generated = zonewise([
      'generate',
      '--nodes',
      '12',
      '--zones',
      '3',
      '--services',
      '5',
      '--endpoints-per-service',
      '6',
    ]);
    expect(generated.status).toBe(0);
    const list = JSON.parse(generated.stdout);
    expect(list.items.filter((item: { kind: string }) => item.kind === 'Node')).toHaveLength(12);
    const report = json(zonewise(['analyze', '-'], generated.stdout));
    expect(report.services).toHaveLength(7);
  });

  it.each([
    [['--nodes', '-3'], '--nodes'],
    [['--nodes', 'many'], 'expected a whole number, got "many"'],
    [['--auto-share', '1.5'], 'expected a fraction between 0 and 1'],
    [['--zone-cpu-weights', '1,x'], 'expected positive numbers'],
    [['--zones', '0'], 'zones must be between 1 and 26'],
  ])('rejects %j with exit code 2', (args, fragment) => {
    expectBadInput(zonewise(['generate', ...args]), fragment);
  });
});

describe('zonewise --help and --version', () => {
  it('exit 0', () => {
    expect(zonewise(['--version']).status).toBe(0);
    const help = zonewise(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('analyze');
  });
});

describe('zonewise analyze and endpoints: Kubernetes version and data plane', () => {
  const eks = () => JSON.parse(readFileSync(eksSnapshot, 'utf8'));
  const withListAnnotations = (annotations: Record<string, string>) => {
    const snapshot = eks();
    snapshot.metadata = { ...snapshot.metadata, annotations };
    return snapshot;
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- contract JSON
  const service = (report: any, name: string) => report.services.find((entry: { name: string }) => entry.name === name);

  it('defaults to the newest modelled version on kube-proxy, saying so', () => {
    const report = json(zonewise(['analyze', eksSnapshot]));
    expect(report).toMatchObject({
      kubernetesVersion: '1.35',
      kubernetesVersionSource: 'default',
      dataPlane: { name: 'kube-proxy', source: 'default' },
    });
    expect(service(report, 'checkout')).toMatchObject({
      managedBy: 'endpointslice-controller',
      dataPath: { honoursHints: true, reason: null },
    });
  });

  it('the same snapshot: PreferClose is ignored on 1.30 and routes in-zone on 1.31 (KEP-4444 beta)', () => {
    const v130 = json(zonewise(['analyze', eksSnapshot, '--kubernetes-version', '1.30']));
    const v131 = json(zonewise(['analyze', eksSnapshot, '--kubernetes-version', '1.31']));
    expect(v130).toMatchObject({ kubernetesVersion: '1.30', kubernetesVersionSource: 'flag' });
    expect(service(v130, 'search')).toMatchObject({ routing: 'None', hints: { state: 'none' } });
    expect(service(v131, 'search')).toMatchObject({ routing: 'PreferClose', hints: { state: 'populated' } });
    expect(service(v131, 'search').crossZone.withHints).toBeLessThan(service(v130, 'search').crossZone.withHints);
  });

  it('the same snapshot: hints count on kube-proxy, not on Cilium without service topology', () => {
    const cilium = json(zonewise(['analyze', eksSnapshot, '--data-plane', 'cilium-no-topology']));
    expect(cilium.dataPlane).toEqual({ name: 'cilium-no-topology', source: 'flag' });
    const checkout = service(cilium, 'checkout');
    expect(checkout.hints.state).toBe('populated');
    expect(checkout.dataPath.honoursHints).toBe(false);
    expect(checkout.dataPath.reason).toContain('loadBalancer.serviceTopology');
    expect(checkout.crossZone.withHints).toBe(checkout.crossZone.withoutHints);
    expect(cilium.summary.servicesWithIgnoredHints).toBeGreaterThan(0);
  });

  it('reads the List annotations; the flags win over them', () => {
    const file = writeScratch(
      'annotated.json',
      JSON.stringify(
        withListAnnotations({ 'zonewise.io/kubernetes-version': 'v1.31.4', 'zonewise.io/data-plane': 'antrea' }),
      ),
    );
    expect(json(zonewise(['analyze', file]))).toMatchObject({
      kubernetesVersion: '1.31',
      kubernetesVersionSource: 'snapshot',
      dataPlane: { name: 'antrea', source: 'snapshot' },
    });
    expect(
      json(zonewise(['analyze', file, '--kubernetes-version', '1.34', '--data-plane', 'kube-proxy'])),
    ).toMatchObject({
      kubernetesVersion: '1.34',
      kubernetesVersionSource: 'flag',
      dataPlane: { name: 'kube-proxy', source: 'flag' },
    });
  });

  it('endpoints: a data plane that ignores hints programs every endpoint on the node', () => {
    const node = 'ip-10-0-16-10.ec2.internal';
    const onKubeProxy = json(zonewise(['endpoints', eksSnapshot, '--node', node]));
    const onWindows = json(zonewise(['endpoints', eksSnapshot, '--node', node, '--data-plane', 'windows-kube-proxy']));
    expect(onKubeProxy).toMatchObject({ kubernetesVersion: '1.35', dataPlane: { name: 'kube-proxy' } });
    expect(service(onKubeProxy, 'search').topologyFiltered).toBe(true);
    expect(service(onWindows, 'search').topologyFiltered).toBe(false);
    expect(service(onWindows, 'search').reason).toContain('winkernel');
    expect(service(onWindows, 'search').clusterEndpoints.length).toBeGreaterThan(
      service(onKubeProxy, 'search').clusterEndpoints.length,
    );
  });

  it.each([
    [['--kubernetes-version', '1.3x'], 'expected a Kubernetes version MAJOR.MINOR such as 1.31, got "1.3x"'],
    [['--kubernetes-version', 'v1.31'], 'got "v1.31"'],
    [['--kubernetes-version', '2.0'], 'got "2.0"'],
    [
      ['--data-plane', 'flannel'],
      'unknown data plane "flannel" (expected one of kube-proxy, cilium, cilium-no-topology',
    ],
  ])('analyze %j: exit 2 naming the problem', (args, fragment) => {
    expectBadInput(zonewise(['analyze', eksSnapshot, ...args]), fragment);
    expectBadInput(zonewise(['endpoints', eksSnapshot, '--node', 'x', ...args]), fragment);
  });

  it('an annotation that names no version or no known data plane: exit 2 naming the file and the annotation', () => {
    const badVersion = writeScratch(
      'bad-version.json',
      JSON.stringify(withListAnnotations({ 'zonewise.io/kubernetes-version': 'latest' })),
    );
    expectBadInput(zonewise(['analyze', badVersion]), 'bad-version.json', 'zonewise.io/kubernetes-version', '"latest"');
    const badPlane = writeScratch(
      'bad-plane.json',
      JSON.stringify(withListAnnotations({ 'zonewise.io/data-plane': 'x' })),
    );
    expectBadInput(zonewise(['analyze', badPlane]), 'bad-plane.json', 'unknown data plane "x"', 'windows-kube-proxy');
  });
});
