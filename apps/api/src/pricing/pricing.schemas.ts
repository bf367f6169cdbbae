import { z } from 'zod';
import { PricingSchema } from '../clusters/clusters.schemas.js';
import { CloudSchema } from '../http/schemas.js';

export const SetOrganizationPriceBody = z
  .object({
    crossZonePricePerGb: z
      .number()
      .min(0)
      .max(1000)
      .nullable()
      .describe(
        "USD per cross-zone GB for every cluster of the organization, over the catalogue (a cluster's own price still wins); null to use the catalogue",
      ),
  })
  .strict();

const CatalogueEntrySchema = z.object({
  cloud: z.string().describe('`aws`, `gcp`, `azure` or `on-prem` (a cluster on cloud `onprem`)'),
  pricePerGb: z.number().describe('price of one GB crossing a zone boundary, every billed side counted'),
  currency: z.literal('USD'),
  basis: z.string().describe('how the provider bills it'),
  url: z.url().describe('where the rate is published'),
  sourceSays: z.string().describe('what the source says'),
  sourceDate: z.string().describe('when the rate was read (ISO date, or year-month)'),
  readVia: z.string().describe('the page the rate was read on'),
  regions: z.array(z.string()).describe('regions checked against the rate (others get it as provider-default)'),
});

export const OrganizationPricingSchema = z.object({
  currency: z.literal('USD').describe('the currency of every price and every cost zonewise answers with'),
  catalogue: z.array(CatalogueEntrySchema).describe('the price catalogue, per provider, with sources and dates'),
  organization: z.object({
    crossZonePricePerGb: z.number().nullable().describe("the organization's price (null: the catalogue's)"),
  }),
  clusters: z
    .array(
      z.object({
        id: z.uuid(),
        name: z.string(),
        cloud: CloudSchema,
        region: z.string().nullable(),
        pricing: PricingSchema,
      }),
    )
    .describe('the price each cluster is costed at, and where it comes from'),
});
export type OrganizationPricingView = z.output<typeof OrganizationPricingSchema>;
