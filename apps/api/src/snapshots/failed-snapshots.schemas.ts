import { z } from 'zod';
import { cursorSchema, limitSchema } from '../http/pagination.js';
import { isoDate, uuidParam } from '../http/schemas.js';

const timestamp = z.iso.datetime({ offset: true, message: 'expected an RFC 3339 timestamp' });

export const FailedSnapshotsQuery = z
  .object({
    clusterId: uuidParam.optional().describe("only this cluster's failed snapshots"),
    since: timestamp.optional().describe('only snapshots that failed at or after this instant'),
    limit: limitSchema(50, 500),
    cursor: cursorSchema,
  })
  .strict();

export const FailedSnapshotSchema = z.object({
  snapshotId: z.uuid(),
  clusterId: z.uuid(),
  clusterName: z.string(),
  capturedAt: isoDate,
  receivedAt: isoDate,
  failedAt: isoDate.describe('when it was marked failed'),
  attempts: z.number().int().describe('processing attempts it had'),
  error: z.string().nullable().describe('why it cannot be processed'),
});

export const FailedSnapshotListSchema = z.object({
  snapshots: z.array(FailedSnapshotSchema),
  nextCursor: z.string().nullable(),
});

/** Most snapshot ids one re-drive names. */
export const MAX_REDRIVE_IDS = 1000;

export const RedriveBody = z
  .object({
    snapshotIds: z
      .array(uuidParam)
      .min(1)
      .max(MAX_REDRIVE_IDS)
      .optional()
      .describe(`these failed snapshots (at most ${MAX_REDRIVE_IDS})`),
    clusterId: uuidParam.optional().describe("this cluster's failed snapshots"),
    since: timestamp.optional().describe('failed snapshots that failed at or after this instant'),
    all: z.literal(true).optional().describe('every failed snapshot of the organization'),
  })
  .strict()
  .refine((body) => body.snapshotIds || body.clusterId || body.since || body.all, {
    message: 'name what to re-drive: snapshotIds, clusterId, since (the last two may be combined), or all: true',
  })
  .refine((body) => !body.all || !(body.snapshotIds || body.clusterId || body.since), {
    message: 'all: true re-drives every failed snapshot; leave out snapshotIds, clusterId and since',
    path: ['all'],
  })
  .describe('Which failed snapshots to re-drive; given conditions combine (a snapshot must meet all of them).');

export type FailedSnapshotListView = z.output<typeof FailedSnapshotListSchema>;

export const RedriveResultSchema = z.object({
  redriven: z.number().int().describe('snapshots put back in line now'),
  snapshotIds: z.array(z.uuid()).describe('their ids; a snapshot not failed (any more) is not among them'),
});

export type RedriveResultView = z.output<typeof RedriveResultSchema>;
