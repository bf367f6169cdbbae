import { type DataPlaneName, seededRandom } from '@zw/core';
import {
  type ClusterState,
  type NodePool,
  type RoutingChoice,
  type ServiceSpec,
  stringHash,
  wellKnownServices,
} from './cluster-model.js';

/**
 * The demo fleet: six clusters that show what zonewise is for, each evolving tick by tick.
 * - aws-prod-us-east-1: a large AWS cluster over us-east-1a/b/c. `shop/checkout` has 4 endpoints over 3
 *   zones (2/1/1), which the controller refuses to hint (33 % overload > 20 %); `shop/search` scales
 *   with a daily load curve; `payments/ledger-proxy` holds a static ClusterIP in the dynamic band.
 * - gcp-analytics-europe-west1: a smaller GKE cluster over europe-west1-b/c/d with uneven zones and
 *   mostly `trafficDistribution: PreferClose` Services.
 * - aws-batch-us-west-2: spot capacity in us-west-2c comes and goes, so the CPU ratios swing and the
 *   hints of the Auto Services flap; its controller also lags a tick behind (observed hints drift).
 * - onprem-lab: racks as zones, control-plane nodes, no ServiceCIDR objects (Kubernetes 1.31, the
 *   agent's --service-cidr), and now and then a new worker that has no zone label yet.
 * - eks-legacy-eu-central-1: Kubernetes 1.31, where `orders/order-api` asks for
 *   `trafficDistribution: PreferSameZone`, which that version does not know (it arrived in 1.33).
 * - azure-cilium-westeurope: Cilium replacing kube-proxy with service topology off: the controller
 *   writes hints, and nothing that routes the traffic reads them.
 * Each cluster's Kubernetes version and data plane reach its snapshots as the agent reports them.
 * Every cluster has `kube-system/kube-dns` on the conventional static ClusterIP.
 * Given the seed, a cluster's state at a tick is always the same.
 */

export interface ClusterScenario {
  name: string;
  cloud: 'aws' | 'gcp' | 'azure' | 'other';
  region: string | null;
  /** What the simulated agent reports: `/version`'s MAJOR.MINOR and the detected data plane. */
  kubernetesVersion: string;
  dataPlane: DataPlaneName;
  /** USD per GB crossing zones; null: the cloud's list price. */
  crossZonePricePerGb: number | null;
  state(tick: number, seed: number): ClusterState;
  /** The controller shows the previous tick's hints (a slow or busy kube-controller-manager). */
  lagsHints: boolean;
}

type Random = () => number;

function randomFor(seed: number, ...parts: (string | number)[]): Random {
  return seededRandom(stringHash(`${seed}:${parts.join(':')}`));
}

/** `total` pods spread evenly over the zones (as topologySpreadConstraints do), starting at a per-Service zone. */
export function spread(total: number, zones: number, name: string): number[] {
  const counts = Array.from({ length: zones }, () => 0);
  const start = stringHash(name) % zones;
  for (let i = 0; i < total; i++) counts[(start + i) % zones]++;
  return counts;
}

/** A smooth daily load curve between 0 and 1 (one day = `period` ticks), peaking mid-period. */
function dailyLoad(tick: number, period: number): number {
  return (1 - Math.cos((2 * Math.PI * (tick % period)) / period)) / 2;
}

const TEAMS = ['search', 'identity', 'orders', 'inventory', 'notifications', 'media', 'billing', 'growth'];
const COMPONENTS = ['api', 'worker', 'cache', 'gateway', 'indexer', 'events', 'reports', 'sync', 'auth', 'feed'];

/**
 * Background Services with fixed traits per seed and a little life per tick: autoscaling steps and
 * rollouts (some pods not ready).
 */
function backgroundServices(
  seed: number,
  cluster: string,
  count: number,
  zones: number,
  tick: number,
  mix: Record<'Auto' | 'PreferClose' | 'None', number>,
): ServiceSpec[] {
  const services: ServiceSpec[] = [];
  for (let i = 0; i < count; i++) {
    const traits = randomFor(seed, cluster, 'service', i);
    const team = TEAMS[Math.floor(traits() * TEAMS.length)];
    const name = `${COMPONENTS[Math.floor(traits() * COMPONENTS.length)]}-${i + 1}`;
    const pick = traits();
    const routing: RoutingChoice =
      pick < mix.Auto ? 'Auto' : pick < mix.Auto + mix.PreferClose ? 'PreferClose' : 'None';
    const base = 2 + Math.floor(traits() * 10);
    const life = randomFor(seed, cluster, 'service', i, tick);
    const replicas = Math.max(1, base + (life() < 0.2 ? Math.floor(life() * 5) - 2 : 0));
    const rollingOut = life() < 0.1;
    services.push({
      namespace: team,
      name,
      routing,
      podsPerZone: spread(replicas, zones, name),
      ...(rollingOut ? { notReadyPerZone: spread(Math.ceil(replicas / 3), zones, `${name}-surge`) } : {}),
    });
  }
  return services;
}

const awsProd: ClusterScenario = {
  name: 'aws-prod-us-east-1',
  cloud: 'aws',
  region: 'us-east-1',
  kubernetesVersion: '1.34',
  dataPlane: 'kube-proxy',
  crossZonePricePerGb: null,
  lagsHints: false,
  state(tick, seed) {
    const zones = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
    const load = dailyLoad(tick, 48);
    const extraNodes = Math.round(load * 3); // the cluster autoscaler follows the load
    const pools: NodePool[] = [
      {
        prefix: 'ip-10-0-general',
        perZone: [6 + extraNodes, 6 + extraNodes, 6 + extraNodes],
        allocatableCpu: '7910m',
        instanceType: 'm6i.2xlarge',
        labels: { 'eks.amazonaws.com/nodegroup': 'general' },
      },
      {
        prefix: 'ip-10-0-memory',
        perZone: [2, 2, 1],
        allocatableCpu: '3920m',
        instanceType: 'r6i.xlarge',
        labels: { 'eks.amazonaws.com/nodegroup': 'memory' },
      },
    ];
    const services: ServiceSpec[] = [
      ...wellKnownServices('10.100.0.0/16', 3),
      {
        namespace: 'shop',
        name: 'frontend',
        routing: 'Auto',
        podsPerZone: spread(9 + Math.round(load * 6), 3, 'frontend'),
      },
      // 4 endpoints in 3 equal zones: 2/1/1. Proportional hints would overload the single endpoints by 33 %.
      { namespace: 'shop', name: 'checkout', routing: 'Auto', podsPerZone: [2, 1, 1] },
      { namespace: 'shop', name: 'cart', routing: 'Auto', podsPerZone: [3, 3, 3] },
      { namespace: 'shop', name: 'catalog', routing: 'PreferClose', podsPerZone: [2, 2, 2] },
      {
        namespace: 'shop',
        name: 'search',
        routing: 'Auto',
        podsPerZone: spread(6 + Math.round(load * 12), 3, 'search'),
      },
      { namespace: 'shop', name: 'recommendations', routing: 'None', podsPerZone: [2, 2, 1] },
      { namespace: 'payments', name: 'fraud-score', routing: 'PreferClose', podsPerZone: [2, 2, 2] },
      // Chosen by hand years ago, from the middle of the range: a static address in the dynamic band.
      {
        namespace: 'payments',
        name: 'ledger-proxy',
        routing: 'None',
        podsPerZone: [1, 1, 1],
        staticClusterIP: '10.100.200.50',
        port: 5432,
      },
      ...backgroundServices(seed, 'aws-prod', 30, 3, tick, { Auto: 0.5, PreferClose: 0.2, None: 0.3 }),
    ];
    return { zones, pools, services, serviceCidr: '10.100.0.0/16', hasServiceCIDRObjects: true };
  },
};

const gcpAnalytics: ClusterScenario = {
  name: 'gcp-analytics-europe-west1',
  cloud: 'gcp',
  region: 'europe-west1',
  kubernetesVersion: '1.33',
  dataPlane: 'kube-proxy',
  crossZonePricePerGb: null,
  lagsHints: false,
  state(tick, seed) {
    const zones = ['europe-west1-b', 'europe-west1-c', 'europe-west1-d'];
    const pools: NodePool[] = [
      {
        prefix: 'gke-analytics-default',
        perZone: [3, 3, 2],
        allocatableCpu: '7910m',
        instanceType: 'e2-standard-8',
        labels: { 'cloud.google.com/gke-nodepool': 'default' },
      },
      {
        prefix: 'gke-analytics-highmem',
        perZone: [1, 0, 0],
        allocatableCpu: '3920m',
        instanceType: 'n2-highmem-4',
        labels: { 'cloud.google.com/gke-nodepool': 'highmem' },
      },
    ];
    const services: ServiceSpec[] = [
      ...wellKnownServices('10.60.0.0/20', 3),
      {
        namespace: 'analytics',
        name: 'ingest',
        routing: 'PreferClose',
        podsPerZone: spread(6 + (tick % 4), 3, 'ingest'),
      },
      { namespace: 'analytics', name: 'query-engine', routing: 'PreferClose', podsPerZone: [4, 3, 2] },
      { namespace: 'analytics', name: 'dashboard', routing: 'Auto', podsPerZone: [1, 1, 1] },
      { namespace: 'analytics', name: 'kafka', routing: 'None', podsPerZone: [1, 1, 1], clusterIP: 'None', port: 9092 },
      ...backgroundServices(seed, 'gcp-analytics', 12, 3, tick, { Auto: 0.15, PreferClose: 0.6, None: 0.25 }),
    ];
    return { zones, pools, services, serviceCidr: '10.60.0.0/20', hasServiceCIDRObjects: true };
  },
};

/** Spot nodes in us-west-2c this tick: capacity is reclaimed in waves and comes back. */
export function spotNodes(tick: number, seed: number): number {
  const random = randomFor(seed, 'spot', Math.floor(tick / 2)); // a wave lasts two ticks
  const draw = random();
  return draw < 0.3 ? 0 : draw < 0.45 ? 1 : draw < 0.7 ? 3 : 4;
}

const awsSpot: ClusterScenario = {
  name: 'aws-batch-us-west-2',
  cloud: 'aws',
  region: 'us-west-2',
  kubernetesVersion: '1.32',
  dataPlane: 'kube-proxy',
  crossZonePricePerGb: 0.02,
  lagsHints: true,
  state(tick, seed) {
    const zones = ['us-west-2a', 'us-west-2b', 'us-west-2c'];
    const spot = spotNodes(tick, seed);
    const pools: NodePool[] = [
      {
        prefix: 'ip-10-1-ondemand',
        perZone: [2, 2, 2],
        allocatableCpu: '7910m',
        instanceType: 'c6i.2xlarge',
        labels: { 'karpenter.sh/capacity-type': 'on-demand' },
      },
      {
        prefix: 'ip-10-1-spot',
        perZone: [0, 0, spot],
        allocatableCpu: '15890m',
        instanceType: 'c6i.4xlarge',
        labels: { 'karpenter.sh/capacity-type': 'spot' },
      },
    ];
    const services: ServiceSpec[] = [
      ...wellKnownServices('172.20.0.0/16', 3),
      // Spread evenly whatever the capacity: the zone CPU ratios swing under them with the spot nodes.
      { namespace: 'batch', name: 'results-api', routing: 'Auto', podsPerZone: [2, 2, 2] },
      { namespace: 'batch', name: 'scheduler', routing: 'Auto', podsPerZone: [1, 1, 1] },
      { namespace: 'batch', name: 'worker-queue', routing: 'Auto', podsPerZone: [3, 3, 3 + spot] },
      {
        namespace: 'batch',
        name: 'artifact-cache',
        routing: 'PreferClose',
        podsPerZone: [1, 1, 1 + Math.min(spot, 2)],
      },
      ...backgroundServices(seed, 'aws-batch', 8, 3, tick, { Auto: 0.6, PreferClose: 0.1, None: 0.3 }),
    ];
    // Before 1.33 there are no ServiceCIDR objects: the agent is given --service-cidr.
    return { zones, pools, services, serviceCidr: '172.20.0.0/16', hasServiceCIDRObjects: false };
  },
};

const onprem: ClusterScenario = {
  name: 'onprem-lab',
  cloud: 'other',
  region: null,
  kubernetesVersion: '1.31',
  dataPlane: 'kube-proxy',
  crossZonePricePerGb: 0,
  lagsHints: false,
  state(tick, seed) {
    const zones = ['dc1-rack1', 'dc1-rack2', 'dc1-rack3'];
    // Every 12 ticks a new worker joins and is Ready for 3 ticks before the labelling job gives it a zone.
    const joining = tick % 12 >= 4 && tick % 12 < 7;
    const pools: NodePool[] = [
      { prefix: 'lab-cp', perZone: [1, 1, 1], allocatableCpu: '4', instanceType: 'bare-metal', controlPlane: true },
      { prefix: 'lab-worker', perZone: [3, 3, 3], allocatableCpu: '31500m', instanceType: 'bare-metal' },
      ...(joining
        ? [
            {
              prefix: 'lab-new',
              perZone: [1, 0, 0],
              allocatableCpu: '31500m',
              instanceType: 'bare-metal',
              unlabelled: true,
            },
          ]
        : []),
    ];
    const services: ServiceSpec[] = [
      ...wellKnownServices('10.96.0.0/12', 3),
      { namespace: 'ci', name: 'runner-gateway', routing: 'Auto', podsPerZone: [2, 2, 2] },
      { namespace: 'ci', name: 'artifact-store', routing: 'Auto', podsPerZone: [2, 2, 2] },
      { namespace: 'monitoring', name: 'prometheus', routing: 'None', podsPerZone: [1, 1, 0] },
      ...backgroundServices(seed, 'onprem', 6, 3, tick, { Auto: 0.5, PreferClose: 0.2, None: 0.3 }),
    ];
    return { zones, pools, services, serviceCidr: '10.96.0.0/12', hasServiceCIDRObjects: false };
  },
};

const eksLegacy: ClusterScenario = {
  name: 'eks-legacy-eu-central-1',
  cloud: 'aws',
  region: 'eu-central-1',
  kubernetesVersion: '1.31',
  dataPlane: 'kube-proxy',
  crossZonePricePerGb: null,
  lagsHints: false,
  state(tick, seed) {
    const zones = ['eu-central-1a', 'eu-central-1b', 'eu-central-1c'];
    const pools: NodePool[] = [
      {
        prefix: 'ip-10-2-general',
        perZone: [2, 2, 2],
        allocatableCpu: '7910m',
        instanceType: 'm5.2xlarge',
        labels: { 'eks.amazonaws.com/nodegroup': 'general' },
      },
    ];
    const services: ServiceSpec[] = [
      ...wellKnownServices('10.100.0.0/16', 3),
      // Written for a newer cluster: PreferSameZone arrived in Kubernetes 1.33, this cluster runs 1.31.
      { namespace: 'orders', name: 'order-api', routing: 'PreferSameZone', podsPerZone: [3, 3, 3] },
      { namespace: 'orders', name: 'order-events', routing: 'PreferClose', podsPerZone: [2, 2, 2] },
      { namespace: 'orders', name: 'pricing', routing: 'Auto', podsPerZone: [2, 2, 2] },
      ...backgroundServices(seed, 'eks-legacy', 6, 3, tick, { Auto: 0.4, PreferClose: 0.3, None: 0.3 }),
    ];
    // Before 1.33 there are no ServiceCIDR objects: the agent is given --service-cidr.
    return { zones, pools, services, serviceCidr: '10.100.0.0/16', hasServiceCIDRObjects: false };
  },
};

const aksCilium: ClusterScenario = {
  name: 'azure-cilium-westeurope',
  cloud: 'azure',
  region: 'westeurope',
  kubernetesVersion: '1.33',
  dataPlane: 'cilium-no-topology',
  crossZonePricePerGb: null,
  lagsHints: false,
  state(tick, seed) {
    const zones = ['westeurope-1', 'westeurope-2', 'westeurope-3'];
    const pools: NodePool[] = [
      {
        prefix: 'aks-system',
        perZone: [1, 1, 1],
        allocatableCpu: '3860m',
        instanceType: 'Standard_D4s_v5',
        labels: { 'kubernetes.azure.com/agentpool': 'system' },
      },
      {
        prefix: 'aks-apps',
        perZone: [2, 2, 2],
        allocatableCpu: '7820m',
        instanceType: 'Standard_D8s_v5',
        labels: { 'kubernetes.azure.com/agentpool': 'apps' },
      },
    ];
    const services: ServiceSpec[] = [
      ...wellKnownServices('10.0.0.0/16', 3),
      // Well spread and hinted by the controller; Cilium without service topology ignores the hints.
      { namespace: 'media', name: 'transcoder', routing: 'Auto', podsPerZone: [3, 3, 3] },
      { namespace: 'media', name: 'thumbnails', routing: 'Auto', podsPerZone: [2, 2, 2] },
      { namespace: 'media', name: 'cdn-origin', routing: 'PreferClose', podsPerZone: [2, 2, 2] },
      ...backgroundServices(seed, 'aks-cilium', 6, 3, tick, { Auto: 0.6, PreferClose: 0.2, None: 0.2 }),
    ];
    return { zones, pools, services, serviceCidr: '10.0.0.0/16', hasServiceCIDRObjects: true };
  },
};

export const DEMO_FLEET: readonly ClusterScenario[] = [awsProd, gcpAnalytics, awsSpot, onprem, eksLegacy, aksCilium];
