import { Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { clearCookie, cookieOf, csrfTokenOf, SESSION_COOKIE, setCookie, SIGN_IN_COOKIE } from '../auth/cookies.js';
import { SessionAuthenticator } from '../auth/session-authenticator.js';
import { ApiResponseFrom } from '../http/openapi.js';
import { isoDate } from '../http/schemas.js';
import { parseInput, TakesQuery } from '../http/validation.js';
import { ProblemException, validationProblem } from '../problem.js';
import { SIGN_IN_WINDOW_SECONDS, SignInRefused, SignInService } from './sign-in.service.js';

const StartQuery = z
  .object({ returnTo: z.string().max(2000).optional().describe('a path of the dashboard to open once signed in') })
  .strict();

/** What providers add to the redirect back (RFC 6749 §4.1.2, RFC 9207 `iss`, and a few providers' extras). */
const CallbackQuery = z.object({
  code: z.string().optional(),
  state: z.string().optional(),
  iss: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
  error_uri: z.string().optional(),
  session_state: z.string().optional(),
  scope: z.string().optional(),
  authuser: z.string().optional(),
  prompt: z.string().optional(),
  hd: z.string().optional(),
});

const SessionStateSchema = z.object({
  signedIn: z.boolean(),
  expiresAt: isoDate.nullable().describe('when the session ends'),
  csrfToken: z.string().nullable().describe('send as X-CSRF-Token with every request that changes something'),
  reason: z.string().nullable().describe('why a session cookie the browser still sends no longer works'),
});

const slugParam = z.object({ slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'not an organization slug') });

type ExpressRequest = IncomingMessage & { ip?: string; protocol?: string; get?: (name: string) => string | undefined };

/** Sends the browser to `location` (303: the next request is a GET whatever this one was). */
function redirect(response: ServerResponse, location: string): void {
  response.statusCode = 303;
  response.setHeader('Location', location);
  response.setHeader('Cache-Control', 'no-store');
  response.end();
}

/** Back to the dashboard's sign-in page, saying why (the page shows `error`). */
function backToSignIn(response: ServerResponse, refused: SignInRefused): void {
  const query = new URLSearchParams({ error: refused.message });
  redirect(response, `/sign-in${refused.organizationSlug ? `/${refused.organizationSlug}` : ''}?${query}`);
}

/**
 * Signing in to the dashboard through the organization's identity provider, and out. The first two
 * routes are browser navigations (they answer redirects, and send failures back to the sign-in page with
 * the reason); they need no credentials, since they are how a person gets some.
 */
@ApiTags('sign-in')
@Controller('v1/auth')
export class SignInController {
  constructor(
    @Inject(SignInService) private readonly signIn: SignInService,
    @Inject(SessionAuthenticator) private readonly sessions: SessionAuthenticator,
  ) {}

  // A browser navigation answering redirects, not an API operation: docs/sso.md describes it.
  @Get('sso/:slug/start')
  @ApiExcludeEndpoint()
  @TakesQuery(StartQuery)
  async start(
    @Param('slug') slug: string,
    @Query() query: unknown,
    @Req() request: ExpressRequest,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const organization = parseInput(slugParam, { slug }, 'path').slug;
    const { returnTo } = parseInput(StartQuery, query, 'query');
    try {
      const started = await this.signIn.start(organization, returnTo ?? '/', request);
      setCookie(response, SIGN_IN_COOKIE, started.state, SIGN_IN_WINDOW_SECONDS);
      redirect(response, started.authorizationUrl);
    } catch (error) {
      if (!(error instanceof SignInRefused)) throw error;
      backToSignIn(response, error);
    }
  }

  // Where the provider sends the browser back; like start, a navigation (docs/sso.md).
  @Get('sso/callback')
  @ApiExcludeEndpoint()
  @TakesQuery(CallbackQuery)
  async callback(
    @Query() query: unknown,
    @Req() request: ExpressRequest,
    @Res() response: ServerResponse,
  ): Promise<void> {
    parseInput(CallbackQuery, query, 'query');
    const search = new URL(request.url ?? '/', 'http://local').searchParams;
    clearCookie(response, SIGN_IN_COOKIE);
    try {
      const finished = await this.signIn.finish(search, cookieOf(request, SIGN_IN_COOKIE), request);
      setCookie(
        response,
        SESSION_COOKIE,
        finished.sessionToken,
        Math.floor((finished.expiresAt.getTime() - Date.now()) / 1000),
      );
      redirect(response, finished.returnTo);
    } catch (error) {
      if (!(error instanceof SignInRefused)) throw error;
      backToSignIn(response, error);
    }
  }

  @Get('session')
  @ApiOperation({
    summary:
      'Whether this browser holds a dashboard session: its CSRF token and end when it does (no credentials needed)',
    description:
      'The dashboard asks this first: a browser without a session gets signedIn false (never a 401), one with a session its CSRF token, to send as X-CSRF-Token with what changes something.',
    security: [],
  })
  @ApiResponseFrom(200, SessionStateSchema, 'the session, or signedIn false')
  async session(@Req() request: ExpressRequest): Promise<z.output<typeof SessionStateSchema>> {
    const token = cookieOf(request, SESSION_COOKIE);
    if (!token) return { signedIn: false, expiresAt: null, csrfToken: null, reason: null };
    try {
      const caller = await this.sessions.authenticate(token);
      return {
        signedIn: true,
        expiresAt: caller.expiresAt!.toISOString(),
        csrfToken: csrfTokenOf(token),
        reason: null,
      };
    } catch (error) {
      if (error instanceof ProblemException && error.getStatus() === 401) {
        return { signedIn: false, expiresAt: null, csrfToken: null, reason: error.detail };
      }
      throw error;
    }
  }

  @Post('sign-out')
  @ApiKeyAuth()
  @HttpCode(204)
  @ApiOperation({
    summary: "End the caller's dashboard session and clear its cookie (needs the X-CSRF-Token header)",
  })
  @ApiResponse({ status: 204, description: 'signed out' })
  async signOut(
    @CurrentCaller() caller: Caller,
    @Req() request: ExpressRequest,
    @Res({ passthrough: true }) response: ServerResponse,
  ): Promise<void> {
    if (caller.via !== 'sso') {
      throw validationProblem([
        {
          location: 'header',
          field: 'Authorization',
          message:
            'signing out ends a dashboard session; this request is authenticated by a key or token, which do not sign in',
        },
      ]);
    }
    await this.signIn.signOut(caller, request.ip ?? null);
    clearCookie(response, SESSION_COOKIE);
  }
}
