import { ROUTING_MODES } from '@zw/core';
import { z } from 'zod';

/**
 * Response shapes, documented in the OpenAPI spec. Tests parse real answers with them, so the document
 * says what the API really sends.
 */

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z
      .array(
        z.object({ location: z.enum(['query', 'path', 'body', 'header']), field: z.string(), message: z.string() }),
      )
      .optional()
      .describe('validation errors: every invalid field'),
  })
  .loose()
  .describe('RFC 9457 problem details (application/problem+json)');

export type Problem = z.output<typeof ProblemSchema>;

export const uuidParam = z.uuid({ message: 'must be a UUID' });

export const CloudSchema = z.enum(['aws', 'gcp', 'azure', 'onprem', 'other']);

export const isoDate = z.string().describe('RFC 3339 timestamp');

/** A Service's routing (its traffic distribution or topology mode, as the core reads it). */
export const RoutingSchema = z.enum(ROUTING_MODES);

/** Whether a Service's EndpointSlices carry zone hints (topologycache.go AddHints / RemoveHints). */
export const HintStateSchema = z.enum(['populated', 'removed', 'none']);

/** A role: each includes the ones before it. */
export const RoleSchema = z.enum(['viewer', 'operator', 'admin']);
