import { readFileSync } from 'node:fs';
import { analyzeSnapshot, parseSnapshot, recommendFixes } from '@zw/core';

/**
 * One benchmark process: reads a snapshot file (untimed), then alternates the analysis alone (parse,
 * analyze, stringify) and the analysis with every Service's recommended fixes (the same, plus
 * `recommendFixes` and its output), and prints the medians as one JSON line.
 */

const file = process.argv[2];
const rounds = Number(process.argv[3] ?? 5);
const text = readFileSync(file, 'utf8');

function analysisAlone(input: string): string {
  return JSON.stringify(analyzeSnapshot(parseSnapshot(JSON.parse(input))));
}

function analysisWithFixes(input: string): { json: string; fixes: number } {
  const snapshot = parseSnapshot(JSON.parse(input));
  const report = analyzeSnapshot(snapshot);
  const fixes = recommendFixes(snapshot, report);
  const json = JSON.stringify({ report, fixes });
  return { json, fixes: fixes.services.reduce((sum, entry) => sum + entry.recommendations.length, 0) };
}

const { fixes } = analysisWithFixes(text); // warm-up
analysisAlone(text);
const aloneTimes: number[] = [];
const withFixesTimes: number[] = [];
for (let round = 0; round < rounds; round++) {
  gc();
  let start = performance.now();
  analysisAlone(text);
  aloneTimes.push(performance.now() - start);
  gc();
  start = performance.now();
  analysisWithFixes(text);
  withFixesTimes.push(performance.now() - start);
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

process.stdout.write(
  `${JSON.stringify({ analyzeMs: median(aloneTimes), withFixesMs: median(withFixesTimes), fixes })}\n`,
);
