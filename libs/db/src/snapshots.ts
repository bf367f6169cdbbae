import type { ClusterOverrides } from '@zw/core';
import type { Db } from './db-client.js';
import { Prisma } from './generated/prisma/client.js';
import type { ReadDb } from './read-db.js';
import type { SqlClient } from './sql-client.js';

export interface ClaimedSnapshot {
  clusterId: string;
  capturedAt: Date;
  receivedAt: Date;
  /** The organization's history retention override, if any. */
  historyRetentionDays: number | null;
  /**
   * The latest snapshot before it that is recorded or being recorded, when its input (input_hash) is the
   * same, as seen before taking the cluster's lock; the fast path checks again under the lock.
   */
  repeats: { snapshotId: string; recorded: boolean } | null;
  /** The raw payload; null if it is gone, and not read when the snapshot repeats its predecessor. */
  gzip: Uint8Array | null;
  /**
   * SHA-256 of what the analysis reads (the document without its captured-at, as ingest stored it), in
   * hex; null for a snapshot stored without one.
   */
  inputHash: string | null;
  /** The cluster's overrides, applied to the snapshot before its analysis. */
  overrides: ClusterOverrides;
}

/**
 * Marks a waiting snapshot as being processed (counting the attempt) and reads it with its payload, in
 * one round trip. Null when there is nothing to do: already processed or failed, or no longer there.
 */
export async function claimSnapshot(db: SqlClient, snapshotId: string): Promise<ClaimedSnapshot | null> {
  const rows = await db.$queryRaw<
    {
      cluster_id: string;
      captured_at: Date;
      received_at: Date;
      history_retention_days: number | null;
      repeated_id: string | null;
      repeated_recorded: boolean | null;
      gzip: Uint8Array | null;
      input_hash: string | null;
      kubernetes_version: string | null;
      data_plane: string | null;
    }[]
  >`
    WITH claimed AS (
      UPDATE snapshots s
         SET status = 'processing', attempts = s.attempts + 1, status_changed_at = now()
        FROM clusters c JOIN organizations o ON o.id = c.organization_id
       WHERE s.id = ${snapshotId}::uuid AND c.id = s.cluster_id AND s.status IN ('queued', 'processing')
      RETURNING s.id, s.cluster_id, s.captured_at, s.received_at, s.input_hash, o.history_retention_days, c.kubernetes_version,
                c.data_plane
    ), repeated AS (
      SELECT claimed.id, previous.id AS repeated_id, previous.status = 'processed' AS repeated_recorded
        FROM claimed
        LEFT JOIN LATERAL (
          SELECT ps.id, ps.status, ps.input_hash FROM snapshots ps
           WHERE ps.cluster_id = claimed.cluster_id AND ps.captured_at < claimed.captured_at
             AND ps.status IN ('processed', 'processing')
           ORDER BY ps.captured_at DESC LIMIT 1) previous ON previous.input_hash = claimed.input_hash
    )
    SELECT claimed.cluster_id::text, claimed.captured_at, claimed.received_at, claimed.history_retention_days, r.repeated_id::text,
           r.repeated_recorded, CASE WHEN r.repeated_id IS NULL THEN p.gzip END AS gzip,
           encode(claimed.input_hash, 'hex') AS input_hash, claimed.kubernetes_version,
           claimed.data_plane
      FROM claimed JOIN repeated r USING (id)
      LEFT JOIN snapshot_payloads p ON p.snapshot_id = claimed.id AND p.captured_at = claimed.captured_at`;
  const row = rows[0];
  return row
    ? {
        clusterId: row.cluster_id,
        capturedAt: row.captured_at,
        receivedAt: row.received_at,
        historyRetentionDays: row.history_retention_days,
        repeats: row.repeated_id ? { snapshotId: row.repeated_id, recorded: row.repeated_recorded === true } : null,
        gzip: row.gzip,
        inputHash: row.input_hash,
        overrides: { kubernetesVersion: row.kubernetes_version, dataPlane: row.data_plane },
      }
    : null;
}

/** Whether a snapshot is still being recorded (its status `processing`). */
export async function isBeingRecorded(db: SqlClient, snapshotId: string): Promise<boolean> {
  const rows = await db.$queryRaw<{ status: string }[]>`
    SELECT status::text FROM snapshots WHERE id = ${snapshotId}::uuid`;
  return rows[0]?.status === 'processing';
}

/** The raw payload of a snapshot captured at `capturedAt` (its partition key); null if it is gone. */
export async function readSnapshotPayload(
  db: SqlClient,
  snapshotId: string,
  capturedAt: Date,
): Promise<Uint8Array | null> {
  const rows = await db.$queryRaw<{ gzip: Uint8Array }[]>`
    SELECT gzip FROM snapshot_payloads WHERE snapshot_id = ${snapshotId}::uuid AND captured_at = ${capturedAt}::timestamptz`;
  return rows[0]?.gzip ?? null;
}

/** Records why a snapshot can never be processed; a snapshot already processed keeps its status. */
export async function markSnapshotFailed(db: Db, snapshotId: string, reason: string): Promise<boolean> {
  const changed = await db.$executeRaw`
    UPDATE snapshots SET status = 'failed', error = ${reason.slice(0, 4000)}, status_changed_at = now()
     WHERE id = ${snapshotId}::uuid AND status IN ('queued', 'processing')`;
  return changed > 0;
}

/** The raw payload of a cluster's newest processed snapshot whose payload is still stored; null if none. */
export async function newestProcessedPayload(db: Db, clusterId: string): Promise<Uint8Array | null> {
  const rows = await db.$queryRaw<{ gzip: Uint8Array }[]>`
    SELECT p.gzip FROM snapshots s JOIN snapshot_payloads p ON p.snapshot_id = s.id AND p.captured_at = s.captured_at
     WHERE s.cluster_id = ${clusterId}::uuid AND s.status = 'processed'
     ORDER BY s.captured_at DESC LIMIT 1`;
  return rows[0]?.gzip ?? null;
}

export interface NewestCapture {
  clusterId: string;
  organizationId: string;
  capturedAt: Date;
}

/** Every cluster with a snapshot, and its newest capture (whatever its status): one index probe per cluster. */
export async function newestCaptures(db: Db): Promise<NewestCapture[]> {
  return db.$queryRaw<NewestCapture[]>`
    SELECT c.id::text AS "clusterId", c.organization_id::text AS "organizationId", ls.captured_at AS "capturedAt"
      FROM clusters c
      JOIN LATERAL (SELECT s.captured_at FROM snapshots s
                     WHERE s.cluster_id = c.id ORDER BY s.captured_at DESC LIMIT 1) ls ON true`;
}

export interface StoredSnapshotPayload {
  /** The payload's size as the agent sent it (uncompressed JSON bytes). */
  sizeBytes: number;
  gzip: Buffer;
}

/** A snapshot's raw payload and size, read on the read pool; null if the snapshot or its payload is gone. */
export async function storedSnapshotPayload(db: ReadDb, snapshotId: string): Promise<StoredSnapshotPayload | null> {
  const [row] = await db.query<{ size_bytes: number; gzip: Buffer | null }>(
    `SELECT s.size_bytes, p.gzip FROM snapshots s
       LEFT JOIN snapshot_payloads p ON p.snapshot_id = s.id AND p.captured_at = s.captured_at
      WHERE s.id = $1`,
    [snapshotId],
  );
  return row?.gzip ? { sizeBytes: row.size_bytes, gzip: row.gzip } : null;
}

/** A snapshot still waiting to be recorded, as the sweeper pages through them. */
export interface WaitingSnapshot {
  id: string;
  clusterId: string;
  /** How often it was taken up (claimSnapshot counts each). */
  attempts: number;
}

/**
 * Snapshots queued or being processed whose status last changed before `since`, by id, `limit` at a
 * time: the next page starts after the previous page's last id.
 */
export async function waitingSnapshots(db: Db, since: Date, limit: number, after?: string): Promise<WaitingSnapshot[]> {
  return db.snapshot.findMany({
    where: {
      status: { in: ['queued', 'processing'] },
      statusChangedAt: { lt: since },
      ...(after ? { id: { gt: after } } : {}),
    },
    select: { id: true, clusterId: true, attempts: true },
    orderBy: { id: 'asc' },
    take: limit,
  });
}

/** A pushed snapshot as ingest stores it: its row and its gzip payload. */
export interface NewSnapshot {
  clusterId: string;
  capturedAt: Date;
  receivedAt: Date;
  /** SHA-256 of the pushed document: the same bytes pushed again are the same snapshot. */
  contentHash: Uint8Array<ArrayBuffer>;
  /** SHA-256 of what the analysis reads (the document without its captured-at). */
  inputHash: Uint8Array<ArrayBuffer>;
  sizeBytes: number;
  gzip: Uint8Array<ArrayBuffer>;
}

/**
 * Stores a pushed snapshot with its payload (one nested write, as ingest always made it); its id, or null
 * when the cluster already has a snapshot with these bytes or this captured-at (their unique keys), stored
 * by a concurrent push or before. Not for an interactive transaction: the refused insert would abort it.
 */
export async function insertSnapshot(db: Db, snapshot: NewSnapshot): Promise<string | null> {
  const { gzip, ...row } = snapshot;
  try {
    const { id } = await db.snapshot.create({
      data: { ...row, payload: { create: { gzip } } },
      select: { id: true },
    });
    return id;
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') return null;
    throw error;
  }
}

/** The cluster's snapshot with these exact bytes (its id and captured-at), or null. */
export async function snapshotByContent(
  db: Db,
  clusterId: string,
  contentHash: Uint8Array<ArrayBuffer>,
): Promise<{ id: string; capturedAt: Date } | null> {
  return db.snapshot.findUnique({
    where: { clusterId_contentHash: { clusterId, contentHash } },
    select: { id: true, capturedAt: true },
  });
}
