import { readFileSync } from 'node:fs';
import { analyzeSnapshot, parseSnapshot, parseSnapshotJson } from '@zw/core';

/**
 * One benchmark process: reads a snapshot file (untimed), then alternates the floor (JSON.parse of the
 * input + JSON.stringify of the output) and the full `analyze` (parseSnapshotJson, parseSnapshot,
 * analyzeSnapshot, JSON.stringify), and prints medians and peak memory as one JSON line.
 */

const file = process.argv[2];
const rounds = Number(process.argv[3] ?? 5);
const text = readFileSync(file, 'utf8');

function analyzeText(input: string): string {
  return JSON.stringify(analyzeSnapshot(parseSnapshot(parseSnapshotJson(input))));
}

const output = JSON.parse(analyzeText(text)) as unknown; // warm-up, and the floor's output object
const floorTimes: number[] = [];
const analyzeTimes: number[] = [];
for (let round = 0; round < rounds; round++) {
  gc();
  let start = performance.now();
  JSON.parse(text);
  JSON.stringify(output);
  floorTimes.push(performance.now() - start);
  gc();
  start = performance.now();
  analyzeText(text);
  analyzeTimes.push(performance.now() - start);
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

process.stdout.write(
  `${JSON.stringify({
    inputBytes: Buffer.byteLength(text),
    floorMs: median(floorTimes),
    analyzeMs: median(analyzeTimes),
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  })}\n`,
);
