import {
  type AlertEvent,
  newWebhookSecret,
  quietHoursEnd,
  sendAlertEvent,
  type SendOptions,
  signedWebhookHeaders,
} from '@zw/notify';
import { verifyWebhook } from '@zw/reports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type HttpReceiver,
  type SmtpSink,
  startHttpReceiver,
  startSmtpSink,
  verifyStandardWebhook,
} from '../../../test/support/alert-receivers.js';

/**
 * Each channel's message as its receiver gets it: a local HTTP receiver checks the Slack (Block Kit) and
 * Teams (Adaptive Card) shapes and the dashboard link; a generic webhook is verified with the
 * `standardwebhooks` library (and zonewise's own signature with the reports' verifier); an SMTP sink
 * (`smtp-server`) receives the email.
 */
let receiver: HttpReceiver;
let smtp: SmtpSink;
let options: SendOptions;

const LINK = 'https://zonewise.example.com/clusters/0190/services/shop/cart';

function event(type: AlertEvent['type'], deliveryId = '01900000-0000-7000-8000-000000000001'): AlertEvent {
  return {
    deliveryId,
    type,
    alert: {
      id: '01900000-0000-7000-8000-0000000000aa',
      kind: 'hints-lost',
      subject: 'service:0190/shop/cart',
      summary: 'shop/cart in prod-eu lost its hints: a zone has no ready Node information <&>',
      ruleName: 'Hints lost in prod',
      openedAt: '2026-11-28T10:00:00.000Z',
      resolvedAt: type === 'resolved' ? '2026-11-28T11:00:00.000Z' : null,
      details: { clusterName: 'prod-eu' },
    },
    organization: { slug: 'acme', name: 'Acme' },
    link: LINK,
    at: '2026-11-28T10:00:01.000Z',
  };
}

beforeAll(async () => {
  receiver = await startHttpReceiver();
  smtp = await startSmtpSink();
  options = { timeoutMs: 10_000, allowPrivate: true, smtp: { url: smtp.url, from: 'zonewise <alerts@zonewise.test>' } };
});

afterAll(async () => {
  await receiver.close();
  await smtp.close();
});

describe('chat channels', () => {
  it('Slack gets an incoming-webhook message: fallback text and Block Kit blocks with the link', async () => {
    const result = await sendAlertEvent(
      { kind: 'slack', target: `${receiver.url}/slack`, secret: null, signature: null },
      event('opened'),
      options,
    );
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    const request = receiver.received.find((one) => one.path === '/slack')!;
    expect(request.headers['content-type']).toBe('application/json');
    const body = JSON.parse(request.body) as { text: string; blocks: { type: string; [key: string]: unknown }[] };
    expect(body.text).toContain('[ALERT] Service lost its topology hints');
    expect(body.text).toContain('&lt;&amp;&gt;');
    expect(body.blocks.map((block) => block.type)).toEqual(['header', 'section', 'context', 'actions']);
    expect(JSON.stringify(body.blocks[1])).toContain(`<${LINK}|Open the Service and its fix>`);
    expect(body.blocks[3]).toMatchObject({ elements: [{ type: 'button', url: LINK }] });
  });

  it('Teams gets a message with one Adaptive Card attachment and an Open URL action', async () => {
    const result = await sendAlertEvent(
      { kind: 'teams', target: `${receiver.url}/teams`, secret: null, signature: null },
      event('resolved'),
      options,
    );
    expect(result.ok).toBe(true);
    const body = JSON.parse(receiver.received.find((one) => one.path === '/teams')!.body) as {
      type: string;
      attachments: { contentType: string; content: Record<string, unknown> }[];
    };
    expect(body.type).toBe('message');
    expect(body.attachments).toHaveLength(1);
    expect(body.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    const card = body.attachments[0].content as {
      type: string;
      version: string;
      body: { text?: string }[];
      actions: unknown[];
    };
    expect(card.type).toBe('AdaptiveCard');
    expect(card.version).toBe('1.4');
    expect(card.body[0].text).toBe('[RESOLVED] Service lost its topology hints');
    expect(card.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open the Service and its fix', url: LINK }]);
  });

  it('a receiver answering 500 is a failed send naming the status', async () => {
    receiver.answer = () => 500;
    try {
      const result = await sendAlertEvent(
        { kind: 'slack', target: `${receiver.url}/down`, secret: null, signature: null },
        event('opened'),
        options,
      );
      expect(result).toMatchObject({ ok: false, statusCode: 500 });
      expect(result.error).toContain('500');
    } finally {
      receiver.answer = () => 200;
    }
  });

  it('private addresses are refused unless the deployment allows them', async () => {
    const result = await sendAlertEvent(
      { kind: 'slack', target: `${receiver.url}/private`, secret: null, signature: null },
      event('opened'),
      { ...options, allowPrivate: false },
    );
    expect(result.ok).toBe(false);
    expect(receiver.received.some((one) => one.path === '/private')).toBe(false);
  });
});

describe('generic webhooks', () => {
  it('are signed per Standard Webhooks: the standardwebhooks library verifies them', async () => {
    const secret = newWebhookSecret();
    const result = await sendAlertEvent(
      { kind: 'webhook', target: `${receiver.url}/std`, secret, signature: 'standard' },
      event('opened'),
      options,
    );
    expect(result.ok).toBe(true);
    const request = receiver.received.find((one) => one.path === '/std')!;
    expect(request.headers['webhook-id']).toBe('01900000-0000-7000-8000-000000000001');
    expect(request.headers['zonewise-signature']).toBeUndefined();
    const payload = verifyStandardWebhook(secret, request) as { type: string; data: { link: string } };
    expect(payload.type).toBe('alert.opened');
    expect(payload.data.link).toBe(LINK);
    // Another secret, or a changed body, does not verify.
    expect(() => verifyStandardWebhook(newWebhookSecret(), request)).toThrow();
    expect(() =>
      verifyStandardWebhook(secret, { ...request, body: request.body.replace('opened', 'resolved') }),
    ).toThrow();
  });

  it('keep Zonewise-Signature as an option, and both at once', async () => {
    const secret = newWebhookSecret();
    await sendAlertEvent(
      { kind: 'webhook', target: `${receiver.url}/both`, secret, signature: 'both' },
      event('test'),
      options,
    );
    const request = receiver.received.find((one) => one.path === '/both')!;
    expect(verifyStandardWebhook(secret, request)).toMatchObject({ type: 'alert.test' });
    expect(
      verifyWebhook({
        secret,
        body: request.body,
        timestampHeader: String(request.headers['zonewise-timestamp']),
        signatureHeader: String(request.headers['zonewise-signature']),
        now: new Date(),
      }),
    ).toEqual({ ok: true });
    const only = signedWebhookHeaders('zonewise', secret, 'd1', 'alert.test', '{}', new Date());
    expect(only['webhook-signature']).toBeUndefined();
    expect(only['zonewise-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
  });
});

describe('email', () => {
  it('reaches the SMTP server with the summary, the link and the delivery id as Message-ID', async () => {
    const result = await sendAlertEvent(
      { kind: 'email', target: 'oncall@acme.test, lead@acme.test', secret: null, signature: null },
      event('opened', '01900000-0000-7000-8000-0000000000e1'),
      options,
    );
    expect(result).toMatchObject({ ok: true });
    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    expect(mail.from).toBe('alerts@zonewise.test');
    expect(mail.to.sort()).toEqual(['lead@acme.test', 'oncall@acme.test']);
    expect(mail.raw).toMatch(/^Subject: \[ALERT\] Service lost its topology hints/m);
    expect(mail.raw).toContain('Message-ID: <01900000-0000-7000-8000-0000000000e1@zonewise>');
    expect(mail.raw).toContain(LINK);
  });

  it('without SMTP_URL, email fails with a message naming the setting', async () => {
    const result = await sendAlertEvent(
      { kind: 'email', target: 'a@b.test', secret: null, signature: null },
      event('test'),
      { ...options, smtp: null },
    );
    expect(result).toMatchObject({
      ok: false,
      error: 'this deployment sends no email: its operator must set SMTP_URL',
    });
  });
});

describe('quiet hours', () => {
  it('hold messages until the window ends, across midnight and in the rule time zone', () => {
    const at = (iso: string) => new Date(iso);
    expect(quietHoursEnd(at('2026-11-28T23:30:00Z'), '22:00', '07:00', 'UTC')).toEqual(at('2026-11-29T07:00:00Z'));
    expect(quietHoursEnd(at('2026-11-28T06:59:30Z'), '22:00', '07:00', 'UTC')).toEqual(at('2026-11-28T07:00:00Z'));
    expect(quietHoursEnd(at('2026-11-28T12:00:00Z'), '22:00', '07:00', 'UTC')).toBeNull();
    // 21:30 UTC is 22:30 in Berlin (CET, UTC+1): quiet until 07:00 Berlin = 06:00 UTC.
    expect(quietHoursEnd(at('2026-11-28T21:30:00Z'), '22:00', '07:00', 'Europe/Berlin')).toEqual(
      at('2026-11-29T06:00:00Z'),
    );
    expect(quietHoursEnd(at('2026-11-28T12:00:00Z'), '09:00', '17:00', 'UTC')).toEqual(at('2026-11-28T17:00:00Z'));
    expect(quietHoursEnd(at('2026-11-28T12:00:00Z'), null, null, 'UTC')).toBeNull();
  });
});
