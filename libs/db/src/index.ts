export * from './generated/prisma/client.js';
export type { Db } from './db-client.js';
export { createDbPool, createPrismaClient, prismaClientOptions, type DbOptions } from './prisma-client.js';
export {
  ConnectionWaitError,
  inPgTransaction,
  type PgTransactionOptions,
  pgSql,
  type SqlClient,
  TransactionTimeoutError,
} from './sql-client.js';
export { PrismaService, DB_OPTIONS } from './prisma.service.js';
export { DbModule, type DbModuleAsyncOptions } from './db.module.js';
export {
  AGENT_TOKEN_PREFIX,
  agentTokenPrefixes,
  agentTokenPrefixOf,
  findClusterByAgentToken,
  generateAgentToken,
  hashAgentToken,
  issueAgentToken,
  type AgentIdentity,
  type NewAgentToken,
} from './agent-tokens.js';
export {
  type AnalysisSettingsRow,
  clusterPriceRows,
  type ClusterPriceRow,
  findCluster,
  newestAnalysisSettings,
  organizationOfCluster,
  registerCluster,
  type RegisterClusterInput,
  type RegisteredCluster,
} from './clusters.js';
export {
  clusterStateAt,
  serviceStateAt,
  serviceTimeline,
  type ServiceRef,
  summaryZones,
  withIntervalZones,
} from './history.js';
export {
  closeAndOpenIntervals,
  copyIntervalTails,
  intervalsCovering,
  placeSnapshot,
  recordRepeatedSummary,
  recordSummary,
  startIntervalsAt,
  type ClosedAndOpened,
  type IntervalState,
  type ServiceFixes,
  type ServiceSavingsState,
  type ServiceVerdict,
  type SnapshotAggregates,
  type SnapshotPlacement,
  type SnapshotSummaryRecord,
  type StoredInterval,
} from './history-writes.js';
export {
  claimSnapshot,
  type ClaimedSnapshot,
  isBeingRecorded,
  markSnapshotFailed,
  type NewestCapture,
  newestCaptures,
  newestProcessedPayload,
  readSnapshotPayload,
  storedSnapshotPayload,
  type StoredSnapshotPayload,
  waitingSnapshots,
  type WaitingSnapshot,
} from './snapshots.js';
export { ClusterBusyError, lockCluster } from './cluster-lock.js';
export { pingDatabase } from './health.js';
export { dbEnvSchema, historyRetentionSetting, readReplicaSettings, replicaOf } from './environment.js';
export {
  API_KEY_PREFIX,
  MIN_CHOSEN_KEY_LENGTH,
  activeApiKeyPrefixes,
  apiKeyByHash,
  type ApiKeyByHashRow,
  apiKeyPrefixOf,
  apiKeysOf,
  createApiKey,
  createAuditedApiKey,
  findApiKey,
  hashApiKey,
  recordApiKeyUse,
  type ApiKeyIdentity,
  type CreateApiKeyInput,
  type CreatedApiKey,
} from './api-keys.js';
export {
  createOrganization,
  findOrganizationBySlug,
  historyRetentionDaysOf,
  organizationIdentity,
  organizationPrices,
  organizationSlugOf,
  type CreateOrganizationInput,
  type OrganizationPrices,
} from './organizations.js';
export { ReadDb, type ExecutedQuery, type ReadDbOptions, type StatementSettings } from './read-db.js';
export { agentAgeSeconds, fleetRows, type FleetRow, isAgentStale } from './read-model/fleet.js';
export { bucketStart, firstSummaryAt, trendRows, type TrendQuery, type TrendRow } from './read-model/trends.js';
export {
  clusterMetricGroups,
  type ClusterMetricGroup,
  servicesWithLostHints,
  snapshotPipelineFigures,
  type SnapshotPipelineFigures,
} from './read-model/business-metrics.js';
export {
  analysisDocument,
  analysisDocumentOfJson,
  insertAnalysisDocumentSql,
  pruneAnalysisDocuments,
  type AnalysisDocument,
} from './analysis-documents.js';
export { pruneServiceContents } from './service-contents.js';
export {
  dropExpiredIntervalPartitions,
  dropExpiredPartitions,
  ensureIntervalPartitions,
  ensurePartitions,
  type PartitionChangeOptions,
  intervalPartitions,
  INTERVALS,
  PARTITIONED_TABLES,
  PAYLOADS,
  SAVINGS_DAYS,
  SUMMARIES,
  tableBytes,
  weeklyPartitions,
  weekOf,
  type ClusterCutoff,
  type DroppedPartition,
  type IntervalPartition,
  type PartitionedTable,
} from './history-partitions.js';
export {
  historyCutoffs,
  pruneClusterHistory,
  pruneSnapshotPayloads,
  pruneSnapshots,
  type RetentionPeriod,
} from './retention.js';
export {
  EFFECTIVE_TRAFFIC_SQL,
  ESTIMATED_TRAFFIC_SQL,
  TRAFFIC_SOURCE_SQL,
  MISSED_FRACTION_SQL,
  MEASURED_SHARE_SQL,
  AS_ROUTED_FRACTION_SQL,
  AS_ROUTED_MISSED_FRACTION_SQL,
  FULLY_MEASURED_SQL,
  OPPORTUNITY_SQL,
  AT_STAKE_FRACTION_SQL,
  REFUSED_HINTS_SQL,
  refreshLatestRollup,
  summaryRollupSql,
} from './read-model/rollup.js';
export {
  clusterHead,
  countServiceStates,
  findClusterService,
  latestServiceInterval,
  hintStateSince,
  listServiceStates,
  listServiceStatesBatch,
  serviceIntervals,
  serviceIntervalsBatch,
  type ClusterHeadRow,
  type ServiceBatchQuery,
  type ServiceCounts,
  type ServiceFilters,
  type ServiceListQuery,
  type ServiceSort,
  type ServiceStateRow,
} from './read-model/services.js';
export { summaryDocuments, type SummaryDocumentsRow } from './read-model/documents.js';
export {
  HOURS_PER_MONTH,
  opportunityRows,
  savingsRows,
  savingsWithOpportunities,
  type OpportunityRow,
  type SavingsGroupBy,
  type SavingsQuery,
  type SavingsRow,
} from './read-model/savings.js';
export { addClosedIntervalsToSavingsDays, refreshSavingsDays, type SavingsDaySpan } from './read-model/savings-days.js';
export * from './reports.js';
export {
  clearMeasurements,
  clustersWithTrafficSource,
  openAuthHeader,
  recordTrafficFailure,
  resealedAuthHeader,
  sealAuthHeader,
  storeMeasurements,
  trafficSourceOf,
  trafficSourceSchedule,
  trafficSourceSchedules,
  type MeasurementOutcome,
  type ServiceMeasurement,
  type TrafficSourceSchedule,
} from './traffic-sources.js';
export {
  measuredComparison,
  measuredComparisonFigures,
  measuredComparisons,
  type ComparisonFigures,
  type MeasuredComparison,
  type MeasuredComparisonRow,
} from './read-model/measured.js';
export { ROLES, roleAtLeast, strongestRole } from './roles.js';
export {
  auditLogEntries,
  pruneAuditLog,
  recordAudit,
  type AuditActor,
  type AuditEvent,
  type AuditLogQuery,
} from './audit-log.js';
export {
  listFailedSnapshots,
  requeueFailedSnapshots,
  type FailedSnapshotRow,
  type FailedSnapshotSelection,
} from './failed-snapshots.js';
export {
  NO_WEBHOOK_SECRET,
  readWebhookSecret,
  resealWebhookSecrets,
  sealedWebhookSecretColumns,
  type StoredWebhookSecret,
  type WebhookSecretRead,
} from './webhook-secrets.js';
export {
  clusterFixesHead,
  type ClusterFixesHeadRow,
  fixRankingRows,
  type FixRankingQuery,
  type FixRankingRow,
  type RecommendationsDocument,
  type StoredServiceFixes,
} from './read-model/recommendations.js';
export {
  createSession,
  findSsoSettings,
  findSsoSettingsBySlug,
  findSsoSettingsForToken,
  groupsOfClaim,
  hashSessionToken,
  membersOf,
  type MemberRow,
  pruneSessions,
  pruneSignInAttempts,
  recordSignInAttempt,
  revokeMemberSessions,
  revokeSession,
  roleOfGroups,
  saveSsoSettings,
  sessionByTokenHash,
  type SessionIdentity,
  takeSignInAttempt,
  upsertMember,
  type RoleMapping,
  type SaveSsoSettingsInput,
  type SignedInPerson,
  type SsoSettings,
} from './sso.js';
export {
  ALERT_GROUP_ABOVE,
  ALERT_RULE_KINDS,
  clearChannelFailing,
  enabledRules,
  evaluateRule,
  openChannelSecrets,
  raiseChannelFailing,
  ruleConditions,
  sealChannelSecrets,
  SNAPSHOT_KINDS,
  unfinishedDeliveries,
  type AlertCondition,
  type AlertRuleKindName,
  type CreatedDelivery,
  type EvaluationOutcome,
  type EvaluationScope,
  type OpenedChannel,
  type RuleRow,
} from './alerts.js';
export {
  alertsOfGroup,
  claimDelivery,
  createReportDeliveries,
  detachChannel,
  deliveryToSend,
  finishAttempt,
  organizationChannelIds,
  organizationNames,
  heldCounterpart,
  skipDelivery,
  type DeliveryStatus,
  type DeliveryToSend,
} from './alert-deliveries.js';
export {
  countReportAttempt,
  enabledReportSchedules,
  failPendingReport,
  failPendingWebhookDelivery,
  markReportFailed,
  pendingReportIds,
  pendingWebhookDeliveryIds,
  reportScheduleById,
  recordWebhookAttempt,
  reportToMake,
  storeMadeReport,
  webhookDeliveryToSend,
  type MadeReport,
  type StoredReport,
  type WebhookAttempt,
} from './report-making.js';
export { alertsOf, channelsOf, deliveriesOf, deliveryOf, rulesOf } from './alert-settings.js';
