import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MetricsService } from './metrics.service.js';

type RoutedRequest = IncomingMessage & { route?: { path?: string }; baseUrl?: string };

/**
 * Express middleware timing every request from arrival to the last byte, labelled by route template
 * (`/v1/clusters/:id`), never by the raw path, so the label set stays small.
 */
export function httpMetricsMiddleware(metrics: MetricsService) {
  return (request: RoutedRequest, response: ServerResponse, next: () => void): void => {
    const end = metrics.httpDuration.startTimer();
    response.once('finish', () => {
      // Mounted handlers (GraphQL) have no route, only the mount path; a 404 has neither.
      const route = request.route?.path
        ? `${request.baseUrl ?? ''}${request.route.path}`
        : request.baseUrl || 'unmatched';
      end({ method: request.method ?? 'GET', route, status: String(response.statusCode) });
    });
    next();
  };
}
