import type { AnalysisReport, NodeBlockers, Recommendation, SnapshotRecommendations } from '@zw/core';

/**
 * `zonewise fix` for a person: each Service that does not route in-zone, why, and its fixes best first,
 * with what each leads to and the commands to apply.
 */
export function fixesAsText(report: AnalysisReport, fixes: SnapshotRecommendations, only: string | null): string {
  const lines: string[] = [];
  if (fixes.nodeBlockers !== null && only === null) lines.push(...blockerLines(fixes.nodeBlockers), '');
  report.services.forEach((analysis, index) => {
    const key = `${analysis.namespace}/${analysis.name}`;
    if (only !== null && key !== only) return;
    const recommendations = fixes.services[index]?.recommendations ?? [];
    if (recommendations.length === 0 && only === null) return;
    const reason = analysis.hints.reason === null ? '' : `: ${analysis.hints.reason}`;
    lines.push(`${key} (routing ${analysis.routing}, hints ${analysis.hints.state}${reason})`);
    if (recommendations.length === 0) lines.push('  nothing to fix: it routes in-zone, or cannot gain from it');
    recommendations.forEach((fix, position) => lines.push(...fixLines(fix, position + 1)));
    lines.push('');
  });
  if (lines.length === 0) lines.push('Every Service routes in-zone or cannot gain from it: nothing to fix.');
  return `${lines.join('\n').trimEnd()}\n`;
}

function blockerLines(blockers: NodeBlockers): string[] {
  return [
    `Cluster: ${blockers.nodes.length === 1 ? '1 node disables' : `${blockers.nodes.length} nodes disable`} hints for every Service: ${blockers.nodes.map((node) => `${node.name} (${node.problem})`).join(', ')}`,
    `  ${blockers.services === 1 ? '1 Service depends' : `${blockers.services} Services depend`} on them; fixing them saves ${money(blockers.savings.cost)} a month (${gb(blockers.savings.crossZoneGb)} cross-zone)`,
    ...indent(blockers.patch, '    '),
  ];
}

function fixLines(fix: Recommendation, position: number): string[] {
  const overload = Math.max(0, ...Object.values(fix.expectedOverload));
  const flag = fix.overloadAboveThreshold ? ' (above the 20 % threshold)' : '';
  const state = fix.reason === null ? fix.resultingState : `${fix.resultingState}: ${fix.reason}`;
  return [
    `  ${position}. ${fix.kind}: ${fix.summary}`,
    `     after: hints ${state}; ${percent(fix.crossZone.withHints)} of requests cross zones; worst overload ${percent(overload)}${flag}; saves ${money(fix.savings.cost)} a month (${gb(fix.savings.crossZoneGb)} cross-zone)`,
    ...indent(fix.patch, '     '),
  ];
}

function indent(text: string, prefix: string): string[] {
  return text.split('\n').map((line) => `${prefix}${line}`);
}

function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)} %`;
}

function money(usd: number): string {
  return `$${usd.toFixed(2)}`;
}

function gb(value: number): string {
  return `${value.toFixed(1)} GB`;
}
