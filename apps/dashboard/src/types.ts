/**
 * The API's answers as the dashboard reads them: names for parts of the types generated from the API's
 * OpenAPI document (generated/api.ts, written by `npm run build`), never a copy written by hand. A field
 * the API adds or changes reaches every page through the generated file, and the compiler names each
 * place it breaks.
 */
import type { paths } from './generated/api';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type Responses<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: infer R } ? R : never;

/** The JSON body of an operation's success answer (200, else 201). */
export type Answer<P extends keyof paths, M extends Method = 'get'> =
  Responses<P, M> extends { 200: infer Ok }
    ? JsonOf<Ok>
    : Responses<P, M> extends { 201: infer Created }
      ? JsonOf<Created>
      : never;

/** The JSON body an operation takes. */
export type RequestBody<P extends keyof paths, M extends Method> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

export type Fleet = Answer<'/v1/fleet'>;
export type FleetCluster = Fleet['clusters'][number];
export type HintCounts = FleetCluster['services'];
export type Figure = Fleet['totals']['monthly']['withHints'];

export type ServiceList = Answer<'/v1/clusters/{id}/services'>;
export type ServiceSummary = ServiceList['services'][number];

export type ServiceDetail = Answer<'/v1/clusters/{id}/services/{namespace}/{name}'>;
export type ZoneAllocation = NonNullable<ServiceDetail['current']>['zones'][number];
export type Recommendation = NonNullable<ServiceDetail['recommendations']>[number];

export type ClusterRecommendations = Answer<'/v1/clusters/{id}/recommendations'>;
export type ServiceFixes = ClusterRecommendations['services'][number];
export type NodeBlockers = NonNullable<ClusterRecommendations['nodeBlockers']>;

export type Zones = Answer<'/v1/clusters/{id}/zones'>;
export type ServiceCidrs = Answer<'/v1/clusters/{id}/service-cidrs'>;

export type ClusterDetail = Answer<'/v1/clusters/{id}'>;
export type AnalysisSettings = NonNullable<ClusterDetail['analysisSettings']>;
export type SettingSource = AnalysisSettings['kubernetesVersionSource'];

export type Trends = Answer<'/v1/fleet/trends'>;
export type Savings = Answer<'/v1/savings'>;
export type ServiceCounts = Answer<'/v1/clusters/{id}/services/counts'>;
export type FleetClusterAnswer = Answer<'/v1/fleet/clusters/{id}'>;

export type ClusterList = Answer<'/v1/clusters'>;
export type ClusterEntry = ClusterList['clusters'][number];
export type CreatedCluster = Answer<'/v1/clusters', 'post'>;
export type RotatedToken = Answer<'/v1/clusters/{id}/agent-token', 'post'>;
export type ApiKeyList = Answer<'/v1/api-keys'>;
export type ApiKeyEntry = ApiKeyList['apiKeys'][number];
export type CreatedApiKey = Answer<'/v1/api-keys', 'post'>;
export type SessionState = Answer<'/v1/auth/session'>;
export type TrafficSource = Answer<'/v1/clusters/{id}/traffic-source'>;
export type TrafficSourceBody = RequestBody<'/v1/clusters/{id}/traffic-source', 'put'>;
export type AuditLog = Answer<'/v1/audit-log'>;
export type AuditEntry = AuditLog['entries'][number];
export type ScheduleList = Answer<'/v1/report-schedules'>;
export type Schedule = ScheduleList['schedules'][number];
export type ScheduleAnswer = Answer<'/v1/report-schedules', 'post'>;
export type ReportList = Answer<'/v1/reports'>;
export type Report = ReportList['reports'][number];
export type TrafficComparison = Answer<'/v1/clusters/{id}/measured-traffic'>;

export type ClusterSimulation = Answer<'/v1/clusters/{id}/simulate', 'post'>;
export type SimulatedService = ClusterSimulation['analysis']['services'][number];
