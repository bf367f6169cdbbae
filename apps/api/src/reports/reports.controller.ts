import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { ServerResponse } from 'node:http';
import { ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiPathParams, ApiQueryFrom, ApiResponseFrom } from '../http/openapi.js';
import { parseInput } from '../http/validation.js';
import { idFromPath } from './report-views.js';
import {
  DownloadQuery,
  ListReportsQuery,
  ReportListSchema,
  type ReportListView,
  ReportSchema,
  type ReportView,
} from './reports.schemas.js';
import { ReportsService } from './reports.service.js';

@ApiTags('reports')
@ApiKeyAuth()
@Controller('v1/reports')
export class ReportsController {
  constructor(@Inject(ReportsService) private readonly reports: ReportsService) {}

  @Get()
  @ApiOperation({ summary: "The organization's reports (of one schedule with scheduleId), newest period first" })
  @ApiQueryFrom(ListReportsQuery)
  @ApiResponseFrom(200, ReportListSchema, 'one page of reports')
  list(@CurrentCaller() caller: Caller, @Query() query: unknown): Promise<ReportListView> {
    return this.reports.list(caller.organizationId, parseInput(ListReportsQuery, query, 'query'));
  }

  @Get(':id')
  @ApiOperation({ summary: 'One report: its period, status, headline figures, downloads and webhook delivery' })
  @ApiPathParams({ id: 'report id' })
  @ApiResponseFrom(200, ReportSchema, 'the report')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<ReportView> {
    return this.reports.get(caller.organizationId, idFromPath(id));
  }

  @Get(':id/download')
  @ApiOperation({ summary: 'The report as made: JSON document, CSV (one row per Service per cluster) or HTML' })
  @ApiPathParams({ id: 'report id' })
  @ApiQueryFrom(DownloadQuery)
  @ApiProduces('application/json', 'text/csv', 'text/html')
  @ApiResponse({ status: 200, description: 'the report file (Content-Disposition: attachment)' })
  @ApiResponse({ status: 409, description: 'the report is not ready yet (or failed)' })
  async download(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Query() query: unknown,
    @Res({ passthrough: true }) response: ServerResponse,
  ): Promise<string> {
    const reportId = idFromPath(id);
    const { format } = parseInput(DownloadQuery, query, 'query');
    const file = await this.reports.download(caller.organizationId, reportId, format);
    for (const [name, value] of Object.entries(file.headers)) response.setHeader(name, value);
    return file.body;
  }
}
