-- AlterEnum
ALTER TYPE "cloud" ADD VALUE 'onprem';

-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "cross_zone_price_per_gb" DECIMAL(12,6);
