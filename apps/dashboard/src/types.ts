/** The parts of the API's answers the dashboard reads (see /docs-json); fields added later are optional. */

export interface HintCounts {
  populated: number;
  removed: number;
  none: number;
}

export interface Figure {
  crossZoneGb: number;
  cost: number;
}

/** Services asking for routing whose hints were refused: what they still send across zones. */
export interface AtStake extends Figure {
  services: number;
  trafficGb: number;
  servicesWithEstimatedTraffic: number;
  estimate: boolean;
}

export interface FleetCluster {
  id: string;
  name: string;
  cloud: string;
  region: string | null;
  services: HintCounts;
  servicesWithDrift: number | null;
  nodeInfo: { sufficient: boolean | null; reason: string | null };
  crossZone: { withoutHints: number; withHints: number } | null;
  lastSnapshot: { capturedAt: string; ageSeconds: number; stale: boolean; status: string } | null;
  monthly: {
    trafficGb: number;
    withoutHints: Figure;
    withHints: Figure;
    realizedSavings: Figure;
    missedSavings: Figure;
    atStake: AtStake | null;
    opportunities: number;
    servicesWithEstimatedTraffic: number;
    measuredShare: number | null;
    pricing: { pricePerGb: number; source: string; note: string };
    estimate: boolean;
  } | null;
  kubernetesVersion?: string | null;
  dataPlane?: unknown;
  servicesWithIgnoredHints?: number | null;
}

export interface Fleet {
  generatedAt: string;
  staleAfterSeconds: number;
  clusters: FleetCluster[];
  totals: {
    clusters: number;
    staleClusters: number;
    services: HintCounts;
    monthly: {
      withoutHints: Figure;
      withHints: Figure;
      realizedSavings: Figure;
      missedSavings: Figure;
      atStake: AtStake;
      trafficGb: number;
      measuredTrafficGb: number;
      measuredShare: number | null;
    };
  };
}

export interface CostInputs {
  trafficGb: number;
  trafficSource: string;
  trafficEstimate: boolean;
  trafficNote: string | null;
  pricePerGb: number;
  priceSource: string;
  priceNote: string | null;
  estimate: boolean;
}

export interface ServiceSummary {
  namespace: string;
  name: string;
  routing: string;
  hints: { state: 'populated' | 'removed' | 'none'; reason: string | null };
  readyEndpoints: number;
  since: string;
  crossZone: { withoutHints: number; withHints: number };
  monthly: {
    withoutHints: Figure;
    withHints: Figure;
    realizedSavings: Figure;
    missedSavings: Figure | null;
    inputs: CostInputs;
  };
  ifAutoEnabled: { wouldPopulate: boolean; reason: string | null; crossZoneWithHints: number } | null;
  opportunity: boolean;
  measured?: { trafficGb: number; crossZone: number | null } | null;
  /** The model (declared or default volume, modelled share) against the measurement. */
  modelVsMeasured?: {
    estimated: { trafficGb: number; crossZone: number; cost: number };
    measured: { trafficGb: number | null; crossZone: number | null; cost: number | null };
  } | null;
  managedBy?: string | null;
  dataPath?: DataPath | null;
}

/** Whether the hints change where requests go (`reason` says why not). */
export interface DataPath {
  honoursHints: boolean;
  reason: string | null;
}

/** A recommended fix, with savings at the cluster's traffic and price. */
export interface Recommendation {
  kind: 'topologyMode' | 'replicas' | 'trafficDistribution' | 'nodes' | 'dataPlane';
  summary: string;
  resultingState: 'populated' | 'removed' | 'none';
  reason: string | null;
  crossZone: { withHints: number };
  expectedOverload: Record<string, number>;
  overloadAboveThreshold: boolean;
  savings: { crossZoneFraction: number; crossZoneGb: number; cost: number };
  endpointsToAdd?: Record<string, number>;
  nodes?: string[];
  patch: string;
}

/** Ready worker nodes whose missing zone label or CPU turns hints off for every Service. */
export interface NodeBlockers {
  nodes: { name: string; problem: string; missingZone: boolean; zeroCpu: boolean }[];
  services: number;
  savings: Figure;
  patch: string;
}

/** A Service's fixes in the ranking (`GET /v1/clusters/{id}/recommendations`), best first. */
export interface ServiceFixes {
  namespace: string;
  name: string;
  traffic: { gb: number; source: string; estimate: boolean };
  bestSavings: Figure;
  recommendations: Recommendation[];
}

export interface ClusterRecommendations {
  asOf: string | null;
  nodeBlockers: NodeBlockers | null;
  services: ServiceFixes[];
  nextCursor: string | null;
}

export interface ServiceList {
  cluster: { id: string; name: string };
  asOf: string | null;
  services: ServiceSummary[];
  nextCursor: string | null;
}

export interface ZoneAllocation {
  zone: string;
  minimum: number | null;
  maximum: number | null;
  desired: number | null;
  allocated: number | null;
  expectedOverload: number;
}

export interface ProxyView {
  topologyFiltered: boolean;
  topologyMode: string | null;
  reason: string | null;
  endpoints: number | null;
  endpointsByZone: Record<string, number>;
}

export interface ServiceDetail {
  cluster: { id: string; name: string };
  namespace: string;
  name: string;
  asOf: string | null;
  current: (ServiceSummary & { zones: ZoneAllocation[] }) | null;
  lastSeen: string | null;
  recommendations?: Recommendation[];
  kubeProxy: {
    available: boolean;
    reason: string | null;
    zones: { zone: string; node: string; nodesInZone: number; observed: ProxyView; computed: ProxyView }[];
  };
  drift: { available: boolean; endpoints: number | null; observedHints: boolean | null; details: unknown[] };
  timeline: {
    from: string;
    to: string;
    entries: {
      from: string;
      to: string | null;
      routing: string;
      hints: { state: string; reason: string | null };
      readyEndpoints: number;
    }[];
    truncated: boolean;
    changes: number;
    hintStateChanges: number;
    flapping: boolean;
  };
}

export interface Zones {
  cluster: { id: string; name: string };
  asOf: string | null;
  nodeInfo: { sufficient: boolean | null; reason: string | null };
  zones: {
    name: string;
    cpuShare: number | null;
    readyNodes: number | null;
    trafficShare: number | null;
    readyEndpoints: number;
    hintedEndpoints: number;
    expectedOverload: { max: number; maxService: string | null; mean: number | null; servicesAboveThreshold: number };
  }[];
}

export interface AddressBand {
  first: string;
  last: string;
}

export interface ServiceCidrs {
  asOf: string | null;
  serviceCIDRs: {
    cidr: string;
    family: string;
    staticBand: AddressBand | null;
    dynamicBand: AddressBand | null;
    allocated: { static: number; dynamic: number; total: number };
    free: { static: number | string; dynamic: number | string };
    utilization: number;
    conflicts: { kind: string; ip: string; message: string }[];
    risks: { kind: string; ip: string; service: string | null; message: string }[];
    wellKnown: { ip: string; purpose: string; band: string | null; free: boolean; heldBy: string[] }[];
  }[];
}

export interface ClusterDetail {
  id: string;
  name: string;
  cloud: string;
  region: string | null;
  kubernetesVersion?: string | null;
  dataPlane?: string | null;
  analysisSettings?: AnalysisSettings | null;
  [field: string]: unknown;
}

export type SettingSource = 'override' | 'snapshot' | 'default';

/** The Kubernetes version and data plane the newest recorded analysis used, and where each came from. */
export interface AnalysisSettings {
  asOf: string;
  kubernetesVersion: string | null;
  kubernetesVersionSource: SettingSource;
  dataPlane: string | null;
  dataPlaneSource: SettingSource;
}
