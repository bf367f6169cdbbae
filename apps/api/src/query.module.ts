import { Module } from '@nestjs/common';
import { registerQueues } from './queues.js';
import { MAINTENANCE_QUEUE, SNAPSHOTS_QUEUE, TRAFFIC_QUEUE } from '@zw/queue';
import { ApiKeysController } from './api-keys/api-keys.controller.js';
import { MeController } from './auth/me.controller.js';
import { AuditLogController } from './audit/audit-log.controller.js';
import { AuditLogService } from './audit/audit-log.service.js';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator.js';
import { Authenticator } from './auth/authenticator.js';
import { secretKeyringProvider, SECRET_KEYRING } from './auth/secret-keyring.js';
import { SessionAuthenticator } from './auth/session-authenticator.js';
import { TokenAuthenticator } from './auth/token-authenticator.js';
import { OidcIssuers } from './sso/oidc-issuers.js';
import { ApiKeyGuard } from './auth/api-key.guard.js';
import { ApiKeyRateLimitGuard } from './auth/rate-limit.guard.js';
import { RateStorageModule } from './auth/rate-storage.module.js';
import { ReadModelCache } from './cache/read-model-cache.js';
import { ClustersController } from './clusters/clusters.controller.js';
import { ClustersService } from './clusters/clusters.service.js';
import { FleetController } from './fleet/fleet.controller.js';
import { FleetService } from './fleet/fleet.service.js';
import { MetricsServer } from './ops/metrics-server.js';
import { MetricsService } from './ops/metrics.service.js';
import { OpsController } from './ops/ops.controller.js';
import { ReadDbCloser, readDbProvider, ReplicaReadDbCloser, replicaReadDbProvider } from './read-db.provider.js';
import { HeavyReadBudget } from './heavy-reads/heavy-read-budget.js';
import { HeavyReadDbCloser, heavyReadDbProvider } from './heavy-reads/heavy-read-db.provider.js';
import { LiveViewService } from './services/live-view.service.js';
import { RecommendationsController } from './recommendations/recommendations.controller.js';
import { RecommendationsService } from './recommendations/recommendations.service.js';
import { SavingsController } from './savings/savings.controller.js';
import { SavingsService } from './savings/savings.service.js';
import { TrendsController } from './trends/trends.controller.js';
import { TrendsService } from './trends/trends.service.js';
import { EventsController } from './events/events.controller.js';
import { LiveEventStream } from './events/live-event-stream.js';
import { StreamCaps } from './events/stream-caps.js';
import { ClusterSimulateController } from './simulate/cluster-simulate.controller.js';
import { ClusterSimulateService } from './simulate/cluster-simulate.service.js';
import { SimulateController } from './simulate/simulate.controller.js';
import { FailedSnapshotsController } from './snapshots/failed-snapshots.controller.js';
import { FailedSnapshotsService } from './snapshots/failed-snapshots.service.js';
import { ServicesController } from './services/services.controller.js';
import { ServicesService } from './services/services.service.js';
import { ClusterStateController } from './zones/cluster-state.controller.js';
import { ApiRedisModule } from './redis.provider.js';
import { QueueAvailability } from './http/queue-availability.js';
import { trafficConfigProvider } from './traffic-sources/traffic-config.js';
import { TrafficSourcesController } from './traffic-sources/traffic-sources.controller.js';
import { TrafficSourcesService } from './traffic-sources/traffic-sources.service.js';

/** The query API: tenancy, the REST read model, operations endpoints. */
@Module({
  imports: [registerQueues(SNAPSHOTS_QUEUE, MAINTENANCE_QUEUE, TRAFFIC_QUEUE), RateStorageModule, ApiRedisModule],
  controllers: [
    OpsController,
    FleetController,
    ClustersController,
    ApiKeysController,
    MeController,
    AuditLogController,
    ServicesController,
    ClusterStateController,
    SavingsController,
    SimulateController,
    ClusterSimulateController,
    TrendsController,
    EventsController,
    TrafficSourcesController,
    FailedSnapshotsController,
    RecommendationsController,
  ],
  providers: [
    readDbProvider,
    ReadDbCloser,
    replicaReadDbProvider,
    ReplicaReadDbCloser,
    heavyReadDbProvider,
    HeavyReadDbCloser,
    HeavyReadBudget,
    QueueAvailability,
    ApiKeyAuthenticator,
    secretKeyringProvider,
    OidcIssuers,
    SessionAuthenticator,
    TokenAuthenticator,
    Authenticator,
    ApiKeyGuard,
    ApiKeyRateLimitGuard,
    MetricsService,
    MetricsServer,
    AuditLogService,
    LiveEventStream,
    StreamCaps,
    ReadModelCache,
    FleetService,
    ClustersService,
    ServicesService,
    LiveViewService,
    TrendsService,
    SavingsService,
    trafficConfigProvider,
    TrafficSourcesService,
    FailedSnapshotsService,
    RecommendationsService,
    ClusterSimulateService,
  ],
  exports: [
    RateStorageModule,
    ApiRedisModule,
    heavyReadDbProvider,
    HeavyReadBudget,
    QueueAvailability,
    AuditLogService,
    readDbProvider,
    replicaReadDbProvider,
    ApiKeyAuthenticator,
    SECRET_KEYRING,
    OidcIssuers,
    SessionAuthenticator,
    Authenticator,
    ApiKeyGuard,
    ApiKeyRateLimitGuard,
    MetricsService,
    MetricsServer,
    FleetService,
    SavingsService,
    ServicesService,
    RecommendationsService,
    TrendsService,
    ClusterSimulateService,
  ],
})
export class QueryModule {}
