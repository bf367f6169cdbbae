import type { EChartsType } from 'echarts/core';
import { useEffect, useRef, useState } from 'react';
import { whenIdle } from '../idle';

const DISPOSE_LATER_MS = 1000;

/**
 * A chart that left the page (a navigation away) is disposed a while later, when the browser is idle:
 * disposing takes several milliseconds per chart, and the next page would wait for it (its click, or its
 * answer arriving meanwhile). Its animation loop stops now, or it would keep drawing frames until then.
 */
function disposeLater(chart: EChartsType): void {
  chart.getZr().animation.stop();
  setTimeout(() => whenIdle(() => chart.dispose(), 2000), DISPOSE_LATER_MS);
}

/**
 * Decision: charts are drawn in their final state at once. ECharts' entry animation grows a line's
 * points from nothing, each delayed by its place on the x axis (a lone point in the middle stays
 * invisible for half a second): a chart looked empty to whoever glanced at it, and to a screenshot.
 */
const WITHOUT_ANIMATION = { animation: false };

/** An ECharts option as plain data; the chart library itself loads only when a chart is drawn. */
export type ChartOption = Record<string, unknown>;

/**
 * A chart drawn by ECharts (SVG renderer). The library is a chunk of its own, imported on first use, so
 * pages without charts and the first page's initial script never carry it.
 */
export function Chart({ option, height = 260, label }: { option: ChartOption; height?: number; label: string }) {
  const element = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let disposed = false;
    let chart: EChartsType | undefined;
    let observer: ResizeObserver | undefined;
    import('./echarts-parts')
      .then(({ echarts }) => {
        if (disposed || !element.current) return;
        const drawn = echarts.init(element.current, undefined, { renderer: 'svg' });
        drawn.setOption({ ...WITHOUT_ANIMATION, ...option });
        observer = new ResizeObserver(() => drawn.resize());
        observer.observe(element.current);
        chart = drawn;
      })
      .catch((error: unknown) => setFailed(error instanceof Error ? error.message : String(error)));
    const node = element.current;
    return () => {
      disposed = true;
      observer?.disconnect();
      if (chart && node && !node.isConnected) disposeLater(chart);
      else chart?.dispose();
    };
    // Redrawn when the figures change, not on every render (options are rebuilt each time).
  }, [JSON.stringify(option)]);
  if (failed) return <p className="error">The chart could not be drawn: {failed}</p>;
  return <div ref={element} className="chart" style={{ height }} role="img" aria-label={label} />;
}
